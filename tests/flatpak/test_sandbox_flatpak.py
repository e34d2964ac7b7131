#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The installed Flatpak, run in its sandbox in this X display and D-Bus session
(tests/e2e/run-in-session.sh), read through the accessibility tree from outside.
flatpak/build-local.sh runs it after installing the app; FLATPAK_USER_DIR, HOME and
XDG_RUNTIME_DIR are the ones it set.

    test_sandbox_flatpak.py window|portal|probe|audience

window: the quiz comes up in Turkish with the bank's first question, as the sandbox's
        own `questions --json` prints it, and the pictures say the simulated GPU.
portal: Open Snapshot… (Ctrl+O) goes through the file chooser portal: the host's
        xdg-desktop-portal and xdg-desktop-portal-gtk, started here in this session
        as a desktop would start them; the chooser (portal-gtk's, outside the sandbox)
        gets a path the sandbox cannot see, and the app opens it through the document
        portal.
probe:  a program outside the sandbox calls gml_probe.start() (with the tests' fake
        torch); Attach… in the sandboxed app's Live view lists it, through the folder
        Flatpak shares with the host, and attaching shows its memory.
audience: audience mode in the sandbox (--share=network) serves the page and the
        state to a client outside it."""

import atexit
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, 'tests', 'e2e'))


from gmltest import App, check, type_into_chooser, wait_for, x_window  # noqa: E402

APP_ID = 'io.github.gpumemorylab.GpuMemoryLab'
mode = sys.argv[1]
work = os.environ['GML_FLATPAK_WORK']
shots = os.path.join(work, 'screenshots')
os.makedirs(shots, exist_ok=True)


def sandbox_env(lang):
    env = dict(os.environ)
    for name in ('GML_LOCALEDIR', 'GSETTINGS_BACKEND', 'GSETTINGS_SCHEMA_DIR', 'GML_LIBCUDA',
                 'XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'PYTHONPATH'):
        env.pop(name, None)
    env.update({'LANGUAGE': lang, 'LC_ALL': 'tr_TR.UTF-8' if lang == 'tr' else 'en_US.UTF-8',
                'GTK_A11Y': 'atspi', 'XDG_CURRENT_DESKTOP': 'GNOME'})
    return env


def sandbox_cli(lang, *args, extra=()):
    return subprocess.run(['flatpak', '--user', 'run', *extra, APP_ID, *args], env=sandbox_env(lang),
                          check=True, capture_output=True, text=True, timeout=120).stdout


class FlatpakApp(App):
    """gmltest's App, started with `flatpak run`."""

    def __init__(self, lang, ready, args=()):
        # What app_env() sets for a build folder means nothing in the sandbox.
        unset = {name: None for name in ('GML_LOCALEDIR', 'GSETTINGS_BACKEND', 'GSETTINGS_SCHEMA_DIR',
                                         'GML_LIBCUDA', 'XDG_DATA_HOME', 'XDG_CONFIG_HOME',
                                         'XDG_CACHE_HOME', 'PYTHONPATH')}
        super().__init__(os.environ['HOME'], lang, ready=ready, timeout=60,
                         argv=['flatpak', '--user', 'run', APP_ID, *args],
                         env={**unset, 'XDG_CURRENT_DESKTOP': 'GNOME'})
        atexit.register(lambda: self.proc.poll() is None and self.proc.kill())

    def window_ids(self):
        """Inside the sandbox the app's process ids are its own namespace's: its windows
        are found by their class."""
        return subprocess.run(['xdotool', 'search', '--onlyvisible', '--classname', 'gpu-memory-lab'],
                              capture_output=True, text=True).stdout.split()


def quiz_ready(app):
    return app.find('push button', prefix='a. ')


if mode == 'window':
    questions = json.loads(sandbox_cli('tr', 'questions', '--json', '--no-shuffle', '--lang', 'tr'))
    app = FlatpakApp('tr', quiz_ready)
    check(True, 'the sandboxed window is in the accessibility tree, read from outside the sandbox')
    app.wait_label(lambda t: t == questions[0]['text'], 'with the first question', timeout=20)
    check(True, f'it shows the first question in Turkish: “{questions[0]["text"][:60]}…”')
    check(len(app.options()) == 4, 'with its four options')
    device = [t for t in app.label_texts() if t.lower() == 'benzetilmiş gpu']
    check(device, 'the pictures say they come from the simulated GPU (no NVIDIA driver here)')
    app.screenshot(os.path.join(shots, 'sandbox-quiz-tr.png'))
    app.quit()
    check(app.proc.returncode == 0, 'Ctrl+Q ends flatpak run with status 0')

elif mode == 'portal':
    # A snapshot of the repository's own (the fuzz corpus' out-of-memory case), in a
    # folder the sandbox has no permission for.
    outside = os.path.join(work, 'outside')
    os.makedirs(outside, exist_ok=True)
    pickle = os.path.join(outside, 'oom.pickle')
    shutil.copy(os.path.join(SOURCE, 'tests', 'fuzz', 'corpus', 'snapshot', 'oom.pickle'), pickle)
    hidden = subprocess.run(['flatpak', '--user', 'run', '--command=test', APP_ID, '-e', pickle],
                            env=sandbox_env('en'))
    check(hidden.returncode != 0, 'the sandbox cannot see the folder the snapshot is in')
    # What the app says of it, read once with a permission for that folder only.
    info = json.loads(sandbox_cli('en', 'snapshot', pickle, '--json', extra=[f'--filesystem={outside}:ro']))
    check(len(info['ooms']) == 1, 'the snapshot has one out-of-memory error')
    title = 'Out of memory at entry %d of %d' % (info['ooms'][0]['index'] + 1, info['trace_entries'])

    # The portals: the host's, started by D-Bus activation on this test's session bus,
    # as on a desktop (flatpak run has already asked for the document portal).
    names = subprocess.run(['gdbus', 'call', '--session', '--dest', 'org.freedesktop.DBus',
                            '--object-path', '/org/freedesktop/DBus', '--method',
                            'org.freedesktop.DBus.ListActivatableNames'],
                           capture_output=True, text=True, check=True).stdout
    portals = ('org.freedesktop.portal.Desktop', 'org.freedesktop.portal.Documents',
               'org.freedesktop.impl.portal.desktop.gtk')
    check(all(f"'{p}'" in names for p in portals), f'the session bus can start {", ".join(portals)}')

    app = FlatpakApp('en', quiz_ready)
    app.key('ctrl+o')
    chooser = x_window('Open Snapshot', timeout=30)
    pid = subprocess.run(['xdotool', 'getwindowpid', chooser], capture_output=True, text=True).stdout.strip()
    comm = open(f'/proc/{pid}/comm').read().strip() if pid else '?'
    check(comm.startswith('xdg-desktop-por'),
          f'Ctrl+O opens the chooser of the portal outside the sandbox (window of “{comm}”)')
    type_into_chooser('Open Snapshot', pickle)
    app.wait_label(lambda t: t == title, f'“{title}”', timeout=30)
    check(True, f'the app opened the snapshot through the document portal: “{title}”')
    app.screenshot(os.path.join(shots, 'sandbox-portal-en.png'))
    app.quit()

elif mode == 'probe':
    runtime = os.environ['XDG_RUNTIME_DIR']
    app = FlatpakApp('en', quiz_ready)
    shared = os.path.join(runtime, 'app', APP_ID)
    check(os.path.isdir(shared), f'Flatpak made the folder it shares with the host: {shared}')
    state = os.path.join(work, 'waiting.json')
    if os.path.exists(state):
        os.unlink(state)
    program_env = dict(os.environ)
    program_env['PYTHONPATH'] = os.pathsep.join([os.path.join(SOURCE, 'tests', 'watch', 'fake'),
                                                 os.path.join(SOURCE, 'data', 'python')])
    waiting = r'''
import json, os, sys, time
import torch, gml_probe
print(os.getpid(), 'started' if gml_probe.start() else 'not started', flush=True)
live = [torch.cuda._fake_alloc(size) for size in (5 << 20, 7 << 20, 1000)]
with open(sys.argv[1], 'w') as f:
    json.dump({'segments': len(torch.cuda.memory._snapshot()['segments'])}, f)
while True:
    time.sleep(1)
'''
    program = subprocess.Popen([sys.executable, '-c', waiting, state], stdout=subprocess.PIPE, text=True,
                               env=program_env)
    atexit.register(program.kill)
    pid, started = program.stdout.readline().split()
    check(started == 'started', f'a program outside the sandbox called gml_probe.start() (process {pid})')
    wait_for(lambda: os.path.exists(state), 'the program’s allocations')
    sockets = os.listdir(os.path.join(shared, 'gpu-memory-lab'))
    check(f'probe-{pid}.sock' in sockets, f'it waits in the shared folder: {sockets}')
    app.key('alt+4')
    app.wait_label(lambda t: t.startswith('While this view is open, a program that calls gml_probe.start()'),
                   'saying the Live view listens', timeout=20)
    app.key('ctrl+shift+a')
    name = f'Attach to -c {state} (process {pid})'
    hits = wait_for(lambda: app.find('push button', equals=name), f'“{name}” in Attach…')
    check(True, f'Attach… in the sandbox lists the program outside: “{name}”')
    app.screenshot(os.path.join(shots, 'sandbox-attach-en.png'))
    hits[0][1].queryAction().doAction(0)
    wait_for(lambda: [n for n in app.image_names() if n.startswith('After ')], 'the attached program’s map')
    check(True, 'attached: the Live view draws the program’s memory')
    app.screenshot(os.path.join(shots, 'sandbox-live-en.png'))
    app.quit()

elif mode == 'audience':
    # --share=network: the sandboxed app's server is reachable from outside it.
    import socket
    import urllib.request

    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        port = probe.getsockname()[1]
    os.environ['GML_AUDIENCE_ADDRESS'] = '127.0.0.1'
    app = FlatpakApp('en', quiz_ready, args=['--audience-port', str(port)])
    app.key('F5')
    app.wait_label(lambda t: t == 'Audience', 'with the Audience button', timeout=20)
    app.key('F6')
    prefix = f'http://127.0.0.1:{port}/?room='
    url = app.wait_label(lambda t: t.startswith(prefix), 'with the address', timeout=20)
    check(True, f'audience mode in the sandbox listens: {url}')
    with urllib.request.urlopen(url, timeout=10) as r:
        page = r.read().decode()
    check(r.status == 200 and '/api/state' in page, 'a phone outside the sandbox gets the page')
    room = url[len(prefix):]
    with urllib.request.urlopen(f'http://127.0.0.1:{port}/api/state?room={room}&client=outside-phone',
                                timeout=10) as r:
        state = json.loads(r.read())
    check(state['open'] and state['question'], f'and the question asked: {state["question"]}')
    app.screenshot(os.path.join(shots, 'sandbox-audience-en.png'))
    app.key('Escape')
    time.sleep(1)
    app.quit()

else:
    sys.exit(f'unknown mode {mode}')

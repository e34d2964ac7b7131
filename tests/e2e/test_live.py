#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Live view end to end, in the real window, through the accessibility tree, with
the fake torch of tests/watch (exactly the calls the probe may use).

1. `gpu-memory-lab watch -- python3 fake_train.py …` opens the window on the Live view.
   Every memory map the window shows must say, in its accessible description, what the
   render verb says of the fake allocator's own segments at one of the states the
   program went through; the figures follow too. Space pauses (the picture holds, the
   figures go on), ← moves back one entry, End follows again. The out-of-memory error
   opens the explainer by itself with PyTorch's message, the program's output (its
   traceback) is in the output pane, and its exit status is said.
2. The lab started normally: a program that called gml_probe.start() waits; a program
   killed long ago left a socket. The Live view listens while it is shown: a "probe"
   that connects and sends garbage gets a refusal in the window. Attach… (Ctrl+Shift+A)
   lists the waiting program, says the dead one's socket was removed, and connects; the
   map says the program's numbers. Save Snapshot… (Ctrl+S) writes a pickle that
   `gpu-memory-lab snapshot --json` reads back with the program's numbers. The program
   is killed: the window says so and goes on working.

    test_live.py LANG SCREENSHOT_DIR"""

import atexit
import gettext
import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import tempfile
import time

from gmltest import (WHAT_IF_SETTINGS, APP, BUILD, App, app_env, c_format, c_pattern, check,
                     type_into_chooser, wait_for, what_if_expected_rows)

lang = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
os.makedirs(shots, exist_ok=True)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
FAKE = os.path.join(SOURCE, 'tests', 'watch', 'fake')
FAKE_TRAIN = os.path.join(SOURCE, 'tests', 'watch', 'fake_train.py')
PROBE_DIR = os.path.join(SOURCE, 'data', 'python')

catalogue = gettext.translation('gpu-memory-lab', localedir=os.path.join(BUILD, 'po', 'locale'),
                                languages=[lang], fallback=True)
_ = catalogue.gettext


work = tempfile.mkdtemp(prefix='gml-e2e-live-')
run_dir = os.path.join(work, 'run')
os.makedirs(run_dir, mode=0o700)
# The app and the programs it watches: the fake torch first on the path, a runtime
# directory of their own. The app finds the probe in the source tree by itself, as
# when a user starts it the README's way (no GML_PYTHON_DIR).
os.environ['PYTHONPATH'] = FAKE + os.pathsep + os.environ.get('PYTHONPATH', '')
os.environ.pop('GML_PYTHON_DIR', None)
os.environ['XDG_RUNTIME_DIR'] = run_dir


AFTER = c_pattern(_('After %zu of %zu trace entries: '))


CATEGORIES = ' ' + _('By category, inferred from the stacks:')


def numbers(description):
    """What a memory map's description says after "After N of M trace entries: ", up to
    the categories: those come from the stacks, which the probe's messages and the
    program's saved states need not both carry."""
    m = AFTER.match(description)
    text = description[m.end():] if m else description
    return text.split(CATEGORIES)[0]


_rendered = {}


def render_numbers(segments):
    """The render verb's words for a snapshot holding exactly these segments."""
    key = json.dumps(segments, sort_keys=True)
    if key not in _rendered:
        path = os.path.join(work, 'state-%d.pickle' % len(_rendered))
        with open(path, 'wb') as f:
            pickle.dump({'segments': segments, 'device_traces': [[]]}, f)
        out = subprocess.run([APP, 'render', path, '--view', 'memory-map', '--describe', '--lang', lang],
                             env=app_env(tempfile.mkdtemp(), lang), check=True, capture_output=True,
                             text=True).stdout.strip()
        _rendered[key] = numbers(out)
    return _rendered[key]


def read_states(path):
    for _ in range(20):
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):   # being rewritten
            time.sleep(0.1)
    return []


def map_descriptions(app):
    return [name for name in app.image_names() if AFTER.match(name)]


def press(app, name, role='push button'):
    hits = app.find(role, equals=name) + app.find('toggle button', equals=name)
    assert hits, f'no button “{name}”'
    hits[0][1].queryAction().doAction(0)
    time.sleep(0.5)


def label_starting(app, prefix):
    for t in app.label_texts():
        if t.startswith(prefix):
            return t
    return None


def save_snapshot(app, path):
    """Save Snapshot… with the keyboard: GTK's own chooser here (no portal), the path typed."""
    app.key('ctrl+s')
    type_into_chooser(_('Save Snapshot'), path, 'ctrl+a')


# ---------------------------------------------------------------------------------------
# 1. watch -- python3 fake_train.py: the window, following the program.

states_path = os.path.join(work, 'states.json')
home = tempfile.mkdtemp(prefix='gml-e2e-live-home-')
# 3.6 s a step, about 43 s in all: time to look, pause and scrub while it runs, on a busy machine.
command = ['watch', '--interval', '0.2', '--', sys.executable, FAKE_TRAIN, states_path, 'oom', '3.6']
app = App(home, lang, args=command, ready=lambda a: map_descriptions(a))
check(True, 'gpu-memory-lab watch -- … opens the window with a memory map of the program')

seen = set()
deadline = time.time() + 8
while time.time() < deadline:
    for d in map_descriptions(app):
        seen.add(numbers(d))
    time.sleep(0.3)
states = read_states(states_path)
possible = {render_numbers(s['segments']) for s in states}
strays = seen - possible
check(not strays, f'every map the window drew is a state of the program ({len(seen)} seen, '
                  f'{len(possible)} possible); not: {sorted(strays)[:2]}')
check(len(seen) >= 2, f'the map followed the program through {len(seen)} states')

allocations_prefix = c_format(_('%s: %s'), _('Allocations'), '')
figure = label_starting(app, allocations_prefix)
counts = {s['allocation.all.current'] for s in read_states(states_path)}
check(figure is not None and int(figure[len(allocations_prefix):]) in counts,
      f'the figures show a count of allocations the program had: “{figure}”')

# Pause: the picture holds while the program goes on; ← moves back; End follows again.
app.key('space')
paused = c_pattern(_('Paused at entry %zu of %zu. Space follows the program again.'))
app.wait_label(lambda t: paused.search(t), 'saying the view is paused')
held = map_descriptions(app)
entries_prefix = c_format(_('%s: %s'), _('Trace entries'), '')
entries_before = label_starting(app, entries_prefix)
time.sleep(4)
check(map_descriptions(app) == held, 'paused: the picture holds')
check(label_starting(app, entries_prefix) != entries_before,
      f'paused: the figures go on ({entries_before} → {label_starting(app, entries_prefix)})')
at = int(held[0].split(' ')[1]) if lang == 'en' else None
app.key('Left')
moved = map_descriptions(app)
check(moved and moved != held, f'← moves the picture back one entry: “{moved[:1]}”')
if at is not None:
    check(moved[0].startswith(f'After {at - 1} of '), f'← shows entry {at - 1}')
app.key('End')
following = c_pattern(_('Live: updated %s s into the run.'))
ended_any = c_pattern(_('The program ended with exit status %d.'))
app.wait_label(lambda t: following.match(t) or ended_any.match(t),
               'saying it follows the program again', timeout=10)
check(True, 'End follows the program again')

# The out-of-memory error: the explainer opens by itself.
oom_title = c_pattern(_('Out of memory at entry %zu of %zu'))
app.wait_label(lambda t: oom_title.fullmatch(t), 'of the out-of-memory explainer', timeout=60)
app.wait_label(lambda t: 'Tried to allocate 96.00 GiB' in t, 'with PyTorch’s message')
check(True, 'the out-of-memory explainer opened by itself, with PyTorch’s message')
ended = c_format(_('The program ended with exit status %d.'), 1)
app.wait_label(lambda t: t == ended or t.endswith(' ' + ended), f'saying “{ended}”', timeout=30)
check(True, f'the window says “{ended}”')
press(app, _('Program output'))
output = ''
deadline = time.time() + 10
while time.time() < deadline and 'OutOfMemoryError' not in output:
    output = ''.join(text for role, name, text, showing, node in app.nodes() if role == 'text')
    time.sleep(0.5)
check('OutOfMemoryError' in output, 'the program’s own output (its traceback) is in the output pane')
app.screenshot(os.path.join(shots, f'live-oom-{lang}.png'))
app.key('ctrl+q')
status = app.proc.wait(timeout=10)
check(status == 1, f'closed, `watch` ends with the program’s exit status (1): {status}')

# ---------------------------------------------------------------------------------------
# 2. The lab started by itself: garbage, Attach…, Save Snapshot…, a killed program.

WAITING = r'''
import json, os, sys, time
import torch, gml_probe
print(os.getpid(), 'started' if gml_probe.start() else 'not started', flush=True)
live = [torch.cuda._fake_alloc(size) for size in (5 << 20, 7 << 20, 1000)]
with open(sys.argv[1] + '.tmp', 'w') as f:
    json.dump({'stats': torch.cuda._fake_stats(), 'segments': torch.cuda.memory._snapshot()['segments']}, f)
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
while True:
    time.sleep(1)
'''

dead = socket.socket(socket.AF_UNIX)
lab_dir = os.path.join(run_dir, 'gpu-memory-lab')
os.makedirs(lab_dir, mode=0o700, exist_ok=True)
dead.bind(os.path.join(lab_dir, 'probe-999999.sock'))
dead.close()

home = tempfile.mkdtemp(prefix='gml-e2e-live-home-')
app = App(home, lang)
waiting_state = os.path.join(work, 'waiting.json')
program_env = app_env(tempfile.mkdtemp(), lang)
program_env['PYTHONPATH'] = PROBE_DIR + os.pathsep + program_env['PYTHONPATH']
program = subprocess.Popen([sys.executable, '-c', WAITING, waiting_state], stdout=subprocess.PIPE, text=True,
                           env=program_env)
# It sleeps until killed; on a failed check it must not outlive the test (it holds the
# test's stderr, and meson would wait for it).
atexit.register(program.kill)
pid, started = program.stdout.readline().split()
pid = int(pid)
check(started == 'started', 'a program calling gml_probe.start() with no lab listening goes on')

switched = False
for role, name, text, showing, node in app.nodes():
    if name == _('Live') and showing and not switched:
        try:
            node.queryAction().doAction(0)
            switched = True
        except NotImplementedError:
            pass
check(switched, f'the view switcher has “{_("Live")}”')
app.wait_label(lambda t: t == _('While this view is open, a program that calls gml_probe.start() connects here '
                                'by itself.'), 'saying the view listens')
check(True, 'the Live view, shown, listens for programs')

GARBAGE = [b'not json', b'{"v": 1, "type": "martian"}', b'\xff\xfe', b'[' * 5000 + b']' * 5000,
           b'{"v":1,"type":"hello","pid":1,"device_name":"Garbage GPU","argv":["garbage.py"]}']
sock = socket.socket(socket.AF_UNIX)
sock.connect(os.path.join(lab_dir, 'probe.sock'))
for line in GARBAGE:
    sock.sendall(line + b'\n')
time.sleep(1)
refused = c_format(_('Message %u from the program was refused: %s'), 4, '')
app.wait_label(lambda t: t.startswith(refused),
               'refusing the garbage', timeout=15)
check(True, 'garbage on the socket: the window says which message was refused and why')
sock.close()
goodbye = _('The connection closed without a goodbye: the program was killed or crashed. What arrived before '
            'stays here.')
app.wait_label(lambda t: goodbye in t, 'saying the connection closed', timeout=15)
check(True, 'the garbage sender went: the window says the connection closed without a goodbye')
app.wait_label(lambda t: t == _('The connection ended before the allocator’s first state came: there is '
                                'nothing to draw.'), 'saying there is nothing to draw', timeout=15)
check(True, 'no state came before the end: the map says there is nothing to draw, not that it waits')

# Attach…
deadline = time.time() + 20
while time.time() < deadline and not os.path.exists(waiting_state):
    time.sleep(0.2)
with open(waiting_state) as f:
    waiting = json.load(f)
app.key('ctrl+shift+a')
attach_name = c_format(_('Attach to %s (process %d)'), '-c ' + waiting_state, pid)
deadline = time.time() + 20
hits = []
while time.time() < deadline and not hits:
    hits = app.find('push button', equals=attach_name)
    time.sleep(0.3)
if not hits:
    app.screenshot(os.path.join(shots, f'live-attach-failed-{lang}.png'))
check(hits, f'Attach… lists the waiting program: “{attach_name}”; buttons: '
            f'{[n for r, n, t, s, _n in app.nodes() if r == "push button"]}')
stale_note = c_format(catalogue.ngettext('%u program that is no longer running had left its socket behind; '
                                         'it was removed.',
                                         '%u programs that are no longer running had left their sockets '
                                         'behind; they were removed.', 1), 1)
app.wait_label(lambda t: t == stale_note, f'saying “{stale_note}”')
check(not os.path.exists(os.path.join(lab_dir, 'probe-999999.sock')), 'the dead program’s socket was removed')
app.screenshot(os.path.join(shots, f'live-attach-{lang}.png'))
hits[0][1].queryAction().doAction(0)
expected = render_numbers(waiting['segments'])
deadline = time.time() + 20
got = []
while time.time() < deadline and expected not in [numbers(d) for d in got]:
    got = map_descriptions(app)
    time.sleep(0.3)
check(expected in [numbers(d) for d in got], f'attached: the map says “{expected}”')

# Save Snapshot…
saved = os.path.join(work, 'saved-live.pickle')
save_snapshot(app, saved)
deadline = time.time() + 20
while time.time() < deadline and not os.path.exists(saved):
    time.sleep(0.2)
check(os.path.exists(saved), 'Save Snapshot… wrote the file')
app.wait_label(lambda t: t == c_format(_('Snapshot saved as “%s”.'), 'saved-live.pickle'), 'saying it was saved')
read = subprocess.run([APP, 'snapshot', saved, '--json'], env=app_env(tempfile.mkdtemp(), lang),
                      capture_output=True, text=True)
check(read.returncode == 0, f'snapshot --json reads the saved file: {read.stderr}')
snap = json.loads(read.stdout)
stats = waiting['stats']
check(snap['allocated_bytes'] == stats['allocated_bytes.all.current'] and
      snap['reserved_bytes'] == stats['reserved_bytes.all.current'] and
      snap['allocations'] == stats['allocation.all.current'] and snap['segments'] == stats['segment.all.current'],
      f'the saved snapshot has the program’s numbers: {snap["allocated_bytes"]} allocated, '
      f'{snap["allocations"]} allocations')

# What if… (Ctrl+Shift+W): what has arrived, replayed when asked, each row what
# `snapshot --what-if` prints for the snapshot just saved of the same run.
SETTINGS = WHAT_IF_SETTINGS
what_if = json.loads(subprocess.run([APP, 'snapshot', saved, *[f'--what-if={c}' for c in SETTINGS], '--json',
                                     '--lang', lang], env=app_env(tempfile.mkdtemp(), lang),
                                    capture_output=True, text=True, check=True).stdout)
expected_rows = what_if_expected_rows(catalogue, what_if)
titles = list(expected_rows)


def what_if_rows():
    return {name: node.description for role, name, text, showing, node in app.nodes()
            if name in expected_rows and node.description}


app.key('ctrl+shift+w')
press(app, _('_Replay What Has Arrived').replace('_', ''))
try:
    wait_for(lambda: what_if_rows() == expected_rows, 'the what-if rows', timeout=30)
except AssertionError:
    print('expected:', expected_rows, '\nshown:', what_if_rows())
    raise
check(True, f'What If…: the {len(titles)} rows read, to the byte, what snapshot --what-if prints for the '
            f'saved snapshot')
# A row ticked (a real click): its reserved memory drawn on the live timeline.
boxes = app.find('check box', prefix=_('Draw Its Reserved Memory on the Timeline'))
check(len(boxes) == len(titles), f'each what-if row has its box ({len(boxes)})')
press(app, _('Timeline view'))
app.click(boxes[1][1])
parts = _('Replayed with %s: the most reserved %s.').split('%s')
app.wait_image(lambda d: parts[0] + SETTINGS[0] + parts[1] in d, 'with the ticked replay on the timeline',
               timeout=15)
check(True, f'ticking {SETTINGS[0]} draws its replay on the live timeline')
app.screenshot(os.path.join(shots, f'live-what-if-{lang}.png'))
app.click(boxes[1][1])
app.key('ctrl+shift+w')

# The program is killed.
os.kill(pid, signal.SIGKILL)
program.wait()
app.wait_label(lambda t: goodbye in t, 'saying the program is gone', timeout=20)
check(True, 'killed: the window says the program was killed or crashed')
press(app, _('Timeline view'))
app.wait_image(lambda n: AFTER.match(n), 'of the timeline')
check(True, 'and it goes on working: the timeline view of what arrived')
app.screenshot(os.path.join(shots, f'live-killed-{lang}.png'))
app.quit()
print('all live view checks passed')

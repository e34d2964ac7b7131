# SPDX-License-Identifier: GPL-3.0-or-later
"""The window starts with the quiz alone: the Snapshot, Experiment and Live views are
built the first time they are shown or needed, never before the first frame.

    test_startup.py SCREENSHOT_DIR

The window says each view it builds with g_debug ("gml-view-built NAME", domain
gml-window); this test reads those lines. All four views stay in the switcher from the
start, with their titles; a view built after a language switch comes in the new language;
a snapshot given on the command line builds the Snapshot view and no other. The main
menu is built when it first opens (F10), in the language chosen by then, with the
recent snapshots read then. On this Xvfb, which offers no direct rendering (its OpenGL
is llvmpipe), the app draws with Cairo without loading Mesa unless GSK_RENDERER or
GDK_DEBUG says otherwise, and About › Troubleshooting says so."""

import os
import subprocess
import sys
import tempfile
import time

from gmltest import APP, App, app_action, app_env, check, wait_for, x_window

HERE = os.path.dirname(os.path.abspath(__file__))
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp()
os.makedirs(shots, exist_ok=True)
# A snapshot of some size, made here (tests/snapshot/make_snapshots.py).
_cases = tempfile.mkdtemp(prefix='gml-e2e-startup-')
subprocess.run([sys.executable, os.path.join(HERE, '..', 'snapshot', 'make_snapshots.py'), 'cases', _cases],
               check=True)
SNAPSHOT = os.path.join(_cases, 'long.pickle')


XBEL = """<?xml version="1.0" encoding="UTF-8"?>
<xbel version="1.0" xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
      xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info">
  <bookmark href="{uri}" added="2026-01-01T10:00:00Z" modified="2026-01-01T10:00:00Z" visited="2026-01-01T10:00:00Z">
    <info>
      <metadata owner="http://freedesktop.org">
        <mime:mime-type type="application/x-python-pickle"/>
        <bookmark:applications>
          <bookmark:application name="gpu-memory-lab" exec="&apos;gpu-memory-lab %u&apos;"
                                modified="2026-01-01T10:00:00Z" count="1"/>
        </bookmark:applications>
      </metadata>
    </info>
  </bookmark>
</xbel>
"""


def built(path, what='gml-view-built'):
    """The views the window built, in order, from its debug log (or its popovers, with
    WHAT 'gml-popover-built')."""
    out = []
    for line in open(path).read().split('\n'):
        words = line.split()
        if what in words:
            out.append(words[words.index(what) + 1])
    return out


def start(args=(), ready=None, recent=None):
    """The app in a new home; RECENT: a snapshot the desktop's recent files list as the lab's."""
    home = tempfile.mkdtemp(prefix='gml-e2e-startup-')
    if recent is not None:
        os.makedirs(os.path.join(home, 'data'))
        with open(os.path.join(home, 'data', 'recently-used.xbel'), 'w', encoding='utf-8') as f:
            f.write(XBEL.format(uri='file://' + os.path.abspath(recent)))
    log = os.path.join(home, 'app.out')
    app = App(home, 'en', args=args, ready=ready, stdout=open(log, 'w'),
              env={'G_MESSAGES_DEBUG': 'gml-window'})
    return app, log


def menu_items(app):
    """The main menu's items on screen: none until it has been opened."""
    return [name for r, name, t, s, n in app.nodes() if r == 'menu item' and s]


def tab(app, title):
    tabs = [n for r, name, t, s, n in app.nodes() if r == 'page tab' and name == title and s]
    return tabs[0] if tabs else None


app, log = start(recent=SNAPSHOT)
try:
    for title in ('Quiz', 'Snapshot', 'Experiment', 'Live'):
        check(tab(app, title) is not None, f'the view switcher offers “{title}” from the start')
    # Time for anything queued to run after the first frame: nothing else is built.
    time.sleep(2)
    check(built(log) == [], f'only the quiz is built at start (built: {built(log)})')

    # The main menu is built the first time it opens, in the language of that moment.
    check(menu_items(app) == [], f'no main menu before it is opened (found: {menu_items(app)})')
    app.key('F10')
    wait_for(lambda: 'Preferences' in menu_items(app), 'F10 to open the main menu')
    check(all(item in menu_items(app) for item in ('Open Snapshot…', 'Keyboard Shortcuts', 'Language')),
          f'the main menu has its items (shown: {menu_items(app)})')
    # The recent snapshots are read when the menu is made, and are in it.
    check('Recent Snapshots' in menu_items(app) and 'long.pickle' in menu_items(app),
          f'the main menu offers the recent snapshot (shown: {menu_items(app)})')
    app.key('Escape')
    wait_for(lambda: 'Preferences' not in menu_items(app), 'Escape to close the main menu')

    # The filter's popover too: built when it first opens, then kept.
    check(built(log, 'gml-popover-built') == [], f'no filter popover before it is opened '
                                                 f'(built: {built(log, "gml-popover-built")})')
    app.key('ctrl+f')
    app.wait_label(lambda t: t == 'Topic', 'Ctrl+F to open the filter')
    app.wait_label(lambda t: t == 'All topics', 'the filter offering all topics')
    app.key('Escape')
    app.key('ctrl+f')
    app.wait_label(lambda t: t == 'Difficulty', 'the filter, opened again')
    app.key('Escape')
    check(built(log, 'gml-popover-built') == ['filter'],
          f'the filter popover is built once (built: {built(log, "gml-popover-built")})')

    tab(app, 'Experiment').queryAction().doAction(0)
    wait_for(lambda: 'lab' in built(log), 'the Experiment view to be built when shown')
    wait_for(lambda: app.find('label', equals='Hidden size'), 'the Experiment view’s controls')
    check(built(log) == ['lab'], f'showing the Experiment view builds it alone (built: {built(log)})')

    tab(app, 'Snapshot').queryAction().doAction(0)
    wait_for(lambda: app.find('push button', equals='Open snapshot…'), 'the Snapshot view')
    check(built(log) == ['lab', 'snapshot'], f'then the Snapshot view (built: {built(log)})')

    # Live is built after the switch to Turkish: its template's words come in Turkish.
    app_action('language', "<'tr'>")
    wait_for(lambda: tab(app, 'Canlı'), 'the switcher in Turkish')
    tab(app, 'Canlı').queryAction().doAction(0)
    wait_for(lambda: [t for r, name, t, s, n in app.nodes()
                      if s and 'Bir Eğitimi Canlı İzleyin' in (name, t)],
             'the Live view, built after the switch, in Turkish')
    check(built(log) == ['lab', 'snapshot', 'live'], f'then the Live view (built: {built(log)})')
    app.key('F10')
    wait_for(lambda: 'Tercihler' in menu_items(app), 'the main menu, opened again, in Turkish')
    check('Preferences' not in menu_items(app), f'no English left in the menu ({menu_items(app)})')
    app.key('Escape')
    app.screenshot(os.path.join(shots, 'startup-live-tr.png'))

    # The filter, built in English, follows the language too.
    tab(app, 'Quiz').queryAction().doAction(0)
    app.key('ctrl+f')
    app.wait_label(lambda t: t == 'Konu', 'the filter in Turkish')
    app.wait_label(lambda t: t == 'Tüm konular', 'its topic list in Turkish')
    check('Topic' not in app.label_texts(), 'no English left in the filter')
    app.key('Escape')

    # Back and forth: each view is built once.
    for title in ('Quiz', 'Deney', 'Snapshot', 'Canlı'):
        tab(app, title).queryAction().doAction(0)
        time.sleep(0.3)
    check(built(log) == ['lab', 'snapshot', 'live'], f'each view is built once (built: {built(log)})')
finally:
    app.quit()

# A snapshot on the command line: the Snapshot view, and no other.
app, log = start(args=[SNAPSHOT], ready=lambda a: a.find('push button', equals='Open snapshot…'))
try:
    wait_for(lambda: 'snapshot' in built(log), 'the Snapshot view for the file')
    time.sleep(1)
    check(built(log) == ['snapshot'], f'a file on the command line builds the Snapshot view alone '
                                      f'(built: {built(log)})')
finally:
    app.quit()

# The first frame: the question, and nothing of its picture. The picture script runs, and
# the picture is drawn, after that frame. GML_BENCH_FIRST_FRAME makes the app print
# "first-frame" once its first frame is painted, and quit; the panel says each
# picture script it runs with g_debug ("gml-picture-run KEY", domain
# gml-scenario-panel), on the same standard output.
for attempt in range(3):
    environment = app_env(tempfile.mkdtemp(prefix='gml-e2e-startup-'), 'en')
    environment.update(GML_BENCH_FIRST_FRAME='1', G_MESSAGES_DEBUG='gml-scenario-panel')
    lines = subprocess.run([APP], env=environment, capture_output=True, text=True,
                           timeout=120).stdout.split('\n')
    frame = [i for i, line in enumerate(lines) if line.startswith('first-frame ')]
    runs = [i for i, line in enumerate(lines) if 'gml-picture-run' in line.split()]
    check(frame != [], 'the app reports its first painted frame')
    check(runs == [] or runs[0] > frame[0],
          f'no experiment runs before the first frame (run {attempt + 1}: {lines})')

# The renderer: where OpenGL is a software rasterizer the app draws with Cairo. On an X
# server that offers no direct rendering (no DRI3, DRI2 or NVIDIA GLX), as this Xvfb,
# OpenGL could only be that, so GTK is told not to prepare it and Mesa is neither asked
# nor loaded; where the person set GDK_DEBUG that is left alone, OpenGL is prepared and
# asked, and is Mesa's llvmpipe here; GSK_RENDERER, when set, is the person's choice and
# OpenGL is not even asked. The app says what it chose with g_debug ("gml-renderer
# CHOICE, OpenGL: WHAT", domain gml-renderer); a running app's memory map shows whether
# Mesa's driver was loaded.
def renderer_line(extra):
    environment = app_env(tempfile.mkdtemp(prefix='gml-e2e-startup-'), 'en')
    environment.update(GML_BENCH_FIRST_FRAME='1', G_MESSAGES_DEBUG='gml-renderer', **extra)
    if 'GSK_RENDERER' not in extra:
        environment.pop('GSK_RENDERER', None)
    if 'GDK_DEBUG' not in extra:
        environment.pop('GDK_DEBUG', None)
    lines = subprocess.run([APP], env=environment, capture_output=True, text=True,
                           timeout=120).stdout.split('\n')
    said = [line.split('gml-renderer ', 1)[1] for line in lines if 'gml-renderer ' in line]
    check(len(said) == 1, f'the app says once which renderer it chose ({lines})')
    check(any(line.startswith('first-frame ') for line in lines), 'the app paints its first frame')
    return said[0]


def mesa_loaded(env=None):
    """Whether the running app has Mesa's software driver (or LLVM) mapped."""
    app = App(tempfile.mkdtemp(prefix='gml-e2e-startup-'), 'en', env=env)
    try:
        with open(f'/proc/{app.proc.pid}/maps', encoding='utf-8') as f:
            maps = f.read()
    finally:
        app.quit()
    return 'swrast_dri' in maps or 'libLLVM' in maps


said = renderer_line({})
check(said == 'cairo, OpenGL: not asked, the X server offers no direct rendering',
      f'no direct rendering on Xvfb: Cairo, OpenGL not asked ({said})')
check(not mesa_loaded({'GDK_DEBUG': None, 'GSK_RENDERER': None}),
      "no direct rendering: Mesa's driver is not loaded")
said = renderer_line({'GDK_DEBUG': 'nograbs'})
check('OpenGL: llvmpipe' in said,
      f'GDK_DEBUG set: OpenGL is asked, and is llvmpipe on Xvfb ({said})')
check(said.startswith('cairo,'), f'on llvmpipe the app draws with Cairo ({said})')
check(mesa_loaded({'GDK_DEBUG': 'nograbs', 'GSK_RENDERER': None}),
      "GDK_DEBUG set: OpenGL prepared, Mesa's driver loaded")
said = renderer_line({'GSK_RENDERER': 'gl'})
check(said == "GTK's choice, OpenGL: not asked",
      f'GSK_RENDERER set: left to GTK, OpenGL not asked ({said})')

# The style: GTK's own theme is not parsed at start-up, since libadwaita replaces it at
# once (gml-application.c, init_gtk_without_its_theme); the window is drawn with
# libadwaita's style sheet all the same (its light window background, #fafafa: GTK's own
# Adwaita has #f6f5f4, and no style sheet at all paints none), and GTK_THEME, where the
# person sets it, stays theirs (libadwaita then leaves GTK's theme alone: GTK's dark one).
def window_background(name, env=None):
    app = App(tempfile.mkdtemp(prefix='gml-e2e-startup-'), 'en', env=env)
    try:
        time.sleep(1)
        path = os.path.join(shots, f'style-{name}.png')
        app.screenshot(path)
        # The left edge of the question's column, halfway down: the window's background.
        _, height = app.window_size()
        return subprocess.run(['convert', path, '-format', f'%[pixel:p{{10,{height // 2}}}]', 'info:'],
                              capture_output=True, text=True, check=True).stdout.strip()
    finally:
        app.quit()


pixel = window_background('libadwaita')
check(pixel == 'srgb(250,250,250)', f"libadwaita's style sheet draws the window ({pixel})")
pixel = window_background('gtk-theme', {'GTK_THEME': 'Adwaita:dark'})
check(pixel != 'srgb(250,250,250)' and max(int(v) for v in pixel[5:-1].split(',')) < 80,
      f"GTK_THEME set by the person: GTK's dark theme draws the window ({pixel})")

# About › Troubleshooting › Debugging Information says what draws the window, and why.
app = App(tempfile.mkdtemp(prefix='gml-e2e-startup-'), 'en')
try:
    app_action('about')

    def item(name):
        return [n for r, nm, t, s, n in app.nodes() if r == 'list item' and nm == name and s]

    def click(node, window):
        # GTK 4.8 gives list rows no accessible action: a click where the row is.
        x, y, w, h = app.extents(node)
        subprocess.run(['xdotool', 'mousemove', '--window', window, str(x + w // 2), str(y + h // 2),
                        'click', '1'], check=True)

    about = x_window('About')
    wait_for(lambda: item('Troubleshooting'), 'the About window')
    click(item('Troubleshooting')[0], about)
    wait_for(lambda: item('Debugging Information'), 'its Troubleshooting page')
    time.sleep(0.5)
    click(item('Debugging Information')[0], about)
    info = wait_for(lambda: [t for r, nm, t, s, n in app.nodes() if t.startswith('GPU Memory Lab ')],
                    'the debugging information')[0]
    check('Renderer: GskCairoRenderer (Cairo was chosen because this X server offers no direct '
          'rendering' in info, f'the debugging information names the renderer and why ({info!r})')
    # Escape goes back a page at a time, then closes the window.
    def about_shown():
        return subprocess.run(['xdotool', 'search', '--onlyvisible', '--name', '^About$'],
                              capture_output=True).stdout.strip() != b''

    for _ in range(4):
        if not about_shown():
            break
        subprocess.run(['xdotool', 'windowfocus', '--sync', about, 'key', 'Escape'], check=False)
        time.sleep(0.5)
    wait_for(lambda: not about_shown(), 'Escape to close the About window')
finally:
    app.quit()

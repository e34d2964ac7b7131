#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lecture hall end to end, through the accessibility tree.

    test_lecture.py x11 SCREENSHOT_DIR
        One monitor (Xvfb, no window manager): F5 opens the presentation with the
        options and without the answer; Space reveals it; the language switches to
        Turkish with no restart (presentation, quiz and template strings); bilingual
        mode shows both languages; Esc leaves.

    test_lecture.py weston SCREENSHOT_DIR
        Two 1920x1080 monitors (weston's X11 backend inside its own Xvfb): the
        Present button puts the audience window fullscreen on one monitor and the
        presenter window on the other; the presenter's Reveal button reveals the
        answer on the audience's screen; type is at least 4 % of the height.

In both, the revealed answer comes with the question's picture: none before the
reveal, then one whose accessible description is what the render verb says for the
scenario's focus step and view (the same engine, run headless)."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pyatspi

import audiencetest
from gmltest import APP, App, app_env, bank, check, frame

APP_ID = 'io.github.gpumemorylab.GpuMemoryLab'
AUDIENCE = 'GPU Memory Lab — Presentation'
STEP_BACK_TR = 'Bir adım geri'
PRESENTER = 'GPU Memory Lab — Presenter'

mode = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
os.makedirs(shots, exist_ok=True)

EN = bank('en')
TR = bank('tr')

# The render verb simulates; the app must too, for the numbers to be comparable.
os.environ['GML_LIBCUDA'] = '/nonexistent/libcuda.so.1'

def cli(lang, *args):
    return subprocess.run([APP, *args, '--lang', lang], env=app_env(tempfile.mkdtemp(), lang),
                          check=True, capture_output=True, text=True).stdout


def expected_picture(q, lang):
    """What the revealed picture of q must say, and the caption under it: the question's
    own experiment at the step it is about, in the view that shows it best, pointed at."""
    info = json.loads(cli(lang, 'render', '--question', q['id'], '--json'))
    return info['description'], info['steps'][info['focus_step']]['caption']


def pictures(node):
    """The accessible descriptions of the pictures under node."""
    return [t for r, t, _ in texts_under(node) if r == 'image' and t]


def texts_under(node, depth=0):
    """(role, text, node) of everything below node; text is the name or the Text."""
    out = []
    if node is None or depth > 60:
        return out
    try:
        role = node.getRoleName()
        text = node.name or ''
        if not text:
            try:
                t = node.queryText()
                text = t.getText(0, t.characterCount)
            except NotImplementedError:
                pass
        out.append((role, text, node))
        for i in range(node.childCount):
            out.extend(texts_under(node.getChildAtIndex(i), depth + 1))
    except Exception:
        pass
    return out


def wait_for(predicate, what, timeout=20):
    """Polls until predicate() returns something true; bounded, never a fixed sleep."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = predicate()
        except Exception as e:   # the tree changes under our feet
            last = e
        if last and not isinstance(last, Exception):
            return last
        time.sleep(0.2)
    raise AssertionError(f'timed out waiting for {what} (last: {last!r})')


def labels(node):
    return [t for r, t, _ in texts_under(node) if r == 'label' and t]


def question_shown(node, questions):
    """The bank entry whose question text the window shows, or None."""
    shown = set(labels(node))
    for q in questions:
        if q['text'] in shown:
            return q
    return None


def right_letter(node, q):
    """The letter the window gives the right option of q, found by its text."""
    right = next(o['text'] for o in q['options'] if o['correct'])
    items = texts_under(node)
    for i, (r, t, _) in enumerate(items):
        if r == 'label' and t == right:
            # The letter label precedes the option's text in the same row.
            for r2, t2, _ in reversed(items[:i]):
                if r2 == 'label' and re.fullmatch('[a-dA-D]', t2):
                    return t2.lower()
    return None


def gdbus_action(name, *param):
    """Activates an application action over D-Bus, as the main menu's items do."""
    args = ['gdbus', 'call', '--session', '--dest', APP_ID, '--object-path',
            '/' + APP_ID.replace('.', '/'), '--method', 'org.gtk.Actions.Activate', name,
            '[' + ', '.join(param) + ']', '{}']
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, timeout=10)


def press(node, what):
    hits = [n for r, t, n in texts_under(node) if r == 'push button' and (t == what or t.endswith(' ' + what))]
    check(hits, f'the button “{what}” is there')
    hits[0].queryAction().doAction(0)


def x_key(window_name, keysym):
    """Sends a key to the X window with that title (plain Xvfb has no window manager
    to move the focus, so xdotool gives it to the window first)."""
    ids = subprocess.run(['xdotool', 'search', '--sync', '--name', '^' + window_name + '$'], timeout=20,
                         capture_output=True, text=True).stdout.split()
    errors = []
    for wid in ids:
        r = subprocess.run(['xdotool', 'windowfocus', wid, 'key', keysym], timeout=20,
                           capture_output=True, text=True)
        if r.returncode == 0:
            return
        errors.append(r.stderr.strip())
    check(False, f'xdotool sent {keysym} to “{window_name}” (windows {ids}: {errors})')


def showing_under(node, depth=0):
    """(role, text, node) of everything visible below node."""
    out = []
    if node is None or depth > 60:
        return out
    try:
        role = node.getRoleName()
        states = node.getState()
        text = node.name or ''
    except Exception:
        return out
    # A hidden widget's subtree is hidden. (GTK 4.8 says "showing" of windows only.)
    if not states.contains(pyatspi.STATE_VISIBLE):
        return out
    if not text and role == 'label':
        try:
            t = node.queryText()
            text = t.getText(0, t.characterCount)
        except Exception:
            pass
    out.append((role, text, node))
    try:
        n = node.childCount
    except Exception:
        n = 0
    for i in range(n):
        try:
            child = node.getChildAtIndex(i)
        except Exception:
            continue
        out.extend(showing_under(child, depth + 1))
    return out


def window_geometry(wid):
    geo = subprocess.run(['xdotool', 'getwindowgeometry', '--shell', wid], capture_output=True,
                         text=True).stdout
    fields = dict(l.split('=', 1) for l in geo.split() if '=' in l)
    return int(fields['WIDTH']), int(fields['HEIGHT'])


def overflow(audience, wid):
    """What of the revealed slide lies outside the window, '' when it all fits; and the
    picture's height."""
    width, height = window_geometry(wid)
    out = []
    picture_h = 0
    for role, text, node in showing_under(audience):
        if role not in ('label', 'image') or not text:
            continue
        e = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        if role == 'image':
            picture_h = e.height
        if e.y < 0 or e.y + e.height > height + 1 or e.x + e.width > width + 1:
            out.append(f'{role} “{text[:40]}” at {e.x},{e.y} {e.width}x{e.height}')
    return '; '.join(out), picture_h, (width, height)


def check_fits(audience, wid, what):
    def fits():
        bad, picture_h, size = overflow(audience, wid)
        return (bad == '' and picture_h > 0, bad, picture_h, size)
    # The type shrinks over a few frames after the reveal: poll, bounded.
    deadline = time.time() + 15
    ok, bad, picture_h, size = fits()
    while not ok and time.time() < deadline:
        time.sleep(0.3)
        ok, bad, picture_h, size = fits()
    check(ok, f'{what}: the revealed slide fits the {size[0]}x{size[1]} window '
              f'(outside: {bad or "nothing"}; picture {picture_h} px high)')
    check(picture_h >= 190, f'{what}: the picture keeps at least its desk size ({picture_h} px high)')


def question_height(audience, q):
    for role, text, node in showing_under(audience):
        if role == 'label' and text == q['text']:
            return node.queryComponent().getExtents(pyatspi.WINDOW_COORDS).height
    return 0


def lecture_hall(app, audience, wid):
    """Fit at 1280x720 and 1024x768, zoom, the end screen."""
    n = 0
    seen = set()
    while True:
        q = wait_for(lambda: question_shown(audience, EN), 'a question')
        if not any(t.startswith('The right answer is') for t in labels(audience)):
            x_key(AUDIENCE, 'space')
            wait_for(lambda: any(t.startswith('The right answer is') for t in labels(audience)),
                     'the revealed answer')
        seen.add(q['id'])
        check_fits(audience, wid, f'question “{q["id"]}” at 1280x720')
        subprocess.run(['import', '-window', wid, os.path.join(shots, f'lecture-fit-1280x720-{n}.png')],
                       check=False)
        n += 1
        if n == 3:
            break
        x_key(AUDIENCE, 'Right')
        wait_for(lambda: question_shown(audience, EN) != q, 'the next question')

    subprocess.run(['xdotool', 'windowsize', '--sync', wid, '1024', '768'], check=False)
    wait_for(lambda: window_geometry(wid) == (1024, 768), 'the window at 1024x768')
    for k in range(2):
        q = wait_for(lambda: question_shown(audience, EN), 'a question')
        if not any(t.startswith('The right answer is') for t in labels(audience)):
            x_key(AUDIENCE, 'space')
            wait_for(lambda: any(t.startswith('The right answer is') for t in labels(audience)),
                     'the revealed answer')
        seen.add(q['id'])
        check_fits(audience, wid, f'question “{q["id"]}” at 1024x768')
        subprocess.run(['import', '-window', wid, os.path.join(shots, f'lecture-fit-1024x768-{k}.png')],
                       check=False)
        x_key(AUDIENCE, 'Right')
        wait_for(lambda: question_shown(audience, EN) not in (None, q), 'the next question')
    revealed = len(seen)

    # Zoom: Ctrl+plus makes the type larger, Ctrl+0 brings it back, Ctrl+minus smaller.
    q = wait_for(lambda: question_shown(audience, EN), 'a question')
    base = wait_for(lambda: question_height(audience, q), 'the question’s height')
    x_key(AUDIENCE, 'ctrl+plus')
    x_key(AUDIENCE, 'ctrl+plus')
    bigger = wait_for(lambda: (question_height(audience, q) > base) and question_height(audience, q),
                      'the question to grow after Ctrl+plus')
    check(True, f'Ctrl+plus zooms in: the question is {bigger} px high, was {base} px')
    x_key(AUDIENCE, 'ctrl+0')
    wait_for(lambda: question_height(audience, q) == base, 'the question’s height back after Ctrl+0')
    check(True, 'Ctrl+0 brings the size that fits the window back')
    x_key(AUDIENCE, 'ctrl+minus')
    smaller = wait_for(lambda: (0 < question_height(audience, q) < base) and question_height(audience, q),
                       'the question to shrink after Ctrl+minus')
    check(True, f'Ctrl+minus zooms out: {smaller} px high')
    x_key(AUDIENCE, 'ctrl+0')

    # The end: End goes to the last question; after it comes the round's result.
    x_key(AUDIENCE, 'End')
    last = wait_for(lambda: question_shown(audience, EN) != q and question_shown(audience, EN),
                    'the last question after End')
    x_key(AUDIENCE, 'space')
    verdict = wait_for(lambda: next((t for t in labels(audience) if t.startswith('The right answer is')), None),
                       'its answer')
    last_letter = verdict[-2]
    revealed += 1
    x_key(AUDIENCE, 'space')
    wait_for(lambda: 'End of the round' in [t for r, t, _ in showing_under(audience)], 'the end screen')
    shown = [t for r, t, _ in showing_under(audience) if r == 'label']
    summary = next((t for t in shown if ' in ' in t and 'Answers shown:' in t), '')
    total = re.search(r'^(\d+) questions? in \d+ min \d\d s\. Answers shown: (\d+) of (\d+)\.$', summary)
    check(total is not None, f'the end screen sums the round up: “{summary}”')
    check(total.group(1) == total.group(3) and int(total.group(2)) == revealed,
          f'{revealed} answers were shown, of {total.group(1)} questions')
    items = [t for t in shown if re.match(r'^\d+\. ', t)]
    check(len(items) == revealed, f'one line per question whose answer was shown ({len(items)})')
    check(re.fullmatch(rf'{total.group(1)}\. {re.escape(last["topic"])} — [a-d]', items[-1]),
          f'the last line is the last question’s number, topic and right letter: “{items[-1]}”')
    check(items[-1].endswith(' ' + last_letter), f'its right answer is {last_letter}, as revealed')
    check(not any(question_shown(audience, EN) == x for x in [last]), 'no question is shown any more')
    subprocess.run(['import', '-window', wid, os.path.join(shots, 'lecture-end-en.png')], check=False)
    x_key(AUDIENCE, 'Left')
    wait_for(lambda: question_shown(audience, EN) == last, 'the last question again after ←')
    check(True, '← goes back from the end screen to the last question')

    subprocess.run(['xdotool', 'windowsize', '--sync', wid, '1280', '720'], check=False)
    x_key(AUDIENCE, 'Home')
    wait_for(lambda: question_shown(audience, EN) is not None and
             question_shown(audience, EN)['id'] == first_id, 'the first question after Home')


def run_x11():
    home = tempfile.mkdtemp(prefix='gml-lecture-')
    app = App(home, 'en')
    try:
        app.key('F5')
        audience = wait_for(lambda: frame(app, AUDIENCE), 'the presentation window')
        q = wait_for(lambda: question_shown(audience, EN), 'the question in the presentation')
        check(True, f'F5 opened the presentation with question “{q["id"]}”')
        shown = labels(audience)
        check(all(o['text'] in shown for o in q['options']), 'all four options are shown')
        check(not any(t.startswith('The right answer is') for t in shown),
              'the answer is not revealed yet')
        check(not any(o['feedback'] in shown for o in q['options']), 'no feedback is shown yet')
        check(not pictures(audience), f'no picture gives the answer away yet ({pictures(audience)})')
        wid = subprocess.run(['xdotool', 'search', '--name', '^' + AUDIENCE + '$'], capture_output=True,
                             text=True).stdout.split()
        check(wid, 'the presentation window exists on the X display')
        state = subprocess.run(['xprop', '-id', wid[0], '_NET_WM_STATE'], capture_output=True,
                               text=True).stdout
        check('_NET_WM_STATE_FULLSCREEN' in state, f'it asks to be fullscreen ({state.strip()})')

        global first_id
        first_id = q['id']
        x_key(AUDIENCE, 'space')
        letter = right_letter(audience, q)
        verdict = wait_for(lambda: next((t for t in labels(audience) if t.startswith('The right answer is')), None),
                           'the revealed answer')
        check(verdict == f'The right answer is {letter}.', f'Space revealed it: “{verdict}”')
        right = next(o for o in q['options'] if o['correct'])
        check(right['feedback'] in labels(audience), 'the right option’s feedback is shown')
        picture, caption = expected_picture(q, 'en')
        wait_for(lambda: picture in pictures(audience), f'the picture saying “{picture}”')
        check(pictures(audience) == [picture], f'Space showed the question’s picture: “{picture}”')
        check(caption in labels(audience), f'with its caption “{caption}”')
        subprocess.run(['import', '-window', wid[0], os.path.join(shots, 'lecture-revealed-en.png')], check=False)

        lecture_hall(app, audience, wid[0])

        # The language changes with no restart, as the main menu's Language items do.
        gdbus_action('language', "<'tr'>")
        q_tr = next(t for t in TR if t['id'] == q['id'])
        wait_for(lambda: q_tr['text'] in labels(audience), 'the question in Turkish')
        check(True, 'the presentation now shows the question in Turkish')
        right_tr = next(o for o in q_tr['options'] if o['correct'])
        wait_for(lambda: right_tr['feedback'] in labels(audience), 'the feedback in Turkish')
        check(True, 'the revealed feedback is in Turkish too')
        picture_tr, caption_tr = expected_picture(q, 'tr')
        check(picture_tr != picture and caption_tr != caption, 'the picture says other words in Turkish')
        wait_for(lambda: pictures(audience) == [picture_tr], f'the picture saying “{picture_tr}”')
        wait_for(lambda: caption_tr in labels(audience), f'the caption “{caption_tr}”')
        check(True, 'the picture and its caption follow the language switch')
        main = frame(app, 'GPU Bellek Laboratuvarı')
        check(main is not None, 'the main window’s title is in Turkish')
        main_labels = labels(main)
        check(q_tr['text'] in main_labels, 'the quiz shows the question in Turkish')
        buttons = [t for r, t, _ in texts_under(main) if r == 'push button']
        check(any('Önceki' in b for b in buttons) and not any('Previous' in b for b in buttons),
              f'a template’s button is in Turkish (buttons: {buttons})')
        check(STEP_BACK_TR in buttons and 'Step back' not in buttons,
              'the picture panel’s controls are in Turkish too')

        gdbus_action('bilingual')
        wait_for(lambda: q['text'] in labels(audience), 'the English question under the Turkish one')
        shown = labels(audience)
        check(q_tr['text'] in shown and q['text'] in shown, 'bilingual mode shows both languages')
        check(all(o['text'] in shown for o in q['options'] if o['text'] not in
                  [p['text'] for p in q_tr['options']]), 'each option is shown in English too')
        # The revealed answer's reasons too: the explanation in English under the Turkish.
        start_en = q['explanation'].split('(')[0][:60]
        wait_for(lambda: any(t.startswith(start_en) for t in labels(audience)),
                 f'the English explanation (“{start_en}…”) under the Turkish one')
        check(any(t.startswith(q_tr['explanation'].split('(')[0][:60]) for t in labels(audience)),
              'the Turkish explanation is still there')
        main_q = next(t for t in TR if t['text'] in labels(main))
        main_q_en = next(t for t in EN if t['id'] == main_q['id'])
        wait_for(lambda: main_q_en['text'] in labels(main), 'the English question in the main window too')
        check(all(o['text'] in labels(main) for o in main_q_en['options']),
              'bilingual mode shows the main window’s question and options in both languages')
        subprocess.run(['import', '-window', wid[0], os.path.join(shots, 'lecture-bilingual.png')], check=False)

        # The language switch retitled the window, so it is found by its X id now.
        audience_tr = 'GPU Bellek Laboratuvarı — Sunum'
        check(frame(app, audience_tr) is not None, 'the presentation window’s title is in Turkish')
        subprocess.run(['xdotool', 'windowfocus', wid[0], 'key', 'Escape'], timeout=20, check=True)
        wait_for(lambda: frame(app, audience_tr) is None, 'the presentation to close')
        check(True, 'Esc left the presentation')
    finally:
        app.quit()


def logged(path):
    """What the presentation window logged with g_debug() (G_MESSAGES_DEBUG names its
    domain): the words of each message from its tag (gml-monitor, gml-scale, …) on."""
    tags = ('gml-monitor', 'gml-fullscreen', 'gml-scale', 'gml-fit')
    out = []
    for line in open(path).read().split('\n'):
        words = line.split()
        at = next((i for i, w in enumerate(words) if w in tags), None)
        if at is not None:
            out.append(words[at:])
    return out


def run_countdown():
    """A countdown set in the preferences (question-timer, read here from a keyfile):
    the presentation counts down, says when time is up, and hides it once revealed."""
    home = tempfile.mkdtemp(prefix='gml-lecture-timer-')
    settings = os.path.join(home, 'config', 'glib-2.0', 'settings')
    os.makedirs(settings)
    with open(os.path.join(settings, 'keyfile'), 'w') as f:
        f.write('[io/github/gpumemorylab/GpuMemoryLab]\nquestion-timer=3\n')
    app = App(home, 'en', env={'GSETTINGS_BACKEND': 'keyfile'})
    try:
        app.key('F5')
        audience = wait_for(lambda: frame(app, AUDIENCE), 'the presentation window')
        wait_for(lambda: question_shown(audience, EN), 'the question in the presentation')
        shown = wait_for(lambda: [t for t in labels(audience) if re.fullmatch(r'0:0[1-3]', t)],
                         'a countdown of at most three seconds', timeout=10)
        check(True, f'the presentation counts down from the preferences’ three seconds ({shown[0]})')
        wait_for(lambda: 'Time is up!' in labels(audience), '“Time is up!”', timeout=15)
        check(True, 'the countdown ends with “Time is up!”')
        x_key(AUDIENCE, 'space')
        wait_for(lambda: any(t.startswith('The right answer is') for t in labels(audience)), 'the answer revealed')
        check('Time is up!' not in labels(audience) and
              not any(re.fullmatch(r'\d+:\d\d', t) for t in labels(audience)),
              'once the answer is revealed the countdown is gone')
        # Ctrl+W leaves the presentation as Esc does, and only the presentation: the
        # main window comes back and the application goes on.
        x_key(AUDIENCE, 'ctrl+w')
        wait_for(lambda: frame(app, AUDIENCE) is None, 'the presentation to close on Ctrl+W')
        time.sleep(1)
        check(app.proc.poll() is None, 'Ctrl+W in the presentation did not quit the application')
        check(frame(app, 'GPU Memory Lab') is not None, 'the main window is back after Ctrl+W')
    finally:
        app.quit()


def run_weston():
    tmp = tempfile.mkdtemp(prefix='gml-weston-')
    runtime = os.path.join(tmp, 'runtime')
    os.makedirs(runtime, mode=0o700)
    r, w = os.pipe()
    xvfb = subprocess.Popen(['Xvfb', '-displayfd', str(w), '-screen', '0', '3900x1200x24', '-nolisten', 'tcp'],
                            pass_fds=(w,), stderr=subprocess.DEVNULL)
    os.close(w)
    display = ''
    deadline = time.time() + 20
    while time.time() < deadline and not display.endswith('\n'):
        chunk = os.read(r, 16).decode()
        if not chunk:
            break
        display += chunk
    os.close(r)
    check(display.strip().isdigit(), 'a second Xvfb for weston came up')
    env = dict(os.environ, DISPLAY=':' + display.strip(), XDG_RUNTIME_DIR=runtime)
    weston = subprocess.Popen(['weston', '--backend=x11-backend.so', '--output-count=2', '--width=1920',
                               '--height=1080', '--socket=wl-gml', '--idle-time=0'],
                              env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, 'weston.log'), 'w'))
    proc = None
    try:
        wait_for(lambda: os.path.exists(os.path.join(runtime, 'wl-gml')), 'weston’s socket')
        home = os.path.join(tmp, 'home')
        aenv = app_env(home, 'en')
        aenv.update(XDG_RUNTIME_DIR=runtime, WAYLAND_DISPLAY='wl-gml', GDK_BACKEND='wayland',
                    G_MESSAGES_DEBUG='gml-presentation-window', DISPLAY=env['DISPLAY'])
        if os.environ.get('GML_STYLE_DARK'):
            aenv['ADW_DEBUG_COLOR_SCHEME'] = 'prefer-dark'
        out_path = os.path.join(tmp, 'app.out')
        aenv['GML_AUDIENCE_ADDRESS'] = '127.0.0.1'
        port = audiencetest.free_port()
        proc = subprocess.Popen([os.environ['GML_APP'], '--audience-port', str(port)], env=aenv,
                                stdout=open(out_path, 'w'))

        def app_root():
            desktop = pyatspi.Registry.getDesktop(0)
            for i in range(desktop.childCount):
                node = desktop.getChildAtIndex(i)
                if node is not None and node.name == 'gpu-memory-lab' and node.childCount > 0:
                    return node
            return None

        root = wait_for(app_root, 'the application in the accessibility tree', timeout=40)

        class Holder:
            pass
        app = Holder()
        app.root = root
        main = wait_for(lambda: frame(app, 'GPU Memory Lab'), 'the main window')
        wait_for(lambda: question_shown(main, EN), 'the first question')
        press(main, 'Present')

        def placed():
            mon = {}
            full = {}
            for parts in logged(out_path):
                if len(parts) == 6 and parts[0] == 'gml-monitor':
                    mon[parts[1]] = tuple(int(p) for p in parts[2:])
                if len(parts) == 5 and parts[0] == 'gml-fullscreen' and parts[2] == '1':
                    full[parts[1]] = (int(parts[3]), int(parts[4]))
            if {'audience', 'presenter'} <= mon.keys() and {'audience', 'presenter'} <= full.keys():
                return mon, full
            return None

        mon, full = wait_for(placed, 'both presentation windows to be placed fullscreen', timeout=30)
        check(mon['audience'] != mon['presenter'],
              f'audience on monitor {mon["audience"]}, presenter on monitor {mon["presenter"]}')
        check(mon['audience'][2:] == (1920, 1080) and mon['presenter'][2:] == (1920, 1080),
              'both monitors are 1920x1080')
        check(True, 'the compositor made both windows fullscreen')

        audience = wait_for(lambda: frame(app, AUDIENCE), 'the audience window')
        presenter = wait_for(lambda: frame(app, PRESENTER), 'the presenter window')
        q = wait_for(lambda: question_shown(audience, EN), 'the question on the projector')
        check(not any(t.startswith('The right answer is') for t in labels(audience)),
              'the audience does not see the answer yet')
        check(not pictures(audience), 'nor its picture')
        right = next(o for o in q['options'] if o['correct'])
        check(any(t.endswith(right['text'] + ' — right') for t in labels(presenter)),
              'the presenter sees which option is right')
        check(all(o['feedback'] in labels(presenter) for o in q['options']),
              'the presenter sees every option’s feedback')
        check(any(re.fullmatch(r'\d\d:\d\d:\d\d', t) for t in labels(presenter)), 'the presenter sees a clock')
        check(any(t.startswith('Elapsed ') for t in labels(presenter)), 'and the elapsed time')
        # Type size: the font sizes the audience window set for its height.
        scale = wait_for(lambda: [p for p in logged(out_path) if p[:2] == ['gml-scale', 'audience']],
                         'the type scale')
        height, question_px, label_px = int(scale[-1][2]), int(scale[-1][3]), int(scale[-1][4])
        check(height == 1080, f'the audience window fills the 1080 px high monitor ({height} px)')
        check(label_px >= 18, f'the picture’s labels are {label_px} px high on it (≥ 18 px)')
        check(question_px >= 0.04 * height,
              f'the question is set in {question_px} px on a {height} px high screen (≥ 4 %)')

        # Audience mode, from the projector's button: the presenter sees the room's
        # split live, before the reveal; the projector does not.
        # GTK 4.8 gives a toggle button the push button's role.
        toggles = [n for r, t, n in texts_under(audience) if r in ('toggle button', 'push button') and t == 'Audience']
        check(toggles, 'the projector has the Audience button')
        toggles[0].queryAction().doAction(0)
        prefix = f'http://127.0.0.1:{port}/?room='
        url = wait_for(lambda: next((t for t in labels(audience) if t.startswith(prefix)), None),
                       'the projected address')
        room = url[len(prefix):]
        base = f'http://127.0.0.1:{port}'
        for client, option in (('phone-one-x', 'a'), ('phone-two-x', 'b'), ('phone-three-x', 'b')):
            status, state = audiencetest.request(base, f'/api/state?room={room}&client={client}')
            status, body = audiencetest.request(base, '/api/answer', {'room': room, 'client': client,
                                                                      'question': state['question'],
                                                                      'option': option})
            check(status == 200, f'a phone answers {option}')
        live = ('The room: 3 phones, 3 answers — A: 1 answer, B: 2 answers, C: 0 answers, '
                'D: 0 answers')
        wait_for(lambda: live in labels(presenter), f'the presenter saying “{live}”')
        check(True, f'before the reveal the presenter sees the room’s split: “{live}”')
        check(not any(t.startswith('A: 1 answer') for t in labels(audience)),
              'the projector does not show the split before the reveal')
        subprocess.run(['import', '-window', 'root', '-crop', '3840x1080+0+0',
                        os.path.join(shots, 'lecture-two-monitors%s.png' % ('-dark' if os.environ.get('GML_STYLE_DARK') else ''))],
                       env=env, check=False)
        press(presenter, 'Reveal')
        wait_for(lambda: any(t.startswith('The right answer is') for t in labels(audience)),
                 'the answer on the projector after Reveal')
        check(True, 'the presenter’s Reveal shows the answer to the audience')
        picture, caption = expected_picture(q, 'en')
        # Audience mode adds two pictures of its own: the address's QR code and the bars.
        wait_for(lambda: sorted(pictures(audience)) == sorted([picture, 'QR code of the address',
                                                                'How the room answered']),
                 f'the picture saying “{picture}” on the projector, and the room’s bars')
        check(True, 'and its picture, and the room’s answers as bars')
        subprocess.run(['import', '-window', 'root', '-crop', '3840x1080+0+0',
                        os.path.join(shots, 'lecture-two-monitors-revealed%s.png' % ('-dark' if os.environ.get('GML_STYLE_DARK') else ''))],
                       env=env, check=False)
        press(presenter, 'Leave Presentation')
        wait_for(lambda: frame(app, AUDIENCE) is None and frame(app, PRESENTER) is None,
                 'both presentation windows to close')
        check(True, 'leaving closes both windows')
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        weston.terminate()
        try:
            weston.wait(timeout=10)
        except subprocess.TimeoutExpired:
            weston.kill()
        xvfb.terminate()
        shutil.rmtree(runtime, ignore_errors=True)


if mode == 'x11':
    run_x11()
    run_countdown()
elif mode == 'weston':
    run_weston()
else:
    sys.exit(f'unknown mode {mode}')
print('all lecture checks passed')

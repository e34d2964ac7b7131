#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Snapshot view end to end, in the real window, through the accessibility tree.

A real PyTorch snapshot given on the command line opens in the Snapshot view; the
picture's accessible description must say what the render verb says for the same
file, view and trace entry N, and follow the keys (←/→ one entry, Page Up/Down 1 %,
Home/End) and the view buttons. Open Snapshot… (Ctrl+O, GTK's own chooser under
Xvfb) opens a snapshot with an out-of-memory error, whose explainer must show
PyTorch's message, the verdicts, a link to the quiz's questions on the topic (with
their number, counted from the bank) and a Show button that moves the pictures to
the error. A damaged file and a pickle of Python objects, handed to the running app
by a second `gpu-memory-lab FILE` (D-Bus activation of the first), must show the
reader's own message in the window.

A snapshot whose out-of-memory error happened on cuda:1 (Constructor-Sun's, a real
one) must open on cuda:1, name each GPU with its entries and errors, and explain
the error; its run replayed under other allocator settings must show, row by row,
what `snapshot --what-if` prints, to the byte, put the replays' verdicts in the
error's card and draw a ticked row on the timeline; the details of its largest block must name the user's line and its
category as `snapshot --json` does; compared with a second file (Ctrl+Shift+C),
the side panel must read both peaks as `snapshot A --compare B` prints them.

    test_snapshot.py LANG SCREENSHOT_DIR"""

import collections
import gettext
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
import time

import pyatspi

from gmltest import (WHAT_IF_SETTINGS, APP, BUILD, App, app_env, bank, c_format, c_pattern, check,
                     type_into_chooser, wait_for, what_if_expected_rows)

lang = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
os.makedirs(shots, exist_ok=True)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'common'))
import fixtures  # noqa: E402

# A real snapshot from the fixtures (never copied here); skipped (77) without them.
REAL, OOM_REAL = fixtures.require('magma27_memory_snapshot.pickle',
                                  'Constructor-Sun_code_location_memory_snapshot.pickle')
MAKE = os.path.join(HERE, '..', 'snapshot', 'make_snapshots.py')

catalogue = gettext.translation('gpu-memory-lab', localedir=os.path.join(BUILD, 'po', 'locale'),
                                languages=[lang], fallback=True)
_ = catalogue.gettext


REPLAYED_FITS = c_pattern(_('With %s this run would have peaked at %s reserved and not run out of memory '
                            '(replayed).'))
REPLAYED_OOM = c_pattern(_('With %s this run still runs out of memory, first at entry %lu (replayed).'))


work = tempfile.mkdtemp(prefix='gml-e2e-snapshot-')
subprocess.run([sys.executable, MAKE, 'cases', work], check=True)
OOM = os.path.join(work, 'oom.pickle')
BROKEN = os.path.join(work, 'cut-short.pickle')
with open(REAL, 'rb') as f:
    with open(BROKEN, 'wb') as out:
        out.write(f.read(200000))
CHECKPOINT = os.path.join(work, 'checkpoint.pkl')
with open(CHECKPOINT, 'wb') as f:
    # What a model checkpoint pickles: Python objects, built through GLOBAL.
    pickle.dump(collections.OrderedDict(weight=[1.0, 2.0]), f, protocol=2)


def cli(*args, check_status=True, language=None):
    language = language or lang
    return subprocess.run([APP, *args, '--lang', language], env=app_env(tempfile.mkdtemp(), language),
                          check=check_status, capture_output=True, text=True)


def describe(path, at, view='memory-map', language=None):
    return cli('render', path, '--at', str(at), '--view', view, '--describe', language=language).stdout.strip()


APP_ID = 'io.github.gpumemorylab.GpuMemoryLab'


def set_language(code):
    """Switches the language as the main menu's Language items do (app.language)."""
    subprocess.run(['gdbus', 'call', '--session', '--dest', APP_ID, '--object-path',
                    '/' + APP_ID.replace('.', '/'), '--method', 'org.gtk.Actions.Activate', 'language',
                    f"[<'{code}'>]", '{}'], check=True, stdout=subprocess.DEVNULL, timeout=10)


def info(path):
    return json.loads(cli('snapshot', path, '--json').stdout)


def reader_error(path, language=None):
    """The reader's message for a file it refuses, as the snapshot verb prints it."""
    result = cli('snapshot', path, check_status=False, language=language)
    assert result.returncode == 1, f'the snapshot verb accepted {path}'
    line = result.stderr.strip()
    prefix = 'gpu-memory-lab snapshot: ' + path + ': '
    assert line.startswith(prefix), line
    return line[len(prefix):]


def images(app):
    return [name for role, name, text, showing, node in app.nodes() if role == 'image' and showing and name]


def wait_image(app, expected, what, timeout=15):
    deadline = time.time() + timeout
    seen = []
    while time.time() < deadline:
        seen = images(app)
        if expected in seen:
            return
        time.sleep(0.2)
    raise AssertionError(f'no picture saying “{expected}” {what}; pictures shown: {seen}')


def press(app, name):
    """Presses the button named NAME (GTK 4.8 calls a toggle button a push button too).
    The quiz's picture has buttons with the same names; the view not shown is out of
    the accessibility tree, so exactly one is found."""
    hits = app.find('push button', equals=name) + app.find('toggle button', equals=name)
    assert len(hits) == 1, f'{len(hits)} buttons “{name}”'
    hits[0][1].queryAction().doAction(0)
    time.sleep(0.5)


real = info(REAL)
n = real['trace_entries']
page = max(1, n // 100)
check(n > 1000 and not real['ooms'], f'the real snapshot has {n} trace entries and no oom')

# 1. From the command line: the Snapshot view at the end of the trace.
home = tempfile.mkdtemp(prefix='gml-e2e-snapshot-home-')
at_end = describe(REAL, n)
app = App(home, lang, args=[REAL], ready=lambda a: at_end in images(a))
check(True, f'gpu-memory-lab FILE opens the Snapshot view; the map says “{at_end}”')
app.wait_label(lambda t: t == os.path.basename(REAL), 'with the file’s name')
app.wait_label(lambda t: t == _('There is no out-of-memory error in this trace: every allocation it '
                                'records succeeded.'), 'saying there is no out-of-memory error')
check(True, 'the file’s name is shown, and that the trace has no out-of-memory error')
app.screenshot(os.path.join(shots, f'snapshot-{lang}.png'))

# 2. Scrubbing with the keys, each position against the render verb.
at = n
for key, move in (('Left', -1), ('Left', -1), ('Page_Up', -page), ('Home', None), ('Right', 1),
                  ('Page_Down', page), ('End', 'end')):
    at = 0 if move is None else n if move == 'end' else max(0, min(n, at + move))
    expected = describe(REAL, at)
    app.key(key)
    wait_image(app, expected, f'after {key}')
    check(True, f'{key}: the description is the render verb’s for N = {at}')
# Page Up/Down go the same way with the slider focused (GtkRange's own keys go the other).
app.key('Home')
wait_image(app, describe(REAL, 0), 'after Home')
slider = app.find('slider', equals=_('Position in the trace'))
check(len(slider) == 1, f'the Snapshot view has one slider “{_("Position in the trace")}”')
for _tab in range(8):
    if slider[0][1].getState().contains(pyatspi.STATE_FOCUSED):
        break
    app.key('Tab')
check(slider[0][1].getState().contains(pyatspi.STATE_FOCUSED), 'Tab reaches the slider')
app.key('Page_Down')
wait_image(app, describe(REAL, page), 'after Page Down on the slider')
app.key('Page_Up')
wait_image(app, describe(REAL, 0), 'after Page Up on the slider')
check(True, f'with the slider focused, Page Down goes forward {page} entries and Page Up back')
app.key('Home')
app.key('Right')
wait_image(app, describe(REAL, 1), 'after Home, →')
entry_line = c_format(_('Entry %zu of %zu: %s'), 1, n, '')
app.wait_label(lambda t: t.startswith(entry_line), f'starting “{entry_line}”')
check(True, 'the line under the scrubber names entry 1')

# 3. The other views at the same N.
for button, view in ((_('Timeline view'), 'timeline'), (_('Active memory view'), 'active-timeline'),
                     (_('Fragmentation view'), 'fragmentation'), (_('Memory map view'), 'memory-map')):
    press(app, button)
    wait_image(app, describe(REAL, 1, view), f'in the {view} view')
    check(True, f'“{button}” shows the {view} picture of N = 1, in the render verb’s words')

# 4. Open Snapshot… with the keyboard: GTK's own chooser (no portal here), the path typed.
oom = info(OOM)
check(len(oom['ooms']) == 1, 'the oom case has one out-of-memory error')
app.key('ctrl+o')
type_into_chooser(_('Open Snapshot'), OOM)
error = oom['ooms'][0]
index = error['index']
title = c_format(_('Out of memory at entry %zu of %zu'), index + 1, oom['trace_entries'])
app.wait_label(lambda t: t == title, f'“{title}”', timeout=20)
check(True, f'Open Snapshot… opened the oom case; its explainer says “{title}”')
app.wait_label(lambda t: t == error['message'], 'with PyTorch’s message')
check(True, 'the explainer shows the message PyTorch printed')
app.wait_label(lambda t: t == _('torch.cuda.empty_cache() — would not have helped: before giving up, the '
                                'allocator had already returned every wholly free cached segment to the '
                                'GPU and tried again.'), 'about empty_cache')
expandable = [_('expandable_segments:True — would have helped: the free pages could have been mapped behind '
                'one another into one range large enough.'),
              _('expandable_segments:True — would not have helped: there was not enough free memory in all.'),
              _('expandable_segments:True — would not have changed this.')]
app.wait_label(lambda t: t in expandable or REPLAYED_FITS.match(t) or REPLAYED_OOM.match(t),
               'with a verdict on expandable_segments')
check(True, 'the explainer gives verdicts on empty_cache() and expandable_segments')

# Show: the pictures move to the error, and say so.
show = _('Show this entry in the pictures')
press(app, show)
at_oom = describe(OOM, index + 1)
wait_image(app, at_oom, 'after Show')
check(_('Here a request for %s ran out of memory.').split('%s')[0] in at_oom,
      f'Show moves the picture to the error: “{at_oom}”')

# The language changes live: the picture's words and the explainer follow.
other = 'en' if lang == 'tr' else 'tr'
other_catalogue = gettext.translation('gpu-memory-lab', localedir=os.path.join(BUILD, 'po', 'locale'),
                                      languages=[other], fallback=True)
set_language(other)
wait_image(app, describe(OOM, index + 1, language=other), f'after switching to “{other}”')
other_title = c_format(other_catalogue.gettext('Out of memory at entry %zu of %zu'), index + 1,
                       oom['trace_entries'])
app.wait_label(lambda t: t == other_title, f'“{other_title}”')
check(True, f'switched to “{other}”: the picture says “{describe(OOM, index + 1, language=other)}”')
set_language(lang)
wait_image(app, at_oom, f'after switching back to “{lang}”')
app.wait_label(lambda t: t == title, f'“{title}” again')
check(True, f'and back to “{lang}”')

# Practise: the number of questions comes from the bank; the button opens the quiz on that topic.
questions = bank(lang)
topic = _('Fragmentation')
count = sum(1 for q in questions if q['topic'] == topic)
check(count > 0, f'the bank has {count} questions on “{topic}”')
practise = c_format(catalogue.ngettext('Practise: %s — %u question', 'Practise: %s — %u questions', count),
                    topic, count)
press(app, practise)
on_topic = {q['text'] for q in questions if q['topic'] == topic}
app.wait_label(lambda t: t in on_topic, f'with a question on “{topic}”')
check(True, f'“{practise}” switches to the quiz, on that topic')

# 5. Files the reader refuses, handed over by a second instance.
for path, what in ((BROKEN, 'a file cut short'), (CHECKPOINT, 'a pickle of Python objects')):
    message = reader_error(path)
    result = subprocess.run([APP, path], env=app_env(home, lang), timeout=30)
    check(result.returncode == 0, f'a second gpu-memory-lab hands {what} to the running one')
    app.wait_label(lambda t: t == message, f'with the reader’s message “{message}”', timeout=20)
    heading = c_format(_('“%s” Could Not Be Opened'), os.path.basename(path))
    app.wait_label(lambda t: t == heading, f'“{heading}”')
    check(True, f'{what}: the window says “{heading}” and “{message}”')
check('GLOBAL' in reader_error(CHECKPOINT), 'the checkpoint is refused at its GLOBAL instruction, not run')
app.screenshot(os.path.join(shots, f'snapshot-error-{lang}.png'))

# The language changes on the error page too: the reader's own message in the other language.
set_language(other)
other_message = reader_error(CHECKPOINT, other)
app.wait_label(lambda t: t == other_message, f'with the reader’s message in “{other}”: “{other_message}”',
               timeout=20)
check(other_message != reader_error(CHECKPOINT), f'switched to “{other}”: the error page says “{other_message}”')
set_language(lang)
app.wait_label(lambda t: t == reader_error(CHECKPOINT), 'with the reader’s message again', timeout=20)

# The snapshot open before the broken files is still there.
back = c_format(_('_Back to “%s”'), 'oom.pickle').replace('_', '')
press(app, back)
app.wait_label(lambda t: t == title, f'“{title}” again, after “{back}”', timeout=10)
check(True, f'“{back}” shows the snapshot that was open, its explainer “{title}”')

# Every file that opened is a recent snapshot (GtkRecentManager), the broken ones are not.
xbel = os.path.join(home, 'data', 'recently-used.xbel')
deadline = time.time() + 10
recent = ''
while time.time() < deadline:
    recent = open(xbel, encoding='utf-8').read() if os.path.exists(xbel) else ''
    if 'oom.pickle' in recent:
        break
    time.sleep(0.5)
check('magma27_memory_snapshot.pickle' in recent and 'oom.pickle' in recent,
      'the snapshots that opened are in the recent files')
check('cut-short.pickle' not in recent and 'checkpoint.pkl' not in recent,
      'the files that did not open are not')

# 6. The OOM first: the file whose error is on cuda:1 opens there.
cs = info(OOM_REAL)
check(cs['device'] == 1 and len(cs['ooms']) == 1,
      'snapshot --json chooses cuda:1, the oom’s device')
result = subprocess.run([APP, OOM_REAL], env=app_env(home, lang), timeout=30)
check(result.returncode == 0,
      'a second gpu-memory-lab hands the Constructor-Sun file to the running one')
n_cs = cs['trace_entries']
entries = c_format(catalogue.ngettext('%zu entry', '%zu entries', n_cs), n_cs)
device = c_format(catalogue.ngettext('cuda:%u — %s, %u OOM', 'cuda:%u — %s, %u OOMs', 1),
                  1, entries, 1)
app.wait_label(lambda t: t == device, f'with the device chooser on “{device}”', timeout=30)
title = c_format(_('Out of memory at entry %zu of %zu'), cs['ooms'][0]['index'] + 1, n_cs)
app.wait_label(lambda t: t == title, f'“{title}”')
app.wait_label(lambda t: t == cs['ooms'][0]['message'], 'with PyTorch’s message')
check(True, f'it opens on “{device}” with the explainer “{title}”')
app.screenshot(os.path.join(shots, f'snapshot-oom-device-{lang}.png'))

# What if: the run replayed under other settings, each row what `snapshot --what-if` finds.
SETTINGS = WHAT_IF_SETTINGS
what_if = json.loads(cli('snapshot', OOM_REAL, *[f'--what-if={conf}' for conf in SETTINGS], '--json').stdout)
check(what_if['gpu_memory_source'] != 'unbounded' and what_if['what_if'][0]['ooms'] >= 1,
      f'snapshot --what-if replays the recorded run on the GPU its oom implies '
      f'({what_if["gpu_memory_source"]}) and runs out of memory again')
expected_rows = what_if_expected_rows(catalogue, what_if)
titles = list(expected_rows)


def what_if_rows():
    return {name: node.description for role, name, text, showing, node in app.nodes()
            if name in expected_rows and node.description}


try:
    wait_for(lambda: what_if_rows() == expected_rows, 'the what-if rows', timeout=60)
except AssertionError:
    print('expected:', expected_rows, '\nshown:', what_if_rows(), '\nnodes:',
          [(role, name, node.description) for role, name, text, showing, node in app.nodes()
           if 'max_split' in (name or '') or 'max_split' in (text or '')])
    raise
check(True, f'the {len(titles)} what-if rows read, to the byte, what snapshot --what-if prints')

# Its verdicts in the error's card: expandable_segments's row, and the best max_split_size_mb row.
def verdict(runs):
    best = min(runs, key=lambda r: (r['ooms'], r['peak_reserved_bytes']))
    return best, (REPLAYED_FITS if best['ooms'] == 0 else REPLAYED_OOM)


for family in ('expandable_segments', 'max_split_size_mb'):
    best, form = verdict([r for r in what_if['what_if'][1:] if r['alloc_conf'].startswith(family)])
    if best['ooms'] == 0:
        app.wait_label(lambda t: (m := form.match(t)) is not None and m.group(1) == best['alloc_conf'],
                       f'with the replayed verdict on {best["alloc_conf"]}', timeout=20)
    else:
        app.wait_label(lambda t: (m := form.match(t)) is not None and m.group(1) == best['alloc_conf']
                       and int(m.group(2)) == best['first_oom_index'],
                       f'with the replayed verdict on {best["alloc_conf"]}', timeout=20)
    check(True, f'the error’s card says what replaying with {best["alloc_conf"]} found '
                f'({best["ooms"]} out of memory)')

# A row ticked: its reserved memory is drawn on the timeline, which is shown.
draw = _('Draw Its Reserved Memory on the Timeline')
boxes = app.find('check box', prefix=draw)
check(len(boxes) == len(titles), f'each what-if row has its “{draw}” box')
# With the keyboard, as GTK 4.8 gives a check box no accessible action: Ctrl+Shift+W
# goes into the what-if rows, Tab on to the second row's box, Space ticks it.
app.key('ctrl+shift+w')
for _tab in range(12):
    if boxes[1][1].getState().contains(pyatspi.STATE_FOCUSED):
        break
    app.key('Tab')
check(boxes[1][1].getState().contains(pyatspi.STATE_FOCUSED),
      f'Ctrl+Shift+W, then Tab, reaches the {SETTINGS[0]} row’s box')
app.key('space')
# Passing through the GPU's spin button is not a new GPU size: the rows stay the replays on the
# GPU the oom implies.
source = c_format(_('From the out of memory at entry %lu: what was reserved then, and what the GPU still had '
                    'free.'), cs['ooms'][0]['index'])
app.wait_label(lambda t: t == source, f'still “{source}”')
check(what_if_rows() == expected_rows, 'the spin button passed through, the rows are the same replays')
parts = _('Replayed with %s: the most reserved %s.').split('%s')
replayed_line = parts[0] + SETTINGS[0] + parts[1]
app.wait_image(lambda d: replayed_line in d, f'saying “{replayed_line}…”', timeout=20)
check(True, f'ticking {SETTINGS[0]} draws it on the timeline: “{replayed_line}…”')
app.screenshot(os.path.join(shots, f'snapshot-what-if-{lang}.png'))
app.key('space')
app.wait_image(lambda d: replayed_line not in d, 'without the replay once unticked', timeout=20)
check(True, 'untick it, and the line is gone')
press(app, _('Memory map view'))

# The largest block's details: the user's line and the inferred category.
NAMES = {'parameters': 'Parameters', 'activations': 'Activations', 'gradients': 'Gradients',
         'optimizer_state': 'Optimizer state', 'temporary': 'Temporary', 'other': 'Other'}
largest = cs['largest_allocations'][0]
category = catalogue.pgettext('snapshot category', NAMES[largest['category']])
kind = c_format(_('%s (inferred): %s'), category, '')
check(largest['where'] and 'gather_with_cpp' not in largest['where'],
      f'the largest block’s line is the user’s: “{largest["where"]}”')
app.wait_label(lambda t: kind in t and largest['where'] in t,
               f'naming “{largest["where"]}” and “{category}”')
check(True, f'the block’s details name its line “{largest["where"]}” and its category “{category}”')
peak_line = c_format(_('%s — %s'), cs['peak']['by_where'][0]['where'], '')
app.wait_label(lambda t: peak_line in t, f'with the peak’s first line “{peak_line}”')
check(True, 'the peak panel names the line holding the most')

# 7. Two runs compared: B read with Ctrl+Shift+C, both peaks in the side panel.
text = cli('snapshot', OOM_REAL, '--compare', REAL).stdout
form = _('%s (%s): peak allocated %s, peak reserved %s\n').rstrip('\n')
pattern = '^' + re.escape(form).replace(re.escape('%s'), '(.*)') + '$'
peaks = [m.groups() for m in (re.match(pattern, line) for line in text.splitlines()) if m]
check(len(peaks) == 2, f'snapshot --compare prints both peaks: {peaks}')
app.key('ctrl+shift+c')
type_into_chooser(_('Compare With Another Snapshot'), REAL)
expected = '\n'.join(c_format(_('%s: %s — peak %s allocated, %s reserved'), side, name, allocated,
                              reserved)
                     for side, name, allocated, reserved in peaks)
app.wait_label(lambda t: t == expected, f'reading both peaks “{expected}”', timeout=30)
check(True, f'the comparison reads both peaks: “{expected}”')
compared = _('Compared: %s peaks at %s allocated, %s at %s.').split('%s')[0]
app.wait_image(lambda d: compared in d, f'saying “{compared}…”')
check(True, f'the timeline is shown with both runs: “{compared}”')
app.screenshot(os.path.join(shots, f'snapshot-compare-{lang}.png'))
press(app, _('_Stop Comparing').replace('_', ''))
check(not any(t == expected for t in app.label_texts()), 'Stop Comparing takes the comparison away')

app.quit()
print('all snapshot view checks passed')

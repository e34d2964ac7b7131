#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Experiment view's Step knob and its F5, in the real window, through the
accessibility tree.

Step: the knob goes from the steady step to the first step with the keyboard; the peak,
the picture's caption at the peak (the timeline's moment) and the sentence on the
difference must then be what `gpu-memory-lab experiment --step first --json` says.
F5 in the Experiment view opens the lab's result large: its window must show the same
peaks (exact bytes in each figure's accessible description), the verdict, the bytes by
category and the memory map at the peak; Escape closes it.

    test_lab_present.py LANG SCREENSHOT_DIR"""

import os
import re
import subprocess
import sys
import tempfile
import time

from gmltest import App, check, experiment_json, frame, translator, wait_for

lang = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
os.makedirs(shots, exist_ok=True)

_ = translator(lang)
home = tempfile.mkdtemp(prefix='gml-e2e-lab-present-')


def verb(args):
    return experiment_json(home, lang, args)


def walk(node, depth=0):
    """(role, text, description, node) of everything under node."""
    out = []
    if node is None or depth > 60:
        return out
    try:
        text = node.name or ''
        if not text:
            try:
                t = node.queryText()
                text = t.getText(0, t.characterCount)
            except NotImplementedError:
                pass
        out.append((node.getRoleName(), text, node.description or '', node))
        for i in range(node.childCount):
            out.extend(walk(node.getChildAtIndex(i), depth + 1))
    except Exception:
        pass
    return out


def bytes_after(nodes, caption):
    """The exact bytes of the figure that follows the label CAPTION."""
    labels = [(text, desc) for role, text, desc, node in nodes if role == 'label']
    for i, (text, desc) in enumerate(labels[:-1]):
        if text == caption:
            digits = re.sub(r'\D', '', labels[i + 1][1])
            return int(digits) if digits else None
    return None


def main_bytes(app, caption):
    return bytes_after(walk(frame(app, main_title(app))), caption)


def main_title(app):
    for i in range(app.root.childCount):
        node = app.root.getChildAtIndex(i)
        if node is not None and node.getRoleName() == 'frame' and node.name != _('Experiment on the projector'):
            return node.name
    return None


app = App(home, lang)
app.resize(1280, 800)
tabs = app.find('page tab', equals=_('Experiment'))
check(tabs, 'the view switcher offers the Experiment view')
tabs[0][1].queryAction().doAction(0)

knobs = '--model gpt2 --seq 1024 --batch 8 --precision fp32 --optimizer adamw --gpu-memory 24G'
steady = verb(knobs)
first = verb(knobs.replace('adamw', 'adamw --step first'))
check(first['peak_allocated_bytes'] < steady['peak_allocated_bytes'],
      'the verb: the first step peaks lower than the steady step')
app.wait_label(lambda t: t == _('Fits in %s') % '24 GiB', 'saying it fits in 24 GiB', timeout=30)
wait_for(lambda: main_bytes(app, _('Peak allocated')) == steady['peak_allocated_bytes'], 'the steady peak')
check(True, f'the steady step: peak allocated {steady["peak_allocated_bytes"]} bytes')
sentence_prefix = first['steady_step']['difference'][:20]
check(not [t for t in app.label_texts() if t.startswith(sentence_prefix)], 'no first-step sentence yet')
where_steady = steady['peak_at']
app.wait_label(lambda t: where_steady in t, f'the caption at the peak saying “{where_steady}”')

# The Step knob as a person moves it: a click opens its list, Down, Return.
rows = [n for r, name, text, showing, n in app.nodes() if showing and name == _('Step')
        and r in ('combo box', 'list item', 'push button', 'menu button')]
check(rows, f'the Step knob is a control named “{_("Step")}”')
print(f'the Step knob\'s role: {rows[0].getRoleName()}')
x, y, w, h = app.extents(rows[0])
subprocess.run(['xdotool', 'mousemove', '--sync', str(x + w - 40), str(y + h // 2), 'click', '1'], check=True)
time.sleep(1.0)
app.key('Down')
app.key('Return')
wait_for(lambda: [t for r, n, t, s, _n in app.nodes() if r == 'text' and n == _('Knobs')
                  and '--step first' in t], 'the command line saying --step first')
check(True, 'the knob changed the command line to --step first')
wait_for(lambda: main_bytes(app, _('Peak allocated')) == first['peak_allocated_bytes'], 'the first step\'s peak')
check(True, f'the first step: peak allocated {first["peak_allocated_bytes"]} bytes, as the verb says')
shown = app.wait_label(lambda t: t == first['steady_step']['difference'], 'the sentence on the difference')
check(True, f'the view names the difference: {shown}')
where_first = first['peak_at']
check(where_first != where_steady, 'the peak is somewhere else in the first step')
app.wait_label(lambda t: where_first in t, f'the caption at the peak saying “{where_first}”')
check(True, f'the timeline\'s moment at the peak is the first step\'s: {where_first}')
app.screenshot(os.path.join(shots, f'lab-step-first-{lang}.png'))

# F5: the result, large, in its own window.
title = _('Experiment on the projector')
app.key('F5')
big = wait_for(lambda: frame(app, title), 'the lab\'s presentation window')
wait_for(lambda: bytes_after(walk(big), _('Peak allocated')) == first['peak_allocated_bytes'],
         'the peak allocated in the presentation', timeout=30)
nodes = walk(big)
check(bytes_after(nodes, _('Peak reserved')) == first['peak_reserved_bytes'], 'its peak reserved, to the byte')
texts = [t for r, t, d, n in nodes if r == 'label']
check(_('Fits in %s') % '24 GiB' in texts, 'it says it fits')
check(first['steady_step']['difference'] in texts, 'it names the difference from the steady step')
check(_('Activations') in texts and _('Weights') in texts, 'it lists the bytes by category')
check(not any(t == _('Optimizer state') for t in texts), 'no optimizer state at the first step\'s peak')
pictures = [t for r, t, d, n in nodes if r == 'image' and t]
check(len(pictures) == 1 and where_first in pictures[0], f'the memory map at the peak is described: {pictures}')
wid = subprocess.run(['xdotool', 'search', '--name', '^' + title + '$'], capture_output=True,
                     text=True).stdout.split()
check(wid, 'the presentation window is on the X display')
state = subprocess.run(['xprop', '-id', wid[0], '_NET_WM_STATE'], capture_output=True, text=True).stdout
check('_NET_WM_STATE_FULLSCREEN' in state, f'it asks to be fullscreen ({state.strip()})')
subprocess.run(['import', '-window', wid[0], os.path.join(shots, f'lab-present-{lang}.png')], check=False)
subprocess.run(['xdotool', 'windowfocus', '--sync', wid[0], 'key', 'Escape'], timeout=20, check=True)
wait_for(lambda: frame(app, title) is None, 'the presentation to close')
check(True, 'Escape left it')
check(main_bytes(app, _('Peak allocated')) == first['peak_allocated_bytes'], 'the Experiment view is as it was')

app.quit()
print('ok: the Step knob and F5 in the Experiment view')

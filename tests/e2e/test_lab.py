#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Experiment view end to end, in the real window, through the accessibility tree.

The view opens on its default knobs and runs them; its figures must be the numbers
`gpu-memory-lab experiment --json` gives for the same knobs (each figure's accessible
description says its exact bytes). Then knobs change as a person changes them: the
batch size's spin button with the keyboard, then the whole command line (Ctrl+L) for a
configuration that does not fit, whose out-of-memory message must be the verb's word
for word. Largest Batch That Fits (Ctrl+B) must find the verb's --find-max-batch, and
Pin as A (Ctrl+P) must name the knob that changed.

    test_lab.py LANG SCREENSHOT_DIR"""

import os
import re
import subprocess
import sys
import tempfile
import time

from gmltest import App, check, experiment_json, translator, wait_for

lang = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
os.makedirs(shots, exist_ok=True)

_ = translator(lang)
home = tempfile.mkdtemp(prefix='gml-e2e-lab-')


def verb(args):
    return experiment_json(home, lang, args)


def exact_bytes(app, caption):
    """The bytes of the figure after the label CAPTION, from its accessible description
    ("22,346,604,032 bytes"), as a screen reader reads the caption, then the figure."""
    labels = [(name or text, node) for role, name, text, showing, node in app.nodes()
              if role == 'label' and showing]
    for i, (text, node) in enumerate(labels[:-1]):
        if text == caption:
            description = labels[i + 1][1].description or ''
            digits = re.sub(r'\D', '', description)
            return int(digits) if digits else None
    return None


def wait_bytes(app, caption, want, what, timeout=20):
    deadline = time.time() + timeout
    got = None
    while time.time() < deadline:
        got = exact_bytes(app, caption)
        if got == want:
            print(f'ok: {what}: {caption} is {want} bytes, as the verb says')
            return got
        time.sleep(0.3)
    check(False, f'{what}: {caption} should be {want} bytes, the window says {got}')


def type_text(app, text):
    subprocess.run(['xdotool', 'windowfocus', '--sync', app.window_id(), 'type', '--delay', '5', '--', text],
                   check=True)
    time.sleep(0.3)


app = App(home, lang)
app.resize(1280, 800)
tabs = app.find('page tab', equals=_('Experiment'))
check(tabs, 'the view switcher offers the Experiment view')
tabs[0][1].queryAction().doAction(0)

# The default knobs, run by the window and by the verb.
default = '--model gpt2 --seq 1024 --batch 8 --precision fp32 --optimizer adamw --gpu-memory 24G'
want = verb(default)
app.wait_label(lambda t: t == _('Fits in %s') % '24 GiB', 'saying it fits in 24 GiB', timeout=20)
wait_bytes(app, _('Peak allocated'), want['peak_allocated_bytes'], 'the default knobs')
wait_bytes(app, _('Peak reserved'), want['peak_reserved_bytes'], 'the default knobs')
wait_bytes(app, _('Activations'),
           want['by_category']['activations'], 'the default knobs')
knobs = [text for role, name, text, showing, node in app.nodes() if role == 'text' and name == _('Knobs')]
check(knobs == [default], f'the command line shows the same knobs: {knobs}')
app.screenshot(os.path.join(shots, f'lab-{lang}-default.png'))

# At 1024×768 the Step row's value keeps its room beside the row's wrapped subtitle: it
# was cut to "Steady state (st…" in English and to a bare "…" in Turkish. The Mode row's
# value, short enough never to be cut, gives the width of a character in that font.
app.resize(1024, 768)


def value_width(text):
    nodes = [n for r, name, t, s, n in app.nodes() if r == 'label' and t == text and s]
    return app.extents(nodes[0])[2] if nodes else 0


mode, step = _('Training step'), _('Steady state (step 2)')
wait_for(lambda: value_width(mode) > 0 and value_width(step) > 0, 'the Mode and Step rows’ values')
time.sleep(1)
need = 0.85 * value_width(mode) / len(mode) * len(step)
check(value_width(step) >= need,
      f'the Step row shows its whole value at 1024×768 ({value_width(step)} px, at least {need:.0f} px)')
app.screenshot(os.path.join(shots, f'lab-{lang}-1024.png'))

# The Precision list shows each choice whole: libadwaita 1.2's own list cut them at 20
# characters ("Mixed precision, fp16 …").
longest = _('torch.autocast, bf16 (autocast-bf16)')
combo = [n for r, name, t, s, n in app.nodes() if r == 'combo box' and name == _('Precision') and s]
check(combo, 'the Precision row is a combo box named by its row')
app.click(combo[0])
wait_for(lambda: value_width(longest) > 0, 'the Precision list')
time.sleep(0.5)
need = 0.85 * value_width(mode) / len(mode) * len(longest)
check(value_width(longest) >= need,
      f'the Precision list shows “{longest}” whole ({value_width(longest)} px, at least {need:.0f} px)')
subprocess.run(['sh', '-c', f'import -window root {os.path.join(shots, f"lab-{lang}-precision-list.png")}'],
               check=False)
app.key('Escape')
app.resize(1280, 800)

# The batch size, from the keyboard: its spin button, Page Up (+8), Ctrl+Enter.
spins = app.find('spin button', equals=_('Batch size'))
check(spins, 'the batch size is a spin button named by its row')
x, y, w, h = app.extents(spins[0][1])
# A click in its text, at the left (the − and + buttons are at the right).
subprocess.run(['xdotool', 'mousemove', '--sync', str(x + 12), str(y + h // 2), 'click', '1'], check=True)
time.sleep(0.3)
app.key('Page_Up')
app.key('ctrl+Return')
want16 = verb(default.replace('--batch 8', '--batch 16'))
check(want16['fits'] is False, 'batch 16 does not fit in 24 GiB (the verb says so)')
app.wait_label(lambda t: t == _('Does not fit in %s') % '24 GiB', 'saying batch 16 does not fit', timeout=20)
# Out of memory: the headline is at the error, as the map and PyTorch's message are.
wait_bytes(app, _('Allocated at the error'), want16['allocated_at_peak_bytes'], 'batch 16')
check(f"Of the allocated memory {want16['allocated_at_peak_bytes'] / 2**30:.2f} GiB is allocated"
      in want16['oom_message'], 'batch 16: the headline is the message’s allocated memory')
app.wait_label(lambda t: t == want16['oom_message'], "the verb's out-of-memory message, word for word")
print("ok: batch 16: the window shows the verb's out-of-memory message word for word")
app.screenshot(os.path.join(shots, f'lab-{lang}-batch16.png'))


def verdict_y(text):
    nodes = [n for r, name, t, s, n in app.nodes() if r == 'label' and t == text]
    return app.extents(nodes[0])[1] if nodes else None


# The result is read from its verdict: scrolled down to the message, then run again,
# the panel comes back to the top, where the new verdict is.
top = verdict_y(_('Does not fit in %s') % '24 GiB')
x, y, w, h = app.extents([n for r, name, t, s, n in app.nodes()
                          if r == 'label' and t == want16['oom_message']][0])
subprocess.run(['xdotool', 'mousemove', '--sync', str(x + w // 2), str(y + h // 2),
                'click', '--repeat', '8', '--delay', '50', '5'], check=True)
wait_for(lambda: (verdict_y(_('Does not fit in %s') % '24 GiB') or top) < top - 50,
         'the results scrolled down past their verdict')

# Pin batch 16 as A, then the whole command line: Llama 2 7B on 40 GiB.
app.key('ctrl+p')
other = '--model llama-2-7b --seq 1024 --batch 2 --precision amp-bf16 --optimizer adamw --gpu-memory 40G'
app.key('ctrl+l')
app.key('ctrl+a')
type_text(app, other)
app.key('Return')
want7 = verb(other)
app.wait_label(lambda t: t == _('Does not fit in %s') % '40 GiB', 'saying Llama 2 7B does not fit in 40 GiB',
               timeout=20)
wait_for(lambda: verdict_y(_('Does not fit in %s') % '40 GiB') == top,
         'the new result shown from its verdict, at the top of the panel')
print('ok: a new result is shown from its verdict, wherever the last one was scrolled')
# Here the peak came 16 MiB above where it ran out: the headline is the error's figure.
check(want7['peak_allocated_bytes'] > want7['allocated_at_peak_bytes'], 'llama-2-7b peaked before the error')
wait_bytes(app, _('Allocated at the error'), want7['allocated_at_peak_bytes'], 'llama-2-7b')
check(f"Of the allocated memory {want7['allocated_at_peak_bytes'] / 2**30:.2f} GiB is allocated"
      in want7['oom_message'], 'llama-2-7b: the headline is the message’s allocated memory')
app.wait_label(lambda t: t == want7['oom_message'], "llama-2-7b's out-of-memory message")
print("ok: llama-2-7b: the window shows the verb's out-of-memory message word for word")
app.wait_label(lambda t: '--model gpt2 → llama-2-7b' in t and '--batch 16 → 2' in t,
               'the A/B comparison naming the knobs that changed')
print('ok: A/B names the knobs that changed')
app.screenshot(os.path.join(shots, f'lab-{lang}-oom.png'))

# Largest batch that fits, through the allocator, as the verb finds it.
small = '--model gpt2 --seq 512 --batch 4 --precision amp-bf16 --optimizer adamw --gpu-memory 8G'
app.key('ctrl+l')
app.key('ctrl+a')
type_text(app, small)
app.key('Return')
app.wait_label(lambda t: t == _('Fits in %s') % '8 GiB', 'the small configuration fitting', timeout=20)
app.key('ctrl+b')
mb = verb(small + ' --find-max-batch')['max_batch_that_fits']
prefix = (_('Largest batch that fits: %u (found in %u runs through the allocator: doubling, then halving the gap).')
          .split('%u')[0])
found = app.wait_label(lambda t: t.startswith(prefix), 'the largest batch', timeout=30)
check(found.startswith(f'{prefix}{mb} '), f'the window finds batch {mb}, as the verb does: {found}')

# Run on the GPU (Ctrl+Shift+Enter) with no NVIDIA driver: the view says why it cannot.
app.key('ctrl+shift+Return')
app.wait_label(lambda t: t == _('A live run needs an NVIDIA GPU; this computer’s GPU is simulated.'),
               'saying a live run needs an NVIDIA GPU')
print('ok: without a GPU, Run on the GPU says it needs one')

app.quit()
print('ok: the Experiment view')

# A question built from a lab configuration: once answered, "Open in the Lab" opens
# its knobs in the Experiment view, where they run. The round is preset to the topic
# whose questions are all lab questions (through a keyfile, as gsettings writes it).
import gmltest  # noqa: E402

real_env = gmltest.app_env


def keyfile_env(h, language):
    env = real_env(h, language)
    env['GSETTINGS_BACKEND'] = 'keyfile'
    return env


gmltest.app_env = keyfile_env
topic = 'Memory of a training step'
subprocess.run(['gsettings', 'set', 'io.github.gpumemorylab.GpuMemoryLab', 'filter-topic', topic],
               env=keyfile_env(home, lang), check=True)
in_topic = {q['text']: q for q in gmltest.bank(lang) if q['topic'] == _(topic)}
labq = {t: q for t, q in in_topic.items() if q['experiment']['kind'] == 'lab'}
check(len(labq) >= 2, f'the bank has lab questions on “{topic}” ({len(labq)})')
# The topic also has a question with a picture of its own (the tied embeddings): the
# round is walked past it, answered, to the first lab question.
app = App(home, lang)
shown = app.wait_label(lambda t: t in in_topic, 'a question of the topic', timeout=20)
for _skip in range(len(in_topic)):
    if shown in labq:
        break
    app.key('1')
    app.key('Right')
    previous = shown
    shown = app.wait_label(lambda t: t in in_topic and t != previous, 'the next question of the topic',
                           timeout=20)
check(shown in labq, 'the round reaches a lab question')
question = labq[shown]
open_lab = _('_Open in the Lab').replace('_', '')


def open_lab_buttons():
    # GTK 4.8 names a button with a mnemonic "_Label Label", as it does Previous and Next.
    return [node for role, name, text, showing, node in app.nodes()
            if role == 'push button' and showing and (name == open_lab or name.endswith(' ' + open_lab))]


check(not open_lab_buttons(), f'“{open_lab}” is not offered before the answer')
app.key('1')
deadline = time.time() + 10
while not open_lab_buttons() and time.time() < deadline:
    time.sleep(0.3)
buttons = open_lab_buttons()
check(len(buttons) == 1, f'“{open_lab}” is offered once the question is answered')
buttons[0].queryAction().doAction(0)
config = question['experiment']['config']
want = verb(config)
deadline = time.time() + 20
knobs = []
while time.time() < deadline:
    knobs = [text for role, name, text, showing, node in app.nodes() if role == 'text' and name == _('Knobs')]
    if knobs == [config]:
        break
    time.sleep(0.3)
check(knobs == [config], f'the Experiment view shows the question\'s knobs: {knobs}')
wait_bytes(app, _('Peak allocated'), want['peak_allocated_bytes'], question['id'])
app.screenshot(os.path.join(shots, f'lab-{lang}-from-question.png'))
app.quit()
print('ok: a lab question opens its configuration in the Experiment view')

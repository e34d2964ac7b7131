# SPDX-License-Identifier: GPL-3.0-or-later
"""The picture beside a question, read through the accessibility tree.

Every question has its own experiment. Before the answer the picture shows its
setup; once answered, it points at what the answer was about, and its accessible
description must say what the render verb says for that question (the same
engine, run headless). Only the views that show something for this experiment
are offered. Then step the experiment with the keyboard and see the description
change to the numbers of the neighbouring step.

    test_pictures.py LANG SCREENSHOT_DIR
"""

import gettext
import json
import os
import subprocess
import sys
import tempfile
import time

from gmltest import APP, BUILD, App, app_env, bank, check

lang = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else None

# The picture must be simulated here, whatever the machine has: the render verb
# simulates by default, and so must the app for the numbers to be comparable.
os.environ['GML_LIBCUDA'] = '/nonexistent/libcuda.so.1'

# The view buttons' accessible names, in the language of the test (the built catalogue).
_ = gettext.translation('gpu-memory-lab', localedir=os.path.join(BUILD, 'po', 'locale'),
                        languages=[lang], fallback=True).gettext
# The view tabs read as their visible labels.
VIEW_LABELS = {'memory-map': _('Memory Map'), 'fragmentation': _('Fragmentation'),
               'timeline': _('Timeline'), 'checkpointing': _('Checkpointing'),
               'comparison': _('Comparison')}


def cli(*args):
    return subprocess.run([APP, *args, '--lang', lang], env=app_env(tempfile.mkdtemp(), lang),
                          check=True, capture_output=True, text=True).stdout


def describe(question, *extra):
    return cli('render', '--question', question, '--describe', *extra).strip()


shown_bank = {q['text']: q['id'] for q in bank(lang)}

home = tempfile.mkdtemp()
app = App(home, lang)

question_text = app.wait_label(lambda t: t in shown_bank, 'with a question of the bank')
qid = shown_bank[question_text]
info = json.loads(cli('render', '--question', qid, '--json'))
focus = info['focus_step']
check(focus > 0, f'question “{qid}” has a step its experiment is about ({focus})')

start = describe(qid, '--before')
app.wait_image(lambda n: n == start, f'saying “{start}” before the answer')
check(True, 'before answering, the picture shows the question’s own experiment set up')

# The views offered are the experiment's own; the others are not there to click.
labels = VIEW_LABELS
buttons = [name for role, name, text, showing, node in app.nodes()
           if role in ('toggle button', 'push button') and showing and name in labels.values()]
check(sorted(buttons) == sorted(labels[v] for v in info['views']),
      f'the views offered are the experiment’s: {buttons} for {info["views"]}')
unnamed = [role for role, name, text, showing, node in app.nodes()
           if showing and role in ('push button', 'toggle button', 'combo box', 'slider') and not name]
check(not unnamed, f'every control has an accessible name (unnamed: {unnamed})')

app.key('1')
expected = describe(qid)
app.wait_image(lambda n: n == expected, f'saying “{expected}”')
check(True, f'after answering, the picture points at step {focus} of “{qid}”: {expected}')
if shots:
    os.makedirs(shots, exist_ok=True)
    app.screenshot(os.path.join(shots, f'pictures-{lang}.png'))

before = describe(qid, '--step', str(focus - 1))
check(before != expected, 'the step before says other numbers')
app.key('ctrl+Left')
app.wait_image(lambda n: n == before, f'saying “{before}” after Ctrl+←')
check(True, 'Ctrl+← steps the experiment back, and the description follows')

app.key('bracketright')
app.wait_image(lambda n: n == expected, f'saying “{expected}” after ]')
check(True, '] steps it forward again')

# The quiz keys still belong to the quiz: → goes to the next question, whose
# picture is its own experiment, set up.
app.key('Right')
next_text = app.wait_label(lambda t: t in shown_bank and t != question_text, 'with the next question')
check(True, '→ still moves to the next question, not the picture')
next_start = describe(shown_bank[next_text], '--before')
app.wait_image(lambda n: n == next_start, f'for the next question, saying “{next_start}”')
check(True, 'the next question brings its own experiment, set up again')

# Before its answer the steps are locked: Ctrl+Home, Ctrl+→ and Play leave the
# picture at its setup, which shows nothing of the answer.
app.key('ctrl+Home')
app.key('ctrl+Right')
app.key('ctrl+period')
time.sleep(2)
app.wait_image(lambda n: n == next_start, f'still saying “{next_start}” before the answer')
check(True, 'before the answer the step keys and Play do not move the picture')

# Play, once answered: the whole experiment in about 15 s at 1×, whatever its
# number of steps.
app.key('1')
next_info = json.loads(cli('render', '--question', shown_bank[next_text], '--json'))
last = len(next_info['steps']) - 1
end = describe(shown_bank[next_text], '--step', str(last))
app.key('ctrl+Home')
first = describe(shown_bank[next_text], '--step', '0')
app.wait_image(lambda n: n == first, 'at step 0 after Ctrl+Home')
started = time.monotonic()
app.key('ctrl+period')
app.wait_image(lambda n: n == end, f'at the last step ({last}) after Play', timeout=40)
elapsed = time.monotonic() - started
check(8 <= elapsed <= 30, f'Play runs the {last + 1} steps in about 15 s ({elapsed:.1f} s)')
app.quit()
print('all picture checks passed')

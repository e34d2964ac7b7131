# SPDX-License-Identifier: GPL-3.0-or-later
"""The picture beside a question, read through the accessibility tree.

Answer the question shown; the picture then points at what the answer was
about, and its accessible description must say the numbers that the render
verb computes for that scenario and step (the same engine, run headless).
Then step the scenario with the keyboard and see the description change to
the numbers of the neighbouring step.

    test_pictures.py LANG SCREENSHOT_DIR
"""

import json
import os
import subprocess
import sys
import tempfile
import time

from gmltest import APP, App, app_env, bank, check

lang = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else None

# The picture must be simulated here, whatever the machine has: the render verb
# simulates by default, and so must the app for the numbers to be comparable.
os.environ['GML_LIBCUDA'] = '/nonexistent/libcuda.so.1'

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'data', 'questions',
                      'gpu-memory.json')


def cli(*args):
    out = subprocess.run([APP, *args, '--lang', lang], env=app_env(tempfile.mkdtemp(), lang),
                         check=True, capture_output=True, text=True).stdout
    return out


def describe(scenario, step, view, point=False):
    args = ['render', scenario, '--step', str(step), '--view', view, '--describe']
    if point:
        args.append('--point')
    return cli(*args).strip()


def wait_image(app, predicate, what, timeout=10):
    deadline = time.time() + timeout
    seen = []
    while time.time() < deadline:
        seen = [name for role, name, text, showing, node in app.nodes() if role == 'image' and name]
        for name in seen:
            if predicate(name):
                return name
        time.sleep(0.3)
    raise AssertionError(f'no picture {what}; pictures shown: {seen}')


with open(SOURCE, encoding='utf-8') as f:
    scenario_of = {q['id']: q['scenario'] for q in json.load(f)['questions']}
shown_bank = {q['text']: q['id'] for q in bank(lang)}
scenarios = {s['name']: s for s in json.loads(cli('scenarios', '--json'))}

home = tempfile.mkdtemp()
app = App(home, lang)

question_text = app.wait_label(lambda t: t in shown_bank, 'with a question of the bank')
scenario = scenario_of[shown_bank[question_text]]
info = scenarios[scenario]
focus, view = info['focus_step'], info['focus_view']
check(focus > 0, f'the scenario “{scenario}” has a step the question is about ({focus})')

start = describe(scenario, 0, 'memory-map')
wait_image(app, lambda n: n == start, f'saying “{start}” before the answer')
check(True, 'before answering, the picture shows the scenario’s start')

app.key('1')
expected = describe(scenario, focus, view, point=True)
wait_image(app, lambda n: n == expected, f'saying “{expected}”')
check(True, f'after answering, the picture points at step {focus} of “{scenario}” ({view}): {expected}')
if shots:
    os.makedirs(shots, exist_ok=True)
    app.screenshot(os.path.join(shots, f'pictures-{lang}.png'))

before = describe(scenario, focus - 1, view, point=True)
check(before != expected, 'the step before says other numbers')
app.key('ctrl+Left')
wait_image(app, lambda n: n == before, f'saying “{before}” after Ctrl+←')
check(True, 'Ctrl+← steps the scenario back, and the description follows')

app.key('bracketright')
wait_image(app, lambda n: n == expected, f'saying “{expected}” after ]')
check(True, '] steps it forward again')

# The quiz keys still belong to the quiz: → goes to the next question.
app.key('Right')
app.wait_label(lambda t: t in shown_bank and t != question_text, 'with the next question')
check(True, '→ still moves to the next question, not the picture')
app.quit()
print('all picture checks passed')

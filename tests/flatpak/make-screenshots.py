#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Makes the metainfo's screenshots from the real window: run it inside
tests/e2e/run-in-session.sh (a 1280x800 Xvfb) with GML_APP and GML_BUILD_ROOT set.
Not a test; the metainfo-screenshots test checks what it leaves in data/screenshots.

    make-screenshots.py OUTPUT_DIR

quiz.png     English, question 2 answered wrong: the verdict, both options' feedback
             and the explanation.
quiz-tr.png  The same in Turkish.
render-oom.png, render-fragmentation.png
             Pictures from the render command (no window needed), on the simulated GPU.
snapshot.png English, the Snapshot view: a PyTorch memory snapshot made from the lab's
             own allocator on a small GPU (tests/snapshot/engine-trace, seed 2, as in
             the snapshot tests), moved to its first out-of-memory error, with the
             explainer beside it."""

import os
import subprocess
import sys
import tempfile
import time

from gmltest import App, BUILD, bank, check

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def window_fill_screen(app):
    """No window manager runs in Xvfb: place and size the window like a maximised one."""
    ids = subprocess.run(['xdotool', 'search', '--sync', '--onlyvisible', '--pid', str(app.proc.pid), '.*'],
                         capture_output=True, text=True, check=True).stdout.split()
    for wid in ids:
        subprocess.run(['xdotool', 'windowmove', '--sync', wid, '0', '0'], check=False)
        subprocess.run(['xdotool', 'windowsize', '--sync', wid, '1280', '800'], check=False)
    time.sleep(1.5)


for lang, name in (('en', 'quiz.png'), ('tr', 'quiz-tr.png')):
    questions = bank(lang)
    app = App(tempfile.mkdtemp(prefix='gml-shot-'), lang)
    q1, q2 = questions[0], questions[1]
    app.wait_label(lambda t: t == q1['text'], 'with question 1')
    window_fill_screen(app)
    # Question 1 right (the first option shown that is right), then question 2 wrong.
    on_screen = dict((text, letter) for letter, text in app.options())
    right1 = next(o for o in q1['options'] if o['correct'])
    app.key(on_screen[right1['text']])
    app.key('Return')
    app.wait_label(lambda t: t == q2['text'], 'with question 2')
    on_screen = dict((text, letter) for letter, text in app.options())
    wrong2 = next(o for o in q2['options'] if not o['correct'])
    app.key(on_screen[wrong2['text']])
    app.wait_label(lambda t: t == wrong2['feedback'] or t.endswith(wrong2['feedback']), 'with the feedback')
    time.sleep(1.0)
    path = os.path.join(out, name)
    subprocess.run(['import', '-window', 'root', path], check=True)
    # Store it without metadata that changes on every run, and compressed.
    subprocess.run(['convert', path, '-strip', '-define', 'png:compression-level=9', path], check=True)
    check(os.path.getsize(path) > 10000, f'{name} written')
    app.quit()


# The render command's pictures: the same Cairo code the window's pictures use.
for scenario, name in (('oom', 'render-oom.png'), ('fragmentation', 'render-fragmentation.png')):
    path = os.path.join(out, name)
    env = dict(os.environ, LANGUAGE='en', LC_ALL='en_US.UTF-8', GML_LIBCUDA='/nonexistent')
    subprocess.run([os.environ['GML_APP'], 'render', scenario, '--view=memory-map', '--point',
                    '--lang=en', '--width=1280', '--height=800', '--backend=sim', '-o', path],
                   env=env, check=True)
    subprocess.run(['convert', path, '-strip', '-define', 'png:compression-level=9', path], check=True)
    check(os.path.getsize(path) > 10000, f'{name} written')


# The Snapshot view with an out-of-memory error explained.
here = os.path.dirname(os.path.abspath(__file__))
work = tempfile.mkdtemp(prefix='gml-shot-snapshot-')
engine_json = os.path.join(work, 'engine.json')
with open(engine_json, 'w') as f:
    subprocess.run([os.path.join(BUILD, 'tests', 'snapshot', 'engine-trace'), '2', '500', str(48 << 20)],
                   stdout=f, check=True)
training = os.path.join(work, 'training-run.pickle')
subprocess.run([sys.executable, os.path.join(here, '..', 'snapshot', 'make_snapshots.py'), 'engine',
                engine_json, training, '--protocol', '4'], check=True)
app = App(tempfile.mkdtemp(prefix='gml-shot-'), 'en', args=[training],
          ready=lambda a: 'training-run.pickle' in a.label_texts())
window_fill_screen(app)
show = app.find('push button', equals='Show this entry in the pictures')
check(bool(show), 'the explainer has a Show button')
show[0][1].queryAction().doAction(0)
time.sleep(1.5)
path = os.path.join(out, 'snapshot.png')
subprocess.run(['import', '-window', 'root', path], check=True)
subprocess.run(['convert', path, '-strip', '-define', 'png:compression-level=9', path], check=True)
check(os.path.getsize(path) > 10000, 'snapshot.png written')
app.quit()

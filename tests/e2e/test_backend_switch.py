#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Switching the memory backend while the app runs, as the preferences do.

With the fake libcuda.so.1 the picture beside the question is live ("Fake GPU
9000 — live", the budget in its tooltip). Changing the "backend" setting to "sim"
must give the CUDA device back and run the picture on the simulator at once
("Simulated GPU", and why in the tooltip); changing it back to "cuda" makes it
live again. Settings go through a keyfile so `gsettings` can change
them from outside the running app.

    test_backend_switch.py FAKE_LIBCUDA"""

import os
import subprocess
import sys
import tempfile
import time

import gmltest
from gmltest import App, check

fake = sys.argv[1]
home = tempfile.mkdtemp(prefix='gml-backend-')
os.environ['GML_LIBCUDA'] = fake
os.environ['FAKE_CUDA_NAME'] = 'Fake GPU 9000'

real_env = gmltest.app_env


def keyfile_env(h, lang):
    env = real_env(h, lang)
    env['GSETTINGS_BACKEND'] = 'keyfile'
    return env


gmltest.app_env = keyfile_env


def gsettings(key, value):
    subprocess.run(['gsettings', 'set', 'io.github.gpumemorylab.GpuMemoryLab', key, value],
                   env=keyfile_env(home, 'en'), check=True)


app = App(home, 'en')
live = app.wait_label(lambda t: t == 'Fake GPU 9000 — live', 'saying the picture is live')
tip = app.label_description(live)
check('budget' in (tip or ''), f'with the fake driver the picture is live: “{live}” ({tip})')

gsettings('backend', "'sim'")
sim = app.wait_label(lambda t: t == 'Simulated GPU', 'saying the picture is simulated')
why = app.label_description(sim)
check(not any(t.startswith('Fake GPU 9000') for t in app.label_texts()) and 'preferences' in (why or ''),
      f'after choosing the simulator the picture runs on it: “{sim}” ({why})')

gsettings('backend', "'cuda'")
app.wait_label(lambda t: t.startswith('Fake GPU 9000 — live'), 'saying the picture is live again')
check(True, 'choosing CUDA again makes the picture live again')

# The Experiment view's live run (Ctrl+Shift+Enter): its default step, scaled into the
# lab's share of the fake GPU, must say what `experiment --live` says for the same knobs
# (the same default budget), and that the simulator at the same scale agrees.
tabs = app.find('page tab', equals='Experiment')
check(tabs, 'the view switcher offers the Experiment view')
tabs[0][1].queryAction().doAction(0)
app.wait_label(lambda t: t == 'Fits in 24 GiB', 'the default step having run', timeout=30)
default = '--model gpt2 --seq 1024 --batch 8 --precision fp32 --optimizer adamw --gpu-memory 24G'
verb = subprocess.run([gmltest.APP, 'experiment', *default.split(), '--live'], env=keyfile_env(home, 'en'),
                      capture_output=True, text=True)
check(verb.returncode == 0, f'experiment --live agrees with the simulator (exit {verb.returncode}, {verb.stderr})')
want = verb.stdout.strip().splitlines()[-1]
check(want.startswith('Ran on Fake GPU 9000 with every tensor divided by ') and
      'The simulator, at the same scale, gives the same figures' in want, f'the verb ran it live: {want}')
app.key('ctrl+shift+Return')
app.wait_label(lambda t: t == want, 'the live run saying what the verb says', timeout=30)
check(True, f'the window ran the step live on the fake GPU: {want}')
app.quit()

# A driver whose cuInit takes seconds (a real one can take hundreds of milliseconds):
# the window and the question do not wait for it; the picture's source says "…" until
# the device is known, then that it is live.
os.environ['FAKE_CUDA_INIT_DELAY_MS'] = '15000'
app = App(tempfile.mkdtemp(prefix='gml-backend-slow-'), 'en')
shown = app.label_texts()
check('…' in shown and 'Fake GPU 9000 — live' not in shown,
      f'the question shows before a slow cuInit returns, its picture’s source “…” ({shown})')
# About does not wait for the driver either: its debugging information says the device is
# still opening. (It used to join the opening thread, and the window froze until cuInit.)
started = time.time()
gmltest.app_action('about')
about = gmltest.x_window('^About$', timeout=5)
check(time.time() - started < 5 and 'Fake GPU 9000 — live' not in app.label_texts(),
      f'About opens while cuInit still runs ({time.time() - started:.1f} s)')
subprocess.run(['xdotool', 'windowfocus', '--sync', about, 'key', 'Escape'], check=False)
app.wait_label(lambda t: t == 'Fake GPU 9000 — live', 'saying the picture is live once cuInit returns',
               timeout=40)
check(True, 'once cuInit returns the picture is live')
app.quit()

# A GPU on which the live run takes seconds (every cuMemAlloc a tenth of one): the
# Experiment view says that it runs, and goes on answering meanwhile, then shows what
# the verb said. (Run on the main loop, the window froze and never said "Running".)
del os.environ['FAKE_CUDA_INIT_DELAY_MS']
os.environ['FAKE_CUDA_ALLOC_DELAY_MS'] = '100'
app = App(tempfile.mkdtemp(prefix='gml-backend-slow-alloc-'), 'en')
app.wait_label(lambda t: t == 'Fake GPU 9000 — live', 'saying the picture is live')
tabs = app.find('page tab', equals='Experiment')
tabs[0][1].queryAction().doAction(0)
app.wait_label(lambda t: t == 'Fits in 24 GiB', 'the default step having run', timeout=30)
app.key('ctrl+shift+Return')
app.wait_label(lambda t: t == 'Running the step on the GPU…', 'saying that the live run runs', timeout=10)
app.key('ctrl+b')
app.wait_label(lambda t: t.startswith('Largest batch that fits: '),
               'the largest batch found while the live run goes on', timeout=30)
check('Running the step on the GPU…' in app.label_texts(),
      'the window answers (Ctrl+B) while the step runs on the GPU')
app.wait_label(lambda t: t == want, 'the slow live run saying what the verb says', timeout=90)
check(True, f'the slow live run ended with the verb’s sentence: {want}')
app.quit()

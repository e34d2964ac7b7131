#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The seed's six questions, as the app shows them in Turkish without shuffling,
are the seed's text exactly: question, every option, the right answer, the
difficulty and the explanation. The one distractor per question whose second
sentence gave the answer away shows only its first sentence; the rest is its
feedback, so option text + " " + feedback is the seed's line.

    check-seed.py APP SEED_FILE"""

import json
import os
import re
import subprocess
import sys

app, seed_path = sys.argv[1:3]
env = dict(os.environ, LANGUAGE='tr')
shown = json.loads(subprocess.run([app, 'questions', '--json', '--no-shuffle', '--lang', 'tr'],
                                  env=env, check=True, capture_output=True, text=True).stdout)

text = open(seed_path, encoding='utf-8').read()
blocks = re.split(r'^Aipy Gpu Memory ManagementZorluk (\d)\n', text, flags=re.M)[1:]
seed = []
for difficulty, body in zip(blocks[0::2], blocks[1::2]):
    lines = body.rstrip('\n').split('\n')
    question = lines[0]
    options = [l for l in lines if l.startswith('- ')]
    explanation = next(l for l in lines if l.startswith('Açıklama:'))[len('Açıklama:'):]
    seed.append(dict(difficulty=int(difficulty), text=question, explanation=explanation,
                     options=[(o[2], o[3:].removesuffix('✓'), o.endswith('✓')) for o in options]))

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


expect(len(seed) == 6, f'the seed has six questions, found {len(seed)}')
for i, (s, q) in enumerate(zip(seed, shown)):
    where = f'question {i + 1} ({q["id"]})'
    expect(q['difficulty'] == s['difficulty'], f'{where}: difficulty')
    expect(q['text'] == s['text'], f'{where}: text\n  app:  {q["text"]}\n  seed: {s["text"]}')
    expect(q['explanation'] == s['explanation'],
           f'{where}: explanation\n  app:  {q["explanation"]}\n  seed: {s["explanation"]}')
    expect(len(q['options']) == 4 and len(s['options']) == 4, f'{where}: four options')
    split = 0
    for o, (letter, seed_text, seed_right) in zip(q['options'], s['options']):
        expect(o['letter'] == letter, f'{where}: letter {letter}')
        expect(o['correct'] == seed_right, f'{where}: option {letter} right/wrong as in the seed')
        if o['text'] == seed_text:
            continue
        if o['text'] + ' ' + o['feedback'] == seed_text and not o['correct']:
            split += 1
            continue
        failures.append(f'{where}: option {letter}\n  app:  {o["text"]}\n  seed: {seed_text}')
    expect(split == 1, f'{where}: exactly one distractor has its give-away sentence moved to '
                       f'its feedback (found {split})')

for f in failures:
    print('FAIL:', f)
print(f'{len(seed)} seed questions checked, {len(failures)} differences')
sys.exit(1 if failures else 0)

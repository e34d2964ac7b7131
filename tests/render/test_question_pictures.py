#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every question's picture, from the command line, in one language.

For each question of the bank: `render --question ID --describe` succeeds; its
description names every size the question's own text names ("3 MiB", "20.00 MiB",
"6 GB", "1000-byte"), whatever way it writes them; a question that names no size is
checked for the key figures its experiment reports (`render --question ID --json`).
The picture before the answer says something else than the one after it, and names no
size that only the right option names (the answer, given away); in Turkish no description
uses an English word the glossary translates (weights, gradients, activations). A few
questions are also drawn to PNG, SVG and PDF, and bad requests fail cleanly.

    test_question_pictures.py LANG
"""

import json
import os
import re
import subprocess
import sys
import tempfile

APP = os.environ['GML_APP']
lang = sys.argv[1]
env = dict(os.environ, LANGUAGE=lang, GML_LIBCUDA='/nonexistent/libcuda.so.1',
           HOME=tempfile.mkdtemp(), XDG_DATA_HOME=tempfile.mkdtemp())
failures = []

UNITS = {'B': 1, 'bytes': 1, 'byte': 1, 'KiB': 1024, 'MiB': 1024 ** 2, 'GiB': 1024 ** 3,
         'TiB': 1024 ** 4, 'kB': 1e3, 'KB': 1e3, 'MB': 1e6, 'GB': 1e9, 'TB': 1e12, 'bayt': 1}
SIZE = re.compile(r'(\d+(?:[.,]\d+)?)(?:\s|-)?(KiB|MiB|GiB|TiB|kB|KB|MB|GB|TB|bytes|byte|bayt|B)\b')


def sizes(text):
    """Every size written in @text, in bytes ("1,5 GiB" as Turkish writes it too)."""
    return [float(m.group(1).replace(',', '.')) * UNITS[m.group(2)] for m in SIZE.finditer(text)]


def names(description, wanted):
    return any(abs(have - wanted) <= max(0.006 * wanted, 1) for have in sizes(description))


def run(*args, check=True):
    result = subprocess.run([APP, *args, '--lang', lang], env=env, capture_output=True, text=True)
    if check and result.returncode != 0:
        failures.append(f'{" ".join(args)}: exit {result.returncode}: {result.stderr.strip()}')
    return result


def check(condition, message):
    if not condition:
        failures.append(message)
        print('FAIL:', message)
    return condition


bank = json.loads(run('questions', '--json', '--no-shuffle').stdout)
check(len(bank) >= 51, f'the bank has its questions ({len(bank)})')
n_sized = 0
for q in bank:
    after = run('render', '--question', q['id'], '--describe').stdout.strip()
    before = run('render', '--question', q['id'], '--describe', '--before').stdout.strip()
    info = json.loads(run('render', '--question', q['id'], '--json').stdout)
    check(after != '' and after != before, f'{q["id"]}: the picture after the answer says something new')
    check(after == info['description'], f'{q["id"]}: --json carries the same description')
    wanted = sizes(q['text'])
    config = q['experiment'].get('config') if q['experiment']['kind'] == 'lab' else None
    if config is not None:
        # A lab question quotes the lab's figures, formulas and other configurations
        # ("16 bytes per parameter", "Llama 2 7B"); tests/lab/test_questions.py checks
        # those against the verb. Its picture is the step at its peak (or where it ran
        # out): it must name the verb's allocated and reserved bytes at that moment.
        lab = json.loads(run('experiment', *config.split(), '--json').stdout)
        at_peak = {'allocated (the categories at the peak)': sum(lab['by_category'].values()),
                   'reserved_at_peak_bytes': lab['reserved_at_peak_bytes']}
        for key, value in at_peak.items():
            check(names(after, value), f'{q["id"]}: the description names the verb\'s {key}, {value}: {after}')
    elif wanted:
        n_sized += 1
        for w in wanted:
            check(names(after, w), f'{q["id"]}: the description names {w:.0f} bytes from the question: {after}')
    else:
        check(len(info['keys']) > 0, f'{q["id"]}: a question without sizes has key figures')
        for name, value in info['keys'].items():
            check(names(after, value), f'{q["id"]}: the description names its key {name} = {value}: {after}')
    check(info['focus_view'] in info['views'], f'{q["id"]}: it opens in a view it offers')
    # Before the answer: no figure that only the right option has.
    right = next(o for o in q['options'] if o['correct'])
    others = sizes(q['text']) + [x for o in q['options'] if not o['correct'] for x in sizes(o['text'])]
    # Widths of a value (4 bytes per fp32 value) are facts of the dtype, not answers.
    only_right = [x for x in sizes(right["text"]) if x > 16
                  and not any(abs(x - y) <= max(0.006 * x, 1) for y in others)]
    for x in only_right:
        check(not names(before, x), f'{q["id"]}: before the answer the picture names {x:.0f} bytes, '
                                    f'which only the right option has: {before}')
    if lang == 'tr':
        for text in (before, after):
            prose = re.sub(r'"[^"]*"|“[^”]*”|[\w.]*[_.(=/][\w.()=/\[\]:,-]*', ' ', text)
            word = re.search(r'\b(weights|gradients|activations)\b', prose)
            check(word is None, f'{q["id"]}: an English word in the Turkish picture: {word and word.group(0)}: {text}')
check(n_sized >= 12, f'questions that name sizes were checked ({n_sized})')

# Files, for slides.
out = tempfile.mkdtemp()
for qid, ext in (('oom-tried-segment-size', 'png'), ('rounding-small-tensor', 'svg'),
                 ('lab-7b-zero3', 'pdf'), ('fragmentation-new-segment', 'png')):
    path = os.path.join(out, f'{qid}.{ext}')
    run('render', '--question', qid, '--output', path)
    check(os.path.exists(path) and os.path.getsize(path) > 1000, f'{qid}: {ext} written')

# Bad requests: a clear message and exit status 2.
for args, what in ((('render', '--question', 'no-such-question', '--describe'), 'no-such-question'),
                   (('render', '--question', 'rounding-small-tensor', '--view', 'checkpointing',
                     '--describe'), 'checkpointing'),
                   (('render', 'oom', '--question', 'rounding-small-tensor', '--describe'), '--question'),
                   (('render', 'oom', '--before', '--describe'), '--before')):
    result = run(*args, check=False)
    check(result.returncode == 2 and what in result.stderr, f'{" ".join(args)}: refused ({result.stderr.strip()})')

if failures:
    print('\n'.join(failures), file=sys.stderr)
    sys.exit(1)
print(f'all {len(bank)} questions have their own picture in {lang}')

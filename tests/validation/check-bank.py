#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The built-in question bank, beyond what the loader checks:

- every question names at least one public source: an https:// address, an arXiv id
  (arXiv:1910.02054) or a file of PyTorch's repository (pytorch/pytorch/PATH), with a title;
- nothing in the bank, the README or any tracked file names a path outside the repository
  (the project's private notes), but for .ci/run, which sets up the CI machine;
- the right option does not give itself away: in the questions the lab wrote (not the
  user's six sample questions, whose text is theirs), it is the strictly longest option in
  at most a quarter of them, in English and in Turkish, and no question has absolute words
  ("always", "never", "only", …) in wrong options but not in the right one;
- the right option's place is spread over a–d in the lab's questions (no letter is the key
  of more than a third of them), since the Moodle export does not shuffle answers;
- a right option's feedback does not start with "Right"/"Doğru", since the page shows it
  after "The right answer (b): ";
- each difficulty has at least 12 questions, and each topic at least 3;
- a link to PyTorch's source is pinned: a release tag (v2.9.0) or a commit, never main,
  and never the bare pytorch/pytorch/PATH form (which the app opens on main);
- wherever a question counts the bytes of mixed precision, its stem names which of the two
  it counts: PyTorch's torch.autocast (fp32 weights, gradients and moments) or the ZeRO,
  DeepSpeed and Megatron-LM layout (16-bit weights and gradients, fp32 master copy); in
  the user's six questions, whose stem is theirs, the right option's feedback names both.

    check-bank.py SOURCE_ROOT"""

import json
import os
import re
import subprocess
import sys

srcdir = sys.argv[1]
sys.path.insert(0, os.path.join(srcdir, 'tests', 'validation'))
from potools import read_po  # noqa: E402

bank = json.load(open(os.path.join(srcdir, 'data', 'questions', 'gpu-memory.json'), encoding='utf-8'))
questions = bank['questions']
tr = {key[1]: value for key, value in read_po(os.path.join(srcdir, 'po', 'tr.po')).items()
      if value and not key[0]}
seed_text = open(os.path.join(srcdir, 'tests', 'data', 'seed', '000_5d32d8dbc65f2966.txt'),
                 encoding='utf-8').read()

failures = []


def fail(message):
    failures.append(message)


# -- sources -----------------------------------------------------------------------------
HTTPS = re.compile(r'^https://[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2,}(/[!#$%&\'()*+,\-./0-9:;=?@A-Z_a-z~]*)?$')
ARXIV = re.compile(r'^arXiv:(\d{4}\.\d{4,5}|[a-z-]+(\.[A-Z]{2})?/\d{7})(v\d+)?$')
PYTORCH = re.compile(r'^pytorch/pytorch/([A-Za-z0-9_.-]+/)*[A-Za-z0-9_.-]+$')


def url_ok(url):
    if PYTORCH.match(url):
        return all(part not in ('.', '..') for part in url.split('/'))
    return bool(HTTPS.match(url) or ARXIV.match(url))


PINNED = re.compile(r'^https://github\.com/pytorch/pytorch/blob/(v\d+\.\d+\.\d+|[0-9a-f]{40})/[^#?]+'
                    r'(#L\d+(-L\d+)?)?$')

for q in questions:
    if 'source' in q:
        fail(f'{q["id"]}: has the old free-text "source"; use "sources"')
    sources = q.get('sources') or []
    if not sources:
        fail(f'{q["id"]}: names no source')
    for s in sources:
        if not s.get('title', '').strip():
            fail(f'{q["id"]}: a source has no title')
        url = s.get('url', '')
        if not url_ok(url):
            fail(f'{q["id"]}: “{url}” is not an https address, an arXiv id or a pytorch/pytorch path')
        if PYTORCH.match(url) or ('github.com/pytorch/pytorch' in url and not PINNED.match(url)):
            fail(f'{q["id"]}: “{url}” is not pinned to a release tag or a commit of PyTorch')

# -- no path outside the repository --------------------------------------------------------
OUTSIDE = re.compile(r'\.\./shared|shared/(facts|seed|design|style|testing)|/work/|\bfacts/[\w-]+\.md|'
                     r'\b(design|style|testing)\.md\b')


def tracked_files():
    try:
        out = subprocess.run(['git', '-C', srcdir, 'ls-files', '-z'], capture_output=True, check=True).stdout
        return [f for f in out.decode().split('\0') if f]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for root, dirs, files in os.walk(srcdir):
            dirs[:] = [d for d in dirs if not d.startswith(('.', '_build'))]
            found += [os.path.relpath(os.path.join(root, f), srcdir) for f in files]
        return found


for path in tracked_files():
    # .ci/run is the CI machine's set-up, not the product: it alone may say where that
    # machine keeps the real snapshots the tests read (GML_SNAPSHOT_FIXTURES).
    if path.startswith('tests/validation/check-bank.py') or path.startswith('.ci/'):
        continue
    try:
        text = open(os.path.join(srcdir, path), encoding='utf-8').read()
    except (UnicodeDecodeError, OSError):
        continue
    for n, line in enumerate(text.split('\n'), 1):
        if OUTSIDE.search(line):
            fail(f'{path}:{n}: names a path outside the repository: {line.strip()[:100]}')

# -- give-aways ------------------------------------------------------------------------------
ABSOLUTE = {
    'en': re.compile(r'\b(always|never|only|any|anything|anywhere|all|every|everything|none|nothing|'
                     r'entirely|completely)\b', re.I),
    'tr': re.compile(r'(^|\W)(her zaman|her şey\w*|hiç\w*|asla|yalnızca|sadece|herhangi\w*|tüm\w*|'
                     r'bütün\w*|hepsi\w*|tamamen)(?=\W|$)', re.I),
}


def ours(q):
    """The lab's own questions: the user's six are the ones whose Turkish text is the seed's."""
    return tr.get(q['text'], '') not in seed_text


def text_in(q, s, lang):
    if lang == 'en':
        return s
    if s not in tr:
        fail(f'{q["id"]}: no Turkish for “{s[:60]}”')
    return tr.get(s, '')


own = [q for q in questions if ours(q)]
expect_own = len(questions) - 6
if len(own) != expect_own:
    fail(f'expected the user\'s six questions and {expect_own} of the lab\'s, found {len(own)} of the lab\'s')

for lang in ('en', 'tr'):
    longest = []
    for q in own:
        texts = [text_in(q, o['text'], lang) for o in q['options']]
        right = next(i for i, o in enumerate(q['options']) if o['correct'])
        if all(len(texts[right]) > len(t) for i, t in enumerate(texts) if i != right):
            longest.append(q['id'])
        absolute = [bool(ABSOLUTE[lang].search(t)) for t in texts]
        if any(a for i, a in enumerate(absolute) if i != right) and not absolute[right]:
            words = sorted({m.group(0).strip() for i, t in enumerate(texts) if i != right
                            for m in ABSOLUTE[lang].finditer(t)})
            fail(f'{q["id"]} ({lang}): absolute words only in wrong options: {", ".join(words)}')
    print(f'{lang}: the right option is the strictly longest in {len(longest)} of {len(own)} questions')
    if len(longest) * 4 > len(own):
        fail(f'{lang}: the right option is the strictly longest in {len(longest)} of {len(own)} '
             f'questions (at most a quarter allowed): {", ".join(longest)}')

places = [0, 0, 0, 0]
for q in own:
    places[next(i for i, o in enumerate(q['options']) if o['correct'])] += 1
print('the right option is ' + ', '.join(f'{"abcd"[i]} in {n}' for i, n in enumerate(places)) +
      f' of the lab\'s {len(own)} questions')
for i, n in enumerate(places):
    if n * 3 > len(own):
        fail(f'the right option is {"abcd"[i]} in {n} of the lab\'s {len(own)} questions '
             f'(at most a third allowed)')

for q in questions:
    right = next(o for o in q['options'] if o['correct'])
    for lang in ('en', 'tr'):
        feedback = text_in(q, right['feedback'], lang)
        if re.match(r'(Right|Correct|Doğru)\b', feedback):
            fail(f'{q["id"]} ({lang}): the right option\'s feedback starts with “{feedback.split()[0]}”, '
                 f'which repeats “The right answer (b):”')

# -- the two meanings of mixed precision -----------------------------------------------------
BYTES = re.compile(r'\d\s?(bytes?|B|KiB|MiB|GiB|GB)\b')
MIXED = re.compile(r'mixed[- ]precision|--precision (amp|autocast)-', re.I)
CONVENTION = re.compile(r'ZeRO|autocast')


def english_texts(q):
    yield q['text']
    yield q['explanation']
    yield q.get('experiment', {}).get('config', '')
    for o in q['options']:
        yield o['text']
        yield o['feedback']


for q in questions:
    texts = list(english_texts(q))
    if not (any(MIXED.search(t) for t in texts) and any(BYTES.search(t) for t in texts)):
        continue
    if ours(q):
        if not CONVENTION.search(q['text']):
            fail(f'{q["id"]}: counts the bytes of mixed precision without saying in its stem which '
                 f'it counts (torch.autocast or the ZeRO layout)')
    else:
        right = next(o for o in q['options'] if o['correct'])
        if not all(w in right['feedback'] for w in ('autocast', 'ZeRO')):
            fail(f'{q["id"]}: a seed question that counts mixed-precision bytes: its right option\'s '
                 f'feedback must name both conventions')

# -- topics ------------------------------------------------------------------------------------
topics = {}
for q in questions:
    topics.setdefault(q['topic'], []).append(q['id'])
for topic, ids in sorted(topics.items()):
    if len(ids) < 3:
        fail(f'topic “{topic}” has {len(ids)} questions; at least 3 are needed')
print(f'{len(topics)} topics, {min(len(v) for v in topics.values())} to '
      f'{max(len(v) for v in topics.values())} questions each')

# -- difficulty ------------------------------------------------------------------------------
for d in (1, 2, 3):
    n = sum(q['difficulty'] == d for q in questions)
    print(f'difficulty {d}: {n} questions')
    if n < 12:
        fail(f'difficulty {d} has {n} questions; at least 12 are needed')

for f in failures:
    print('FAIL:', f)
print(f'{len(questions)} questions checked, {len(failures)} problems')
sys.exit(1 if failures else 0)

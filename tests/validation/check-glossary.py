#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""po/tr.po follows po/glossary.md: no Turkish string uses a form the glossary rejects,
an English term the glossary keeps (keep:EN or keep:EN=TR) is kept wherever the English
has it, the only apostrophe is ', and prose numbers use the decimal comma.

The user's six sample questions (tests/data/seed/) are their text and are left alone, as
are matches that are also in the English original (code names, quoted PyTorch messages)
and the desktop file's search keywords (synonyms on purpose).

    check-glossary.py SOURCE_ROOT"""

import os
import re
import sys

srcdir = sys.argv[1]
sys.path.insert(0, os.path.join(srcdir, 'tests', 'validation'))
from potools import read_entries  # noqa: E402

glossary = open(os.path.join(srcdir, 'po', 'glossary.md'), encoding='utf-8').read()
seed = open(os.path.join(srcdir, 'tests', 'data', 'seed', '000_5d32d8dbc65f2966.txt'),
            encoding='utf-8').read()

# The table's rows: | English | Türkçe | rejected | note |, rejected forms in `code`.
rules = []
# keep:EN=TR — where the English has EN, the Turkish has TR (EN itself without =TR).
kept = []
for line in glossary.split('\n'):
    if not line.startswith('|') or line.startswith('| ---') or line.startswith('| English'):
        continue
    cells = [c.strip() for c in re.split(r'(?<!\\)\|', line)[1:-1]]
    if len(cells) != 4:
        continue
    for pattern in re.findall(r'`([^`]+)`', cells[2]):
        pattern = pattern.replace('\\|', '|')
        if pattern.startswith('keep:'):
            english, _, turkish = pattern[5:].partition('=')
            turkish = turkish or english
            kept.append((cells[0], english, turkish, re.compile(r'(?<!\w)(' + english + ')', re.I),
                         re.compile(r'(?<!\w)(' + turkish + ')', re.I)))
            continue
        english = pattern.startswith('en:')
        if english:
            pattern = pattern[3:] + r'\b'
        rules.append((cells[0], cells[1], re.compile(r'(?<!\w)(' + pattern + ')', re.I), english))
if len(rules) < 20:
    print(f'FAIL: po/glossary.md gives only {len(rules)} rejected forms; is its table intact?')
    sys.exit(1)

# Prose numbers with a decimal point before a unit, outside quotes.
DOT_NUMBER = re.compile(r'(?<![\w.:/])\d+\.\d+(?=\s*(GiB|MiB|KiB|TiB|GB|MB|TB|byte|B\b|kat\b))')
QUOTED = re.compile(r'"[^"]*"|“[^”]*”')
# Code in a Turkish string: a token with _ . ( = or a path, kept as written in Python.
# A list of code names in parentheses, such as a verb's choices (one of them hyphenated).
LISTED = re.compile(r'\([^()]*\b\w+-\w+\b[^()]*\)')
CODE = re.compile(r'[\w.]*[_.(=/][\w.()=/\[\]:,-]*')


def prose(s):
    """The string without quotes and code, for the English words Turkish translates."""
    s = LISTED.sub(' ', QUOTED.sub(' ', s))
    return CODE.sub(' ', s)


def user_text(s):
    """The user's own words: a string of the seed (their Turkish is kept verbatim). The bank
    names options as ({a}), the seed as (a)."""
    s = re.sub(r'\(\{([a-d])\}\)', r'(\1)', s)
    return len(s) > 20 and s in seed


failures = []
checked = 0
for e in read_entries(os.path.join(srcdir, 'po', 'tr.po')):
    if not e['id'] or e['fuzzy']:
        continue
    if re.fullmatch(r'[^ ]+;', e['id']):          # desktop search keywords
        continue
    for s in e['strs']:
        if not s or user_text(s):
            continue
        checked += 1
        where = e['id'][:70]
        for english, turkish, rule, is_english in rules:
            for m in rule.finditer(prose(s) if is_english else s):
                if not is_english and m.group(1).lower() in e['id'].lower():
                    continue
                failures.append(f'“{m.group(1)}” (glossary: {english} → {turkish}) in: {where}\n'
                                f'    {s[:160]}')
        for term, english, turkish, in_english, in_turkish in kept:
            if in_english.search(e['id']) and not in_turkish.search(s):
                failures.append(f'“{english}” is kept (glossary: {term}), but the Turkish lacks '
                                f'“{turkish}” in: {where}\n    {s[:160]}')
        if '’' in s:
            failures.append(f'the apostrophe ’ (use \') in: {where}')
        for m in DOT_NUMBER.finditer(QUOTED.sub('', s)):
            failures.append(f'“{m.group(0)}” (Turkish prose uses a decimal comma) in: {where}')

for f in failures:
    print('FAIL:', f)
print(f'{len(rules)} rejected forms, {len(kept)} kept terms, {checked} Turkish strings checked, {len(failures)} problems')
sys.exit(1 if failures else 0)

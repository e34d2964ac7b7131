#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""LANGUAGE alone chooses the language, even with no locale configured (LANG unset,
the C locale), as the README promises; without it the lab speaks English.

    check-language-env.py APP LOCALEDIR"""

import subprocess
import sys

app, localedir = sys.argv[1:3]


def first_line(extra):
    env = {'PATH': '/usr/bin:/bin', 'GML_LOCALEDIR': localedir, 'XDG_DATA_HOME': '/nonexistent'}
    env.update(extra)
    out = subprocess.run([app, 'questions', '--no-shuffle'], env=env, check=True,
                         capture_output=True, text=True, encoding='utf-8').stdout
    return out.splitlines()[0]


tr = first_line({'LANGUAGE': 'tr'})
en = first_line({})
failures = []
if 'Zorluk 1' not in tr:
    failures.append(f'LANGUAGE=tr in the C locale printed: {tr}')
if 'Difficulty 1' not in en:
    failures.append(f'no LANGUAGE in the C locale printed: {en}')
for f in failures:
    print('FAIL:', f)
print('ok' if not failures else '')
sys.exit(1 if failures else 0)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every translatable string — code, UI, desktop and metainfo files, settings
schema, and the question bank — has a Turkish translation in po/tr.po that is
neither empty nor fuzzy, and keeps the bank's {a}..{d} placeholders; and every
source file that marks strings for translation is in po/POTFILES.in (a file left
out has its strings in no catalogue: they stay English in the Turkish UI).

    check-translations.py SOURCE_ROOT"""

import os
import re
import subprocess
import sys
import tempfile

srcdir = sys.argv[1]
sys.path.insert(0, os.path.join(srcdir, 'po'))


def parse(path):
    """(context, msgid) -> dict(msgstr list, fuzzy) for a PO/POT file."""
    entries, cur, field, fuzzy = {}, None, None, False

    def flush():
        if cur and cur.get('msgid'):
            entries[(cur.get('msgctxt'), cur['msgid'])] = dict(
                msgstr=[v for k, v in sorted(cur.items()) if k.startswith('msgstr')], fuzzy=cur['fuzzy'])

    for line in open(path, encoding='utf-8'):
        line = line.rstrip('\n')
        if line.startswith('#~'):
            continue
        if line.startswith('#,'):
            fuzzy = 'fuzzy' in line
            continue
        if line.startswith('#'):
            continue
        m = re.match(r'(msgctxt|msgid_plural|msgid|msgstr(?:\[\d\])?) "(.*)"$', line)
        if m:
            key = m.group(1)
            if key == 'msgctxt' or (key == 'msgid' and (cur is None or 'msgid' in cur)):
                if cur is not None and 'msgid' in cur:
                    flush()
                if key == 'msgctxt' or cur is None or 'msgid' in cur:
                    cur = {'fuzzy': fuzzy}
                    fuzzy = False
            cur[key] = bytes(m.group(2), 'utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8')
            field = key
        elif line.startswith('"') and cur is not None:
            cur[field] += bytes(line[1:-1], 'utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8')
    flush()
    return entries


with tempfile.TemporaryDirectory() as tmp:
    pot = os.path.join(tmp, 'check.pot')
    subprocess.run([sys.executable, os.path.join(srcdir, 'po', 'make-pot.py'), srcdir, pot],
                   check=True, stdout=subprocess.DEVNULL)
    wanted = parse(pot)

failures = []

MARKED = re.compile(r'\b(?:N?C?_|ngettext|g_dngettext|g_dpgettext2)\s*\(\s*"|translatable="yes"')
listed = {line.strip() for line in open(os.path.join(srcdir, 'po', 'POTFILES.in'), encoding='utf-8')
          if line.strip() and not line.startswith('#')}
for top in ('src', 'ui'):
    for root, _dirs, names in os.walk(os.path.join(srcdir, top)):
        for name in names:
            if not name.endswith(('.c', '.h', '.ui')):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, srcdir)
            if rel not in listed and MARKED.search(open(path, encoding='utf-8').read()):
                failures.append(f'{rel} marks strings for translation but is not in po/POTFILES.in')

for lang in open(os.path.join(srcdir, 'po', 'LINGUAS')).read().split():
    po = os.path.join(srcdir, 'po', lang + '.po')
    have = parse(po)
    r = subprocess.run(['msgfmt', '--check', '-o', os.devnull, po], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f'{lang}: msgfmt --check failed:\n{r.stderr}')
    for key in wanted:
        ctx, msgid = key
        label = (ctx + ' | ' if ctx else '') + msgid[:70]
        entry = have.get(key)
        if entry is None:
            failures.append(f'{lang}: missing: {label}')
        elif entry['fuzzy']:
            failures.append(f'{lang}: fuzzy: {label}')
        elif not entry['msgstr'] or any(not s for s in entry['msgstr']):
            failures.append(f'{lang}: untranslated: {label}')
        else:
            want = sorted(re.findall(r'\{[a-z]\}', msgid))
            for s in entry['msgstr']:
                if sorted(re.findall(r'\{[a-z]\}', s)) != want:
                    failures.append(f'{lang}: placeholders {want} not kept: {label}')
    print(f'{lang}: {len(wanted)} strings checked')

for f in failures:
    print('FAIL:', f)
sys.exit(1 if failures else 0)

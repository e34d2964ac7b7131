# SPDX-License-Identifier: GPL-3.0-or-later
"""A small PO reader for the validation checks (no third-party modules)."""

import re


def _unquote(text):
    return bytes(text, 'utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8')


def read_entries(path):
    """Every entry that is not obsolete, as dicts with ctx, id, plural, strs (list),
    fuzzy and refs."""
    entries = []
    block = []

    def flush():
        entry = dict(ctx=None, id=None, plural=None, strs={}, fuzzy=False, refs=[])
        field = None
        for line in block:
            if line.startswith('#~'):
                return
            if line.startswith('#,'):
                entry['fuzzy'] = 'fuzzy' in line
                continue
            if line.startswith('#:'):
                entry['refs'] += line[2:].split()
                continue
            if line.startswith('#'):
                continue
            m = re.match(r'(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?) "(.*)"$', line)
            if m:
                key, index, value = m.group(1), m.group(2), _unquote(m.group(3))
                if key == 'msgctxt':
                    field = 'ctx'
                elif key == 'msgid':
                    field = 'id'
                elif key == 'msgid_plural':
                    field = 'plural'
                else:
                    field = ('strs', int(index or 0))
                if isinstance(field, tuple):
                    entry['strs'][field[1]] = value
                else:
                    entry[field] = value
            elif line.startswith('"') and field is not None:
                value = _unquote(line[1:-1])
                if isinstance(field, tuple):
                    entry['strs'][field[1]] += value
                else:
                    entry[field] += value
        if entry['id'] is not None:
            entry['strs'] = [entry['strs'][k] for k in sorted(entry['strs'])]
            entries.append(entry)

    for line in open(path, encoding='utf-8'):
        line = line.rstrip('\n')
        if not line.strip():
            if block:
                flush()
            block = []
        else:
            block.append(line)
    if block:
        flush()
    return entries


def read_po(path):
    """(context, msgid) -> the first msgstr ('' when untranslated or fuzzy)."""
    return {(e['ctx'], e['id']): ('' if e['fuzzy'] or not e['strs'] else e['strs'][0])
            for e in read_entries(path) if e['id']}

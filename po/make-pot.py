#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the gpu-memory-lab.pot: xgettext over POTFILES.in, plus every
translatable string of the question banks in data/questions/*.json, which
xgettext cannot read."""

import json
import os
import subprocess
import sys
import tempfile


def po_quote(text):
    text = text.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n').replace('\t', '\\t')
    return '"' + text + '"'


def bank_entries(srcdir):
    """(msgid, reference, comment) for each user-visible string of the banks."""
    qdir = os.path.join(srcdir, 'data', 'questions')
    for name in sorted(os.listdir(qdir)):
        if not name.endswith('.json'):
            continue
        rel = os.path.join('data', 'questions', name)
        with open(os.path.join(qdir, name), encoding='utf-8') as f:
            bank = json.load(f)
        for q in bank['questions']:
            qid = q['id']
            yield q['topic'], rel, 'Topic of a question'
            yield q['text'], rel, f'Question {qid}'
            for opt in q['options']:
                yield opt['text'], rel, f'Question {qid}, option {opt["id"]}'
                yield opt['feedback'], rel, f'Question {qid}, feedback on option {opt["id"]}'
            yield q['explanation'], rel, (f'Question {qid}, explanation. Keep the placeholders '
                                          '{a}..{d}: they become the letters shown on screen.')


def write_bank_pot(srcdir, path):
    seen = {}
    for msgid, ref, comment in bank_entries(srcdir):
        entry = seen.setdefault(msgid, ([], []))
        if ref not in entry[0]:
            entry[0].append(ref)
        if comment not in entry[1]:
            entry[1].append(comment)
    with open(path, 'w', encoding='utf-8') as f:
        f.write('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n')
        for msgid, (refs, comments) in seen.items():
            for c in comments:
                f.write(f'#. {c}\n')
            f.write('#: ' + ' '.join(refs) + '\n')
            f.write('msgid ' + po_quote(msgid) + '\nmsgstr ""\n\n')


def main():
    srcdir, output = sys.argv[1], sys.argv[2]
    package = 'gpu-memory-lab'
    with tempfile.TemporaryDirectory() as tmp:
        code_pot = os.path.join(tmp, 'code.pot')
        bank_pot = os.path.join(tmp, 'bank.pot')
        subprocess.run(['xgettext', '--package-name=' + package, '--from-code=UTF-8',
                        '--add-comments=Translators', '--keyword=_', '--keyword=N_',
                        '--keyword=C_:1c,2', '--keyword=NC_:1c,2', '--keyword=g_dngettext:2,3',
                        '--keyword=ngettext:1,2',
                        '--directory=' + srcdir, '--files-from=' + os.path.join(srcdir, 'po', 'POTFILES.in'),
                        '--output=' + code_pot], check=True)
        write_bank_pot(srcdir, bank_pot)
        subprocess.run(['msgcat', '--use-first', '--output-file=' + output, code_pot, bank_pot],
                       check=True)
    print('wrote', output)


if __name__ == '__main__':
    main()

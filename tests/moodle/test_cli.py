#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The export and import verbs of the real binary: export the bank as GIFT and Moodle
XML in both languages; import a teacher's GIFT, XML and Aiken files into a fresh data
folder, where `questions` then lists them as extra topics; a broken file is refused
with its line number and a non-zero exit, and nothing is saved.

    test_cli.py GPU_MEMORY_LAB"""

import json
import os
import re
import subprocess
import sys
import tempfile

app = sys.argv[1]
failures = []


def check(condition, message):
    print(('ok: ' if condition else 'FAIL: ') + message)
    if not condition:
        failures.append(message)


def run(args, home, lang='en'):
    env = dict(os.environ, HOME=home, XDG_DATA_HOME=os.path.join(home, 'data'),
               XDG_CONFIG_HOME=os.path.join(home, 'config'), LANGUAGE=lang,
               LC_ALL='tr_TR.UTF-8' if lang == 'tr' else 'en_US.UTF-8')
    return subprocess.run([app] + args, env=env, capture_output=True, text=True)


home = tempfile.mkdtemp(prefix='gml-moodle-cli-')
bank = json.loads(run(['questions', '--json', '--no-shuffle', '--lang', 'en'], home).stdout)

# Every built-in question lists its sources as the links a browser opens.
check(all(q['sources'] and all(s['title'] and s['url'].startswith('https://') for s in q['sources'])
          for q in bank), 'questions --json gives every question sources as {title, https url}')
links = [s['url'] for q in bank for s in q['sources']]
check(any(u.startswith('https://arxiv.org/abs/') for u in links) and
      any(u.startswith('https://github.com/pytorch/pytorch/blob/v2.9.0/') for u in links),
      'arXiv ids become arxiv.org links, and PyTorch\'s source is linked at a release')

for lang in ('en', 'tr'):
    shown = json.loads(run(['questions', '--json', '--no-shuffle', '--lang', lang], home).stdout)
    for fmt, ext in (('gift', 'gift'), ('moodle-xml', 'xml')):
        out = os.path.join(home, f'bank-{lang}.{ext}')
        r = run(['export', '--format', fmt, '--lang', lang, '--output', out], home)
        check(r.returncode == 0, f'export --format {fmt} --lang {lang} succeeds ({r.stderr.strip()})')
        text = open(out, encoding='utf-8').read()
        check(all(q['id'] in text for q in shown), f'the {fmt} export names every question')
        check(shown[0]['options'][1]['text'].split()[0] in text,
              f'the {fmt} export in {lang} has the question text as the app shows it')
        first_link = shown[0]['sources'][0]['url']
        if fmt == 'gift':
            check('[tag:difficulty-' in text and '$CATEGORY:' in text and '####' in text,
                  'GIFT carries difficulty tags, categories and general feedback')
            escaped = re.sub(r'([~=#{}:\\])', r'\\\1', first_link)
            check(escaped in text, 'the GIFT general feedback lists the sources (escaped as GIFT wants)')
        else:
            check('<question type="category">' in text and '<generalfeedback' in text,
                  'XML carries categories and general feedback')
            check(f'<a href="{first_link}">' in text, 'the XML general feedback links the sources')

r = run(['export', '--format', 'pdf', '--output', os.path.join(home, 'x')], home)
check(r.returncode == 2, 'an unknown format is a usage error (exit 2)')
r = run(['export', '--format', 'gift', '--lang', 'de', '--output', os.path.join(home, 'x')], home)
check(r.returncode == 2, 'an unknown language is a usage error (exit 2)')

gift = os.path.join(home, 'week4.gift')
with open(gift, 'w', encoding='utf-8') as f:
    f.write('$CATEGORY: $course$/top/Week 4\n\n'
            '// [id:w4-kv] [tag:difficulty-3] [tag:scenario-fragmentation]\n'
            '::w4-kv::What grows with every generated token?{\n'
            '=The KV cache #Right.\n~The weights #No.\n~The optimizer state #No.\n~The CUDA context #No.\n'
            '####Keys and values of past tokens are kept.\\n\\nSources\\:\\n'
            '- KV cache strategies\\: https\\://huggingface.co/docs/transformers/kv_cache\n}\n')
r = run(['import', gift], home)
check(r.returncode == 0, f'import of a GIFT file succeeds ({r.stderr.strip()})')
saved = os.path.join(home, 'data', 'gpu-memory-lab', 'questions', 'week4.json')
check(os.path.exists(saved), 'the imported bank is saved as JSON in the user question folder')

aiken = os.path.join(home, 'quick.txt')
with open(aiken, 'w', encoding='utf-8') as f:
    f.write('Which call returns cached blocks to the driver?\nA. torch.cuda.empty_cache()\n'
            'B. del x\nC. gc.collect()\nD. torch.cuda.synchronize()\nANSWER: A\n')
r = run(['import', aiken], home)
check(r.returncode == 0, f'import of an Aiken file succeeds ({r.stderr.strip()})')

listed = json.loads(run(['questions', '--json', '--no-shuffle', '--lang', 'en'], home).stdout)
topics = {q['topic'] for q in listed}
check(len(listed) == len(bank) + 2, 'the app now lists the built-in questions and the two imported ones')
check('Week 4' in topics and 'quick' in topics, 'the imported questions form extra topics')
kv = next(q for q in listed if q['id'] == 'w4-kv')
check(kv['difficulty'] == 3 and kv['scenario'] == 'fragmentation', 'tags became difficulty and scenario')
check(kv['sources'] == [{'title': 'KV cache strategies', 'url': 'https://huggingface.co/docs/transformers/kv_cache'}]
      and kv['explanation'] == 'Keys and values of past tokens are kept.',
      f'the sources block of the general feedback became sources: {kv["sources"]} / {kv["explanation"]}')

bad = os.path.join(home, 'broken.gift')
with open(bad, 'w', encoding='utf-8') as f:
    f.write('// fine so far\n\n::b1::Text{\n=a\n~b\n\n~c\n}\n')
r = run(['import', bad], home)
check(r.returncode == 1, 'a broken GIFT file exits with status 1')
check('broken.gift:3:' in r.stderr, f'the error names the file and line 3: {r.stderr.strip()}')
check(not os.path.exists(os.path.join(home, 'data', 'gpu-memory-lab', 'questions', 'broken.json')),
      'nothing is saved from a broken file')

r = run(['import', bad], home, 'tr')
check(r.returncode == 1 and 'broken.gift:3:' in r.stderr, f'in Turkish too: {r.stderr.strip()}')

clash = os.path.join(home, 'clash.xml')
with open(clash, 'w', encoding='utf-8') as f:
    f.write('<quiz>\n<question type="multichoice">\n<name><text>%s</text></name>\n'
            '<questiontext><text>T</text></questiontext>\n'
            '<answer fraction="100"><text>a</text></answer><answer fraction="0"><text>b</text></answer>'
            '<answer fraction="0"><text>c</text></answer><answer fraction="0"><text>d</text></answer>\n'
            '</question>\n</quiz>\n' % bank[0]['id'])
r = run(['import', clash], home)
check(r.returncode == 1 and bank[0]['id'] in r.stderr and 'clash.xml:2:' in r.stderr,
      f'a question whose id the built-in bank already has is refused: {r.stderr.strip()}')

r = run(['import'], home)
check(r.returncode == 2, 'import without a file is a usage error (exit 2)')

sys.exit(1 if failures else 0)

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The command line against hostile files: `replay` with bad traces and bad
options, `questions` with bad banks in the user's question folder.

Each must end with a message on stderr and a non-zero exit status (1 for bad
input, 2 for bad usage) — never a signal (crash, abort) and never a hang. Each
case runs in English, where the message is checked, and in Turkish, where it
must differ from the English one (it is translated).

Usage: test_hostile_cli.py GPU-MEMORY-LAB
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

EXE = sys.argv[1]
failures = []


def pending_msgids():
    """Fixed pieces of the msgids in po/pending/hardening.po: until that file is
    merged into tr.po, those messages are still English in Turkish runs."""
    root = os.environ.get('GML_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
    path = os.path.join(root, 'po', 'pending', 'hardening.po')
    pieces = []
    if os.path.exists(path):
        for line in open(path, encoding='utf-8'):
            if line.startswith('msgid "') and len(line) > 9:
                text = line[7:].rstrip().rstrip('"')
                parts = re.split(r'%(?:\d\$)?[a-z]', text)
                pieces.append(max(parts, key=len))
    return pieces


PENDING = pending_msgids()


def run(args, home, lang):
    env = {k: v for k, v in os.environ.items() if not k.startswith(('LC_', 'LANG'))}
    env.update(HOME=home, XDG_DATA_HOME=os.path.join(home, 'data'),
               XDG_CONFIG_HOME=os.path.join(home, 'config'),
               GSETTINGS_BACKEND='memory', GML_LIBCUDA='/nonexistent/libcuda.so.1')
    if lang == 'tr':
        env.update(LC_ALL='tr_TR.UTF-8', LANGUAGE='tr')
    else:
        env.update(LC_ALL='en_US.UTF-8', LANGUAGE='en')
    start = time.monotonic()
    proc = subprocess.run([EXE] + args, env=env, capture_output=True, timeout=60)
    return proc, time.monotonic() - start


def check(name, args, home, status, expected, max_seconds=10.0):
    english, seconds = run(args, home, 'en')
    turkish, _ = run(args, home, 'tr')
    err_en = english.stderr.decode('utf-8', 'replace')
    err_tr = turkish.stderr.decode('utf-8', 'replace')
    problems = []
    for lang, proc in (('en', english), ('tr', turkish)):
        if proc.returncode < 0:
            problems.append(f'{lang}: killed by {signal.Signals(-proc.returncode).name}')
        elif proc.returncode != status:
            problems.append(f'{lang}: exit status {proc.returncode}, expected {status}')
    if expected not in err_en:
        problems.append(f'“{expected}” not in the message')
    pending = ''
    if not err_tr.strip():
        problems.append('the Turkish message is missing')
    elif err_tr == err_en:
        if any(piece in err_en for piece in PENDING):
            pending = ' [Turkish pending in po/pending/hardening.po]'
        else:
            problems.append('the Turkish message is not translated')
    if seconds > max_seconds:
        problems.append(f'took {seconds:.1f} s')
    first_line = err_en.strip().splitlines()[-1] if err_en.strip() else ''
    if problems:
        failures.append(name)
        print(f'not ok - {name}: ' + '; '.join(problems))
        print('  en: ' + err_en.strip().replace('\n', '\n      '))
        print('  tr: ' + err_tr.strip().replace('\n', '\n      '))
    else:
        print(f'ok - {name} ({seconds:.2f} s): {first_line}{pending}')
        print(f'     tr: {err_tr.strip().splitlines()[-1]}')


def main():
    home = tempfile.mkdtemp(prefix='gml-hostile-cli-')
    try:
        run_cases(home)
    finally:
        shutil.rmtree(home)
    print(f'{len(failures)} of the cases failed' if failures else 'all cases passed')
    return 1 if failures else 0


def write(home, name, data):
    path = os.path.join(home, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data.encode('utf-8') if isinstance(data, str) else data)
    return path


def sparse(home, name, size):
    path = os.path.join(home, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.truncate(size)
    return path


def feed_fifo(path, head, block, n_blocks, n_readers):
    """Writes @head and @n_blocks times @block to each of @n_readers readers of a FIFO
    in turn, until the reader stops reading."""
    for _ in range(n_readers):
        try:
            with open(path, 'wb') as f:
                f.write(head)
                for _ in range(n_blocks):
                    f.write(block)
        except BrokenPipeError:
            pass


def peak_rss_kb(args, home):
    """Runs the lab (English); returns its exit status and the most memory it held,
    read from /proc while it runs (a child's own rusage would count this
    process's memory too, which the child had until it started the lab)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(('LC_', 'LANG'))}
    env.update(HOME=home, LC_ALL='en_US.UTF-8', LANGUAGE='en', GSETTINGS_BACKEND='memory',
               GML_LIBCUDA='/nonexistent/libcuda.so.1')
    proc = subprocess.Popen([EXE] + args, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        try:
            with open(f'/proc/{proc.pid}/status') as f:
                for line in f:
                    if line.startswith('VmHWM:'):
                        peak = max(peak, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.005)
    return proc.returncode, peak


def streaming(home):
    """A long trace is not held in memory: 50 MB of lines, under 32 MB at the most
    (reading the file whole took more than the file). The sanitizers' own memory
    makes the figure meaningless under ASan: it is only printed there."""
    name = 'replay streams a 50 MB trace'
    big = write(home, 'traces/fifty-mb.jsonl', '{"op":"empty_cache"}\n' * 2500000)
    status, peak = peak_rss_kb(['replay', big], home)
    os.unlink(big)
    judged = 'ASAN_OPTIONS' not in os.environ
    if status != 0 or (judged and not 0 < peak < 32 * 1024):
        failures.append(name)
        print(f'not ok - {name}: exit {status}, peak {peak} KB')
    else:
        print(f'ok - {name}: peak {peak} KB' + ('' if judged else ' (not judged under ASan)'))


def run_cases(home):
    two_gb = 2 << 30
    deep = '[' * 100000 + ']' * 100000

    # ---- replay ---------------------------------------------------------------
    def replay(name, data, status, expected, **kw):
        path = write(home, f'traces/{name}.jsonl', data)
        check(f'replay {name}', ['replay', path], home, status, expected, **kw)

    check('replay 2 GB file', ['replay', sparse(home, 'traces/huge.jsonl', two_gb)],
          home, 1, 'too big', max_seconds=2.0)
    replay('binary', bytes(range(256)) * 4, 1, 'NUL')
    replay('binary-without-nul', bytes(range(1, 256)) * 4, 1, 'UTF-8')
    replay('invalid-utf8', '{"op":"alloc","id":"caf\udce9","size":1}\n'.encode('utf-8', 'surrogateescape'),
           1, 'UTF-8')
    replay('deep-nesting', '{"op":"alloc","id":"x","size":1,"n":' + deep + '}\n', 1, 'nested')
    replay('size-minus-one', '{"op":"alloc","id":"x","size":-1}\n', 1, '“size” must be')
    replay('size-2^70', '{"op":"alloc","id":"x","size":1180591620717411303424}\n', 1, '“size” must be')
    replay('size-2^64+5', '{"op":"alloc","id":"x","size":18446744073709551621}\n', 1, '“size” must be')
    replay('size-fraction', '{"op":"alloc","id":"x","size":1.5}\n', 1, '“size” must be')
    replay('stream-2^32', '{"op":"alloc","id":"x","size":1,"stream":4294967296}\n', 1, '“stream” must be')
    replay('unknown-op', '{"op":"realloc","id":"x","size":1}\n', 1, 'unknown op')
    replay('duplicate-id', '{"op":"alloc","id":"x","size":1}\n{"op":"alloc","id":"x","size":2}\n',
           1, 'already allocated')
    replay('free-unknown-id', '{"op":"free","id":"ghost"}\n', 1, 'not allocated')
    replay('double-free', '{"op":"alloc","id":"x","size":1}\n{"op":"free","id":"x"}\n'
           '{"op":"free","id":"x"}\n', 1, 'not allocated')
    replay('empty', '', 1, 'empty')
    replay('blank-lines', '\n\n  \n', 1, 'empty')
    replay('not-an-object', '[1,2,3]\n', 1, 'one JSON object')
    replay('truncated-line', '{"op":"alloc","id":"x","si\n', 1, 'JSON')
    # The trace is read a piece at a time; one line is held whole, up to 1 MiB.
    head = '{"op":"alloc","id":"x","size":1,"label":"'
    at_limit = head + 'x' * ((1 << 20) - len(head) - 2) + '"}'
    replay('line-too-long', '{"op":"empty_cache"}\n' + at_limit[:-2] + 'x"}\n', 1,
           ':2: the line is longer than the limit')
    replay('line-too-long-unended', at_limit + 'x' * (3 << 20), 1, ':1: the line is longer than')
    # Still, the whole file is checked before a bad line is reported.
    replay('nul-after-bad-line', '{"op":"free","id":"ghost"}\n' + 'x' * (3 << 20) + '\0\n', 1, 'NUL')
    replay('invalid-utf8-after-2-mb', ('{"op":"empty_cache"}\n' * 100000 + '"caf\udce9"\n')
           .encode('utf-8', 'surrogateescape'), 1, 'UTF-8')
    check('replay /dev/zero', ['replay', '/dev/zero'], home, 1, 'bigger than the limit')
    # A bad line, then more than 256 MiB from a pipe: the size is what is reported.
    fifo = os.path.join(home, 'traces/endless.fifo')
    os.mkfifo(fifo)
    feeder = threading.Thread(target=feed_fifo, args=(fifo, b'{"op":"free","id":"ghost"}\n',
                                                       b' ' * (1 << 20), 260, 2), daemon=True)
    feeder.start()
    check('replay bad line, then 260 MiB from a pipe', ['replay', fifo], home, 1,
          'bigger than the limit')
    feeder.join(timeout=30)
    at_limit_path = write(home, 'traces/line-at-limit.jsonl', at_limit + '\r\n')
    proc, _ = run(['replay', at_limit_path], home, 'en')
    if proc.returncode != 0:
        failures.append('replay line of 1 MiB')
        print(f'not ok - replay line of 1 MiB: exit {proc.returncode}, {proc.stderr.decode()[:200]}')
    else:
        print('ok - replay line of 1 MiB')
    streaming(home)
    check('replay directory', ['replay', home], home, 1, 'Cannot read the trace')
    check('replay missing file', ['replay', os.path.join(home, 'nope.jsonl')], home, 1,
          'Cannot read the trace')

    good = write(home, 'traces/good.jsonl', '{"op":"alloc","id":"x","size":1}\n')
    check('replay --capacity -1', ['replay', '--capacity', '-1', good], home, 2, 'capacity')
    check('replay --capacity 2^70', ['replay', '--capacity', '1180591620717411303424', good],
          home, 2, 'capacity')
    check('replay --capacity 2^64-1', ['replay', '--capacity', '18446744073709551615', good],
          home, 2, 'capacity')
    # The biggest device and the biggest requests: the figures stay within gint64,
    # whatever the rounding (a regression: reserved bytes came out as -2^63).
    huge = write(home, 'traces/huge-sizes.jsonl',
                 '{"op":"alloc","id":"a","size":9223372036854775807}\n'
                 '{"op":"alloc","id":"b","size":4611686018427387905}\n'
                 '{"op":"free","id":"b"}\n{"op":"alloc","id":"c","size":4611686018427387904}\n')
    for conf in ('roundup_power2_divisions:4611686018427387904', 'max_split_size_mb:21'):
        name = f'replay huge sizes, --alloc-conf {conf}'
        proc, _ = run(['replay', '--capacity', '9223372036854775807', '--alloc-conf', conf, huge],
                      home, 'en')
        stats = json.loads(proc.stdout) if proc.returncode == 0 else {}
        negative = [k for k, v in stats.items() if isinstance(v, int) and v < 0]
        if proc.returncode != 0 or negative:
            failures.append(name)
            print(f'not ok - {name}: exit {proc.returncode}, negative: {negative}, '
                  f'{proc.stderr.decode()}')
        else:
            print(f'ok - {name}: reserved {stats["reserved_bytes.all.current"]}, '
                  f'{stats["num_ooms"]} out of memory')
    check('replay --alloc-conf garbage', ['replay', '--alloc-conf', 'max_split_size_mb:[[[', good],
          home, 2, 'alloc-conf')
    check('replay --alloc-conf 2^70', ['replay', '--alloc-conf',
                                       'roundup_power2_divisions:1180591620717411303424', good],
          home, 2, 'alloc-conf')
    check('replay --backend bogus', ['replay', '--backend', 'tpu', good], home, 2, 'tpu')

    # ---- questions: a user's own banks ---------------------------------------
    qdir = 'data/gpu-memory-lab/questions'

    def bank(name, data, expected, **kw):
        shutil.rmtree(os.path.join(home, qdir), ignore_errors=True)
        if isinstance(data, int):
            sparse(home, f'{qdir}/{name}.json', data)
        else:
            write(home, f'{qdir}/{name}.json', data)
        check(f'questions with {name}.json', ['questions'], home, 1, expected, **kw)

    question = ('{"id":"%s","topic":"T","difficulty":%s,"text":"Q","explanation":"E",'
                '"scenario":"oom","options":['
                '{"id":"a","text":"A","feedback":"f","correct":true},'
                '{"id":"b","text":"B","feedback":"f","correct":false},'
                '{"id":"c","text":"C","feedback":"f","correct":false},'
                '{"id":"d","text":"D","feedback":"f","correct":false}]}')
    bank('huge', two_gb, 'too big', max_seconds=3.0)
    bank('binary', b'\x7fELF\x02\x01\x01\0\0\0' * 50, 'UTF-8')
    bank('invalid-utf8', b'{"questions": ["caf\xe9"]}', 'UTF-8')
    bank('deep', '{"questions":' + deep + '}', 'nested')
    bank('empty', '', 'empty')
    bank('difficulty-minus-one', '{"questions":[%s]}' % (question % ('u1', '-1')), 'difficulty')
    bank('difficulty-2^70', '{"questions":[%s]}' % (question % ('u1', '1180591620717411303424')),
         'difficulty')
    bank('duplicate-ids', '{"questions":[%s,%s]}' % (question % ('u1', '1'), question % ('u1', '2')),
         'already has this id')
    bank('unknown-scenario', '{"questions":[%s]}' % (question % ('u1', '1')).replace('"oom"', '"tpu"'),
         'scenario')
    shutil.rmtree(os.path.join(home, qdir), ignore_errors=True)

    # ---- import: Moodle GIFT, XML, Aiken ---------------------------------------
    def imported(name, data, expected, **kw):
        if isinstance(data, int):
            path = sparse(home, f'import/{name}', data)
        else:
            path = write(home, f'import/{name}', data)
        check(f'import {name}', ['import', path], home, 1, expected, **kw)

    imported('huge.gift', two_gb, 'too big', max_seconds=2.0)
    imported('binary.xml', bytes(range(256)) * 4, '')
    imported('invalid-utf8.gift', b'::q:: caf\xe9 {=a ~b ~c ~d}', '')
    imported('empty.txt', '', '')
    imported('deep.xml', '<quiz>' + '<a>' * 100000 + '</a>' * 100000 + '</quiz>', '')
    imported('unclosed.xml', '<?xml version="1.0"?><quiz><question type="multichoice">', '')
    imported('aiken-no-answer.txt', 'Q?\nA. a\nB. b\nC. c\nD. d\n', 'Aiken')
    shutil.rmtree(os.path.join(home, 'import'), ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())

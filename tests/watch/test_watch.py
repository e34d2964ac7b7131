#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`gpu-memory-lab watch` on a fake torch (tests/watch/fake: only the calls the
probe may use, over a small allocator that fake_train.py drives).

  test_watch.py GPU_MEMORY_LAB PROBE_DIR

- Every update printed is a state the fake passed through, the counts grow,
  the out-of-memory comes with PyTorch's message and a snapshot file that
  `snapshot --json` reads back with the same numbers; the exit status is the
  program's.
- A program ending with status 3, a program killed mid-run, a program that
  never imports torch, and a "probe" sending garbage.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL:', what)


def env_for(probe_dir, tmp):
    env = dict(os.environ)
    env['GML_PYTHON_DIR'] = probe_dir
    env['PYTHONPATH'] = os.path.join(HERE, 'fake')
    env['XDG_RUNTIME_DIR'] = os.path.join(tmp, 'run')
    env['XDG_CACHE_HOME'] = os.path.join(tmp, 'cache')
    env['LANGUAGE'] = 'en'
    os.makedirs(env['XDG_RUNTIME_DIR'], mode=0o700, exist_ok=True)
    return env


def watch(exe, env, *program, timeout=120, extra=()):
    return subprocess.run([exe, 'watch', '--json', '--interval', '0.05', *extra, '--', *program],
                          capture_output=True, text=True, env=env, timeout=timeout)


def lines(out):
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_training(exe, probe_dir, tmp):
    env = env_for(probe_dir, tmp)
    states_path = os.path.join(tmp, 'states.json')
    snapdir = os.path.join(tmp, 'snapshots')
    run = watch(exe, env, sys.executable, os.path.join(HERE, 'fake_train.py'), states_path, 'oom',
                extra=('--snapshot-dir', snapdir))
    check(run.returncode == 1, f'training: exit status {run.returncode} (the program’s is 1): {run.stderr}')
    out = lines(run.stdout)
    with open(states_path) as f:
        states = json.load(f)
    known = {(s['allocated_bytes.all.current'], s['reserved_bytes.all.current'], s['active_bytes.all.current'],
              s['segment.all.current'], s['allocation.all.current']) for s in states}
    updates = [o for o in out if 'oom' in o and o['oom'] is None]
    ooms = [o for o in out if o.get('oom')]
    last = out[-1] if out else {}
    check(len(updates) >= 5, f'training: {len(updates)} updates')
    seen = set()
    previous = -1
    for u in updates:
        for key in ('time', 'device', 'allocated_bytes', 'reserved_bytes', 'active_bytes', 'segments',
                    'allocations', 'trace_entries', 'oom'):
            check(key in u, f'training: update lacks “{key}”: {u}')
        state = (u['allocated_bytes'], u['reserved_bytes'], u['active_bytes'], u['segments'], u['allocations'])
        check(state in known, f'training: {state} is no state the program was in')
        check(u['trace_entries'] >= previous, f'training: trace entries went back: {u}')
        previous = u['trace_entries']
        seen.add(state)
    check(len(seen) >= 3, f'training: only {len(seen)} different states seen')
    check(len(ooms) == 1, f'training: {len(ooms)} out-of-memory updates')
    if ooms:
        oom = ooms[0]['oom']
        check(oom['size'] == 96 << 30, f'training: oom size {oom["size"]}')
        check('Tried to allocate 96.00 GiB. GPU 0 has a total capacity of 80.00 GiB of which 79.00 GiB is free.'
              in oom['message'], f'training: oom message {oom["message"]}')
        check(oom['snapshot'] is not None and os.path.exists(oom['snapshot']) and
              oom['snapshot'].startswith(snapdir), f'training: snapshot file {oom["snapshot"]}')
        if oom['snapshot'] and os.path.exists(oom['snapshot']):
            read = subprocess.run([exe, 'snapshot', oom['snapshot'], '--json', '--gpu-memory', str(80 << 30)],
                                  capture_output=True, text=True, env=env)
            check(read.returncode == 0, f'training: snapshot --json failed: {read.stderr}')
            got = json.loads(read.stdout)
            final = states[-1]
            check(got['allocated_bytes'] == final['allocated_bytes.all.current'] and
                  got['reserved_bytes'] == final['reserved_bytes.all.current'] and
                  got['allocations'] == final['allocation.all.current'],
                  f'training: the snapshot says {got["allocated_bytes"]}, {got["allocations"]}')
            check(len(got['ooms']) == 1 and got['ooms'][0]['message'] == oom['message'],
                  'training: the snapshot’s oom message is the one watch printed')
    check(last.get('exit_status') == 1 and last.get('signal') is None, f'training: last line {last}')
    check('OutOfMemoryError' in run.stderr, 'training: the program’s own output reaches stderr')


def test_exit_status(exe, probe_dir, tmp):
    env = env_for(probe_dir, tmp)
    run = watch(exe, env, sys.executable, os.path.join(HERE, 'fake_train.py'), os.path.join(tmp, 's3.json'),
                'exit3')
    check(run.returncode == 3, f'exit 3: watch exited {run.returncode}')
    check(lines(run.stdout)[-1].get('exit_status') == 3, 'exit 3: last line')


def test_killed(exe, probe_dir, tmp):
    env = env_for(probe_dir, tmp)
    proc = subprocess.Popen([exe, 'watch', '--json', '--interval', '0.05', '--', sys.executable,
                             os.path.join(HERE, 'fake_train.py'), os.path.join(tmp, 'sk.json'), 'sleep'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    pid = None
    deadline = time.time() + 60
    # The program prints its pid on stderr (watch gives it our stderr for its stdout).
    while time.time() < deadline and pid is None:
        line = proc.stderr.readline()
        if line.strip().isdigit():
            pid = int(line.strip())
    check(pid is not None, 'killed: the program started')
    if pid is not None:
        time.sleep(0.5)
        os.kill(pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    check(proc.returncode == 128 + 9, f'killed: watch exited {proc.returncode}')
    got = lines(out)
    check(got and got[-1].get('signal') == 9 and got[-1].get('exit_status') == 137, f'killed: last line {got[-1:]}')
    check(any(u.get('oom', 1) is None for u in got), 'killed: updates came before the kill')


def test_no_torch(exe, probe_dir, tmp):
    env = env_for(probe_dir, tmp)
    run = watch(exe, env, sys.executable, os.path.join(HERE, 'fake_train.py'), os.path.join(tmp, 'sn.json'),
                'notorch')
    check(run.returncode == 0, f'no torch: exit {run.returncode}')
    check('no update came from the probe' in run.stderr, f'no torch: says so: {run.stderr}')
    check(lines(run.stdout) == [{'exit_status': 0, 'signal': None, 'updates': 0}], f'no torch: {run.stdout}')


GARBAGE = r'''
import os, socket, sys, json
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(os.environ['GML_PROBE_SOCKET'])
good = {"v": 1, "type": "update", "time": 0.5, "device": 0, "allocated_bytes": 1024,
        "reserved_bytes": 2097152, "active_bytes": 1024, "segments": 1, "allocations": 1,
        "trace_entries": 1, "entries": []}
for line in [b"not json", b"[1, 2, 3]", b'{"v": 2, "type": "update"}', b'{"v": 1}',
             b'{"v": 1, "type": "update", "allocated_bytes": "x"}', b'{"v": 1, "type": "martian"}',
             b"\xff\xfe", b"[" * 10000 + b"]" * 10000, json.dumps(good).encode()]:
    s.sendall(line + b"\n")
s.close()
'''


def test_garbage(exe, probe_dir, tmp):
    env = env_for(probe_dir, tmp)
    run = watch(exe, env, sys.executable, '-c', GARBAGE)
    check(run.returncode == 0, f'garbage: exit {run.returncode}: {run.stderr}')
    refused = [line for line in run.stderr.splitlines() if 'was refused' in line]
    check(len(refused) == 8, f'garbage: {len(refused)} refusals reported: {run.stderr}')
    got = lines(run.stdout)
    check(len(got) == 2 and got[0]['allocated_bytes'] == 1024, f'garbage: the good message got through: {got}')
    # A line too long is refused without holding it all.
    long = r'''
import os, socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(os.environ['GML_PROBE_SOCKET'])
try:
    s.sendall(b"x" * (64 << 20))
except OSError:
    pass
'''
    run = watch(exe, env, sys.executable, '-c', long)
    check(run.returncode == 0 and 'longer than any the probe sends' in run.stderr, f'garbage: long line: {run.stderr}')


def main():
    exe, probe_dir = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        test_training(exe, probe_dir, tmp)
        test_exit_status(exe, probe_dir, tmp)
        test_killed(exe, probe_dir, tmp)
        test_no_torch(exe, probe_dir, tmp)
        test_garbage(exe, probe_dir, tmp)
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()

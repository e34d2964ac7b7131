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
- `--text` prints lines; `watch` without a display prints text too.
- gml_probe.start() with no lab: the program goes on and waits on
  probe-PID.sock; `probe --list` shows it (and removes a dead program's
  socket); a lab that attaches gets updates and states that agree, and a
  pickle of torch.cuda.memory._snapshot() that `snapshot --json` reads back
  with the fake's numbers; when the lab goes, the probe waits again.
- The Flatpak's folder: once $XDG_RUNTIME_DIR/app/APP-ID exists (Flatpak makes it,
  shared between the sandbox and the host), a probe outside waits there too, a lab
  with FLATPAK_ID set lists it from there, and a probe connects to a Live view
  listening there.
"""

import base64
import json
import os
import signal
import socket
import stat
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
    # Run as the README runs it: the program finds its probe in the source tree by
    # itself, with no variable a user would not have.
    env.pop('GML_PYTHON_DIR', None)
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


def test_fraction(exe, probe_dir, tmp):
    """Under a per-process memory fraction PyTorch tells its observers the limit, not the
    GPU's total; the message's capacity is still the GPU's, from the probe's hello."""
    env = env_for(probe_dir, tmp)
    run = watch(exe, env, sys.executable, os.path.join(HERE, 'fake_train.py'),
                os.path.join(tmp, 'states-fraction.json'), 'oom-fraction', '0.02')
    ooms = [o['oom'] for o in lines(run.stdout) if o.get('oom')]
    check(len(ooms) == 1 and 'has a total capacity of 80.00 GiB of which' in ooms[0]['message'],
          f'fraction: the capacity is the GPU’s: {ooms}')


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


def test_text(exe, probe_dir, tmp):
    env = env_for(probe_dir, tmp)
    program = [sys.executable, os.path.join(HERE, 'fake_train.py'), os.path.join(tmp, 'st.json'), 'exit3', '0.05']
    run = subprocess.run([exe, 'watch', '--text', '--interval', '0.05', '--', *program], capture_output=True,
                         text=True, env=env, timeout=120)
    check(run.returncode == 3, f'text: exit {run.returncode}')
    check('live allocations' in run.stdout and 'exit status 3' in run.stdout, f'text: {run.stdout[-300:]}')
    # No display: the window cannot open, so the text comes, and says why.
    env.pop('DISPLAY', None)
    env.pop('WAYLAND_DISPLAY', None)
    run = subprocess.run([exe, 'watch', '--interval', '0.05', '--', *program], capture_output=True, text=True,
                         env=env, timeout=120)
    check(run.returncode == 3 and 'no display' in run.stderr and 'live allocations' in run.stdout,
          f'no display: {run.returncode} {run.stderr}')
    run = subprocess.run([exe, 'watch', '--json', '--text', '--', 'true'], capture_output=True, text=True, env=env)
    check(run.returncode == 2, 'text: --json with --text is a usage error')


WAITING = r'''
import sys, time
import torch, gml_probe
ok = gml_probe.start()
print('started' if ok else 'not started', flush=True)
live = [torch.cuda._fake_alloc(5 << 20)]
step = 0
while True:
    step += 1
    live.append(torch.cuda._fake_alloc((1 + step % 3) << 20))
    if len(live) > 3:
        torch.cuda._fake_free(live.pop(1))
    time.sleep(0.05)
'''


def read_lines(sock, deadline, want):
    """Lines from @sock until want(lines) or the deadline."""
    buf = b''
    lines = []
    sock.settimeout(1)
    while time.time() < deadline and not want(lines):
        try:
            chunk = sock.recv(1 << 20)
        except socket.timeout:
            continue
        if not chunk:
            break
        buf += chunk
        while b'\n' in buf:
            line, buf = buf.split(b'\n', 1)
            lines.append(json.loads(line))
    return lines


def test_waiting(exe, probe_dir, tmp):
    env = env_for(probe_dir, tmp)
    env['PYTHONPATH'] = probe_dir + ':' + env['PYTHONPATH']
    run_dir = os.path.join(env['XDG_RUNTIME_DIR'], 'gpu-memory-lab')
    os.makedirs(run_dir, mode=0o700, exist_ok=True)
    # A program killed long ago left its socket: nobody listens there.
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(os.path.join(run_dir, 'probe-999999.sock'))
    dead.close()
    proc = subprocess.Popen([sys.executable, '-c', WAITING, 'train.py', '--lr', '3e-4'], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        check(proc.stdout.readline().strip() == 'started', 'waiting: start() returns True with no lab listening')
        path = os.path.join(run_dir, 'probe-%d.sock' % proc.pid)
        deadline = time.time() + 20
        while time.time() < deadline and not os.path.exists(path):
            time.sleep(0.1)
        check(os.path.exists(path), 'waiting: the probe listens on probe-PID.sock')
        check(stat.S_IMODE(os.stat(path).st_mode) == 0o600 and stat.S_IMODE(os.stat(run_dir).st_mode) == 0o700,
              'waiting: the socket is 0600 in a 0700 directory')
        listed = json.loads(subprocess.run([exe, 'probe', '--list', '--json'], capture_output=True, text=True,
                                           env=env, check=True).stdout)
        mine = [w for w in listed if w['pid'] == proc.pid]
        stale = [w for w in listed if w['pid'] == 999999]
        check(len(mine) == 1 and not mine[0]['stale'] and mine[0]['command'] == '-c train.py --lr 3e-4' and
              mine[0]['device_name'] == 'Fake GPU' and not mine[0]['watched'], f'waiting: listed {listed}')
        check(len(stale) == 1 and stale[0]['stale'] and not os.path.exists(os.path.join(run_dir, 'probe-999999.sock')),
              'waiting: a dead program’s socket is listed as stale and removed')

        # Attach as the app does: hello, watch (with states), updates.
        lab = socket.socket(socket.AF_UNIX)
        lab.connect(path)
        hello = read_lines(lab, time.time() + 10, lambda l: len(l) >= 1)
        check(hello and hello[0]['type'] == 'hello' and hello[0]['pid'] == proc.pid, f'attach: hello {hello}')
        lab.sendall(b'{"v":1,"type":"watch","state":true,"oom_snapshot":false}\n')
        got = read_lines(lab, time.time() + 20,
                         lambda l: sum(1 for m in l if m['type'] == 'state') >= 3)
        updates = [m for m in got if m['type'] == 'update']
        states = [m for m in got if m['type'] == 'state']
        check(len(states) >= 3, f'attach: {len(states)} states')
        # Each state follows its update, taken in the same _snapshot() call.
        for m in states:
            before = [u for u in updates if u['trace_entries'] == m['trace_entries']]
            check(before, f'attach: a state without its update: {m["trace_entries"]}')
            total = sum(seg[1] for seg in m['segments'])
            check(total == 1 << 30 and all(sum(b[0] for b in seg[5]) == seg[1] for seg in m['segments']),
                  'attach: the state’s blocks tile its 1 GiB segment')
        check(updates and updates[0].get('gap') is True, 'attach: the first update says the trace starts there')

        # Save Snapshot…: a pickle over the socket, read back by `snapshot --json`.
        lab.sendall(b'{"v":1,"type":"dump","id":7}\n')
        got = read_lines(lab, time.time() + 20, lambda l: any(m['type'] in ('dump-end', 'dump-failed') for m in l))
        pieces = [m for m in got if m.get('id') == 7]
        begin = [m for m in pieces if m['type'] == 'dump-begin']
        data = b''.join(base64.b64decode(m['data']) for m in pieces if m['type'] == 'dump-data')
        check(begin and len(data) == begin[0]['bytes'] and pieces[-1]['type'] == 'dump-end',
              f'dump: {len(data)} bytes of {begin}')
        saved = os.path.join(tmp, 'saved.pickle')
        with open(saved, 'wb') as f:
            f.write(data)
        read = subprocess.run([exe, 'snapshot', saved, '--json'], capture_output=True, text=True, env=env)
        check(read.returncode == 0, f'dump: snapshot --json: {read.stderr}')
        if read.returncode == 0:
            snap = json.loads(read.stdout)
            check(snap['segments'] == 1 and snap['reserved_bytes'] == 1 << 30 and snap['allocations'] in (3, 4),
                  f'dump: the snapshot says {snap["allocations"]} allocations, {snap["reserved_bytes"]} reserved')

        # The lab goes: the probe waits again.
        lab.close()
        deadline = time.time() + 10
        again = False
        while time.time() < deadline and not again:
            time.sleep(0.3)
            listed = json.loads(subprocess.run([exe, 'probe', '--list', '--json'], capture_output=True, text=True,
                                               env=env).stdout or '[]')
            again = any(w['pid'] == proc.pid and not w['stale'] and not w['watched'] for w in listed)
        check(again, 'waiting: after the lab leaves, the probe waits again')
    finally:
        proc.kill()
        proc.wait()


def test_probe_verb(exe, probe_dir, tmp):
    env = env_for(probe_dir, tmp)
    path = subprocess.run([exe, 'probe', '--path'], capture_output=True, text=True, env=env)
    check(path.returncode == 0 and path.stdout.strip() == probe_dir, f'probe --path: {path.stdout}')
    module = subprocess.run([exe, 'probe'], capture_output=True, text=True, env=env)
    with open(os.path.join(probe_dir, 'gml_probe.py')) as f:
        check(module.returncode == 0 and module.stdout == f.read(), 'probe prints gml_probe.py')


def test_flatpak_folder(exe, probe_dir, tmp):
    env = env_for(probe_dir, os.path.join(tmp, 'flatpak'))
    env['PYTHONPATH'] = probe_dir + ':' + env['PYTHONPATH']
    shared = os.path.join(env['XDG_RUNTIME_DIR'], 'app', 'io.github.gpumemorylab.GpuMemoryLab')
    os.makedirs(shared, mode=0o700)
    native_dir = os.path.join(env['XDG_RUNTIME_DIR'], 'gpu-memory-lab')
    flatpak_dir = os.path.join(shared, 'gpu-memory-lab')
    sandboxed = dict(env, FLATPAK_ID='io.github.gpumemorylab.GpuMemoryLab')
    proc = subprocess.Popen([sys.executable, '-c', WAITING, 'train.py'], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        check(proc.stdout.readline().strip() == 'started', 'flatpak: start() returns True')
        paths = [os.path.join(d, 'probe-%d.sock' % proc.pid) for d in (native_dir, flatpak_dir)]
        deadline = time.time() + 20
        while time.time() < deadline and not all(os.path.exists(p) for p in paths):
            time.sleep(0.1)
        check(all(os.path.exists(p) for p in paths), 'flatpak: the probe waits in both folders')
        check(os.path.isdir(flatpak_dir) and stat.S_IMODE(os.stat(flatpak_dir).st_mode) == 0o700,
              'flatpak: the shared folder is 0700')
        for who, e in (('the lab', env), ('the Flatpak', sandboxed)):
            listed = json.loads(subprocess.run([exe, 'probe', '--list', '--json'], capture_output=True, text=True,
                                               env=e).stdout or '[]')
            check([w['pid'] for w in listed if not w['stale']] == [proc.pid], f'flatpak: {who} lists {listed}')
    finally:
        proc.kill()
        proc.wait()

    # The Flatpak starts while a probe waits: the probe waits in its folder too, soon.
    later = os.path.join(tmp, 'flatpak-later')
    env_later = env_for(probe_dir, later)
    env_later['PYTHONPATH'] = env['PYTHONPATH']
    proc = subprocess.Popen([sys.executable, '-c', WAITING, 'train.py'], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env_later)
    try:
        check(proc.stdout.readline().strip() == 'started', 'flatpak later: start() returns True')
        shared_later = os.path.join(env_later['XDG_RUNTIME_DIR'], 'app', 'io.github.gpumemorylab.GpuMemoryLab')
        path = os.path.join(shared_later, 'gpu-memory-lab', 'probe-%d.sock' % proc.pid)
        time.sleep(1)
        check(not os.path.exists(path), 'flatpak later: no socket in a folder Flatpak has not made')
        os.makedirs(shared_later, mode=0o700)
        deadline = time.time() + 15
        while time.time() < deadline and not os.path.exists(path):
            time.sleep(0.2)
        check(os.path.exists(path), 'flatpak later: the waiting probe listens in the Flatpak’s folder once it exists')
    finally:
        proc.kill()
        proc.wait()

    # A Live view open in the Flatpak: the probe connects to it, not to a lab outside.
    view = socket.socket(socket.AF_UNIX)
    view.bind(os.path.join(flatpak_dir, 'probe.sock'))
    view.listen(1)
    view.settimeout(20)
    proc = subprocess.Popen([sys.executable, '-c', WAITING, 'train.py'], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        try:
            conn, _ = view.accept()
            hello = read_lines(conn, time.time() + 10, lambda l: len(l) >= 1)
            conn.close()
        except socket.timeout:
            hello = []
        check(hello and hello[0]['type'] == 'hello' and hello[0]['pid'] == proc.pid,
              f'flatpak: the probe connects to the Live view in the shared folder: {hello}')
    finally:
        view.close()
        proc.kill()
        proc.wait()


def main():
    exe, probe_dir = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        test_training(exe, probe_dir, tmp)
        test_exit_status(exe, probe_dir, tmp)
        test_fraction(exe, probe_dir, tmp)
        test_killed(exe, probe_dir, tmp)
        test_no_torch(exe, probe_dir, tmp)
        test_garbage(exe, probe_dir, tmp)
        test_text(exe, probe_dir, tmp)
        test_waiting(exe, probe_dir, tmp)
        test_flatpak_folder(exe, probe_dir, tmp)
        test_probe_verb(exe, probe_dir, tmp)
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A sandbox without NVIDIA has no libcuda.so.1: the app must still run, on its
simulated GPU, and say why.  Runs `gpu-memory-lab replay --backend auto` as a Flatpak
without the driver extension would, and, for contrast, with the fake driver, where
the same command must not fall back.

    check-sim-fallback.py APP LOCALEDIR [FAKE_LIBCUDA]"""

import ctypes
import json
import os
import subprocess
import sys
import tempfile

app, localedir = sys.argv[1:3]
fake = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
failures = []


def check(condition, message):
    print(('ok: ' if condition else 'FAIL: ') + message)
    if not condition:
        failures.append(message)


tmp = tempfile.mkdtemp(prefix='gml-sim-fallback-')
trace = os.path.join(tmp, 'trace.jsonl')
with open(trace, 'w', encoding='utf-8') as f:
    f.write('{"op":"alloc","id":"x1","size":3000000,"stream":0}\n'
            '{"op":"alloc","id":"x2","size":1000,"stream":0}\n'
            '{"op":"free","id":"x1"}\n')


def replay(lang, libcuda, backend='auto'):
    env = dict(os.environ)
    env.update({
        'HOME': tmp, 'XDG_DATA_HOME': os.path.join(tmp, 'data'),
        'XDG_CONFIG_HOME': os.path.join(tmp, 'config'), 'GSETTINGS_BACKEND': 'memory',
        'GML_LOCALEDIR': localedir, 'LANGUAGE': lang,
        'LC_ALL': 'tr_TR.UTF-8' if lang == 'tr' else 'en_US.UTF-8',
    })
    if libcuda is None:
        env.pop('GML_LIBCUDA', None)
    else:
        env['GML_LIBCUDA'] = libcuda
    r = subprocess.run([app, 'replay', trace, '--backend', backend],
                       env=env, capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def stats_ok(out, what):
    try:
        stats = json.loads(out)
    except ValueError:
        check(False, f'{what}: stdout is the stats JSON (got {out[:200]!r})')
        return
    check(stats.get('allocated_bytes.all.peak', 0) >= 3001000
          and stats.get('allocated_bytes.all.current') == 1024
          and stats.get('num_device_alloc', 0) >= 1,
          f'{what}: the trace ran through the allocator ({ {k: stats.get(k) for k in ("allocated_bytes.all.peak", "allocated_bytes.all.current", "num_device_alloc")} })')


# 1. The driver library is missing: the simulator runs and the reason is given.
rc, out, err = replay('en', '/nonexistent/libcuda.so.1')
check(rc == 0, f'without libcuda.so.1, replay --backend auto succeeds (exit {rc}; stderr {err.strip()!r})')
check('Using the simulated GPU' in err, 'it says it uses the simulated GPU')
check('No NVIDIA driver found' in err and '/nonexistent/libcuda.so.1' in err,
      f'it says why: no NVIDIA driver, and which library it tried ({err.strip()!r})')
stats_ok(out, 'without libcuda.so.1')

rc, out, err = replay('tr', '/nonexistent/libcuda.so.1')
check(rc == 0 and 'Benzetilmiş GPU kullanılıyor' in err and 'NVIDIA sürücüsü bulunamadı' in err,
      f'the same in Turkish ({err.strip()!r})')

# 2. As in the sandbox: no override, and the dynamic loader finds no libcuda.so.1.
try:
    ctypes.CDLL('libcuda.so.1')
    print('skip: this machine has a libcuda.so.1, so the plain dlopen case cannot be tried here')
except OSError:
    rc, out, err = replay('en', None)
    check(rc == 0 and 'Using the simulated GPU' in err and 'libcuda.so.1' in err,
          f'with no GML_LIBCUDA and no driver on the library path, the simulator runs ({err.strip()!r})')
    stats_ok(out, 'with no driver on the library path')

# 3. Contrast: the messages above come from the fallback, not from every run.
rc, out, err = replay('en', '/nonexistent/libcuda.so.1', backend='sim')
check(rc == 0 and 'simulated GPU' not in err, 'choosing the simulator outright prints no fallback notice')
if fake:
    rc, out, err = replay('en', fake)
    check(rc == 0 and 'simulated GPU' not in err,
          f'with a (fake) driver present, auto uses CUDA and does not fall back ({err.strip()!r})')
    stats_ok(out, 'with the fake driver')
else:
    print('skip: no fake libcuda in this build (the CUDA backend is disabled)')

if failures:
    print(f'{len(failures)} check(s) failed', file=sys.stderr)
    sys.exit(1)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`experiment --live` of the real binary against the fake libcuda.so.1: the step for
an 80 GiB GPU scaled into a 1 GiB budget (1/128), its segments real cuMemAlloc calls
of the fake driver; the simulator at the same scale and the driver's own count must
agree with the engine. A driver that refuses memory makes them disagree (exit 3); no
driver, a budget too small and a bad --budget are refused with a clear message.

    test_live_cli.py GPU_MEMORY_LAB FAKE_LIBCUDA"""

import json
import os
import subprocess
import sys
import tempfile

app, fake = sys.argv[1], sys.argv[2]
failures = []
home = tempfile.mkdtemp(prefix='gml-lab-live-')


def check(condition, message):
    print(('ok: ' if condition else 'FAIL: ') + message)
    if not condition:
        failures.append(message)


def run(args, lang='en', **extra):
    env = dict(os.environ, HOME=home, XDG_DATA_HOME=os.path.join(home, 'data'),
               XDG_CONFIG_HOME=os.path.join(home, 'config'), LANGUAGE=lang,
               LC_ALL='tr_TR.UTF-8' if lang == 'tr' else 'en_US.UTF-8',
               GML_LIBCUDA=fake, FAKE_CUDA_NAME='Fake GPU 9000')
    env.update(extra)
    return subprocess.run([app, 'experiment'] + args, env=env, capture_output=True, text=True)


knobs = ['--model', 'gpt2', '--gpu-memory', '80G', '--batch', '8']
full = json.loads(run(knobs + ['--json']).stdout)
r = run(knobs + ['--live', '--budget', '1G', '--json'])
check(r.returncode == 0, f'experiment --live succeeds ({r.stderr.strip()})')
d = json.loads(r.stdout) if r.returncode == 0 else {'live': {}}
live = d['live']
check(live.get('device') == 'Fake GPU 9000' and live.get('scale') == 128 and
      live.get('gpu_share_bytes') == 640 * 2**20,
      f'80 GiB into a 1 GiB budget: every tensor / 128, a 640 MiB share ({live.get("scale")}, '
      f'{live.get("gpu_share_bytes")})')
check(live.get('agrees') is True and live['fits'] and
      live['peak_allocated_bytes'] == live['simulated']['peak_allocated_bytes'] and
      live['peak_reserved_bytes'] == live['simulated']['peak_reserved_bytes'],
      'the live run and the simulator at the same scale give the same peaks')
check(live.get('driver_peak_bytes') == live.get('peak_reserved_bytes'),
      f'the driver gave at most what the engine reserved: {live.get("driver_peak_bytes")}')
# Scaled back up, the live peak is near the full-size step's (rounding weighs more
# at 1/128, so near, not equal; the full-size figures are the simulator's).
scaled = live.get('peak_allocated_bytes', 0) * 128
check(abs(scaled - full['peak_allocated_bytes']) < 0.05 * full['peak_allocated_bytes'],
      f'× 128 the live peak {scaled} is within 5 % of the full-size {full["peak_allocated_bytes"]}')

r = run(knobs + ['--live', '--budget', '1G'])
last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ''
check(r.returncode == 0 and last.startswith('Ran on Fake GPU 9000 with every tensor divided by 128, in 640 MiB') and
      'gives the same figures' in last, f'the text says it: {last}')
r = run(knobs + ['--live', '--budget', '1G'], lang='tr')
last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ''
check(r.returncode == 0 and 'her tensor 128 kat küçültülerek' in last and 'aynı rakamları' in last,
      f'in Turkish too: {last}')

# A driver that refuses after two allocations: the live step runs out of memory where
# the simulator does not, and the verb says they differ (exit 3).
r = run(knobs + ['--live', '--budget', '1G'], FAKE_CUDA_ALLOC_FAIL_AFTER='2')
last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ''
check(r.returncode == 3 and 'CUDA out of memory' in last and 'differs' in last,
      f'a refusing driver: exit {r.returncode}, {last[:160]}')

# Refused: no driver, a budget too small for even 1/1024, a budget that is no size.
r = run(knobs + ['--live'], GML_LIBCUDA=os.path.join(home, 'no-such-libcuda.so.1'))
check(r.returncode == 1 and r.stdout == '' and 'No NVIDIA driver found' in r.stderr,
      f'no driver: exit {r.returncode}, {r.stderr.strip()}')
r = run(knobs + ['--live', '--budget', '1M'])
check(r.returncode == 1 and 'too little free memory' in r.stderr, f'a 1 MiB budget: {r.stderr.strip()}')
r = run(knobs + ['--live', '--alloc-conf', 'expandable_segments:True'])
check(r.returncode == 1 and 'expandable' in r.stderr, f'expandable segments, not yet live: {r.stderr.strip()}')
r = run(knobs + ['--live', '--budget', 'lots'])
check(r.returncode == 2 and '--budget' in r.stderr, f'a bad --budget: {r.stderr.strip()}')

print(f'{len(failures)} failed')
sys.exit(1 if failures else 0)

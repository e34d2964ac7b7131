# SPDX-License-Identifier: GPL-3.0-or-later
"""A "training" on the fake torch, for the tests of `gpu-memory-lab watch`.

  fake_train.py STATES.json MODE [SECONDS_PER_STEP]

MODE: oom (ends in an out-of-memory error, exit status 1), oom-fraction (the same
under torch.cuda.set_per_process_memory_fraction(0.5)), exit3 (ends with
status 3), sleep (prints its pid and sleeps, to be killed), notorch (never
imports torch). Every state the fake allocator passes through is written to
STATES.json (its figures and its segments), so the test can tell each update
the lab printed, or each picture the window drew, is one of them.
"""

import json
import os
import sys
import time

states_path, mode = sys.argv[1], sys.argv[2]
pause = float(sys.argv[3]) if len(sys.argv) > 3 else 0.15

if mode == 'notorch':
    print('no torch here')
    sys.exit(0)

import torch  # noqa: E402  (the probe starts here)

MiB = 1 << 20
states = []


def record():
    state = torch.cuda._fake_stats()
    # The allocator's segments at that moment, for the tests that draw them.
    state['segments'] = torch.cuda.memory._snapshot()['segments']
    states.append(state)
    with open(states_path, 'w') as f:
        json.dump(states, f)


record()
if mode == 'sleep':
    print(os.getpid(), flush=True)
    time.sleep(600)

live = []
for step in range(6):
    # Forward: activations pile up; backward: they go.
    for layer in range(3):
        live.append(torch.cuda._fake_alloc((step + 1) * 3 * MiB + layer * 1000))
        record()
        time.sleep(pause / 3)
    for addr in reversed(live[1:]):
        torch.cuda._fake_free(addr)
    del live[1:]
    record()
    time.sleep(pause)

if mode == 'exit3':
    sys.exit(3)
if mode == 'oom-fraction':
    torch.cuda.set_per_process_memory_fraction(0.5)
torch.cuda._fake_oom(96 * 1024 * MiB)

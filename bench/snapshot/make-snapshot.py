#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a synthetic PyTorch memory snapshot with Python's own pickle module,
shaped like what torch.cuda.memory._dump_snapshot() writes (PyTorch 2.10
layout): a training loop whose activations are allocated in forward and freed
in reverse in backward, temporaries freed at once, shared stack frames, the
trace as a ring buffer (it starts mid-run) and the segments at the end.

  make-snapshot.py OUTPUT ENTRIES [--protocol N] [--seed N]

The trace and the segments agree: each step's activations stack up from the
bottom of a large segment and are freed in reverse, the way the caching
allocator splits and merges one free block.
"""

import argparse
import pickle
import random

MiB = 1 << 20
SEGMENT = 2048 * MiB
BASE = 0x7f0000000000


def round512(n):
    return max(512, (n + 511) // 512 * 512)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('output')
    ap.add_argument('entries', type=int)
    ap.add_argument('--protocol', type=int, default=4)
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    files = ['/home/user/project/model.py', '/home/user/project/train.py',
             '/usr/lib/python3/site-packages/torch/nn/modules/module.py',
             '/usr/lib/python3/site-packages/torch/_tensor.py', '??']
    frames = [{'filename': rng.choice(files), 'line': rng.randint(1, 900),
               'name': rng.choice(['forward', 'backward', '_call_impl', 'step', '<module>',
                                   'linear', 'attention', 'mlp', 'zero_grad'])}
              for _ in range(400)]
    stacks = [[frames[rng.randrange(len(frames))] for _ in range(rng.randint(2, 16))]
              for _ in range(1500)]

    def entry(action, addr, size, time_us, stack):
        # As PyTorch builds them: a new dict, a new "N/A" string and a new
        # list of (shared) frame dicts for every entry.
        return {'action': action, 'addr': addr, 'size': size, 'stream': 0, 'time_us': time_us,
                'compile_context': ''.join(('N/', 'A')), 'user_metadata': '',
                'frames': list(stack)}

    n_segments = 4
    segs = [BASE + i * SEGMENT * 2 for i in range(n_segments)]
    stream = 0
    t = 1776479641085368
    # Weights stay allocated at the bottom of segment 0.
    weights = [(segs[0] + i * 64 * MiB, 64 * MiB - 1000, stacks[i]) for i in range(8)]
    live_bottom = [segs[0] + 8 * 64 * MiB] + segs[1:]
    trace = []
    layer_sizes = [round512(rng.randint(1 * MiB, 24 * MiB)) for _ in range(48)]

    while len(trace) < args.entries + 1000:
        seg = rng.randrange(n_segments)
        top = live_bottom[seg]
        acts = []
        for size in layer_sizes:
            req = size - rng.randint(0, 511)
            st = stacks[rng.randrange(len(stacks))]
            trace.append(entry('alloc', top, req, t, st))
            acts.append((top, req, st))
            top += size
            t += rng.randint(5, 40)
            # A temporary, freed at once.
            tmp = round512(rng.randint(512, 2 * MiB))
            st2 = stacks[rng.randrange(len(stacks))]
            for action in ('alloc', 'free_requested', 'free_completed'):
                trace.append(entry(action, top, tmp - 100, t, st2))
                t += rng.randint(1, 9)
        for addr, req, st in reversed(acts):
            for action in ('free_requested', 'free_completed'):
                trace.append(entry(action, addr, req, t, st))
                t += rng.randint(1, 9)

    # The ring buffer kept the last ENTRIES entries; the state at the end has
    # only the weights allocated.
    trace = trace[-args.entries:]
    segments = []
    for i, base in enumerate(segs):
        blocks = []
        cursor = base
        if i == 0:
            for addr, req, st in weights:
                blocks.append({'address': addr, 'size': 64 * MiB, 'requested_size': req,
                               'state': 'active_allocated', 'frames': st})
                cursor += 64 * MiB
        blocks.append({'address': cursor, 'size': base + SEGMENT - cursor, 'requested_size': 0,
                       'state': 'inactive', 'frames': []})
        allocated = sum(b['size'] for b in blocks if b['state'] == 'active_allocated')
        segments.append({'device': 0, 'address': base, 'total_size': SEGMENT,
                         'allocated_size': allocated, 'active_size': allocated,
                         'requested_size': sum(b['requested_size'] for b in blocks
                                               if b['state'] == 'active_allocated'),
                         'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 0),
                         'is_expandable': False, 'frames': [], 'blocks': blocks})
    snapshot = {
        'segments': segments,
        'device_traces': [trace],
        'allocator_settings': {'PYTORCH_CUDA_ALLOC_CONF': '', 'max_split_size': -1,
                               'garbage_collection_threshold': 0.0, 'expandable_segments': False,
                               'roundup_power2_divisions': {str(1 << i): 0 for i in range(16)}},
        'external_annotations': [],
    }
    with open(args.output, 'wb') as f:
        pickle.dump(snapshot, f, protocol=args.protocol)


if __name__ == '__main__':
    main()

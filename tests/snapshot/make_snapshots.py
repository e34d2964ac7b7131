#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Builds PyTorch memory snapshots for the tests with Python's own pickle
module, in the layouts PyTorch writes (see torch/cuda/memory.py
_dump_snapshot and torch/csrc/cuda/Module.cpp).

engine_snapshot() turns the JSON of tests/snapshot/engine-trace (the lab's
allocator on a random workload) into a snapshot whose trace is the engine's
events, so every state the reader rebuilds can be compared with a state the
engine really passed through. cases() builds small hand-made snapshots whose
expected numbers are worked out in their comments.

  make_snapshots.py engine ENGINE.json OUT.pickle [--cut K] [--protocol P] [--layout 2.0|2.10]
  make_snapshots.py cases OUTDIR
"""

import argparse
import json
import os
import pickle
import random

MiB = 1 << 20
# A raw cudaStream_t for the engine's stream 1: PyTorch stores the pointer.
STREAM_1 = 0x55d0c3a94e10

ACTIONS = {'alloc', 'free_requested', 'free_completed', 'segment_alloc', 'segment_free', 'oom',
           'segment_map', 'segment_unmap'}


def frames_pool(rng):
    files = ['/home/ada/run/model.py', '/home/ada/run/train.py',
             '/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py', '??']
    frames = [{'filename': rng.choice(files), 'line': rng.randint(1, 400),
               'name': rng.choice(['forward', 'backward', '_call_impl', 'step', '<module>'])}
              for _ in range(30)]
    stacks = [[rng.choice(frames) for _ in range(rng.randint(1, 6))] for _ in range(40)]
    return stacks


def round512(n):
    return max(512, (n + 511) // 512 * 512)


def engine_snapshot(engine, cut=0, protocol=4, layout='2.10', seed=1, unique_frames=True):
    """The snapshot of an engine run; returns (snapshot, expected) where
    expected[N] is the engine's statistics after the first N entries kept."""
    rng = random.Random(seed)
    stacks = frames_pool(rng)
    events = [e for e in engine['events'] if e['kind'] in ACTIONS]
    entries = []
    expected = []
    t = 1700000000000000
    for e in events:
        stream = STREAM_1 if e['stream'] == 1 else 0
        entry = {'action': e['kind'], 'stream': stream}
        if e['kind'] in ('segment_alloc', 'segment_free', 'segment_map', 'segment_unmap'):
            entry['addr'] = e['address']
            entry['size'] = e['size']
        elif e['kind'] == 'oom':
            entry['device_free'] = e['address']
            entry['size'] = round512(e['requested'])
        else:
            entry['addr'] = e['address']
            entry['size'] = e['requested']
        if layout != '2.0':
            entry['time_us'] = t
            entry['compile_context'] = 'N/A'
            entry['user_metadata'] = ''
        if e['kind'] != 'oom':
            stack = rng.choice(stacks)
            entry['frames'] = list(stack) if unique_frames else stack
        t += rng.randint(1, 50)
        entries.append(entry)
        expected.append({k: e[k] for k in ('allocated', 'reserved', 'active', 'allocations',
                                           'segments', 'largest_free')})
    before_cut = expected[cut - 1] if cut > 0 else {
        'allocated': 0, 'reserved': 0, 'active': 0, 'allocations': 0, 'segments': 0,
        'largest_free': 0}
    kept = entries[cut:]
    expected = [before_cut] + expected[cut:]

    segments = {}
    order = []
    for b in engine['blocks']:
        seg = segments.get(b['segment'])
        if seg is None:
            seg = {'device': 0, 'address': b['segment'], 'total_size': 0, 'allocated_size': 0,
                   'active_size': 0, 'requested_size': 0,
                   'stream': STREAM_1 if b['stream'] == 1 else 0,
                   'segment_type': 'small' if b['small'] else 'large',
                   'segment_pool_id': (0, 0), 'is_expandable': b.get('expandable', False),
                   'frames': [], 'blocks': []}
            segments[b['segment']] = seg
            order.append(b['segment'])
        block = {'address': b['address'], 'size': b['size'],
                 'requested_size': b['requested_size'], 'state': b['state'],
                 'frames': list(rng.choice(stacks)) if b['state'] != 'inactive' else []}
        seg['blocks'].append(block)
        seg['total_size'] += b['size']
        if b['state'] == 'active_allocated':
            seg['allocated_size'] += b['size']
        if b['state'] != 'inactive':
            seg['active_size'] += b['size']
            seg['requested_size'] += b['requested_size']
    seg_list = [segments[a] for a in sorted(order)]

    if layout == '2.0':
        for seg in seg_list:
            del seg['frames'], seg['is_expandable']
            for block in seg['blocks']:
                frames = block.pop('frames')
                addr = block.pop('address')
                if block['state'] != 'inactive':
                    block['history'] = [{'addr': addr, 'real_size': block['requested_size'],
                                         'frames': frames}]
        snapshot = {'segments': seg_list, 'device_traces': [kept]}
    else:
        snapshot = {'segments': seg_list, 'device_traces': [kept],
                    'allocator_settings': {'PYTORCH_CUDA_ALLOC_CONF': '', 'max_split_size': -1,
                                           'garbage_collection_threshold': 0.0,
                                           'expandable_segments': False,
                                           'roundup_power2_divisions': {str(1 << i): 0
                                                                        for i in range(16)}},
                    'external_annotations': []}
    return snapshot, expected


def dump(obj, path, protocol=4):
    with open(path, 'wb') as f:
        pickle.dump(obj, f, protocol=protocol)


def segment(address, blocks, small=False, expandable=False, stream=0, device=0):
    seg = {'device': device, 'address': address, 'total_size': sum(b['size'] for b in blocks),
           'allocated_size': sum(b['size'] for b in blocks if b['state'] == 'active_allocated'),
           'active_size': sum(b['size'] for b in blocks if b['state'] != 'inactive'),
           'requested_size': sum(b['requested_size'] for b in blocks if b['state'] != 'inactive'),
           'stream': stream, 'segment_type': 'small' if small else 'large',
           'segment_pool_id': (0, 0), 'is_expandable': expandable, 'frames': [],
           'blocks': blocks}
    cursor = address
    for b in blocks:
        b['address'] = cursor
        cursor += b['size']
    return seg


def block(size, state, requested=None, frames=None):
    return {'size': size, 'requested_size': size if requested is None else requested,
            'state': state, 'frames': frames or []}


def entry(action, addr, size, stream=0, frames=None):
    e = {'action': action, 'size': size, 'stream': stream, 'time_us': 0,
         'compile_context': 'N/A', 'user_metadata': ''}
    e['device_free' if action == 'oom' else 'addr'] = addr
    if frames is not None:
        e['frames'] = frames
    return e


def cases(outdir):
    """Hand-made snapshots, each with the numbers expected at some N."""
    os.makedirs(outdir, exist_ok=True)
    manifest = {}
    A = 0x7f2a00000000
    forward = {'filename': '/home/ada/run/model.py', 'line': 54, 'name': 'forward'}
    module = {'filename': '/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py',
              'line': 1790, 'name': '_call_impl'}
    stack = [module, forward]   # innermost first: the user's frame is the second

    # Pending frees: a 4 MiB block freed on another stream's use (record_stream)
    # and not yet back in the pool; the other spelling of its state too.
    for name, state in (('pending', 'active_pending_free'), ('awaiting', 'active_awaiting_free')):
        segs = [segment(A, [block(4 * MiB, state, 4 * MiB - 100, stack),
                            block(2 * MiB, 'active_allocated', 2 * MiB, stack),
                            block(14 * MiB, 'inactive', 0)])]
        trace = [entry('alloc', A, 4 * MiB - 100, frames=stack),
                 entry('alloc', A + 4 * MiB, 2 * MiB, frames=stack),
                 entry('free_requested', A, 4 * MiB - 100, frames=stack)]
        dump({'segments': segs, 'device_traces': [trace]}, os.path.join(outdir, name + '.pickle'))
        manifest[name] = {
            0: {'allocations': 0, 'allocated_bytes': 0, 'active_bytes': 0, 'reserved_bytes': 20 * MiB,
                'requested_bytes': 0, 'largest_free_block_bytes': 20 * MiB},
            1: {'allocations': 1, 'allocated_bytes': 4 * MiB, 'active_bytes': 4 * MiB,
                'requested_bytes': 4 * MiB - 100, 'largest_free_block_bytes': 16 * MiB},
            2: {'allocations': 2, 'allocated_bytes': 6 * MiB, 'active_bytes': 6 * MiB,
                'requested_bytes': 6 * MiB - 100, 'largest_free_block_bytes': 14 * MiB},
            3: {'allocations': 1, 'allocated_bytes': 2 * MiB, 'active_bytes': 6 * MiB,
                'requested_bytes': 2 * MiB, 'largest_free_block_bytes': 14 * MiB,
                'estimated_blocks': 0},
        }

    # Expandable segments: pages mapped and unmapped; PyTorch reports each
    # contiguous mapped range as one segment (snapshot() in
    # CUDACachingAllocator.cpp). Blocks split whenever 512 B remain.
    B = 0x7f3000000000
    segs = [segment(B, [block(20 * MiB, 'active_allocated', 20 * MiB)], expandable=True)]
    trace = [entry('segment_map', B, 20 * MiB),
             entry('alloc', B, 20 * MiB),
             entry('segment_map', B + 20 * MiB, 20 * MiB),
             entry('alloc', B + 20 * MiB, 8 * MiB),
             entry('free_requested', B + 20 * MiB, 8 * MiB),
             entry('free_completed', B + 20 * MiB, 8 * MiB),
             entry('segment_unmap', B + 20 * MiB, 20 * MiB)]
    dump({'segments': segs, 'device_traces': [trace],
          'allocator_settings': {'PYTORCH_CUDA_ALLOC_CONF': 'expandable_segments:True',
                                 'max_split_size': -1, 'garbage_collection_threshold': 0.0,
                                 'expandable_segments': True}},
         os.path.join(outdir, 'expandable.pickle'), protocol=5)
    manifest['expandable'] = {
        0: {'segments': 0, 'reserved_bytes': 0, 'allocated_bytes': 0},
        1: {'segments': 1, 'reserved_bytes': 20 * MiB, 'largest_free_block_bytes': 20 * MiB},
        2: {'allocated_bytes': 20 * MiB, 'largest_free_block_bytes': 0},
        3: {'segments': 1, 'reserved_bytes': 40 * MiB, 'largest_free_block_bytes': 20 * MiB},
        4: {'allocated_bytes': 28 * MiB, 'largest_free_block_bytes': 12 * MiB,
            'estimated_blocks': 0},
        5: {'allocated_bytes': 20 * MiB, 'active_bytes': 28 * MiB},
        6: {'active_bytes': 20 * MiB, 'largest_free_block_bytes': 20 * MiB},
        7: {'segments': 1, 'reserved_bytes': 20 * MiB, 'largest_free_block_bytes': 0},
    }

    # An out-of-memory: a 3 MiB request (rounded: 3 MiB) needed a 20 MiB
    # segment the GPU could not give. PyTorch had freed its one cached
    # segment first (segment_free), so at the oom 6 MiB is reserved and
    # allocated. Tried to allocate = get_allocation_size(3 MiB) = 20 MiB.
    C = 0x7f4000000000
    segs = [segment(C, [block(6 * MiB, 'active_allocated', 6 * MiB - 100),
                        block(14 * MiB, 'inactive', 0)]),
            segment(C + 64 * MiB, [block(2 * MiB, 'inactive', 0)], small=True)]
    trace = [entry('segment_alloc', C + 64 * MiB, 2 * MiB),
             entry('segment_alloc', C + 32 * MiB, 20 * MiB),
             entry('segment_free', C + 32 * MiB, 20 * MiB),
             entry('oom', 1536 * MiB, 3 * MiB),
             entry('alloc', C, 6 * MiB - 100)]
    # Before all that, the same 6 MiB block was allocated and freed once.
    dump({'segments': segs, 'device_traces': [[entry('alloc', C, 6 * MiB - 100)] +
                                              [entry('free_requested', C, 6 * MiB - 100),
                                               entry('free_completed', C, 6 * MiB - 100)] + trace]},
         os.path.join(outdir, 'oom.pickle'), protocol=2)
    # Walked back: N=3 has only the large segment; at the oom (index 6) the
    # small segment exists too and the 20 MiB one was given back.
    manifest['oom'] = {
        # Freed before the dump, but its allocation came from a wholly free
        # segment: the allocator's own rule gives its size, 6 MiB, exactly.
        1: {'allocations': 1, 'allocated_bytes': 6 * MiB, 'estimated_blocks': 0},
        3: {'allocations': 0, 'reserved_bytes': 20 * MiB, 'segments': 1},
        5: {'reserved_bytes': 42 * MiB, 'segments': 3},
        6: {'reserved_bytes': 22 * MiB, 'segments': 2, 'allocated_bytes': 0},
        8: {'allocations': 1, 'allocated_bytes': 6 * MiB, 'segments': 2,
            'reserved_bytes': 22 * MiB},
        'ooms': [{'index': 6, 'size': 3 * MiB, 'device_free': 1536 * MiB,
                  'message_contains': ['Tried to allocate 20.00 MiB.',
                                       'of which 1.50 GiB is free.',
                                       'Of the allocated memory 0 bytes is allocated by PyTorch, '
                                       'and 22.00 MiB is reserved by PyTorch but unallocated.']}],
    }

    # This hand-made oom does not follow the allocator: at the error the 20 MiB
    # segment C is wholly free (PyTorch would have released it, and a 3 MiB
    # request fits in it anyway). The explainer must say so.
    manifest['oom']['ooms'][0]['largest_usable_block_bytes'] = 20 * MiB
    manifest['oom']['ooms'][0]['text_contains'] = ['Out of memory at entry 7 of 8:',
                                                   'does not follow the allocator']

    # Real ways a large free block fails a request. On another stream: a
    # 40 MiB free block beside a live 20 MiB one, on stream 0; a 30 MiB
    # request on stream 1 cannot use it.
    D = 0x7f5000000000
    segs = [segment(D, [block(20 * MiB, 'active_allocated'), block(40 * MiB, 'inactive', 0)])]
    dump({'segments': segs, 'device_traces': [[entry('oom', 8 * MiB, 30 * MiB, stream=1)]]},
         os.path.join(outdir, 'oom-stream.pickle'), protocol=4)
    manifest['oom-stream'] = {
        'ooms': [{'index': 0, 'size': 30 * MiB, 'device_free': 8 * MiB, 'message_contains': [],
                  'largest_usable_block_bytes': 0,
                  # An expandable segment belongs to one stream too: no help.
                  'expandable_segments_would_help': False,
                  'text_contains': ['A free block of 40.00 MiB sat on another stream']}],
    }
    # In the other pool: a 1.5 MiB request (large pool) beside a small
    # segment's free 2 MiB block; the large segment is full.
    segs = [segment(D, [block(20 * MiB, 'active_allocated')]),
            segment(D + 32 * MiB, [block(512, 'active_allocated'), block(2 * MiB - 512, 'inactive', 0)],
                    small=True)]
    dump({'segments': segs, 'device_traces': [[entry('oom', 4 * MiB, 1536 * 1024)]]},
         os.path.join(outdir, 'oom-pool.pickle'), protocol=4)
    manifest['oom-pool'] = {
        'ooms': [{'index': 0, 'size': 1536 * 1024, 'device_free': 4 * MiB, 'message_contains': [],
                  'largest_usable_block_bytes': 0,
                  'text_contains': ['was in the small pool, which serves only requests of at most 1 MiB']}],
    }

    # Several devices: device 0 unused, device 1 has the segments and trace.
    segs = [segment(A, [block(1024, 'active_allocated', 1000), block(2 * MiB - 1024, 'inactive', 0)],
                    small=True, device=1)]
    dump({'segments': segs, 'device_traces': [[], [entry('alloc', A, 1000)]]},
         os.path.join(outdir, 'devices.pickle'))
    manifest['devices'] = {'device': 1, 'devices': 2,
                           0: {'allocations': 0, 'allocated_bytes': 0},
                           1: {'allocations': 1, 'allocated_bytes': 1024, 'requested_bytes': 1000}}

    # PyTorch 2.0: blocks without address, with history; no time_us.
    segs = [{'device': 0, 'address': A, 'total_size': 20 * MiB, 'allocated_size': 3 * MiB,
             'active_size': 3 * MiB, 'requested_size': 3 * MiB - 7, 'stream': 0,
             'segment_type': 'large',
             'blocks': [{'size': 3 * MiB, 'requested_size': 3 * MiB - 7, 'state': 'active_allocated',
                         'history': [{'addr': A, 'real_size': 3 * MiB - 7, 'frames': stack}]},
                        {'size': 17 * MiB, 'requested_size': 0, 'state': 'inactive'}]}]
    trace = [{'action': 'segment_alloc', 'addr': A, 'size': 20 * MiB, 'stream': 0},
             {'action': 'alloc', 'addr': A, 'size': 3 * MiB - 7, 'stream': 0, 'frames': stack}]
    dump({'segments': segs, 'device_traces': [trace]}, os.path.join(outdir, 'layout20.pickle'),
         protocol=2)
    manifest['layout20'] = {0: {'segments': 0, 'reserved_bytes': 0},
                            1: {'segments': 1, 'reserved_bytes': 20 * MiB, 'allocated_bytes': 0},
                            2: {'allocated_bytes': 3 * MiB, 'requested_bytes': 3 * MiB - 7,
                                'largest': 'forward, model.py:54'}}

    # A bare list of segments (older tools), no trace at all.
    dump(segs, os.path.join(outdir, 'bare.pickle'))
    manifest['bare'] = {0: {'segments': 1, 'allocated_bytes': 3 * MiB, 'trace_entries': 0}}

    # Unknown keys and actions are kept out of the way.
    segs = [segment(A, [block(2 * MiB, 'inactive', 0)], small=True)]
    segs[0]['owner'] = {'nested': [1, 2, {'x': (3, 4)}]}
    trace = [entry('segment_alloc', A, 2 * MiB), {'action': 'annotate', 'addr': 0, 'size': 0,
                                                   'stream': 0, 'stage': 'START'}]
    dump({'segments': segs, 'device_traces': [trace], 'host_segments': [], 'brand_new': [[{}]]},
         os.path.join(outdir, 'unknown.pickle'), protocol=5)
    manifest['unknown'] = {'actions': {'segment_alloc': 1, 'annotate': 1},
                           2: {'segments': 1, 'reserved_bytes': 2 * MiB}}

    # A long one (about 1.3 MB), for what needs a file of some size: loads that
    # are cancelled, files cut short. 4 000 one-block segments, each allocated,
    # and every other one freed, with a stack each.
    segs, trace = [], []
    layers = [[{'filename': f'/home/ada/run/layer{k}.py', 'line': 10 + k, 'name': 'forward'}]
              for k in range(97)]
    for i in range(4000):
        addr = A + 0x100000000 + i * 2 * MiB
        frames = layers[i % 97]
        trace.append(entry('segment_alloc', addr, 2 * MiB))
        trace.append(entry('alloc', addr, 4096, frames=frames))
        state = 'active_allocated'
        if i % 2:
            trace.append(entry('free_requested', addr, 4096, frames=frames))
            trace.append(entry('free_completed', addr, 4096, frames=frames))
            state = 'inactive'
        segs.append(segment(addr, [block(4096, state, 4096, frames), block(2 * MiB - 4096, 'inactive', 0)],
                            small=True))
    dump({'segments': segs, 'device_traces': [trace]}, os.path.join(outdir, 'long.pickle'))
    manifest['long'] = {len(trace): {'segments': 4000, 'allocated_bytes': 2000 * 4096}}

    with open(os.path.join(outdir, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='command', required=True)
    e = sub.add_parser('engine')
    e.add_argument('engine_json')
    e.add_argument('output')
    e.add_argument('--cut', type=int, default=0)
    e.add_argument('--protocol', type=int, default=4)
    e.add_argument('--layout', default='2.10')
    c = sub.add_parser('cases')
    c.add_argument('outdir')
    args = ap.parse_args()
    if args.command == 'engine':
        with open(args.engine_json) as f:
            engine = json.load(f)
        snapshot, expected = engine_snapshot(engine, args.cut, args.protocol, args.layout)
        dump(snapshot, args.output, args.protocol)
        with open(args.output + '.expected.json', 'w') as f:
            json.dump(expected, f)
    else:
        cases(args.outdir)


if __name__ == '__main__':
    main()

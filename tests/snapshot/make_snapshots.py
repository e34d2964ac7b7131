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


# The frames PyTorch records, as real files have them (see the fixtures'
# README): its capture machinery innermost, the autograd engine's thread for
# backward, the interpreter's own C frames between Python ones.
CAPTURE = [{'filename': '??', 'line': 0, 'name': 'torch::unwind::unwind()'},
           {'filename': '??', 'line': 0,
            'name': 'torch::CapturedTraceback::gather(bool, bool, bool)'},
           {'filename': 'memory_snapshot.cpp', 'line': 0,
            'name': 'torch::cuda::(anonymous namespace)::gather_with_cpp()'},
           {'filename': 'CUDACachingAllocator.cpp', 'line': 0,
            'name': 'c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc('
                    'signed char, unsigned long, CUstream_st*)'},
           {'filename': '', 'line': 0,
            'name': 'at::detail::empty_generic(c10::ArrayRef<long>, c10::Allocator*, '
                    'c10::DispatchKeySet, c10::ScalarType, std::optional<c10::MemoryFormat>)'}]
ENGINE = [{'filename': 'Functions.cpp', 'line': 0,
           'name': 'torch::autograd::generated::AddmmBackward0::apply(std::vector<at::Tensor, '
                   'std::allocator<at::Tensor> >&&)'},
          {'filename': '', 'line': 0,
           'name': 'torch::autograd::Node::operator()(std::vector<at::Tensor, '
                   'std::allocator<at::Tensor> >&&)'},
          {'filename': '??', 'line': 0,
           'name': 'torch::autograd::Engine::evaluate_function('
                   'std::shared_ptr<torch::autograd::GraphTask>&)'},
          {'filename': '??', 'line': 0,
           'name': 'torch::autograd::Engine::thread_main('
                   'std::shared_ptr<torch::autograd::GraphTask> const&)'},
          {'filename': '??', 'line': 0, 'name': '__clone'}]
CEVAL = {'filename': '/usr/local/src/conda/python-3.10.14/Python/ceval.c', 'line': 5945,
         'name': 'do_call_core'}
TORCH = '/opt/venv/lib/python3.12/site-packages/torch/'


def py(file, line, name):
    return {'filename': file, 'line': line, 'name': name}


def training_snapshot(variant):
    """Two training steps of a three-layer model with Adam, where every
    allocation's category is known by construction: parameters made in a
    module's __init__ and moved with .to(), an activation saved in each
    layer's forward and freed by backward, a temporary freed inside each op,
    gradients made by the autograd engine and freed by zero_grad(), Adam's
    state made in the first step(), temporaries inside backward and step().

    variant: "training" (C++ and Python frames, as stacks="all" records),
    "training-python" (Python frames only: the engine's thread records none),
    "training-late" (the recording began after the model was built: its
    parameters have no stack), "training-sgd" (plain SGD: step() allocates
    nothing, and model.zero_grad() frees the gradients before the next
    forward pass allocates anything).

    Returns (snapshot, expected) with expected[N] the bytes by category
    (the JSON's by_category) after the first N entries."""
    python_only = variant == 'training-python'
    cell = py('/tmp/ipykernel_4242/3105878423.py', 7, '<module>')
    train = py('/home/ada/run/train.py', 40, 'train_step')
    call = py(TORCH + 'nn/modules/module.py', 1790, '_call_impl')

    def stack(*python):
        if python_only:
            return list(python)
        # Each Python frame with the interpreter's C frame that called it.
        return CAPTURE + [x for f in python for x in (f, CEVAL)]

    def engine_stack():
        return [] if python_only else CAPTURE + ENGINE

    base = 0x7f6000000000
    seg_size = 4096 * MiB
    holes = [[base, seg_size]]   # free blocks of the one segment, address order
    trace = []
    category = {}      # alloc entry index -> its category
    live = {}          # addr -> (block size, request, category, frames)
    sizes = iter(range(1, 10000))

    def unique(mib):
        # Every allocation its own size: a wrong category cannot hide behind an
        # equal one of another.
        return mib * MiB + next(sizes) * 512

    def alloc(mib, kind, frames):
        # As the caching allocator does (every request here is over 1 MiB and a
        # multiple of 512 B): the smallest free block that fits, the lowest of
        # equal ones, split unless at most 1 MiB (kSmallSize) would remain.
        request = unique(mib)
        hole = min((h for h in holes if h[1] >= request), key=lambda h: (h[1], h[0]))
        addr, size = hole[0], request
        if hole[1] - request <= 1 * MiB:
            size = hole[1]
            holes.remove(hole)
        else:
            hole[0] += request
            hole[1] -= request
        category[len(trace)] = (kind, size)
        trace.append(entry('alloc', addr, request, frames=frames))
        live[addr] = (size, request, kind, frames)
        return addr

    def free(addr, frames):
        size, request = live.pop(addr)[:2]
        trace.append(entry('free_requested', addr, request, frames=frames))
        trace.append(entry('free_completed', addr, request, frames=frames))
        holes.append([addr, size])
        holes.sort()
        merged = []
        for h in holes:
            if merged and merged[-1][0] + merged[-1][1] == h[0]:
                merged[-1][1] += h[1]
            else:
                merged.append(h)
        holes[:] = merged

    record_from = 0
    init = [py('/home/ada/run/model.py', 12, '__init__'),
            py(TORCH + 'nn/modules/linear.py', 106, '__init__'),
            py('/home/ada/run/model.py', 8, '__init__'), cell]
    moved = [py(TORCH + 'nn/modules/module.py', 1340, 'convert'),
             py(TORCH + 'nn/modules/module.py', 900, '_apply'),
             py(TORCH + 'nn/modules/module.py', 1355, 'to'), cell]
    params = []
    for layer in range(3):
        params.append(alloc(8 + layer, 'parameters', stack(*init)))
        params.append(alloc(2, 'parameters', stack(*moved)))
    if variant == 'training-late':
        record_from = len(trace)
    grads = []
    regions = []       # (name, first entry inside, first entry after)
    for step in range(2):
        step_start = len(trace)
        saved = []
        for layer in range(3):
            fwd = py('/home/ada/run/model.py', 20 + layer, 'forward')
            linear = py(TORCH + 'nn/functional.py', 2000, 'linear')
            saved.append(alloc(6, 'activations', stack(linear, fwd, call, train, cell)))
            dropout = py(TORCH + 'nn/functional.py', 1400, 'dropout')
            tmp = alloc(3, 'temporary', stack(dropout, fwd, call, train, cell))
            free(tmp, stack(fwd, call, train, cell))
        # loss.backward(): the seed gradient on the program's thread, then the engine's.
        bwd_call = [py(TORCH + 'autograd/__init__.py', 231, '_make_grads'),
                    py(TORCH + 'autograd/__init__.py', 374, 'backward'),
                    py(TORCH + '_tensor.py', 631, 'backward'),
                    py('/home/ada/run/train.py', 42, 'train_step'), cell]
        seed = alloc(2, 'temporary', stack(*bwd_call))
        new_grads = []
        for layer in reversed(range(3)):
            tmp = alloc(4, 'temporary', engine_stack())
            free(saved[layer], engine_stack())
            for p in (2 * layer, 2 * layer + 1):
                new_grads.append(alloc(3, 'gradients', engine_stack()))
            free(tmp, engine_stack())
        free(seed, engine_stack())
        grads = new_grads
        # optimizer.step(): Adam's state in the first step, a temporary in each.
        opt = [py(TORCH + 'optim/adam.py', 400, '_single_tensor_adam'),
               py(TORCH + 'optim/adam.py', 240, 'step'),
               py(TORCH + 'optim/optimizer.py', 493, 'wrapper'),
               py('/home/ada/run/train.py', 44, 'train_step'), cell]
        init_state = [py(TORCH + 'optim/adam.py', 160, '_init_group'),
                      py(TORCH + 'optim/adam.py', 230, 'step'),
                      py(TORCH + 'optim/optimizer.py', 493, 'wrapper'),
                      py('/home/ada/run/train.py', 44, 'train_step'), cell]
        step_at = len(trace)
        for p in range(len(params) if variant != 'training-sgd' else 0):
            if step == 0:
                alloc(5, 'optimizer_state', stack(*init_state))    # exp_avg
                alloc(5, 'optimizer_state', stack(*init_state))    # exp_avg_sq
            denom = alloc(2, 'temporary', stack(*opt))
            free(denom, stack(*opt))
        regions.append(('Optimizer.step#Adam.step', step_at, len(trace)))
        # optimizer.zero_grad(): gradients set to None, except the last step's.
        if step == 0:
            zero = stack(py(TORCH + 'optim/optimizer.py', 950, 'zero_grad'),
                         py('/home/ada/run/train.py', 46, 'train_step'), cell)
            if variant == 'training-sgd':
                zero = stack(py(TORCH + 'nn/modules/module.py', 2600, 'zero_grad'),
                             py('/home/ada/run/train.py', 46, 'train_step'), cell)
            for g in grads:
                free(g, zero)
        regions.append((f'## train step {step} ##', step_start, len(trace)))

    # The expected bytes by category after every entry kept, from what was
    # live when the recording began; bytes are the blocks' sizes.
    cats = ['parameters', 'activations', 'gradients', 'optimizer_state', 'temporary', 'other']
    now = {c: 0 for c in cats}
    owner = {}
    expected = []
    for i, e in enumerate(trace):
        if i == record_from:
            expected.append(dict(now))
        if e['action'] == 'alloc':
            owner[e['addr']] = category[i]
            now[category[i][0]] += category[i][1]
        elif e['action'] == 'free_requested':
            kind, size = owner.pop(e['addr'])
            now[kind] -= size
        if i >= record_from:
            expected.append(dict(now))
    # The segment at the end: what is live, and the free blocks between.
    blocks = []
    at = base
    for addr in sorted(live):
        if addr > at:
            blocks.append(block(addr - at, 'inactive', 0))
        size, request, kind, frames = live[addr]
        if variant == 'training-late' and kind == 'parameters':
            frames = []    # made before _record_memory_history()
        blocks.append(block(size, 'active_allocated', request, frames))
        at = addr + size
    if at < base + seg_size:
        blocks.append(block(base + seg_size - at, 'inactive', 0))
    kept = trace[record_from:]
    t = 1700000000000000
    for e in kept:
        e['time_us'] = t
        t += 10
    # record_function regions, as external_annotations: a training step and
    # the optimizer's step inside it (PyTorch 2.5+), on the entries' clock.
    annotations = []
    for name, first, after in regions:
        if first < record_from:
            continue
        for stage, at in (('START', first), ('END', after)):
            annotations.append({'name': name, 'stage': stage, 'device': 0,
                                'time_us': 1700000000000000 + (at - record_from) * 10 - 5})
    annotations.sort(key=lambda a: (a['time_us'], a['stage'] == 'START'))
    # user_metadata (PyTorch 2.10+) on the second step's entries.
    for name, first, after in regions:
        if name == '## train step 1 ##' and variant == 'training':
            for e in trace[first:after]:
                e['user_metadata'] = 'step=1'
    snap = {'segments': [segment(base, blocks)], 'device_traces': [kept],
            'external_annotations': annotations if variant == 'training' else [],
            'allocator_settings': {'PYTORCH_CUDA_ALLOC_CONF': '', 'max_split_size': -1,
                                   'garbage_collection_threshold': 0.0,
                                   'expandable_segments': False}}
    return snap, expected

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
                                'largest': 'model.py:54 forward'}}

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

    # Where the user's line is: the innermost frame of their own code past
    # torch and installed libraries; past torch when there is none of theirs;
    # the autograd node when the stack has no Python frame at all.
    E = A + 0x200000000
    EMPTY_GENERIC = {'filename': '??', 'line': 0,
                     'name': 'at::TensorBase at::detail::_empty_generic<long>('
                             'c10::ArrayRef<long>, c10::Allocator*)'}
    lib_stack = [{'filename': '??', 'line': 0, 'name': 'torch::unwind::unwind()'},
                 {'filename': '/opt/venv/lib/python3.12/site-packages/torch/nn/functional.py',
                  'line': 2233, 'name': 'embedding'},
                 {'filename': '/opt/venv/lib/python3.12/site-packages/transformers/models/llama/'
                              'modeling_llama.py', 'line': 87, 'name': 'forward'},
                 {'filename': '/opt/venv/lib/python3.12/site-packages/transformers/trainer.py',
                  'line': 2000, 'name': 'train'}]
    torch_stack = [CAPTURE[0], {'filename': '/usr/lib/python3/dist-packages/torch/_tensor.py',
                                'line': 500, 'name': 'backward'}]
    for name, frames, where in (('where-library', lib_stack, 'modeling_llama.py:87 forward'),
                                ('where-torch', torch_stack, '_tensor.py:500 backward'),
                                ('where-node', CAPTURE + ENGINE, 'AddmmBackward0::apply'),
                                ('where-cpp', CAPTURE[:4] + [EMPTY_GENERIC],
                                 'at::detail::_empty_generic<long>')):
        segs = [segment(E, [block(4 * MiB, 'active_allocated', 4 * MiB, frames),
                            block(16 * MiB, 'inactive', 0)])]
        dump({'segments': segs, 'device_traces': [[entry('alloc', E, 4 * MiB, frames=frames)]]},
             os.path.join(outdir, name + '.pickle'))
        manifest[name] = {1: {'largest': where}}

    # More streams than any GPU program has (each entry its own): refused.
    trace = [entry('snapshot', 0, 0, stream=0x1000 + 8 * i) for i in range(65537)]
    dump({'segments': [], 'device_traces': [trace]}, os.path.join(outdir, 'many-streams.pickle'))
    manifest['many-streams'] = {'error': 'more than 65536 CUDA streams'}

    for variant in ('training', 'training-python', 'training-late', 'training-sgd'):
        snap, expected = training_snapshot(variant)
        dump(snap, os.path.join(outdir, variant + '.pickle'))
        manifest[variant] = {str(n): {'by_category': want} for n, want in enumerate(expected)}

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

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`gpu-memory-lab snapshot` on real and synthetic PyTorch memory snapshots.

  test_snapshot.py GPU_MEMORY_LAB ENGINE_TRACE          the synthetic snapshots
  test_snapshot.py GPU_MEMORY_LAB ENGINE_TRACE --real   the real one (skipped, 77,
                                                        without GML_SNAPSHOT_FIXTURES)

- A real snapshot (magma27, PyTorch 2.10, protocol 4, from the fixtures): every
  number at the end against the file's own fields (read here with Python's
  pickle), and the numbers the trace alone decides (requested bytes,
  allocations, reserved bytes, segments, the peak) at many N.
- Snapshots made from the lab's own allocator (engine-trace), in protocols 2,
  4 and 5, the 2.0 layout, with and without a ring-buffer cut, with allocator
  settings and out-of-memory errors: the state at N must be the state the
  engine was in.
- Hand-made snapshots (make_snapshots.py cases): pending frees, expandable
  segments, several devices, bare lists, unknown keys.
"""

import json
import os
import pickle
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
import fixtures  # noqa: E402
import make_snapshots  # noqa: E402

MiB = 1 << 20
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print('FAIL:', what)


def run_snapshot(exe, path, *args):
    out = subprocess.run([exe, 'snapshot', path, '--json', *args], capture_output=True, text=True,
                         env=dict(os.environ, LANGUAGE='en', LC_ALL='C.UTF-8'))
    if out.returncode != 0:
        raise RuntimeError(f'snapshot {path} {args} failed: {out.stderr}')
    return json.loads(out.stdout)


def test_fixture(exe, path):
    with open(path, 'rb') as f:
        snap = pickle.load(f)
    segs = snap['segments']
    blocks = [b for s in segs for b in s['blocks']]
    trace = snap['device_traces'][0]
    end = run_snapshot(exe, path)
    n = len(trace)
    check(end['protocol'] == 4, 'fixture: protocol 4')
    check(end['devices'] == 1 and end['device'] == 0, 'fixture: one device')
    # JSON stays English whatever the language: programs read it.
    turkish = run_snapshot(exe, path, '--lang', 'tr')
    check(turkish['pytorch_version'] == end['pytorch_version'] and end['pytorch_version'].startswith('PyTorch 2.'),
          f'fixture: pytorch_version {end["pytorch_version"]!r} / {turkish["pytorch_version"]!r}')
    check(end['trace_entries'] == n, f'fixture: trace_entries {end["trace_entries"]} != {n}')
    check(end['at'] == n, 'fixture: at defaults to the end')
    check(end['segments'] == len(segs), 'fixture: segments')
    check(end['reserved_bytes'] == sum(s['total_size'] for s in segs), 'fixture: reserved_bytes')
    check(end['allocated_bytes'] == sum(s['allocated_size'] for s in segs), 'fixture: allocated_bytes')
    check(end['active_bytes'] == sum(s['active_size'] for s in segs), 'fixture: active_bytes')
    live = [b for b in blocks if b['state'] == 'active_allocated']
    check(end['allocations'] == len(live), 'fixture: allocations')
    check(end['requested_bytes'] == sum(b['requested_size'] for b in live), 'fixture: requested_bytes')
    free = [b['size'] for b in blocks if b['state'] == 'inactive']
    check(end['largest_free_block_bytes'] == max(free), 'fixture: largest free block')
    check(abs(end['fragmentation'] - (1 - max(free) / sum(free))) < 1e-9, 'fixture: fragmentation')
    counts = {}
    for e in trace:
        counts[e['action']] = counts.get(e['action'], 0) + 1
    check(end['actions'] == counts, f'fixture: actions {end["actions"]} != {counts}')
    check(end['ooms'] == [], 'fixture: no ooms')
    settings = snap['allocator_settings']
    check(end['settings']['max_split_size'] == settings['max_split_size'], 'fixture: settings')
    check(end['settings']['expandable_segments'] is settings['expandable_segments'],
          'fixture: expandable_segments setting')
    check(end['estimated_blocks'] == 0 and end['inconsistent_entries'] == 0,
          'fixture: the end is exact and consistent')
    biggest = max(live, key=lambda b: (b['size'], -b['address']))
    check(end['largest_allocations'][0]['size'] == biggest['size'] and
          end['largest_allocations'][0]['address'] == biggest['address'],
          'fixture: largest allocation')

    # What the trace alone decides, walked back from the end.
    requested = sum(b['requested_size'] for b in live)
    allocations = len(live)
    by_n = {n: (requested, allocations)}
    peak = requested
    for i in range(n - 1, -1, -1):
        e = trace[i]
        if e['action'] == 'alloc':
            requested -= e['size']
            allocations -= 1
        elif e['action'] == 'free_requested':
            requested += e['size']
            allocations += 1
        by_n[i] = (requested, allocations)
        peak = max(peak, requested)
    check(end['peak_requested_bytes'] == peak, f'fixture: peak {end["peak_requested_bytes"]} != {peak}')
    for at in (0, 1, 2, 3, 100, 777, 1721, 2500, 2581, 4000, 5000, n - 1):
        got = run_snapshot(exe, path, '--at', str(at))
        check(got['at'] == at, f'fixture: at {at}')
        check((got['requested_bytes'], got['allocations']) == by_n[at],
              f'fixture at {at}: requested/allocations {got["requested_bytes"]}, {got["allocations"]} '
              f'!= {by_n[at]}')
        check(got['segments'] == len(segs) and got['reserved_bytes'] == end['reserved_bytes'],
              f'fixture at {at}: no segment was allocated or freed in the trace')
        check(got['allocated_bytes'] >= got['requested_bytes'], f'fixture at {at}: allocated >= requested')
        check(got['active_bytes'] >= got['allocated_bytes'], f'fixture at {at}: active >= allocated')
        check(got['inconsistent_entries'] == 0, f'fixture at {at}: consistent')


def run_check(exe, path, *args):
    out = subprocess.run([exe, 'snapshot', path, '--check', '--json', *args], capture_output=True, text=True,
                         env=dict(os.environ, LANGUAGE='en', LC_ALL='C.UTF-8'))
    if out.returncode != 0:
        raise RuntimeError(f'snapshot --check {path} failed: {out.stderr}')
    return json.loads(out.stdout)


def check_keys(got, name):
    for key in ('allocs', 'allocs_matched', 'segment_allocs', 'segment_allocs_matched', 'segment_frees',
                'segment_frees_matched', 'ooms', 'ooms_matched', 'rules', 'first_divergence'):
        check(key in got, f'{name}: --check has “{key}”')


def engine_run(engine_trace, tmp, seed, ops, capacity, conf=None):
    args = [engine_trace, str(seed), str(ops), str(capacity)] + ([conf] if conf else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def settings_for(conf):
    settings = {'PYTORCH_CUDA_ALLOC_CONF': conf or '', 'max_split_size': -1,
                'garbage_collection_threshold': 0.0, 'expandable_segments': False,
                'roundup_power2_divisions': {str(1 << i): 0 for i in range(16)}}
    for part in (conf or '').split(','):
        if part.startswith('max_split_size_mb:'):
            settings['max_split_size'] = int(part.split(':')[1]) * MiB
        elif part == 'expandable_segments:True':
            settings['expandable_segments'] = True
        elif part.startswith('roundup_power2_divisions:'):
            settings['roundup_power2_divisions'] = {str(1 << i): int(part.split(':')[1])
                                                    for i in range(16)}
    return settings


def test_engine(exe, engine_trace, tmp):
    cases = [
        # seed, ops, capacity, alloc-conf, cut, protocol, layout
        (1, 160, 256 * MiB, None, 0, 4, '2.10'),
        (2, 500, 48 * MiB, None, 0, 2, '2.10'),          # out of memory now and then
        (3, 500, 256 * MiB, 'max_split_size_mb:32', 0, 5, '2.10'),
        (4, 500, 256 * MiB, 'roundup_power2_divisions:4', 0, 4, '2.10'),
        (5, 400, 256 * MiB, None, 0, 2, '2.0'),
        (6, 600, 128 * MiB, None, 300, 4, '2.10'),       # the ring buffer dropped 300 entries
        (7, 600, 64 * MiB, None, 200, 5, '2.10'),
        (8, 500, 128 * MiB, 'expandable_segments:True', 0, 4, '2.10'),
        (9, 500, 48 * MiB, 'expandable_segments:True', 0, 5, '2.10'),   # out of memory, unmapping
    ]
    for seed, ops, capacity, conf, cut, protocol, layout in cases:
        name = f'engine seed {seed} ({conf or "default"}, cut {cut}, protocol {protocol}, {layout})'
        expandable = conf is not None and 'expandable_segments:True' in conf
        engine = engine_run(engine_trace, tmp, seed, ops, capacity, conf)
        snap, expected = make_snapshots.engine_snapshot(engine, cut, protocol, layout, seed)
        if layout != '2.0':
            snap['allocator_settings'] = settings_for(conf)
        path = os.path.join(tmp, f'engine-{seed}.pickle')
        make_snapshots.dump(snap, path, protocol)
        n = len(snap['device_traces'][0])
        # The engine against itself: every decision must be the same.
        # Expandable segments reserve address space in proportion to the GPU's
        # memory, which a snapshot does not record: say it.
        got = run_check(exe, path, '--gpu-memory', str(capacity))
        check_keys(got, name)
        trace = snap['device_traces'][0]
        counts = {a: sum(1 for e in trace if e['action'] == a)
                  for a in ('alloc', 'segment_alloc', 'segment_free', 'oom', 'segment_map', 'segment_unmap')}
        check(got['allocs'] == counts['alloc'] and
              got['segment_allocs'] == counts['segment_alloc'] + counts['segment_map'] and
              got['segment_frees'] == counts['segment_free'] + counts['segment_unmap'] and
              got['ooms'] == counts['oom'],
              f'{name}: --check counts {got} != {counts}')
        if cut == 0:
            check(got['allocs_matched'] == got['allocs'] and
                  got['segment_allocs_matched'] == got['segment_allocs'] and
                  got['segment_frees_matched'] == got['segment_frees'] and
                  got['ooms_matched'] == got['ooms'] and got['first_divergence'] is None,
                  f'{name}: --check not 100 %: {got}')
        else:
            # Blocks freed before the cut are estimated; a few choices may differ there.
            check(got['allocs_matched'] >= 0.95 * got['allocs'], f'{name}: --check below 95 %: {got}')
        end = run_snapshot(exe, path)
        check(end['protocol'] == protocol, f'{name}: protocol')
        check(end['trace_entries'] == n, f'{name}: trace entries')
        check(end['inconsistent_entries'] == 0, f'{name}: {end["inconsistent_entries"]} inconsistent entries')
        oom_at = [i for i, e in enumerate(snap['device_traces'][0]) if e['action'] == 'oom']
        check(len(end['ooms']) == len(oom_at), f'{name}: {len(end["ooms"])} ooms, {len(oom_at)} in the trace')
        for got, i in zip(end['ooms'], oom_at):
            e = snap['device_traces'][0][i]
            want = expected[i]
            check(got['index'] == i and got['size'] == e['size'] and got['device_free'] == e['device_free'],
                  f'{name}: oom {i}')
            check(got['allocated_bytes'] == want['allocated'] and got['reserved_bytes'] == want['reserved'],
                  f'{name}: oom {i} state {got["allocated_bytes"]}/{got["reserved_bytes"]} '
                  f'!= {want["allocated"]}/{want["reserved"]}')
            check('Tried to allocate ' in got['message'] and 'is reserved by PyTorch but unallocated' in got['message'],
                  f'{name}: oom {i} message')
        sample = sorted(set([0, 1, 2, n // 7, n // 3, n // 2, 2 * n // 3, n - 2, n - 1, n] +
                            [i for i in oom_at] + list(range(0, n, max(1, n // 15)))))
        if seed == 1:
            sample = list(range(0, n + 1))   # every state of one run
        for at in sample:
            if at < 0 or at > n:
                continue
            got = run_snapshot(exe, path, '--at', str(at))
            want = expected[at]
            # An expandable segment's mapped ranges are snapshot segments, but not in
            # PyTorch's segment statistic: compare the bytes only.
            check(got['reserved_bytes'] == want['reserved'] and
                  (expandable or got['segments'] == want['segments']),
                  f'{name} at {at}: reserved {got["reserved_bytes"]} in {got["segments"]} != '
                  f'{want["reserved"]} in {want["segments"]}')
            check(got['allocations'] == want['allocations'],
                  f'{name} at {at}: allocations {got["allocations"]} != {want["allocations"]}')
            if cut == 0 or got['estimated_blocks'] == 0:
                for key, wkey in (('allocated_bytes', 'allocated'), ('active_bytes', 'active'),
                                  ('largest_free_block_bytes', 'largest_free')):
                    check(got[key] == want[wkey], f'{name} at {at}: {key} {got[key]} != {want[wkey]}')
            if cut == 0:
                check(got['estimated_blocks'] == 0, f'{name} at {at}: nothing estimated in a whole trace')


def test_cases(exe, tmp):
    outdir = os.path.join(tmp, 'cases')
    make_snapshots.cases(outdir)
    with open(os.path.join(outdir, 'manifest.json')) as f:
        manifest = json.load(f)
    asked_device = False
    for name, expect in manifest.items():
        path = os.path.join(outdir, name + '.pickle')
        if 'error' in expect:
            out = subprocess.run([exe, 'snapshot', path, '--json'], capture_output=True, text=True,
                                 env=dict(os.environ, LANGUAGE='en', LC_ALL='C.UTF-8'))
            check(out.returncode == 1 and expect['error'] in out.stderr,
                  f'{name}: refused with “{expect["error"]}”: {out.returncode} {out.stderr}')
            continue
        if not asked_device:
            # A device the file does not have: both commands refuse it, with status 2.
            asked_device = True
            png = os.path.join(tmp, 'no-device.png')
            for args in (['snapshot', path, '--device', '99'],
                         ['render', path, '--device', '99', '-o', png]):
                out = subprocess.run([exe] + args, capture_output=True, text=True,
                                     env=dict(os.environ, LANGUAGE='en', LC_ALL='C.UTF-8'))
                check(out.returncode == 2 and 'there is no device 99' in out.stderr
                      and not os.path.exists(png),
                      f'{args[0]} --device 99: {out.returncode} {out.stderr}')
        end = run_snapshot(exe, path)
        for key in ('device', 'devices'):
            if key in expect:
                check(end[key] == expect[key], f'{name}: {key} {end[key]} != {expect[key]}')
        if 'actions' in expect:
            check(end['actions'] == expect['actions'], f'{name}: actions {end["actions"]}')
        for oom in expect.get('ooms', []):
            got = [o for o in end['ooms'] if o['index'] == oom['index']]
            check(len(got) == 1, f'{name}: oom at {oom["index"]}')
            if got:
                check(got[0]['size'] == oom['size'] and got[0]['device_free'] == oom['device_free'],
                      f'{name}: oom size and device_free')
                for text in oom['message_contains']:
                    check(text in got[0]['message'], f'{name}: oom message lacks “{text}”: {got[0]["message"]}')
                if 'expandable_segments_would_help' in oom:
                    check(got[0]['expandable_segments_would_help'] == oom['expandable_segments_would_help'],
                          f'{name}: expandable verdict {got[0]["expandable_segments_would_help"]}')
                if 'largest_usable_block_bytes' in oom:
                    check(got[0]['largest_usable_block_bytes'] == oom['largest_usable_block_bytes'],
                          f'{name}: largest usable block {got[0]["largest_usable_block_bytes"]}')
            if oom.get('text_contains'):
                text = subprocess.run([exe, 'snapshot', path], capture_output=True, text=True, check=True,
                                      env=dict(os.environ, LANGUAGE='en', LC_ALL='C.UTF-8')).stdout
                for part in oom['text_contains']:
                    check(part in text, f'{name}: the text lacks “{part}”: {text}')
        for at, values in expect.items():
            if not at.isdigit():
                continue
            got = run_snapshot(exe, path, '--at', at)
            check(got['inconsistent_entries'] == 0, f'{name}: inconsistent entries')
            for key, value in values.items():
                if key == 'largest':
                    check(got['largest_allocations'] and got['largest_allocations'][0]['where'] == value,
                          f'{name} at {at}: where {got["largest_allocations"]}')
                else:
                    check(got[key] == value, f'{name} at {at}: {key} {got[key]} != {value}')


def test_check_fixture(exe, fixture):
    got = run_check(exe, fixture)
    check_keys(got, 'fixture')
    check(got['allocs'] == 1721 and got['allocs_matched'] == 1721, f'fixture --check: {got}')
    check(got['first_divergence'] is None, f'fixture --check diverged: {got["first_divergence"]}')
    check('PyTorch 2.10' in got['rules'], f'fixture --check rules: {got["rules"]}')


def test_check_cases(exe, tmp):
    """Hand-made traces where PyTorch's choice is not the naive one; the
    expected choices are worked out from CUDACachingAllocator.cpp."""
    MiB = 1 << 20
    A = 0x7f5000000000
    E = make_snapshots.entry
    seg, blk = make_snapshots.segment, make_snapshots.block

    def snapshot(segments, trace, settings=None):
        snap = {'segments': segments, 'device_traces': [trace]}
        if settings:
            snap['allocator_settings'] = settings
        return snap

    cases = {}
    # Ties: two free 4 MiB holes of one large segment; a 4 MiB request takes
    # the lower address (BlockComparatorSize orders by size, then address).
    # Layout at the end: [4 alloc][4 free→taken][4 alloc][4 free][4 alloc]…
    segs = [seg(A, [blk(4 * MiB, 'active_allocated'), blk(4 * MiB, 'active_allocated'),
                    blk(4 * MiB, 'active_allocated'), blk(4 * MiB, 'inactive', 0),
                    blk(4 * MiB, 'active_allocated')])]
    trace = [E('free_requested', A + 4 * MiB, 4 * MiB), E('free_completed', A + 4 * MiB, 4 * MiB),
             E('alloc', A + 4 * MiB, 4 * MiB)]
    cases['tie-lowest-address'] = (snapshot(segs, trace), {'allocs': 1, 'allocs_matched': 1})
    # The same trace claiming the higher hole: the engine must disagree and say why.
    segs = [seg(A, [blk(4 * MiB, 'active_allocated'), blk(4 * MiB, 'inactive', 0),
                    blk(4 * MiB, 'active_allocated'), blk(4 * MiB, 'active_allocated'),
                    blk(4 * MiB, 'active_allocated')])]
    trace = [E('free_requested', A + 12 * MiB, 4 * MiB), E('free_completed', A + 12 * MiB, 4 * MiB),
             E('alloc', A + 12 * MiB, 4 * MiB)]
    cases['tie-wrong'] = (snapshot(segs, trace), {'allocs': 1, 'allocs_matched': 0,
                                                  'divergence': (2, 'took the block at 0x7f5000400000')})
    # Best fit, not first fit: a 3 MiB request skips the 8 MiB hole at the low
    # address for the 4 MiB hole above it (and splits nothing: 1 MiB remains,
    # not more than kSmallSize, so the whole 4 MiB block is handed out).
    segs = [seg(A, [blk(8 * MiB, 'inactive', 0), blk(2 * MiB, 'active_allocated'),
                    blk(4 * MiB, 'active_allocated', 3 * MiB), blk(6 * MiB, 'active_allocated')])]
    trace = [E('free_requested', A + 10 * MiB, 4 * MiB), E('free_completed', A + 10 * MiB, 4 * MiB),
             E('alloc', A + 10 * MiB, 3 * MiB)]
    cases['best-fit'] = (snapshot(segs, trace), {'allocs': 1, 'allocs_matched': 1})
    # max_split_size_mb:16: a 4 MiB request may not take the free 40 MiB
    # (oversize) block, so PyTorch asks for a new 20 MiB segment.
    B = A + 256 * MiB
    segs = [seg(A, [blk(40 * MiB, 'inactive', 0)]),
            seg(B, [blk(4 * MiB, 'active_allocated'), blk(16 * MiB, 'inactive', 0)])]
    trace = [E('segment_alloc', B, 20 * MiB), E('alloc', B, 4 * MiB)]
    settings = {'PYTORCH_CUDA_ALLOC_CONF': 'max_split_size_mb:16', 'max_split_size': 16 * MiB,
                'garbage_collection_threshold': 0.0, 'expandable_segments': False}
    cases['oversize-not-split'] = (snapshot(segs, trace, settings),
                                   {'allocs': 1, 'allocs_matched': 1, 'segment_allocs': 1,
                                    'segment_allocs_matched': 1})
    # Without that setting the same request splits the 40 MiB block instead:
    # the recorded segment_alloc is then a divergence.
    cases['oversize-default'] = (snapshot(segs, trace), {'allocs': 1, 'allocs_matched': 0,
                                                         'segment_allocs': 1, 'segment_allocs_matched': 0})
    # An oom after releasing the cache: the free whole segment goes back
    # first (segment_free), then the 30 MiB segment still does not fit.
    # The cached segment C is in the state before the trace; the end has only A.
    C = A + 512 * MiB
    segs = [seg(A, [blk(20 * MiB, 'active_allocated')])]
    trace = [E('segment_free', C, 20 * MiB), E('oom', 1 * MiB, 30 * MiB)]
    cases['oom-after-release'] = (snapshot(segs, trace), {'ooms': 1, 'ooms_matched': 1, 'segment_frees': 1,
                                                          'segment_frees_matched': 1})

    # A block allocated before the trace began, handed out whole: its 40 MiB free
    # block left 983 040 bytes over a 40 960 000-byte request, not more than
    # kSmallSize, so should_split() kept it one block. The trace records only the
    # request, so its size must come from what followed: an 8 MiB allocation right
    # above it that PyTorch took from a 20 MiB hole, tied with a 20 MiB hole in
    # another segment and chosen for its lower address. (Wedsonlin's real snapshot,
    # PyTorch 2.11, had three such blocks.)
    T = A + 256 * MiB
    segs = [seg(A, [blk(60 * MiB, 'inactive', 0)]),
            seg(T, [blk(20 * MiB, 'active_allocated'), blk(20 * MiB, 'inactive', 0)])]
    trace = [E('alloc', A + 40 * MiB, 8 * MiB),
             E('free_requested', A + 40 * MiB, 8 * MiB), E('free_completed', A + 40 * MiB, 8 * MiB),
             E('free_requested', A, 40960000), E('free_completed', A, 40960000)]
    cases['whole-block-before-trace'] = (snapshot(segs, trace), {'allocs': 1, 'allocs_matched': 1})

    # max_non_split_rounding_mb has no key in allocator_settings; its text has it.
    # A 120 MiB request (at or above max_split_size) may take the cached 150 MiB
    # block when it wastes less than 40 MiB: 30 MiB does (under the default
    # 20 MiB it would need a new segment).
    segs = [seg(A, [blk(150 * MiB, 'active_allocated', 120 * MiB)])]
    trace = [E('alloc', A, 120 * MiB)]
    settings = {'PYTORCH_CUDA_ALLOC_CONF': 'max_split_size_mb:100,max_non_split_rounding_mb:40',
                'max_split_size': 100 * MiB, 'garbage_collection_threshold': 0.0,
                'expandable_segments': False}
    cases['non-split-rounding-from-text'] = (snapshot(segs, trace, settings),
                                             {'allocs': 1, 'allocs_matched': 1})

    # Expandable segments: where each address space begins is in the file. The
    # driver put the small pool's space right after the large pool's, 89.06 GiB
    # above it, as in Constructor-Sun's real snapshot (PyTorch reserves 1 1/8 of
    # the GPU's memory for each; 1 1/8 of 80 GiB, the engine's old guess, would
    # cover the small space's base). The large request maps one 20 MiB page at
    # L (16 MiB, the 4 MiB rest split off: any remainder of 512 bytes is), the
    # 4 KiB one a 2 MiB page at S.
    exp = {'PYTORCH_CUDA_ALLOC_CONF': 'expandable_segments:True', 'max_split_size': -1,
           'garbage_collection_threshold': 0.0, 'expandable_segments': True}
    L = 0x602000000
    S = L + 0x1644000000
    segs = [seg(L, [blk(16 * MiB, 'active_allocated'), blk(4 * MiB, 'inactive', 0)],
                expandable=True),
            seg(S, [blk(4096, 'active_allocated'), blk(2 * MiB - 4096, 'inactive', 0)],
                small=True, expandable=True)]
    trace = [E('segment_map', L, 20 * MiB), E('alloc', L, 16 * MiB),
             E('segment_map', S, 2 * MiB), E('alloc', S, 4096)]
    two_spaces = {'allocs': 2, 'allocs_matched': 2, 'segment_allocs': 2,
                  'segment_allocs_matched': 2, 'first_divergence': None, 'resyncs': 0}
    cases['expandable-two-spaces'] = (snapshot(segs, trace, exp), two_spaces)
    cases['expandable-two-spaces-80G'] = (snapshot(segs, trace, exp), two_spaces,
                                          '--gpu-memory', '80G')
    # A space whose page 1 was unmapped before the trace began: [L, L+20) and
    # [L+40, L+60) mapped and allocated. A 20 MiB request: find_expandable_block()
    # takes the lowest run of free and unmapped memory that holds it, the hole.
    segs = [seg(L, [blk(20 * MiB, 'active_allocated'), blk(20 * MiB, 'active_allocated'),
                    blk(20 * MiB, 'active_allocated')], expandable=True)]
    trace = [E('segment_map', L + 20 * MiB, 20 * MiB), E('alloc', L + 20 * MiB, 20 * MiB)]
    cases['expandable-fills-hole'] = (snapshot(segs, trace, exp),
                                      {'allocs': 1, 'allocs_matched': 1, 'segment_allocs': 1,
                                       'segment_allocs_matched': 1, 'first_divergence': None})
    # The same start, claiming the pages after the second range: the engine
    # must disagree, and say which page of which space, and why.
    segs = [seg(L, [blk(20 * MiB, 'active_allocated')], expandable=True),
            seg(L + 40 * MiB, [blk(20 * MiB, 'active_allocated'),
                               blk(20 * MiB, 'active_allocated')], expandable=True)]
    trace = [E('segment_map', L + 60 * MiB, 20 * MiB), E('alloc', L + 60 * MiB, 20 * MiB)]
    cases['expandable-wrong-page'] = (snapshot(segs, trace, exp), {
        'allocs': 1, 'allocs_matched': 0, 'segment_allocs': 1, 'segment_allocs_matched': 0,
        'map-divergence': (0, 'mapped 20.00 MiB at 0x603400000: page 1 of the large-pool space '
                              'at 0x602000000 (stream 0); in the same space '
                              'find_expandable_block() found its lowest run of free and unmapped '
                              'memory that holds the request elsewhere',
                           'mapped 20.00 MiB at 0x605c00000: page 3 of the large-pool space at '
                           '0x602000000 (stream 0)')})

    # empty_cache() unmaps every page of a space; release_expandable_segment()
    # then gives the address space back, and the driver hands the same range to
    # the next reservation: the replay must let it.
    segs = [seg(L, [blk(40 * MiB, 'active_allocated')], expandable=True)]
    trace = [E('segment_map', L, 40 * MiB), E('alloc', L, 30 * MiB),
             E('free_requested', L, 30 * MiB), E('free_completed', L, 30 * MiB),
             E('segment_unmap', L, 40 * MiB), E('segment_map', L, 40 * MiB),
             E('alloc', L, 40 * MiB)]
    cases['expandable-space-given-back'] = (snapshot(segs, trace, exp), {
        'allocs': 2, 'allocs_matched': 2, 'segment_allocs': 2, 'segment_allocs_matched': 2,
        'segment_frees': 1, 'segment_frees_matched': 1, 'empty_caches': 1,
        'first_divergence': None})

    for name, (snap, expect, *args) in cases.items():
        path = os.path.join(tmp, f'check-{name}.pickle')
        make_snapshots.dump(snap, path)
        got = run_check(exe, path, *args)
        check_keys(got, name)
        for key, value in expect.items():
            if key == 'map-divergence':
                d = got['first_divergence']
                check(d is not None and d['index'] == value[0] and d['engine'].startswith(value[1])
                      and d['pytorch'] == value[2], f'check {name}: divergence {d}')
            elif key == 'divergence':
                d = got['first_divergence']
                check(d is not None and d['index'] == value[0] and d['engine'] == value[1],
                      f'check {name}: divergence {d}')
                check(d is not None and len(d['candidates']) >= 2, f'check {name}: candidates {d}')
            else:
                check(got[key] == value, f'check {name}: {key} {got[key]} != {value} ({got})')


# What the user's line must be, worked out here from the frames themselves
# (the rule of the issue "Your own run, understood"), for the lab's answer to
# be compared with.
CAPTURE = ('torch::unwind::', 'torch::CapturedTraceback::', 'gather_with_cpp',
           'c10::cuda::CUDACachingAllocator::')


def is_python(frame):
    f = frame['filename']
    return f.endswith('.py') or (f.startswith('<') and f.endswith('>'))


def in_torch(frame):
    f = frame['filename'].replace('\\', '/')
    return '/torch/' in f or f.startswith('torch/')


def installed(frame):
    f = frame['filename']
    return ('site-packages' in f or 'dist-packages' in f or '/lib/python' in f or '\\Lib\\' in f or
            '\\lib\\' in f.lower() and 'python' in f.lower() or f.startswith('<frozen') or
            f.startswith('<string>') or f.startswith('<built-in'))


def label(frame):
    base = frame['filename'].replace('\\', '/').rsplit('/', 1)[-1]
    if frame['line'] > 0:
        return f'{base}:{frame["line"]} {frame["name"]}'
    return f'{base} {frame["name"]}'


def expected_python_where(frames):
    """The user's line when the stack has Python frames, else None."""
    py = [f for f in frames if is_python(f)]
    for f in py:
        if not in_torch(f) and not installed(f):
            return label(f)
    for f in py:
        if not in_torch(f):
            return label(f)
    return label(py[0]) if py else None


def alloc_frames_at(trace, at):
    """The frames of each block live after @at entries, by address, from the
    allocs (the latest one at an address wins)."""
    frames = {}
    for e in trace[:at]:
        if e['action'] == 'alloc':
            frames[e['addr']] = e.get('frames', [])
    return frames


def test_all_fixtures(exe):
    """Every real snapshot: where, categories, the device, the comparison."""
    paths = fixtures.all_snapshots()
    for path in paths:
        name = os.path.basename(path)
        with open(path, 'rb') as f:
            snap = pickle.load(f)
        if isinstance(snap, list):
            snap = {'segments': snap, 'device_traces': []}
        end = run_snapshot(exe, path)
        device = end['device']
        traces = snap.get('device_traces') or []
        trace = traces[device] if device < len(traces) else []
        n = len(trace)

        # The device: the first oom's, else the busiest trace.
        ooms = [(e.get('time_us', 0), d)
                for d, t in enumerate(traces) for e in t if e['action'] == 'oom']
        if ooms:
            check(device == min(ooms)[1],
                  f'{name}: opens on cuda:{device}, the oom is on {min(ooms)[1]}')
        elif traces and any(traces):
            check(len(trace) == max(len(t) for t in traces),
                  f'{name}: cuda:{device} is not the busiest')
        check(len(end['per_device']) == end['devices'], f'{name}: per_device has every device')
        for d, info in enumerate(end['per_device']):
            t = traces[d] if d < len(traces) else []
            check(info['index'] == d and info['trace_entries'] == len(t) and
                  info['ooms'] == sum(1 for e in t if e['action'] == 'oom') and
                  info['segments'] == sum(1 for s in snap['segments'] if s.get('device', 0) == d),
                  f'{name}: per_device {info}')

        # The user's line, never PyTorch's own where the stack has Python frames.
        peak = end['peak']
        for at in sorted({n, peak['index'], n // 2}):
            got = end if at == n else run_snapshot(exe, path, '--at', str(at))
            if at == n:
                by_address = {b['address']: b.get('frames', [])
                              for s in snap['segments'] if s.get('device', 0) == device
                              for b in s['blocks'] if 'address' in b}
            else:
                by_address = alloc_frames_at(trace, at)
            for big in got['largest_allocations']:
                frames = by_address.get(big['address'])
                if frames is None:
                    continue    # made before the trace: its frames are not in it
                want = expected_python_where(frames)
                if want is not None:
                    check(big['where'] == want,
                          f'{name} at {at}: where {big["where"]!r}, want {want!r}')
                elif frames:
                    check(big['where'] is not None and not any(c in big['where'] for c in CAPTURE),
                          f'{name} at {at}: where {big["where"]!r} is the capture machinery')
            for line in got['peak']['by_where']:
                check(line['where'] is None or not any(c in line['where'] for c in CAPTURE),
                      f'{name}: peak line {line["where"]!r} is the capture machinery')
            # The categories sum exactly to what is allocated.
            check(sum(got['by_category'].values()) == got['allocated_bytes'],
                  f'{name} at {at}: by_category {got["by_category"]} != {got["allocated_bytes"]}')
            check(set(got['by_category']) == {'parameters', 'activations', 'gradients',
                                              'optimizer_state', 'temporary', 'other'},
                  f'{name}: by_category keys')
        for at in (0, n // 3, 2 * n // 3):
            got = run_snapshot(exe, path, '--at', str(at))
            check(sum(got['by_category'].values()) == got['allocated_bytes'],
                  f'{name} at {at}: by_category {got["by_category"]} != {got["allocated_bytes"]}')
        check(sum(peak['by_category'].values()) == peak['allocated_bytes'],
              f'{name}: the peak\'s categories')
        check(sum(w['bytes'] for w in peak['by_where']) <= peak['allocated_bytes'],
              f'{name}: peak lines')
        # No stream holds more at its own peak than all of them at theirs; one
        # stream's peak is the peak.
        streams = [s['peak_allocated_bytes'] for s in peak['per_stream']]
        check(all(b <= peak['allocated_bytes'] for b in streams), f'{name}: per_stream {streams}')
        if len(streams) == 1:
            check(streams[0] == peak['allocated_bytes'], f'{name}: one stream’s peak {streams}')
        if n > 0:
            most = max(run_snapshot(exe, path, '--at', str(a))['allocated_bytes']
                       for a in (0, peak['index'], n))
            check(peak['allocated_bytes'] == most, f'{name}: the peak is the most allocated')

        # A file compared with itself shows no difference.
        same = json.loads(subprocess.run([exe, 'snapshot', path, '--compare', path, '--json'],
                                         capture_output=True, text=True, check=True).stdout)
        check(same['by_where'] == [] and same['a'] == same['b'],
              f'{name}: compared with itself {same["by_where"][:2]}')
        check(same['a']['peak_allocated_bytes'] == peak['allocated_bytes'],
              f'{name}: comparison peak')

    # Training runs with AdamW: optimizer state at the end, three named
    # categories at the peak; and the two compared.
    a, b = fixtures.require(
        'Wedsonlin_assignment2-systems_medium_512_training_memory_snapshot.pickle',
        'kkaitlyn111_cs336-a2-systems_memory_ctx512_fullstep_.pickle')
    for path in (a, b):
        end = run_snapshot(exe, path)
        check(end['by_category']['optimizer_state'] > 0, f'{path}: no optimizer state at the end')
        named = [k for k, v in end['peak']['by_category'].items() if v > 0 and k != 'other']
        check(len(named) >= 3, f'{path}: categories at the peak {end["peak"]["by_category"]}')
    cmp = json.loads(subprocess.run([exe, 'snapshot', a, '--compare', b, '--json'],
                                    capture_output=True, text=True, check=True).stdout)
    diffs = [abs(w['a_bytes'] - w['b_bytes']) for w in cmp['by_where']]
    check(diffs == sorted(diffs, reverse=True) and all(d > 0 for d in diffs) and diffs,
          'compare: by_where sorted by the difference')
    check(cmp['a']['peak_allocated_bytes'] == run_snapshot(exe, a)['peak']['allocated_bytes'] and
          cmp['b']['peak_allocated_bytes'] == run_snapshot(exe, b)['peak']['allocated_bytes'],
          'compare: the peaks are each file\'s')
    for side in ('a', 'b'):
        check(set(cmp[side]) >= {'peak_allocated_bytes', 'peak_reserved_bytes', 'by_category'},
              f'compare: keys of {side}')


def main():
    exe, engine_trace = sys.argv[1], sys.argv[2]
    if sys.argv[3:] == ['--all-real']:
        test_all_fixtures(exe)
    elif sys.argv[3:] == ['--real']:
        fixture, = fixtures.require('magma27_memory_snapshot.pickle')
        test_check_fixture(exe, fixture)
        test_fixture(exe, fixture)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            test_check_cases(exe, tmp)
            test_cases(exe, tmp)
            test_engine(exe, engine_trace, tmp)
    print(f'{checks} checks, {len(failures)} failed')
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()

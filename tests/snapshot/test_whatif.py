#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`gpu-memory-lab snapshot FILE --what-if CONF … [--fits]`: a recorded run replayed
under other allocator settings and GPU sizes.

  test_whatif.py GPU_MEMORY_LAB            hand-made snapshots (make_snapshots.py)
  test_whatif.py GPU_MEMORY_LAB --real     the real snapshots (skipped, 77, without
                                           GML_SNAPSHOT_FIXTURES)

Hand-made traces, each worked out from c10/cuda/CUDACachingAllocator.cpp:

- fragmentation that expandable segments remove: on a 100 MiB GPU, 40 MiB freed and
  taken again by 10 MiB (split), a second 40 MiB segment, another 10 MiB; a 30 MiB
  request then finds 20 MiB free in a segment a live tensor holds, nothing cached to
  give back, and runs out of memory. With expandable_segments:True the pieces are one
  growing segment: 60 MiB mapped after the fourth request, 40 more for the fifth:
  100 MiB reserved, no out of memory.
- a large block max_split_size_mb keeps whole: on a 150 MiB GPU, a freed 100 MiB block
  is split by a 5 MiB request, and the next 100 MiB request runs out of memory. With
  max_split_size_mb:64 the 5 MiB request may not split an oversize block and gets a
  20 MiB segment of its own; the 100 MiB request takes the whole block (it wastes
  less than max_non_split_rounding_mb's 20 MiB): 120 MiB reserved, no out of memory.

The real snapshots: the run as recorded reproduces the recorded peak of reserved
memory to the byte on every device trace; Constructor-Sun's cuda:1 (expandable
segments, an OOM) gets its OOM back at its entry, none on a 160 GiB GPU, and the
smallest GPU it replays on fits while 64 MiB less does not.
"""

import json
import os
import pickle
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'common'))
import fixtures  # noqa: E402
import make_snapshots as mk  # noqa: E402

MiB = 1 << 20
GiB = 1 << 30
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print('FAIL:', what)
    else:
        print('ok:', what)


def what_if(exe, path, *args, expect=0):
    run = subprocess.run([exe, 'snapshot', path, '--json', *args], capture_output=True, text=True,
                         env=dict(os.environ, LANGUAGE='en'))
    check(run.returncode == expect, f'{os.path.basename(path)} {" ".join(args)}: exit {run.returncode} '
                                    f'(expected {expect}) {run.stderr.strip()}')
    return json.loads(run.stdout) if run.returncode == 0 else run


def fragmentation_case(tmp):
    A, B = 0x7f5000000000, 0x7f5010000000
    E = mk.entry
    trace = [E('segment_alloc', A, 40 * MiB), E('alloc', A, 40 * MiB),
             E('free_requested', A, 40 * MiB), E('free_completed', A, 40 * MiB),
             E('alloc', A, 10 * MiB),
             E('segment_alloc', B, 40 * MiB), E('alloc', B, 40 * MiB),
             E('alloc', A + 10 * MiB, 10 * MiB),
             E('oom', 20 * MiB, 30 * MiB)]
    segs = [mk.segment(A, [mk.block(10 * MiB, 'active_allocated'), mk.block(10 * MiB, 'active_allocated'),
                           mk.block(20 * MiB, 'inactive', 0)]),
            mk.segment(B, [mk.block(40 * MiB, 'active_allocated')])]
    path = os.path.join(tmp, 'fragmentation.pickle')
    mk.dump({'segments': segs, 'device_traces': [trace]}, path)
    return path, len(trace) - 1


def empty_cache_case(tmp):
    """A program that calls empty_cache(): segment A given back while B keeps a live
    block, then a request B's free piece serves (PyTorch never asks the GPU then, so the
    segment_free was empty_cache(), not a retry). Returns the path and the entry index of
    that segment_free."""
    A, B = 0x7f5000000000, 0x7f5010000000
    E = mk.entry
    trace = [E('segment_alloc', A, 20 * MiB), E('alloc', A, 20 * MiB),
             E('segment_alloc', B, 20 * MiB), E('alloc', B, 10 * MiB),
             E('free_requested', A, 20 * MiB), E('free_completed', A, 20 * MiB),
             E('segment_free', A, 20 * MiB),
             E('alloc', B + 10 * MiB, 4 * MiB)]
    segs = [mk.segment(B, [mk.block(10 * MiB, 'active_allocated'), mk.block(4 * MiB, 'active_allocated'),
                           mk.block(6 * MiB, 'inactive', 0)])]
    path = os.path.join(tmp, 'empty-cache.pickle')
    mk.dump({'segments': segs, 'device_traces': [trace]}, path)
    return path, 6


def oversize_case(tmp):
    A = 0x7f5000000000
    E = mk.entry
    trace = [E('segment_alloc', A, 100 * MiB), E('alloc', A, 100 * MiB),
             E('free_requested', A, 100 * MiB), E('free_completed', A, 100 * MiB),
             E('alloc', A, 5 * MiB),
             E('oom', 50 * MiB, 100 * MiB)]
    segs = [mk.segment(A, [mk.block(5 * MiB, 'active_allocated'), mk.block(95 * MiB, 'inactive', 0)])]
    path = os.path.join(tmp, 'oversize.pickle')
    mk.dump({'segments': segs, 'device_traces': [trace]}, path)
    return path, len(trace) - 1


def test_cases(exe, tmp):
    path, oom = fragmentation_case(tmp)
    got = what_if(exe, path, '--what-if', 'expandable_segments:True')
    recorded, expandable = got['what_if']
    check(got['gpu_memory_source'] == f'from the OOM at entry {oom}',
          f'fragmentation: the GPU from the OOM ({got["gpu_memory_source"]})')
    check(recorded['as_recorded'] and recorded['gpu_memory_bytes'] == 100 * MiB,
          f'fragmentation: as recorded, on 80 MiB reserved + 20 MiB free ({recorded})')
    check(recorded['ooms'] == 1 and recorded['first_oom_index'] == oom,
          f'fragmentation: the OOM comes back at entry {oom} ({recorded})')
    check(recorded['peak_reserved_bytes'] == 80 * MiB and recorded['segments_at_peak'] == 2,
          f'fragmentation: as recorded, 80 MiB in two segments ({recorded})')
    check(abs(recorded['fragmentation_at_peak'] - 0.0) < 1e-9,
          f'fragmentation: at the peak the one free piece is the largest ({recorded})')
    check(not expandable['as_recorded'] and expandable['alloc_conf'] == 'expandable_segments:True',
          f'fragmentation: the second run is the CONF given ({expandable})')
    check(expandable['ooms'] == 0 and expandable['first_oom_index'] is None,
          f'fragmentation: expandable segments leave no OOM ({expandable})')
    check(expandable['peak_reserved_bytes'] == 100 * MiB,
          f'fragmentation: expandable, 100 MiB mapped at the end ({expandable})')
    check(expandable['peak_allocated_bytes'] == 90 * MiB,
          f'fragmentation: 10 + 40 + 10 + 30 MiB allocated at the peak ({expandable})')
    check(recorded['peak_allocated_bytes'] == 60 * MiB,
          f'fragmentation: as recorded the program peaks at 60 MiB, cut short ({recorded})')

    # The GPU given wins over the OOM's, for every run.
    got = what_if(exe, path, '--what-if', 'expandable_segments:True', '--gpu-memory', '1G')
    check(got['gpu_memory_source'] == 'given' and all(r['gpu_memory_bytes'] == GiB for r in got['what_if']),
          f'--gpu-memory sets every run ({got["gpu_memory_source"]})')
    check(all(r['ooms'] == 0 for r in got['what_if']), 'on 1 GiB neither runs out of memory')

    # The smallest GPU: 100 MiB with expandable segments, as worked out above.
    got = what_if(exe, path, '--what-if', 'expandable_segments:True', '--fits')
    check(got['smallest_gpu_bytes_by_conf'] == {'expandable_segments:True': 100 * MiB},
          f'--fits: expandable segments need 100 MiB ({got.get("smallest_gpu_bytes_by_conf")})')
    check(got['smallest_gpu_bytes'] > 100 * MiB and got['smallest_gpu_bytes'] % (2 * MiB) == 0,
          f'--fits: as recorded more than 100 MiB, to 2 MiB ({got.get("smallest_gpu_bytes")})')

    path, oom = oversize_case(tmp)
    got = what_if(exe, path, '--what-if', 'max_split_size_mb:64')
    recorded, split = got['what_if']
    check(recorded['gpu_memory_bytes'] == 150 * MiB and recorded['ooms'] == 1 and
          recorded['first_oom_index'] == oom, f'oversize: as recorded the OOM returns ({recorded})')
    check(split['ooms'] == 0 and split['peak_reserved_bytes'] == 120 * MiB,
          f'oversize: max_split_size_mb:64 keeps the block whole, 120 MiB reserved ({split})')
    check(split['segments_at_peak'] == 2, f'oversize: the 5 MiB request got a segment of its own ({split})')

    # Wrong settings are refused before anything is replayed.
    run = what_if(exe, path, '--what-if', 'max_split_size_mb:banana', expect=2)
    check('banana' in run.stderr and 'max_split_size_mb' in run.stderr, f'a wrong CONF says why: {run.stderr}')

    # No OOM and no retry: nothing tells the GPU's size.
    cases = os.path.join(tmp, 'cases')
    mk.cases(cases)
    got = what_if(exe, os.path.join(cases, 'long.pickle'), '--what-if', 'roundup_power2_divisions:4')
    check(got['gpu_memory_source'] == 'unbounded' and got['what_if'][0]['gpu_memory_bytes'] is None,
          f'no OOM: unbounded ({got["gpu_memory_source"]})')
    check(got['what_if'][0]['peak_allocated_bytes'] == got['what_if'][1]['peak_allocated_bytes'],
          'with no OOM, every run allocates the same (the program’s own requests)')
    # The snapshot's own keys are there, unchanged.
    plain = what_if(exe, os.path.join(cases, 'long.pickle'))
    check(all(got[k] == plain[k] for k in plain), 'the snapshot’s other keys are unchanged')


def recorded_peak(snapshot, device):
    """The peak of reserved memory over the trace, walking back from the end's segments."""
    trace = snapshot['device_traces'][device]
    reserved = sum(s['total_size'] for s in snapshot['segments'] if s.get('device', 0) == device)
    peak = reserved
    for e in reversed(trace):
        if e['action'] in ('segment_alloc', 'segment_map'):
            reserved -= e['size']
        elif e['action'] in ('segment_free', 'segment_unmap'):
            reserved += e['size']
        peak = max(peak, reserved)
    return peak


def test_real(exe):
    compared = 0
    for path in fixtures.all_snapshots():
        with open(path, 'rb') as f:
            snapshot = pickle.load(f)
        if not isinstance(snapshot, dict):
            continue
        for device, trace in enumerate(snapshot.get('device_traces', [])):
            if not any(e['action'] == 'alloc' for e in trace):
                continue
            got = what_if(exe, path, '--device', str(device), '--what-if', 'expandable_segments:True')
            want = recorded_peak(snapshot, device)
            compared += 1
            check(got['what_if'][0]['peak_reserved_bytes'] == want,
                  f'{os.path.basename(path)} cuda:{device}: as recorded, the recorded peak {want} '
                  f'({got["what_if"][0]["peak_reserved_bytes"]}, GPU {got["gpu_memory_source"]})')
    check(compared >= 14, f'{compared} device traces compared')

    path, = fixtures.require('Constructor-Sun_code_location_memory_snapshot.pickle')
    with open(path, 'rb') as f:
        trace = pickle.load(f)['device_traces'][1]
    oom = next(i for i, e in enumerate(trace) if e['action'] == 'oom')
    got = what_if(exe, path, '--device', '1', '--fits')
    recorded = got['what_if'][0]
    check(got['gpu_memory_source'] == f'from the OOM at entry {oom}', f'Constructor-Sun: {got["gpu_memory_source"]}')
    check(recorded['ooms'] >= 1 and recorded['first_oom_index'] == oom,
          f'Constructor-Sun cuda:1: as recorded the OOM comes back at entry {oom} ({recorded})')
    big = what_if(exe, path, '--device', '1', '--what-if', 'expandable_segments:True', '--gpu-memory', '160G')
    check(all(r['ooms'] == 0 for r in big['what_if']), f'Constructor-Sun cuda:1: none on 160 GiB ({big["what_if"]})')
    smallest = got['smallest_gpu_bytes']
    for less, ooms in ((0, 0), (64 * MiB, None)):
        run = what_if(exe, path, '--device', '1', '--what-if', 'expandable_segments:True',
                      '--gpu-memory', str(smallest - less))['what_if'][0]
        if ooms == 0:
            check(run['ooms'] == 0, f'Constructor-Sun cuda:1: {smallest} bytes fit ({run})')
        else:
            check(run['ooms'] > 0, f'Constructor-Sun cuda:1: 64 MiB less does not ({run})')


def main():
    exe = sys.argv[1]
    if sys.argv[2:] == ['--real']:
        test_real(exe)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            test_cases(exe, tmp)
    print(f'{checks} checks, {len(failures)} failed')
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()

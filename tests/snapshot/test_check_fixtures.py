#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`snapshot FILE --check` on every real snapshot of the fixtures folder.

test_check_fixtures.py GPU_MEMORY_LAB

Walks every *.pickle in GML_SNAPSHOT_FIXTURES (skipped, 77, without it) and
every device of each whose trace has entries, prints the table of what the
lab's allocator decided as PyTorch did (allocations, segment decisions:
segment_alloc, segment_free, segment_map and segment_unmap entries, and
out-of-memory errors), and fails unless every count is matched in full and no
replay diverged or had to be set back to the snapshot's own state.
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
import fixtures  # noqa: E402


def run(exe, *args):
    p = subprocess.run([exe, 'snapshot', *args], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f'snapshot {" ".join(args)}: exit {p.returncode}: {p.stderr.strip()}')
    return json.loads(p.stdout)


def main():
    exe = sys.argv[1]
    paths = fixtures.all_snapshots()
    rows, failures = [], []
    for path in paths:
        name = os.path.basename(path)
        try:
            devices = run(exe, path, '--json')['devices']
        except (RuntimeError, ValueError) as e:
            failures.append(f'{name}: {e}')
            continue
        for device in range(devices):
            try:
                c = run(exe, path, '--check', '--json', '--device', str(device))
            except (RuntimeError, ValueError) as e:
                failures.append(f'{name} device {device}: {e}')
                continue
            if c['trace_entries'] == 0:
                continue
            seg = c['segment_allocs'] + c['segment_frees']
            seg_matched = c['segment_allocs_matched'] + c['segment_frees_matched']
            rows.append((name, device, c['trace_entries'], c['allocs_matched'], c['allocs'],
                         seg_matched, seg, c['ooms_matched'], c['ooms'], c['resyncs']))
            if (c['allocs_matched'] != c['allocs'] or seg_matched != seg or
                    c['ooms_matched'] != c['ooms'] or c['first_divergence'] is not None or
                    c['resyncs'] != 0):
                failures.append(f'{name} device {device}: {c["first_divergence"]}')

    print('| snapshot | device | entries | allocations | segment decisions | OOMs | resyncs |')
    print('| --- | --- | --- | --- | --- | --- | --- |')
    for name, dev, n, am, a, sm, sg, om, o, rs in rows:
        print(f'| {name} | {dev} | {n} | {am}/{a} | {sm}/{sg} | {om}/{o} | {rs} |')
    total = [sum(r[i] for r in rows) for i in range(3, 9)]
    print(f'| all {len(paths)} files | | | {total[0]}/{total[1]} | {total[2]}/{total[3]} '
          f'| {total[4]}/{total[5]} | |')
    for f in failures:
        print(f'FAIL: {f}')
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()

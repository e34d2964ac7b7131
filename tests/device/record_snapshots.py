#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Records PyTorch memory snapshots of short training loops on a real GPU,
under several allocator settings, and runs `gpu-memory-lab snapshot FILE
--check --json` on each: the lab's allocator must make PyTorch's choices.

  record_snapshots.py --gml GPU_MEMORY_LAB --out DIR --results RESULTS.md

Each setting runs in its own Python process, since the allocator settings are
read when CUDA starts (PYTORCH_ALLOC_CONF, and PYTORCH_CUDA_ALLOC_CONF, the name
PyTorch before 2.9 reads: both are set). The snapshots are kept in DIR/snapshots (small: a few
steps of a small model) to be committed as test data. Exit status: 0 when all
ran and matched, 1 when one diverged, 2 when something could not run.
"""

import argparse
import json
import os
import subprocess
import sys

SETTINGS = [
    # name, PYTORCH_ALLOC_CONF, workload
    ('default', '', 'train'),
    ('max-split-size', 'max_split_size_mb:64', 'train'),
    ('max-non-split-rounding', 'max_split_size_mb:64,max_non_split_rounding_mb:128', 'train'),
    ('roundup-power2', 'roundup_power2_divisions:4', 'train'),
    ('roundup-power2-list', 'roundup_power2_divisions:[64:8,256:4,>:1]', 'train'),
    ('expandable-segments', 'expandable_segments:True', 'train'),
    # empty_cache() unmaps every page: the address space is given back and reserved again.
    ('expandable-empty-cache', 'expandable_segments:True', 'empty_cache'),
    ('expandable-oom-retry', 'expandable_segments:True', 'oom'),
    ('two-streams', '', 'streams'),
    ('oom-retry', '', 'oom'),
    ('empty-cache', '', 'empty_cache'),
    # Accepted and without effect on block choice: the check must match as for 'default'.
    ('settings-without-effect', 'release_lock_on_cudamalloc:True,pinned_num_register_threads:8',
     'train'),
]

WORKLOAD = r'''
import sys, torch
name, kind, path = sys.argv[1], sys.argv[2], sys.argv[3]
torch.manual_seed(0)
dev = torch.device('cuda')
torch.cuda.memory._record_memory_history(max_entries=200000)

def model():
    layers = []
    for _ in range(6):
        layers += [torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)]
    return torch.nn.Sequential(*layers).to(dev)

if kind in ('train', 'empty_cache'):
    m = model()
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
    for step in range(4):
        x = torch.randn(64 + 32 * step, 1024, device=dev)
        loss = m(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if kind == 'empty_cache' and step == 1:
            del x, loss
            torch.cuda.empty_cache()
elif kind == 'streams':
    side = torch.cuda.Stream()
    a = torch.randn(4096, 4096, device=dev)
    for step in range(6):
        with torch.cuda.stream(side):
            b = a @ a
        b.record_stream(torch.cuda.current_stream())
        torch.cuda.current_stream().wait_stream(side)
        c = b.sum()
        del b
        tmp = torch.empty(8 << 20, dtype=torch.uint8, device=dev)
        del tmp
    torch.cuda.synchronize()
elif kind == 'oom':
    torch.cuda.set_per_process_memory_fraction(0.01)
    keep = [torch.empty(64 << 20, dtype=torch.uint8, device=dev) for _ in range(4)]
    try:
        huge = torch.empty(1 << 34, dtype=torch.uint8, device=dev)
    except torch.cuda.OutOfMemoryError:
        pass
    del keep[1]
    retry = torch.empty(48 << 20, dtype=torch.uint8, device=dev)
torch.cuda.synchronize()
torch.cuda.memory._dump_snapshot(path)
print(torch.cuda.get_device_properties(0).total_memory)
print(torch.__version__)
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--gml', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--results', required=True)
    ap.add_argument('--python', default=sys.executable)
    args = ap.parse_args()

    snapdir = os.path.join(args.out, 'snapshots')
    os.makedirs(snapdir, exist_ok=True)
    lines = ['', '## Snapshots recorded here, checked with `snapshot --check`', '',
             '| setting | PYTORCH_ALLOC_CONF | torch | allocs | segment allocs | segment frees '
             '| ooms | first divergence |',
             '| --- | --- | --- | --- | --- | --- | --- | --- |']
    status = 0
    summary = []
    for name, conf, kind in SETTINGS:
        path = os.path.join(snapdir, f'{name}.pickle')
        env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF=conf, PYTORCH_ALLOC_CONF=conf)
        run = subprocess.run([args.python, '-c', WORKLOAD, name, kind, path], env=env,
                             capture_output=True, text=True, timeout=300)
        if run.returncode != 0 or not os.path.exists(path):
            lines.append(f'| {name} | `{conf}` | | could not record: {run.stderr.strip().splitlines()[-1:]} | | | | |')
            status = max(status, 2)
            continue
        out_lines = run.stdout.strip().splitlines()
        version = out_lines[-1] if out_lines else '?'
        total = out_lines[-2] if len(out_lines) >= 2 else '0'
        # Expandable segments reserve address space in proportion to the GPU's memory.
        check = subprocess.run([args.gml, 'snapshot', path, '--check', '--json', '--gpu-memory', total],
                               capture_output=True, text=True, timeout=600)
        if check.returncode != 0:
            lines.append(f'| {name} | `{conf}` | {version} | check failed: {check.stderr.strip()} | | | | |')
            status = max(status, 2)
            continue
        got = json.loads(check.stdout)
        summary.append({'setting': name, 'conf': conf, 'torch': version, 'check': got})

        def frac(a, b):
            return f"{got[a]}/{got[b]}"

        d = got['first_divergence']
        where = 'none' if d is None else f"entry {d['index']} ({d['action']}): PyTorch {d['pytorch']}; lab {d['engine']}"
        lines.append(f"| {name} | `{conf}` | {version} | {frac('allocs_matched', 'allocs')} | "
                     f"{frac('segment_allocs_matched', 'segment_allocs')} | "
                     f"{frac('segment_frees_matched', 'segment_frees')} | {frac('ooms_matched', 'ooms')} | {where} |")
        if d is not None:
            status = max(status, 1)
    with open(args.results, 'a') as f:
        f.write('\n'.join(lines) + '\n')
    with open(os.path.join(args.out, 'snapshot-checks.json'), 'w') as f:
        json.dump(summary, f, indent=1)
    sys.exit(status)


if __name__ == '__main__':
    main()

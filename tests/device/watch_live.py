#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`gpu-memory-lab watch --json` on a real GPU with PyTorch: exact, and what it costs.

  watch_live.py --gml GPU_MEMORY_LAB --out DIR --results RESULTS.md

1. Exact: a small training loop runs under `watch --json --interval 0.25`. After each
   step it synchronizes, writes torch.cuda.memory_stats()'s allocated, reserved and
   active bytes to a file and rests a second (four updates' time), so the probe reports
   that quiet moment. Every step's figures must be among the lines `watch` printed.
2. Cost: the same kind of loop, timed (200 steps after 20 of warm-up, torch.cuda.
   synchronize() around each), alone, under `watch --json` at 2 updates a second, and
   alone again (how much two plain runs differ is the noise). The probe's cost is the
   watched median step against the faster plain median; it must stay under 5 %.

Exit status: 0 when both hold, 1 when one does not, 2 when something could not run.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

PROGRAM = r'''
import json, sys, time, torch
mode, out = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
dev = torch.device('cuda')
width = 1024 if mode == 'exact' else 4096
layers = []
for _ in range(6):
    layers += [torch.nn.Linear(width, width), torch.nn.GELU()]
model = torch.nn.Sequential(*layers).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

def step(batch):
    x = torch.randn(batch, width, device=dev)
    loss = model(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)

if mode == 'exact':
    seen = []
    for i in range(12):
        step(64 + 32 * (i % 4))
        torch.cuda.synchronize()
        s = torch.cuda.memory_stats()
        seen.append({k: s[k + '.all.current'] for k in ('allocated_bytes', 'reserved_bytes', 'active_bytes')})
        with open(out, 'w') as f:
            json.dump(seen, f)
        time.sleep(1.0)
else:
    times = []
    for i in range(220):
        torch.cuda.synchronize()
        t = time.perf_counter()
        step(512)
        torch.cuda.synchronize()
        if i >= 20:
            times.append(time.perf_counter() - t)
    times.sort()
    with open(out, 'w') as f:
        json.dump({'median_ms': 1000 * times[len(times) // 2], 'steps': len(times)}, f)
'''


def run_watch(gml, interval, program, timeout):
    return subprocess.run([gml, 'watch', '--json', '--interval', str(interval), '--', *program],
                          capture_output=True, text=True, timeout=timeout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--gml', required=True)
    parser.add_argument('--out', required=True)
    parser.add_argument('--results', required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix='gml-watch-live-', dir=args.out)
    report = ['', '## `watch --json` on the GPU (watch_live.py)', '']
    status = 0

    # 1. Exact.
    stats_path = os.path.join(work, 'exact.json')
    try:
        done = run_watch(args.gml, 0.25, [sys.executable, '-c', PROGRAM, 'exact', stats_path], 600)
    except subprocess.TimeoutExpired:
        done = None
    if done is None or done.returncode != 0 or not os.path.exists(stats_path):
        report.append('- Exact: **did not run** (`watch` exit status %s): %s'
                      % (done.returncode if done else 'timeout', (done.stderr if done else '')[-500:]))
        status = 2
    else:
        with open(os.path.join(work, 'exact-watch.jsonl'), 'w') as f:
            f.write(done.stdout)
        lines = [json.loads(l) for l in done.stdout.splitlines() if l.strip()]
        reported = {(l.get('allocated_bytes'), l.get('reserved_bytes'), l.get('active_bytes')) for l in lines}
        with open(stats_path) as f:
            steps = json.load(f)
        missing = [s for s in steps
                   if (s['allocated_bytes'], s['reserved_bytes'], s['active_bytes']) not in reported]
        ok = not missing and len(steps) == 12
        status = max(status, 0 if ok else 1)
        report.append('- Exact: %d of %d steps\' `torch.cuda.memory_stats()` (allocated, reserved, active bytes) '
                      'are among the %d lines `watch --json` printed: **%s**'
                      % (len(steps) - len(missing), len(steps), len(lines), 'yes' if ok else 'no'))
        for s in missing[:3]:
            report.append('  - not reported: %s' % json.dumps(s))

    # 2. Cost.
    medians = {}
    for name, watched in (('plain', False), ('watched', True), ('plain-again', False)):
        out = os.path.join(work, 'bench-%s.json' % name)
        program = [sys.executable, '-c', PROGRAM, 'bench', out]
        try:
            if watched:
                done = run_watch(args.gml, 0.5, program, 900)
            else:
                done = subprocess.run(program, capture_output=True, text=True, timeout=900)
        except subprocess.TimeoutExpired:
            done = None
        if done is None or done.returncode != 0 or not os.path.exists(out):
            report.append('- Cost: the %s run **did not run**: %s' % (name, (done.stderr if done else 'timeout')[-500:]))
            status = 2
            break
        with open(out) as f:
            medians[name] = json.load(f)['median_ms']
    if len(medians) == 3:
        plain = min(medians['plain'], medians['plain-again'])
        cost = 100.0 * (medians['watched'] - plain) / plain
        noise = 100.0 * abs(medians['plain'] - medians['plain-again']) / plain
        ok = cost < 5.0
        status = max(status, 0 if ok else 1)
        report.append('- Cost at 2 updates a second: median training step %.2f ms alone, %.2f ms watched, '
                      '%.2f ms alone again: **%+.1f %%** (two plain runs differ by %.1f %%); under 5 %%: **%s**'
                      % (medians['plain'], medians['watched'], medians['plain-again'], cost, noise,
                         'yes' if ok else 'no'))

    with open(args.results, 'a') as f:
        f.write('\n'.join(report) + '\n')
    print('\n'.join(report))
    return status


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The bank's lab questions against the lab: each question's figures, run again through
`gpu-memory-lab experiment` with the question's own configuration. When the model of a
step changes, the question that quotes it fails here instead of turning wrong.

    test_questions.py GPU_MEMORY_LAB BANK"""

import json
import subprocess
import sys

app, bank_path = sys.argv[1], sys.argv[2]
GiB = 1 << 30
failures = []


def run(config, *extra):
    out = subprocess.run([app, 'experiment', *config.split(), *extra, '--json', '--lang', 'en'],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def check(ok, what):
    print(('ok: ' if ok else 'FAIL: ') + what)
    if not ok:
        failures.append(what)


def gib(n, digits):
    return round(n / GiB, digits)


def state(d):
    f = d['formula']
    return f['weights'] + f['gradients'] + f['optimizer_state']


def adamw_80g(d, c):
    check(not d['fits'] and d['oom_message'], 'Llama 2 7B with mixed-precision AdamW does not fit 80 GiB')
    check('optimizer.step()' in d['peak_at'] and 'step 1' in d['peak_at'], f'it fails in the first optimizer.step(): {d["peak_at"]}')
    check(state(d) == 16 * d['parameters'] and gib(state(d), 1) == 100.4, '16 bytes per parameter, 100.4 GiB')


def zero3(d, c):
    check(d['fits'], 'ZeRO-3 over 8 GPUs fits')
    check(gib(state(d), 2) == 12.55, f'12.55 GiB of model state per GPU ({state(d)})')
    check(gib(d['peak_allocated_bytes'], 1) == 15.9, 'the peak is 15.9 GiB')
    for stage, want in ((1, 34.5), (2, 23.5), (0, 100.4)):
        other = run(c.replace('--zero 3', f'--zero {stage}') if stage else c.replace('--zero 3 --gpus 8 ', ''))
        check(gib(state(other), 1) == want, f'stage {stage}: {want} GiB of model state')


def sequence(d, c):
    short = run(c.replace('--seq 1024', '--seq 512'))
    check(d['formula']['korthikanti_per_layer'] == 717_225_984, 'Korthikanti at s = 1,024: 684 MiB per layer')
    check(short['formula']['korthikanti_per_layer'] == 232_783_872, 'Korthikanti at s = 512: 222 MiB per layer')
    layers = [gib(12 * x['formula']['activations_per_layer'], 2) for x in (short, d)]
    check(layers == [2.60, 8.02], f'the 12 layers keep 2.60 and 8.02 GiB ({layers})')
    logsm = [gib(x['config']['seq'] * 8 * 50257 * 4, 2) for x in (short, d)]
    check(gib(short['by_category']['activations'], 2) == 3.39 and gib(d['by_category']['activations'], 2) == 9.58
          and logsm == [0.77, 1.53], 'the lab keeps 3.39 and 9.58 GiB, with the 0.77 and 1.53 GiB log-softmax')


def kv_cache(d, c):
    check(d['fits'] and d['formula']['kv_cache'] == 16 * GiB, 'batch 8: 16 GiB of KV cache, and it fits')
    check(gib(d['by_category']['kv_cache'], 2) == 16.25, 'the lab holds 16.25 GiB at the peak (torch.cat)')


def kv_max_batch(d, c):
    check(not d['fits'], 'batch 16 does not fit 40 GiB')
    check('token 1229 of 2048' in d['peak_at'], f'batch 16 fails at token 1,229: {d["peak_at"]}')
    check(run(c, '--find-max-batch')['max_batch_that_fits'] == 13, 'the largest batch is 13')


def gqa(d, c):
    check(d['formula']['kv_cache'] == 268_435_456, '256 MiB of KV cache for 8,192 tokens')
    check(round(d['by_category']['kv_cache'] / (1 << 20)) == 264, 'the lab holds 264 MiB at the last token')


def adamw_state(d, c):
    check(d['formula']['optimizer_state'] == 995_518_464, "AdamW's state is 995,518,464 bytes (949.4 MiB)")
    check(any('√v for every parameter at once, 474.7 MiB of temporaries' in n for n in d['notes']),
          'the foreach √v: 474.7 MiB of temporaries at optimizer.step()')


def checkpointing(d, c):
    none = run(c.replace('--checkpointing sqrt', '--checkpointing none'))
    every = run(c.replace('--checkpointing sqrt', '--checkpointing every-1'))
    check(gib(none['by_category']['activations'], 2) == 9.58 and gib(d['by_category']['activations'], 1) == 1.6,
          '9.58 GiB of activations without checkpointing, 1.6 GiB with √N groups')
    check(gib(none['peak_allocated_bytes'], 2) == 14.29 and gib(d['peak_allocated_bytes'], 2) == 6.30,
          'the peak drops from 14.29 to 6.30 GiB')
    check(abs(d['extra_compute'] - 1 / 3) < 1e-9 and abs(every['extra_compute'] - 1 / 3) < 1e-9, '+33 % compute')
    layers = 12 * none['formula']['activations_per_layer']
    check(gib(layers, 2) == 8.02, f'without checkpointing the 12 layers keep 8.02 GiB ({layers})')
    group_inputs = 3 * 2 * 1024 * 8 * 768
    logsm = 8 * 1024 * 50257 * 4
    kept = d['by_category']['activations'] - logsm
    check(group_inputs == 36 << 20 and group_inputs <= kept < group_inputs + (40 << 20),
          f'with √N groups the layers keep the 3 groups\' inputs, 36 MiB (activations less the '
          f'log-softmax: {kept / (1 << 20):.1f} MiB)')
    check('loss' in d['peak_at'] and 'loss' in every['peak_at'], 'both peak at the loss')


def accumulation(d, c):
    check(gib(d['peak_allocated_bytes'], 2) == 8.20, 'micro-batch 4 × 8: the peak is 8.20 GiB')
    plain = run(c.replace(' --accumulation 8', ''))
    extra = d['peak_allocated_bytes'] - plain['peak_allocated_bytes']
    check(gib(plain['peak_allocated_bytes'], 2) == 7.96 and gib(extra, 2) == 0.24
          and d['formula']['gradients'] == 124_439_808 * 2 and plain['by_category']['gradients'] == 0
          and abs(d["by_category"]["gradients"] - extra) < 2 << 20,
          f'batch 4 alone peaks at 7.96 GiB; the 0.24 GiB more are the bf16 gradients ({extra})')
    check(gib(d['by_category']['activations'], 1) == 4.8 and d['by_category']['gradients'] > 0,
          '4.8 GiB of activations beside the accumulated gradients')
    big = run(c.replace('--batch 4', '--batch 32').replace(' --accumulation 8', ''))
    check(not big['fits'] and gib(big['formula']['activations'], 1) == 38.3, 'batch 32 does not fit; 38.3 GiB of activations')


def loss(d, c):
    # Two fp32 gradients of b × s × V, and at most a few small temporaries beside them.
    extra = d['by_category']['temporaries'] - 2 * 8 * 1024 * 50257 * 4
    check(0 <= extra < 1 << 20, f'two fp32 b × s × V gradients at the peak (+{extra} bytes)')
    check(gib(d['peak_allocated_bytes'], 2) == 14.29 and 'loss' in d['peak_at'], 'the peak, 14.29 GiB, is at the loss')


def pure_bf16(d, c):
    amp = run(c.replace('--precision bf16', '--precision amp-bf16'))
    check(gib(amp['peak_allocated_bytes'], 1) == 23.0 and gib(d['peak_allocated_bytes'], 1) == 11.5,
          'the peak goes from 23.0 to 11.5 GiB')
    check(gib(state(amp), 1) == 18.4 and gib(state(d), 1) == 9.2, 'model state 18.4 → 9.2 GiB')


def autocast(d, c):
    fp32 = run(c.replace('autocast-bf16', 'fp32'))
    zero = run(c.replace('autocast-bf16', 'amp-bf16'))
    check(gib(state(d), 2) == gib(state(fp32), 2) == gib(state(zero), 2) == 1.85,
          'torch.autocast, fp32 and the ZeRO layout all keep 1.85 GiB of model state')
    f = d['formula']
    check(f['weights'] == f['gradients'] == 4 * d['parameters'] and f['optimizer_state'] == 8 * d['parameters'],
          'autocast: fp32 weights and gradients, two fp32 moments, no master copy')
    zf = zero['formula']
    check(gib(zf['weights'], 2) == 0.23 and gib(zf['optimizer_state'], 2) == 1.39, 'the ZeRO split: 0.23 and 1.39 GiB')
    acts = [gib(x['by_category']['activations'], 2) for x in (fp32, d)]
    check(round(acts[0], 1) == 16.4 and acts[1] == 9.75, f'activations 16.4 → 9.75 GiB ({acts})')
    check(round(gib(fp32['peak_allocated_bytes'], 1), 1) == 20.8 and round(gib(d['peak_allocated_bytes'], 1), 1) == 14.2,
          'the peak goes from 20.8 to 14.2 GiB')
    copies = sum(7_087_872 for _ in range(12)) * 2
    extra = d['by_category']['activations'] - zero['by_category']['activations']
    check(gib(copies, 2) == 0.16 and copies <= extra < copies + (16 << 20),
          f'beside the ZeRO layout, autocast keeps the 12 layers\' bf16 weight copies, 0.16 GiB '
          f'(their blocks: {extra})')


def batch_not_double(d, c):
    small = run(c.replace('--batch 8', '--batch 4'))
    p4, p8 = gib(small['peak_allocated_bytes'], 2), gib(d['peak_allocated_bytes'], 2)
    fixed = 2 * small['peak_allocated_bytes'] - d['peak_allocated_bytes']
    at_peak = d['by_category']['weights'] + d['by_category']['optimizer_state']
    check(p4 == 7.96 and p8 == 14.29, f'batch 4 peaks at 7.96 GiB, batch 8 at 14.29 GiB ({p4}, {p8})')
    check(gib(fixed, 2) == 1.63 and abs(fixed - at_peak) < 64 << 20,
          f'2 × 7.96 − 14.29 = 1.63 GiB, the weights and optimizer state at the peak ({gib(at_peak, 2)})')


def first_step(d, c):
    steady = d['steady_step']
    check(gib(d['peak_allocated_bytes'], 2) == 2.89 and gib(steady['peak_allocated_bytes'], 2) == 3.83,
          'the first step peaks at 2.89 GiB, the steady one at 3.83 GiB')
    check(d['by_category']['optimizer_state'] == 0 and 'step 1' in d['peak_at'],
          'the first step peaks before the optimizer state exists')
    check(d['formula']['optimizer_state'] == 995_518_464, 'the moments ask for 949.4 MiB')
    check(round((steady['peak_allocated_bytes'] - d['peak_allocated_bytes']) / (1 << 20)) == 960,
          'the steady step peaks 960 MiB higher')
    check('(957.1 MiB)' in steady['difference'], 'of which the moments\' blocks are 957.1 MiB')


CHECKS = {
    'lab-7b-adamw-80g': adamw_80g, 'lab-7b-zero3': zero3,
    'lab-sequence-activations': sequence, 'lab-kv-cache-7b': kv_cache, 'lab-kv-max-batch': kv_max_batch,
    'lab-gqa-kv-cache': gqa, 'lab-adamw-state': adamw_state, 'lab-checkpoint-cost': checkpointing,
    'lab-accumulation-peak': accumulation, 'lab-loss-peak': loss, 'lab-pure-bf16': pure_bf16,
    'lab-autocast-vs-fp32': autocast, 'lab-batch-not-double': batch_not_double,
    'lab-first-step-peak': first_step,
}

questions = json.load(open(bank_path, encoding='utf-8'))['questions']
lab = [q for q in questions if q.get('experiment', {}).get('kind') == 'lab']
check(len(lab) >= 12, f'the bank has {len(lab)} lab questions (at least 12)')
for q in lab:
    config = q['experiment']['config']
    if q['id'] not in CHECKS:
        check(False, f'{q["id"]}: no check of its figures here')
        continue
    print(f'# {q["id"]}: {config}')
    CHECKS[q['id']](run(config), config)
print(f'{len(failures)} failures')
sys.exit(1 if failures else 0)

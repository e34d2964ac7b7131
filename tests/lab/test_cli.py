#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The `experiment` verb of the real binary: the JSON keys the issue fixed, the
numbers against the formulas computed here independently (Korthikanti et al. 2022,
arXiv:2205.05198, eq. 1; Rajbhandari et al. 2020, arXiv:1910.02054, figure 1; the KV
cache), PyTorch's out-of-memory message, the largest batch, and bad values refused
with a clear message (in Turkish too) and a non-zero exit.

    test_cli.py GPU_MEMORY_LAB"""

import json
import os
import subprocess
import sys
import tempfile

app = sys.argv[1]
failures = []
home = tempfile.mkdtemp(prefix='gml-lab-cli-')


def check(condition, message):
    print(('ok: ' if condition else 'FAIL: ') + message)
    if not condition:
        failures.append(message)


def run(args, lang='en'):
    env = dict(os.environ, HOME=home, XDG_DATA_HOME=os.path.join(home, 'data'),
               XDG_CONFIG_HOME=os.path.join(home, 'config'), LANGUAGE=lang,
               LC_ALL='tr_TR.UTF-8' if lang == 'tr' else 'en_US.UTF-8')
    return subprocess.run([app, 'experiment'] + args, env=env, capture_output=True, text=True)


def experiment(args):
    r = run(args + ['--json'])
    check(r.returncode == 0, f'experiment {" ".join(args)} succeeds ({r.stderr.strip()})')
    return json.loads(r.stdout) if r.returncode == 0 else None


KEYS = ['peak_allocated_bytes', 'peak_reserved_bytes', 'by_category', 'parameters', 'fits', 'oom_message']
CATS = ['weights', 'gradients', 'optimizer_state', 'activations', 'temporaries', 'kv_cache']

# The keys, exactly, first and in order.
d = experiment(['--model', 'gpt2', '--batch', '4', '--seq', '512', '--precision', 'amp-bf16'])
check(list(d.keys())[:len(KEYS)] == KEYS, 'the JSON starts with the issue\'s keys in order')
check(sorted(d['by_category'].keys()) == sorted(CATS), 'by_category has exactly the six categories')
check('max_batch_that_fits' not in d, 'max_batch_that_fits only with --find-max-batch')
check(d['parameters'] == 124439808, 'gpt2 has 124,439,808 parameters')
check(d['fits'] is True and d['oom_message'] is None, 'it fits in 24 GiB, oom_message null')
check(sum(d['by_category'].values()) <= d['peak_allocated_bytes'] <= d['peak_reserved_bytes'],
      'categories at the peak sum to at most the peak, which is at most the reserved peak')

# Model state, 16-bit mixed precision with AdamW: 2 + 2 + 12 bytes a parameter.
n = d['parameters']
check(d['formula']['weights'] == 2 * n and d['formula']['gradients'] == 2 * n
      and d['formula']['optimizer_state'] == 12 * n, 'mixed-precision Adam is 2 + 2 + 12 bytes a parameter')

# Korthikanti et al., s·b·h·(34 + 5·a·s/h), computed here.
s, b, h, a = 512, 4, 768, 12
check(d['formula']['korthikanti_per_layer'] == 34 * s * b * h + 5 * a * s * s * b,
      'korthikanti_per_layer is s·b·h·(34 + 5·a·s/h)')
check(d['formula']['activations_per_layer'] == d['formula']['korthikanti_per_layer'] + 16 * s * b,
      'the lab keeps the paper\'s tensors and LayerNorm\'s statistics (16·s·b)')

# ZeRO stage 3 over 8 GPUs: each GPU keeps 16/8 = 2 bytes a parameter of model state.
z = experiment(['--model', 'gpt2', '--batch', '1', '--seq', '128', '--precision', 'amp-bf16',
                '--optimizer', 'adam', '--zero', '3', '--gpus', '8'])
shard = -(-n // 8)
check(z['formula']['weights'] + z['formula']['gradients'] + z['formula']['optimizer_state'] == 16 * shard,
      'ZeRO-3 on 8 GPUs keeps 16/8 bytes a parameter on one GPU')

# The KV cache: 2 × layers × tokens × kv heads × head dim × bytes × batch.
k = experiment(['--model', 'llama-3.2-1b', '--mode', 'inference', '--seq', '256', '--tokens', '64',
                '--batch', '2', '--precision', 'bf16'])
check(k['formula']['kv_cache'] == 2 * 16 * (256 + 64) * 8 * 64 * 2 * 2, 'the KV cache formula')
check(k['by_category']['kv_cache'] > 0 and k['by_category']['gradients'] == 0,
      'inference keeps a KV cache and no gradients')

# Does not fit: PyTorch's message, fits false, a need.
o = experiment(['--model', 'llama-2-7b', '--batch', '1', '--seq', '1024', '--gpu-memory', '24G'])
check(o['fits'] is False, 'llama-2-7b in fp32 does not fit in 24 GiB')
check(o['oom_message'].startswith('CUDA out of memory. Tried to allocate ')
      and 'GPU 0 has a total capacity of 24.00 GiB' in o['oom_message'], 'the message is PyTorch\'s')
check(o['needed_allocated_bytes'] > 24 << 30, 'it says what it would need')

# The largest batch, checked with two more runs.
m = experiment(['--model', 'gpt2', '--seq', '512', '--precision', 'amp-bf16', '--gpu-memory', '8G',
                '--find-max-batch'])
mb = m['max_batch_that_fits']
check(mb > 0, f'a batch fits in 8 GiB ({mb})')
at = experiment(['--model', 'gpt2', '--seq', '512', '--precision', 'amp-bf16', '--gpu-memory', '8G',
                 '--batch', str(mb)])
over = experiment(['--model', 'gpt2', '--seq', '512', '--precision', 'amp-bf16', '--gpu-memory', '8G',
                   '--batch', str(mb + 1)])
check(at['fits'] and not over['fits'], f'batch {mb} fits and {mb + 1} does not')

# --alloc-conf goes through the allocator's parser.
e = experiment(['--model', 'gpt2', '--batch', '4', '--seq', '256', '--alloc-conf', 'expandable_segments:True'])
check(e['config']['alloc_conf'] == 'expandable_segments:True', 'the allocator settings are kept')

# --step first: the first training step, whose optimizer.step() creates Adam's
# moments (torch/optim/adam.py initialises exp_avg and exp_avg_sq lazily). The
# steady step's JSON is unchanged: no "step" key, no "steady_step".
base = ['--model', 'gpt2', '--batch', '8', '--seq', '1024', '--optimizer', 'adamw']
st = experiment(base)
fs = experiment(base + ['--step', 'first'])
check('step' not in st['config'] and 'steady_step' not in st and '--step' not in st['config']['args'],
      'the steady step\'s JSON has no step keys (as before)')
check(list(fs.keys())[:len(KEYS)] == KEYS, '--step first keeps the issue\'s keys first, in order')
check(fs['config']['step'] == 'first' and fs['config']['args'].endswith('--optimizer adamw --step first --gpu-memory 24G'),
      f'--step first is in the config and its command line: {fs["config"]["args"]}')
check(fs['by_category']['optimizer_state'] == 0
      and st['by_category']['optimizer_state'] >= st['formula']['optimizer_state'] == 8 * 124439808,
      'at the first step\'s peak there is no optimizer state yet; at the steady peak AdamW\'s 8 bytes a '
      f'parameter, in the allocator\'s blocks ({st["by_category"]["optimizer_state"]})')
check(fs['peak_allocated_bytes'] < st['peak_allocated_bytes'],
      f'the first step peaks lower ({fs["peak_allocated_bytes"]} < {st["peak_allocated_bytes"]})')
check(fs['steady_step']['peak_allocated_bytes'] == st['peak_allocated_bytes']
      and fs['steady_step']['peak_reserved_bytes'] == st['peak_reserved_bytes'] and fs['steady_step']['fits'],
      'steady_step holds the steady run\'s peaks')
check(fs['peak_at'].startswith('in step 1, ') and st['peak_at'].startswith('in step 2, '),
      f'the peaks are in step 1 and step 2: {fs["peak_at"]} / {st["peak_at"]}')
check(fs['trace_events'] < st['trace_events'], 'the first step alone has fewer events')
check('less than the steady step' in fs['steady_step']['difference'], fs['steady_step']['difference'])
mlp1 = experiment(['--model', 'mlp', '--optimizer', 'adam', '--step', 'first'])
mlp2 = experiment(['--model', 'mlp', '--optimizer', 'adam'])
check(mlp1['peak_allocated_bytes'] == mlp2['peak_allocated_bytes'] and mlp1['peak_at'] == 'in step 1, during optimizer.step()',
      'the MLP with Adam peaks at the first optimizer.step(), as high as the steady step')
r = run(['--model', 'gpt2', '--step', 'first', '--seq', '256'], lang='tr')
check(r.returncode == 0 and 'İlk adımın tepe noktası' in r.stdout and 'kararlı adımın' in r.stdout,
      'the sentence on the first step, in Turkish')

# Bad values: a clear message, a non-zero exit, and nothing on stdout.
bad = [
    (['--batch', '0'], '--batch'),
    (['--batch', 'many'], '--batch'),
    (['--model', 'gpt5'], '--model'),
    (['--precision', 'fp8'], '--precision'),
    (['--optimizer', 'lion'], '--optimizer'),
    (['--checkpointing', 'sometimes'], '--checkpointing'),
    (['--zero', '5'], '--zero'),
    (['--gpu-memory', 'lots'], '--gpu-memory'),
    (['--alloc-conf', 'max_split_size_mb:x'], '--alloc-conf'),
    (['--mode', 'eval'], '--mode'),
    (['--step', 'third'], '--step'),
    (['--zero', '2'], 'GPU'),
    (['--model', 'gpt2', '--seq', '4096'], '1024'),
    (['--knob', '3'], '--knob'),
    (['stray'], 'stray'),
]
for args, word in bad:
    r = run(args + ['--json'])
    check(r.returncode != 0 and r.stdout == '' and word in r.stderr and 'Traceback' not in r.stderr,
          f'experiment {" ".join(args)} is refused: {r.stderr.strip()[:120]}')
r = run(['--batch', '0', '--json'], lang='tr')
check(r.returncode != 0 and 'tam sayı' in r.stderr, f'in Turkish too: {r.stderr.strip()}')

print(f'{len(failures)} failed')
sys.exit(1 if failures else 0)

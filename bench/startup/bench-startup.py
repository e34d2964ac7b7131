#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time from launch to the first painted frame: GPU Memory Lab against a bare GTK 4
window built here from bare-window.c, on the same display, alternating runs.
A benchmark, not a test. Run it inside a display, e.g.:

    tests/e2e/run-in-session.sh bench/startup/bench-startup.py _build [RUNS]
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '_build')
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
here = os.path.dirname(os.path.abspath(__file__))

bare = os.path.join(tempfile.mkdtemp(), 'bare-window')
cflags = subprocess.run(['pkg-config', '--cflags', '--libs', 'gtk4'], check=True,
                        capture_output=True, text=True).stdout.split()
subprocess.run(['cc', '-O2', '-o', bare, os.path.join(here, 'bare-window.c')] + cflags, check=True)

home = tempfile.mkdtemp()
env = dict(os.environ, GML_BENCH_FIRST_FRAME='1', HOME=home,
           XDG_DATA_HOME=os.path.join(home, 'data'), XDG_CONFIG_HOME=os.path.join(home, 'config'),
           XDG_CACHE_HOME=os.path.join(home, 'cache'), GSETTINGS_BACKEND='memory',
           GSETTINGS_SCHEMA_DIR=os.path.join(build, 'data'),
           GML_LOCALEDIR=os.path.join(build, 'po', 'locale'))
app = os.path.join(build, 'src', 'app', 'gpu-memory-lab')


def once(cmd):
    start = time.monotonic_ns() // 1000
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60).stdout
    line = next(l for l in out.splitlines() if l.startswith('first-frame '))
    return (int(line.split()[1]) - start) / 1000.0


once([bare])
once([app])
bare_ms, app_ms = [], []
for _ in range(runs):
    bare_ms.append(once([bare]))
    app_ms.append(once([app]))

b, a = statistics.median(bare_ms), statistics.median(app_ms)
print(f'renderer: {os.environ.get("GSK_RENDERER", "GTK default")}, {runs} runs each, alternating')
print(f'bare GTK 4 window: median {b:.0f} ms (min {min(bare_ms):.0f}, max {max(bare_ms):.0f})')
print(f'GPU Memory Lab:    median {a:.0f} ms (min {min(app_ms):.0f}, max {max(app_ms):.0f})')
print(f'ratio: {a / b:.2f}x (target: at most 1.5x)')

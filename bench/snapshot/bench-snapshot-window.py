#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time from opening a snapshot to its first picture on screen, in the real window.
The app is started with GML_BENCH_SNAPSHOT set and left to settle, as after a
person chose Open Snapshot…; then a second `gpu-memory-lab FILE` hands it the
file over D-Bus (the same path as a file manager). The app prints when the
Snapshot view started opening the file, when the thread's result reached the
main loop, when the first frame showing it was painted and the CPU time all
its threads used meanwhile, then quits. With --cold the file is given at launch
instead, so the window's own start-up is in the figure. A benchmark, not a test.
Run it inside a display and a D-Bus session, e.g.:

    bench/snapshot/make-snapshot.py /tmp/big.pickle 570000      # about 50 MB
    tests/e2e/run-in-session.sh /usr/bin/python3 bench/snapshot/bench-snapshot-window.py _build /tmp/big.pickle [RUNS] [--cold]
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

cold = '--cold' in sys.argv
args = [a for a in sys.argv[1:] if a != '--cold']
build = os.path.abspath(args[0])
snapshot = os.path.abspath(args[1])
runs = int(args[2]) if len(args) > 2 else 5

home = tempfile.mkdtemp()
env = dict(os.environ, GML_BENCH_SNAPSHOT='1', HOME=home,
           XDG_DATA_HOME=os.path.join(home, 'data'), XDG_CONFIG_HOME=os.path.join(home, 'config'),
           XDG_CACHE_HOME=os.path.join(home, 'cache'), GSETTINGS_BACKEND='memory',
           GSETTINGS_SCHEMA_DIR=os.path.join(build, 'data'),
           GML_LOCALEDIR=os.path.join(build, 'po', 'locale'))
app = os.path.join(build, 'src', 'app', 'gpu-memory-lab')


def once():
    if cold:
        out = subprocess.run([app, snapshot], env=env, capture_output=True, text=True, timeout=120).stdout
    else:
        first = subprocess.Popen([app], env=env, stdout=subprocess.PIPE, text=True)
        time.sleep(5)
        subprocess.run([app, snapshot], env=env, check=True, timeout=60)
        out = first.communicate(timeout=120)[0]
    times = dict(line.split() for line in out.splitlines() if line.startswith('snapshot-'))
    opened, loaded, frame, cpu = (int(times['snapshot-' + k]) for k in ('open', 'loaded', 'frame', 'cpu'))
    return (frame - opened) / 1000.0, (loaded - opened) / 1000.0, cpu / 1000.0


size = os.path.getsize(snapshot) / 1e6
results = [once() for _ in range(runs)]
ms = [r[0] for r in results]
loading = [r[1] for r in results]
cpu = [r[2] for r in results]
print(f'{snapshot}: {size:.1f} MB; renderer: {os.environ.get("GSK_RENDERER", "GTK default")}; '
      + ('opened at launch' if cold else 'opened in the running window'))
print(f'open to first snapshot frame: median {statistics.median(ms):.0f} ms '
      f'(min {min(ms):.0f}, max {max(ms):.0f}, {runs} runs; target: at most 1000 ms)')
print(f'  of which the thread read the file and walked the trace: median {statistics.median(loading):.0f} ms')
print(f'  CPU time of all the app\'s threads meanwhile: median {statistics.median(cpu):.0f} ms '
      '(on a busy machine the wall time above is this plus waiting for a core)')

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time from launch to the mapped window and to the first painted frame: GPU Memory
Lab against a bare GTK 4 window built here from bare-window.c, on the same display,
alternating runs; then the app's start-up split into parts, from its own marks.
A bare libadwaita window (bare-adw-window.c) runs in the same rotation, for
information: it shows what libadwaita alone adds. The target is against the bare
GTK 4 window.
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

def compile_yardstick(name, package):
    path = os.path.join(tempfile.mkdtemp(), name)
    cflags = subprocess.run(['pkg-config', '--cflags', '--libs', package], check=True,
                            capture_output=True, text=True).stdout.split()
    subprocess.run(['cc', '-O2', '-o', path, os.path.join(here, name + '.c')] + cflags, check=True)
    return path


bare = compile_yardstick('bare-window', 'gtk4')
bare_adw = compile_yardstick('bare-adw-window', 'libadwaita-1')

home = tempfile.mkdtemp()
env = dict(os.environ, GML_BENCH_FIRST_FRAME='1', HOME=home,
           XDG_DATA_HOME=os.path.join(home, 'data'), XDG_CONFIG_HOME=os.path.join(home, 'config'),
           XDG_CACHE_HOME=os.path.join(home, 'cache'), GSETTINGS_BACKEND='memory',
           GSETTINGS_SCHEMA_DIR=os.path.join(build, 'data'),
           GML_LOCALEDIR=os.path.join(build, 'po', 'locale'))
app = os.path.join(build, 'src', 'app', 'gpu-memory-lab')


# The app's own marks (gml_bench_mark), in order: what each part of the start-up takes.
PARTS = [('main', 'exec to main() (loading the program and its libraries)'),
         ('startup', 'main() to startup (command line, D-Bus registration)'),
         ('toolkit-ready', 'GTK and libadwaita initialisation (a thread reads the banks and the log)'),
         ('loaded', 'actions and look; the banks and the log, if that thread is not done'),
         ('activate', 'to activate'),
         ('window-built', 'building the window'),
         ('mapped', 'showing it, to mapped'),
         ('presented', 'the rest of presenting it'),
         ('first-frame', 'to the first painted frame')]


def once(cmd):
    """Launch to the first frame, launch to the mapped window (ms), the start, the marks,
    and the CPU time of all the process's threads (ms), which the load sways less."""
    start = time.monotonic_ns() // 1000
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    proc.stdout.close()
    # Reaped here, not by Popen, for its resource usage.
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = (usage.ru_utime + usage.ru_stime) * 1000.0
    marks = {}
    for line in out.splitlines():
        words = line.split()
        if len(words) == 3 and words[0] == 'bench':
            marks[words[1]] = int(words[2])
        elif len(words) == 2 and words[0] == 'first-frame':
            marks['first-frame'] = int(words[1])
    return (marks['first-frame'] - start) / 1000.0, (marks['mapped'] - start) / 1000.0, start, marks, cpu


once([bare])
once([bare_adw])
once([app])
bare_ms, app_ms, bare_mapped, app_mapped, bare_cpu, app_cpu = [], [], [], [], [], []
adw_ms, adw_mapped, adw_cpu = [], [], []
parts = {name: [] for name, _ in PARTS}
for _ in range(runs):
    total, mapped, _, _, cpu = once([bare])
    bare_ms.append(total)
    bare_mapped.append(mapped)
    bare_cpu.append(cpu)
    total, mapped, _, _, cpu = once([bare_adw])
    adw_ms.append(total)
    adw_mapped.append(mapped)
    adw_cpu.append(cpu)
    total, mapped, start, marks, cpu = once([app])
    app_ms.append(total)
    app_mapped.append(mapped)
    app_cpu.append(cpu)
    previous = start
    for name, _ in PARTS:
        if name in marks:
            parts[name].append((marks[name] - previous) / 1000.0)
            previous = marks[name]

print(f'renderer: {os.environ.get("GSK_RENDERER", "GTK default")}, {runs} runs each, alternating')
for what, bare_list, adw_list, app_list in (
        ('to the mapped window', bare_mapped, adw_mapped, app_mapped),
        ('to the first painted frame', bare_ms, adw_ms, app_ms),
        ('CPU time to the first frame, all threads', bare_cpu, adw_cpu, app_cpu)):
    b, w, a = (statistics.median(x) for x in (bare_list, adw_list, app_list))
    print(f'{what}:')
    print(f'  bare GTK 4 window:      median {b:.0f} ms (min {min(bare_list):.0f}, max {max(bare_list):.0f})')
    print(f'  bare libadwaita window: median {w:.0f} ms (min {min(adw_list):.0f}, max {max(adw_list):.0f})')
    print(f'  GPU Memory Lab:         median {a:.0f} ms (min {min(app_list):.0f}, max {max(app_list):.0f})')
    print(f'  ratio: {a / b:.2f}x' + ('' if 'CPU' in what else ' (target: at most 1.2x)') +
          f'; against the libadwaita window {a / w:.2f}x, which is {w / b:.2f}x the GTK 4 window')
print('GPU Memory Lab, split (medians of each part):')
for name, what in PARTS:
    if parts[name]:
        print(f'  {statistics.median(parts[name]):6.1f} ms  {what}')

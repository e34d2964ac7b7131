#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time from launch to the mapped window and to the first painted frame: GPU Memory
Lab against a bare GTK 4 window built here from bare-window.c, on the same display,
alternating runs; then the app's start-up split into parts, from its own marks.
A bare libadwaita window (bare-adw-window.c) runs in the same rotation, for
information: it shows what libadwaita alone adds. The target is against the bare
GTK 4 window. Where the lab chooses Cairo because OpenGL is a software rasterizer
(src/app/gml-renderer.c), the bare GTK 4 window also runs drawn with Cairo, for
information: the lab against the same window drawn the same way.
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
         ('renderer', 'choosing the renderer (asking OpenGL what it is)'),
         ('loaded', 'actions and look; the banks and the log, if that thread is not done'),
         ('activate', 'to activate'),
         ('window-built', 'building the window'),
         ('mapped', 'showing it, to mapped'),
         ('presented', 'the rest of presenting it'),
         ('first-frame', 'to the first painted frame')]


def once(cmd, renderer=None):
    """Launch to the first frame, launch to the mapped window (ms), the start, the marks,
    the CPU time of all the process's threads (ms), which the load sways less, and the
    renderer the app says it chose. RENDERER: GSK_RENDERER for this run."""
    run_env = dict(env, GSK_RENDERER=renderer) if renderer else env
    start = time.monotonic_ns() // 1000
    proc = subprocess.Popen(cmd, env=run_env, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    proc.stdout.close()
    # Reaped here, not by Popen, for its resource usage.
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = (usage.ru_utime + usage.ru_stime) * 1000.0
    marks = {}
    chosen = None
    for line in out.splitlines():
        words = line.split()
        if len(words) == 3 and words[0] == 'bench':
            marks[words[1]] = int(words[2])
        elif len(words) == 2 and words[0] == 'first-frame':
            marks['first-frame'] = int(words[1])
        elif len(words) == 2 and words[0] == 'renderer':
            chosen = words[1]
    return (marks['first-frame'] - start) / 1000.0, (marks['mapped'] - start) / 1000.0, start, marks, cpu, chosen


# One uncounted run of each (it fills Mesa's shader cache), which also tells what the
# lab draws with here: on a software OpenGL rasterizer it chooses Cairo (gml-renderer.c).
once([bare])
once([bare_adw])
chosen = once([app])[5]
asked = os.environ.get('GSK_RENDERER')

# (name, command, GSK_RENDERER); the first is the target's yardstick.
programs = [('bare GTK 4 window', [bare], None)]
if chosen == 'cairo' and not asked:
    # The same window drawn as the lab draws here: what the lab's own work costs.
    programs.append(('bare GTK 4 window, Cairo', [bare], 'cairo'))
    once([bare], 'cairo')
programs += [('bare libadwaita window', [bare_adw], None), ('GPU Memory Lab', [app], None)]
mapped = {name: [] for name, _, _ in programs}
first = {name: [] for name, _, _ in programs}
cpus = {name: [] for name, _, _ in programs}
parts = {name: [] for name, _ in PARTS}
for _ in range(runs):
    for name, cmd, renderer in programs:
        total, when_mapped, start, marks, cpu, _ = once(cmd, renderer)
        first[name].append(total)
        mapped[name].append(when_mapped)
        cpus[name].append(cpu)
    previous = start
    for name, _ in PARTS:
        if name in marks:
            parts[name].append((marks[name] - previous) / 1000.0)
            previous = marks[name]

print(f'renderer: {asked or "GTK default"}; the lab chose {chosen or "GTK default"}; '
      f'{runs} runs each, alternating')
width = max(len(name) for name, _, _ in programs) + 1
for what, table in (('to the mapped window', mapped), ('to the first painted frame', first),
                    ('CPU time to the first frame, all threads', cpus)):
    print(f'{what}:')
    for name, _, _ in programs:
        values = table[name]
        print(f'  {name + ":":{width}s} median {statistics.median(values):.0f} ms '
              f'(min {min(values):.0f}, max {max(values):.0f})')
    lab = statistics.median(table['GPU Memory Lab'])
    ratios = [f'{lab / statistics.median(table[name]):.2f}x {name}' for name, _, _ in programs[:-1]]
    print('  the lab: ' + ', '.join(ratios) +
          ('' if 'CPU' in what else ' (target: at most 1.1x the first, issue 30)'))
print('GPU Memory Lab, split (medians of each part):')
for name, what in PARTS:
    if parts[name]:
        print(f'  {statistics.median(parts[name]):6.1f} ms  {what}')

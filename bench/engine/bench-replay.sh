#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `gpu-memory-lab replay` end to end (reading, parsing, the allocator, the
# output) on the engine benchmark's random operations, written as a trace by
# `bench-engine --write-trace` (1 000 000 operations, seed 1: about 54 MB).
# Each run is timed with /usr/bin/time (Debian package "time") for wall and CPU
# time and peak memory; the script prints every run, the medians and the load
# before and after, then the allocator alone (bench-engine) on the same
# operations. Not a test. Use a release build:
#
#   meson setup _build-release --buildtype=release -Dbench=true && meson compile -C _build-release
#   bench/engine/bench-replay.sh _build-release [OPS] [RUNS]
#
# On a loaded machine wall times wander; GML_BENCH_CALLGRIND=1 also counts the
# instructions of one run with valgrind --tool=callgrind, which load does not
# change (about a minute). GML_BENCH_REPLAY=PROGRAM times another build of the
# program on the same trace (an older one, to compare).
set -eu
build=${1:?usage: bench-replay.sh BUILDDIR [OPS] [RUNS]}
ops=${2:-1000000}
runs=${3:-7}
program=${GML_BENCH_REPLAY:-$build/src/app/gpu-memory-lab}
work=$(mktemp -d "${TMPDIR:-/tmp}/gml-bench-replay-XXXXXX")
trap 'rm -rf "$work"' EXIT
trace=$work/trace.jsonl

"$build/bench/engine/bench-engine" --write-trace "$trace" "$ops"
lines=$(wc -l < "$trace")
bytes=$(wc -c < "$trace")
echo "trace: $lines lines, $((bytes / 1000000)) MB"
echo "machine: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

for i in $(seq "$runs"); do
  /usr/bin/time -f "%e %U %S %M" -o "$work/time.$i" "$program" replay "$trace" > "$work/out.$i"
  cmp -s "$work/out.1" "$work/out.$i" || { echo "run $i printed other figures"; exit 1; }
  set -- $(cat "$work/time.$i")
  echo "run $i: wall $1 s, user $2 s, sys $3 s, peak $4 KB"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$work" "$runs" "$lines" <<'PY'
import statistics, sys
work, runs, lines = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = [list(map(float, open(f'{work}/time.{i}').read().split())) for i in range(1, runs + 1)]
wall, user, sys_, peak = (statistics.median(r[k] for r in rows) for k in range(4))
print(f'median of {runs}: wall {wall:.2f} s ({lines / wall / 1e6:.2f} M lines/s), '
      f'user+sys {user + sys_:.2f} s ({lines / (user + sys_) / 1e6:.2f} M lines/s of CPU), '
      f'peak {peak / 1024:.1f} MiB')
print(f'fastest: wall {min(r[0] for r in rows):.2f} s '
      f'({lines / min(r[0] for r in rows) / 1e6:.2f} M lines/s)')
PY

if [ "${GML_BENCH_CALLGRIND:-0}" = 1 ]; then
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
    "$program" replay "$trace" 2>&1 > /dev/null | sed -n 's/^==[0-9]*== I *refs: */callgrind: instructions /p'
fi

echo "the allocator alone, same operations (bench-engine):"
"$build/bench/engine/bench-engine" "$ops" | head -n 2

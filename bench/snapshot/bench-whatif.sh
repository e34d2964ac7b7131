#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# What if, at scale: the 4 million-entry snapshot of bench-snapshot.sh replayed as
# recorded and under three other settings (`snapshot --what-if` three times), against
# Python's pickle.load of the same file, side by side, each timed with peak memory.
# Not a test. Use a release build:
#
#   meson setup _build-release --buildtype=release -Dbench=true && meson compile -C _build-release
#   bench/snapshot/bench-whatif.sh _build-release [ENTRIES] [RUNS]
set -eu
build=${1:?usage: bench-whatif.sh BUILDDIR [ENTRIES] [RUNS]}
entries=${2:-4000000}
runs=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gml-bench-whatif-XXXXXX")
trap 'rm -rf "$work"' EXIT
file="$work/snapshot.pickle"

echo "Writing a snapshot of $entries entries with Python's pickle …"
python3 "$here/make-snapshot.py" "$file" "$entries"
ls -l "$file" | awk '{ printf "size: %.0f MB\n", $5 / 1e6 }'
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

for i in $(seq "$runs"); do
  /usr/bin/time -f "python pickle.load: %e s wall, %U s user CPU, peak %M KB" \
    python3 -c "import pickle, sys; pickle.load(open(sys.argv[1], 'rb'))" "$file"
  /usr/bin/time -f "snapshot --what-if ×3: %e s wall, %U s user CPU, peak %M KB" \
    "$build/src/app/gpu-memory-lab" snapshot "$file" --json \
    --what-if expandable_segments:True --what-if max_split_size_mb:128 \
    --what-if roundup_power2_divisions:4 > "$work/what-if.json"
done
python3 - "$work/what-if.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print('gpu_memory_source:', j['gpu_memory_source'])
for r in j['what_if']:
    print(f"  {r['alloc_conf'] or '(defaults)'}: peak reserved {r['peak_reserved_bytes']}, "
          f"ooms {r['ooms']}, fragmentation {r['fragmentation_at_peak']:.3f}")
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

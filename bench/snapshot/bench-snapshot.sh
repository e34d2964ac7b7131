#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The snapshot benchmark of issue 11: a 4 million-entry snapshot written by
# Python's own pickle module, summarised by `gpu-memory-lab snapshot --json`
# against Python's pickle.load of the same file, both timed with peak memory;
# then scrubbing (bench-snapshot). Not a test. Use a release build:
#
#   meson setup _build-release --buildtype=release -Dbench=true && meson compile -C _build-release
#   bench/snapshot/bench-snapshot.sh _build-release [ENTRIES] [RUNS]
set -eu
build=${1:?usage: bench-snapshot.sh BUILDDIR [ENTRIES] [RUNS]}
entries=${2:-4000000}
runs=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gml-bench-snapshot-XXXXXX")
trap 'rm -rf "$work"' EXIT
file="$work/snapshot.pickle"

echo "Writing a snapshot of $entries entries with Python's pickle …"
python3 "$here/make-snapshot.py" "$file" "$entries"
ls -l "$file" | awk '{ printf "size: %.0f MB\n", $5 / 1e6 }'

for i in $(seq "$runs"); do
  /usr/bin/time -f "python pickle.load: %e s wall, %U s user CPU, peak %M KB" \
    python3 -c "import pickle, sys; pickle.load(open(sys.argv[1], 'rb'))" "$file"
  /usr/bin/time -f "gpu-memory-lab snapshot --json: %e s wall, %U s user CPU, peak %M KB" \
    "$build/src/app/gpu-memory-lab" snapshot "$file" --json > /dev/null
done
"$build/bench/snapshot/bench-snapshot" "$file" 200

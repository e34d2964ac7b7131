#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `gpu-memory-lab snapshot FILE --check` on a trace of about a million entries
# made by the lab's own allocator (so every decision should match), timed.
# Not a test. Needs a build with tests (for engine-trace), release for figures:
#
#   meson setup _build-release --buildtype=release -Dbench=true && meson compile -C _build-release
#   bench/snapshot/bench-check.sh _build-release [OPS]
set -eu
build=${1:?usage: bench-check.sh BUILDDIR [OPS]}
ops=${2:-600000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gml-bench-check-XXXXXX")
trap 'rm -rf "$work"' EXIT

"$build/tests/snapshot/engine-trace" 1 "$ops" 4294967296 --no-stats > "$work/engine.json"
python3 "$here/../../tests/snapshot/make_snapshots.py" engine "$work/engine.json" "$work/check.pickle"
python3 -c "import pickle, sys; d = pickle.load(open(sys.argv[1], 'rb')); print('entries:', len(d['device_traces'][0]))" "$work/check.pickle"
/usr/bin/time -f "snapshot --check: %e s, peak %M KB" \
  "$build/src/app/gpu-memory-lab" snapshot "$work/check.pickle" --check --json

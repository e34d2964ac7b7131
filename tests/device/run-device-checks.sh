#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# run-device-checks.sh — the checks that need a real NVIDIA GPU, in one command.
#
#   tests/device/run-device-checks.sh            (from the repository root or anywhere)
#
# For a session that has the GPU machine (an H200 with PyTorch and nvcc, no network).
# It
#   1. records the machine (nvidia-smi, driver, torch, compilers);
#   2. builds the project: meson + ninja when they exist; else a build directory that
#      was carried along (GML_BUILD_DIR, default _build-cuda), if its programs run;
#      else the CUDA backend test and a GTK-free `replay` with cc + pkg-config;
#   3. runs the CUDA backend test against the REAL libcuda.so.1 (GML_LIBCUDA unset,
#      GML_TEST_REAL_CUDA=1), and the fake-driver suite as a sanity check;
#   4. replays tests/device/traces/*.jsonl through torch's own caching allocator and
#      through `gpu-memory-lab replay` (sim, and cuda where the trace allows), and
#      compares torch.cuda.memory_stats() with replay's output key by key: among them
#      max_split_size_mb, roundup_power2_divisions, max_non_split_rounding_mb,
#      garbage_collection_threshold under a memory fraction, record_stream on a second
#      stream kept busy until a synchronize, a memory fraction set mid-trace, 1 EiB;
#   5. records PyTorch memory snapshots of short training loops under several allocator
#      settings (record_snapshots.py: expandable segments, also with empty_cache() and an
#      OOM, max_split_size_mb, max_non_split_rounding_mb, roundup_power2_divisions in
#      both forms, record_stream on two streams, an OOM retried under a memory fraction)
#      and runs `gpu-memory-lab snapshot --check` on each;
#   5b. runs a training loop under `gpu-memory-lab watch --json` (watch_live.py): exact
#      figures, and the probe's cost per step;
#   5c. runs the lab's step live (`experiment --live`) for four configurations: the
#      simulator at the same scale must agree;
#   6. writes everything to $OUT/RESULTS.md (and prints it), logs under $OUT/logs.
#
# Exit status: 0 when everything ran and agreed, 1 when something disagreed or
# failed.  It never stops half-way: every step is reported in RESULTS.md.
#
# Environment: OUT (default: _build-device-out in the repository), GML_BUILD_DIR,
# CUDA_HOME (where include/cuda.h is), PYTHON (default python3), GML_NO_MESON=1 (skip
# meson to exercise the fallbacks).

set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1

OUT=${OUT:-$ROOT/_build-device-out}  # _build* is ignored by git
LOGS=$OUT/logs
RESULTS=$OUT/RESULTS.md
PYTHON=${PYTHON:-python3}
CARRIED_BUILD=${GML_BUILD_DIR:-$ROOT/_build-cuda}
BUILD=$ROOT/_build-device
FALLBACK=$ROOT/_build-device-cc
mkdir -p "$LOGS"
: > "$RESULTS"

# The real driver, always: the fake is only for the unit-test suite below.
unset GML_LIBCUDA
export LC_ALL=C.UTF-8

status=0
fail () { status=1; }

# RESULTS.md is written as we go and printed once at the end.
say () { printf '%s\n' "$*" >> "$RESULTS"; }
have () { command -v "$1" > /dev/null 2>&1; }

# Runs a step with a time limit, its output to a log; returns its status.
step () {
  local name=$1 limit=$2; shift 2
  echo "== $name: $*" >&2
  timeout "$limit" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  echo "   -> exit $rc (log: logs/$name.log)" >&2
  return $rc
}

tail_log () {
  say ''
  say '```'
  tail -n "${2:-25}" "$LOGS/$1.log" >> "$RESULTS"
  say '```'
  say ''
}

say "# Device checks — $(date -u '+%Y-%m-%d %H:%M UTC')"
say ''
say "Commit: \`$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)\`" \
    "(working tree as copied to the machine)."
say ''

# --------------------------------------------------------------------------- 1. machine

{
  echo '$ nvidia-smi'; nvidia-smi 2>&1
  echo; echo '$ nvcc --version'; nvcc --version 2>&1
  echo; echo '$ python torch'
  "$PYTHON" -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "-")' 2>&1
  echo; echo '$ tools'
  for t in meson ninja cc gcc pkg-config; do printf '%-11s %s\n' "$t" "$(command -v "$t" || echo missing)"; done
  "$PYTHON" -c 'import mesonbuild; print("python module mesonbuild: yes")' 2>&1 | tail -n 1
  echo; echo '$ ls -l libcuda'; ldconfig -p 2>/dev/null | grep -E 'libcuda\.so' || echo 'libcuda.so.1 not in the ldconfig cache'
  echo; echo '$ ls -l /dev/nvidia*'; ls -l /dev/nvidia* 2>&1
} > "$LOGS/machine.log" 2>&1

say '## Machine'
say ''
say '```'
{ if have nvidia-smi; then nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv 2>&1
  else echo 'nvidia-smi: missing'; fi
  "$PYTHON" -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda)' 2>&1 | tail -n 1
  nvcc --version 2>/dev/null | tail -n 1 || echo 'nvcc: missing'
  for t in meson ninja cc pkg-config; do printf '%s: %s\n' "$t" "$(command -v "$t" || echo missing)"; done
} >> "$RESULTS"
say '```'
say ''

# --------------------------------------------------------------------------- 2. build

# cuda.h: $CUDA_HOME, the usual prefix, or next to nvcc.
CUDA_HOME=${CUDA_HOME:-}
for c in "$CUDA_HOME" /usr/local/cuda "$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /nonexistent/bin/nvcc)")")" /usr; do
  if [ -n "$c" ] && [ -f "$c/include/cuda.h" ]; then CUDA_HOME=$c; break; fi
done
if [ -f "$CUDA_HOME/include/cuda.h" ]; then
  cuda_note="cuda.h from $CUDA_HOME/include"
else
  cuda_note="NO cuda.h found: the CUDA backend would be built without CUDA support"
  CUDA_HOME=/usr/local/cuda
  fail
fi

# meson may be missing as a command but present as a Python module (pip).
# GML_NO_MESON=1 skips meson, to try the fallbacks below on purpose.
MESON=
if [ "${GML_NO_MESON:-0}" = 1 ]; then :
elif have meson; then MESON=meson
elif "$PYTHON" -c 'import mesonbuild' 2>/dev/null; then MESON="$PYTHON -m mesonbuild.mesonmain"
fi
NINJA=
if have ninja; then NINJA=ninja
elif have ninja-build; then NINJA=ninja-build
elif "$PYTHON" -c 'import ninja' 2>/dev/null; then NINJA="$PYTHON -m ninja"
fi

GML=            # a program that understands `replay`
CUDA_TEST=      # test-cuda-backend
build_how=

find_built () {
  local dir=$1
  GML=$(find "$dir" -type f -name gpu-memory-lab -perm -u+x 2>/dev/null | head -n 1)
  CUDA_TEST=$(find "$dir" -type f -name test-cuda-backend -perm -u+x 2>/dev/null | head -n 1)
}

# The option that points meson at the toolkit has been renamed before: ask the file.
cuda_home_opt=$(sed -n "s/^option('\([a-z_-]*\)'.*/\1/p" meson_options.txt | grep -i -E 'cuda.*(home|toolkit|path|dir)|toolkit' | head -n 1)
meson_args=(-Dcuda=enabled)
[ -n "$cuda_home_opt" ] && meson_args+=("-D$cuda_home_opt=$CUDA_HOME")

if [ -n "$MESON" ] && [ -n "$NINJA" ]; then
  if [ -f "$BUILD/build.ninja" ]; then
    step meson-setup 300 $MESON setup --reconfigure "$BUILD" "${meson_args[@]}"
  else
    step meson-setup 300 $MESON setup "$BUILD" "${meson_args[@]}"
  fi
  if [ ! -f "$BUILD/build.ninja" ]; then
    build_how="meson setup failed (see logs/meson-setup.log)"
  elif step ninja 420 $NINJA -C "$BUILD"; then
    find_built "$BUILD"
    build_how="meson + ninja in _build-device ($cuda_note)"
  else
    # Another part of the tree may not build here; our targets may.
    step ninja-cuda 300 $NINJA -C "$BUILD" tests/cuda/test-cuda-backend tests/cuda/libcuda.so.1 \
      tests/cuda/libcuda-incomplete.so
    find_built "$BUILD"
    build_how="meson + ninja, the full build failed (logs/ninja.log), CUDA targets tried alone"
  fi
else
  build_how="no meson/ninja here"
fi

# A carried build directory fills what is still missing, if its programs find their
# shared libraries on this machine (it was built on Debian 12).
if { [ -z "$GML" ] || [ -z "$CUDA_TEST" ]; } && [ -d "$CARRIED_BUILD" ]; then
  for name in gpu-memory-lab test-cuda-backend; do
    p=$(find "$CARRIED_BUILD" -type f -name "$name" -perm -u+x 2>/dev/null | head -n 1)
    [ -n "$p" ] || continue
    if ldd "$p" 2>&1 | grep -q 'not found'; then
      { echo "carried $p lacks libraries here:"; ldd "$p"; } >> "$LOGS/carried.log" 2>&1
      continue
    fi
    case $name in
      gpu-memory-lab)    [ -z "$GML" ] && GML=$p ;;
      test-cuda-backend) [ -z "$CUDA_TEST" ] && CUDA_TEST=$p ;;
    esac
  done
  build_how="$build_how; carried build $CARRIED_BUILD checked"
fi

if [ -z "$GML" ] || [ -z "$CUDA_TEST" ]; then
  # Last resort: the C compiler and pkg-config, no meson.  The replay needs only
  # GLib and json-glib; the CUDA backend test only GLib and GModule.
  mkdir -p "$FALLBACK"
  cat > "$FALLBACK/config.h" <<EOF
#pragma once
#define APPLICATION_ID "io.github.gpumemorylab.GpuMemoryLab"
#define PACKAGE_VERSION "device-check"
#define GETTEXT_PACKAGE "gpu-memory-lab"
#define LOCALEDIR "/usr/share/locale"
#define RESOURCE_BASE "/io/github/gpumemorylab/GpuMemoryLab"
#define HAVE_CUDA_H 1
EOF
  CC=${CC:-cc}
  cflags=(-std=gnu11 -O2 -g -UG_DISABLE_ASSERT -I"$FALLBACK" -Isrc/core/base -Isrc/core/engine -Isrc/cli -Itests/common -I"$CUDA_HOME/include"
          -DGLIB_VERSION_MIN_REQUIRED=GLIB_VERSION_2_74 -Wno-unused-parameter)
  device_src=(src/core/engine/gml-device.c src/core/engine/gml-device-sim.c src/core/engine/gml-device-cuda.c)
  if [ -z "$CUDA_TEST" ]; then
    if step cc-cuda-test 300 $CC "${cflags[@]}" -o "$FALLBACK/test-cuda-backend" \
         tests/cuda/test-cuda-backend.c "${device_src[@]}" \
         $(pkg-config --cflags --libs glib-2.0 gmodule-2.0); then
      CUDA_TEST=$FALLBACK/test-cuda-backend
    fi
  fi
  if [ "$CUDA_TEST" = "$FALLBACK/test-cuda-backend" ]; then
    # The fake drivers too, so the fake-driver suite can run next to the real one.
    step cc-fake 120 $CC -std=gnu11 -O2 -shared -fPIC -fvisibility=hidden -I"$CUDA_HOME/include" \
      -Wl,-soname,libcuda.so.1 -o "$FALLBACK/libcuda.so.1" tests/cuda/fake-libcuda.c -lpthread
    step cc-fake-incomplete 120 $CC -std=gnu11 -O2 -shared -fPIC -fvisibility=hidden \
      -I"$CUDA_HOME/include" -DFAKE_CUDA_WITHOUT_MEMSET -o "$FALLBACK/libcuda-incomplete.so" \
      tests/cuda/fake-libcuda.c -lpthread
  fi
  if [ -z "$GML" ]; then
    if step cc-replay 300 $CC "${cflags[@]}" -o "$FALLBACK/gml-replay" \
         tests/device/replay-main.c src/cli/gml-replay-cli.c src/core/engine/gml-replay.c src/core/engine/gml-allocator.c \
         src/core/engine/gml-alloc-conf.c src/core/engine/gml-trace.c src/core/engine/gml-trace-state.c "${device_src[@]}" \
         src/core/base/gml-i18n.c src/core/base/gml-input.c src/core/base/gml-format.c \
         $(pkg-config --cflags --libs glib-2.0 gio-2.0 gmodule-2.0 json-glib-1.0) -lm; then
      GML=$FALLBACK/gml-replay
    fi
  fi
  build_how="${build_how:+$build_how; }cc + pkg-config in _build-device-cc ($cuda_note)"
fi

say '## Build'
say ''
say "- how: ${build_how:-nothing could be built}"
say "- cuda.h: $cuda_note"
say "- replay: \`${GML:-not built}\`"
say "- CUDA backend test: \`${CUDA_TEST:-not built}\`"
say ''
[ -z "$GML" ] && fail
[ -z "$CUDA_TEST" ] && fail

# --------------------------------------------------------------------------- 3. CUDA backend

say '## CUDA backend against the real driver'
say ''
if [ -n "$CUDA_TEST" ]; then
  if step cuda-real 120 env GML_TEST_REAL_CUDA=1 G_DEBUG=fatal-warnings G_MESSAGES_DEBUG=all \
       "$CUDA_TEST" --verbose; then
    say '**PASS** — `GML_TEST_REAL_CUDA=1 test-cuda-backend` (libcuda.so.1 from the system):'
  else
    say '**FAIL** — `GML_TEST_REAL_CUDA=1 test-cuda-backend` (libcuda.so.1 from the system):'
    fail
  fi
  # The test's own messages: device, totals, budget, the driver's OOM text.
  grep -E '^# (device|free|budget|driver|gml-device-cuda)|^(not )?ok|ERROR|Bail' "$LOGS/cuda-real.log" \
    > "$LOGS/cuda-real-summary.log" 2>/dev/null
  tail_log cuda-real-summary 30

  # The fake-driver suite as well, to tell a broken build from a broken GPU.
  fake_lib=$(dirname "$CUDA_TEST")/libcuda.so.1
  if [ -f "$fake_lib" ]; then
    if step cuda-fake 120 env GML_LIBCUDA="$fake_lib" \
         GML_TEST_INCOMPLETE_LIBCUDA="$(dirname "$CUDA_TEST")/libcuda-incomplete.so" \
         "$CUDA_TEST"; then
      say '- fake-driver suite: PASS'
    else
      say '- fake-driver suite: FAIL (see logs/cuda-fake.log)'
      fail
    fi
  else
    say '- fake-driver suite: not run (no fake libcuda.so.1 next to the test)'
  fi
  say ''
else
  say 'Not run: the test could not be built (see logs/).'
  say ''
fi

# --------------------------------------------------------------------------- 4. torch comparison

if [ -n "$GML" ]; then
  # The whole path once more, end to end: replay through the real device.
  if step replay-cuda 120 "$GML" replay tests/device/traces/example-3mib-20mib.jsonl --backend cuda; then
    say '- `replay --backend cuda` on the 3 MiB / 20 MiB example: runs.'
  else
    say '- `replay --backend cuda` on the 3 MiB / 20 MiB example: **failed**:'
    tail_log replay-cuda 10
    fail
  fi
  say ''
fi

# Every question's own experiment on the real GPU: it must run, give every byte back
# and report the same figures as the simulator (render --question --json, keys).
if [ -n "$GML" ]; then
  if step experiments-cuda 300 "$PYTHON" - "$GML" <<'PY'
import json, subprocess, sys
gml = sys.argv[1]
bank = json.loads(subprocess.run([gml, 'questions', '--json', '--no-shuffle'], check=True,
                                 capture_output=True, text=True).stdout)
bad = 0
for q in bank:
    keys = {}
    for backend in ('sim', 'cuda'):
        r = subprocess.run([gml, 'render', '--question', q['id'], '--json', '--backend', backend],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(q['id'], backend, 'failed:', r.stderr.strip())
            bad += 1
            break
        keys[backend] = {k: v for k, v in json.loads(r.stdout)['keys'].items() if 'free' not in k}
    else:
        if keys['sim'] != keys['cuda']:
            print(q['id'], 'differs:', keys)
            bad += 1
print(f'{len(bank)} experiments, {bad} failed or differed')
sys.exit(1 if bad else 0)
PY
  then
    say '- Every question'"'"'s experiment on the GPU (`render --question ID --backend cuda`): same figures as simulated.'
  else
    say '- Every question'"'"'s experiment on the GPU: **failed or differed**:'
    tail_log experiments-cuda 15
    fail
  fi
  say ''
fi

compare_args=(--traces tests/device/traces --results "$RESULTS" --json "$OUT/compare.json")
[ -n "$GML" ] && compare_args+=(--gml "$GML")
step compare 600 "$PYTHON" tests/device/compare_with_torch.py "${compare_args[@]}"
rc=$?
if [ $rc -ne 0 ]; then
  fail
  say ''
  say "compare_with_torch.py exited $rc (1: values differ; 2: something did not run):"
  tail_log compare 20
fi

# --------------------------------------------------------------------------- 4b. snapshots

# Snapshots of short training loops under several allocator settings, each
# replayed through the lab's allocator (`snapshot --check`): PyTorch judges the engine.
if [ -n "$GML" ] && "$GML" snapshot --help > /dev/null 2>&1; then
  step snapshots 1800 "$PYTHON" tests/device/record_snapshots.py --gml "$GML" --out "$OUT" \
    --results "$RESULTS"
  rc=$?
  if [ $rc -ne 0 ]; then
    fail
    say ''
    say "record_snapshots.py exited $rc (1: a check diverged; 2: something did not run):"
    tail_log snapshots 20
  fi
else
  say ''
  say '- Snapshot checks: skipped, the build has no `gpu-memory-lab snapshot` (only the cc fallback ran).'
  fail
fi

# --------------------------------------------------------------------------- 4c. watch

# A training loop under `gpu-memory-lab watch --json`: its figures equal
# torch.cuda.memory_stats() at each step, and what the probe costs a step.
if [ -n "$GML" ] && "$GML" watch --help > /dev/null 2>&1; then
  step watch 1800 "$PYTHON" tests/device/watch_live.py --gml "$GML" --out "$OUT" --results "$RESULTS"
  rc=$?
  if [ $rc -ne 0 ]; then
    fail
    say ''
    say "watch_live.py exited $rc (1: a figure differed or the probe cost 5 % or more; 2: something did not run):"
    tail_log watch 20
  fi
else
  say ''
  say '- Watch checks: skipped, the build has no `gpu-memory-lab watch` (only the cc fallback ran).'
  fail
fi

# --------------------------------------------------------------------------- 4d. lab live

# The Experiment view's live run (`experiment --live`): the step scaled into the
# lab's share of the real GPU, its segments real cuMemAlloc calls, must give the
# simulator's figures at the same scale (exit 0; 3 when they differ).
if [ -n "$GML" ] && "$GML" experiment --help 2>/dev/null | grep -q -- '--live'; then
  say ''
  say '## The lab, live'
  say ''
  for knobs in "--model gpt2 --gpu-memory 80G --batch 8" \
               "--model llama-3.2-1b --gpu-memory 141G --batch 4 --precision amp-bf16" \
               "--model llama-2-7b --mode inference --seq 512 --tokens 256 --gpu-memory 24G" \
               "--model gpt2 --gpu-memory 24G --batch 8 --alloc-conf max_split_size_mb:64"; do
    name=lab-live-$(printf '%s' "$knobs" | tr -c 'a-z0-9' '-' | tr -s '-' | cut -c1-60)
    # shellcheck disable=SC2086
    step "$name" 300 "$GML" experiment $knobs --live --budget 4G
    rc=$?
    say "- \`$knobs --live --budget 4G\`: exit $rc — $(tail -n 1 "$LOGS/$name.log")"
    [ $rc -eq 0 ] || fail
  done
else
  say ''
  say '- Lab live checks: skipped, the build has no `experiment --live`.'
  fail
fi

# --------------------------------------------------------------------------- 5. report

say ''
if [ $status -eq 0 ]; then
  say '**Result: everything ran and agreed.**'
else
  say '**Result: something failed or disagreed — see above and logs/.**'
fi

echo
echo "================================================================ RESULTS.md"
cat "$RESULTS"
exit $status

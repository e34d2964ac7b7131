#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs every libFuzzer target of a fuzz build for a bounded time and fails on any
# crash, leak or timeout.
#
#   tests/fuzz/run-fuzz.sh BUILDDIR [TARGET...]
#
# BUILDDIR is a build set up with clang and -Dc_args=-fsanitize=fuzzer-no-link
# (see tests/fuzz/meson.build; build-aux/run-hardening.sh does it). Each target
# starts from a copy of its seed corpus (tests/fuzz/corpus/NAME) and its
# regressions, with its dictionary, and runs GML_FUZZ_SECONDS seconds (default 60);
# GML_FUZZ_JOBS targets run at once (default 1). A crashing, leaking or hanging
# input is kept under BUILDDIR/fuzz-artifacts/: once fixed, copy it to
# tests/fuzz/regressions/NAME/. At the end: one line per target with executions
# (= inputs tried), time, executions per second, corpus growth, coverage and peak
# memory, then "N passed, N failed".
set -u

srcdir=$(cd "$(dirname "$0")" && pwd)
builddir=$(cd "${1:?usage: run-fuzz.sh BUILDDIR [TARGET...]}" && pwd)
shift
seconds=${GML_FUZZ_SECONDS:-60}
jobs=${GML_FUZZ_JOBS:-1}
# Per input: a hang is anything over 10 s, memory over 2 GB.
timeout_per_input=${GML_FUZZ_INPUT_TIMEOUT:-10}
rss_limit_mb=${GML_FUZZ_RSS_MB:-2048}
max_len=${GML_FUZZ_MAX_LEN:-32768}

if [ $# -eq 0 ]; then
  for exe in "$builddir"/tests/fuzz/fuzz-*; do
    [ -f "$exe" ] && [ -x "$exe" ] && set -- "$@" "${exe##*/fuzz-}"
  done
fi
if [ $# -eq 0 ]; then
  echo "run-fuzz.sh: no fuzz targets in $builddir/tests/fuzz (is it a clang fuzz build?)" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gml-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT
artifacts="$builddir/fuzz-artifacts"
mkdir -p "$artifacts"

fuzz_one ()
{
  name=$1
  exe="$builddir/tests/fuzz/fuzz-$name"
  corpus="$work/corpus-$name"
  log="$builddir/fuzz-$name.log"
  mkdir -p "$corpus"
  cp "$srcdir/corpus/$name"/* "$corpus"/ 2>/dev/null || true
  seeds=$(ls "$corpus" | wc -l)
  dict=
  case $name in
    gift|moodle-xml|aiken) dict="$srcdir/moodle.dict" ;;
    *) dict="$srcdir/$name.dict" ;;
  esac
  [ -f "$dict" ] && dict="-dict=$dict" || dict=

  echo "== fuzz-$name: $seconds s from $seeds seeds"
  start=$(date +%s)
  touch "$work/start-$name"
  # -max_total_time bounds the run; timeout(1) guards against libFuzzer itself
  # hanging. The regressions are read first, so a bug that comes back fails at once.
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  G_DEBUG=gc-friendly GSETTINGS_BACKEND=memory \
  timeout --signal=KILL $((seconds + 120)) \
    "$exe" "$corpus" "$srcdir/regressions/$name" $dict \
      -max_total_time="$seconds" -timeout="$timeout_per_input" -rss_limit_mb="$rss_limit_mb" \
      -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
      > "$log" 2>&1
  status=$?
  elapsed=$(( $(date +%s) - start ))

  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  added=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -n 1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: //')
  corpus_size=$(ls "$corpus" | wc -l)
  line=$(printf '%-11s %10s execs %4s s %7s/s  corpus %3s -> %-4s  cov %-5s rss %s MB' \
         "$name" "${execs:-?}" "$elapsed" "${rate:-?}" "$seeds" "$corpus_size" \
         "${cov:-?}" "${rss:-?}")

  if [ $status -eq 0 ]; then
    echo "ok   $line" > "$work/result-$name"
  else
    {
      echo "FAIL $line (exit $status)"
      grep -E '^==[0-9]+==ERROR|^SUMMARY|deadly signal|Test unit written|ERROR: libFuzzer|^Bail out|CRITICAL|WARNING' "$log" |
        head -n 8 | sed 's/^/     /'
      echo "     full log: $log; inputs: $artifacts/$name-*"
      # The input itself, when small, so that a failure seen only in a CI log can
      # be reproduced: echo BASE64 | base64 -d > crash; fuzz-NAME crash
      find "$artifacts" -maxdepth 1 -type f -name "$name-*" -newer "$work/start-$name" | head -n 2 |
        while read -r input; do
          bytes=$(wc -c < "$input")
          echo "     ${input##*/}: $bytes bytes"
          [ "$bytes" -le 3072 ] && echo "     base64: $(base64 -w0 < "$input")"
        done
    } > "$work/result-$name"
  fi
  cat "$work/result-$name"
}

# At most $jobs targets at once.
running=0
for name in "$@"; do
  fuzz_one "$name" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then
    wait
    running=0
  fi
done
wait

passed=0
failed=0
echo
echo "Fuzzing summary (GML_FUZZ_SECONDS=$seconds per target):"
for name in "$@"; do
  if [ -f "$work/result-$name" ]; then
    cat "$work/result-$name"
    case $(head -c 2 "$work/result-$name") in
      ok) passed=$((passed + 1)) ;;
      *) failed=$((failed + 1)) ;;
    esac
  else
    echo "FAIL $name (no result)"
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

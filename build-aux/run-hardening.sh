#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Hostile input, sanitizers, valgrind and fuzzing. Run after build-aux/run-tests.sh
# (CI: .ci/run); needs what build-aux/install-deps.sh installs (clang,
# libclang-rt-14-dev, llvm, valgrind). About 12 minutes on 2 cores.
#
#   1. _build-asan: -Db_sanitize=address,undefined (gcc); the unit, engine, cuda,
#      render, snapshot, watch, fuzz-regression and hardening suites under ASan, LSan
#      and UBSan.
#   2. _build-hardening: a plain build; valgrind memcheck over the unit, engine and
#      cuda suites (no definite leaks, no invalid reads or writes).
#   3. _build-fuzz: clang + libFuzzer; every fuzz target for GML_FUZZ_SECONDS
#      (default 60) seconds, two at a time (GML_FUZZ_JOBS), failing on any crash,
#      leak or timeout.
#   4. _build-flatpak: flatpak/build-local.sh, the Flatpak built from Debian 12
#      packages, installed and run in its sandbox (needs mmdebstrap, flatpak and the
#      portals; the log is _build-flatpak/build-local.log).
#
# Ends with one line "N passed, N failed" over its own checks (each test of each
# suite, each build, each fuzz target, each step of the Flatpak's). GML_HARDENING_SKIP
# may name steps to leave out: "asan", "valgrind", "fuzz", "flatpak".
set -u
cd "$(dirname "$0")/.."
srcdir=$(pwd)

seconds=${GML_FUZZ_SECONDS:-60}
export GML_FUZZ_JOBS=${GML_FUZZ_JOBS:-2}
skip=${GML_HARDENING_SKIP:-}
passed=0
failed=0
failures=

pass () { passed=$((passed + 1)); echo "PASS: $1"; }
fail () { failed=$((failed + 1)); failures="$failures\n  $1"; echo "FAIL: $1"; }

skipped () { case " $skip " in *" $1 "*) return 0 ;; esac; return 1; }

setup () # builddir, meson options...
{
  dir=$1
  shift
  mkdir -p "$dir"
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" > "$dir/hardening-setup.log" 2>&1
  else
    meson setup "$dir" "$@" > "$dir/hardening-setup.log" 2>&1
  fi
}

# Counts the results of a `meson test --logbase $2` in $1 as checks.
count_tests () # builddir, logbase
{
  counts=$(/usr/bin/python3 - "$1/meson-logs" "$2" <<'PY'
import glob, json, os, sys
ok = bad = 0
names = []
# meson adds the wrapper's name to the log's: hardening-valgrind-valgrind.json.
logs = sorted(glob.glob(os.path.join(sys.argv[1], sys.argv[2] + '*.json')), key=os.path.getmtime)
if logs:
    lines = open(logs[-1], encoding='utf-8').readlines()
else:
    lines = []
    bad, names = 1, [f'{sys.argv[2]}: no test log']
for line in lines:
    if not line.strip():
        continue
    r = json.loads(line)
    if r['result'] in ('OK', 'EXPECTEDFAIL', 'SKIP'):
        ok += 1
    else:
        bad += 1
        names.append(f"{sys.argv[2]}: {r['name']} ({r['result']})")
print(ok, bad)
for n in names:
    print(n)
PY
)
  set -- $(echo "$counts" | head -n 1) 0 1
  passed=$((passed + $1))
  failed=$((failed + $2))
  extra=$(echo "$counts" | tail -n +2)
  [ -n "$extra" ] && failures="$failures\n  $(echo "$extra" | sed ':a;N;$!ba;s/\n/\\n  /g')"
  return 0
}

start=$(date +%s)

# ---- 1. AddressSanitizer + UndefinedBehaviorSanitizer -------------------------
if ! skipped asan; then
  echo "== ASan/UBSan build (_build-asan)"
  if setup _build-asan -Db_sanitize=address,undefined -Dbuildtype=debug &&
     meson compile -C _build-asan > _build-asan/hardening-build.log 2>&1; then
    pass "asan build"
    suites=
    for s in unit engine cuda render snapshot watch fuzz hardening; do
      suites="$suites --suite $s"
    done
    # Leaks are errors (LSan); GLib, fontconfig and friends keep some memory for the
    # life of the process on purpose: build-aux/lsan.supp lists those.
    # GML_TEST_EXPERIMENT_SAMPLE: cuda-backend runs a sample of the bank's experiments
    # on the fake driver here (all of them in run-tests.sh).
    GML_TEST_EXPERIMENT_SAMPLE=1 \
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0 \
    LSAN_OPTIONS=suppressions=$srcdir/build-aux/lsan.supp:print_suppressions=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      meson test -C _build-asan --no-rebuild --print-errorlogs --num-processes 2 \
        --logbase hardening-asan \
        --timeout-multiplier 3 $suites > _build-asan/hardening-test.log 2>&1
    grep -E '^ *[0-9]+/[0-9]+ ' _build-asan/hardening-test.log
    count_tests _build-asan hardening-asan
  else
    fail "asan build (see _build-asan/hardening-setup.log, _build-asan/hardening-build.log)"
  fi
fi

# ---- 2. valgrind memcheck ---------------------------------------------------------
if ! skipped valgrind; then
  echo "== valgrind memcheck (_build-hardening)"
  if setup _build-hardening -Dbuildtype=debugoptimized &&
     meson compile -C _build-hardening > _build-hardening/hardening-build.log 2>&1; then
    pass "plain build for valgrind"
    # engine-random runs a million operations: about 3 minutes under valgrind, so
    # it runs once (its Turkish twin differs only in number formatting); so does
    # engine-replay-parse (50 000 lines through json-glib, about a minute).
    # lab-live-cli is a Python driver of the verb: valgrind would judge Python's
    # interpreter (and a pyenv's shell shims) more than the lab; cuda-backend's
    # /cuda/lab-live runs the same live path in C under valgrind.
    tests=$(meson test -C _build-hardening --no-rebuild --list --suite unit --suite engine \
              --suite cuda 2>/dev/null | sed -n 's|^.* / ||p' |
              grep -v -e '^engine-random-tr$' -e '^engine-replay-parse-tr$' -e '^lab-live-cli$')
    # Children too (the subprocess cases of the CUDA tests, the replay binary), but not
    # zbarimg, which unit-qr asks to read its codes back (ImageMagick under valgrind: 24 s
    # a run, and none of ours). With
    # valgrind's report in files of its own so the tests' stderr stays as they
    # expect it. G_SLICE=always-malloc lets valgrind see every block.
    vglogs=$srcdir/_build-hardening/valgrind-logs
    rm -rf "$vglogs"
    mkdir -p "$vglogs"
    G_SLICE=always-malloc GML_TEST_EXPERIMENT_SAMPLE=1 \
      meson test -C _build-hardening --no-rebuild --print-errorlogs --num-processes 2 \
        --logbase hardening-valgrind --timeout-multiplier 10 $tests \
        --wrap="valgrind --trace-children=yes --trace-children-skip=*/zbarimg --log-file=$vglogs/%p.log --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --track-origins=yes --suppressions=$srcdir/build-aux/valgrind.supp --gen-suppressions=all" \
        > _build-hardening/hardening-valgrind.log 2>&1
    grep -E '^ *[0-9]+/[0-9]+ ' _build-hardening/hardening-valgrind.log
    # What valgrind found, wherever it found it.
    for log in $(grep -l -E 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]' "$vglogs"/*.log 2>/dev/null); do
      echo "--- $log"
      grep -E '^==[0-9]+== (Command|Invalid|Conditional|Use of|Syscall|[0-9,]+ bytes in .* definitely| +(at|by) 0x)' "$log" | head -n 30
    done
    count_tests _build-hardening hardening-valgrind
  else
    fail "plain build (see _build-hardening/hardening-setup.log, _build-hardening/hardening-build.log)"
  fi
fi

# ---- 3. libFuzzer -----------------------------------------------------------------
if ! skipped fuzz; then
  echo "== libFuzzer (_build-fuzz), $seconds s per target, $GML_FUZZ_JOBS at a time"
  if CC=clang setup _build-fuzz -Db_sanitize=address,undefined -Db_lundef=false \
       -Dc_args=-fsanitize=fuzzer-no-link -Dbuildtype=debugoptimized; then
    targets=$(meson introspect --targets _build-fuzz | /usr/bin/python3 -c '
import json, sys
for t in json.load(sys.stdin):
    if t["name"].startswith("fuzz-") and t["type"] == "executable":
        print(t["filename"][0])')
    if [ -n "$targets" ] &&
       ninja -C _build-fuzz -j2 $(for t in $targets; do echo "${t#$srcdir/_build-fuzz/}"; done) \
         > _build-fuzz/hardening-build.log 2>&1; then
      pass "fuzz build"
      GML_FUZZ_SECONDS=$seconds tests/fuzz/run-fuzz.sh _build-fuzz > _build-fuzz/hardening-fuzz.log 2>&1
      sed -n '/^Fuzzing summary/,$p' _build-fuzz/hardening-fuzz.log
      for line in $(sed -n '/^Fuzzing summary/,$p' _build-fuzz/hardening-fuzz.log |
                    grep -E '^(ok|FAIL) ' | awk '{print $1 ":" $2}'); do
        case $line in
          ok:*) pass "fuzz-${line#ok:}" ;;
          *) fail "fuzz-${line#FAIL:} (see _build-fuzz/hardening-fuzz.log)" ;;
        esac
      done
      # Why, and the input, again at the very end: a CI log may keep only its tail.
      fuzz_details=$(sed -n '/^Fuzzing summary/,$p' _build-fuzz/hardening-fuzz.log | grep -E '^(FAIL |     )')
    else
      fail "fuzz build (see _build-fuzz/hardening-build.log)"
    fi
  else
    fail "fuzz build setup (see _build-fuzz/hardening-setup.log)"
  fi
fi

# ---- 4. The Flatpak, built and run in its sandbox ---------------------------------
# flatpak/build-local.sh: a stand-in runtime and SDK from Debian 12 packages, the app
# built from its manifest, installed, bundled and run in the sandbox (a few minutes).
# Each of its steps is one check here.
if ! skipped flatpak; then
  echo "== Flatpak (flatpak/build-local.sh, _build-flatpak)"
  mkdir -p _build-flatpak
  flatpak/build-local.sh > "$srcdir/_build-flatpak/build-local.log" 2>&1
  grep -E '^(PASS|FAIL): |^    ' "$srcdir/_build-flatpak/build-local.log"
  flatpak_counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$srcdir/_build-flatpak/build-local.log" | tail -n 1 | tr -d ,)
  if [ -n "$flatpak_counts" ]; then
    set -- $flatpak_counts
    passed=$((passed + $1))
    failed=$((failed + $3))
    [ "$3" -gt 0 ] && failures="$failures\n  flatpak: $3 of its steps (see _build-flatpak/build-local.log)"
  else
    fail "flatpak/build-local.sh ended without its counts (see _build-flatpak/build-local.log)"
  fi
fi

echo
echo "run-hardening.sh took $(( $(date +%s) - start )) s"
[ $failed -gt 0 ] && printf "Failed:$failures\n"
[ -n "${fuzz_details:-}" ] && printf 'Fuzzing failures:\n%s\n' "$fuzz_details"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

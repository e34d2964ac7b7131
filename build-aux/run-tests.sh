#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds GPU Memory Lab in _build and runs every test: unit, engine, CUDA (against a
# fake libcuda.so.1), validation and the real window under Xvfb. Ends with a line
# "N passed, N failed". Needs what build-aux/install-deps.sh installs.
set -u
cd "$(dirname "$0")/.."
builddir=${GML_BUILDDIR:-_build}

if [ -f "$builddir/build.ninja" ]; then
  meson setup --reconfigure "$builddir" || exit 1
else
  meson setup "$builddir" || exit 1
fi
meson compile -C "$builddir" || exit 1

meson test -C "$builddir" --print-errorlogs --num-processes 2 "$@"
status=$?

/usr/bin/python3 - "$builddir/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1], encoding='utf-8'):
    result = json.loads(line)['result']
    if result in ('OK', 'EXPECTEDFAIL'):
        passed += 1
    elif result == 'SKIP':
        skipped += 1
    else:
        failed += 1
print(f'{passed} passed, {failed} failed' + (f', {skipped} skipped' if skipped else ''))
PY
exit $status

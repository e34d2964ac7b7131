#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The Flatpak's way of building the CUDA backend, tried here: configure a second build
# of this checkout with -Dcudatypes=own and a toolkit path that does not exist, build
# the backend, the fake driver and their test, check that no object saw cuda.h, and
# run the CUDA backend's tests against the fake driver.
#   check-own-cuda-types.sh SOURCE_ROOT BUILD_DIR
set -eu
src=$1
build=$2

if [ -f "$build/build.ninja" ]; then
  meson configure "$build" -Dcuda=enabled -Dcudatypes=own -Dcudatoolkit=/nonexistent >/dev/null
else
  meson setup "$build" "$src" -Dcuda=enabled -Dcudatypes=own -Dcudatoolkit=/nonexistent \
    -Dbuildtype=debug >/dev/null
fi

grep -q '^#define GML_CUDA_OWN_TYPES 1$' "$build/config.h" || {
  echo "FAIL: config.h does not select our own CUDA types"; exit 1; }
grep -q '^#define HAVE_CUDA_H 1$' "$build/config.h" || {
  echo "FAIL: the CUDA backend is not built"; exit 1; }
echo "ok: configured with our own CUDA types"

ninja -C "$build" -j2 tests/cuda/test-cuda-backend tests/cuda/libcuda.so.1 \
  tests/cuda/libcuda-incomplete.so >/dev/null
echo "ok: the backend, the fake driver and the test build without cuda.h"

# The compiler's own record of the headers each object read.
if ninja -C "$build" -t deps | grep -E '(^|/)cuda\.h$'; then
  echo "FAIL: an object of the own-types build read the toolkit's cuda.h"; exit 1
fi
ninja -C "$build" -t deps | grep -q 'gml-cuda-types\.h' || {
  echo "FAIL: no object read gml-cuda-types.h"; exit 1; }
echo "ok: no object read cuda.h; gml-cuda-types.h was used"

meson test -C "$build" --no-rebuild --print-errorlogs cuda-backend
echo "ok: the CUDA backend passes its fake-driver tests with our own types"

/* llvm-modules.c — a preload library for bench/startup: prints a line for each LLVM
 * module created in the process, that is for each shader variant Mesa's llvmpipe (the
 * software renderer under Xvfb) compiles, with its name and the time:
 *
 *   cc -shared -fPIC -O2 -o llvm-modules.so bench/startup/llvm-modules.c -ldl
 *   GML_BENCH_FIRST_FRAME=1 LD_PRELOAD=$PWD/llvm-modules.so _build/src/app/gpu-memory-lab
 *
 * (inside a display, e.g. tests/e2e/run-in-session.sh). Each "fsN_variantM" is a
 * fragment shader, "setup_variant_N" and "draw_llvm_vs_variantN" the rest of a
 * pipeline: what a first frame draws decides how many are made before it shows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

typedef void *(*CreateModule) (const char *name,
                               void       *context);

void *
LLVMModuleCreateWithNameInContext (const char *name,
                                   void       *context)
{
  static CreateModule real;
  struct timespec now;

  if (real == NULL)
    real = (CreateModule) dlsym (RTLD_NEXT, "LLVMModuleCreateWithNameInContext");
  clock_gettime (CLOCK_MONOTONIC, &now);
  fprintf (stderr, "llvm-module %ld.%06ld %s\n", (long) now.tv_sec, now.tv_nsec / 1000, name);
  return real (name, context);
}

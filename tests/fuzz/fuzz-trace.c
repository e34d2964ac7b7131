/* fuzz-trace.c — `gpu-memory-lab replay` (gml_replay_main) on any trace file.
 *
 * The trace reader is the command itself, so the target runs the command on the
 * input, handed over as an in-memory file (memfd) with no disk in between. A bad
 * trace must end in exit status 1 with a message, never in a crash.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define _GNU_SOURCE
#include "config.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz-common.h"
#include "gml-replay.h"

static int trace_fd = -1;
static char trace_path[64];

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_quiet ();
  trace_fd = memfd_create ("fuzz-trace.jsonl", MFD_CLOEXEC);
  if (trace_fd < 0)
    abort ();
  g_snprintf (trace_path, sizeof trace_path, "/proc/self/fd/%d", trace_fd);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  char *argv[] = { "replay", trace_path, NULL };
  int status;

  if (ftruncate (trace_fd, 0) != 0 || pwrite (trace_fd, data, size, 0) != (ssize_t) size)
    abort ();

  status = gml_replay_main (2, argv);
  if (status != 0 && status != 1)
    abort ();
  return 0;
}

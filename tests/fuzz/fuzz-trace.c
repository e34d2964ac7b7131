/* fuzz-trace.c — `gpu-memory-lab replay` (gml_replay_main) on any trace file.
 *
 * The trace reader is the command itself, so the target runs the command on the
 * input, handed over as an in-memory file (memfd) with no disk in between. A bad
 * trace must end in exit status 1 with a message, never in a crash.
 *
 * Then each line goes through both of the command's readers: whatever the fast
 * reader accepts, json-glib must read the same way, or the target aborts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define _GNU_SOURCE
#include "config.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz-common.h"
#include "gml-input.h"
#include "gml-replay.h"
#include "gml-replay-private.h"

static int trace_fd = -1;
static char trace_path[64];
static JsonParser *parser;

static gboolean
same_line (const GmlReplayLine *a,
           const GmlReplayLine *b)
{
  return a->op == b->op && g_strcmp0 (a->id, b->id) == 0 && a->size == b->size &&
         a->stream == b->stream && g_strcmp0 (a->label, b->label) == 0 &&
         a->category == b->category;
}

/* The readers' input is what replay hands them: a trimmed line of a file
 * that is UTF-8 without NUL bytes. */
static void
check_readers_agree (const uint8_t *data,
                     size_t         size)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (size == 0 || memchr (data, '\0', size) != NULL ||
      !g_utf8_validate_len ((const char *) data, size, NULL))
    return;

  text = fuzz_strndup (data, size);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *copy = NULL;
      g_autofree char *message = NULL;
      GmlReplayLine fast, full;

      g_strstrip (lines[i]);
      if (*lines[i] == '\0' || strlen (lines[i]) > GML_MAX_TRACE_LINE)
        continue;
      copy = g_strdup (lines[i]);
      if (!gml_replay_parse_line_fast (copy, strlen (copy), &fast))
        {
          if (strcmp (copy, lines[i]) != 0)
            abort ();
          continue;
        }
      if (!gml_replay_parse_line (parser, lines[i], &full, &message) || !same_line (&fast, &full))
        abort ();
    }
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_quiet ();
  trace_fd = memfd_create ("fuzz-trace.jsonl", MFD_CLOEXEC);
  if (trace_fd < 0)
    abort ();
  g_snprintf (trace_path, sizeof trace_path, "/proc/self/fd/%d", trace_fd);
  parser = json_parser_new_immutable ();
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

  check_readers_agree (data, size);
  return 0;
}

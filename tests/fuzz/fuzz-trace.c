/* fuzz-trace.c — the replay engine (gml_replay_file) on any trace file.
 *
 * The engine reads the file itself, so the target hands it the input as an
 * in-memory file (memfd) with no disk in between, and replays it on a fresh
 * simulated GPU, as `gpu-memory-lab replay` does. A bad trace must end in a
 * GML_REPLAY_ERROR with a message, never in a crash.
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
#include "gml-device.h"
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
         a->category == b->category && a->has_stream == b->has_stream &&
         a->fraction == b->fraction;
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
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlDevice) device = NULL;
  GmlAllocator *allocator;
  GmlAllocConf conf;

  if (ftruncate (trace_fd, 0) != 0 || pwrite (trace_fd, data, size, 0) != (ssize_t) size)
    abort ();

  /* `replay`'s default device: a simulated 8 GiB GPU. */
  device = gml_device_open (GML_BACKEND_SIM, 0, 0, NULL, &error);
  if (device == NULL)
    abort ();
  gml_alloc_conf_init (&conf);
  allocator = gml_allocator_new (device, &conf);
  gml_allocator_set_keep_trace (allocator, FALSE);

  if (!gml_replay_file (trace_path, allocator, NULL, &error))
    {
      if (error == NULL || error->domain != GML_REPLAY_ERROR || *error->message == '\0')
        abort ();
    }
  else
    {
      g_autofree char *json = gml_replay_stats_to_json (allocator);

      if (error != NULL || json == NULL)
        abort ();
    }
  gml_allocator_destroy (allocator);

  check_readers_agree (data, size);
  return 0;
}

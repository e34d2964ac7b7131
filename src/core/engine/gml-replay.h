/* gml-replay.h — a trace file run through the caching allocator.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "gml-allocator.h"

G_BEGIN_DECLS

#define GML_REPLAY_ERROR (gml_replay_error_quark ())

typedef enum
{
  GML_REPLAY_ERROR_READ,    /* unreadable, too big, a NUL byte, not UTF-8 */
  GML_REPLAY_ERROR_LINE,    /* a bad line: the message is "FILE:LINE: reason" */
  GML_REPLAY_ERROR_EMPTY,   /* no operations at all */
} GmlReplayError;

GQuark   gml_replay_error_quark   (void);

/* Runs the trace at @path (one JSON object a line: alloc, free, empty_cache,
 * record_stream, synchronize, set_memory_fraction) through @allocator, a line
 * at a time, in constant memory. Running out of memory is part of a trace and
 * no error: the allocator counts it. The whole file is read even after a bad
 * line, so that a NUL byte or invalid UTF-8 anywhere is what is reported
 * (GML_REPLAY_ERROR_READ) before any line.
 *
 * With @allocator NULL the file is only read and checked for those, as
 * `replay` does when its device cannot open. Every message is a whole
 * translated sentence naming @path. @n_operations, if not NULL, is set to the
 * number of lines replayed. */
gboolean gml_replay_file          (const char    *path,
                                   GmlAllocator  *allocator,
                                   guint         *n_operations,
                                   GError       **error);

/* @allocator's figures as pretty-printed JSON under the names
 * torch.cuda.memory_stats() uses, with largest_free_block_bytes and
 * last_oom_message. */
char    *gml_replay_stats_to_json (GmlAllocator  *allocator);

G_END_DECLS

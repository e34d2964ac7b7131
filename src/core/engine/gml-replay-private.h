/* gml-replay-private.h — the two readers of a trace line, for the tests that
 * hold them to the same answers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "gml-trace.h"

G_BEGIN_DECLS

typedef enum
{
  GML_REPLAY_ALLOC,
  GML_REPLAY_FREE,
  GML_REPLAY_EMPTY_CACHE,
  GML_REPLAY_RECORD_STREAM,        /* tensor.record_stream(stream) */
  GML_REPLAY_SYNCHRONIZE,          /* torch.cuda.synchronize(), or one stream's synchronize() */
  GML_REPLAY_SET_MEMORY_FRACTION,  /* torch.cuda.set_per_process_memory_fraction(fraction) */
} GmlReplayOp;

/* One operation of a trace. The strings point into the line (fast reader) or
 * into the parser's tree (full reader), and live as long as those. */
typedef struct
{
  GmlReplayOp  op;
  const char  *id;            /* alloc, free and record_stream; NULL for the others */
  guint64      size;          /* alloc */
  guint32      stream;        /* alloc, record_stream, synchronize; 0 when not given */
  const char  *label;         /* alloc; NULL when not given */
  GmlCategory  category;      /* alloc; GML_CATEGORY_NONE when not given */
  gboolean     has_stream;    /* synchronize: one stream, not all of them */
  double       fraction;      /* set_memory_fraction */
} GmlReplayLine;

/* The fast reader: only the three shapes of the format as the lab writes them,
 *   {"op":"alloc","id":"ID","size":N[,"stream":N][,"label":"TEXT"][,"category":"NAME"]}
 *   {"op":"free","id":"ID"}
 *   {"op":"empty_cache"}
 * byte for byte: no whitespace, strings without escapes or control characters,
 * numbers of at most 18 digits with no sign, fraction, exponent or leading zero,
 * a stream up to 4294967295 and a category the lab knows. It returns FALSE for
 * anything else, valid or not, and leaves the line as it was; on TRUE it has
 * written a NUL after each string it points @line at. @text is a whole line of
 * @length bytes, valid UTF-8 without NUL bytes, with no whitespace around it. */
gboolean gml_replay_parse_line_fast (char           *text,
                                     gsize           length,
                                     GmlReplayLine  *line);

/* The full reader: any line json-glib reads. On FALSE *message is the reason,
 * the text `replay` prints after "FILE:LINE: ". */
gboolean gml_replay_parse_line      (JsonParser     *parser,
                                     const char     *text,
                                     GmlReplayLine  *line,
                                     char          **message);

G_END_DECLS

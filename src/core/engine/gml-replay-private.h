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
} GmlReplayOp;

/* One operation of a trace. The strings point into the line (fast reader) or
 * into the parser's tree (full reader), and live as long as those. */
typedef struct
{
  GmlReplayOp  op;
  const char  *id;            /* alloc and free; NULL for empty_cache */
  guint64      size;          /* alloc */
  guint32      stream;        /* alloc; 0 when not given */
  const char  *label;         /* alloc; NULL when not given */
  GmlCategory  category;      /* alloc; GML_CATEGORY_NONE when not given */
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

/* gml-input.h — limits on what the lab reads from files it did not write.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define GML_INPUT_ERROR (gml_input_error_quark ())

typedef enum
{
  GML_INPUT_ERROR_TOO_BIG,    /* the file is bigger than the reader accepts */
  GML_INPUT_ERROR_TOO_DEEP,   /* JSON nested deeper than the reader accepts */
} GmlInputError;

/* The biggest files each reader accepts. They are far above anything real (the
 * built-in bank is 13 kB, a log of 10 000 answers about 1.5 MB, a trace of a
 * million operations about 60 MB) and far below what would hurt to hold in memory. */
#define GML_MAX_BANK_SIZE      ((gsize) 16 << 20)
#define GML_MAX_PROGRESS_SIZE  ((gsize) 64 << 20)
#define GML_MAX_TRACE_SIZE     ((gsize) 256 << 20)
/* A Moodle export may carry pictures as base64, which the lab drops. */
#define GML_MAX_IMPORT_SIZE    ((gsize) 64 << 20)

/* json-glib parses recursively: 100 000 nested arrays overflow the stack. The
 * lab's formats need five levels; this leaves room for any sane file. */
#define GML_MAX_JSON_DEPTH     64

GQuark   gml_input_error_quark    (void);

gboolean gml_input_read_file      (const char  *path,
                                   gsize        max_size,
                                   char       **contents,
                                   gsize       *length,
                                   GError     **error);
gboolean gml_input_check_json_depth (const char *data,
                                     gssize      length,
                                     guint       max_depth,
                                     GError    **error);

G_END_DECLS

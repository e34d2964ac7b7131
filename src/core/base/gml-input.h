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
/* A trace is read a piece at a time; one line of it is held whole. A real line
 * is under 200 bytes; JSON nested to the depth limit below fits many times over. */
#define GML_MAX_TRACE_LINE     ((gsize) 1 << 20)
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

/* The same refusals as gml_input_read_file(), for a file read a piece at a time
 * (and never held whole): open() refuses a directory and a regular file over
 * @max_size; read() fails once more than @max_size bytes came (a pipe, a device,
 * a file that grows). read() returns the number of bytes read, 0 at the end,
 * -1 with @error set. */
typedef struct _GmlInputReader GmlInputReader;

GmlInputReader *gml_input_reader_open  (const char      *path,
                                        gsize            max_size,
                                        GError         **error);
gssize          gml_input_reader_read  (GmlInputReader  *self,
                                        char            *buffer,
                                        gsize            size,
                                        GError         **error);
void            gml_input_reader_close (GmlInputReader  *self);

/* UTF-8 validation of text that comes in pieces, which may end inside a
 * character: the pieces together are valid exactly when g_utf8_validate_len()
 * would say so of their concatenation. */
typedef struct
{
  guint8 pending[4];          /* the start of a character cut by the last piece */
  guint8 n_pending;
  guint8 need;                /* that character's length */
} GmlUtf8Check;

void     gml_utf8_check_init   (GmlUtf8Check *self);
/* FALSE as soon as the text so far cannot be UTF-8; feed nothing more then. */
gboolean gml_utf8_check_feed   (GmlUtf8Check *self,
                                const char   *data,
                                gsize         length);
/* At the end of the text: FALSE when it ends inside a character. */
gboolean gml_utf8_check_finish (GmlUtf8Check *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlInputReader, gml_input_reader_close)

G_END_DECLS

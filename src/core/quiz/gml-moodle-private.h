/* gml-moodle-private.h — what the Moodle readers and writer share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-moodle.h"

G_BEGIN_DECLS

/* A question as a reader found it, before it becomes the lab's JSON. */
typedef struct
{
  char     *text;
  char     *feedback;
  gboolean  correct;
} GmlMoodleOption;

typedef struct
{
  guint      line;
  char      *id;
  char      *topic;
  char      *text;
  char      *explanation;
  char      *scenario;
  int        difficulty;    /* 0: not given */
  GPtrArray *options;       /* GmlMoodleOption* */
  GPtrArray *sources;       /* GmlSource*, taken from the end of the general feedback */
} GmlMoodleImported;

GmlMoodleImported *_gml_moodle_imported_new   (guint              line);
void               _gml_moodle_imported_free  (GmlMoodleImported *q);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlMoodleImported, _gml_moodle_imported_free)

/* g_set_str() is GLib 2.76; this is 2.74. */
void               _gml_moodle_replace_str    (char             **target,
                                               const char        *value);

/* Sets @error to "ORIGIN:LINE: message" and returns FALSE, like a compiler. */
gboolean           _gml_moodle_fail           (GError           **error,
                                               int                code,
                                               const char        *origin,
                                               guint              line,
                                               const char        *format,
                                               ...) G_GNUC_PRINTF (5, 6);
gboolean           _gml_moodle_apply_tag      (GmlMoodleImported *q,
                                               const char        *tag,
                                               const char        *origin,
                                               guint              line,
                                               GError           **error);
char              *_gml_moodle_category_topic (const char        *path);
char              *_gml_moodle_html_to_text   (const char        *html);

/* Turns the parsed questions into the lab's JSON, filling what Moodle files
 * lack, and validates each one with "ORIGIN:LINE" as its origin. */
char              *_gml_moodle_finish         (GPtrArray         *questions,
                                               const char        *origin,
                                               const char        *default_topic,
                                               guint             *n_questions,
                                               GError           **error);

/* Each format's reader: @data is NUL-terminated UTF-8 without a byte-order mark. */
char              *_gml_moodle_import_gift    (const char        *data,
                                               const char        *origin,
                                               const char        *default_topic,
                                               guint             *n_questions,
                                               GError           **error);
char              *_gml_moodle_import_aiken   (const char        *data,
                                               const char        *origin,
                                               const char        *default_topic,
                                               guint             *n_questions,
                                               GError           **error);
char              *_gml_moodle_import_xml     (const char        *data,
                                               gsize              length,
                                               const char        *origin,
                                               const char        *default_topic,
                                               guint             *n_questions,
                                               GError           **error);

G_END_DECLS

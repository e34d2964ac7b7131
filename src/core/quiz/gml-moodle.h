/* gml-moodle.h — Moodle GIFT and Moodle XML export; GIFT, Moodle XML and Aiken import.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "gml-question-bank.h"

G_BEGIN_DECLS

#define GML_MOODLE_ERROR (gml_moodle_error_quark ())

typedef enum
{
  GML_MOODLE_ERROR_PARSE,     /* the file is not well-formed GIFT, XML or Aiken */
  GML_MOODLE_ERROR_INVALID,   /* well-formed, but not a question the lab can hold */
} GmlMoodleError;

typedef enum
{
  GML_MOODLE_FORMAT_UNKNOWN,
  GML_MOODLE_FORMAT_GIFT,
  GML_MOODLE_FORMAT_XML,
  GML_MOODLE_FORMAT_AIKEN,
} GmlMoodleFormat;

/* What an imported question gets when the file does not say: no [tag:difficulty-N]
 * means the middle difficulty; no [tag:scenario-X] means the out-of-memory picture,
 * the one every other scenario starts from. */
#define GML_MOODLE_DEFAULT_DIFFICULTY 2
#define GML_MOODLE_DEFAULT_SCENARIO   "oom"

GQuark           gml_moodle_error_quark     (void);

GmlMoodleFormat  gml_moodle_format_from_name (const char       *name);
GmlMoodleFormat  gml_moodle_detect_format   (const char       *filename,
                                             const char       *data,
                                             gsize             length);

/* Exports every question of @bank in the current gettext language, options in
 * source order (a–d), placeholders resolved to those letters. */
char            *gml_moodle_export          (GmlQuestionBank  *bank,
                                             GmlMoodleFormat   format,
                                             gsize            *length);

/* Parses @data and returns the questions as a bank JSON document (the format of
 * data/questions/), every question validated by gml_question_bank_load_data().
 * Errors read "ORIGIN:LINE: problem". @default_topic is the topic of questions with no
 * category. */
char            *gml_moodle_import          (const char       *data,
                                             gsize             length,
                                             GmlMoodleFormat   format,
                                             const char       *origin,
                                             const char       *default_topic,
                                             guint            *n_questions,
                                             GError          **error);

/* Imports the GIFT, Moodle XML or Aiken file @path as a bank of extra topics in
 * the user's question directory, checked as the app checks banks at start-up.
 * Returns the file written; *@replaced says whether it replaced an earlier
 * import of a file of that name. Errors are translated, with FILE:LINE where a
 * question is at fault. */
char            *gml_moodle_import_to_user_dir (const char    *path,
                                                guint         *n_questions,
                                                gboolean      *replaced,
                                                GError       **error);

G_END_DECLS

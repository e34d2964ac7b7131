/* gml-moodle-user.c — an imported Moodle file saved among the user's own banks.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-moodle-user"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "gml-i18n.h"
#include "gml-input.h"
#include "gml-moodle.h"
#include "gml-question-bank.h"

/* The built-in bank and every imported bank except @replacing (the file this import
 * overwrites), so the new questions' ids are checked against all the others. */
static gboolean
load_other_banks (GmlQuestionBank *bank,
                  const char      *user_dir,
                  const char      *replacing,
                  GError         **error)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (!gml_question_bank_load_builtin (bank, error))
    return FALSE;
  dir = g_dir_open (user_dir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (user_dir, name, NULL);
      g_autoptr(GFile) file = NULL;

      if (!g_str_has_suffix (name, ".json") || g_str_equal (path, replacing))
        continue;
      file = g_file_new_for_path (path);
      /* A broken bank there is the app's problem to report, not this import's. */
      gml_question_bank_load_file (bank, file, FALSE, NULL);
    }
  return TRUE;
}

/* An id the app already has would make the whole file fail to load at start-up: say
 * so now, with the line (kept in each imported question's "imported_from"). */
static gboolean
check_unique_ids (GmlQuestionBank *bank,
                  const char      *json,
                  GError         **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *questions;

  if (!json_parser_load_from_data (parser, json, -1, error))
    return FALSE;
  questions = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                            "questions");
  for (guint i = 0; i < json_array_get_length (questions); i++)
    {
      JsonObject *q = json_array_get_object_element (questions, i);
      const char *id = json_object_get_string_member (q, "id");
      const GmlQuestion *existing = gml_question_bank_lookup (bank, id);

      if (existing != NULL)
        {
          /* Translators: %1$s is "FILE:LINE", %2$s a question id, %3$s the bank that has it. */
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                       _("%1$s: the id “%2$s” is already used by a question in %3$s"),
                       json_object_get_string_member (q, "imported_from"), id, existing->origin);
          return FALSE;
        }
    }
  return TRUE;
}

static char *
bank_file_name (const char *input)
{
  g_autofree char *base = g_path_get_basename (input);
  char *dot = strrchr (base, '.');
  g_autoptr(GString) name = g_string_new (NULL);

  if (dot != NULL && dot != base)
    *dot = '\0';
  for (const char *p = base; *p != '\0'; p++)
    g_string_append_c (name, g_ascii_isalnum (*p) || *p == '-' || *p == '_' ? *p : '-');
  if (name->len == 0)
    g_string_append (name, "imported");
  g_string_append (name, ".json");
  return g_string_free (g_steal_pointer (&name), FALSE);
}

/* Imports the GIFT, Moodle XML or Aiken file @path as a bank of extra topics in
 * the user's question directory, checked as the app checks banks at start-up.
 * Returns the file written; *replaced says whether it replaced an earlier
 * import of a file of that name. Errors are translated, with FILE:LINE where a
 * question is at fault. */
char *
gml_moodle_import_to_user_dir (const char *path,
                               guint      *n_questions,
                               gboolean   *replaced,
                               GError    **error)
{
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autofree char *contents = NULL;
  g_autofree char *json = NULL;
  g_autofree char *user_dir = gml_user_questions_dir ();
  g_autofree char *target_name = NULL;
  g_autofree char *target = NULL;
  g_autofree char *topic = NULL;
  g_autofree char *origin = g_filename_display_name (path);
  GmlMoodleFormat format;
  gsize length = 0;

  *n_questions = 0;
  if (!gml_input_read_file (path, GML_MAX_IMPORT_SIZE, &contents, &length, error))
    {
      g_prefix_error (error, "%s: ", origin);
      return NULL;
    }

  format = gml_moodle_detect_format (path, contents, length);
  if (format == GML_MOODLE_FORMAT_UNKNOWN)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s is not a GIFT, Moodle XML or Aiken file"), origin);
      return NULL;
    }

  {
    g_autofree char *base = g_filename_display_basename (path);
    char *dot = strrchr (base, '.');

    if (dot != NULL && dot != base)
      *dot = '\0';
    topic = g_steal_pointer (&base);
  }

  json = gml_moodle_import (contents, length, format, origin, topic, n_questions, error);
  if (json == NULL)
    return NULL;

  target_name = bank_file_name (path);
  target = g_build_filename (user_dir, target_name, NULL);
  if (!load_other_banks (bank, user_dir, target, error) ||
      !check_unique_ids (bank, json, error) ||
      !gml_question_bank_load_data (bank, json, strlen (json), origin, FALSE, error))
    return NULL;

  if (g_mkdir_with_parents (user_dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno), "%s: %s", user_dir,
                   g_strerror (saved_errno));
      return NULL;
    }
  if (replaced != NULL)
    *replaced = g_file_test (target, G_FILE_TEST_EXISTS);
  if (!g_file_set_contents (target, json, -1, error))
    return NULL;
  return g_steal_pointer (&target);
}


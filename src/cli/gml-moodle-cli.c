/* gml-moodle-cli.c — `gpu-memory-lab export` and `gpu-memory-lab import`.
 *
 *   export --format gift|moodle-xml --lang tr|en --output FILE
 *       writes the built-in bank and the user's own banks for Moodle.
 *   import FILE
 *       reads a GIFT, Moodle XML or Aiken file, validates it against the built-in
 *       bank and the other imported banks (ids must stay unique), and saves it as
 *       JSON in the user's question folder, where the app loads it as extra topics.
 *
 * Exit status: 0 on success, 1 when the file is wrong or cannot be written, 2 for a
 * wrong command line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-moodle-cli"

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "gml-i18n.h"
#include "gml-moodle.h"
#include "gml-input.h"
#include "gml-moodle-cli.h"
#include "gml-question-bank.h"

int
gml_moodle_export_main (int    argc,
                        char **argv)
{
  g_autofree char *format_name = NULL;
  g_autofree char *lang = NULL;
  g_autofree char *output = NULL;
  GOptionEntry entries[] = {
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_name, N_("File format: gift or moodle-xml"), "FORMAT" },
    { "lang", 0, 0, G_OPTION_ARG_STRING, &lang, N_("Language of the text: tr or en"), "LANG" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("File to write (- for standard output)"), "FILE" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *user_dir = gml_user_questions_dir ();
  g_autofree char *data = NULL;
  GmlMoodleFormat format;
  gsize length = 0;

  g_option_context_set_summary (context, _("Export the question bank for Moodle."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translate_func (context, (GTranslateFunc) gml_i18n_translate_func, NULL, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("gpu-memory-lab export: %s\n", error->message);
      return 2;
    }
  format = gml_moodle_format_from_name (format_name);
  if (format != GML_MOODLE_FORMAT_GIFT && format != GML_MOODLE_FORMAT_XML)
    {
      g_printerr (_("gpu-memory-lab export: --format must be gift or moodle-xml\n"));
      return 2;
    }
  if (output == NULL)
    {
      g_printerr (_("gpu-memory-lab export: --output FILE is required\n"));
      return 2;
    }
  if (lang != NULL)
    {
      if (!gml_i18n_is_known_language (lang))
        {
          g_printerr (_("gpu-memory-lab export: unknown language “%s” (use tr or en)\n"), lang);
          return 2;
        }
      gml_i18n_set_language (lang);
    }

  if (!gml_question_bank_load_builtin (bank, &error))
    {
      g_printerr ("gpu-memory-lab export: %s\n", error->message);
      return 1;
    }
  gml_question_bank_load_user_dir (bank, user_dir, errors);
  for (guint i = 0; i < errors->len; i++)
    g_printerr ("gpu-memory-lab export: %s\n", (char *) g_ptr_array_index (errors, i));

  data = gml_moodle_export (bank, format, &length);
  if (g_str_equal (output, "-"))
    {
      fwrite (data, 1, length, stdout);
      return 0;
    }
  if (!g_file_set_contents (output, data, length, &error))
    {
      g_printerr ("gpu-memory-lab export: %s\n", error->message);
      return 1;
    }
  return 0;
}

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

int
gml_moodle_import_main (int    argc,
                        char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE"));
  g_autoptr(GError) error = NULL;
  g_autofree char *target = NULL;
  guint n_questions = 0;

  g_option_context_set_summary (context,
                                _("Import a Moodle GIFT, Moodle XML or Aiken file as extra topics."));
  g_option_context_set_translate_func (context, (GTranslateFunc) gml_i18n_translate_func, NULL, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("gpu-memory-lab import: %s\n", error->message);
      return 2;
    }
  if (argc != 2)
    {
      g_printerr (_("gpu-memory-lab import: give one file to import\n"));
      return 2;
    }

  target = gml_moodle_import_to_user_dir (argv[1], &n_questions, NULL, &error);
  if (target == NULL)
    {
      g_printerr ("gpu-memory-lab import: %s\n", error->message);
      return 1;
    }

  {
    g_autofree char *count = g_strdup_printf ("%u", n_questions);

    /* Translators: %1$s is a number of questions, %2$s a file name. */
    g_print (ngettext ("Imported %1$s question into %2$s\n",
                          "Imported %1$s questions into %2$s\n", n_questions), count, target);
  }
  return 0;
}

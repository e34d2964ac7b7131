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

#include <stdio.h>

#include "gml-i18n.h"
#include "gml-moodle.h"
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
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_name, N_("File format: gift or moodle-xml"),
      "FORMAT" },
    { "lang", 0, 0, G_OPTION_ARG_STRING, &lang, N_("Language of the text: tr or en"), "LANG" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("File to write (- for standard output)"),
      "FILE" },
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
  g_option_context_set_translate_func (context, (GTranslateFunc) gml_i18n_translate_func, NULL,
                                       NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("gpu-memory-lab export: %s\n", error->message);
      return 2;
    }
  format = gml_moodle_format_from_name (format_name);
  if (format != GML_MOODLE_FORMAT_GIFT && format != GML_MOODLE_FORMAT_XML)
    {
      g_printerr ("%s", _("gpu-memory-lab export: --format must be gift or moodle-xml\n"));
      return 2;
    }
  if (output == NULL)
    {
      g_printerr ("%s", _("gpu-memory-lab export: --output FILE is required\n"));
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

int
gml_moodle_import_main (int    argc,
                        char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE"));
  g_autoptr(GError) error = NULL;
  g_autofree char *target = NULL;
  guint n_questions = 0;

  g_option_context_set_summary (context,
                                _("Import a Moodle GIFT, Moodle XML or Aiken file as extra "
                                  "topics."));
  g_option_context_set_translate_func (context, (GTranslateFunc) gml_i18n_translate_func, NULL,
                                       NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("gpu-memory-lab import: %s\n", error->message);
      return 2;
    }
  if (argc != 2)
    {
      g_printerr ("%s", _("gpu-memory-lab import: give one file to import\n"));
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

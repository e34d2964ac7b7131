/* gml-questions-cli.c — `gpu-memory-lab questions`: the bank as the app shows it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-questions-cli"

#include "config.h"

#include <json-glib/json-glib.h>

#include "gml-i18n.h"
#include "gml-question-bank.h"
#include "gml-questions-cli.h"

static void
add_question_json (JsonBuilder       *builder,
                   const GmlQuestion *q,
                   const guint        order[GML_N_OPTIONS])
{
  g_autofree char *explanation = gml_question_format (q, q->explanation, order);
  g_autofree char *text = gml_question_format (q, q->text, order);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, q->id);
  json_builder_set_member_name (builder, "topic");
  json_builder_add_string_value (builder, gml_question_translate (q, q->topic));
  json_builder_set_member_name (builder, "difficulty");
  json_builder_add_int_value (builder, q->difficulty);
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, text);
  json_builder_set_member_name (builder, "options");
  json_builder_begin_array (builder);
  for (guint shown = 0; shown < GML_N_OPTIONS; shown++)
    {
      const GmlOption *option = &q->options[order[shown]];
      char letter[2] = { gml_option_letter (shown), '\0' };
      g_autofree char *option_text = gml_question_format (q, option->text, order);
      g_autofree char *feedback = gml_question_format (q, option->feedback, order);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "letter");
      json_builder_add_string_value (builder, letter);
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, option_text);
      json_builder_set_member_name (builder, "feedback");
      json_builder_add_string_value (builder, feedback);
      json_builder_set_member_name (builder, "correct");
      json_builder_add_boolean_value (builder, option->correct);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "explanation");
  json_builder_add_string_value (builder, explanation);
  json_builder_set_member_name (builder, "scenario");
  json_builder_add_string_value (builder, q->scenario);
  /* Each source as the link a browser opens. */
  json_builder_set_member_name (builder, "sources");
  json_builder_begin_array (builder);
  for (guint i = 0; i < q->n_sources; i++)
    {
      g_autofree char *link = gml_source_dup_link (&q->sources[i]);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "title");
      json_builder_add_string_value (builder, q->sources[i].title);
      json_builder_set_member_name (builder, "url");
      json_builder_add_string_value (builder, link);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "experiment");
  gml_picture_script_to_json (q->picture_script, builder);
  json_builder_end_object (builder);
}

static void
print_question_text (GString           *out,
                     guint              number,
                     const GmlQuestion *q,
                     const guint        order[GML_N_OPTIONS])
{
  g_autofree char *text = gml_question_format (q, q->text, order);
  g_autofree char *explanation = gml_question_format (q, q->explanation, order);
  g_autofree char *difficulty = g_strdup_printf (_("Difficulty %d"), q->difficulty);

  g_string_append_printf (out, "%u. %s · %s · %s\n%s\n", number,
                          gml_question_translate (q, q->topic), difficulty, q->id, text);
  for (guint shown = 0; shown < GML_N_OPTIONS; shown++)
    {
      const GmlOption *option = &q->options[order[shown]];
      g_autofree char *option_text = gml_question_format (q, option->text, order);

      g_string_append_printf (out, "  %c) %s%s\n", gml_option_letter (shown), option_text,
                              option->correct ? " ✓" : "");
    }
  /* Translators: printed before a question's explanation by the command line. */
  g_string_append_printf (out, "%s %s\n", _("Explanation:"), explanation);
  if (q->n_sources > 0)
    /* Translators: printed before the list of a question's sources by the command line. */
    g_string_append_printf (out, "%s\n", _("Sources:"));
  for (guint i = 0; i < q->n_sources; i++)
    {
      g_autofree char *link = gml_source_dup_link (&q->sources[i]);

      g_string_append_printf (out, "  - %s <%s>\n", q->sources[i].title, link);
    }
  g_string_append_c (out, '\n');
}

int
gml_questions_main (int    argc,
                    char **argv)
{
  g_autofree char *lang = NULL;
  gboolean json = FALSE;
  gboolean no_shuffle = FALSE;
  gint64 seed = -1;
  GOptionEntry entries[] = {
    { "lang", 0, 0, G_OPTION_ARG_STRING, &lang, N_("Language of the text: tr or en"), "LANG" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    { "no-shuffle", 0, 0, G_OPTION_ARG_NONE, &no_shuffle, N_("Keep the options in their order"),
      NULL },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, N_("Seed for shuffling the options"), "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GRand) rand = NULL;
  g_autofree char *user_dir = gml_user_questions_dir ();
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(GString) out = g_string_new (NULL);

  g_option_context_set_summary (context, _("Print the question bank as the app shows it."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translate_func (context, (GTranslateFunc) gml_i18n_translate_func, NULL,
                                       NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("gpu-memory-lab questions: %s\n", error->message);
      return 2;
    }
  if (lang != NULL)
    {
      if (!gml_i18n_is_known_language (lang))
        {
          g_printerr (_("gpu-memory-lab questions: unknown language “%s” (use tr or en)\n"), lang);
          return 2;
        }
      gml_i18n_set_language (lang);
    }

  if (!gml_question_bank_load_builtin (bank, &error))
    {
      g_printerr ("gpu-memory-lab questions: %s\n", error->message);
      return 1;
    }
  gml_question_bank_load_user_dir (bank, user_dir, errors);
  for (guint i = 0; i < errors->len; i++)
    g_printerr ("gpu-memory-lab questions: %s\n", (char *) g_ptr_array_index (errors, i));

  rand = seed >= 0 ? g_rand_new_with_seed ((guint32) seed) : g_rand_new ();

  json_builder_begin_array (builder);
  for (guint i = 0; i < gml_question_bank_get_n_questions (bank); i++)
    {
      const GmlQuestion *q = gml_question_bank_get (bank, i);
      guint order[GML_N_OPTIONS];

      if (no_shuffle)
        gml_question_identity_order (order);
      else
        gml_question_shuffle_order (order, rand);

      if (json)
        add_question_json (builder, q, order);
      else
        print_question_text (out, i + 1, q, order);
    }
  json_builder_end_array (builder);

  if (json)
    {
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autoptr(JsonNode) root = json_builder_get_root (builder);
      g_autofree char *data = NULL;

      json_generator_set_root (generator, root);
      json_generator_set_pretty (generator, TRUE);
      data = json_generator_to_data (generator, NULL);
      g_print ("%s\n", data);
    }
  else
    g_print ("%s", out->str);

  return errors->len == 0 ? 0 : 1;
}

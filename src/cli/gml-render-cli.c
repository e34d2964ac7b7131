/* gml-render-cli.c — the `render` and `scenarios` verbs: pictures for slides.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-render"

#include "config.h"

#include <json-glib/json-glib.h>

#include "gml-i18n.h"
#include "gml-question-bank.h"
#include "gml-render-cli.h"
#include "gml-render.h"

static gboolean
set_language (const char *verb,
              const char *lang)
{
  if (lang == NULL)
    return TRUE;
  if (!gml_i18n_is_known_language (lang))
    {
      /* Translators: the first %s is the verb (render, scenarios). */
      g_printerr (_("gpu-memory-lab %s: unknown language “%s” (use tr or en)\n"), verb, lang);
      return FALSE;
    }
  gml_i18n_set_language (lang);
  return TRUE;
}

static GmlDevice *
open_device (const char  *backend,
             char       **reason,
             GError     **error)
{
  GmlBackendKind kind = GML_BACKEND_SIM;

  if (backend != NULL && !gml_backend_kind_from_string (backend, &kind))
    {
      g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INVALID,
                   _("Unknown backend “%s” (use sim, cuda or auto)."), backend);
      return NULL;
    }
  return gml_device_open (kind, GML_SCENARIO_SIM_CAPACITY, GML_SCENARIO_SIM_CAPACITY, reason,
                          error);
}

int
gml_scenarios_main (int    argc,
                    char **argv)
{
  g_autofree char *lang = NULL;
  g_autofree char *backend = NULL;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "lang", 0, 0, G_OPTION_ARG_STRING, &lang, N_("Language of the text: tr or en"), "LANG" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON with each scenario’s steps"), NULL },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend, N_("Device: sim, cuda or auto"), "KIND" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlDevice) device = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  const char * const *names = gml_scenario_names ();

  g_option_context_set_summary (context, _("List the teaching scenarios."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translate_func (context, (GTranslateFunc) gml_i18n_translate_func, NULL,
                                       NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("gpu-memory-lab scenarios: %s\n", error->message);
      return 2;
    }
  if (!set_language ("scenarios", lang))
    return 2;

  if (!json)
    {
      for (guint i = 0; names[i] != NULL; i++)
        g_print ("%-14s %s\n", names[i], gml_scenario_title (names[i]));
      return 0;
    }

  device = open_device (backend, NULL, &error);
  if (device == NULL)
    {
      g_printerr ("gpu-memory-lab scenarios: %s\n", error->message);
      return 2;
    }

  builder = json_builder_new ();
  json_builder_begin_array (builder);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(GmlScenario) sc = gml_scenario_new (names[i], device, &error);
      guint64 failed = 0;
      guint failed_step = 0;

      if (sc == NULL)
        {
          g_printerr ("gpu-memory-lab scenarios: %s\n", error->message);
          return 1;
        }
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, names[i]);
      json_builder_set_member_name (builder, "title");
      json_builder_add_string_value (builder, gml_scenario_title (names[i]));
      json_builder_set_member_name (builder, "focus_view");
      json_builder_add_string_value (builder,
                                     gml_view_to_string (gml_scenario_focus_view (names[i])));
      json_builder_set_member_name (builder, "focus_step");
      json_builder_add_int_value (builder, gml_scenario_get_focus_step (sc));
      json_builder_set_member_name (builder, "failed_request");
      if (gml_scenario_get_failed_request (sc, &failed, &failed_step))
        json_builder_add_int_value (builder, (gint64) failed);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "steps");
      json_builder_begin_array (builder);
      for (guint s = 0; s < gml_scenario_get_n_steps (sc); s++)
        {
          const GmlScenarioStep *step = gml_scenario_get_step (sc, s);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "caption");
          json_builder_add_string_value (builder, step->caption);
          json_builder_set_member_name (builder, "allocated_bytes.all.current");
          json_builder_add_int_value (builder, step->stats.allocated_bytes[GML_STAT_ALL].current);
          json_builder_set_member_name (builder, "reserved_bytes.all.current");
          json_builder_add_int_value (builder, step->stats.reserved_bytes[GML_STAT_ALL].current);
          json_builder_set_member_name (builder, "largest_free_block_bytes");
          json_builder_add_int_value (builder, (gint64) step->largest_free);
          json_builder_set_member_name (builder, "oom");
          json_builder_add_boolean_value (builder, step->oom);
          json_builder_set_member_name (builder, "empty_cache");
          json_builder_add_boolean_value (builder, step->empty_cache);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  {
    g_autoptr(JsonNode) root = json_builder_get_root (builder);
    g_autofree char *text = json_to_string (root, TRUE);

    g_print ("%s\n", text);
  }
  return 0;
}

static char *
views_list (GmlScenario *sc)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  for (guint v = 0; v < GML_N_VIEWS; v++)
    if (gml_scenario_has_view (sc, v))
      g_ptr_array_add (names, (char *) gml_view_to_string (v));
  g_ptr_array_add (names, NULL);
  return g_strjoinv (", ", (char **) names->pdata);
}

static void
print_question_json (const GmlQuestion *q,
                     GmlScenario       *sc,
                     GmlPicture        *picture,
                     GmlView            view)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  g_autofree char *description = gml_picture_describe_full (picture, view);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "question");
  json_builder_add_string_value (b, q->id);
  json_builder_set_member_name (b, "experiment");
  gml_picture_script_to_json (q->picture_script, b);
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, gml_scenario_get_title (sc));
  json_builder_set_member_name (b, "views");
  json_builder_begin_array (b);
  for (guint v = 0; v < GML_N_VIEWS; v++)
    if (gml_scenario_has_view (sc, v))
      json_builder_add_string_value (b, gml_view_to_string (v));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "focus_view");
  json_builder_add_string_value (b, gml_view_to_string (gml_scenario_get_focus_view (sc)));
  json_builder_set_member_name (b, "setup_view");
  json_builder_add_string_value (b, gml_view_to_string (gml_scenario_get_setup_view (sc)));
  json_builder_set_member_name (b, "setup_step");
  json_builder_add_int_value (b, gml_scenario_get_setup_step (sc));
  json_builder_set_member_name (b, "focus_step");
  json_builder_add_int_value (b, gml_scenario_get_focus_step (sc));
  json_builder_set_member_name (b, "scale");
  json_builder_add_int_value (b, (gint64) gml_scenario_get_scale (sc));
  json_builder_set_member_name (b, "keys");
  json_builder_begin_object (b);
  for (guint k = 0; k < gml_scenario_get_n_keys (sc); k++)
    {
      const GmlKeyFigure *key = gml_scenario_get_key (sc, k);

      json_builder_set_member_name (b, key->name);
      json_builder_add_int_value (b, (gint64) MIN (key->bytes, (guint64) G_MAXINT64));
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "description");
  json_builder_add_string_value (b, description);
  json_builder_set_member_name (b, "steps");
  json_builder_begin_array (b);
  for (guint s = 0; s < gml_scenario_get_n_steps (sc); s++)
    {
      const GmlScenarioStep *step = gml_scenario_get_step (sc, s);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "caption");
      json_builder_add_string_value (b, step->caption);
      json_builder_set_member_name (b, "run");
      json_builder_add_int_value (b, step->run);
      json_builder_set_member_name (b, "allocated_bytes.all.current");
      json_builder_add_int_value (b, step->stats.allocated_bytes[GML_STAT_ALL].current);
      json_builder_set_member_name (b, "reserved_bytes.all.current");
      json_builder_add_int_value (b, step->stats.reserved_bytes[GML_STAT_ALL].current);
      json_builder_set_member_name (b, "oom");
      json_builder_add_boolean_value (b, step->oom);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  text = json_to_string (root, TRUE);
  g_print ("%s\n", text);
}

/* The options a question's and a scenario's picture share: the theme's name
 * into @theme, and a size the renderer accepts. FALSE, said, otherwise. */
static gboolean
check_look (const char *theme_name,
            GmlTheme   *theme,
            int         width,
            int         height)
{
  if (theme_name != NULL && !gml_theme_from_string (theme_name, theme))
    {
      g_printerr (_("gpu-memory-lab render: unknown theme “%s” (use light, dark, high-contrast or "
                    "high-contrast-dark)\n"),
                  theme_name);
      return FALSE;
    }
  if (width < 64 || width > 8192 || height < 64 || height > 8192)
    {
      g_printerr (_("gpu-memory-lab render: width and height must be between 64 and 8192\n"));
      return FALSE;
    }
  return TRUE;
}

/* The picture goes to --output, whose name says its format; without it the
 * verb must have something else to @print. FALSE, said, otherwise. */
static gboolean
check_output (const char      *output,
              gboolean         print,
              GmlExportFormat *format)
{
  if (output == NULL && !print)
    {
      g_printerr (_("gpu-memory-lab render: say where to write the picture with --output "
                    "FILE.png, FILE.svg or FILE.pdf\n"));
      return FALSE;
    }
  if (output != NULL && !gml_export_format_for_path (output, format))
    {
      g_printerr (_("gpu-memory-lab render: “%s” does not end in .png, .svg or .pdf\n"), output);
      return FALSE;
    }
  return TRUE;
}

/* Draws the picture at the file's size and writes it to @output. FALSE, said,
 * otherwise. */
static gboolean
write_picture (GmlPicture           *picture,
               GmlView               view,
               const GmlRenderStyle *style,
               const char           *output,
               GmlExportFormat       format,
               int                   width,
               int                   height)
{
  g_autoptr(GmlExportDrawing) drawing = NULL;
  g_autoptr(GError) error = NULL;

  drawing = gml_picture_draw_for_export (picture, view, style, width, height);
  if (!gml_export_drawing_write (drawing, output, format, &error))
    {
      g_printerr ("gpu-memory-lab render: %s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

/* `render --question ID`: the question's own picture script, pointing at what the
 * question is about (or, with --before, its setup as shown before answering). */
static int
render_question (const char *id,
                 const char *view_name,
                 const char *output,
                 const char *theme_name,
                 const char *backend,
                 int         width,
                 int         height,
                 int         step,
                 gboolean    by_size,
                 gboolean    describe,
                 gboolean    before,
                 gboolean    json)
{
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *user_dir = gml_user_questions_dir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlDevice) device = NULL;
  g_autoptr(GmlScenario) sc = NULL;
  g_autoptr(GmlPicture) picture = NULL;
  const GmlQuestion *q;
  GmlRenderStyle style;
  GmlTheme theme = GML_THEME_LIGHT;
  GmlExportFormat format = GML_EXPORT_PNG;
  GmlView view;

  if (!gml_question_bank_load_builtin (bank, &error))
    {
      g_printerr ("gpu-memory-lab render: %s\n", error->message);
      return 1;
    }
  gml_question_bank_load_user_dir (bank, user_dir, errors);
  /* A broken bank of the user's is skipped, and said so, as `questions` does. */
  for (guint i = 0; i < errors->len; i++)
    g_printerr ("gpu-memory-lab render: %s\n", (char *) g_ptr_array_index (errors, i));
  q = gml_question_bank_lookup (bank, id);
  if (q == NULL)
    {
      /* Translators: %s is a question id. */
      g_printerr (_("gpu-memory-lab render: no question “%s” (gpu-memory-lab questions --json "
                    "lists them)\n"), id);
      return 2;
    }
  if (!check_look (theme_name, &theme, width, height))
    return 2;
  if (!check_output (output, describe || json, &format))
    return 2;

  device = open_device (backend, NULL, &error);
  if (device == NULL)
    {
      g_printerr ("gpu-memory-lab render: %s\n", error->message);
      return 1;
    }
  sc = gml_scenario_new_picture_script (q->picture_script, device, &error);
  if (sc == NULL)
    {
      g_printerr ("gpu-memory-lab render: %s\n", error->message);
      return 1;
    }

  view = before ? gml_scenario_get_setup_view (sc) : gml_scenario_get_focus_view (sc);
  if (view_name != NULL && !gml_view_from_string (view_name, &view))
    {
      g_printerr (_("gpu-memory-lab render: unknown view “%s” (use memory-map, fragmentation, "
                    "timeline, checkpointing or comparison)\n"), view_name);
      return 2;
    }
  if (!gml_scenario_has_view (sc, view))
    {
      g_autofree char *list = views_list (sc);

      /* Translators: a question id, a view, the list of views it has. */
      g_printerr (_("gpu-memory-lab render: question “%s” has no %s view (it has: %s)\n"), id,
                  gml_view_to_string (view), list);
      return 2;
    }
  if (step >= (gint) gml_scenario_get_n_steps (sc) || step < -1)
    {
      g_printerr (_("gpu-memory-lab render: no step %d in this scenario (steps 0 to %u)\n"), step,
                  gml_scenario_get_n_steps (sc) - 1);
      return 2;
    }

  picture = gml_picture_new (sc);
  gml_picture_set_by_size (picture, by_size);
  gml_picture_set_pointing (picture, !before);
  gml_picture_set_hide_future (picture, before);
  gml_picture_set_step (picture, step >= 0 ? (guint) step
                                           : before ? gml_scenario_get_setup_step (sc)
                                                    : gml_scenario_get_focus_step (sc));
  gml_render_style_init (&style, theme);

  if (json)
    print_question_json (q, sc, picture, view);
  else if (describe)
    {
      g_autofree char *text = gml_picture_describe_full (picture, view);

      g_print ("%s\n", text);
    }
  if (output != NULL && !write_picture (picture, view, &style, output, format, width, height))
    return 1;
  return 0;
}

int
gml_render_main (int    argc,
                 char **argv)
{
  g_autofree char *lang = NULL;
  g_autofree char *view_name = NULL;
  g_autofree char *output = NULL;
  g_autofree char *theme_name = NULL;
  g_autofree char *backend = NULL;
  g_autofree char *question_id = NULL;
  gint step = -1;
  gint width = 960, height = 600;
  gboolean by_size = FALSE, describe = FALSE, pointing = FALSE, before = FALSE, json = FALSE;
  GOptionEntry entries[] = {
    { "question", 'q', 0, G_OPTION_ARG_STRING, &question_id,
      N_("Draw this question’s own picture, at the state the question is about"), "ID" },
    { "before", 0, 0, G_OPTION_ARG_NONE, &before,
      N_("With --question: the picture before the answer (its setup)"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      N_("With --question: print the picture’s steps and key figures as JSON"), NULL },
    { "step", 0, 0, G_OPTION_ARG_INT, &step,
      N_("Step to draw (default: the step the scenario is about)"), "N" },
    { "view", 0, 0, G_OPTION_ARG_STRING, &view_name,
      N_("memory-map, fragmentation, timeline or checkpointing"), "VIEW" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("File to write: .png, .svg or .pdf"),
      "FILE" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, N_("Width in pixels (points for PDF)"), "W" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height, N_("Height in pixels (points for PDF)"), "H" },
    { "lang", 0, 0, G_OPTION_ARG_STRING, &lang, N_("Language of the text: tr or en"), "LANG" },
    { "theme", 0, 0, G_OPTION_ARG_STRING, &theme_name,
      N_("light, dark, high-contrast or high-contrast-dark"), "THEME" },
    { "by-size", 0, 0, G_OPTION_ARG_NONE, &by_size, N_("Pack segments by size, not by address"),
      NULL },
    { "point", 0, 0, G_OPTION_ARG_NONE, &pointing, N_("Mark what the scenario’s question is about"),
      NULL },
    { "describe", 0, 0, G_OPTION_ARG_NONE, &describe,
      N_("Print the picture’s description in words"), NULL },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend, N_("Device: sim (default), cuda or auto"),
      "KIND" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("SCENARIO | --question ID"));
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlDevice) device = NULL;
  g_autoptr(GmlScenario) scenario = NULL;
  g_autoptr(GmlPicture) picture = NULL;
  GmlRenderStyle style;
  GmlTheme theme = GML_THEME_LIGHT;
  GmlView view;
  GmlExportFormat format = GML_EXPORT_PNG;

  g_option_context_set_summary (context, _("Draw a scenario’s picture to a PNG, SVG or PDF file."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translate_func (context, (GTranslateFunc) gml_i18n_translate_func, NULL,
                                       NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("gpu-memory-lab render: %s\n", error->message);
      return 2;
    }
  if (!set_language ("render", lang))
    return 2;

  if (question_id != NULL)
    {
      if (argc != 1)
        {
          g_printerr (_("gpu-memory-lab render: give a scenario or --question, not both\n"));
          return 2;
        }
      return render_question (question_id, view_name, output, theme_name, backend, width, height,
                              step, by_size, describe, before, json);
    }
  if (before || json)
    {
      g_printerr (_("gpu-memory-lab render: --before and --json go with --question\n"));
      return 2;
    }

  if (argc != 2)
    {
      g_autofree char *list = g_strjoinv (", ", (char **) gml_scenario_names ());
      /* Translators: %s is the list of scenario names. */
      g_printerr (_("gpu-memory-lab render: name one scenario: %s\n"), list);
      return 2;
    }
  if (!gml_scenario_name_is_known (argv[1]))
    {
      g_autofree char *list = g_strjoinv (", ", (char **) gml_scenario_names ());
      g_printerr (_("gpu-memory-lab render: unknown scenario “%s” (use one of: %s)\n"), argv[1],
                  list);
      return 2;
    }
  view = gml_scenario_focus_view (argv[1]);
  if (view_name != NULL && !gml_view_from_string (view_name, &view))
    {
      g_printerr (_("gpu-memory-lab render: unknown view “%s” (use memory-map, fragmentation, "
                    "timeline or checkpointing)\n"), view_name);
      return 2;
    }
  if (!check_look (theme_name, &theme, width, height))
    return 2;
  if (!check_output (output, describe, &format))
    return 2;

  device = open_device (backend, NULL, &error);
  if (device == NULL)
    {
      g_printerr ("gpu-memory-lab render: %s\n", error->message);
      return 1;
    }
  scenario = gml_scenario_new (argv[1], device, &error);
  if (scenario == NULL)
    {
      g_printerr ("gpu-memory-lab render: %s\n", error->message);
      return 1;
    }
  if (step >= (gint) gml_scenario_get_n_steps (scenario) || step < -1)
    {
      /* Translators: %d is the step asked for, %u the last step. */
      g_printerr (_("gpu-memory-lab render: no step %d in this scenario (steps 0 to %u)\n"), step,
                  gml_scenario_get_n_steps (scenario) - 1);
      return 2;
    }

  picture = gml_picture_new (scenario);
  gml_picture_set_step (picture, step < 0 ? gml_scenario_get_focus_step (scenario) : (guint) step);
  gml_picture_set_by_size (picture, by_size);
  gml_picture_set_pointing (picture, pointing);
  gml_render_style_init (&style, theme);

  if (describe)
    {
      /* As it always was for a named scenario: the picture's own description. */
      g_autofree char *text = gml_picture_describe (picture, view);

      g_print ("%s\n", text);
    }
  if (output != NULL && !write_picture (picture, view, &style, output, format, width, height))
    return 1;
  return 0;
}

/* gml-probe-cli.c — `gpu-memory-lab probe [--path | --list [--json]]`.
 *
 * A Python program outside the lab's installation (the Flatpak's files are
 * not on the host's Python path) needs gml_probe.py: this verb prints the
 * module, or the directory that holds it, and lists the programs whose probe
 * waits for a lab to attach (what the app's Attach… lists).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-probe-cli"

#include "config.h"

#include <stdio.h>

#include <json-glib/json-glib.h>

#include "gml-i18n.h"
#include "gml-input.h"
#include "gml-probe-cli.h"
#include "gml-probe-socket.h"

static int
list_waiting (gboolean json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) waiting = gml_probe_list_waiting (NULL, &error);
  g_autoptr(JsonBuilder) b = json_builder_new ();

  if (waiting == NULL)
    {
      g_printerr ("gpu-memory-lab probe: %s\n", error->message);
      return 1;
    }
  json_builder_begin_array (b);
  for (guint i = 0; i < waiting->len; i++)
    {
      GmlProbeWaiting *w = g_ptr_array_index (waiting, i);
      g_autofree char *command = w->hello != NULL &&
      w->hello->argv != NULL ? g_strjoinv (" ", w->hello->argv)
                                                                            : NULL;

      if (json)
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "socket");
          json_builder_add_string_value (b, w->path);
          json_builder_set_member_name (b, "pid");
          json_builder_add_int_value (b, w->pid);
          json_builder_set_member_name (b, "stale");
          json_builder_add_boolean_value (b, w->stale);
          json_builder_set_member_name (b, "watched");
          json_builder_add_boolean_value (b, w->hello != NULL && w->hello->watched);
          json_builder_set_member_name (b, "command");
          if (command != NULL)
            json_builder_add_string_value (b, command);
          else
            json_builder_add_null_value (b);
          json_builder_set_member_name (b, "device_name");
          if (w->hello != NULL && w->hello->device_name != NULL)
            json_builder_add_string_value (b, w->hello->device_name);
          else
            json_builder_add_null_value (b);
          json_builder_set_member_name (b, "problem");
          if (w->problem != NULL)
            json_builder_add_string_value (b, w->problem);
          else
            json_builder_add_null_value (b);
          json_builder_end_object (b);
        }
      else if (w->stale)
        /* Translators: a process id; the socket file was removed. */
        g_print (_("%d  no longer running (its socket was removed)\n"), (int) w->pid);
      else if (w->hello == NULL)
        g_print ("%" G_GINT64_FORMAT "  %s\n", w->pid, w->problem != NULL ? w->problem : "");
      else
        g_print ("%" G_GINT64_FORMAT "  %s  [%s]%s\n", w->pid, command != NULL ? command : "",
                 w->hello->device_name != NULL ? w->hello->device_name : "",
                 w->hello->watched ? _(" (being watched)") : "");
    }
  json_builder_end_array (b);
  if (json)
    {
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autoptr(JsonNode) root = json_builder_get_root (b);
      g_autofree char *text = NULL;

      json_generator_set_root (generator, root);
      text = json_generator_to_data (generator, NULL);
      g_print ("%s\n", text);
    }
  else if (waiting->len == 0)
    g_print ("%s\n",
             _("No program is waiting. In the program: import gml_probe; gml_probe.start()"));
  return 0;
}

int
gml_probe_main (int    argc,
                char **argv)
{
  g_autofree char *lang = NULL;
  gboolean path = FALSE, list = FALSE, json = FALSE;
  GOptionEntry entries[] = {
    { "path", 0, 0, G_OPTION_ARG_NONE, &path,
      N_("Print the directory that holds gml_probe.py (for PYTHONPATH)"), NULL },
    { "list", 0, 0, G_OPTION_ARG_NONE, &list, N_("List the programs whose probe waits for the lab"),
      NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("With --list: print JSON"), NULL },
    { "lang", 0, 0, G_OPTION_ARG_STRING, &lang, N_("Language of the text: tr or en"), "LANG" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = gml_probe_module_dir ();
  g_autofree char *module = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;

  g_option_context_set_summary (context,
                                _("Print the probe module gml_probe.py (to save as a file next to "
                                  "your script), the directory that holds it, or the programs "
                                  "whose probe waits for the lab to attach."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translate_func (context, (GTranslateFunc) gml_i18n_translate_func, NULL,
                                       NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("gpu-memory-lab probe: %s\n", error->message);
      return 2;
    }
  if (lang != NULL)
    {
      if (!gml_i18n_is_known_language (lang))
        {
          g_printerr (_("gpu-memory-lab %s: unknown language “%s” (use tr or en)\n"), "probe",
                      lang);
          return 2;
        }
      gml_i18n_set_language (lang);
    }
  if (argc > 1 || (path && list) || (json && !list))
    {
      g_printerr ("gpu-memory-lab probe: %s\n", _("Use --path, --list [--json], or nothing."));
      return 2;
    }
  if (list)
    return list_waiting (json);
  if (path)
    {
      g_print ("%s\n", dir);
      return 0;
    }
  module = g_build_filename (dir, "gml_probe.py", NULL);
  if (!gml_input_read_file (module, 1 << 20, &contents, &length, &error))
    {
      g_printerr ("gpu-memory-lab probe: %s: %s\n", module, error->message);
      return 1;
    }
  fwrite (contents, 1, length, stdout);
  return 0;
}

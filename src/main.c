/* main.c — command-line verbs first, otherwise the application.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib.h>

#include "gml-application.h"
#include "gml-i18n.h"
#include "gml-lab-cli.h"
#include "gml-moodle-cli.h"
#include "gml-probe-cli.h"
#include "gml-questions-cli.h"
#include "gml-render-cli.h"
#include "gml-replay-cli.h"
#include "gml-snapshot-cli.h"
#include "gml-watch-cli.h"

/* `render FILE.pickle` draws a snapshot; `render SCENARIO` a scenario. */
static int
render_main (int    argc,
             char **argv)
{
  if (argc > 1 && gml_render_is_snapshot (argv[1]))
    return gml_render_snapshot_main (argc, argv);
  return gml_render_main (argc, argv);
}

/* The verbs that run without a display, before GTK is initialised. Each gets
 * argv from its own name on and returns the process exit status. */
static const struct
{
  const char *name;
  int       (*main) (int    argc,
                     char **argv);
} verbs[] = {
  { "replay", gml_replay_main },
  { "questions", gml_questions_main },
  { "render", render_main },
  { "scenarios", gml_scenarios_main },
  { "export", gml_moodle_export_main },
  { "import", gml_moodle_import_main },
  { "snapshot", gml_snapshot_main },
  { "experiment", gml_lab_main },
  { "probe", gml_probe_main },
};

int
main (int    argc,
      char **argv)
{
  g_autoptr(GmlApplication) app = NULL;

  gml_bench_mark ("main");
  gml_i18n_init ();

  for (guint i = 0; argc > 1 && i < G_N_ELEMENTS (verbs); i++)
    if (g_str_equal (argv[1], verbs[i].name))
      return verbs[i].main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "watch"))
    {
      g_auto(GmlWatchOptions) options = { 0 };
      int status = 0;

      /* The option parser would name the program "watch"; the window is the lab's. */
      g_set_prgname ("gpu-memory-lab");
      if (!gml_watch_parse (argc - 1, argv + 1, &options, &status))
        return status;
      if (options.mode == GML_WATCH_WINDOW && g_getenv ("DISPLAY") == NULL &&
          g_getenv ("WAYLAND_DISPLAY") == NULL)
        {
          g_printerr ("gpu-memory-lab watch: %s\n",
                      _("There is no display to open the window on: the updates are printed as "
                        "text (--text says so, --json prints JSON)."));
          options.mode = GML_WATCH_TEXT;
        }
      if (options.mode != GML_WATCH_WINDOW)
        return gml_watch_run (&options);
      /* The window's Live view runs the program: an instance of its own, so the
       * program's output and exit status come back to this terminal. */
      app = gml_application_new_for_watch (options.command, options.interval, options.snapshot_dir);
      g_application_run (G_APPLICATION (app), 1, argv);
      return gml_application_get_watch_status (app);
    }

  app = gml_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}

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
#include "gml-questions-cli.h"
#include "gml-render-cli.h"
#include "gml-replay.h"
#include "gml-snapshot-cli.h"
#include "gml-watch-cli.h"

int
main (int    argc,
      char **argv)
{
  g_autoptr(GmlApplication) app = NULL;

  gml_i18n_init ();

  /* The verbs run without a display, before GTK is initialised. */
  if (argc > 1 && g_str_equal (argv[1], "replay"))
    return gml_replay_main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "questions"))
    return gml_questions_main (argc - 1, argv + 1);
  if (argc > 2 && g_str_equal (argv[1], "render") && gml_render_is_snapshot (argv[2]))
    return gml_render_snapshot_main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "render"))
    return gml_render_main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "scenarios"))
    return gml_scenarios_main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "export"))
    return gml_moodle_export_main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "import"))
    return gml_moodle_import_main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "snapshot"))
    return gml_snapshot_main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "experiment"))
    return gml_lab_main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "watch"))
    return gml_watch_main (argc - 1, argv + 1);

  app = gml_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}

/* test-live-page.c — the Live view on its own: a program watched from the page,
 * and the page closed while it runs: finalized at once, the program told to stop
 * (SIGTERM) and gone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "gml-i18n.h"
#include "gml-live-page.h"

static void
test_closed_while_watching (void)
{
  GmlLivePage *page = g_object_ref_sink (g_object_new (GML_TYPE_LIVE_PAGE, NULL));
  const char * const argv[] = { "sleep", "60", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlLiveSession) session = NULL;
  gint64 deadline;

  g_assert_true (gml_live_page_watch_command (page, argv, 0.5, NULL, &error));
  g_assert_no_error (error);
  session = g_object_ref (gml_live_page_get_session (page));
  g_assert_true (gml_live_session_has_program (session));
  g_assert_true (gml_live_session_program_running (session));

  g_assert_finalize_object (page);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (gml_live_session_program_running (session) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (gml_live_session_program_running (session));
}

int
main (int    argc,
      char **argv)
{
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  gml_i18n_init ();
  gml_i18n_set_language ("en");
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/widgets/live-page/closed-while-watching", test_closed_while_watching);
  return g_test_run ();
}

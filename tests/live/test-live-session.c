/* test-live-session.c — the Live view's model, headless: a program the session
 * starts and that ends without its probe ever speaking says so, instead of
 * waiting on for a probe that will not come.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "gml-i18n.h"
#include "gml-live-session.h"
#include "gml-test-common.h"

static void
changed_cb (GmlLiveSession *session,
            GMainLoop      *loop)
{
  if (gml_live_session_get_status (session) == GML_LIVE_ENDED)
    g_main_loop_quit (loop);
}

static gboolean
timeout_cb (gpointer data)
{
  g_assert_not_reached ();
  return G_SOURCE_REMOVE;
}

static void
test_ended_without_probe (void)
{
  g_autofree char *run = gml_test_make_tmp_dir ("gml-live-XXXXXX");
  const char *argv[] = { "true", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlLiveSession) session = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autofree char *waiting = NULL;
  g_autofree char *ended = NULL;
  guint timeout;

  g_setenv ("XDG_RUNTIME_DIR", run, TRUE);
  session = gml_live_session_new_for_command (argv, 0.1, NULL, &error);
  g_assert_no_error (error);
  waiting = gml_live_session_describe_source (session);
  g_assert_cmpstr (waiting, ==, "Waiting for the program’s probe…");

  g_signal_connect (session, "changed", G_CALLBACK (changed_cb), loop);
  timeout = g_timeout_add_seconds (30, timeout_cb, NULL);
  g_main_loop_run (loop);
  g_source_remove (timeout);

  g_assert_cmpint (gml_live_session_get_exit_status (session), ==, 0);
  ended = gml_live_session_describe_source (session);
  g_assert_cmpstr (ended, !=, waiting);
  g_assert_nonnull (strstr (ended, "torch"));
  g_assert_cmpuint (gml_live_session_get_gpu_total (session), ==, 0);
  gml_live_session_close (session);
  gml_test_remove_tree (run);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  gml_i18n_set_language ("en");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/live-session/ended-without-probe", test_ended_without_probe);
  return g_test_run ();
}

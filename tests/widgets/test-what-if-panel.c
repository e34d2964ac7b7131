/* test-what-if-panel.c — GmlWhatIfPanel on its own: a snapshot's run replayed in a
 * worker, each row the very replay gml_what_if_run() gives, a new GPU size replaying
 * again, the verdict sentence for the out-of-memory explainer; and the panel
 * destroyed while its replays run, then finalized (the worker must not keep it).
 *
 *   test-what-if-panel MAKE_SNAPSHOTS.PY
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "gml-i18n.h"
#include "gml-snapshot-document.h"
#include "gml-what-if-panel.h"

static char *fragmentation_path;
static char *long_path;
static char *empty_cache_path;

static void
loaded_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GmlSnapshotDocument **document = user_data;
  g_autoptr(GError) error = NULL;

  *document = gml_snapshot_document_load_finish (result, &error);
  g_assert_no_error (error);
}

static GmlSnapshotDocument *
load (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GmlSnapshotDocument *document = NULL;

  gml_snapshot_document_load_async (file, -1, NULL, NULL, NULL, loaded_cb, &document);
  while (document == NULL)
    g_main_context_iteration (NULL, TRUE);
  return document;
}

static void
wait_idle (GmlWhatIfPanel *panel)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (gml_what_if_panel_get_busy (panel) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (gml_what_if_panel_get_busy (panel));
}

/* The rows are the replays, row for row. */
static void
test_rows (void)
{
  g_autoptr(GmlSnapshotDocument) document = load (fragmentation_path);
  GmlWhatIfPanel *panel = g_object_ref_sink (GML_WHAT_IF_PANEL (gml_what_if_panel_new ()));
  g_autoptr(GmlWhatIf) direct = gml_what_if_new (gml_snapshot_document_get_timeline (document),
                                                 NULL);
  const GmlWhatIfRun *recorded, *expandable;
  GmlWhatIfRun want;
  GmlAllocConf conf;
  g_autofree char *verdict = NULL;
  g_autofree char *none = NULL;

  gml_what_if_panel_set_document (panel, document);
  g_assert_true (gml_what_if_panel_get_busy (panel));
  wait_idle (panel);

  /* 80 MiB reserved + 20 MiB free at the recorded OOM. */
  g_assert_cmpuint (gml_what_if_panel_get_gpu_memory (panel), ==, 100u << 20);
  recorded = gml_what_if_panel_get_run (panel, 0);
  g_assert_nonnull (recorded);
  g_assert_true (recorded->as_recorded);
  g_assert_cmpuint (recorded->ooms, ==, 1);
  g_assert_true (gml_what_if_run (direct, NULL, NULL, 100u << 20, FALSE, &want, NULL, NULL));
  g_assert_cmpuint (recorded->peak_reserved, ==, want.peak_reserved);
  g_assert_cmpuint (recorded->first_oom_index, ==, want.first_oom_index);
  gml_what_if_run_clear (&want);

  expandable = gml_what_if_panel_get_run (panel, 1);
  g_assert_cmpstr (expandable->alloc_conf, ==, "expandable_segments:True");
  gml_alloc_conf_init (&conf);
  conf.expandable_segments = TRUE;
  g_assert_true (gml_what_if_run (direct, &conf, "expandable_segments:True", 100u << 20, FALSE,
                                  &want,
                                  NULL, NULL));
  g_assert_cmpuint (expandable->ooms, ==, 0);
  g_assert_cmpuint (expandable->peak_reserved, ==, want.peak_reserved);
  gml_what_if_run_clear (&want);
  /* Each row keeps its reserved memory per entry, for the timeline. */
  g_assert_nonnull (expandable->reserved);
  g_assert_false (gml_what_if_panel_get_shown (panel, 1));

  verdict = gml_what_if_panel_describe_verdict (panel, "expandable_segments");
  g_assert_nonnull (verdict);
  g_assert_nonnull (strstr (verdict, "not run out of memory (replayed)"));
  none = gml_what_if_panel_describe_verdict (panel, "no_such_setting");
  g_assert_null (none);

  gml_what_if_panel_set_document (panel, NULL);
  g_assert_null (gml_what_if_panel_get_run (panel, 0));
  g_assert_finalize_object (panel);
}

/* Manual (the Live view): a document waits for Replay, which replays it. */
static void
test_manual (void)
{
  g_autoptr(GmlSnapshotDocument) document = load (fragmentation_path);
  GmlWhatIfPanel *panel = g_object_ref_sink (GML_WHAT_IF_PANEL (gml_what_if_panel_new ()));

  gml_what_if_panel_set_manual (panel, TRUE);
  gml_what_if_panel_set_document (panel, document);
  g_assert_false (gml_what_if_panel_get_busy (panel));
  g_assert_null (gml_what_if_panel_get_run (panel, 0));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "what-if.replay", NULL));
  g_assert_true (gml_what_if_panel_get_busy (panel));
  wait_idle (panel);
  g_assert_nonnull (gml_what_if_panel_get_run (panel, 0));
  g_assert_cmpuint (gml_what_if_panel_get_run (panel, 0)->ooms, ==, 1);
  g_assert_finalize_object (panel);
}

/* Where the program called empty_cache(), as the replay as recorded finds it: for
 * the timeline's marks. None before the replays are done; none where there is none. */
static void
test_empty_caches (void)
{
  g_autoptr(GmlSnapshotDocument) document = load (empty_cache_path);
  g_autoptr(GmlSnapshotDocument) without = load (fragmentation_path);
  GmlWhatIfPanel *panel = g_object_ref_sink (GML_WHAT_IF_PANEL (gml_what_if_panel_new ()));
  const gsize *at;
  guint n = 99;

  gml_what_if_panel_set_document (panel, document);
  at = gml_what_if_panel_get_empty_caches (panel, &n);
  g_assert_null (at);
  g_assert_cmpuint (n, ==, 0);
  wait_idle (panel);
  at = gml_what_if_panel_get_empty_caches (panel, &n);
  g_assert_cmpuint (n, ==, 1);
  /* The segment_free (entry 6) or the request it came before (7). */
  g_assert_cmpuint (at[0], >=, 6);
  g_assert_cmpuint (at[0], <=, 7);

  gml_what_if_panel_set_document (panel, without);
  wait_idle (panel);
  at = gml_what_if_panel_get_empty_caches (panel, &n);
  g_assert_null (at);
  g_assert_cmpuint (n, ==, 0);
  g_assert_finalize_object (panel);
}

/* Destroyed in the middle of its replays: nothing reaches it after, and it goes. */
static void
test_destroy_while_running (void)
{
  g_autoptr(GmlSnapshotDocument) document = load (long_path);

  for (guint i = 0; i < 3; i++)
    {
      GmlWhatIfPanel *panel = g_object_ref_sink (GML_WHAT_IF_PANEL (gml_what_if_panel_new ()));

      gml_what_if_panel_set_document (panel, document);
      g_assert_true (gml_what_if_panel_get_busy (panel));
      /* A few iterations in, never to the end. */
      for (guint k = 0; k < i; k++)
        g_main_context_iteration (NULL, FALSE);
      g_assert_finalize_object (panel);
    }
  /* The workers finish on their own; their results find no panel. */
  for (guint k = 0; k < 200; k++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (5000);
    }
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *dir = NULL;
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;
  int result;

  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  gml_i18n_init ();
  gml_i18n_set_language ("en");
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_assert_cmpint (argc, ==, 2);
  dir = g_dir_make_tmp ("gml-what-if-XXXXXX", &error);
  g_assert_no_error (error);
  /* make_snapshots.py's cases, and the what-if test's fragmentation trace. */
  script =
      g_strdup_printf ("import sys; sys.path.insert(0, %s); sys.path.insert(0, %s + '/../common');"
                       "import make_snapshots as mk, test_whatif as t, os;"
                       "mk.cases(%s); p, _ = t.fragmentation_case(%s); t.empty_cache_case(%s)",
                       "sys.argv[1]", "sys.argv[1]", "sys.argv[2]", "sys.argv[2]", "sys.argv[2]");
  {
    g_autofree char *folder = g_path_get_dirname (argv[1]);
    const char *cmd[] = { python, "-c", script, folder, dir, NULL };

    g_spawn_sync (NULL, (char **) cmd, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status,
                  &error);
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }
  fragmentation_path = g_build_filename (dir, "fragmentation.pickle", NULL);
  long_path = g_build_filename (dir, "long.pickle", NULL);
  empty_cache_path = g_build_filename (dir, "empty-cache.pickle", NULL);

  g_test_add_func ("/widgets/what-if-panel/rows", test_rows);
  g_test_add_func ("/widgets/what-if-panel/manual", test_manual);
  g_test_add_func ("/widgets/what-if-panel/empty-caches", test_empty_caches);
  g_test_add_func ("/widgets/what-if-panel/destroy-while-running", test_destroy_while_running);
  result = g_test_run ();
  g_free (fragmentation_path);
  g_free (long_path);
  g_free (empty_cache_path);
  return result;
}

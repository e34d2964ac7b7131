/* test-snapshot-page.c — the Snapshot view on its own: a file opened is read in a
 * worker and shown; a page closed while a file is being read is finalized at
 * once, the read cancelled, its result dropped when it comes; and the trace view
 * it shares with the Live view, scrubbed through its actions, a file's and a
 * live program's.
 *
 *   test-snapshot-page MAKE_SNAPSHOTS.PY
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "gml-i18n.h"
#include "gml-snapshot-page.h"
#include "gml-trace-view.h"

static char *long_path;

static GmlSnapshotPage *
new_page (void)
{
  return g_object_ref_sink (g_object_new (GML_TYPE_SNAPSHOT_PAGE, NULL));
}

static void
wait_for_document (GmlSnapshotPage *page)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (gml_snapshot_page_get_document (page) == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (gml_snapshot_page_get_document (page));
}

static void
test_open (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (long_path);
  GmlSnapshotPage *page = new_page ();

  gml_snapshot_page_open (page, file);
  g_assert_null (gml_snapshot_page_get_document (page));
  wait_for_document (page);
  g_assert_cmpuint (gml_snapshot_document_get_n_entries (gml_snapshot_page_get_document (page)), >,
                    0);
  g_assert_finalize_object (page);
}

/* Closed while reading: the read does not keep the page. A second page reading the
 * same file, started after, tells when the first read's callback has come too. */
static void
test_closed_while_reading (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (long_path);
  GmlSnapshotPage *page = new_page ();
  GmlSnapshotPage *after;

  gml_snapshot_page_open (page, file);
  g_assert_finalize_object (page);

  after = new_page ();
  gml_snapshot_page_open (after, file);
  wait_for_document (after);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (after);
}

static gsize
at_after (GmlTraceView *view,
          const char   *action)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), action, NULL));
  return gml_snapshot_document_get_at (gml_trace_view_get_document (view));
}

/* One trace view, two uses: End is the end of a file's trace, and on a live one
 * it also follows the program, which any other move stops. */
static void
test_trace_view (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (long_path);
  GmlSnapshotPage *page = new_page ();
  GmlSnapshotDocument *document;
  GmlTraceView *file_view, *live_view;
  gsize n, step;

  gml_snapshot_page_open (page, file);
  wait_for_document (page);
  document = g_object_ref (gml_snapshot_page_get_document (page));
  g_assert_finalize_object (page);
  n = gml_snapshot_document_get_n_entries (document);
  step = gml_snapshot_document_get_page (document);
  g_assert_cmpuint (n, >, step);

  file_view = g_object_ref_sink (g_object_new (GML_TYPE_TRACE_VIEW, NULL));
  g_assert_false (gml_trace_view_get_live (file_view));
  gml_trace_view_set_document (file_view, document);
  g_assert_true (gml_trace_view_get_document (file_view) == document);
  g_assert_cmpuint (at_after (file_view, "trace.first"), ==, 0);
  /* At the start there is nothing before: going back stays there. */
  g_assert_cmpuint (at_after (file_view, "trace.back"), ==, 0);
  g_assert_cmpuint (at_after (file_view, "trace.forward"), ==, 1);
  g_assert_cmpuint (at_after (file_view, "trace.page-forward"), ==, 1 + step);
  g_assert_cmpuint (at_after (file_view, "trace.page-back"), ==, 1);
  g_assert_cmpuint (at_after (file_view, "trace.back"), ==, 0);
  g_assert_cmpuint (at_after (file_view, "trace.last"), ==, n);
  g_assert_false (gml_trace_view_get_follow (file_view));
  gml_trace_view_set_follow (file_view, TRUE);
  g_assert_false (gml_trace_view_get_follow (file_view));
  g_assert_cmpuint (at_after (file_view, "trace.forward"), ==, n);
  g_assert_cmpuint (at_after (file_view, "trace.last"), ==, n);
  g_assert_false (gml_trace_view_get_follow (file_view));
  /* Without a document the keys have nothing to move. */
  gml_trace_view_set_document (file_view, NULL);
  g_assert_null (gml_trace_view_get_document (file_view));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (file_view), "trace.first", NULL));
  g_assert_cmpuint (gml_snapshot_document_get_at (document), ==, n);
  g_assert_finalize_object (file_view);

  live_view = g_object_ref_sink (g_object_new (GML_TYPE_TRACE_VIEW, "live", TRUE, NULL));
  gml_trace_view_set_document (live_view, document);
  gml_trace_view_set_follow (live_view, TRUE);
  g_assert_cmpuint (at_after (live_view, "trace.back"), ==, n - 1);
  g_assert_false (gml_trace_view_get_follow (live_view));
  g_assert_cmpuint (at_after (live_view, "trace.last"), ==, n);
  g_assert_true (gml_trace_view_get_follow (live_view));
  /* At the end, End still follows (the trace grows). */
  g_assert_cmpuint (at_after (live_view, "trace.last"), ==, n);
  g_assert_cmpuint (at_after (live_view, "trace.first"), ==, 0);
  g_assert_false (gml_trace_view_get_follow (live_view));
  g_assert_finalize_object (live_view);

  /* What else read the document (the page's own workers) lets it go in time. */
  {
    gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
    gpointer weak = document;

    g_object_add_weak_pointer (G_OBJECT (document), &weak);
    g_object_unref (document);
    while (weak != NULL && g_get_monotonic_time () < deadline)
      g_main_context_iteration (NULL, weak != NULL && g_main_context_pending (NULL));
    g_assert_null (weak);
  }
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *dir = NULL;
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autoptr(GError) error = NULL;
  int status = 0;
  int result;

  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  gml_i18n_init ();
  gml_i18n_set_language ("en");
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_assert_cmpint (argc, ==, 2);
  dir = g_dir_make_tmp ("gml-snapshot-page-XXXXXX", &error);
  g_assert_no_error (error);
  {
    const char *cmd[] = { python, argv[1], "cases", dir, NULL };

    g_spawn_sync (NULL, (char **) cmd, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status,
                  &error);
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }
  long_path = g_build_filename (dir, "long.pickle", NULL);

  g_test_add_func ("/widgets/snapshot-page/open", test_open);
  g_test_add_func ("/widgets/snapshot-page/closed-while-reading", test_closed_while_reading);
  g_test_add_func ("/widgets/snapshot-page/trace-view", test_trace_view);
  result = g_test_run ();
  g_free (long_path);
  return result;
}

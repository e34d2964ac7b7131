/* test-snapshot-page.c — the Snapshot view on its own: a file opened is read in a
 * worker and shown; and a page closed while a file is being read is finalized at
 * once, the read cancelled, its result dropped when it comes.
 *
 *   test-snapshot-page MAKE_SNAPSHOTS.PY
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "gml-i18n.h"
#include "gml-snapshot-page.h"

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
  result = g_test_run ();
  g_free (long_path);
  return result;
}

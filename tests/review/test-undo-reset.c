/* test-undo-reset.c — undoing the last answer and resetting the answer log.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>

#include "gml-i18n.h"
#include "gml-leitner.h"
#include "gml-progress.h"
#include "gml-test-common.h"

typedef struct
{
  char *dir;
  char *path;
} Fixture;

static void
fixture_set_up (Fixture      *f,
                gconstpointer data)
{
  f->dir = gml_test_make_tmp_dir ("gml-undo-XXXXXX");
  f->path = g_build_filename (f->dir, "progress.json", NULL);
}

static void
fixture_tear_down (Fixture      *f,
                   gconstpointer data)
{
  gml_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->path);
}

static guint
count_files (const char *path,
             const char *prefix)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;
  guint n = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    n += g_str_has_prefix (name, prefix);
  return n;
}

static void
test_remove_last (Fixture      *f,
                  gconstpointer data)
{
  g_autoptr(GmlProgress) progress = gml_progress_new (f->path);
  g_autoptr(GmlProgress) reread = gml_progress_new (f->path);
  g_autoptr(GError) error = NULL;
  g_autofree char *question = NULL;
  g_autofree char *second = NULL;
  g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();

  g_assert_true (gml_progress_record (progress, "q1", "a", TRUE, 2, 1741600000, NULL));
  g_assert_true (gml_progress_record (progress, "q1", "a", TRUE, 2, 1741700000, NULL));
  g_assert_true (gml_progress_record (progress, "q1", "c", FALSE, 3, 1741800000, NULL));

  {
    g_autoptr(GmlLeitner) leitner = gml_leitner_new_from_progress (progress, utc);
    g_assert_cmpuint (gml_leitner_get_box (leitner, "q1"), ==, 1);
  }

  g_assert_true (gml_progress_remove_last (progress, &question, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (question, ==, "q1");
  g_assert_cmpuint (gml_progress_get_n_answers (progress), ==, 2);
  g_assert_cmpstr (gml_progress_last_for (progress, "q1")->chosen, ==, "a");

  /* The box goes back to where it was before the wrong answer. */
  {
    g_autoptr(GmlLeitner) leitner = gml_leitner_new_from_progress (progress, utc);
    g_assert_cmpuint (gml_leitner_get_box (leitner, "q1"), ==, 3);
  }

  /* It was saved: a fresh reader sees two answers, and no temporary file is left. */
  g_assert_true (gml_progress_load (reread, NULL, &error));
  g_assert_cmpuint (gml_progress_get_n_answers (reread), ==, 2);
  g_assert_cmpuint (count_files (f->dir, ""), ==, 1);

  g_assert_true (gml_progress_remove_last (progress, &second, NULL));
  g_assert_true (gml_progress_remove_last (progress, NULL, NULL));
  g_assert_null (gml_progress_last_for (progress, "q1"));

  /* Nothing left to undo. */
  g_assert_false (gml_progress_remove_last (progress, NULL, &error));
  g_assert_nonnull (error);
  g_assert_true (gml_progress_load (reread, NULL, NULL));
  g_assert_cmpuint (gml_progress_get_n_answers (reread), ==, 0);
}

static void
test_remove_last_save_fails (Fixture      *f,
                             gconstpointer data)
{
  g_autofree char *blocker = g_build_filename (f->dir, "file", NULL);
  g_autofree char *path = g_build_filename (blocker, "progress.json", NULL);
  g_autoptr(GmlProgress) progress = gml_progress_new (path);
  g_autoptr(GError) error = NULL;
  g_autofree char *question = NULL;

  g_assert_true (g_file_set_contents (blocker, "x", -1, NULL));
  gml_progress_record (progress, "q1", "a", TRUE, 1, 1741600000, NULL);
  gml_progress_record (progress, "q2", "b", FALSE, 1, 1741600100, NULL);

  g_assert_false (gml_progress_remove_last (progress, &question, &error));
  g_assert_error (error, GML_PROGRESS_ERROR, GML_PROGRESS_ERROR_IO);
  g_assert_null (question);
  /* Not removed in memory either. */
  g_assert_cmpuint (gml_progress_get_n_answers (progress), ==, 2);
  g_assert_cmpstr (gml_progress_last_for (progress, "q2")->chosen, ==, "b");
}

static void
test_reset (Fixture      *f,
            gconstpointer data)
{
  g_autoptr(GmlProgress) progress = gml_progress_new (f->path);
  g_autoptr(GmlProgress) backup_reader = NULL;
  g_autoptr(GmlProgress) reread = gml_progress_new (f->path);
  g_autoptr(GError) error = NULL;
  g_autofree char *backup = NULL;
  g_autofree char *second_backup = NULL;
  g_autofree char *empty_backup = NULL;

  gml_progress_record (progress, "q1", "a", TRUE, 1, 1741600000, NULL);
  gml_progress_record (progress, "q2", "b", FALSE, 1, 1741600100, NULL);

  g_assert_true (gml_progress_reset (progress, &backup, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gml_progress_get_n_answers (progress), ==, 0);
  g_assert_null (gml_progress_last_for (progress, "q1"));

  /* The old log is kept next to the new one, whole. */
  g_assert_nonnull (backup);
  g_assert_true (g_str_has_prefix (backup, f->path));
  g_assert_nonnull (strstr (backup, ".reset-"));
  backup_reader = gml_progress_new (backup);
  g_assert_true (gml_progress_load (backup_reader, NULL, &error));
  g_assert_cmpuint (gml_progress_get_n_answers (backup_reader), ==, 2);
  g_assert_cmpstr (gml_progress_get_answer (backup_reader, 1)->question, ==, "q2");

  g_assert_true (gml_progress_load (reread, NULL, NULL));
  g_assert_cmpuint (gml_progress_get_n_answers (reread), ==, 0);

  /* A second reset in the same second does not overwrite the first copy. */
  gml_progress_record (progress, "q3", "a", TRUE, 1, 1741600200, NULL);
  g_assert_true (gml_progress_reset (progress, &second_backup, NULL));
  g_assert_cmpstr (second_backup, !=, backup);
  g_assert_cmpuint (count_files (f->dir, "progress.json.reset-"), ==, 2);

  /* Resetting an empty log keeps no copy. */
  g_assert_true (gml_progress_reset (progress, &empty_backup, NULL));
  g_assert_null (empty_backup);
  g_assert_cmpuint (count_files (f->dir, "progress.json.reset-"), ==, 2);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/review/progress/remove-last", Fixture, NULL, fixture_set_up, test_remove_last,
              fixture_tear_down);
  g_test_add ("/review/progress/remove-last-save-fails", Fixture, NULL, fixture_set_up,
              test_remove_last_save_fails, fixture_tear_down);
  g_test_add ("/review/progress/reset", Fixture, NULL, fixture_set_up, test_reset,
              fixture_tear_down);

  return g_test_run ();
}

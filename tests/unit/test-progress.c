/* test-progress.c — the answer log: round trip, atomic save, damaged files.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "gml-i18n.h"
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
  f->dir = gml_test_make_tmp_dir ("gml-progress-XXXXXX");
  f->path = g_build_filename (f->dir, "sub", "progress.json", NULL);
}

static void
fixture_tear_down (Fixture      *f,
                   gconstpointer data)
{
  gml_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->path);
}

static void
test_missing_is_empty (Fixture      *f,
                       gconstpointer data)
{
  g_autoptr(GmlProgress) progress = gml_progress_new (f->path);
  g_autofree char *set_aside = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (gml_progress_load (progress, &set_aside, &error));
  g_assert_no_error (error);
  g_assert_null (set_aside);
  g_assert_cmpuint (gml_progress_get_n_answers (progress), ==, 0);
  g_assert_null (gml_progress_last_for (progress, "q1"));
}

static void
test_round_trip (Fixture      *f,
                 gconstpointer data)
{
  g_autoptr(GmlProgress) progress = gml_progress_new (f->path);
  g_autoptr(GmlProgress) again = gml_progress_new (f->path);
  g_autoptr(GError) error = NULL;
  const GmlAnswer *answer;

  g_assert_true (gml_progress_record (progress, "q1", "b", TRUE, 4.5, 1764400000, &error));
  g_assert_no_error (error);
  g_assert_true (gml_progress_record (progress, "q2", "a", FALSE, 12.25, 1764400060, &error));
  g_assert_true (gml_progress_record (progress, "q1", "c", FALSE, 3.0, 1764400120, &error));
  g_assert_true (g_file_test (f->path, G_FILE_TEST_IS_REGULAR));

  g_assert_true (gml_progress_load (again, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gml_progress_get_n_answers (again), ==, 3);

  answer = gml_progress_get_answer (again, 1);
  g_assert_cmpstr (answer->question, ==, "q2");
  g_assert_cmpstr (answer->chosen, ==, "a");
  g_assert_false (answer->correct);
  g_assert_cmpfloat_with_epsilon (answer->seconds, 12.25, 1e-9);
  g_assert_cmpint (answer->time, ==, 1764400060);

  /* The last answer to q1 is the wrong one given later. */
  answer = gml_progress_last_for (again, "q1");
  g_assert_nonnull (answer);
  g_assert_cmpstr (answer->chosen, ==, "c");
  g_assert_false (answer->correct);
  g_assert_cmpint (answer->time, ==, 1764400120);
}

static void
test_corrupt_set_aside (Fixture      *f,
                        gconstpointer data)
{
  const char *damaged[] = {
    "{\"answers\": [ {\"question\": ",          /* truncated */
    "\x00\x01\x02 binary",                        /* not text */
    "[1, 2, 3]",                                  /* wrong shape */
    "{\"answers\": [{\"question\": \"q1\"}]}",    /* missing fields */
    "{\"answers\": [{\"question\": \"q1\", \"chosen\": \"a\", \"correct\": true, "
    "\"time\": \"yesterday\", \"seconds\": 1}]}", /* bad date */
    "{\"answers\": [{\"question\": \"q1\", \"chosen\": \"a\", \"correct\": true, "
    "\"time\": \"2026-11-29T10:00:00Z\", \"seconds\": -5}]}",   /* out of range */
  };

  for (guint i = 0; i < G_N_ELEMENTS (damaged); i++)
    {
      g_autoptr(GmlProgress) progress = gml_progress_new (f->path);
      g_autofree char *dir = g_path_get_dirname (f->path);
      g_autofree char *set_aside = NULL;
      g_autofree char *kept = NULL;
      g_autoptr(GError) error = NULL;
      gsize length = i == 1 ? 10 : strlen (damaged[i]);

      g_mkdir_with_parents (dir, 0700);
      g_assert_true (g_file_set_contents (f->path, damaged[i], length, NULL));

      g_assert_true (gml_progress_load (progress, &set_aside, &error));
      g_assert_no_error (error);
      g_assert_nonnull (set_aside);
      g_assert_true (g_str_has_prefix (set_aside, f->path));
      g_assert_nonnull (strstr (set_aside, ".corrupt-"));
      g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));
      g_assert_cmpuint (gml_progress_get_n_answers (progress), ==, 0);

      /* The damaged file is kept byte for byte. */
      g_assert_true (g_file_get_contents (set_aside, &kept, NULL, NULL));
      g_assert_cmpmem (kept, length, damaged[i], length);
      g_remove (set_aside);

      /* The fresh log saves normally. */
      g_assert_true (gml_progress_record (progress, "q1", "a", TRUE, 1, 1764400000, &error));
      g_assert_no_error (error);
      g_remove (f->path);
    }
}

/* Saving replaces the file in one rename: no temporary file is left behind and the
 * old content is never seen half-written. */
static void
test_atomic_save (Fixture      *f,
                  gconstpointer data)
{
  g_autoptr(GmlProgress) progress = gml_progress_new (f->path);
  g_autofree char *dir = g_path_get_dirname (f->path);
  g_autoptr(GDir) listing = NULL;
  const char *name;
  guint n_files = 0;

  for (guint i = 0; i < 50; i++)
    {
      g_autoptr(GmlProgress) reader = gml_progress_new (f->path);
      g_autofree char *id = g_strdup_printf ("q%u", i);

      g_assert_true (gml_progress_record (progress, id, "a", i % 2 == 0, i, 1764400000 + i, NULL));
      g_assert_true (gml_progress_load (reader, NULL, NULL));
      g_assert_cmpuint (gml_progress_get_n_answers (reader), ==, i + 1);
    }

  listing = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (listing)) != NULL)
    n_files++;
  g_assert_cmpuint (n_files, ==, 1);
}

/* Temporary files of saves that were killed before their rename are removed on
 * load; the log and the files set aside are not touched. */
static void
test_stale_temporaries_removed (Fixture      *f,
                                gconstpointer data)
{
  g_autoptr(GmlProgress) progress = gml_progress_new (f->path);
  g_autofree char *dir = g_path_get_dirname (f->path);
  g_autofree char *stale = g_strconcat (f->path, ".Ab3xY9", NULL);
  g_autofree char *aside = g_strconcat (f->path, ".corrupt-20261129T100000Z", NULL);
  g_autofree char *other = g_build_filename (dir, "notes.txt", NULL);

  g_assert_true (gml_progress_record (progress, "q1", "a", TRUE, 1, 1764400000, NULL));
  g_assert_true (g_file_set_contents (stale, "{\"answers\": [", -1, NULL));
  g_assert_true (g_file_set_contents (aside, "damaged", -1, NULL));
  g_assert_true (g_file_set_contents (other, "mine", -1, NULL));

  g_assert_true (gml_progress_load (progress, NULL, NULL));
  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (aside, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (other, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (f->path, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (gml_progress_get_n_answers (progress), ==, 1);
}

static void
test_save_failure_reported (Fixture      *f,
                            gconstpointer data)
{
  g_autofree char *blocker = g_build_filename (f->dir, "file", NULL);
  g_autofree char *path = g_build_filename (blocker, "progress.json", NULL);
  g_autoptr(GmlProgress) progress = gml_progress_new (path);
  g_autoptr(GError) error = NULL;

  /* A regular file where the directory should be. */
  g_assert_true (g_file_set_contents (blocker, "x", -1, NULL));
  g_assert_false (gml_progress_record (progress, "q1", "a", TRUE, 1, 1764400000, &error));
  g_assert_error (error, GML_PROGRESS_ERROR, GML_PROGRESS_ERROR_IO);
  g_assert_nonnull (strstr (error->message, path));
  /* The answer is still held, for the next save. */
  g_assert_cmpuint (gml_progress_get_n_answers (progress), ==, 1);
}

/* The experiment lab's guesses ("Predict, then run") are kept in the same log,
 * saved the same way, and stay apart from the answers. */
static void
test_guesses (Fixture      *f,
              gconstpointer data)
{
  g_autoptr(GmlProgress) progress = gml_progress_new (f->path);
  g_autoptr(GmlProgress) again = gml_progress_new (f->path);
  g_autoptr(GError) error = NULL;
  g_autofree char *backup = NULL;
  const GmlGuess *guess;
  static const char *bad[] = {
    "{\"answers\": [], \"guesses\": 5}",
    "{\"answers\": [], \"guesses\": [7]}",
    "{\"answers\": [], \"guesses\": [{\"config\": \"--batch 8\"}]}",
    "{\"answers\": [], \"guesses\": [{\"config\": \"x\", \"time\": \"yesterday\", \"guess_fits\": "
    "true, "
      "\"guess_peak_bytes\": 1, \"fits\": true, \"peak_bytes\": 2}]}",
    "{\"answers\": [], \"guesses\": [{\"config\": \"x\", \"time\": \"2025-11-29T07:06:40Z\", "
    "\"guess_fits\": true, "
      "\"guess_peak_bytes\": -1, \"fits\": true, \"peak_bytes\": 2}]}",
  };

  g_assert_true (gml_progress_record (progress, "q1", "a", TRUE, 3, 1764400000, &error));
  g_assert_true (gml_progress_record_guess (progress, "--model gpt2 --batch 8", TRUE,
                                            G_GUINT64_CONSTANT (12) << 30, FALSE,
                                            G_GUINT64_CONSTANT (25) << 30, 1764400060, &error));
  g_assert_no_error (error);
  g_assert_true (gml_progress_load (again, NULL, &error));
  g_assert_cmpuint (gml_progress_get_n_answers (again), ==, 1);
  g_assert_cmpuint (gml_progress_get_n_guesses (again), ==, 1);
  guess = gml_progress_get_guess (again, 0);
  g_assert_cmpstr (guess->config, ==, "--model gpt2 --batch 8");
  g_assert_true (guess->guess_fits);
  g_assert_false (guess->fits);
  g_assert_cmpuint (guess->guess_peak, ==, G_GUINT64_CONSTANT (12) << 30);
  g_assert_cmpuint (guess->peak, ==, G_GUINT64_CONSTANT (25) << 30);
  g_assert_cmpint (guess->time, ==, 1764400060);

  /* Undo takes back the last answer, never a guess. */
  g_assert_true (gml_progress_remove_last (again, NULL, &error));
  g_assert_cmpuint (gml_progress_get_n_guesses (again), ==, 1);
  /* Reset empties both, and keeps them in the backup. */
  g_assert_true (gml_progress_reset (again, &backup, &error));
  g_assert_nonnull (backup);
  g_assert_cmpuint (gml_progress_get_n_guesses (again), ==, 0);

  /* A damaged list of guesses is a damaged log. */
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) parse_error = NULL;

      g_assert_false (gml_progress_parse (again, bad[i], strlen (bad[i]), &parse_error));
      g_assert_error (parse_error, GML_PROGRESS_ERROR, GML_PROGRESS_ERROR_CORRUPT);
    }
}

/* Background saves (as the application makes them). */

static guint
n_on_disk (const char *path)
{
  g_autoptr(GmlProgress) reader = gml_progress_new (path);
  g_autoptr(GError) error = NULL;

  g_assert_true (gml_progress_load (reader, NULL, &error));
  g_assert_no_error (error);
  return gml_progress_get_n_answers (reader);
}

static gboolean
timeout_cb (gpointer user_data)
{
  g_error ("a background save never ended");
  return G_SOURCE_REMOVE;
}

/* Runs the main loop until @done (or no save is pending, when @done is NULL). */
static void
wait_for_saves (GmlProgress *progress,
                guint       *done)
{
  guint timeout = g_timeout_add_seconds (30, timeout_cb, NULL);

  while (done != NULL ? *done == 0 : gml_progress_has_pending_save (progress))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
}

/* A burst of answers is written a few times, not once per answer, and the file
 * ends with all of them, in order. */
static void
test_background_coalesced (Fixture      *f,
                           gconstpointer data)
{
  g_autoptr(GmlProgress) progress = gml_progress_new (f->path);
  g_autoptr(GmlProgress) reader = gml_progress_new (f->path);
  g_autoptr(GError) error = NULL;
  const guint n = 200;

  gml_progress_set_background_saves (progress, TRUE, NULL, NULL);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *id = g_strdup_printf ("q%u", i);

      g_assert_true (gml_progress_record (progress, id, "a", TRUE, 1, 1764400000 + i, &error));
      g_assert_no_error (error);
      /* Now and then the main loop turns, as between a person's clicks. */
      if (i % 50 == 0)
        g_main_context_iteration (NULL, FALSE);
    }
  g_assert_cmpuint (gml_progress_get_n_answers (progress), ==, n);
  wait_for_saves (progress, NULL);

  g_assert_cmpuint (gml_progress_get_n_writes (progress), >=, 1);
  g_assert_cmpuint (gml_progress_get_n_writes (progress), <=, 10);
  g_assert_true (gml_progress_load (reader, NULL, &error));
  g_assert_cmpuint (gml_progress_get_n_answers (reader), ==, n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *id = g_strdup_printf ("q%u", i);

      g_assert_cmpstr (gml_progress_get_answer (reader, i)->question, ==, id);
    }
}

/* A flush (the application's shutdown) leaves the file complete without the main
 * loop running; so does freeing the log with writes pending. */
static void
test_background_flush (Fixture      *f,
                       gconstpointer data)
{
  GmlProgress *progress = gml_progress_new (f->path);
  g_autoptr(GError) error = NULL;

  gml_progress_set_background_saves (progress, TRUE, NULL, NULL);
  for (guint i = 0; i < 30; i++)
    g_assert_true (gml_progress_record (progress, "q", "a", TRUE, 1, 1764400000 + i, NULL));
  g_assert_true (gml_progress_has_pending_save (progress));
  g_assert_true (gml_progress_flush (progress, &error));
  g_assert_no_error (error);
  g_assert_false (gml_progress_has_pending_save (progress));
  g_assert_cmpuint (n_on_disk (f->path), ==, 30);

  for (guint i = 30; i < 45; i++)
    g_assert_true (gml_progress_record (progress, "q", "a", TRUE, 1, 1764400000 + i, NULL));
  gml_progress_free (progress);
  g_assert_cmpuint (n_on_disk (f->path), ==, 45);
  /* The callbacks of the writes the flushes took over find nobody to tell. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* A reset while a write is under way: the write ends first, so it never puts the
 * old answers back over the empty log. */
static void
test_background_reset (Fixture      *f,
                       gconstpointer data)
{
  g_autoptr(GmlProgress) progress = gml_progress_new (f->path);
  g_autoptr(GError) error = NULL;
  g_autofree char *backup = NULL;

  gml_progress_set_background_saves (progress, TRUE, NULL, NULL);
  for (guint i = 0; i < 20; i++)
    g_assert_true (gml_progress_record (progress, "q", "a", TRUE, 1, 1764400000 + i, NULL));
  g_assert_true (gml_progress_reset (progress, &backup, &error));
  g_assert_no_error (error);
  wait_for_saves (progress, NULL);
  g_assert_cmpuint (n_on_disk (f->path), ==, 0);
  g_assert_cmpuint (n_on_disk (backup), ==, 20);
}

typedef struct
{
  guint  n_failed;
  char  *message;
} Failures;

static void
save_failed_cb (GmlProgress  *progress,
                const GError *error,
                gpointer      user_data)
{
  Failures *failures = user_data;

  g_assert_error (error, GML_PROGRESS_ERROR, GML_PROGRESS_ERROR_IO);
  failures->n_failed++;
  g_free (failures->message);
  failures->message = g_strdup (error->message);
}

/* A background write that fails is reported once; the answers stay in memory and
 * the next successful write carries them. */
static void
test_background_failure (Fixture      *f,
                         gconstpointer data)
{
  g_autofree char *blocker = g_build_filename (f->dir, "file", NULL);
  g_autofree char *path = g_build_filename (blocker, "progress.json", NULL);
  g_autoptr(GmlProgress) progress = gml_progress_new (path);
  g_autoptr(GError) error = NULL;
  Failures failures = { 0 };

  /* A regular file where the directory should be. */
  g_assert_true (g_file_set_contents (blocker, "x", -1, NULL));
  gml_progress_set_background_saves (progress, TRUE, save_failed_cb, &failures);
  g_assert_true (gml_progress_record (progress, "q1", "a", TRUE, 1, 1764400000, &error));
  g_assert_no_error (error);
  wait_for_saves (progress, &failures.n_failed);
  g_assert_cmpuint (failures.n_failed, ==, 1);
  g_assert_nonnull (strstr (failures.message, path));
  g_assert_cmpuint (gml_progress_get_n_answers (progress), ==, 1);
  g_assert_true (gml_progress_has_pending_save (progress));

  /* The directory can be made now: the next answer's write carries both. */
  g_assert_cmpint (g_remove (blocker), ==, 0);
  g_assert_true (gml_progress_record (progress, "q2", "b", FALSE, 1, 1764400060, &error));
  wait_for_saves (progress, NULL);
  g_assert_cmpuint (failures.n_failed, ==, 1);
  g_assert_cmpuint (n_on_disk (path), ==, 2);
  g_free (failures.message);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/core/progress/missing", Fixture, NULL, fixture_set_up, test_missing_is_empty,
              fixture_tear_down);
  g_test_add ("/core/progress/round-trip", Fixture, NULL, fixture_set_up, test_round_trip,
              fixture_tear_down);
  g_test_add ("/core/progress/corrupt", Fixture, NULL, fixture_set_up, test_corrupt_set_aside,
              fixture_tear_down);
  g_test_add ("/core/progress/atomic", Fixture, NULL, fixture_set_up, test_atomic_save,
              fixture_tear_down);
  g_test_add ("/core/progress/stale-temporaries", Fixture, NULL, fixture_set_up,
              test_stale_temporaries_removed, fixture_tear_down);
  g_test_add ("/core/progress/save-failure", Fixture, NULL, fixture_set_up,
              test_save_failure_reported, fixture_tear_down);
  g_test_add ("/core/progress/guesses", Fixture, NULL, fixture_set_up, test_guesses,
              fixture_tear_down);
  g_test_add ("/core/progress/background/coalesced", Fixture, NULL, fixture_set_up,
              test_background_coalesced, fixture_tear_down);
  g_test_add ("/core/progress/background/flush", Fixture, NULL, fixture_set_up,
              test_background_flush, fixture_tear_down);
  g_test_add ("/core/progress/background/reset", Fixture, NULL, fixture_set_up,
              test_background_reset, fixture_tear_down);
  g_test_add ("/core/progress/background/failure", Fixture, NULL, fixture_set_up,
              test_background_failure, fixture_tear_down);

  return g_test_run ();
}

/* test-hostile-loaders.c — the question bank and the answer log against files
 * nobody should have to load: 2 GB, binary, invalid UTF-8, 100 000 levels deep,
 * numbers out of range, duplicate ids, empty. Each gives a clear message; none
 * crashes, aborts or reads a huge file into memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gio/gio.h>

#include "gml-i18n.h"
#include "gml-input.h"
#include "gml-progress.h"
#include "gml-question-bank.h"
#include "gml-test-common.h"

#define TWO_GB (G_GINT64_CONSTANT (2) << 30)

typedef struct
{
  char *dir;
} Fixture;

static void
fixture_set_up (Fixture      *f,
                gconstpointer data)
{
  f->dir = gml_test_make_tmp_dir ("gml-hostile-XXXXXX");
}

static void
fixture_tear_down (Fixture      *f,
                   gconstpointer data)
{
  gml_test_remove_tree (f->dir);
  g_free (f->dir);
}

static char *
write_file (Fixture    *f,
            const char *name,
            const char *data,
            gssize      length)
{
  char *path = g_build_filename (f->dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, data, length, &error));
  g_assert_no_error (error);
  return path;
}

/* A file of @size bytes that takes no disk space (truncate(1) does the same). */
static char *
write_sparse_file (Fixture    *f,
                   const char *name,
                   gint64      size)
{
  char *path = g_build_filename (f->dir, name, NULL);
  int fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, size), ==, 0);
  g_assert_true (g_close (fd, NULL));
  return path;
}

static char *
nested (const char *before,
        guint       depth,
        const char *after)
{
  GString *s = g_string_new (before);

  for (guint i = 0; i < depth; i++)
    g_string_append_c (s, '[');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (s, ']');
  g_string_append (s, after);
  return g_string_free (s, FALSE);
}

static glong
max_rss_kb (void)
{
  struct rusage usage;

  g_assert_cmpint (getrusage (RUSAGE_SELF, &usage), ==, 0);
  return usage.ru_maxrss;
}

/* ---- the question bank ---------------------------------------------------- */

static void
assert_bank_refuses (const char *path,
                     const char *expected)
{
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  g_assert_false (gml_question_bank_load_file (bank, file, FALSE, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  /* The message names the file, so a teacher knows which one to fix. */
  g_assert_nonnull (strstr (error->message, path));
  if (expected != NULL && strstr (error->message, expected) == NULL)
    g_error ("expected “%s” in: %s", expected, error->message);
  g_assert_cmpuint (gml_question_bank_get_n_questions (bank), ==, 0);
}

static void
test_bank_two_gb (Fixture      *f,
                  gconstpointer data)
{
  g_autofree char *path = write_sparse_file (f, "huge.json", TWO_GB);
  glong rss_before = max_rss_kb ();
  gint64 start = g_get_monotonic_time ();

  assert_bank_refuses (path, "too big");
  /* Refused from its size: well under a second, and not read into memory. */
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC);
  g_assert_cmpint (max_rss_kb () - rss_before, <, 64 * 1024);
}

static void
test_bank_device (Fixture      *f,
                  gconstpointer data)
{
  /* A "file" with no end: the limit holds while reading too. */
  if (!g_file_test ("/dev/zero", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/zero");
      return;
    }
  assert_bank_refuses ("/dev/zero", "bigger than the limit");
}

static void
test_bank_binary (Fixture      *f,
                  gconstpointer data)
{
  static const char elf[] = "\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0\x3e\0";
  g_autofree char *path = write_file (f, "binary.json", elf, sizeof elf);

  assert_bank_refuses (path, NULL);
}

static void
test_bank_invalid_utf8 (Fixture      *f,
                        gconstpointer data)
{
  g_autofree char *path = write_file (f, "latin1.json", "{\"questions\": [\"caf\xe9\"]}", -1);

  assert_bank_refuses (path, "UTF-8");
}

static void
test_bank_deep (Fixture      *f,
                gconstpointer data)
{
  g_autofree char *text = nested ("{\"questions\": ", 100000, "}");
  g_autofree char *path = write_file (f, "deep.json", text, -1);

  assert_bank_refuses (path, "nested");
}

static void
test_bank_deep_in_comment_and_strings (Fixture      *f,
                                       gconstpointer data)
{
  /* json-glib skips C comments and takes 'single-quoted' strings: a quote inside
   * either must not hide the nesting that follows from the guard. */
  g_autofree char *comment = nested ("/* \" */ {\"questions\": ", 100000, "}");
  g_autofree char *single = nested ("{'a\"': 1, \"questions\": ", 100000, "}");
  g_autofree char *path1 = write_file (f, "deep-comment.json", comment, -1);
  g_autofree char *path2 = write_file (f, "deep-single.json", single, -1);

  assert_bank_refuses (path1, "nested");
  assert_bank_refuses (path2, "nested");
}

static void
test_bank_empty (Fixture      *f,
                 gconstpointer data)
{
  g_autofree char *path = write_file (f, "empty.json", "", 0);

  assert_bank_refuses (path, "empty");
}

static const char question_template[] =
  "{\"id\": \"%s\", \"topic\": \"T\", \"difficulty\": %s, \"text\": \"Q\", "
  "\"explanation\": \"E\", \"scenario\": \"oom\", \"options\": ["
  "{\"id\": \"a\", \"text\": \"A\", \"feedback\": \"f\", \"correct\": true},"
  "{\"id\": \"b\", \"text\": \"B\", \"feedback\": \"f\", \"correct\": false},"
  "{\"id\": \"c\", \"text\": \"C\", \"feedback\": \"f\", \"correct\": false},"
  "{\"id\": \"d\", \"text\": \"D\", \"feedback\": \"f\", \"correct\": false}]}";

static char *
question (const char *id,
          const char *difficulty)
{
  return g_strdup_printf (question_template, id, difficulty);
}

static void
test_bank_numbers_out_of_range (Fixture      *f,
                                gconstpointer data)
{
  /* json-glib saturates integers beyond 64 bits to -1 or G_MAXINT64; none may
   * wrap round to a valid difficulty. */
  const char *values[] = { "-1", "0", "4", "1180591620717411303424", "18446744073709551617",
                           "-9223372036854775809", "1e400", "2.0", "\"2\"" };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *q = question ("q1", values[i]);
      g_autofree char *text = g_strdup_printf ("{\"questions\": [%s]}", q);
      g_autofree char *name = g_strdup_printf ("number-%u.json", i);
      g_autofree char *path = write_file (f, name, text, -1);

      assert_bank_refuses (path, "difficulty");
    }
}

static void
test_bank_duplicate_ids (Fixture      *f,
                         gconstpointer data)
{
  g_autofree char *q1 = question ("same", "1");
  g_autofree char *q2 = question ("same", "2");
  g_autofree char *text = g_strdup_printf ("{\"questions\": [%s, %s]}", q1, q2);
  g_autofree char *path = write_file (f, "duplicate.json", text, -1);

  assert_bank_refuses (path, "already has this id");
}

static void
test_bank_valid_still_loads (Fixture      *f,
                             gconstpointer data)
{
  /* The guards must not refuse a good file: the control for the tests above. */
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autofree char *q = question ("fine", "2");
  g_autofree char *text = g_strdup_printf ("/* a comment */ {\"questions\": [%s]}", q);
  g_autofree char *path = write_file (f, "fine.json", text, -1);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  g_assert_true (gml_question_bank_load_file (bank, file, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gml_question_bank_get_n_questions (bank), ==, 1);
}

/* ---- the answer log ------------------------------------------------------- */

/* A damaged log is set aside (renamed, never deleted) and the app starts afresh. */
static void
assert_log_set_aside (Fixture    *f,
                      const char *path,
                      gint64      size)
{
  g_autoptr(GmlProgress) progress = gml_progress_new (path);
  g_autofree char *set_aside = NULL;
  g_autoptr(GError) error = NULL;
  GStatBuf st;

  g_assert_true (gml_progress_load (progress, &set_aside, &error));
  g_assert_no_error (error);
  g_assert_nonnull (set_aside);
  g_assert_cmpuint (gml_progress_get_n_answers (progress), ==, 0);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpint (g_stat (set_aside, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, size);
}

static void
test_log_two_gb (Fixture      *f,
                 gconstpointer data)
{
  g_autofree char *path = write_sparse_file (f, "progress.json", TWO_GB);
  glong rss_before = max_rss_kb ();
  gint64 start = g_get_monotonic_time ();

  assert_log_set_aside (f, path, TWO_GB);
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC);
  g_assert_cmpint (max_rss_kb () - rss_before, <, 64 * 1024);
}

static void
assert_log_refused (Fixture    *f,
                    const char *text,
                    gssize      length,
                    const char *expected)
{
  g_autoptr(GmlProgress) progress = gml_progress_new ("/nonexistent/progress.json");
  g_autoptr(GError) error = NULL;

  if (length < 0)
    length = strlen (text);
  g_assert_false (gml_progress_parse (progress, text, length, &error));
  g_assert_error (error, GML_PROGRESS_ERROR, GML_PROGRESS_ERROR_CORRUPT);
  g_test_message ("%s", error->message);
  if (expected != NULL && strstr (error->message, expected) == NULL)
    g_error ("expected “%s” in: %s", expected, error->message);

  {
    g_autofree char *path = write_file (f, "progress.json", text, length);

    assert_log_set_aside (f, path, length);
  }
}

static void
test_log_hostile (Fixture      *f,
                  gconstpointer data)
{
  static const char binary[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
  g_autofree char *deep = nested ("{\"answers\": ", 100000, "}");
  const char *answer = "{\"answers\": [{\"question\": \"q\", \"time\": \"2026-01-01T00:00:00Z\", "
                       "\"chosen\": \"a\", \"correct\": true, \"seconds\": %s}]}";
  g_autofree char *seconds_negative = g_strdup_printf (answer, "-1");
  g_autofree char *seconds_huge = g_strdup_printf (answer, "1e400");
  g_autofree char *seconds_2_70 = g_strdup_printf (answer, "1180591620717411303424");

  assert_log_refused (f, "", 0, NULL);
  assert_log_refused (f, binary, sizeof binary, "UTF-8");
  assert_log_refused (f, "{\"answers\": [\"\xc3\x28\"]}", -1, "UTF-8");
  assert_log_refused (f, deep, -1, "nested");
  assert_log_refused (f, seconds_negative, -1, "out of range");
  assert_log_refused (f, seconds_huge, -1, "out of range");
  assert_log_refused (f, seconds_2_70, -1, "out of range");
  assert_log_refused (f, "{\"answers\": {}}", -1, "answers");
}

int
main (int    argc,
      char **argv)
{
  /* Messages in English here (the CLI test checks Turkish). */
  g_setenv ("LANGUAGE", "en", TRUE);
  gml_i18n_init ();
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/hostile/bank/two-gb", test_bank_two_gb);
  ADD ("/hostile/bank/endless-device", test_bank_device);
  ADD ("/hostile/bank/binary", test_bank_binary);
  ADD ("/hostile/bank/invalid-utf8", test_bank_invalid_utf8);
  ADD ("/hostile/bank/deep-nesting", test_bank_deep);
  ADD ("/hostile/bank/deep-nesting-behind-quotes", test_bank_deep_in_comment_and_strings);
  ADD ("/hostile/bank/empty", test_bank_empty);
  ADD ("/hostile/bank/numbers-out-of-range", test_bank_numbers_out_of_range);
  ADD ("/hostile/bank/duplicate-ids", test_bank_duplicate_ids);
  ADD ("/hostile/bank/valid-control", test_bank_valid_still_loads);
  ADD ("/hostile/log/two-gb", test_log_two_gb);
  ADD ("/hostile/log/hostile-contents", test_log_hostile);
#undef ADD

  return g_test_run ();
}

/* test-replay-file.c — the replay engine, called in this process.
 *
 * gml_replay_file() must leave an allocator exactly as the same operations
 * made by hand would, however the file's lines fall across the pieces it is
 * read in, and must say what is wrong with a bad file in the right order: a
 * file that cannot be read, or has a NUL byte or invalid UTF-8 anywhere,
 * before any bad line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "gml-test-locale.h"

#include <string.h>

#include <glib/gstdio.h>

#include "gml-allocator.h"
#include "gml-device.h"
#include "gml-input.h"
#include "gml-replay.h"
#include "gml-test-common.h"

#define MIB (G_GUINT64_CONSTANT (1024) * 1024)

typedef struct
{
  char *dir;
  char *path;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->dir = gml_test_make_tmp_dir ("gml-replay-file-XXXXXX");
  fixture->path = g_build_filename (fixture->dir, "trace.jsonl", NULL);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  gml_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->path);
}

static GmlAllocator *
new_allocator (guint64 capacity)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlDevice) device = gml_device_open (GML_BACKEND_SIM, capacity, 0, NULL, &error);
  GmlAllocConf conf;
  GmlAllocator *allocator;

  g_assert_no_error (error);
  gml_alloc_conf_init (&conf);
  allocator = gml_allocator_new (device, &conf);
  gml_allocator_set_keep_trace (allocator, FALSE);
  return allocator;
}

static void
write_file (const char *path,
            const char *contents,
            gssize      length)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, length, &error);
  g_assert_no_error (error);
}

/* A trace of @n_ops random operations over @n_ids ids, written as the lab
 * writes it, some lines in other shapes (spaces, CRLF, blank lines) that only
 * the full reader takes, and the same operations made by hand on @expected. */
static GString *
random_trace (GRand        *rand,
              guint         n_ops,
              guint         n_ids,
              GmlAllocator *expected)
{
  g_autofree gint32 *blocks = g_new (gint32, n_ids);
  g_autofree gboolean *live = g_new0 (gboolean, n_ids);
  GString *trace = g_string_new (NULL);

  for (guint i = 0; i < n_ops; i++)
    {
      guint id = g_rand_int_range (rand, 0, n_ids);
      gboolean plain = g_rand_int_range (rand, 0, 8) != 0;

      if (g_rand_int_range (rand, 0, 500) == 0)
        {
          g_string_append (trace, "{\"op\":\"empty_cache\"}\n");
          gml_allocator_empty_cache (expected);
        }
      else if (live[id])
        {
          g_autoptr(GError) error = NULL;

          g_string_append_printf (trace, plain ? "{\"op\":\"free\",\"id\":\"t%u\"}\n"
                                               : "{ \"op\": \"free\", \"id\": \"t%u\" }\r\n", id);
          if (blocks[id] >= 0)
            g_assert_true (gml_allocator_free (expected, blocks[id], &error));
          g_assert_no_error (error);
          live[id] = FALSE;
        }
      else
        {
          g_autoptr(GError) error = NULL;
          /* Small-pool, large-pool and now and then zero-byte requests. */
          guint64 size = g_rand_int_range (rand, 0, 3) == 0 ? g_rand_int_range (rand, 0, 1 << 20)
                                                            : g_rand_int_range (rand, 1, 64 << 20);
          guint32 stream = g_rand_int_range (rand, 0, 2);

          g_string_append_printf (trace,
                                  plain ? "{\"op\":\"alloc\",\"id\":\"t%u\",\"size\":%" G_GUINT64_FORMAT
                                          ",\"stream\":%u}\n"
                                        : "\n{\"size\": %2$" G_GUINT64_FORMAT ", \"op\": "
                                                                              "\"alloc\", "
                                          "\"stream\": %3$u, \"id\": \"t%1$u\"}\n",
                                  id, size, stream);
          if (!gml_allocator_malloc (expected, size, stream, NULL, GML_CATEGORY_NONE,
                                     &blocks[id], &error))
            {
              g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY);
              blocks[id] = -1;
            }
          live[id] = TRUE;
        }
    }
  return trace;
}

/* Random traces long enough to be read in many pieces give the figures the
 * same operations give by hand, out of memory included. */
static void
test_same_as_by_hand (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261201);

  for (guint round = 0; round < 4; round++)
    {
      /* 2 GiB runs out of memory now and then; 64 GiB never. */
      guint64 capacity = round % 2 ? 2048 * MIB : 65536 * MIB;
      g_autoptr(GmlAllocator) expected = new_allocator (capacity);
      g_autoptr(GmlAllocator) replayed = new_allocator (capacity);
      g_autoptr(GString) trace = random_trace (rand, 6000, 200, expected);
      g_autoptr(GError) error = NULL;
      g_autofree char *want = NULL;
      g_autofree char *got = NULL;
      guint n_operations = 0;

      write_file (fixture->path, trace->str, trace->len);
      g_assert_cmpuint (trace->len, >, 3 * 64 * 1024);
      g_assert_true (gml_replay_file (fixture->path, replayed, &n_operations, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (n_operations, ==, 6000);

      want = gml_replay_stats_to_json (expected);
      got = gml_replay_stats_to_json (replayed);
      g_assert_cmpstr (got, ==, want);
      if (round % 2)
        g_assert_nonnull (strstr (got, "CUDA out of memory"));
    }
}

static void
assert_replay_error (const char *path,
                     const char *contents,
                     gssize      length,
                     gboolean    with_allocator,
                     int         code,
                     const char *message_part)
{
  g_autoptr(GmlAllocator) allocator = with_allocator ? new_allocator (0) : NULL;
  g_autoptr(GError) error = NULL;

  if (contents)
    write_file (path, contents, length);
  g_assert_false (gml_replay_file (path, allocator, NULL, &error));
  g_assert_error (error, GML_REPLAY_ERROR, code);
  g_test_message ("%s", error->message);
  /* The words are translated (this test runs in Turkish too); the path is not. */
  if (strstr (error->message, message_part) == NULL)
    g_error ("“%s” does not say “%s”", error->message, message_part);
}

static void
test_errors (Fixture       *fixture,
             gconstpointer  data)
{
  g_autofree char *line_2 = g_strconcat (fixture->path, ":2: ", NULL);
  g_autofree char *missing = g_build_filename (fixture->dir, "missing.jsonl", NULL);
  g_autoptr(GmlAllocator) allocator = NULL;
  g_autoptr(GError) error = NULL;
  guint n_operations = 99;

  /* The line and its reason, in the form compilers use, at the start. */
  assert_replay_error (fixture->path,
                       "{\"op\":\"alloc\",\"id\":\"a\",\"size\":10}\n{\"op\":\"free\",\"id\":\"b\"}\n",
                       -1, TRUE, GML_REPLAY_ERROR_LINE, line_2);
  assert_replay_error (fixture->path, "\n  \r\n\n", -1, TRUE, GML_REPLAY_ERROR_EMPTY,
                       fixture->path);
  assert_replay_error (missing, NULL, 0, TRUE, GML_REPLAY_ERROR_READ, missing);

  /* A NUL byte or invalid UTF-8 after a bad line is what is reported, also
   * when they come pieces later than the line. */
  for (guint far = 0; far < 2; far++)
    {
      g_autoptr(GString) trace = g_string_new ("{\"op\":\"free\",\"id\":\"x\"}\n");

      for (guint i = 0; far && i < 20000; i++)
        g_string_append (trace, "{\"op\":\"empty_cache\"}\n");
      g_string_append_len (trace, "{\"op\":\"em\0pty\"}\n", 16);
      assert_replay_error (fixture->path, trace->str, trace->len, TRUE,
                           GML_REPLAY_ERROR_READ, fixture->path);
      g_string_truncate (trace, trace->len - 16);
      g_string_append (trace, "\xff\n");
      assert_replay_error (fixture->path, trace->str, trace->len, TRUE,
                           GML_REPLAY_ERROR_READ, fixture->path);
    }

  /* Without an allocator the file is only read: bad lines pass, bad bytes not. */
  assert_replay_error (fixture->path, "\xc3\x28\n", -1, FALSE, GML_REPLAY_ERROR_READ,
                       fixture->path);
  write_file (fixture->path, "{\"op\":\"free\",\"id\":\"x\"}\nnot json\n", -1);
  g_assert_true (gml_replay_file (fixture->path, NULL, &n_operations, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_operations, ==, 0);

  /* A line too long to be held, after good ones. */
  {
    g_autoptr(GString) trace = g_string_new ("{\"op\":\"alloc\",\"id\":\"a\",\"size\":10}\n");
    g_autofree char *line_3 = g_strconcat (fixture->path, ":3: ", NULL);

    g_string_append (trace, "{\"op\":\"free\",\"id\":\"a\"}\n{\"op\":\"empty_cache\",\"x\":\"");
    for (gsize i = 0; i < (GML_MAX_TRACE_LINE / 8) + 1; i++)
      g_string_append (trace, "abcdefgh");
    g_string_append (trace, "\"}\n");
    assert_replay_error (fixture->path, trace->str, trace->len, TRUE, GML_REPLAY_ERROR_LINE,
                         line_3);
  }

  /* An out-of-memory line is no error: the allocator counts it. */
  allocator = new_allocator (64 * MIB);
  write_file (fixture->path, "{\"op\":\"alloc\",\"id\":\"big\",\"size\":1073741824}\n"
                             "{\"op\":\"free\",\"id\":\"big\"}\n", -1);
  g_assert_true (gml_replay_file (fixture->path, allocator, &n_operations, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_operations, ==, 2);
  g_assert_nonnull (gml_allocator_get_last_oom_message (allocator));
}

int
main (int   argc,
      char *argv[])
{
  const char *missing_locale = gml_test_set_locale (&argc, &argv);

  g_test_init (&argc, &argv, NULL);
  gml_test_report_locale (missing_locale);

  g_test_add ("/engine/replay-file/same-as-by-hand", Fixture, NULL,
              fixture_set_up, test_same_as_by_hand, fixture_tear_down);
  g_test_add ("/engine/replay-file/errors", Fixture, NULL,
              fixture_set_up, test_errors, fixture_tear_down);

  return g_test_run ();
}

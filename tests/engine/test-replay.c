/* test-replay.c — `gpu-memory-lab replay`: exact figures for a worked trace,
 * and a clear, line-numbered error for every kind of bad line.
 *
 * The first argument is the program to run (the replay driver, or later the
 * real gpu-memory-lab binary); it is called as PROGRAM replay TRACE [options].
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "engine-test-locale.h"

#include <sys/wait.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

static const char *program;
static char *tmpdir;

typedef struct
{
  int   status;
  char *out;
  char *err;
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

static char *
write_trace (const char *name,
             const char *contents)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (tmpdir, name, NULL);

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  return path;
}

/* Runs PROGRAM replay PATH [extra…]. */
static void
run_replay (Run         *run,
            const char  *path,
            const char  *extra1,
            const char  *extra2)
{
  g_autoptr(GError) error = NULL;
  const char *argv[] = { program, "replay", path, extra1, extra2, NULL };
  int wait_status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &run->out, &run->err, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  run->status = WEXITSTATUS (wait_status);
  g_test_message ("exit %d\nstdout: %s\nstderr: %s", run->status, run->out, run->err);
}

static JsonObject *
parse_output (const char *out)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

/* Worked by hand:
 *   a 3000000 → 3000320 B (512 multiple), large pool, new 20 MiB segment, split
 *               (17971200 B left);
 *   b 1000    → 1024 B, small pool, new 2 MiB segment;
 *   c 1048577 → 1049088 B, best fit in the 20 MiB segment's tail, split
 *               (16922112 B left);
 *   free a    → a free piece of 3000320 B (its neighbour c is live);
 *   d 12 MiB  → 12582912 B; the best fit is the tail, split (4339200 B left);
 *   free b, empty_cache → the small segment goes back; the large one has
 *               live blocks and stays. */
static const char *good_trace =
  "{\"op\":\"alloc\",\"id\":\"a\",\"size\":3000000,\"stream\":0}\n"
  "{\"op\":\"alloc\",\"id\":\"b\",\"size\":1000,\"label\":\"bias\",\"category\":\"weights\"}\n"
  "\n"
  "{\"op\":\"alloc\",\"id\":\"c\",\"size\":1048577}\r\n"
  "{\"op\":\"free\",\"id\":\"a\"}\n"
  "{\"op\":\"alloc\",\"id\":\"d\",\"size\":12582912,\"category\":\"optimizer-state\"}\n"
  "{\"op\":\"free\",\"id\":\"b\"}\n"
  "{\"op\":\"empty_cache\"}\n";

static void
test_good_trace (void)
{
  static const struct
  {
    const char *key;
    gint64      value;
  } expected[] = {
    { "allocated_bytes.all.current", 1049088 + 12582912 },
    { "allocated_bytes.all.peak", 1049088 + 1024 + 12582912 },
    { "reserved_bytes.all.current", 20971520 },
    { "reserved_bytes.all.peak", 20971520 + 2097152 },
    { "active_bytes.all.current", 1049088 + 12582912 },
    { "requested_bytes.all.current", 1048577 + 12582912 },
    { "inactive_split_bytes.all.current", 3000320 + 4339200 },
    { "segment.all.current", 1 },
    { "segment.small_pool.current", 0 },
    { "segment.large_pool.current", 1 },
    { "allocation.all.current", 2 },
    { "num_alloc_retries", 0 },
    { "num_ooms", 0 },
    { "num_device_alloc", 2 },
    { "num_device_free", 1 },
    { "largest_free_block_bytes", 4339200 },
  };
  g_auto(Run) run = { 0 };
  g_autofree char *path = write_trace ("good.jsonl", good_trace);
  g_autoptr(JsonObject) object = NULL;

  run_replay (&run, path, NULL, NULL);
  g_assert_cmpint (run.status, ==, 0);
  object = parse_output (run.out);

  g_assert_cmpuint (json_object_get_size (object), ==, G_N_ELEMENTS (expected) + 1);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      JsonNode *node = json_object_get_member (object, expected[i].key);

      g_test_message ("%s", expected[i].key);
      g_assert_nonnull (node);
      g_assert_cmpint (json_node_get_value_type (node), ==, G_TYPE_INT64);
      g_assert_cmpint (json_node_get_int (node), ==, expected[i].value);
    }
  g_assert_true (json_object_has_member (object, "last_oom_message"));
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (object, "last_oom_message")));
}

static void
test_oom_goes_on (void)
{
  g_auto(Run) run = { 0 };
  g_autofree char *path = write_trace ("oom.jsonl",
                                       "{\"op\":\"alloc\",\"id\":\"w\",\"size\":50000000}\n"
                                       "{\"op\":\"free\",\"id\":\"w\"}\n"
                                       "{\"op\":\"alloc\",\"id\":\"x\",\"size\":3000000}\n"
                                       "{\"op\":\"alloc\",\"id\":\"y\",\"size\":1000}\n"
                                       "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1000}\n"
                                       "{\"op\":\"alloc\",\"id\":\"z\",\"size\":0}\n"
                                       "{\"op\":\"free\",\"id\":\"z\"}\n");
  g_autoptr(JsonObject) object = NULL;

  run_replay (&run, path, "--capacity", "16777216");
  g_assert_cmpint (run.status, ==, 0);
  object = parse_output (run.out);
  /* w failed and its free is no error; x failed, then x again (smaller) worked. */
  g_assert_cmpint (json_object_get_int_member (object, "num_ooms"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (object, "num_alloc_retries"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (object, "allocation.all.current"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (object, "segment.small_pool.current"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (object, "last_oom_message"), ==,
                   "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity "
                   "of 16.00 MiB of which 16.00 MiB is free. Of the allocated memory 0 bytes is "
                   "allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated. "
                   "If reserved but unallocated memory is large try setting "
                   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  "
                   "See documentation for Memory Management  "
                   "(https://docs.pytorch.org/docs/stable/notes/cuda.html"
                   "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)");
}

static void
test_alloc_conf (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) bad = { 0 };
  g_autofree char *path = write_trace ("conf.jsonl",
                                       "{\"op\":\"alloc\",\"id\":\"big\",\"size\":104857600}\n"
                                       "{\"op\":\"free\",\"id\":\"big\"}\n"
                                       "{\"op\":\"alloc\",\"id\":\"small\",\"size\":3145728}\n");
  g_autoptr(JsonObject) object = NULL;

  /* Without the setting the 3 MiB request would split the cached 100 MiB block. */
  run_replay (&run, path, "--alloc-conf", "max_split_size_mb:64");
  g_assert_cmpint (run.status, ==, 0);
  object = parse_output (run.out);
  g_assert_cmpint (json_object_get_int_member (object, "reserved_bytes.all.current"), ==,
                   125829120);
  g_assert_cmpint (json_object_get_int_member (object, "largest_free_block_bytes"), ==,
                   104857600);

  run_replay (&bad, path, "--alloc-conf", "max_split:64");
  g_assert_cmpint (bad.status, !=, 0);
  g_assert_nonnull (strstr (bad.err, "max_split"));
  g_assert_cmpstr (bad.out, ==, "");
}

/* Each bad line: a non-zero exit, nothing on stdout, and FILE:LINE: on stderr. */
static void
test_bad_lines (void)
{
  static const struct
  {
    const char *line;
    const char *why;    /* a word the message must contain */
  } rows[] = {
    { "{\"op\":\"alloc\",\"id\":\"z\",\"size\":10", "JSON" },
    { "[1,2,3]", "JSON" },
    { "{\"op\":\"resize\",\"id\":\"z\"}", "resize" },
    { "{\"id\":\"z\"}", "op" },
    { "{\"op\":\"alloc\",\"size\":10}", "id" },
    { "{\"op\":\"alloc\",\"id\":7,\"size\":10}", "id" },
    { "{\"op\":\"alloc\",\"id\":\"z\"}", "size" },
    { "{\"op\":\"alloc\",\"id\":\"z\",\"size\":-1}", "size" },
    { "{\"op\":\"alloc\",\"id\":\"z\",\"size\":1.5}", "size" },
    { "{\"op\":\"alloc\",\"id\":\"z\",\"size\":1e3}", "size" },
    { "{\"op\":\"alloc\",\"id\":\"z\",\"size\":\"1000\"}", "size" },
    { "{\"op\":\"alloc\",\"id\":\"z\",\"size\":9223372036854775808}", "size" },
    { "{\"op\":\"alloc\",\"id\":\"z\",\"size\":18446744073709551621}", "size" },
    { "{\"op\":\"alloc\",\"id\":\"z\",\"size\":10,\"stream\":-2}", "stream" },
    { "{\"op\":\"alloc\",\"id\":\"z\",\"size\":10,\"category\":\"cats\"}", "cats" },
    { "{\"op\":\"alloc\",\"id\":\"ok\",\"size\":10}", "ok" },      /* duplicate live id */
    { "{\"op\":\"free\",\"id\":\"ghost\"}", "ghost" },
    { "{\"op\":\"free\",\"id\":\"gone\"}", "gone" },             /* already freed */
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_auto(Run) run = { 0 };
      g_autofree char *name = g_strdup_printf ("bad-%u.jsonl", i);
      g_autofree char *contents = g_strconcat ("{\"op\":\"alloc\",\"id\":\"ok\",\"size\":10}\n"
                                               "{\"op\":\"alloc\",\"id\":\"gone\",\"size\":10}\n"
                                               "{\"op\":\"free\",\"id\":\"gone\"}\n",
                                               rows[i].line, "\n",
                                               "{\"op\":\"empty_cache\"}\n", NULL);
      g_autofree char *path = write_trace (name, contents);
      g_autofree char *where = g_strdup_printf ("%s:4: ", path);

      g_test_message ("row %u: %s", i, rows[i].line);
      run_replay (&run, path, NULL, NULL);
      g_assert_cmpint (run.status, !=, 0);
      g_assert_cmpstr (run.out, ==, "");
      g_assert_true (g_str_has_prefix (run.err, where));
      g_assert_nonnull (strstr (run.err, rows[i].why));
      g_assert_null (strstr (run.err, "CRITICAL"));
    }
}

static void
test_bad_options (void)
{
  g_autofree char *path = write_trace ("opt.jsonl", "{\"op\":\"empty_cache\"}\n");
  g_autofree char *missing = g_build_filename (tmpdir, "missing.jsonl", NULL);
  static const char * const rows[][2] = {
    { "--capacity", "lots" },
    { "--capacity", "0" },
    { "--backend", "tpu" },
    { "--alloc-conf", "roundup_power2_divisions:3" },
    { "--frobnicate", "1" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_auto(Run) run = { 0 };

      run_replay (&run, path, rows[i][0], rows[i][1]);
      g_assert_cmpint (run.status, !=, 0);
      g_assert_cmpstr (run.out, ==, "");
      g_assert_cmpstr (run.err, !=, "");
    }

  {
    g_auto(Run) run = { 0 };

    run_replay (&run, missing, NULL, NULL);
    g_assert_cmpint (run.status, !=, 0);
    g_assert_nonnull (strstr (run.err, "missing.jsonl"));
  }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  int status;

  const char *missing_locale = engine_test_set_locale (&argc, &argv);

  g_test_init (&argc, &argv, NULL);
  engine_test_report_locale (missing_locale);

  if (argc < 2)
    {
      g_printerr ("usage: %s PROGRAM\n", argv[0]);
      return 2;
    }
  program = argv[1];

  tmpdir = g_dir_make_tmp ("gml-replay-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/engine/replay/good-trace", test_good_trace);
  g_test_add_func ("/engine/replay/oom-goes-on", test_oom_goes_on);
  g_test_add_func ("/engine/replay/alloc-conf", test_alloc_conf);
  g_test_add_func ("/engine/replay/bad-lines", test_bad_lines);
  g_test_add_func ("/engine/replay/bad-options", test_bad_options);

  status = g_test_run ();

  /* Leave nothing behind in /tmp. */
  {
    g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
    const char *name;

    while (dir && (name = g_dir_read_name (dir)))
      {
        g_autofree char *path = g_build_filename (tmpdir, name, NULL);
        g_unlink (path);
      }
    g_rmdir (tmpdir);
    g_free (tmpdir);
  }

  return status;
}

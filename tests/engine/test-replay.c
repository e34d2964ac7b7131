/* test-replay.c — `gpu-memory-lab replay`: exact figures for a worked trace,
 * a clear, line-numbered error for every kind of bad line, and the same
 * answer for a trace however it is spelt (the lab's own compact lines go
 * through a fast reader, any other spelling through json-glib).
 *
 * The first argument is the program to run (the replay driver, or later the
 * real gpu-memory-lab binary); it is called as PROGRAM replay TRACE [options].
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "gml-test-locale.h"

#include <sys/wait.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "gml-allocator.h"
#include "gml-device.h"
#include "gml-test-common.h"

#define MiB G_GUINT64_CONSTANT (1048576)

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

/* Runs PROGRAM replay PATH with the NULL-terminated @extra. */
static void
run_replay_with (Run                *run,
                 const char         *path,
                 const char * const *extra)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  int wait_status = 0;

  g_ptr_array_add (argv, (char *) program);
  g_ptr_array_add (argv, (char *) "replay");
  g_ptr_array_add (argv, (char *) path);
  for (guint i = 0; extra[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) extra[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
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

static gint64
member (JsonObject *object,
        const char *key)
{
  g_assert_true (json_object_has_member (object, key));
  return json_object_get_int_member (object, key);
}

/* record_stream: x (4 MiB, a 20 MiB segment at B) is used on stream 1 and freed:
 * it waits. y takes [B+4, B+8) from the rest. Then, with synchronize, the next
 * request finds x back in the pool (process_events()) and takes it, its best
 * fit: y and z, 8 MiB allocated, the 12 MiB tail free. Without synchronize,
 * z takes [B+8, B+12): x still active, 8 MiB left in the tail. */
static void
test_record_stream (void)
{
  static const struct
  {
    gboolean synchronize;
    gint64   active;
    gint64   inactive_split;
  } rows[] = {
    { TRUE, 8 * MiB, 12 * MiB },
    { FALSE, 12 * MiB, 8 * MiB },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_auto(Run) run = { 0 };
      g_autofree char *contents = g_strconcat (
        "{\"op\":\"alloc\",\"id\":\"x\",\"size\":4194304}\n"
        "{\"op\":\"record_stream\",\"id\":\"x\",\"stream\":1}\n"
        "{\"op\":\"free\",\"id\":\"x\"}\n"
        "{\"op\":\"alloc\",\"id\":\"y\",\"size\":4194304}\n",
        rows[i].synchronize ? "{\"op\":\"synchronize\"}\n" : "",
        "{\"op\":\"alloc\",\"id\":\"z\",\"size\":4194304}\n", NULL);
      g_autofree char *path = write_trace ("record-stream.jsonl", contents);
      g_autoptr(JsonObject) object = NULL;

      run_replay (&run, path, NULL, NULL);
      g_assert_cmpint (run.status, ==, 0);
      object = parse_output (run.out);
      g_assert_cmpint (member (object, "allocated_bytes.all.current"), ==, 8 * MiB);
      g_assert_cmpint (member (object, "active_bytes.all.current"), ==, rows[i].active);
      g_assert_cmpint (member (object, "inactive_split_bytes.all.current"), ==,
                       rows[i].inactive_split);
      g_assert_cmpint (member (object, "reserved_bytes.all.current"), ==, 20 * MiB);
      g_assert_cmpint (member (object, "num_device_alloc"), ==, 1);
    }
}

/* A memory fraction, from the command line or from a line of the trace: on a
 * 1000 MiB device, 0.5 allows 500 MiB. 300 MiB, then 250 MiB: 550 > 500, out of
 * memory without asking the device; then 200 MiB fits exactly. */
static void
test_memory_fraction (void)
{
  static const char *body =
    "{\"op\":\"alloc\",\"id\":\"b\",\"size\":262144000}\n"
    "{\"op\":\"alloc\",\"id\":\"c\",\"size\":209715200}\n";
  g_autofree char *with_line = g_strconcat ("{\"op\":\"alloc\",\"id\":\"a\",\"size\":314572800}\n"
                                            "{\"op\":\"set_memory_fraction\",\"fraction\":0.5}\n",
                                            body, NULL);
  g_autofree char *without = g_strconcat ("{\"op\":\"alloc\",\"id\":\"a\",\"size\":314572800}\n",
                                          body, NULL);
  g_autofree char *line_path = write_trace ("fraction-line.jsonl", with_line);
  g_autofree char *option_path = write_trace ("fraction-option.jsonl", without);
  static const char * const capacity[] = { "--capacity", "1048576000", NULL };
  static const char * const option[] = { "--capacity", "1048576000", "--memory-fraction", "0.5",
                                         NULL };
  const char *paths[] = { line_path, option_path };
  const char * const *args[] = { capacity, option };

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_auto(Run) run = { 0 };
      g_autoptr(JsonObject) object = NULL;

      run_replay_with (&run, paths[i], args[i]);
      g_assert_cmpint (run.status, ==, 0);
      object = parse_output (run.out);
      g_assert_cmpint (member (object, "num_ooms"), ==, 1);
      g_assert_cmpint (member (object, "reserved_bytes.all.current"), ==, 500 * MiB);
      g_assert_nonnull (strstr (json_object_get_string_member (object, "last_oom_message"),
                                "Tried to allocate 250.00 MiB. GPU 0 has a total capacity of "
                                "1000.00 MiB of which 700.00 MiB is free. 500.00 MiB allowed; "));
    }
}

/* garbage_collection_threshold:0.5 under a fraction of 1.0 on 1000 MiB: the
 * numbers of test-allocator's /engine/allocator/garbage-collection, worked out
 * there (A released at the 250 MiB request: 670 MiB reserved, 1 segment
 * given back). Without the fraction nothing is collected: 870 MiB. */
static void
test_garbage_collection (void)
{
  static const char * const with_fraction[] = {
    "--capacity", "1048576000", "--memory-fraction", "1",
    "--alloc-conf", "garbage_collection_threshold:0.5", NULL };
  static const char * const without[] = {
    "--capacity", "1048576000", "--alloc-conf", "garbage_collection_threshold:0.5", NULL };
  g_autofree char *path = write_trace ("gc.jsonl",
                                       "{\"op\":\"alloc\",\"id\":\"A\",\"size\":209715200}\n"
                                       "{\"op\":\"alloc\",\"id\":\"B\",\"size\":209715200}\n"
                                       "{\"op\":\"alloc\",\"id\":\"C\",\"size\":209715200}\n"
                                       "{\"op\":\"free\",\"id\":\"A\"}\n"
                                       "{\"op\":\"alloc\",\"id\":\"E\",\"size\":20971520,"
                                       "\"stream\":1}\n"
                                       "{\"op\":\"free\",\"id\":\"B\"}\n"
                                       "{\"op\":\"alloc\",\"id\":\"D\",\"size\":262144000}\n");
  const char * const *args[] = { with_fraction, without };
  const gint64 reserved[] = { 670 * MiB, 870 * MiB };
  const gint64 frees[] = { 1, 0 };

  for (guint i = 0; i < G_N_ELEMENTS (args); i++)
    {
      g_auto(Run) run = { 0 };
      g_autoptr(JsonObject) object = NULL;

      run_replay_with (&run, path, args[i]);
      g_assert_cmpint (run.status, ==, 0);
      object = parse_output (run.out);
      g_assert_cmpint (member (object, "reserved_bytes.all.current"), ==, reserved[i]);
      g_assert_cmpint (member (object, "num_device_free"), ==, frees[i]);
    }
}

/* max_non_split_rounding_mb: a cached 150 MiB block, a 120 MiB request at or
 * above max_split_size (100 MiB): it may waste less than 40 MiB, so it takes the
 * block (150 MiB reserved); under the default 20 MiB it gets a new segment. */
static void
test_max_non_split_rounding (void)
{
  g_autofree char *path = write_trace ("non-split.jsonl",
                                       "{\"op\":\"alloc\",\"id\":\"a\",\"size\":157286400}\n"
                                       "{\"op\":\"free\",\"id\":\"a\"}\n"
                                       "{\"op\":\"alloc\",\"id\":\"b\",\"size\":125829120}\n");
  const char *confs[] = { "max_split_size_mb:100,max_non_split_rounding_mb:40",
                          "PYTORCH_ALLOC_CONF=max_split_size_mb:100" };
  const gint64 reserved[] = { 150 * MiB, 270 * MiB };

  for (guint i = 0; i < G_N_ELEMENTS (confs); i++)
    {
      g_auto(Run) run = { 0 };
      g_autoptr(JsonObject) object = NULL;

      run_replay (&run, path, "--alloc-conf", confs[i]);
      g_assert_cmpint (run.status, ==, 0);
      object = parse_output (run.out);
      g_assert_cmpint (member (object, "reserved_bytes.all.current"), ==, reserved[i]);
    }
}

/* 1 EiB is refused first, as allocate() does: no out-of-memory counted, no
 * retry, PyTorch's own message. */
static void
test_one_exabyte (void)
{
  g_auto(Run) run = { 0 };
  g_autofree char *path = write_trace ("exabyte.jsonl",
                                       "{\"op\":\"alloc\",\"id\":\"e\","
                                       "\"size\":1152921504606846976}\n"
                                       "{\"op\":\"free\",\"id\":\"e\"}\n");
  g_autoptr(JsonObject) object = NULL;

  run_replay (&run, path, NULL, NULL);
  g_assert_cmpint (run.status, ==, 0);
  object = parse_output (run.out);
  g_assert_cmpint (member (object, "num_ooms"), ==, 0);
  g_assert_cmpint (member (object, "num_alloc_retries"), ==, 0);
  g_assert_cmpint (member (object, "num_device_alloc"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (object, "last_oom_message"), ==,
                   "CUDA out of memory. Tried to allocate more than 1EB memory.");
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
    { "{\"op\":\"record_stream\",\"id\":\"ghost\",\"stream\":1}", "ghost" },
    { "{\"op\":\"record_stream\",\"id\":\"ok\"}", "stream" },
    { "{\"op\":\"record_stream\",\"id\":\"ok\",\"stream\":-1}", "stream" },
    { "{\"op\":\"synchronize\",\"stream\":\"1\"}", "stream" },
    { "{\"op\":\"set_memory_fraction\",\"fraction\":1.5}", "fraction" },
    { "{\"op\":\"set_memory_fraction\",\"fraction\":\"0.5\"}", "fraction" },
    { "{\"op\":\"set_memory_fraction\"}", "fraction" },
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
    { "--alloc-conf", "garbage_collection_threshold:1.5" },
    { "--memory-fraction", "1.5" },
    { "--memory-fraction", "half" },
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

/* ------------------------------------------------------------------------- */
/* One trace, two spellings                                                  */

#define CAPACITY (256 * MiB)
#define FAILED (-2)

typedef struct
{
  GString *canonical;     /* as the lab writes it: the fast reader's */
  GString *reformatted;   /* the same operations, as json-glib must read them */
  GRand   *rand;
} Spellings;

/* A string member's value, with some characters escaped: json-glib unescapes. */
static void
append_reformatted_string (Spellings  *sp,
                           const char *value)
{
  g_string_append_c (sp->reformatted, '"');
  for (const char *p = value; *p; p++)
    {
      if (g_ascii_isalpha (*p) && g_rand_int_range (sp->rand, 0, 3) == 0)
        g_string_append_printf (sp->reformatted, "\\u%04X", (guint) *p);
      else if (*p == '/')
        g_string_append (sp->reformatted, "\\/");
      else
        g_string_append_c (sp->reformatted, *p);
    }
  g_string_append_c (sp->reformatted, '"');
}

/* Writes one line both ways. @names and @values (JSON text, strings quoted
 * without escapes) are the members in the format's order; the reformatted
 * line has them shuffled, with spaces. */
static void
append_line (Spellings   *sp,
             const char **names,
             const char **values,
             guint        n)
{
  guint order[8];

  g_string_append_c (sp->canonical, '{');
  for (guint i = 0; i < n; i++)
    g_string_append_printf (sp->canonical, "%s\"%s\":%s", i ? "," : "", names[i], values[i]);
  g_string_append (sp->canonical, "}\n");

  for (guint i = 0; i < n; i++)
    order[i] = i;
  for (guint i = n; i > 1; i--)
    {
      guint j = g_rand_int_range (sp->rand, 0, i), t = order[i - 1];

      order[i - 1] = order[j];
      order[j] = t;
    }
  g_string_append (sp->reformatted, g_rand_boolean (sp->rand) ? "{ " : "\t{");
  for (guint k = 0; k < n; k++)
    {
      const char *v = values[order[k]];

      g_string_append_printf (sp->reformatted, "%s\"%s\" : ", k ? ", " : "", names[order[k]]);
      if (v[0] == '"')
        {
          g_autofree char *inner = g_strndup (v + 1, strlen (v) - 2);

          append_reformatted_string (sp, inner);
        }
      else
        {
          g_string_append (sp->reformatted, v);
        }
    }
  g_string_append (sp->reformatted, g_rand_boolean (sp->rand) ? " }\n" : "}\r\n");
}

/* The stats the in-process allocator ended with, as replay prints them. */
static void
assert_output_matches (JsonObject   *object,
                       GmlAllocator *allocator)
{
  static const char * const keys[] = {
    "allocated_bytes.all.current", "allocated_bytes.all.peak", "reserved_bytes.all.current",
    "reserved_bytes.all.peak", "active_bytes.all.current", "requested_bytes.all.current",
    "inactive_split_bytes.all.current", "segment.all.current", "segment.small_pool.current",
    "segment.large_pool.current", "allocation.all.current", "num_alloc_retries", "num_ooms",
    "num_device_alloc", "num_device_free",
  };
  const GmlStats *stats = gml_allocator_get_stats (allocator);
  const char *oom = gml_allocator_get_last_oom_message (allocator);

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      gint64 want = 0;

      g_assert_true (gml_stats_lookup (stats, keys[i], &want));
      g_assert_cmpint (json_object_get_int_member (object, keys[i]), ==, want);
    }
  g_assert_cmpint (json_object_get_int_member (object, "largest_free_block_bytes"), ==,
                   gml_mem_state_get_largest_free_block (gml_allocator_get_state (allocator)));
  if (oom)
    g_assert_cmpstr (json_object_get_string_member (object, "last_oom_message"), ==, oom);
  else
    g_assert_true (json_object_get_null_member (object, "last_oom_message"));
}

/* Random traces (sizes, streams, labels, categories, running out of memory,
 * retries under the same id, empty_cache, 0-byte requests), each written in
 * the lab's compact spelling and in a reformatted one. Both runs must print
 * the same, byte for byte, and what an allocator run here in the test ended
 * with. Every fourth trace ends in a bad line: the same message, the same line. */
static void
test_spellings (void)
{
  static const char * const labels[] = { "w", "act/1", "grad", "çıktı", "" };
  static const char * const categories[] = {
    "weights", "activations", "gradients", "optimizer-state", "optimizer_state", "temporary",
  };
  static const char * const bad_lines[] = {
    "{\"op\":\"free\",\"id\":\"never\"}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"category\":\"cats\"}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":-1}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"stream\":4294967296}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":18446744073709551621}",
    "{\"op\":\"alloc\",\"id\":\"x\"}",
    "{\"op\":\"resize\",\"id\":\"x\"}",
  };
  guint n_ooms = 0, n_bad = 0;

  for (guint32 seed = 1; seed <= 24; seed++)
    {
      g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
      g_autoptr(GmlDevice) device = gml_device_sim_new (CAPACITY, 0);
      g_autoptr(GmlAllocator) allocator = gml_allocator_new (device, NULL);
      g_autoptr(GHashTable) live = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_autoptr(GPtrArray) live_ids = g_ptr_array_new ();
      g_autoptr(GPtrArray) failed_ids = g_ptr_array_new ();
      g_autoptr(GString) canonical = g_string_new (NULL);
      g_autoptr(GString) reformatted = g_string_new (NULL);
      g_autofree char *name_a = g_strdup_printf ("spelt-%u-canonical.jsonl", seed);
      g_autofree char *name_b = g_strdup_printf ("spelt-%u-reformatted.jsonl", seed);
      g_autofree char *path_a = NULL;
      g_autofree char *path_b = NULL;
      g_autofree char *capacity = g_strdup_printf ("%" G_GUINT64_FORMAT, CAPACITY);
      g_auto(Run) run_a = { 0 };
      g_auto(Run) run_b = { 0 };
      Spellings sp = { canonical, reformatted, rand };
      gboolean bad = seed % 4 == 0;
      guint n_ops = 300, bad_at = g_rand_int_range (rand, 0, n_ops);

      for (guint i = 0; i < n_ops; i++)
        {
          int r = g_rand_int_range (rand, 0, 100);

          if (bad && i == bad_at)
            {
              const char *line = bad_lines[seed / 4 % G_N_ELEMENTS (bad_lines)];
              g_autofree char *inner = g_strndup (line + 1, strlen (line) - 2);

              g_string_append_printf (canonical, "%s\n", line);
              /* The same line with spaces: still bad, for the same reason. */
              g_string_append_printf (reformatted, "{ %s }\n", inner);
              break;
            }

          if (r < 50 || live_ids->len == 0)
            {
              const char *names[6] = { "op", "id", "size" };
              const char *values[6] = { "\"alloc\"" };
              g_autofree char *id = NULL;
              g_autofree char *quoted_id = NULL;
              g_autofree char *size_text = NULL;
              g_autofree char *stream_text = NULL;
              g_autofree char *label_text = NULL;
              g_autofree char *category_text = NULL;
              const char *label = NULL;
              GmlCategory category = GML_CATEGORY_NONE;
              guint64 size;
              guint32 stream = 0;
              guint n = 3;
              gint32 block = -1;
              g_autoptr(GError) error = NULL;

              /* Now and then a retry of an id whose alloc ran out of memory. */
              if (failed_ids->len > 0 && g_rand_int_range (rand, 0, 4) == 0)
                id = g_strdup (g_ptr_array_steal_index_fast (failed_ids, 0));
              else
                id = g_strdup_printf ("%s%u", g_rand_boolean (rand) ? "t" : "ağ/", i);
              switch (g_rand_int_range (rand, 0, 10))
                {
                case 0:
                  size = 0;
                  break;
                case 1:
                case 2:
                  size = (guint64) g_rand_double_range (rand, 20.0 * MiB, 120.0 * MiB);
                  break;
                case 3:
                case 4:
                case 5:
                  size = g_rand_int_range (rand, 1048577, 10 * 1048576);
                  break;
                default:
                  size = g_rand_int_range (rand, 1, 1048577);
                  break;
                }

              quoted_id = g_strdup_printf ("\"%s\"", id);
              size_text = g_strdup_printf ("%" G_GUINT64_FORMAT, size);
              values[1] = quoted_id;
              values[2] = size_text;
              if (g_rand_boolean (rand))
                {
                  stream = g_rand_int_range (rand, 0, 3);
                  stream_text = g_strdup_printf ("%u", stream);
                  names[n] = "stream";
                  values[n++] = stream_text;
                }
              if (g_rand_int_range (rand, 0, 3) == 0)
                {
                  label = labels[g_rand_int_range (rand, 0, G_N_ELEMENTS (labels))];
                  label_text = g_strdup_printf ("\"%s\"", label);
                  names[n] = "label";
                  values[n++] = label_text;
                }
              if (g_rand_int_range (rand, 0, 3) == 0)
                {
                  const char *c = categories[g_rand_int_range (rand, 0, G_N_ELEMENTS (categories))];

                  g_assert_true (gml_category_from_string (c, &category));
                  category_text = g_strdup_printf ("\"%s\"", c);
                  names[n] = "category";
                  values[n++] = category_text;
                }
              append_line (&sp, names, values, n);

              if (gml_allocator_malloc (allocator, size, stream, label, category, &block, &error))
                {
                  g_hash_table_insert (live, g_strdup (id), GINT_TO_POINTER (block));
                  g_ptr_array_add (live_ids, (gpointer) g_intern_string (id));
                }
              else
                {
                  g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY);
                  g_hash_table_insert (live, g_strdup (id), GINT_TO_POINTER (FAILED));
                  g_ptr_array_add (failed_ids, (gpointer) g_intern_string (id));
                  n_ooms++;
                }
            }
          else if (r < 97)
            {
              const char *names[] = { "op", "id" };
              const char *values[2] = { "\"free\"" };
              guint k = g_rand_int_range (rand, 0, live_ids->len);
              const char *id = g_ptr_array_steal_index_fast (live_ids, k);
              g_autofree char *quoted_id = g_strdup_printf ("\"%s\"", id);
              gint32 block = GPOINTER_TO_INT (g_hash_table_lookup (live, id));
              g_autoptr(GError) error = NULL;

              values[1] = quoted_id;
              append_line (&sp, names, values, 2);
              if (block >= 0)
                {
                  gml_allocator_free (allocator, block, &error);
                  g_assert_no_error (error);
                }
              g_hash_table_remove (live, id);
            }
          else
            {
              const char *names[] = { "op" };
              const char *values[] = { "\"empty_cache\"" };

              append_line (&sp, names, values, 1);
              gml_allocator_empty_cache (allocator);
            }
        }

      path_a = write_trace (name_a, canonical->str);
      path_b = write_trace (name_b, reformatted->str);
      run_replay (&run_a, path_a, "--capacity", capacity);
      run_replay (&run_b, path_b, "--capacity", capacity);

      g_assert_cmpint (run_a.status, ==, run_b.status);
      g_assert_cmpstr (run_a.out, ==, run_b.out);
      if (bad)
        {
          g_autofree char *where = g_strdup_printf ("%s:%u: ", path_a, bad_at + 1);
          g_autofree char *message_a = NULL;
          g_autofree char *message_b = NULL;

          g_assert_cmpint (run_a.status, ==, 1);
          g_assert_true (g_str_has_prefix (run_a.err, where));
          message_a = g_strdup (run_a.err + strlen (path_a));
          message_b = g_strdup (g_str_has_prefix (run_b.err, path_b)
                                ? run_b.err + strlen (path_b) : run_b.err);
          g_assert_cmpstr (message_a, ==, message_b);
          n_bad++;
        }
      else
        {
          g_autoptr(JsonObject) object = NULL;

          g_assert_cmpint (run_a.status, ==, 0);
          g_assert_cmpstr (run_a.err, ==, "");
          g_assert_cmpstr (run_b.err, ==, "");
          object = parse_output (run_a.out);
          assert_output_matches (object, allocator);
        }
    }

  g_test_message ("%u allocs ran out of memory; %u traces ended in a bad line", n_ooms, n_bad);
  g_assert_cmpuint (n_ooms, >, 0);
}

/* Thousands of ids live at once, freed in random order and used again: the
 * replay's table of live ids grows and closes its gaps. A wrong gap would
 * lose a live id (a false "not allocated") or keep a freed one (a false
 * "already allocated"). The trace ends with one of those errors on purpose. */
static void
test_many_ids (void)
{
  for (guint variant = 0; variant < 3; variant++)
    {
      g_autoptr(GRand) rand = g_rand_new_with_seed (100 + variant);
      g_autoptr(GString) trace = g_string_new (NULL);
      g_autofree gboolean *live = g_new0 (gboolean, 6000);
      g_autofree char *name = g_strdup_printf ("many-ids-%u.jsonl", variant);
      g_autofree char *path = NULL;
      g_auto(Run) run = { 0 };
      guint n_live = 0, n_lines = 0, k = 0;

      for (guint i = 0; i < 40000; i++)
        {
          /* Up to 6000 live, then mostly frees down to a few hundred, twice. */
          gboolean fill = (i / 10000) % 2 == 0;

          k = g_rand_int_range (rand, 0, 6000);
          if (!live[k] &&
              (fill ? g_rand_int_range (rand, 0, 10) < 8 : g_rand_int_range (rand, 0, 10) < 2))
            {
              g_string_append_printf (trace, "{\"op\":\"alloc\",\"id\":\"id-%u\",\"size\":%u}\n",
                                      k, 512 * (1 + k % 7));
              live[k] = TRUE;
              n_live++;
              n_lines++;
            }
          else if (live[k])
            {
              g_string_append_printf (trace, "{\"op\":\"free\",\"id\":\"id-%u\"}\n", k);
              live[k] = FALSE;
              n_live--;
              n_lines++;
            }
        }

      /* Variant 1: an id still live is allocated again; variant 2: one no
       * longer live is freed. */
      for (k = 0; variant > 0 && live[k] != (variant == 1); k++)
        ;
      if (variant == 1)
        g_string_append_printf (trace, "{\"op\":\"alloc\",\"id\":\"id-%u\",\"size\":1}\n", k);
      else if (variant == 2)
        g_string_append_printf (trace, "{\"op\":\"free\",\"id\":\"id-%u\"}\n", k);

      path = write_trace (name, trace->str);
      run_replay (&run, path, NULL, NULL);
      if (variant == 0)
        {
          g_autoptr(JsonObject) object = NULL;

          g_assert_cmpint (run.status, ==, 0);
          object = parse_output (run.out);
          g_assert_cmpint (json_object_get_int_member (object, "allocation.all.current"), ==,
                           n_live);
          g_assert_cmpuint (n_live, >, 100);
        }
      else
        {
          g_autofree char *where = g_strdup_printf ("%s:%u: ", path, n_lines + 1);
          g_autofree char *what = g_strdup_printf ("“id-%u”", k);

          g_assert_cmpint (run.status, ==, 1);
          g_assert_true (g_str_has_prefix (run.err, where));
          g_assert_nonnull (strstr (run.err, what));
          g_assert_nonnull (strstr (run.err, variant == 1 ? "already allocated" : "not allocated"));
        }
    }
}

/* Lines around the sizes the trace is read in (64 KiB) and up to the 1 MiB
 * limit, full of two-byte characters, so that pieces end inside lines and
 * inside characters: each is read whole, and the error on the next line
 * comes with its number. */
static void
test_long_lines (void)
{
  static const gsize lengths[] = {
    100, 32767, 32768, 65535, 65536, 65537, 65538, 131071, 131072, 300001, 1048576,
  };

  for (guint i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      static const char head[] = "{\"op\":\"alloc\",\"id\":\"a\",\"size\":1,\"label\":\"";
      g_autoptr(GString) trace = g_string_new (head);
      g_autofree char *name = g_strdup_printf ("long-%u.jsonl", i);
      g_autofree char *path = NULL;
      g_autofree char *where = NULL;
      g_auto(Run) run = { 0 };

      /* "ğ" is two bytes; an "x" now and then moves the cuts by one. */
      while (trace->len + 2 < lengths[i] - 2)
        g_string_append (trace, trace->len % 7 == 0 ? "x" : "ğ");
      while (trace->len < lengths[i] - 2)
        g_string_append_c (trace, 'x');
      g_string_append (trace, "\"}");
      g_assert_cmpuint (trace->len, ==, lengths[i]);
      g_string_append (trace, i % 2 ? "\r\n" : "\n");
      g_string_append (trace, "{\"op\":\"free\",\"id\":\"ghost\"}\n");

      path = write_trace (name, trace->str);
      where = g_strdup_printf ("%s:2: ", path);
      run_replay (&run, path, NULL, NULL);
      g_assert_cmpint (run.status, ==, 1);
      g_assert_true (g_str_has_prefix (run.err, where));
      g_assert_nonnull (strstr (run.err, "ghost"));
    }
}

int
main (int   argc,
      char *argv[])
{
  int status;

  const char *missing_locale = gml_test_set_locale (&argc, &argv);

  g_test_init (&argc, &argv, NULL);
  gml_test_report_locale (missing_locale);

  if (argc < 2)
    {
      g_printerr ("usage: %s PROGRAM\n", argv[0]);
      return 2;
    }
  program = argv[1];

  tmpdir = gml_test_make_tmp_dir ("gml-replay-XXXXXX");

  g_test_add_func ("/engine/replay/good-trace", test_good_trace);
  g_test_add_func ("/engine/replay/oom-goes-on", test_oom_goes_on);
  g_test_add_func ("/engine/replay/alloc-conf", test_alloc_conf);
  g_test_add_func ("/engine/replay/record-stream", test_record_stream);
  g_test_add_func ("/engine/replay/memory-fraction", test_memory_fraction);
  g_test_add_func ("/engine/replay/garbage-collection", test_garbage_collection);
  g_test_add_func ("/engine/replay/max-non-split-rounding", test_max_non_split_rounding);
  g_test_add_func ("/engine/replay/one-exabyte", test_one_exabyte);
  g_test_add_func ("/engine/replay/bad-lines", test_bad_lines);
  g_test_add_func ("/engine/replay/bad-options", test_bad_options);
  g_test_add_func ("/engine/replay/spellings", test_spellings);
  g_test_add_func ("/engine/replay/many-ids", test_many_ids);
  g_test_add_func ("/engine/replay/long-lines", test_long_lines);

  status = g_test_run ();

  /* Leave nothing behind in /tmp. */
  gml_test_remove_tree (tmpdir);
  g_free (tmpdir);

  return status;
}

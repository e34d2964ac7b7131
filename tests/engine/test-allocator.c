/* test-allocator.c — PyTorch's caching-allocator rules, one table per rule,
 * with the numbers worked out by hand from PyTorch's c10/cuda/CUDACachingAllocator.cpp
 * (round_size, get_allocation_size, get_free_block, should_split, release_cached_blocks).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "gml-test-locale.h"

#include "gml-allocator.h"
#include "gml-device.h"
#include "gml-trace.h"

#define KiB G_GUINT64_CONSTANT (1024)
#define MiB G_GUINT64_CONSTANT (1048576)
#define GiB G_GUINT64_CONSTANT (1073741824)

static const char *oom_tail =
  " If reserved but unallocated memory is large try setting"
  " PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation."
  "  See documentation for Memory Management "
  " (https://docs.pytorch.org/docs/stable/notes/cuda.html"
  "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)";

static gint64
stat (GmlAllocator *a,
      const char   *name)
{
  gint64 value = -1;

  g_assert_true (gml_stats_lookup (gml_allocator_get_stats (a), name, &value));
  return value;
}

static void
assert_consistent (GmlAllocator *a)
{
  g_autoptr(GError) error = NULL;

  gml_mem_state_check (gml_allocator_get_state (a), &error);
  g_assert_no_error (error);
}

static gint32
must_malloc (GmlAllocator *a,
             guint64       size,
             guint32       stream)
{
  g_autoptr(GError) error = NULL;
  gint32 id = -1;

  g_assert_true (gml_allocator_malloc (a, size, stream, NULL, GML_CATEGORY_NONE, &id, &error));
  g_assert_no_error (error);
  g_assert_cmpint (id, >=, 0);
  assert_consistent (a);
  return id;
}

static void
must_free (GmlAllocator *a,
           gint32        id)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (gml_allocator_free (a, id, &error));
  g_assert_no_error (error);
  assert_consistent (a);
}

static const GmlBlock *
block (GmlAllocator *a,
       gint32        id)
{
  const GmlBlock *b = gml_mem_state_get_block (gml_allocator_get_state (a), id);

  g_assert_nonnull (b);
  return b;
}

static GmlAllocConf
conf_from (const char *str)
{
  g_autoptr(GError) error = NULL;
  GmlAllocConf conf;

  gml_alloc_conf_init (&conf);
  if (str)
    {
      gml_alloc_conf_parse (&conf, str, &error);
      g_assert_no_error (error);
    }
  return conf;
}

/* ------------------------------------------------------------------------- */

static void
test_round_size (void)
{
  static const struct
  {
    const char *conf;
    guint64     request;
    guint64     rounded;
  } rows[] = {
    { NULL, 1, 512 },
    { NULL, 511, 512 },
    { NULL, 512, 512 },
    { NULL, 513, 1024 },
    { NULL, 1048575, 1048576 },
    { NULL, 1048576, 1048576 },
    { NULL, 1048577, 1049088 },
    { NULL, 3000000, 3000320 },
    /* roundup_power2_divisions:4 — quarters between powers of two, but only
     * above 512 × 4 = 2048 bytes (the guard in round_size()). */
    { "roundup_power2_divisions:4", 1200, 1536 },
    { "roundup_power2_divisions:4", 1200 * 1024, 1280 * 1024 },
    { "roundup_power2_divisions:4", 1100000, 1310720 },
    { "roundup_power2_divisions:4", 2049, 2560 },
    { "roundup_power2_divisions:4", 2 * MiB, 2 * MiB },
    { "roundup_power2_divisions:4", 5 * MiB, 5 * MiB },
    { "roundup_power2_divisions:4", 5 * MiB + 1, 6 * MiB },
    { "roundup_power2_divisions:8", 1100000, 1179648 },
    /* Buckets, keys in MB: 1 division (plain rounding) below 512 MB, 2 in
     * [512 MB, 1 GB), 8 from 1 GB on. */
    { "roundup_power2_divisions:[256:1,512:2,>:8]", 300 * MiB + 1, 300 * MiB + 512 },
    { "roundup_power2_divisions:[256:1,512:2,>:8]", 600 * MiB, 768 * MiB },
    { "roundup_power2_divisions:[256:1,512:2,>:8]", 1100 * MiB, 1152 * MiB },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GmlAllocConf conf = conf_from (rows[i].conf);

      g_test_message ("row %u: %s, %" G_GUINT64_FORMAT, i, rows[i].conf, rows[i].request);
      g_assert_cmpuint (gml_round_size (&conf, rows[i].request), ==, rows[i].rounded);
    }

  /* The documentation's example is the division step itself. */
  g_assert_cmpuint (gml_roundup_power2_next_division (1200, 4), ==, 1280);
  g_assert_cmpuint (gml_roundup_power2_next_division (1024, 4), ==, 1024);
}

static void
test_allocation_size (void)
{
  static const struct
  {
    guint64 rounded;
    GmlPool pool;
    guint64 segment;
  } rows[] = {
    { 512, GML_POOL_SMALL, 2 * MiB },
    { 1 * MiB, GML_POOL_SMALL, 2 * MiB },
    { 1 * MiB + 512, GML_POOL_LARGE, 20 * MiB },
    { 3 * MiB, GML_POOL_LARGE, 20 * MiB },
    { 10 * MiB - 512, GML_POOL_LARGE, 20 * MiB },
    { 10 * MiB, GML_POOL_LARGE, 10 * MiB },
    { 10 * MiB + 512, GML_POOL_LARGE, 12 * MiB },
    { 100 * MiB, GML_POOL_LARGE, 100 * MiB },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_assert_cmpint (gml_pool_for_size (rows[i].rounded), ==, rows[i].pool);
      g_assert_cmpuint (gml_allocation_size (rows[i].rounded), ==, rows[i].segment);
    }
}

static void
test_format_size (void)
{
  static const struct
  {
    guint64     size;
    const char *text;
  } rows[] = {
    { 0, "0 bytes" },
    { 1024, "1024 bytes" },
    { 1025, "1.00 KiB" },
    { 1536, "1.50 KiB" },
    { 1048576, "1024.00 KiB" },
    { 1048577, "1.00 MiB" },
    { 20 * MiB, "20.00 MiB" },
    { 1073741824, "1024.00 MiB" },
    { 1073741825, "1.00 GiB" },
    { 8 * GiB - 20 * MiB, "7.98 GiB" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = gml_format_size (rows[i].size);
      g_assert_cmpstr (text, ==, rows[i].text);
    }
}

static void
test_conf_parse (void)
{
  /* Read against c10/core/AllocatorConfig.cpp and c10/cuda/CUDAAllocatorConfig.cpp
   * (PyTorch 2.9) and their test, c10/test/core/AllocatorConfig_test.cpp. */
  static const struct
  {
    const char *str;
    gboolean    ok;
    guint64     max_split;
    guint64     div_1mib;   /* divisions for a 1 MiB request */
    guint64     div_1gib;
    guint64     non_split;  /* max_non_split_rounding_size; 0: the default, 20 MiB */
    double      gc;         /* garbage_collection_threshold */
  } rows[] = {
    { "", TRUE, G_MAXUINT64, 0, 0, 0, 0 },
    { "max_split_size_mb:128", TRUE, 128 * MiB, 0, 0, 0, 0 },
    { "max_split_size_mb:128,roundup_power2_divisions:4", TRUE, 128 * MiB, 4, 4, 0, 0 },
    { " max_split_size_mb : 21 ", TRUE, 21 * MiB, 0, 0, 0, 0 },
    { "roundup_power2_divisions:[256:1,512:2,>:8]", TRUE, G_MAXUINT64, 1, 8, 0, 0 },
    { "roundup_power2_divisions:[>:4]", TRUE, G_MAXUINT64, 0, 4, 0, 0 },
    { "expandable_segments:False", TRUE, G_MAXUINT64, 0, 0, 0, 0 },
    { "expandable_segments:True,max_split_size_mb:64", TRUE, 64 * MiB, 0, 0, 0, 0 },
    /* "must be >= 20": 20 itself is accepted now. */
    { "max_split_size_mb:20", TRUE, 20 * MiB, 0, 0, 0, 0 },
    { "max_split_size_mb:19", FALSE, 0, 0, 0, 0, 0 },
    /* The test's own strings. */
    { "max_split_size_mb:40,max_non_split_rounding_mb:30,garbage_collection_threshold:0.5,"
      "roundup_power2_divisions:[64:8,128:2,256:4,512:2,1024:4,>:1],expandable_segments:True,"
      "pinned_num_register_threads:8,pinned_use_background_threads:True",
      TRUE, 40 * MiB, 8, 4, 30 * MiB, 0.5 },
    { "max_split_size_mb:20,max_non_split_rounding_mb:40,garbage_collection_threshold:0.8",
      TRUE, 20 * MiB, 0, 0, 40 * MiB, 0.8 },
    { "max_non_split_rounding_mb:19", FALSE, 0, 0, 0, 0, 0 },
    { "garbage_collection_threshold:0.6", TRUE, G_MAXUINT64, 0, 0, 0, 0.6 },
    { "garbage_collection_threshold:0", FALSE, 0, 0, 0, 0, 0 },
    { "garbage_collection_threshold:1.0", FALSE, 0, 0, 0, 0, 0 },
    { "garbage_collection_threshold:0,5", FALSE, 0, 0, 0, 0, 0 },
    { "garbage_collection_threshold:abc", FALSE, 0, 0, 0, 0, 0 },
    { "release_lock_on_cudamalloc:True,pinned_use_cuda_host_register:False", TRUE,
      G_MAXUINT64, 0, 0, 0, 0 },
    { "release_lock_on_cudamalloc:yes", FALSE, 0, 0, 0, 0, 0 },
    { "pinned_num_register_threads:128", TRUE, G_MAXUINT64, 0, 0, 0, 0 },
    { "pinned_num_register_threads:256", FALSE, 0, 0, 0, 0, 0 },
    { "pinned_num_register_threads:6", FALSE, 0, 0, 0, 0, 0 },
    { "pinned_reserve_segment_size_mb:0", FALSE, 0, 0, 0, 0, 0 },
    { "graph_capture_record_stream_reuse:True", TRUE, G_MAXUINT64, 0, 0, 0, 0 },
    { "backend:native", TRUE, G_MAXUINT64, 0, 0, 0, 0 },
    { "backend:cudaMallocAsync", FALSE, 0, 0, 0, 0, 0 },
    { "backend:magic", FALSE, 0, 0, 0, 0, 0 },
    /* The newer variable's name, pasted with the value. */
    { "PYTORCH_ALLOC_CONF=max_split_size_mb:64", TRUE, 64 * MiB, 0, 0, 0, 0 },
    { "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:64", TRUE, 64 * MiB, 0, 0, 0, 0 },
    { "max_split_size_mb:abc", FALSE, 0, 0, 0, 0, 0 },
    { "max_split_size_mb", FALSE, 0, 0, 0, 0, 0 },
    { "max_split_size_mb:128;", FALSE, 0, 0, 0, 0, 0 },
    { "roundup_power2_divisions:3", FALSE, 0, 0, 0, 0, 0 },
    { "roundup_power2_divisions:[300:2]", FALSE, 0, 0, 0, 0, 0 },
    { "roundup_power2_divisions:[256:2", FALSE, 0, 0, 0, 0, 0 },
    { "expandable_segments:true", FALSE, 0, 0, 0, 0, 0 },
    { "expandable_segments:1", FALSE, 0, 0, 0, 0, 0 },
    { "max_split_size:128", FALSE, 0, 0, 0, 0, 0 },
    { "MAX_SPLIT_SIZE_MB:128", FALSE, 0, 0, 0, 0, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GError) error = NULL;
      GmlAllocConf conf;
      gboolean ok;

      gml_alloc_conf_init (&conf);
      ok = gml_alloc_conf_parse (&conf, rows[i].str, &error);
      g_test_message ("row %u: “%s”: %s", i, rows[i].str, error ? error->message : "ok");
      if (!rows[i].ok)
        {
          g_assert_false (ok);
          g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF);
          continue;
        }
      g_assert_no_error (error);
      g_assert_true (ok);
      g_assert_cmpuint (conf.max_split_size, ==, rows[i].max_split);
      g_assert_cmpuint (gml_alloc_conf_divisions_for_size (&conf, 1 * MiB), ==, rows[i].div_1mib);
      g_assert_cmpuint (gml_alloc_conf_divisions_for_size (&conf, 1 * GiB), ==, rows[i].div_1gib);
      g_assert_cmpuint (conf.max_non_split_rounding_size, ==,
                        rows[i].non_split ? rows[i].non_split : 20 * MiB);
      g_assert_cmpfloat (conf.garbage_collection_threshold, ==, rows[i].gc);
    }
}

static GmlAllocator *
new_allocator (GmlDevice  *device,
               const char *conf_text)
{
  g_autoptr(GError) error = NULL;
  GmlAllocConf conf;

  gml_alloc_conf_init (&conf);
  g_assert_true (gml_alloc_conf_parse (&conf, conf_text, &error));
  g_assert_no_error (error);
  return gml_allocator_new (device, &conf);
}

/* get_free_block(): a request at or above max_split_size takes a cached block
 * only if it wastes less than max_non_split_rounding_mb (20 MiB unless set). */
static void
test_max_non_split_rounding (void)
{
  static const struct
  {
    const char *conf;
    gint64      reserved;   /* after the 120 MiB request */
    gint64      allocated;
  } rows[] = {
    /* 150 − 120 = 30 MiB ≥ 20 MiB: a new segment of 120 MiB. */
    { "max_split_size_mb:100", 270 * MiB, 120 * MiB },
    /* 30 MiB < 40 MiB: the whole 150 MiB block (oversize blocks are not split). */
    { "max_split_size_mb:100,max_non_split_rounding_mb:40", 150 * MiB, 150 * MiB },
    /* 30 MiB is not less than 30 MiB. */
    { "max_split_size_mb:100,max_non_split_rounding_mb:30", 270 * MiB, 120 * MiB },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
      g_autoptr(GmlAllocator) a = new_allocator (device, rows[i].conf);

      g_test_message ("row %u: %s", i, rows[i].conf);
      must_free (a, must_malloc (a, 150 * MiB, 0));
      must_malloc (a, 120 * MiB, 0);
      g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, rows[i].reserved);
      g_assert_cmpint (stat (a, "allocated_bytes.all.current"), ==, rows[i].allocated);
    }
}

/* set_per_process_memory_fraction(): alloc_block() refuses what would take the
 * reserved memory past fraction × total, and the message says "X allowed; ". */
static void
test_memory_fraction (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (1000 * MiB, 0);
  g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
  g_autoptr(GError) error = NULL;
  gint32 id = -1;

  g_assert_false (gml_allocator_set_memory_fraction (a, 1.5, &error));
  g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF);
  g_clear_error (&error);
  g_assert_false (gml_allocator_set_memory_fraction (a, -0.1, &error));
  g_clear_error (&error);

  g_assert_true (gml_allocator_set_memory_fraction (a, 0.5, &error));
  g_assert_no_error (error);
  must_malloc (a, 300 * MiB, 0);
  /* 300 + 250 > 500 MiB: out of memory without asking the device, which has room. */
  g_assert_false (gml_allocator_malloc (a, 250 * MiB, 0, NULL, GML_CATEGORY_NONE, &id, &error));
  g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, " is free. 500.00 MiB allowed; Of the allocated"));
  g_assert_cmpint (stat (a, "num_ooms"), ==, 1);
  g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, 300 * MiB);
  g_clear_error (&error);
  /* 200 MiB fits exactly. */
  must_malloc (a, 200 * MiB, 0);
  g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, 500 * MiB);

  /* The newest PyTorch's per_process_memory_fraction does the same from the start. */
  {
    g_autoptr(GmlDevice) device2 = gml_device_sim_new (1000 * MiB, 0);
    g_autoptr(GmlAllocator) b = new_allocator (device2, "per_process_memory_fraction:0.5");

    must_malloc (b, 300 * MiB, 0);
    g_assert_false (gml_allocator_malloc (b, 250 * MiB, 0, NULL, GML_CATEGORY_NONE, &id, NULL));
  }
}

/* garbage_collect_cached_blocks(): worked out from its source.
 * A device of 1000 MiB, fraction 1.0: allowed 1000 MiB, gc threshold 0.5 × 1000
 * = 500 MiB. A, B, C of 200 MiB each (get_free_block calls 1, 2, 3 on the large
 * pool, all missing). A freed: in the pool at count 3. E, 20 MiB on stream 1:
 * call 4, a miss (no block of stream 1), a new segment. B freed: at count 4.
 * D, 250 MiB: call 5, a miss. Reserved 620 > 500, target 120 MiB. Freeable:
 * A (age 5 − 3 = 2) and B (age 1); mean age 1.5: A is released (200 ≥ 120, so
 * no second round), B stays. D then gets a new segment: 420 + 250 = 670 MiB. */
static void
test_garbage_collection (void)
{
  static const struct
  {
    const char *conf;
    gboolean    fraction;
    gint64      reserved;
    gint64      device_frees;
    gint64      segments;
  } rows[] = {
    { "garbage_collection_threshold:0.5", TRUE, 670 * MiB, 1, 4 },
    /* No memory fraction: garbage collection does nothing. */
    { "garbage_collection_threshold:0.5", FALSE, 870 * MiB, 0, 5 },
    /* Threshold 0.9: 620 ≤ 900, nothing to collect. */
    { "garbage_collection_threshold:0.9", TRUE, 870 * MiB, 0, 5 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GmlDevice) device = gml_device_sim_new (1000 * MiB, 0);
      g_autoptr(GmlAllocator) a = new_allocator (device, rows[i].conf);
      gint32 A, B;

      g_test_message ("row %u: %s, fraction %d", i, rows[i].conf, rows[i].fraction);
      if (rows[i].fraction)
        g_assert_true (gml_allocator_set_memory_fraction (a, 1.0, NULL));
      A = must_malloc (a, 200 * MiB, 0);
      B = must_malloc (a, 200 * MiB, 0);
      must_malloc (a, 200 * MiB, 0);
      must_free (a, A);
      must_malloc (a, 20 * MiB, 1);
      must_free (a, B);
      must_malloc (a, 250 * MiB, 0);
      g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, rows[i].reserved);
      g_assert_cmpint (stat (a, "num_device_free"), ==, rows[i].device_frees);
      g_assert_cmpint (stat (a, "segment.all.current"), ==, rows[i].segments);
    }
}

/* record_stream(): the freed block waits for the other stream (free_requested,
 * active but not allocated), and is back in the pool only at the first malloc
 * after that stream's work is done (process_events()), or at empty_cache(). */
static void
test_record_stream (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
  g_autoptr(GError) error = NULL;
  gint32 x, y, z, w;
  guint64 base;

  x = must_malloc (a, 4 * MiB, 0);
  base = block (a, x)->address;
  /* Its own stream does not count. */
  g_assert_true (gml_allocator_record_stream (a, x, 0, &error));
  g_assert_true (gml_allocator_record_stream (a, x, 1, &error));
  g_assert_true (gml_allocator_record_stream (a, x, 1, &error));
  g_assert_no_error (error);
  must_free (a, x);
  g_assert_cmpint (block (a, x)->state, ==, GML_BLOCK_PENDING_FREE);
  g_assert_cmpuint (gml_allocator_get_n_waiting (a), ==, 1);
  g_assert_cmpint (stat (a, "allocated_bytes.all.current"), ==, 0);
  g_assert_cmpint (stat (a, "active_bytes.all.current"), ==, 4 * MiB);

  /* Stream 1 still busy: the next 4 MiB comes from the rest of the segment. */
  y = must_malloc (a, 4 * MiB, 0);
  g_assert_cmpuint (block (a, y)->address, ==, base + 4 * MiB);
  g_assert_cmpint (block (a, x)->state, ==, GML_BLOCK_PENDING_FREE);

  /* Done: the next malloc frees x first and takes it (best fit, 4 MiB). */
  gml_allocator_synchronize (a, TRUE, 0);
  g_assert_cmpint (block (a, x)->state, ==, GML_BLOCK_PENDING_FREE);
  z = must_malloc (a, 4 * MiB, 0);
  g_assert_cmpuint (block (a, z)->address, ==, base);
  g_assert_cmpuint (gml_allocator_get_n_waiting (a), ==, 0);

  /* empty_cache() waits for the stream itself (synchronize_and_free_events()). */
  g_assert_true (gml_allocator_record_stream (a, z, 2, &error));
  must_free (a, z);
  must_free (a, y);
  g_assert_cmpint (stat (a, "active_bytes.all.current"), ==, 4 * MiB);
  gml_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, "active_bytes.all.current"), ==, 0);
  g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, 0);
  assert_consistent (a);

  /* Freed in two halves, the caller says when the block is back: no stream
   * holds it, nor a later block in the same slot. */
  w = must_malloc (a, 4 * MiB, 0);
  g_assert_true (gml_allocator_record_stream (a, w, 1, NULL));
  g_assert_true (gml_allocator_free_requested (a, w, NULL));
  g_assert_true (gml_allocator_free_completed (a, w, NULL));
  g_assert_cmpuint (gml_allocator_get_n_waiting (a), ==, 0);
  w = must_malloc (a, 4 * MiB, 0);
  must_free (a, w);
  g_assert_cmpint (block (a, w)->state, ==, GML_BLOCK_FREE);

  /* Only an allocated block can be recorded. */
  w = must_malloc (a, 1000, 0);
  must_free (a, w);
  g_assert_false (gml_allocator_record_stream (a, w, 1, &error));
  g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_INVALID_BLOCK);
}

/* NativeCachingAllocator::allocate(): 1 EiB or more is refused first. */
static void
test_one_exabyte (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
  g_autoptr(GError) error = NULL;
  gint32 id = 0;

  g_assert_false (gml_allocator_malloc (a, G_GUINT64_CONSTANT (1) << 60, 0, NULL,
                                        GML_CATEGORY_NONE, &id, &error));
  g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY);
  g_assert_cmpstr (error->message, ==,
                   "CUDA out of memory. Tried to allocate more than 1EB memory.");
  g_assert_cmpint (id, ==, -1);
  g_assert_cmpint (stat (a, "num_ooms"), ==, 0);
  g_assert_cmpint (stat (a, "num_alloc_retries"), ==, 0);
  g_assert_cmpuint (gml_trace_get_n_events (gml_allocator_get_trace (a)), ==, 0);
  g_clear_error (&error);

  /* One byte less goes to the device like any other request, and fails there. */
  g_assert_false (gml_allocator_malloc (a, (G_GUINT64_CONSTANT (1) << 60) - 1, 0, NULL,
                                        GML_CATEGORY_NONE, &id, &error));
  g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY);
  g_assert_cmpint (stat (a, "num_ooms"), ==, 1);
  g_assert_cmpint (stat (a, "num_alloc_retries"), ==, 1);
}

/* A starting layout PyTorch never writes (a small-pool range inside a
 * large-pool expandable segment's space) once made the engine abort on its own
 * assertion (index_remove()); now the call fails, and every later one too. */
static void
test_inconsistent_state (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) a = new_allocator (device, "expandable_segments:True");
  g_autoptr(GError) error = NULL;
  GmlBlockSpec spec = { 2 * MiB, 0, GML_BLOCK_FREE, 0, GML_CATEGORY_NONE };
  const guint64 base = G_GUINT64_CONSTANT (1) << 40;
  gint32 seg, id = 0;

  gml_allocator_add_expandable (a, base, 100 * MiB, 0, GML_POOL_LARGE);
  seg = gml_allocator_add_segment (a, base + 20 * MiB, 0, GML_POOL_SMALL, &spec, 1);
  g_assert_cmpint (seg, >=, 0);
  gml_allocator_mark_expandable (a, seg);
  g_assert_true (gml_allocator_check (a, NULL));

  g_assert_false (gml_allocator_malloc (a, 10 * MiB, 0, NULL, GML_CATEGORY_NONE, &id, &error));
  g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_INTERNAL);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_false (gml_allocator_check (a, &error));
  g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_INTERNAL);
  g_clear_error (&error);
  g_assert_false (gml_allocator_malloc (a, 512, 0, NULL, GML_CATEGORY_NONE, &id, &error));
  g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_INTERNAL);
  gml_allocator_empty_cache (a);
}

/* The state refuses an event that does not fit it, and stays as it was. */
static void
test_state_refuses (void)
{
  g_autoptr(GmlMemState) state = gml_mem_state_new (NULL);
  GmlTraceEvent seg = { GML_EVENT_SEGMENT_ALLOC, 0, GML_POOL_LARGE, 0, 0, -1, 0, 1 << 30,
                        20 * MiB, 0 };
  GmlTraceEvent ev = { 0 };
  gint32 slot = gml_mem_state_apply (state, &seg);

  g_assert_cmpint (slot, >=, 0);
  ev.kind = GML_EVENT_ALLOC;
  ev.block = slot;
  ev.size = 21 * MiB;   /* more than the block */
  g_assert_cmpint (gml_mem_state_apply (state, &ev), ==, GML_MEM_STATE_REFUSED);
  ev.block = slot + 7;  /* no such block */
  ev.size = 1 * MiB;
  g_assert_cmpint (gml_mem_state_apply (state, &ev), ==, GML_MEM_STATE_REFUSED);
  ev.kind = GML_EVENT_FREE_COMPLETED;
  ev.block = slot;      /* free, not pending */
  g_assert_cmpint (gml_mem_state_apply (state, &ev), ==, GML_MEM_STATE_REFUSED);
  ev.kind = GML_EVENT_SEGMENT_MAP;
  ev.address = (1 << 30) + 10 * MiB;   /* on top of the segment */
  ev.size = 20 * MiB;
  g_assert_cmpint (gml_mem_state_apply (state, &ev), ==, GML_MEM_STATE_REFUSED);
  g_assert_cmpuint (gml_mem_state_get_n_blocks (state), ==, 1);
  g_assert_true (gml_mem_state_check (state, NULL));
}

/* One request on an empty allocator: what it reserves and how it splits. */
static void
test_first_request (void)
{
  static const struct
  {
    guint64 request;
    guint64 allocated;      /* block size handed out */
    guint64 reserved;       /* segment size */
    gint64  small_segments;
    guint64 inactive_split; /* the free remainder, when the segment was split */
  } rows[] = {
    { 1, 512, 2 * MiB, 1, 2 * MiB - 512 },
    { 512, 512, 2 * MiB, 1, 2 * MiB - 512 },
    { 513, 1024, 2 * MiB, 1, 2 * MiB - 1024 },
    { 1 * MiB, 1 * MiB, 2 * MiB, 1, 1 * MiB },
    { 1 * MiB + 1, 1 * MiB + 512, 20 * MiB, 0, 19 * MiB - 512 },
    { 3 * MiB, 3 * MiB, 20 * MiB, 0, 17 * MiB },
    /* Large pool: a remainder of exactly 1 MiB is not split off. */
    { 19 * MiB, 20 * MiB, 20 * MiB, 0, 0 },
    { 19 * MiB - 512, 19 * MiB - 512, 20 * MiB, 0, 1 * MiB + 512 },
    { 10 * MiB - 1, 10 * MiB, 10 * MiB, 0, 0 },
    { 11 * MiB, 12 * MiB, 12 * MiB, 0, 0 },
    { 11 * MiB - 512, 11 * MiB - 512, 12 * MiB, 0, 1 * MiB + 512 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
      g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
      gint32 id;

      g_test_message ("row %u: %" G_GUINT64_FORMAT " bytes", i, rows[i].request);
      id = must_malloc (a, rows[i].request, 0);
      g_assert_cmpuint (block (a, id)->size, ==, rows[i].allocated);
      g_assert_cmpuint (block (a, id)->requested_size, ==, rows[i].request);
      g_assert_cmpint (stat (a, "allocated_bytes.all.current"), ==, rows[i].allocated);
      g_assert_cmpint (stat (a, "requested_bytes.all.current"), ==, rows[i].request);
      g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, rows[i].reserved);
      g_assert_cmpint (stat (a, "segment.all.current"), ==, 1);
      g_assert_cmpint (stat (a, "segment.small_pool.current"), ==, rows[i].small_segments);
      g_assert_cmpint (stat (a, "segment.large_pool.current"), ==, 1 - rows[i].small_segments);
      g_assert_cmpint (stat (a, "inactive_split_bytes.all.current"), ==, rows[i].inactive_split);
      g_assert_cmpint (stat (a, "num_device_alloc"), ==, 1);
      g_assert_cmpuint (device->in_use, ==, rows[i].reserved);
      g_assert_cmpuint (gml_mem_state_get_largest_free_block (gml_allocator_get_state (a)), ==,
                        rows[i].inactive_split);
    }
}

static void
test_oom_message (void)
{
  static const struct
  {
    guint64     capacity;
    guint64     budget;
    guint64     first;      /* a live allocation made before, 0 for none */
    guint64     request;
    const char *head;
  } rows[] = {
    { 16 * MiB, 0, 0, 3 * MiB,
      "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
      "16.00 MiB of which 16.00 MiB is free. Of the allocated memory 0 bytes is allocated "
      "by PyTorch, and 0 bytes is reserved by PyTorch but unallocated." },
    { 8 * GiB, 30 * MiB, 3 * MiB, 18 * MiB,
      "CUDA out of memory. Tried to allocate 18.00 MiB. GPU 0 has a total capacity of "
      "8.00 GiB of which 7.98 GiB is free. 30.00 MiB allowed; Of the allocated memory "
      "3.00 MiB is allocated by PyTorch, and 17.00 MiB is reserved by PyTorch but "
      "unallocated." },
    { 21 * MiB, 0, 1000, 3 * MiB,
      "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
      "21.00 MiB of which 19.00 MiB is free. Of the allocated memory 1024 bytes is allocated "
      "by PyTorch, and 2.00 MiB is reserved by PyTorch but unallocated." },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GmlDevice) device = gml_device_sim_new (rows[i].capacity, 0);
      g_autoptr(GmlAllocator) a = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *expected = g_strconcat (rows[i].head, oom_tail, NULL);
      GmlTrace *trace;
      const GmlTraceEvent *last;
      gint32 id = 0;

      device->budget = rows[i].budget;
      a = gml_allocator_new (device, NULL);
      if (rows[i].first)
        must_malloc (a, rows[i].first, 0);

      g_assert_false (gml_allocator_malloc (a, rows[i].request, 0, "x", GML_CATEGORY_ACTIVATIONS,
                                            &id, &error));
      g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY);
      g_assert_cmpint (id, ==, -1);
      g_assert_cmpstr (error->message, ==, expected);
      g_assert_cmpstr (gml_allocator_get_last_oom_message (a), ==, expected);
      g_assert_cmpint (stat (a, "num_ooms"), ==, 1);
      g_assert_cmpint (stat (a, "num_alloc_retries"), ==, 1);
      assert_consistent (a);

      trace = gml_allocator_get_trace (a);
      last = gml_trace_get_event (trace, gml_trace_get_n_events (trace) - 1);
      g_assert_cmpint (last->kind, ==, GML_EVENT_OOM);
      g_assert_cmpuint (last->requested_size, ==, rows[i].request);
      g_assert_cmpint (last->category, ==, GML_CATEGORY_ACTIVATIONS);
      g_assert_cmpstr (gml_trace_get_label (trace, last->label), ==, "x");
    }
}

/* Labels by id: interning gives one id a name, looking does not add one, and an
 * allocation by id is recorded under that name, as one by name is. */
static void
test_labels_by_id (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
  GmlTrace *trace = gml_allocator_get_trace (a);
  g_autoptr(GError) error = NULL;
  guint32 id = 99, again = 0;
  gint32 block = -1;
  guint n_labels;

  g_assert_false (gml_trace_find_label (trace, "h.0 q", &id));
  g_assert_cmpuint (id, ==, 99);
  g_assert_true (gml_trace_find_label (trace, "", &id));
  g_assert_cmpuint (id, ==, 0);

  id = gml_trace_intern_label (trace, "h.0 q");
  g_assert_cmpuint (id, >, 0);
  n_labels = gml_trace_get_labels (trace)->len;
  g_assert_true (gml_trace_find_label (trace, "h.0 q", &again));
  g_assert_cmpuint (again, ==, id);
  g_assert_false (gml_trace_find_label (trace, "h.0 k", &again));
  g_assert_cmpuint (gml_trace_get_labels (trace)->len, ==, n_labels);

  g_assert_true (gml_allocator_malloc_labelled (a, MiB, 0, id, GML_CATEGORY_TEMPORARY, &block,
                                                &error));
  g_assert_no_error (error);
  g_assert_cmpint (block, >=, 0);
  g_assert_cmpstr (gml_trace_get_label (trace, gml_trace_get_event (trace, 1)->label), ==,
                   "h.0 q");
  g_assert_cmpuint (gml_trace_get_labels (trace)->len, ==, n_labels);

  /* An id the trace never gave is refused. */
  g_test_expect_message ("gml-allocator", G_LOG_LEVEL_CRITICAL, "*label*");
  g_assert_false (gml_allocator_malloc_labelled (a, MiB, 0, n_labels + 5, GML_CATEGORY_TEMPORARY,
                                                 &block, NULL));
  g_test_assert_expected_messages ();
  assert_consistent (a);
}

/* A trace of more events than one chunk of its storage holds (2 MiB, 52,428
 * events): every event reads back as it was appended, across the chunks, and
 * the state rebuilt at any index is the one the allocator had there. */
static void
test_trace_many_events (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
  GmlTrace *trace = gml_allocator_get_trace (a);
  const guint rounds = 40000;
  guint64 allocated_at[3] = { 0 };
  const gsize marks[3] = { 52427, 52429, 120001 };
  gsize n;

  for (guint i = 0; i < rounds; i++)
    {
      gint32 keep = -1, tmp = -1;

      g_assert_true (gml_allocator_malloc (a, (1 + i % 7) * KiB, 0, "keep", GML_CATEGORY_NONE,
                                           &keep, NULL));
      g_assert_true (gml_allocator_malloc (a, 3 * MiB, 0, NULL, GML_CATEGORY_NONE, &tmp, NULL));
      g_assert_true (gml_allocator_free (a, tmp, NULL));
      g_assert_true (gml_allocator_free (a, keep, NULL));
      if (i % 1000 == 0)
        gml_allocator_empty_cache (a);
      n = gml_trace_get_n_events (trace);
      for (guint m = 0; m < G_N_ELEMENTS (marks); m++)
        if (n >= marks[m] && allocated_at[m] == 0)
          {
            g_autoptr(GmlMemState) state = gml_trace_state_at (trace, marks[m]);

            allocated_at[m] = gml_mem_state_get_stats (state)->allocated_bytes[GML_STAT_ALL].current
                              + 1;
          }
    }
  n = gml_trace_get_n_events (trace);
  g_assert_cmpuint (n, >, 3 * 52428);
  for (gsize i = 0; i < n; i++)
    {
      const GmlTraceEvent *ev = gml_trace_get_event (trace, i);

      g_assert_nonnull (ev);
      g_assert_cmpint (ev->kind, <, GML_N_EVENT_KINDS);
      if (ev->kind == GML_EVENT_ALLOC)
        g_assert_true (ev->requested_size == 3 * MiB || ev->requested_size <= 7 * KiB);
    }
  /* Rebuilt long after: the same as seen when the trace was that long. */
  for (guint m = 0; m < G_N_ELEMENTS (marks); m++)
    {
      g_autoptr(GmlMemState) state = gml_trace_state_at (trace, marks[m]);

      g_assert_cmpuint (allocated_at[m], >, 0);
      g_assert_cmpuint (gml_mem_state_get_stats (state)->allocated_bytes[GML_STAT_ALL].current + 1,
                        ==, allocated_at[m]);
    }
  {
    g_autoptr(GmlMemState) state = gml_trace_state_at (trace, n);

    g_assert_cmpuint (gml_mem_state_get_stats (state)->allocated_bytes[GML_STAT_ALL].current, ==,
                      stat (a, "allocated_bytes.all.current"));
    g_assert_cmpuint (gml_mem_state_get_stats (state)->num_alloc_retries, ==,
                      stat (a, "num_alloc_retries"));
  }
  assert_consistent (a);
}

/* A run of @rounds allocations of @size and small ones, and their frees. */
static GmlAllocator *
run_rounds (GmlDevice *device,
            guint      rounds,
            guint64    size)
{
  GmlAllocator *a = gml_allocator_new (device, NULL);

  for (guint i = 0; i < rounds; i++)
    {
      gint32 keep = -1, tmp = -1;

      g_assert_true (gml_allocator_malloc (a, 1 * KiB, 0, "keep", GML_CATEGORY_NONE, &keep, NULL));
      g_assert_true (gml_allocator_malloc (a, size, 0, NULL, GML_CATEGORY_NONE, &tmp, NULL));
      g_assert_true (gml_allocator_free (a, tmp, NULL));
      g_assert_true (gml_allocator_free (a, keep, NULL));
    }
  return a;
}

/* A freed trace's chunks go to the next trace instead of back to the kernel
 * (which would zero them again): the next trace takes them, and reads back only
 * its own events, none of the earlier trace's. */
static void
test_trace_chunks_reused (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  GmlAllocator *first = run_rounds (device, 40000, 3 * MiB);
  g_autoptr(GmlAllocator) second = NULL;
  gsize n_first = gml_trace_get_n_events (gml_allocator_get_trace (first));
  guint spare_before = _gml_trace_n_spare_chunks ();
  guint spare_after;
  GmlTrace *trace;
  gsize n;

  g_assert_cmpuint (n_first, >, 3 * 52428);
  gml_allocator_destroy (first);
  spare_after = _gml_trace_n_spare_chunks ();
  /* The first chunk is an ordinary array; the three or more after it are kept. */
  g_assert_cmpuint (spare_after, >=, MIN (spare_before + 3, 40));

  second = run_rounds (device, 30000, 5 * MiB);
  trace = gml_allocator_get_trace (second);
  n = gml_trace_get_n_events (trace);
  g_assert_cmpuint (n, >, 2 * 52428);
  g_assert_cmpuint (_gml_trace_n_spare_chunks (), <, spare_after);
  for (gsize i = 0; i < n; i++)
    {
      const GmlTraceEvent *ev = gml_trace_get_event (trace, i);

      g_assert_cmpint (ev->kind, <, GML_N_EVENT_KINDS);
      if (ev->kind == GML_EVENT_ALLOC)
        g_assert_true (ev->requested_size == 5 * MiB || ev->requested_size == 1 * KiB);
    }
  {
    g_autoptr(GmlMemState) state = gml_trace_state_at (trace, n);

    g_assert_cmpuint (gml_mem_state_get_stats (state)->allocated_bytes[GML_STAT_ALL].current, ==,
                      stat (second, "allocated_bytes.all.current"));
  }
  assert_consistent (second);
}

/* Best fit: the smallest free block on the stream, the lowest address on ties. */
static void
test_best_fit (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
  gint32 A, B, C, D, E, F;
  guint64 base;

  A = must_malloc (a, 256 * KiB, 0);
  B = must_malloc (a, 128 * KiB, 0);
  C = must_malloc (a, 256 * KiB, 0);
  D = must_malloc (a, 128 * KiB, 0);
  base = block (a, A)->address;
  g_assert_cmpuint (block (a, D)->address, ==, base + 640 * KiB);
  g_assert_cmpint (stat (a, "segment.all.current"), ==, 1);

  must_free (a, A);
  must_free (a, C);
  /* Free now: A (256 KiB), C (256 KiB), the 1280 KiB tail. */
  E = must_malloc (a, 256 * KiB, 0);
  g_assert_cmpuint (block (a, E)->address, ==, base);
  F = must_malloc (a, 200 * KiB, 0);
  g_assert_cmpuint (block (a, F)->address, ==, base + 384 * KiB);
  g_assert_cmpuint (block (a, F)->size, ==, 200 * KiB);
  g_assert_cmpint (stat (a, "segment.all.current"), ==, 1);
  g_assert_cmpint (stat (a, "inactive_split_bytes.all.current"), ==, 56 * KiB + 1280 * KiB);
  (void) B;
}

static void
test_streams (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
  gint32 x, y;

  x = must_malloc (a, 1 * MiB, 0);
  must_free (a, x);
  y = must_malloc (a, 1 * MiB, 1);
  g_assert_cmpint (stat (a, "num_device_alloc"), ==, 2);
  g_assert_cmpuint (block (a, y)->stream, ==, 1);
  x = must_malloc (a, 1 * MiB, 0);
  g_assert_cmpint (stat (a, "num_device_alloc"), ==, 2);
}

/* Freeing merges with free neighbours on both sides. */
static void
test_merge (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
  const GmlMemState *state = gml_allocator_get_state (a);
  gint32 x, y, z;

  x = must_malloc (a, 4 * MiB, 0);
  y = must_malloc (a, 4 * MiB, 0);
  z = must_malloc (a, 4 * MiB, 0);
  g_assert_cmpuint (gml_mem_state_get_n_blocks (state), ==, 4);
  g_assert_cmpint (stat (a, "inactive_split.all.current"), ==, 1);

  must_free (a, x);
  g_assert_cmpint (stat (a, "inactive_split.all.current"), ==, 2);
  must_free (a, z);   /* merges with the tail */
  g_assert_cmpuint (gml_mem_state_get_n_blocks (state), ==, 3);
  g_assert_cmpint (stat (a, "inactive_split.all.current"), ==, 2);
  g_assert_cmpint (stat (a, "inactive_split_bytes.all.current"), ==, 16 * MiB);
  g_assert_cmpfloat_with_epsilon (gml_mem_state_get_fragmentation (state), 0.25, 1e-9);

  must_free (a, y);   /* merges with both: one whole free segment */
  g_assert_cmpuint (gml_mem_state_get_n_blocks (state), ==, 1);
  g_assert_cmpint (stat (a, "inactive_split.all.current"), ==, 0);
  g_assert_cmpint (stat (a, "inactive_split_bytes.all.current"), ==, 0);
  g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, 20 * MiB);
  g_assert_cmpint (stat (a, "allocated_bytes.all.peak"), ==, 12 * MiB);
  g_assert_cmpfloat (gml_mem_state_get_fragmentation (state), ==, 0.0);
}

static void
test_empty_cache (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
  gint32 ids[6];
  guint64 sizes[6] = { 100, 3 * MiB, 1 * MiB, 50 * MiB, 700 * KiB, 12 * MiB };

  for (guint i = 0; i < 6; i++)
    ids[i] = must_malloc (a, sizes[i], 0);
  for (guint i = 0; i < 6; i++)
    must_free (a, ids[i]);

  g_assert_cmpint (stat (a, "reserved_bytes.all.current"), >, 0);
  gml_allocator_empty_cache (a);
  assert_consistent (a);
  g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, 0);
  g_assert_cmpint (stat (a, "segment.all.current"), ==, 0);
  g_assert_cmpint (stat (a, "num_device_free"), ==, stat (a, "num_device_alloc"));
  g_assert_cmpuint (device->in_use, ==, 0);
  g_assert_cmpuint (device->n_live, ==, 0);
}

static void
test_empty_cache_keeps_split_segment (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
  gint32 x, y;

  x = must_malloc (a, 3 * MiB, 0);
  y = must_malloc (a, 2 * MiB, 0);
  must_free (a, x);
  gml_allocator_empty_cache (a);
  assert_consistent (a);

  g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, 20 * MiB);
  g_assert_cmpint (stat (a, "allocated_bytes.all.current"), ==, 2 * MiB);
  g_assert_cmpint (stat (a, "inactive_split_bytes.all.current"), ==, 18 * MiB);
  g_assert_cmpint (stat (a, "num_device_free"), ==, 0);
  g_assert_cmpuint (block (a, y)->state, ==, GML_BLOCK_ALLOCATED);

  must_free (a, y);
  gml_allocator_empty_cache (a);
  g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, 0);
}

/* max_split_size_mb: small requests stay out of big blocks; big requests
 * take a block less than 20 MiB larger, whole. */
static void
test_max_split (void)
{
  static const struct
  {
    const char *conf;
    guint64     request;
    guint64     reserved;    /* after the request, with the 100 MiB block cached */
    guint64     allocated;
  } rows[] = {
    { NULL, 3 * MiB, 100 * MiB, 3 * MiB },
    { "max_split_size_mb:64", 3 * MiB, 120 * MiB, 3 * MiB },
    { NULL, 70 * MiB, 100 * MiB, 70 * MiB },
    { "max_split_size_mb:64", 70 * MiB, 170 * MiB, 70 * MiB },
    { "max_split_size_mb:64", 90 * MiB, 100 * MiB, 100 * MiB },
    { "max_split_size_mb:64", 81 * MiB, 100 * MiB, 100 * MiB },
    { "max_split_size_mb:64", 80 * MiB, 180 * MiB, 80 * MiB },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GmlAllocConf conf = conf_from (rows[i].conf);
      g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
      g_autoptr(GmlAllocator) a = gml_allocator_new (device, &conf);
      gint32 big;

      g_test_message ("row %u", i);
      big = must_malloc (a, 100 * MiB, 0);
      must_free (a, big);
      must_malloc (a, rows[i].request, 0);
      g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, rows[i].reserved);
      g_assert_cmpint (stat (a, "allocated_bytes.all.current"), ==, rows[i].allocated);
    }
}

/* The retry sequence when the device is full. */
static void
test_retry (void)
{
  /* No max_split: free whole cached segments, retry (counted). */
  {
    g_autoptr(GmlDevice) device = gml_device_sim_new (40 * MiB, 0);
    g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);

    must_free (a, must_malloc (a, 3 * MiB, 0));
    must_malloc (a, 30 * MiB, 0);
    g_assert_cmpint (stat (a, "num_alloc_retries"), ==, 1);
    g_assert_cmpint (stat (a, "num_device_free"), ==, 1);
    g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, 30 * MiB);
    g_assert_cmpint (stat (a, "reserved_bytes.all.peak"), ==, 30 * MiB);
    g_assert_cmpint (stat (a, "num_ooms"), ==, 0);
  }

  /* With max_split: the oversize cached block goes first, without a retry. */
  {
    GmlAllocConf conf = conf_from ("max_split_size_mb:32");
    g_autoptr(GmlDevice) device = gml_device_sim_new (80 * MiB, 0);
    g_autoptr(GmlAllocator) a = gml_allocator_new (device, &conf);

    must_free (a, must_malloc (a, 60 * MiB, 0));
    must_malloc (a, 30 * MiB, 0);
    g_assert_cmpint (stat (a, "num_alloc_retries"), ==, 0);
    g_assert_cmpint (stat (a, "num_device_free"), ==, 1);
    g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, 30 * MiB);
  }

  /* A live block keeps its segment: out of memory after the retry. */
  {
    g_autoptr(GmlDevice) device = gml_device_sim_new (40 * MiB, 0);
    g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
    g_autoptr(GError) error = NULL;

    must_malloc (a, 3 * MiB, 0);
    g_assert_false (gml_allocator_malloc (a, 30 * MiB, 0, NULL, 0, NULL, &error));
    g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY);
    g_assert_cmpint (stat (a, "num_alloc_retries"), ==, 1);
    g_assert_cmpint (stat (a, "num_ooms"), ==, 1);
    g_assert_cmpint (stat (a, "reserved_bytes.all.current"), ==, 20 * MiB);
  }
}

static void
test_invalid_free (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
  g_autoptr(GError) error = NULL;
  gint32 x = must_malloc (a, 1000, 0);

  must_free (a, x);
  g_assert_false (gml_allocator_free (a, x, &error));
  g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_INVALID_BLOCK);
  g_clear_error (&error);
  g_assert_false (gml_allocator_free (a, 12345, &error));
  g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_INVALID_BLOCK);
  g_clear_error (&error);
  g_assert_false (gml_allocator_free (a, -1, &error));
  g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_INVALID_BLOCK);

  /* Zero bytes: nothing allocated, as in PyTorch. */
  g_assert_true (gml_allocator_malloc (a, 0, 0, NULL, 0, &x, NULL));
  g_assert_cmpint (x, ==, -1);
}

static void
test_sim_device (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (10 * MiB, 2 * MiB);
  g_autoptr(GError) error = NULL;
  guint64 a1, a2, a3, free_bytes, total;

  g_assert_cmpstr (gml_device_get_id (device), ==, "sim");
  g_assert_true (gml_device_alloc (device, 1, &a1, &error));
  g_assert_cmphex (a1, ==, G_GUINT64_CONSTANT (0x7f0000000000));
  g_assert_true (gml_device_alloc (device, 2 * MiB + 1, &a2, &error));
  g_assert_cmphex (a2, ==, a1 + 2 * MiB);
  g_assert_cmpuint (device->in_use, ==, 6 * MiB);
  g_assert_true (gml_device_mem_get_info (device, &free_bytes, &total, &error));
  g_assert_cmpuint (total, ==, 10 * MiB);
  g_assert_cmpuint (free_bytes, ==, 2 * MiB);

  g_assert_false (gml_device_alloc (device, 2 * MiB + 1, &a3, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);

  /* First fit reuses the freed hole. */
  g_assert_true (gml_device_free (device, a1, &error));
  g_assert_true (gml_device_alloc (device, 2 * MiB, &a3, &error));
  g_assert_cmphex (a3, ==, a1);
  g_assert_false (gml_device_free (device, a1 + 512, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (gml_device_alloc (device, 0, &a3, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INVALID);
  g_assert_cmpuint (device->n_live, ==, 2);
}

static void
test_backend_kind (void)
{
  GmlBackendKind kind;

  g_assert_true (gml_backend_kind_from_string ("sim", &kind));
  g_assert_cmpint (kind, ==, GML_BACKEND_SIM);
  g_assert_true (gml_backend_kind_from_string ("cuda", &kind));
  g_assert_cmpint (kind, ==, GML_BACKEND_CUDA);
  g_assert_true (gml_backend_kind_from_string ("auto", &kind));
  g_assert_cmpint (kind, ==, GML_BACKEND_AUTO);
  g_assert_false (gml_backend_kind_from_string ("SIM", &kind));
  g_assert_false (gml_backend_kind_from_string ("", &kind));
}

/* The pictures' view: segments and blocks in address order, with labels. */
typedef struct
{
  guint   n_segments;
  guint   n_blocks;
  guint64 last_address;
  guint   labelled;
} Walk;

static void
walk_block_cb (const GmlSegmentInfo *segment,
               const GmlBlockInfo   *info,
               gpointer              user_data)
{
  Walk *walk = user_data;

  g_assert_cmpuint (info->address, >=, walk->last_address);
  walk->last_address = info->address + info->size;
  walk->n_blocks++;
  if (info->label)
    {
      g_assert_cmpstr (info->label, ==, "layer1.weight");
      g_assert_cmpint (info->category, ==, GML_CATEGORY_WEIGHTS);
      walk->labelled++;
    }
}

static void
walk_segment_cb (const GmlSegmentInfo *segment,
                 gpointer              user_data)
{
  ((Walk *) user_data)->n_segments++;
}

static void
test_foreach (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) a = gml_allocator_new (device, NULL);
  Walk walk = { 0 };
  gint32 id;

  g_assert_true (gml_allocator_malloc (a, 3 * MiB, 0, "layer1.weight", GML_CATEGORY_WEIGHTS,
                                       &id, NULL));
  must_malloc (a, 1000, 0);
  must_malloc (a, 50 * MiB, 1);

  gml_mem_state_foreach_segment (gml_allocator_get_state (a), walk_segment_cb, &walk);
  gml_mem_state_foreach_block (gml_allocator_get_state (a), walk_block_cb, &walk);
  g_assert_cmpuint (walk.n_segments, ==, 3);
  g_assert_cmpuint (walk.n_blocks, ==, 5);
  g_assert_cmpuint (walk.labelled, ==, 1);
}

/* The simulated device's address model: first fit in one address space, so a
 * freed range is handed out again, lowest address first, as real CUDA does in
 * the snapshots seen (most segments after a segment_free reuse a freed start
 * address). PyTorch breaks ties between equal free blocks by address, so the
 * pictures depend on this. */
static void
test_sim_device_reuses_freed_ranges (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (256 * MiB, 0);
  guint64 a, b, c, d;

  g_assert_true (gml_device_alloc (device, 20 * MiB, &a, NULL));
  g_assert_true (gml_device_alloc (device, 20 * MiB, &b, NULL));
  g_assert_cmpuint (b, ==, a + 20 * MiB);
  g_assert_true (gml_device_free (device, a, NULL));
  /* A smaller request takes the freed range's start … */
  g_assert_true (gml_device_alloc (device, 2 * MiB, &c, NULL));
  g_assert_cmpuint (c, ==, a);
  /* … and a request that no longer fits the rest of the gap goes above b. */
  g_assert_true (gml_device_alloc (device, 20 * MiB, &d, NULL));
  g_assert_cmpuint (d, ==, b + 20 * MiB);
}

/* Starting from a known layout (a PyTorch snapshot): the free blocks are in
 * the pools and the live ones can be freed. */
static void
test_add_segment (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (256 * MiB, 0);
  g_autoptr(GmlAllocator) allocator = gml_allocator_new (device, NULL);
  GmlBlockSpec blocks[] = {
    { 4 * MiB, 4 * MiB - 100, GML_BLOCK_ALLOCATED, 0, GML_CATEGORY_NONE },
    { 4 * MiB, 0, GML_BLOCK_FREE, 0, GML_CATEGORY_NONE },
    { 12 * MiB, 12 * MiB, GML_BLOCK_ALLOCATED, 0, GML_CATEGORY_NONE },
  };
  const guint64 base = G_GUINT64_CONSTANT (0x7f5000000000);
  const GmlStats *st;
  gint32 id = -1;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (gml_allocator_add_segment (allocator, base, 0, GML_POOL_LARGE, blocks, 3), >=,
                   0);
  st = gml_allocator_get_stats (allocator);
  g_assert_cmpint (st->reserved_bytes[GML_STAT_ALL].current, ==, 20 * MiB);
  g_assert_cmpint (st->allocated_bytes[GML_STAT_ALL].current, ==, 16 * MiB);
  g_assert_cmpint (st->inactive_split_bytes[GML_STAT_ALL].current, ==, 4 * MiB);
  g_assert_true (gml_mem_state_check (gml_allocator_get_state (allocator), NULL));
  /* The cached 4 MiB hole serves a 3 MiB request without a new segment. */
  g_assert_true (gml_allocator_would_reuse (allocator, 3 * MiB, 0));
  g_assert_false (gml_allocator_would_reuse (allocator, 3 * MiB, 1));
  g_assert_true (gml_allocator_malloc (allocator, 3 * MiB, 0, NULL, GML_CATEGORY_NONE, &id,
                                       &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gml_mem_state_get_block (gml_allocator_get_state (allocator), id)->address, ==,
                    base + 4 * MiB);
  g_assert_cmpint (st->segment[GML_STAT_ALL].current, ==, 1);
  /* Freed in two halves: pending, then back in the pool and merged. */
  g_assert_true (gml_allocator_free_requested (allocator, id, &error));
  g_assert_cmpint (st->allocated_bytes[GML_STAT_ALL].current, ==, 16 * MiB);
  g_assert_cmpint (st->active_bytes[GML_STAT_ALL].current, ==, 20 * MiB);
  g_assert_false (gml_allocator_would_reuse (allocator, 3 * MiB, 0));
  g_assert_true (gml_allocator_free_completed (allocator, id, &error));
  g_assert_true (gml_allocator_would_reuse (allocator, 3 * MiB, 0));
  g_assert_false (gml_allocator_free_completed (allocator, id, NULL));
  g_assert_true (gml_mem_state_check (gml_allocator_get_state (allocator), NULL));
}

/* Expandable segments, worked from CUDACachingAllocator.cpp on a 1 GiB GPU:
 * the large pool's segment reserves address space for 1 GiB and an eighth,
 * in 20 MiB pages (58 of them), and maps them as requests need. */
static void
test_expandable_segments (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (1024 * MiB, 0);
  g_autoptr(GmlAllocator) allocator = NULL;
  g_autoptr(GError) error = NULL;
  GmlAllocConf conf;
  const GmlStats *st;
  const GmlMemState *state;
  gint32 a = -1, b = -1;
  guint64 base;

  gml_alloc_conf_init (&conf);
  g_assert_true (gml_alloc_conf_parse (&conf, "expandable_segments:True", &error));
  allocator = gml_allocator_new (device, &conf);
  g_assert_true (gml_allocator_uses_expandable_segments (allocator));
  st = gml_allocator_get_stats (allocator);
  state = gml_allocator_get_state (allocator);

  /* 3 MiB: one 20 MiB page is mapped (not a 20 MiB cudaMalloc segment), and
   * the 17 MiB left is split off, since any remainder of 512 bytes is. */
  g_assert_true (gml_allocator_malloc (allocator, 3 * MiB, 0, NULL, GML_CATEGORY_NONE, &a, &error));
  base = gml_mem_state_get_block (state, a)->address;
  g_assert_cmpint (st->reserved_bytes[GML_STAT_ALL].current, ==, 20 * MiB);
  g_assert_cmpint (st->allocated_bytes[GML_STAT_ALL].current, ==, 3 * MiB);
  g_assert_cmpint (st->segment[GML_STAT_ALL].current, ==, 0);
  g_assert_cmpint (st->inactive_split_bytes[GML_STAT_ALL].current, ==, 0);
  g_assert_cmpuint (st->num_device_alloc, ==, 1);
  g_assert_cmpuint (gml_mem_state_get_largest_free_block (state), ==, 17 * MiB);

  /* 30 MiB: the free 17 MiB at the end can grow, so the next page is mapped
   * behind it and the block is carved from the merged 37 MiB. */
  g_assert_true (gml_allocator_malloc (allocator, 30 * MiB, 0, NULL, GML_CATEGORY_NONE, &b,
                                       &error));
  g_assert_cmpuint (gml_mem_state_get_block (state, b)->address, ==, base + 3 * MiB);
  g_assert_cmpint (st->reserved_bytes[GML_STAT_ALL].current, ==, 40 * MiB);
  g_assert_cmpint (st->allocated_bytes[GML_STAT_ALL].current, ==, 33 * MiB);
  g_assert_cmpuint (st->num_device_alloc, ==, 2);
  g_assert_cmpuint (gml_mem_state_get_n_segments (state), ==, 1);   /* one mapped range */
  g_assert_cmpuint (gml_mem_state_get_largest_free_block (state), ==, 7 * MiB);
  g_assert_cmpuint (device->in_use, ==, 40 * MiB);
  g_assert_true (gml_mem_state_check (state, &error));
  g_assert_no_error (error);

  /* Freed and emptied: every page is unmapped, the address space given back. */
  g_assert_true (gml_allocator_free (allocator, a, &error));
  g_assert_true (gml_allocator_free (allocator, b, &error));
  g_assert_cmpint (st->reserved_bytes[GML_STAT_ALL].current, ==, 40 * MiB);
  gml_allocator_empty_cache (allocator);
  g_assert_cmpint (st->reserved_bytes[GML_STAT_ALL].current, ==, 0);
  g_assert_cmpuint (st->num_device_free, ==, 1);
  g_assert_cmpuint (gml_mem_state_get_n_segments (state), ==, 0);
  g_assert_cmpuint (device->in_use, ==, 0);
  g_assert_true (gml_mem_state_check (state, &error));
}

/* What they change (the batch that grows, from "Note [Expandable Segments]"):
 * on a 60 MiB GPU a 40 MiB tensor is freed, then two of 22 MiB come. The
 * first is cut from the cached 40 MiB; the second finds 18 MiB left there and
 * 20 MiB on the GPU, 38 MiB in all but in two places: out of memory. An
 * expandable segment maps the 20 MiB right behind the 18 MiB, and it fits. */
static void
test_expandable_segments_fragmentation (void)
{
  for (guint expandable = 0; expandable < 2; expandable++)
    {
      g_autoptr(GmlDevice) device = gml_device_sim_new (60 * MiB, 0);
      g_autoptr(GmlAllocator) allocator = NULL;
      g_autoptr(GError) error = NULL;
      GmlAllocConf conf;
      gint32 first = -1, x = -1, y = -1;
      gboolean ok;

      gml_alloc_conf_init (&conf);
      conf.expandable_segments = expandable;
      allocator = gml_allocator_new (device, &conf);
      g_assert_true (gml_allocator_malloc (allocator, 40 * MiB, 0, NULL, GML_CATEGORY_NONE, &first,
                                           NULL));
      g_assert_true (gml_allocator_free (allocator, first, NULL));
      g_assert_true (gml_allocator_malloc (allocator, 22 * MiB, 0, NULL, GML_CATEGORY_NONE, &x,
                                           NULL));
      ok = gml_allocator_malloc (allocator, 22 * MiB, 0, NULL, GML_CATEGORY_NONE, &y, &error);
      g_test_message ("expandable %u: %s", expandable, ok ? "fits" : error->message);
      if (expandable)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
          g_assert_cmpint (gml_allocator_get_stats (allocator)->reserved_bytes[GML_STAT_ALL].current, ==,
                           60 * MiB);
        }
      else
        g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY);
      g_assert_true (gml_mem_state_check (gml_allocator_get_state (allocator), NULL));
    }
}

int
main (int   argc,
      char *argv[])
{
  const char *missing_locale = gml_test_set_locale (&argc, &argv);

  g_test_init (&argc, &argv, NULL);
  gml_test_report_locale (missing_locale);

  g_test_add_func ("/engine/size/round", test_round_size);
  g_test_add_func ("/engine/size/allocation-size", test_allocation_size);
  g_test_add_func ("/engine/size/format", test_format_size);
  g_test_add_func ("/engine/conf/parse", test_conf_parse);
  g_test_add_func ("/engine/allocator/first-request", test_first_request);
  g_test_add_func ("/engine/allocator/oom-message", test_oom_message);
  g_test_add_func ("/engine/allocator/best-fit", test_best_fit);
  g_test_add_func ("/engine/allocator/streams", test_streams);
  g_test_add_func ("/engine/allocator/merge", test_merge);
  g_test_add_func ("/engine/allocator/empty-cache", test_empty_cache);
  g_test_add_func ("/engine/allocator/empty-cache-keeps-split",
                   test_empty_cache_keeps_split_segment);
  g_test_add_func ("/engine/allocator/max-split", test_max_split);
  g_test_add_func ("/engine/allocator/retry", test_retry);
  g_test_add_func ("/engine/allocator/max-non-split-rounding", test_max_non_split_rounding);
  g_test_add_func ("/engine/allocator/memory-fraction", test_memory_fraction);
  g_test_add_func ("/engine/allocator/garbage-collection", test_garbage_collection);
  g_test_add_func ("/engine/allocator/record-stream", test_record_stream);
  g_test_add_func ("/engine/allocator/one-exabyte", test_one_exabyte);
  g_test_add_func ("/engine/allocator/inconsistent-state", test_inconsistent_state);
  g_test_add_func ("/engine/state/refuses", test_state_refuses);
  g_test_add_func ("/engine/allocator/invalid-free", test_invalid_free);
  g_test_add_func ("/engine/allocator/foreach", test_foreach);
  g_test_add_func ("/engine/device/sim", test_sim_device);
  g_test_add_func ("/engine/device/sim-reuses-freed-ranges", test_sim_device_reuses_freed_ranges);
  g_test_add_func ("/engine/allocator/add-segment", test_add_segment);
  g_test_add_func ("/engine/allocator/expandable-segments", test_expandable_segments);
  g_test_add_func ("/engine/allocator/expandable-segments-fragmentation",
                   test_expandable_segments_fragmentation);
  g_test_add_func ("/engine/device/backend-kind", test_backend_kind);
  g_test_add_func ("/engine/allocator/labels-by-id", test_labels_by_id);
  g_test_add_func ("/engine/trace/many-events", test_trace_many_events);
  g_test_add_func ("/engine/trace/chunks-reused", test_trace_chunks_reused);

  return g_test_run ();
}

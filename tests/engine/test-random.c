/* test-random.c — thousands of random alloc/free/empty_cache sequences with
 * fixed seeds, checked against the allocator's invariants, and the trace's
 * rebuilt states checked against the states the allocator really passed through.
 * A twin allocator that keeps no trace (as `replay` runs it) gets the same
 * requests and must answer and end exactly the same.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "gml-test-locale.h"
#include <string.h>

#include "gml-allocator.h"
#include "gml-device.h"
#include "gml-trace.h"

#define MiB G_GUINT64_CONSTANT (1048576)

/* Totals over all sequences, to show the rare paths were taken. */
static guint64 total_ooms, total_retries, total_device_free, total_events;

typedef struct
{
  gsize        n_events;
  GmlMemState *state;
} Saved;

static void
saved_clear (gpointer data)
{
  gml_mem_state_free (((Saved *) data)->state);
}

static guint64
random_size (GRand   *rand,
             guint64  capacity)
{
  int kind = g_rand_int_range (rand, 0, 100);

  if (kind < 50)
    return g_rand_int_range (rand, 1, 1048577);                     /* small pool */
  if (kind < 85)
    return g_rand_int_range (rand, 1048577, 10 * 1048576);          /* 20 MiB segments */
  if (kind < 88)
    return g_rand_int_range (rand, 0, 4) * 512 + 1048576;           /* boundaries */
  return (guint64) g_rand_double_range (rand, 10.0 * MiB, capacity / 2.0);
}

static void
run_sequence (guint32 seed,
              guint   n_ops)
{
  static const char * const confs[] = {
    NULL,
    "max_split_size_mb:32",
    "roundup_power2_divisions:4",
    "max_split_size_mb:48,roundup_power2_divisions:[1:2,4:4,>:8]",
    "expandable_segments:True",
    "expandable_segments:True,roundup_power2_divisions:4",
  };
  static const guint64 capacities[] = { 32 * MiB, 64 * MiB, 256 * MiB, 1024 * MiB };
  static const char * const labels[] = { NULL, "w", "act", "grad" };
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr(GmlDevice) device = NULL;
  g_autoptr(GmlAllocator) a = NULL;
  g_autoptr(GmlDevice) twin_device = NULL;
  g_autoptr(GmlAllocator) twin = NULL;
  g_autoptr(GArray) live = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr(GArray) saved = g_array_new (FALSE, FALSE, sizeof (Saved));
  g_autoptr(GmlMemState) naive = NULL;
  g_autoptr(GmlMemState) rebuilt = NULL;
  g_autoptr(GError) error = NULL;
  GmlAllocConf conf;
  guint64 capacity, reserve, budget = 0, ooms = 0;
  const GmlMemState *state;
  GmlTrace *trace;
  guint n_streams;

  g_array_set_clear_func (saved, saved_clear);

  gml_alloc_conf_init (&conf);
  if (confs[seed % G_N_ELEMENTS (confs)])
    {
      gml_alloc_conf_parse (&conf, confs[seed % G_N_ELEMENTS (confs)], &error);
      g_assert_no_error (error);
    }
  capacity = capacities[g_rand_int_range (rand, 0, G_N_ELEMENTS (capacities))];
  reserve = g_rand_boolean (rand) ? 0 : 4 * MiB;
  device = gml_device_sim_new (capacity, reserve);
  twin_device = gml_device_sim_new (capacity, reserve);
  if (g_rand_int_range (rand, 0, 4) == 0)
    device->budget = twin_device->budget = budget = capacity * 3 / 4;
  n_streams = g_rand_int_range (rand, 1, 4);
  a = gml_allocator_new (device, &conf);
  twin = gml_allocator_new (twin_device, &conf);
  gml_allocator_set_keep_trace (twin, FALSE);
  state = gml_allocator_get_state (a);
  trace = gml_allocator_get_trace (a);

  for (guint i = 0; i < n_ops; i++)
    {
      int op = g_rand_int_range (rand, 0, 100);
      const GmlStats *stats;

      if (op < 55 || live->len == 0)
        {
          guint64 size = random_size (rand, capacity);
          guint32 stream = g_rand_int_range (rand, 0, n_streams);
          guint li = g_rand_int_range (rand, 0, G_N_ELEMENTS (labels));
          gint32 id = -1, twin_id = -1;
          gboolean twin_ok = gml_allocator_malloc (twin, size, stream, labels[li], li,
                                                   &twin_id, NULL);

          if (gml_allocator_malloc (a, size, stream, labels[li], li, &id, &error))
            {
              g_assert_cmpint (id, >=, 0);
              g_assert_true (twin_ok);
              g_assert_cmpint (twin_id, ==, id);
              g_array_append_val (live, id);
            }
          else
            {
              g_assert_false (twin_ok);
              g_assert_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY);
              g_assert_true (g_str_has_prefix (error->message,
                                               "CUDA out of memory. Tried to allocate "));
              g_clear_error (&error);
              ooms++;
            }
        }
      else if (op < 97)
        {
          guint k = g_rand_int_range (rand, 0, live->len);

          gml_allocator_free (a, g_array_index (live, gint32, k), &error);
          g_assert_no_error (error);
          gml_allocator_free (twin, g_array_index (live, gint32, k), &error);
          g_assert_no_error (error);
          g_array_remove_index_fast (live, k);
        }
      else
        {
          gml_allocator_empty_cache (a);
          gml_allocator_empty_cache (twin);
        }

      gml_mem_state_check (state, &error);
      g_assert_no_error (error);

      stats = gml_allocator_get_stats (a);
      g_assert_cmpint (stats->allocated_bytes[GML_STAT_ALL].current, <=,
                       stats->active_bytes[GML_STAT_ALL].current);
      g_assert_cmpint (stats->active_bytes[GML_STAT_ALL].current, <=,
                       stats->reserved_bytes[GML_STAT_ALL].current);
      g_assert_cmpint (stats->reserved_bytes[GML_STAT_ALL].current, <=, capacity);
      g_assert_cmpint (stats->reserved_bytes[GML_STAT_ALL].current, ==, device->in_use);
      g_assert_cmpint (stats->segment[GML_STAT_ALL].current, ==, device->n_live);
      /* alloc_block() checks the limit against alloc_size before it maps
       * pages: with expandable segments PyTorch itself may pass it by less
       * than one 20 MiB page. */
      if (budget)
        g_assert_cmpint (stats->reserved_bytes[GML_STAT_ALL].current, <=,
                         budget + (conf.expandable_segments ? GML_LARGE_BUFFER : 0));
      g_assert_cmpint (stats->allocation[GML_STAT_ALL].current, ==, live->len);
      g_assert_cmpuint (stats->num_ooms, ==, ooms);
      g_assert_cmpuint (gml_mem_state_get_largest_free_block (state), <=,
                        stats->reserved_bytes[GML_STAT_ALL].current -
                        stats->active_bytes[GML_STAT_ALL].current);

      if (g_rand_int_range (rand, 0, 40) == 0)
        {
          Saved s = { gml_trace_get_n_events (trace), gml_mem_state_copy (state) };
          g_array_append_val (saved, s);
        }
    }

  /* The state rebuilt at each saved index is the one the allocator had. */
  rebuilt = gml_mem_state_new (gml_trace_get_labels (trace));
  for (guint k = 0; k < saved->len; k++)
    {
      Saved *s = &g_array_index (saved, Saved, k);

      gml_trace_state_at_into (trace, s->n_events, rebuilt);
      g_assert_true (gml_mem_state_equal (rebuilt, s->state));
    }
  gml_trace_state_at_into (trace, gml_trace_get_n_events (trace), rebuilt);
  g_assert_true (gml_mem_state_equal (rebuilt, state));

  /* Replaying every event from the start agrees with the snapshots at
   * random indices, and each intermediate state is consistent. */
  naive = gml_mem_state_new (gml_trace_get_labels (trace));
  for (gsize i = 0; i < gml_trace_get_n_events (trace); i++)
    {
      if (g_rand_int_range (rand, 0, 64) == 0)
        {
          gml_trace_state_at_into (trace, i, rebuilt);
          g_assert_true (gml_mem_state_equal (rebuilt, naive));
          gml_mem_state_check (naive, &error);
          g_assert_no_error (error);
        }
      gml_mem_state_apply (naive, gml_trace_get_event (trace, i));
    }
  g_assert_true (gml_mem_state_equal (naive, state));

  /* Without a trace, the same end: state, statistics, last message. */
  g_assert_true (gml_mem_state_equal (gml_allocator_get_state (twin), state));
  g_assert_cmpstr (gml_allocator_get_last_oom_message (twin), ==,
                   gml_allocator_get_last_oom_message (a));
  g_assert_cmpuint (gml_trace_get_n_events (gml_allocator_get_trace (twin)), ==, 0);
  g_assert_cmpuint (gml_trace_get_n_events (trace), >, 0);

  total_ooms += gml_allocator_get_stats (a)->num_ooms;
  total_retries += gml_allocator_get_stats (a)->num_alloc_retries;
  total_device_free += gml_allocator_get_stats (a)->num_device_free;
  total_events += gml_trace_get_n_events (trace);

  /* Everything freed and emptied: nothing is left on the device. */
  for (guint k = 0; k < live->len; k++)
    {
      gml_allocator_free (a, g_array_index (live, gint32, k), &error);
      g_assert_no_error (error);
    }
  gml_allocator_empty_cache (a);
  g_assert_cmpint (gml_allocator_get_stats (a)->reserved_bytes[GML_STAT_ALL].current, ==, 0);
  g_assert_cmpuint (device->in_use, ==, 0);
}

static void
test_short_sequences (void)
{
  for (guint32 seed = 1; seed <= 3000; seed++)
    run_sequence (seed, 200);

  g_test_message ("%" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT " OOMs, %" G_GUINT64_FORMAT
                  " retries, %" G_GUINT64_FORMAT " segments freed",
                  total_events, total_ooms, total_retries, total_device_free);
  g_assert_cmpuint (total_ooms, >, 0);
  g_assert_cmpuint (total_retries, >, total_ooms);
}

static void
test_long_sequences (void)
{
  for (guint32 seed = 10001; seed <= 10008; seed++)
    run_sequence (seed, 25000);
}

int
main (int   argc,
      char *argv[])
{
  const char *missing_locale = gml_test_set_locale (&argc, &argv);

  g_test_init (&argc, &argv, NULL);
  gml_test_report_locale (missing_locale);

  g_test_add_func ("/engine/random/short-sequences", test_short_sequences);
  g_test_add_func ("/engine/random/long-sequences", test_long_sequences);

  return g_test_run ();
}

/* engine-trace.c — runs a random workload through the lab's caching allocator
 * and writes, as JSON, every event the allocator recorded, its statistics
 * after each event and its segments at the end. make-snapshots.py turns that
 * into a PyTorch memory snapshot, so the snapshot reader can be checked
 * against states the engine really passed through.
 *
 *   engine-trace SEED N_OPS CAPACITY [ALLOC_CONF] [--no-stats]
 *
 * --no-stats leaves the statistics out (zeros), for traces of millions of
 * events (the benchmark of `snapshot --check`).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "gml-allocator.h"
#include "gml-device.h"
#include "gml-trace.h"

#define MiB G_GUINT64_CONSTANT (1048576)

static void
print_block (const GmlSegmentInfo *segment,
             const GmlBlockInfo   *block,
             gpointer              user_data)
{
  gboolean *first = user_data;
  const char *state = block->state == GML_BLOCK_ALLOCATED ? "active_allocated" :
                      block->state == GML_BLOCK_PENDING_FREE ? "active_pending_free" : "inactive";

  printf ("%s{\"segment\":%" G_GUINT64_FORMAT ",\"address\":%" G_GUINT64_FORMAT
          ",\"size\":%" G_GUINT64_FORMAT ",\"requested_size\":%" G_GUINT64_FORMAT
          ",\"state\":\"%s\",\"stream\":%u,\"small\":%s,\"expandable\":%s}",
          *first ? "" : ",\n", segment->address, block->address, block->size,
          block->requested_size, state, segment->stream,
          segment->pool == GML_POOL_SMALL ? "true" : "false",
          segment->expandable ? "true" : "false");
  *first = FALSE;
}

int
main (int    argc,
      char **argv)
{
  guint32 seed;
  guint n_ops;
  guint64 capacity;
  GmlAllocConf conf;
  g_autoptr(GRand) rand = NULL;
  g_autoptr(GArray) live = g_array_new (FALSE, FALSE, sizeof (gint32));
  GmlDevice *device;
  GmlAllocator *allocator;
  GmlTrace *trace;
  gsize printed = 0;
  gboolean first = TRUE;
  gboolean no_stats = FALSE;

  if (argc < 4)
    {
      fprintf (stderr, "usage: engine-trace SEED N_OPS CAPACITY [ALLOC_CONF]\n");
      return 2;
    }
  seed = (guint32) strtoul (argv[1], NULL, 10);
  n_ops = (guint) strtoul (argv[2], NULL, 10);
  capacity = g_ascii_strtoull (argv[3], NULL, 10);
  gml_alloc_conf_init (&conf);
  if (argc > 4 && argv[4][0] != '\0' && !g_str_equal (argv[4], "--no-stats") &&
      !gml_alloc_conf_parse (&conf, argv[4], NULL))
    return 2;
  for (int i = 4; i < argc; i++)
    if (g_str_equal (argv[i], "--no-stats"))
      no_stats = TRUE;

  rand = g_rand_new_with_seed (seed);
  device = gml_device_sim_new (capacity, 0);
  allocator = gml_allocator_new (device, &conf);
  trace = gml_allocator_get_trace (allocator);

  printf ("{\"events\":[\n");
  for (guint op = 0; op < n_ops; op++)
    {
      int kind = g_rand_int_range (rand, 0, 100);

      if (kind < 55 || live->len == 0)
        {
          guint64 size;
          int s = g_rand_int_range (rand, 0, 100);
          gint32 id;

          if (s < 45)
            size = g_rand_int_range (rand, 1, 1048577);
          else if (s < 85)
            size = g_rand_int_range (rand, 1048577, 10 * 1048576);
          else
            size = (guint64) g_rand_double_range (rand, 10.0 * MiB, capacity / 4.0);
          if (gml_allocator_malloc (allocator, size, g_rand_int_range (rand, 0, 10) == 0 ? 1 : 0,
                                    NULL, GML_CATEGORY_NONE, &id, NULL) && id >= 0)
            g_array_append_val (live, id);
        }
      else if (kind < 98)
        {
          guint i = g_rand_int_range (rand, 0, live->len);

          gml_allocator_free (allocator, g_array_index (live, gint32, i), NULL);
          g_array_remove_index_fast (live, i);
        }
      else
        gml_allocator_empty_cache (allocator);

      /* The events this operation added, each with the statistics after it. */
      for (; printed < gml_trace_get_n_events (trace); printed++)
        {
          const GmlTraceEvent *ev = gml_trace_get_event (trace, printed);
          g_autoptr(GmlMemState) state = no_stats ? gml_mem_state_new (NULL)
                                                  : gml_trace_state_at (trace, printed + 1);
          const GmlStats *st = gml_mem_state_get_stats (state);

          printf ("%s{\"kind\":\"%s\",\"address\":%" G_GUINT64_FORMAT ",\"size\":%" G_GUINT64_FORMAT
                  ",\"requested\":%" G_GUINT64_FORMAT ",\"stream\":%u"
                  ",\"allocated\":%" G_GINT64_FORMAT ",\"reserved\":%" G_GINT64_FORMAT
                  ",\"active\":%" G_GINT64_FORMAT ",\"requested_bytes\":%" G_GINT64_FORMAT
                  ",\"allocations\":%" G_GINT64_FORMAT ",\"segments\":%" G_GINT64_FORMAT
                  ",\"largest_free\":%" G_GUINT64_FORMAT "}",
                  printed == 0 ? "" : ",\n", gml_trace_event_kind_to_string (ev->kind), ev->address,
                  ev->size, ev->requested_size, ev->stream,
                  st->allocated_bytes[GML_STAT_ALL].current,
                  st->reserved_bytes[GML_STAT_ALL].current,
                  st->active_bytes[GML_STAT_ALL].current, st->requested_bytes[GML_STAT_ALL].current,
                  st->allocation[GML_STAT_ALL].current, st->segment[GML_STAT_ALL].current,
                  gml_mem_state_get_largest_free_block (state));
        }
    }
  printf ("],\n\"blocks\":[\n");
  gml_mem_state_foreach_block (gml_allocator_get_state (allocator), print_block, &first);
  printf ("]}\n");

  gml_allocator_destroy (allocator);
  gml_device_destroy (device);
  return 0;
}

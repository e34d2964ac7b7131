/* bench-engine.c — how fast the caching allocator replays random work, and how
 * fast the state at any point of the trace is rebuilt.
 *
 *   bench-engine [N_OPS] [SEED]     (default 1000000 operations, seed 1)
 *   bench-engine --write-trace FILE [N_OPS] [SEED]
 *
 * Targets (issue 3): at least 2 million events per second on one core, and
 * at most 5 ms to rebuild the state at any index of a 1M-event trace.
 *
 * --write-trace writes the same operations as a `gpu-memory-lab replay` trace
 * (JSON Lines) and stops: bench-replay.sh times the command on it. An alloc
 * that ran out of memory is written too; replay counts it as here, and the
 * frees pick among the tensors that were really allocated, as here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>

#include "gml-allocator.h"
#include "gml-device.h"
#include "gml-trace.h"

#define MiB 1048576.0

typedef struct
{
  guint8  op;        /* 0 alloc, 1 free, 2 empty_cache */
  guint8  stream;
  guint32 pick;      /* which live tensor a free takes */
  guint64 size;
} Op;

/* Log-uniform sizes, shaped like a training step: many small tensors, a fair
 * number of 1–10 MiB activations, a few big ones. */
static guint64
random_size (GRand *rand)
{
  int kind = g_rand_int_range (rand, 0, 100);
  double lo, hi;

  if (kind < 60)
    lo = 512, hi = MiB;
  else if (kind < 95)
    lo = MiB, hi = 10 * MiB;
  else
    lo = 10 * MiB, hi = 256 * MiB;

  return (guint64) exp (g_rand_double_range (rand, log (lo), log (hi)));
}

static double
now_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

int
main (int   argc,
      char *argv[])
{
  const char *trace_path = NULL;
  guint n_ops;
  guint32 seed;
  g_autoptr(GRand) rand = NULL;
  g_autoptr(GmlDevice) device = gml_device_sim_new (0, 0);
  g_autoptr(GmlAllocator) allocator = gml_allocator_new (device, NULL);
  g_autoptr(GmlMemState) state = NULL;
  g_autofree Op *ops = NULL;
  g_autofree gint32 *live = NULL;
  g_autofree guint *live_ids = NULL;
  g_autofree double *rebuild_ms = NULL;
  g_autoptr(GString) line = NULL;
  FILE *out = NULL;
  guint n_live = 0, n_modelled_live = 0, n_rebuilds = 1000, n_ooms = 0;
  GmlTrace *trace;
  gsize n_events;
  double t0, t1, sum = 0;
  struct rusage usage;

  if (argc > 2 && g_str_equal (argv[1], "--write-trace"))
    {
      trace_path = argv[2];
      argc -= 2;
      argv += 2;
    }
  n_ops = argc > 1 ? (guint) g_ascii_strtoull (argv[1], NULL, 10) : 1000000;
  seed = argc > 2 ? (guint32) g_ascii_strtoull (argv[2], NULL, 10) : 1;
  if (n_ops == 0)
    return 2;
  rand = g_rand_new_with_seed (seed);
  ops = g_new (Op, n_ops);
  live = g_new (gint32, n_ops);

  /* The workload is generated first so the timing is the allocator's alone. */
  for (guint i = 0; i < n_ops; i++)
    {
      int r = g_rand_int_range (rand, 0, 1000);

      if (n_modelled_live == 0 || (r < 500 && n_modelled_live < 4000))
        {
          ops[i].op = 0;
          ops[i].size = random_size (rand);
          ops[i].stream = g_rand_int_range (rand, 0, 100) < 90 ? 0 : 1;
          n_modelled_live++;
        }
      else if (r < 999)
        {
          ops[i].op = 1;
          ops[i].pick = g_rand_int (rand);
          n_modelled_live--;
        }
      else
        {
          ops[i].op = 2;
        }
    }

  if (trace_path != NULL)
    {
      out = fopen (trace_path, "w");
      if (out == NULL)
        {
          g_printerr ("%s: %s\n", trace_path, g_strerror (errno));
          return 1;
        }
      live_ids = g_new (guint, n_ops);
      line = g_string_new (NULL);
    }

  t0 = now_s ();
  for (guint i = 0; i < n_ops; i++)
    {
      const Op *op = &ops[i];

      switch (op->op)
        {
        case 0:
          if (out != NULL)
            {
              live_ids[n_live] = i;
              g_string_append_printf (line, "{\"op\":\"alloc\",\"id\":\"t%u\",\"size\":%"
                                      G_GUINT64_FORMAT ",\"stream\":%u,"
                                      "\"category\":\"activations\"}\n",
                                      i, op->size, op->stream);
            }
          if (gml_allocator_malloc (allocator, op->size, op->stream, NULL,
                                    GML_CATEGORY_ACTIVATIONS, &live[n_live], NULL))
            n_live++;
          else
            n_ooms++;
          break;

        case 1:
          if (n_live > 0)
            {
              guint k = op->pick % n_live;

              if (out != NULL)
                {
                  g_string_append_printf (line, "{\"op\":\"free\",\"id\":\"t%u\"}\n",
                                          live_ids[k]);
                  live_ids[k] = live_ids[n_live - 1];
                }
              gml_allocator_free (allocator, live[k], NULL);
              live[k] = live[--n_live];
            }
          break;

        default:
          if (out != NULL)
            g_string_append (line, "{\"op\":\"empty_cache\"}\n");
          gml_allocator_empty_cache (allocator);
          break;
        }

      if (out != NULL && line->len > 0)
        {
          fwrite (line->str, 1, line->len, out);
          g_string_truncate (line, 0);
        }
    }
  t1 = now_s ();

  if (out != NULL)
    {
      if (fclose (out) != 0)
        {
          g_printerr ("%s: %s\n", trace_path, g_strerror (errno));
          return 1;
        }
      g_print ("%s: %u operations, %u allocs that ran out of memory\n", trace_path, n_ops, n_ooms);
      return 0;
    }

  trace = gml_allocator_get_trace (allocator);
  n_events = gml_trace_get_n_events (trace);
  g_print ("replay: %u operations, %" G_GSIZE_FORMAT " trace events in %.3f s\n",
           n_ops, n_events, t1 - t0);
  g_print ("        %.2f M operations/s, %.2f M trace events/s (one core)\n",
           n_ops / (t1 - t0) / 1e6, n_events / (t1 - t0) / 1e6);
  g_print ("        %u live at the end, %u OOMs, %u segments, %.1f MiB reserved\n",
           n_live, n_ooms, gml_mem_state_get_n_segments (gml_allocator_get_state (allocator)),
           gml_allocator_get_stats (allocator)->reserved_bytes[GML_STAT_ALL].current / MiB);

  /* Rebuild the state at random indices, the way a scrubbing picture would. */
  state = gml_mem_state_new (gml_trace_get_labels (trace));
  rebuild_ms = g_new (double, n_rebuilds);
  for (guint i = 0; i < n_rebuilds; i++)
    {
      gsize index = (gsize) g_rand_double_range (rand, 0, (double) n_events + 1);
      double s0 = now_s ();

      gml_trace_state_at_into (trace, index, state);
      rebuild_ms[i] = (now_s () - s0) * 1e3;
      sum += rebuild_ms[i];
    }
  qsort (rebuild_ms, n_rebuilds, sizeof (double), compare_doubles);
  g_print ("rebuild: %u random indices: mean %.3f ms, median %.3f ms, p99 %.3f ms, max %.3f ms\n",
           n_rebuilds, sum / n_rebuilds, rebuild_ms[n_rebuilds / 2],
           rebuild_ms[n_rebuilds * 99 / 100], rebuild_ms[n_rebuilds - 1]);

  getrusage (RUSAGE_SELF, &usage);
  g_print ("memory: peak RSS %.1f MiB (%.1f bytes per trace event, snapshots included)\n",
           usage.ru_maxrss / 1024.0, usage.ru_maxrss * 1024.0 / n_events);

  return 0;
}

/* bench-first-picture.c — how fast a PyTorch memory snapshot gets on screen, and
 * how fast scrubbing through it redraws.
 *
 * Targets: the first picture (read the file, walk its trace, draw the memory
 * map) within 1 s for a 50 MB snapshot; one scrubbing step (set_at, then the
 * picture drawn and its description made) within a frame, 16 ms. Make a big
 * snapshot with make-snapshot.py, then run it from a release build:
 *
 *   bench/snapshot/make-snapshot.py /tmp/big.pickle 450000
 *   bench-first-picture /tmp/big.pickle [WIDTH HEIGHT]
 *
 * Times are wall clock and this thread's CPU time; on a shared machine the
 * CPU time is the cost, the wall time what a user would have waited.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <time.h>

#include <glib/gstdio.h>

#include "gml-snapshot-picture.h"

#define STEPS 200

typedef struct
{
  gint64 wall;
  double cpu;
} Clock;

static double
thread_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static Clock
now (void)
{
  return (Clock) { g_get_monotonic_time (), thread_ms () };
}

static void
print_since (const char *what,
             Clock       start)
{
  Clock end = now ();

  g_print ("  %-34s wall %8.1f ms   cpu %8.1f ms\n", what, (end.wall - start.wall) / 1000.0,
           end.cpu - start.cpu);
}

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static void
print_stats (const char *what,
             double     *ms,
             int         n)
{
  qsort (ms, n, sizeof (double), cmp_double);
  g_print ("  %-34s median %6.2f ms   p95 %6.2f ms   max %6.2f ms\n", what, ms[n / 2],
           ms[(n * 95) / 100], ms[n - 1]);
}

/* One scrubbing step as the window takes it: the new position, the picture
 * drawn, the words for the screen reader made. */
static double
step_ms (GmlSnapshotPicture   *picture,
         GmlSnapshotView       view,
         const GmlRenderStyle *style,
         cairo_surface_t      *surface,
         gsize                 at,
         int                   width,
         int                   height)
{
  double c0 = thread_ms ();
  cairo_t *cr;
  char *words;

  gml_snapshot_picture_set_at (picture, at);
  cr = cairo_create (surface);
  gml_render_snapshot (cr, picture, view, style, width, height);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  words = gml_snapshot_picture_describe (picture, view);
  g_free (words);
  return thread_ms () - c0;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshot) snap = NULL;
  g_autoptr(GmlSnapshotTimeline) timeline = NULL;
  g_autoptr(GmlSnapshotPicture) picture = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  int width = argc > 3 ? atoi (argv[2]) : 960;
  int height = argc > 3 ? atoi (argv[3]) : 600;
  cairo_surface_t *surface;
  GmlRenderStyle style;
  GStatBuf st;
  Clock start, first;
  cairo_t *cr;
  gsize n;

  if (argc < 2)
    {
      g_printerr ("usage: bench-snapshot FILE.pickle [WIDTH HEIGHT]\n");
      return 2;
    }
  if (g_stat (argv[1], &st) != 0)
    {
      g_printerr ("bench-snapshot: cannot read %s\n", argv[1]);
      return 1;
    }
  gml_render_style_init (&style, GML_THEME_LIGHT);
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);

  g_print ("%s: %.1f MB, drawn at %dx%d\n", argv[1], st.st_size / 1e6, width, height);
  g_print ("First picture (what the Snapshot view does after Open):\n");
  first = start = now ();
  snap = gml_snapshot_load (argv[1], NULL, NULL, NULL, &error);
  if (snap == NULL)
    {
      g_printerr ("bench-snapshot: %s\n", error->message);
      return 1;
    }
  print_since ("read the file", start);
  start = now ();
  timeline = gml_snapshot_timeline_new (snap, gml_snapshot_get_default_device (snap), NULL, &error);
  if (timeline == NULL)
    {
      g_printerr ("bench-snapshot: %s\n", error->message);
      return 1;
    }
  n = gml_snapshot_timeline_get_n_entries (timeline);
  print_since ("walk the trace", start);
  start = now ();
  picture = gml_snapshot_picture_new (timeline);
  print_since ("the state at the end", start);
  start = now ();
  cr = cairo_create (surface);
  gml_render_snapshot (cr, picture, GML_SNAPSHOT_VIEW_MEMORY_MAP, &style, width, height);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  print_since ("draw the memory map", start);
  print_since ("total, choosing to first picture", first);
  g_print ("  (%zu trace entries, %u out-of-memory errors)\n", n,
           gml_snapshot_timeline_get_n_ooms (timeline));

  g_print ("First draw of each view (each builds what it caches):\n");
  for (guint v = GML_SNAPSHOT_VIEW_TIMELINE; v < GML_N_SNAPSHOT_VIEWS; v++)
    {
      start = now ();
      cr = cairo_create (surface);
      gml_render_snapshot (cr, picture, v, &style, width, height);
      cairo_destroy (cr);
      cairo_surface_flush (surface);
      print_since (gml_snapshot_view_to_string (v), start);
    }

  g_print ("Scrubbing, CPU time per step (set_at + draw + description), %d steps:\n", STEPS);
  for (guint v = 0; v < GML_N_SNAPSHOT_VIEWS; v++)
    {
      double jumps[STEPS], keys[STEPS];
      g_autofree char *jump_name = g_strdup_printf ("%s, jumps anywhere",
                                                    gml_snapshot_view_to_string (v));
      g_autofree char *key_name = g_strdup_printf ("%s, next entry",
                                                   gml_snapshot_view_to_string (v));
      gsize at = n / 2;

      for (int i = 0; i < STEPS; i++)
        jumps[i] = step_ms (picture, v, &style, surface,
                            (gsize) g_rand_int_range (rand, 0, (gint32) MIN (n + 1, G_MAXINT32)),
                            width, height);
      for (int i = 0; i < STEPS; i++)
        keys[i] = step_ms (picture, v, &style, surface, MIN (at + i, n), width, height);
      print_stats (jump_name, jumps, STEPS);
      print_stats (key_name, keys, STEPS);
    }

  cairo_surface_destroy (surface);
  return 0;
}

/* bench-snapshot.c — reading a PyTorch memory snapshot, walking its trace and
 * scrubbing through it, timed. Not a test: run it from a release build.
 *
 *   bench-snapshot FILE [SCRUBS]
 *
 * Prints the time to read the file, to build the timeline, and for SCRUBS
 * random entries (default 200) the time to rebuild the state there and draw
 * the memory map at 1280×800 (mean, p99, max), plus the peak resident memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "gml-snapshot-picture.h"

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshot) snap = NULL;
  g_autoptr(GmlSnapshotTimeline) tl = NULL;
  g_autoptr(GmlSnapshotPicture) picture = NULL;
  guint scrubs = argc > 2 ? (guint) atoi (argv[2]) : 200;
  g_autofree double *times = g_new (double, MAX (scrubs, 1));
  GmlRenderStyle style;
  cairo_surface_t *surface;
  struct rusage usage;
  gint64 t0, t1, t2;
  double sum = 0;
  gsize n;
  GRand *rand = g_rand_new_with_seed (7);

  if (argc < 2)
    {
      fprintf (stderr, "usage: bench-snapshot FILE [SCRUBS]\n");
      return 2;
    }
  t0 = g_get_monotonic_time ();
  snap = gml_snapshot_load (argv[1], NULL, NULL, NULL, &error);
  if (snap == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  t1 = g_get_monotonic_time ();
  tl = gml_snapshot_timeline_new (snap, gml_snapshot_get_default_device (snap), NULL, &error);
  t2 = g_get_monotonic_time ();
  n = gml_snapshot_timeline_get_n_entries (tl);
  printf ("entries: %zu\nread: %.3f s\ntimeline: %.3f s\n", n, (t1 - t0) / 1e6, (t2 - t1) / 1e6);

  picture = gml_snapshot_picture_new (tl);
  gml_render_style_init (&style, GML_THEME_LIGHT);
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1280, 800);
  for (guint i = 0; i < scrubs; i++)
    {
      gsize at = (gsize) g_rand_double_range (rand, 0, (double) n + 1);
      cairo_t *cr = cairo_create (surface);
      gint64 s = g_get_monotonic_time ();

      gml_snapshot_picture_set_at (picture, at);
      gml_render_snapshot (cr, picture, GML_SNAPSHOT_VIEW_MEMORY_MAP, &style, 1280, 800);
      cairo_surface_flush (surface);
      times[i] = (g_get_monotonic_time () - s) / 1e3;
      sum += times[i];
      cairo_destroy (cr);
    }
  qsort (times, scrubs, sizeof (double), cmp_double);
  if (scrubs > 0)
    printf ("scrub + memory map 1280x800: mean %.2f ms, p99 %.2f ms, max %.2f ms (%u random "
            "entries)\n",
            sum / scrubs, times[(guint) (scrubs * 0.99)], times[scrubs - 1], scrubs);
  cairo_surface_destroy (surface);
  getrusage (RUSAGE_SELF, &usage);
  printf ("peak resident memory: %.0f MiB\n", usage.ru_maxrss / 1024.0);
  g_rand_free (rand);
  return 0;
}

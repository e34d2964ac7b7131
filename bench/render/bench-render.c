/* bench-render.c — draw time per frame of the memory map and the timeline.
 *
 * Targets: memory map ≤ 8 ms with 10 000 blocks and ≤ 16 ms with 100 000;
 * timeline ≤ 16 ms with 1 000 000 events. Run it from a release build:
 *   bench-render [WIDTH HEIGHT]
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "gml-render.h"

#define FRAMES 15
#define FRAMES_MAX 200

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

typedef void (*DrawFunc) (cairo_t *cr, gpointer data, const GmlRenderStyle *style, int w, int h);

/* This thread's CPU time: the draw cost itself, not the time other programs on a
 * shared machine took from it. Wall time is printed beside it. */
static double
thread_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static guint png_count;

static double
median_ms (DrawFunc              func,
           gpointer              data,
           const GmlRenderStyle *style,
           int                   width,
           int                   height)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  double times[FRAMES_MAX];
  double walls[FRAMES_MAX];
  int frames = g_getenv ("BENCH_FRAMES") ? CLAMP (atoi (g_getenv ("BENCH_FRAMES")), 1, FRAMES_MAX)
                                         : FRAMES;

  for (int i = 0; i < frames; i++)
    {
      cairo_t *cr = cairo_create (surface);
      gint64 t0 = g_get_monotonic_time ();
      double c0 = thread_ms ();

      func (cr, data, style, width, height);
      cairo_surface_flush (surface);
      times[i] = thread_ms () - c0;
      walls[i] = (g_get_monotonic_time () - t0) / 1000.0;
      cairo_destroy (cr);
    }
  /* BENCH_PNG=PREFIX keeps the last frame, to compare pictures across changes. */
  if (g_getenv ("BENCH_PNG") != NULL)
    {
      g_autofree char *name = g_strdup_printf ("%s-%u.png", g_getenv ("BENCH_PNG"), ++png_count);

      cairo_surface_write_to_png (surface, name);
    }
  cairo_surface_destroy (surface);
  qsort (times, frames, sizeof (double), cmp_double);
  qsort (walls, frames, sizeof (double), cmp_double);
  g_print ("  wall %.2f ms, ", walls[frames / 2]);
  return times[frames / 2];
}

static void
draw_map (cairo_t *cr, gpointer data, const GmlRenderStyle *style, int w, int h)
{
  gml_render_memory_map (cr, data, style, w, h);
}

static void
draw_timeline (cairo_t *cr, gpointer data, const GmlRenderStyle *style, int w, int h)
{
  gml_render_timeline (cr, data, style, w, h);
}

/* A state of about @n blocks: tensors of many sizes in both pools, every third freed. */
static GmlAllocator *
make_state (GmlDevice *device,
            guint      n_tensors)
{
  GmlAllocator *alloc = gml_allocator_new (device, NULL);
  GRand *rand = g_rand_new_with_seed (4);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint32));

  for (guint i = 0; i < n_tensors; i++)
    {
      guint64 size = g_rand_int_range (rand, 0, 10) < 8
        ? (guint64) g_rand_int_range (rand, 512, 400 * 1024)
        : (guint64) g_rand_int_range (rand, 1 << 20, 12 << 20);
      gint32 id;

      if (gml_allocator_malloc (alloc, size, 0, NULL, 1 + i % 5, &id, NULL))
        g_array_append_val (ids, id);
    }
  for (guint i = 0; i < ids->len; i += 3)
    gml_allocator_free (alloc, g_array_index (ids, gint32, i), NULL);
  g_array_unref (ids);
  g_rand_free (rand);
  return alloc;
}

static guint64
r_peak (const guint64 *values,
        gsize          n)
{
  guint64 max = 0;

  for (gsize i = 0; i < n; i++)
    max = MAX (max, values[i]);
  return max;
}

int
main (int    argc,
      char **argv)
{
  int width = argc > 2 ? atoi (argv[1]) : 1280;
  int height = argc > 2 ? atoi (argv[2]) : 800;
  GmlRenderStyle style;
  GmlDevice *device = gml_device_sim_new (G_GUINT64_CONSTANT (1) << 42, 0);
  static const guint sizes[] = { 10000, 100000 };

  gml_render_style_init (&style, GML_THEME_LIGHT);
  g_print ("frame %dx%d, median of %d frames\n", width, height, FRAMES);

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      /* BENCH_ONLY=10000 (or 100000) draws that map alone, for a profiler. */
      if (g_getenv ("BENCH_ONLY") != NULL && (guint) atoi (g_getenv ("BENCH_ONLY")) != sizes[i])
        continue;
      /* Tensors, about a third freed: the block count includes the free pieces. */
      GmlAllocator *alloc = make_state (device, sizes[i]);
      const GmlMemState *state = gml_allocator_get_state (alloc);
      GmlMemoryMapData data = { state, G_GUINT64_CONSTANT (1) << 42, 0, "bench", FALSE,
                                GML_CATEGORY_NONE, 0 };
      double ms = median_ms (draw_map, &data, &style, width, height);

      g_print ("memory map: %u blocks in %u segments: %.2f ms CPU/frame (target %s)\n",
               gml_mem_state_get_n_blocks (state), gml_mem_state_get_n_segments (state), ms,
               sizes[i] == 10000 ? "8 ms" : "16 ms");
      gml_allocator_destroy (alloc);
    }

  {
    /* One 2 GiB segment among two hundred 2 MiB ones and forty 20 MiB ones:
     * a real snapshot's mix, where the layout's row search does the most. */
    GmlAllocator *alloc = gml_allocator_new (device, NULL);
    GmlMemoryMapData data;
    gint32 id;
    double ms;

    for (guint i = 0; i < 400; i++)
      gml_allocator_malloc (alloc, 1 << 20, 0, NULL, GML_CATEGORY_TEMPORARY, &id, NULL);
    for (guint i = 0; i < 160; i++)
      gml_allocator_malloc (alloc, 5 << 20, 0, NULL, GML_CATEGORY_ACTIVATIONS, &id, NULL);
    gml_allocator_malloc (alloc, G_GUINT64_CONSTANT (2) << 30, 0, NULL, GML_CATEGORY_WEIGHTS, &id,
                          NULL);
    data = (GmlMemoryMapData) { gml_allocator_get_state (alloc), G_GUINT64_CONSTANT (1) << 42, 0,
                                "bench",
                                FALSE, GML_CATEGORY_NONE, 0 };
    ms = median_ms (draw_map, &data, &style, width, height);
    g_print ("memory map: one 2 GiB segment among %u: %.2f ms CPU/frame (target 8 ms)\n",
             gml_mem_state_get_n_segments (data.state), ms);
    gml_allocator_destroy (alloc);
  }

  {
    /* The fragmentation scenario where it fails: three hundred blocks, each
     * with room for its label; text is the cost here. */
    GmlDevice *lab = gml_device_sim_new (GML_SCENARIO_SIM_CAPACITY, 0);
    GmlScenario *scenario = gml_scenario_new ("fragmentation", lab, NULL);
    GmlPicture *picture = gml_picture_new (scenario);
    GmlMemoryMapData data;
    double ms;

    gml_picture_set_step (picture, gml_scenario_get_focus_step (scenario));
    gml_picture_memory_map_data (picture, &data);
    ms = median_ms (draw_map, &data, &style, width, height);
    g_print ("memory map: fragmentation scenario, %u labelled blocks: %.2f ms CPU/frame (target 16 "
             "ms)\n",
             gml_mem_state_get_n_blocks (data.state), ms);
    gml_picture_free (picture);
    gml_scenario_free (scenario);
    gml_device_destroy (lab);
  }

  {
    const gsize n = 1000000;
    guint64 *allocated = g_new (guint64, n);
    guint64 *reserved = g_new (guint64, n);
    guint8 *marks = g_new0 (guint8, n);
    GRand *rand = g_rand_new_with_seed (7);
    guint64 a = 0, r = 0;
    GmlTimelineData data;
    double ms;

    for (gsize i = 0; i < n; i++)
      {
        a = MAX ((gint64) a + g_rand_int_range (rand, -1048576, 1048576 + 4096), 0);
        r = MAX (r, a);
        if (i % 100000 == 99999)
          {
            r = a;
            marks[i] = GML_TIMELINE_MARK_EMPTY_CACHE;
          }
        allocated[i] = a;
        reserved[i] = r;
      }
    marks[n - 1] = GML_TIMELINE_MARK_OOM;
    /* The top of the scale is the device's capacity, as in the app: here the peak. */
    data = (GmlTimelineData) { n, allocated, reserved, marks, n / 2, r_peak (reserved, n), FALSE };
    ms = median_ms (draw_timeline, &data, &style, width, height);
    g_print ("timeline: %" G_GSIZE_FORMAT " events: %.2f ms CPU/frame (target 16 ms)\n", n, ms);
    g_free (allocated);
    g_free (reserved);
    g_free (marks);
    g_rand_free (rand);
  }

  gml_device_destroy (device);
  return 0;
}

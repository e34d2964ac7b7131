/* test-render.c — pixels where the layout says, and the render verb's files.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "gml-render.h"
#include "gml-snapshot-picture.h"
#include "gml-test-common.h"

#define W 900
#define H 560
#define CK_H 900

typedef struct
{
  GmlDevice   *device;
  GmlScenario *scenario;
  GmlPicture  *picture;
  cairo_surface_t *surface;
} Fixture;

static void
fixture_open (Fixture    *f,
              const char *name,
              guint       step)
{
  g_autoptr(GError) error = NULL;

  f->device = gml_device_sim_new (GML_SCENARIO_SIM_CAPACITY, 0);
  f->scenario = gml_scenario_new (name, f->device, &error);
  g_assert_no_error (error);
  f->picture = gml_picture_new (f->scenario);
  gml_picture_set_step (f->picture, step);
  f->surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
}

static void
fixture_close (Fixture *f)
{
  cairo_surface_destroy (f->surface);
  gml_picture_free (f->picture);
  gml_scenario_free (f->scenario);
  gml_device_destroy (f->device);
}

static gboolean
pixel_is (cairo_surface_t *surface,
          int              x,
          int              y,
          const GmlColor  *color)
{
  const guint8 *data;
  guint32 px;
  int r, g, b;

  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  px = *(const guint32 *) (data + y * cairo_image_surface_get_stride (surface) + x * 4);
  r = (px >> 16) & 0xff;
  g = (px >> 8) & 0xff;
  b = px & 0xff;
  return abs (r - (int) round (color->red * 255)) <= 3 &&
         abs (g - (int) round (color->green * 255)) <= 3 &&
         abs (b - (int) round (color->blue * 255)) <= 3;
}

/* How many pixels of @rect have @color. */
static guint
count_color (cairo_surface_t *surface,
             const GmlRect   *rect,
             const GmlColor  *color)
{
  guint n = 0;

  for (int y = (int) ceil (rect->y) + 2; y < (int) (rect->y + rect->height) - 2; y++)
    for (int x = (int) ceil (rect->x) + 2; x < (int) (rect->x + rect->width) - 2; x++)
      n += pixel_is (surface, x, y, color);
  return n;
}

static double
distance (guint32         px,
          const GmlColor *c)
{
  double r = ((px >> 16) & 0xff) / 255.0 - c->red;
  double g = ((px >> 8) & 0xff) / 255.0 - c->green;
  double b = (px & 0xff) / 255.0 - c->blue;

  return r * r + g * g + b * b;
}

/* How many pixels of @rect are nearer to @a than to @b (anti-aliased lines count). */
static guint
count_nearer (cairo_surface_t *surface,
              const GmlRect   *rect,
              const GmlColor  *a,
              const GmlColor  *b)
{
  const guint8 *data;
  int stride;
  guint n = 0;

  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (int y = (int) ceil (rect->y) + 2; y < (int) (rect->y + rect->height) - 2; y++)
    for (int x = (int) ceil (rect->x) + 2; x < (int) (rect->x + rect->width) - 2; x++)
      {
        guint32 px = *(const guint32 *) (data + y * stride + x * 4);

        n += distance (px, a) < distance (px, b);
      }
  return n;
}

typedef struct
{
  GmlBlockState state;
  GmlCategory   category;
  gboolean      need_active_segment;   /* free piece of a segment that has live blocks */
  gboolean      found;
  GmlBlockInfo  block;
} FindBlock;

static void
find_block_cb (const GmlSegmentInfo *segment,
               const GmlBlockInfo   *block,
               gpointer              user_data)
{
  FindBlock *f = user_data;

  if (f->found || block->state != f->state)
    return;
  if (block->state == GML_BLOCK_ALLOCATED && block->category != f->category)
    return;
  if (block->state == GML_BLOCK_FREE && f->need_active_segment != (segment->active_bytes > 0))
    return;
  f->block = *block;
  f->found = TRUE;
}

static void
block_rect (Fixture            *f,
            const GmlRenderStyle *style,
            FindBlock          *find,
            GmlRect            *rect)
{
  GmlMemoryMapData data = { 0 };
  GmlMapLayout layout = { 0 };

  gml_picture_memory_map_data (f->picture, &data);
  gml_mem_state_foreach_block (data.state, find_block_cb, find);
  g_assert_true (find->found);
  gml_map_layout_compute (&layout, &data, style, W, H);
  g_assert_true (gml_map_layout_block_rect (&layout, &data, find->block.address, find->block.size,
                                            rect));
  gml_map_layout_clear (&layout);
  g_assert_cmpfloat (rect->width, >, 10);
  g_assert_cmpfloat (rect->height, >, 10);
}

static void
draw (Fixture              *f,
      GmlView               view,
      const GmlRenderStyle *style)
{
  cairo_t *cr = cairo_create (f->surface);

  gml_render_picture (cr, f->picture, view, style, W, H);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
}

static void
test_block_colour (void)
{
  for (GmlTheme theme = 0; theme < GML_N_THEMES; theme++)
    {
      Fixture f = { 0 };
      GmlRenderStyle style;
      FindBlock find = { GML_BLOCK_ALLOCATED, GML_CATEGORY_OPTIMIZER_STATE };
      GmlRect rect;
      guint n;

      gml_render_style_init (&style, theme);
      fixture_open (&f, "oom", 3);    /* weights, gradients, optimizer state */
      draw (&f, GML_VIEW_MEMORY_MAP, &style);
      block_rect (&f, &style, &find, &rect);

      /* Most of the block (labels aside) has its category's colour... */
      n = count_color (f.surface, &rect, &style.palette.category[GML_CATEGORY_OPTIMIZER_STATE]);
      g_assert_cmpuint (n, >, (rect.width - 4) * (rect.height - 4) * 0.6);
      /* ...and none of the weights' colour. */
      g_assert_cmpuint (count_color (f.surface, &rect,
                                     &style.palette.category[GML_CATEGORY_WEIGHTS]), ==, 0);
      fixture_close (&f);
    }
}

static void
test_cached_block_hatched (void)
{
  static const struct { const char *scenario; guint step; gboolean inactive; } cases[] = {
    { "batch-size", 10, FALSE },    /* batch-32 activations freed: whole cached segments */
    { "fragmentation", 3, TRUE },   /* holes between live tensors: inactive split pieces */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Fixture f = { 0 };
      GmlRenderStyle style;
      FindBlock find = { GML_BLOCK_FREE, GML_CATEGORY_NONE, cases[i].inactive };
      GmlRect rect;
      guint area, hatch, fill;

      gml_render_style_init (&style, GML_THEME_LIGHT);
      fixture_open (&f, cases[i].scenario, cases[i].step);
      draw (&f, GML_VIEW_MEMORY_MAP, &style);
      block_rect (&f, &style, &find, &rect);

      area = (guint) ((rect.width - 4) * (rect.height - 4));
      hatch = count_nearer (f.surface, &rect,
                            cases[i].inactive ? &style.palette.inactive : &style.palette.hatch,
                            &style.palette.free_fill);
      fill = count_color (f.surface, &rect, &style.palette.free_fill);
      /* Hatched: both the lines and the ground between them show. */
      g_assert_cmpuint (hatch, >, area / 20);
      g_assert_cmpuint (fill, >, area / 5);
      fixture_close (&f);
    }
}

static void
test_timeline_reserved_height (void)
{
  Fixture f = { 0 };
  GmlRenderStyle style;
  GmlTimelineData data = { 0 };
  GmlRect plot;
  guint64 top;
  cairo_t *cr;
  gsize checked = 0;

  gml_render_style_init (&style, GML_THEME_LIGHT);
  fixture_open (&f, "empty-cache", 0);
  gml_picture_timeline_data (f.picture, &data);
  data.cursor = G_MAXSIZE;         /* no cursor over the line */
  cr = cairo_create (f.surface);
  gml_render_timeline (cr, &data, &style, W, H);
  cairo_destroy (cr);
  gml_timeline_layout (&data, &style, W, H, &plot, &top);
  g_assert_cmpuint (top, ==, gml_scenario_get_capacity (f.scenario));

  for (gsize i = 1; i < data.n_points; i++)
    {
      int x = (int) (plot.x + (i + 0.5) * plot.width / data.n_points);
      double y = plot.y + plot.height * (1.0 - (double) data.reserved[i] / top);
      gboolean found = FALSE;

      if (data.marks[i] != 0)
        continue;   /* a marker line crosses there */
      for (int dy = -1; dy <= 1 && !found; dy++)
        found = pixel_is (f.surface, x, (int) round (y) + dy, &style.palette.reserved);
      g_assert_true (found);
      /* Well above the line is not the line. */
      if (y - 12 > plot.y)
        g_assert_false (pixel_is (f.surface, x, (int) round (y) - 12, &style.palette.reserved));
      checked++;
    }
  g_assert_cmpuint (checked, >=, 2);
  g_assert_cmpuint (gml_timeline_point_at_x (&data, &style, W, H, plot.x + 1), ==, 0);
  g_assert_cmpuint (gml_timeline_point_at_x (&data, &style, W, H, plot.x + plot.width - 1), ==,
                    data.n_points - 1);
  fixture_close (&f);
}

/* A what-if replay's reserved memory: drawn at its own height, in its own
 * colour, only when given. */
static guint
count_replay_pixels (Fixture               *f,
                     const GmlTimelineData *data,
                     const GmlRenderStyle  *style,
                     const guint64         *half)
{
  GmlRect plot;
  guint64 top;
  guint found = 0;
  cairo_t *cr = cairo_create (f->surface);

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  gml_render_timeline (cr, data, style, W, H);
  cairo_destroy (cr);
  gml_timeline_layout (data, style, W, H, &plot, &top);
  for (int x = (int) plot.x + 1; x < (int) (plot.x + plot.width) - 1; x++)
    {
      gsize i = (gsize) ((x - plot.x) / plot.width * data->n_points);
      double y = plot.y + plot.height * (1.0 - (double) half[MIN (i, data->n_points - 1)] / top);

      for (int dy = -1; dy <= 1; dy++)
        if (pixel_is (f->surface, x, (int) round (y) + dy, &style->palette.category[0]))
          {
            found++;
            break;
          }
    }
  return found;
}

static void
test_timeline_replays (void)
{
  Fixture f = { 0 };
  GmlRenderStyle style;
  GmlTimelineData data = { 0 };
  g_autofree guint64 *half = NULL;
  GmlTimelineReplay replay;

  gml_render_style_init (&style, GML_THEME_LIGHT);
  fixture_open (&f, "empty-cache", 0);
  gml_picture_timeline_data (f.picture, &data);
  data.cursor = G_MAXSIZE;
  half = g_new (guint64, data.n_points);
  for (gsize i = 0; i < data.n_points; i++)
    half[i] = data.reserved[i] / 2;

  g_assert_cmpuint (count_replay_pixels (&f, &data, &style, half), ==, 0);
  replay = (GmlTimelineReplay) { half, data.n_points, "expandable_segments:True" };
  data.replays = &replay;
  data.n_replays = 1;
  /* Dashed: not every column, but a good part of the plot. */
  g_assert_cmpuint (count_replay_pixels (&f, &data, &style, half), >=, W / 8);
  fixture_close (&f);
}

/* Where layer @layer's band sits in column @i of strategy @st: the stack of
 * everything below it, computed from the scenario's own figures. */
static void
layer_band (const GmlCheckpointStrategy *st,
            guint                        n_layers,
            const GmlRect               *plot,
            guint64                      top,
            guint                        i,
            guint                        layer,
            GmlRect                     *band)
{
  guint64 lo = g_array_index (st->other, guint64, i);
  guint64 live = g_array_index (st->layer_live, guint64, i * n_layers + layer);
  double bw = plot->width / st->other->len;

  for (guint j = 0; j < layer; j++)
    lo += g_array_index (st->layer_live, guint64, i * n_layers + j);
  band->x = plot->x + i * bw;
  band->width = bw;
  band->y = plot->y + plot->height * (1.0 - (double) (lo + live) / top);
  band->height = plot->height * (double) live / top;
}

static void
test_checkpointing_layers (void)
{
  for (GmlTheme theme = 0; theme < GML_N_THEMES; theme++)
    {
      Fixture f = { 0 };
      GmlRenderStyle style;
      GmlCheckpointData data;
      const GmlCheckpointStrategy *st;
      guint n_layers;
      gboolean found_stored = FALSE, found_again = FALSE;
      cairo_t *cr;

      gml_render_style_init (&style, theme);
      fixture_open (&f, "checkpointing", 0);
      /* The strategies are stacked under their names and figures: a taller
       * picture gives each layer's band room to be sampled. */
      cairo_surface_destroy (f.surface);
      f.surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, CK_H);
      data = (GmlCheckpointData) { f.scenario, 0, FALSE };
      cr = cairo_create (f.surface);
      gml_render_checkpointing (cr, &data, &style, W, CK_H);
      cairo_destroy (cr);
      n_layers = gml_scenario_get_n_layers (f.scenario);
      g_assert_cmpuint (n_layers, >=, 4);
      g_assert_cmpuint (gml_scenario_get_n_strategies (f.scenario), >=, 3);

      for (guint s = 0; s < gml_scenario_get_n_strategies (f.scenario); s++)
        {
          GmlRect plot;
          guint64 top;

          st = gml_scenario_get_strategy (f.scenario, s);
          g_assert_true (gml_checkpointing_layout (&data, &style, W, CK_H, s, &plot, &top));
          g_assert_cmpuint (st->layer_live->len, ==, st->other->len * n_layers);
          for (guint i = 0; i < st->other->len; i++)
            {
              guint64 sum = 0;

              for (guint k = 0; k < n_layers; k++)
                sum += g_array_index (st->layer_live, guint64, i * n_layers + k);
              /* The bands add up to the allocator's activation bytes. */
              g_assert_cmpuint (sum, ==, g_array_index (st->stored, guint64, i) +
                                         g_array_index (st->recomputed, guint64, i));

              for (guint k = 1; k < n_layers; k += 2)
                {
                  gboolean again = g_array_index (st->layer_recomputed, guint8, i * n_layers + k);
                  GmlColor color, below;
                  GmlRect band, under;
                  int cx;

                  if (g_array_index (st->layer_live, guint64, i * n_layers + k) == 0 ||
                      g_array_index (st->layer_live, guint64, i * n_layers + k - 1) == 0 ||
                      g_array_index (st->layer_recomputed, guint8, i * n_layers + k - 1) ||
                      (again ? found_again : found_stored))
                    continue;
                  layer_band (st, n_layers, &plot, top, i, k, &band);
                  layer_band (st, n_layers, &plot, top, i, k - 1, &under);
                  g_assert_cmpfloat (band.height, >=, 7);
                  gml_checkpointing_layer_color (&style, k, again, &color);
                  gml_checkpointing_layer_color (&style, k - 1, FALSE, &below);
                  cx = (int) (band.x + band.width / 2);
                  if (!again)
                    {
                      /* Layer k's shade in the middle of its band, layer k-1's
                       * (another shade) just under it. */
                      g_assert_true (pixel_is (f.surface, cx, (int) (band.y + band.height / 2),
                                               &color));
                      g_assert_true (pixel_is (f.surface, cx, (int) (under.y + under.height / 2),
                                               &below));
                      g_assert_false (pixel_is (f.surface, cx, (int) (under.y + under.height / 2),
                                                &color));
                      found_stored = TRUE;
                    }
                  else
                    {
                      guint area = (guint) ((band.width - 4) * (band.height - 4));

                      /* Hatched: the band's shade and the background's lines both show. */
                      g_assert_cmpuint (count_nearer (f.surface, &band, &color,
                                                      &style.palette.background), >, area / 5);
                      g_assert_cmpuint (count_nearer (f.surface, &band, &style.palette.background,
                                                      &color), >, area / 20);
                      found_again = TRUE;
                    }
                }
            }
        }
      g_assert_true (found_stored);
      g_assert_true (found_again);
      fixture_close (&f);
    }
}

static void
test_hit (void)
{
  Fixture f = { 0 };
  GmlRenderStyle style;
  FindBlock find = { GML_BLOCK_ALLOCATED, GML_CATEGORY_WEIGHTS };
  GmlMemoryMapData data = { 0 };
  GmlBlockInfo hit;
  GmlRect rect;

  gml_render_style_init (&style, GML_THEME_LIGHT);
  fixture_open (&f, "oom", 1);
  block_rect (&f, &style, &find, &rect);
  gml_picture_memory_map_data (f.picture, &data);
  g_assert_true (gml_render_memory_map_hit (&data, &style, W, H, rect.x + rect.width / 2,
                                            rect.y + rect.height / 2, &hit));
  g_assert_cmpuint (hit.address, ==, find.block.address);
  g_assert_cmpstr (hit.label, ==, find.block.label);
  g_assert_false (gml_render_memory_map_hit (&data, &style, W, H, 1, H - 1, &hit));
  fixture_close (&f);
}

static void
test_descriptions (void)
{
  Fixture f = { 0 };
  g_autofree char *map = NULL;
  g_autofree char *frag = NULL;
  g_autofree char *expected = NULL;
  const GmlScenarioStep *step;
  g_autofree char *res = NULL;
  g_autofree char *alloc = NULL;
  g_autofree char *largest = NULL;

  fixture_open (&f, "fragmentation", 3);
  step = gml_scenario_get_step (f.scenario, 3);
  map = gml_picture_describe (f.picture, GML_VIEW_MEMORY_MAP);
  res = gml_format_size_short (step->stats.reserved_bytes[GML_STAT_ALL].current);
  alloc = gml_format_size_short (step->stats.allocated_bytes[GML_STAT_ALL].current);
  largest = gml_format_size_short (step->largest_free);
  /* The C locale: English, as the msgid. */
  expected = g_strdup_printf ("Reserved %s, allocated %s, largest free block %s.", res, alloc,
                              largest);
  g_assert_cmpstr (map, ==, expected);
  frag = gml_picture_describe (f.picture, GML_VIEW_FRAGMENTATION);
  g_assert_nonnull (strstr (frag, largest));
  fixture_close (&f);
}


/* ------------------------------------------------------------------------- */
/* The memory map's layout: one box per segment, one rectangle per block.    */

typedef struct
{
  const GmlMapLayout     *layout;
  const GmlMemoryMapData *data;
  guint                   n_blocks;
  gboolean                ok;
} WholeCheck;

static void
whole_block_cb (const GmlSegmentInfo *segment,
                const GmlBlockInfo   *block,
                gpointer              user_data)
{
  WholeCheck *w = user_data;
  GmlRect rect;
  gboolean in_one = FALSE;

  w->n_blocks++;
  g_assert_true (gml_map_layout_block_rect (w->layout, w->data, block->address, block->size,
                                            &rect));
  /* The block's rectangle lies inside exactly one segment box. */
  for (guint i = 0; i < w->layout->pieces->len; i++)
    {
      const GmlMapPiece *p = &g_array_index (w->layout->pieces, GmlMapPiece, i);

      if (p->address == segment->address)
        {
          g_assert_false (in_one);
          in_one = rect.x >= p->rect.x - 0.01 &&
          rect.x + rect.width <= p->rect.x + p->rect.width + 0.01 &&
                   rect.y >= p->rect.y && rect.y + rect.height <= p->rect.y + p->rect.height;
          g_assert_true (in_one);
        }
    }
  g_assert_true (in_one);
}

/* Pixel centres covered by more than one segment box: none. */
static void
assert_no_overlap (const GmlMapLayout *layout)
{
  int w = (int) ceil (layout->map.x + layout->map.width) + 2;
  int h = (int) ceil (layout->map.y + layout->map.height) + 2;
  guint8 *count = g_new0 (guint8, (gsize) w * h);

  for (guint i = 0; i < layout->pieces->len; i++)
    {
      const GmlRect *r = &g_array_index (layout->pieces, GmlMapPiece, i).rect;

      g_assert_cmpfloat (r->x, >=, layout->map.x - 0.01);
      g_assert_cmpfloat (r->y, >=, layout->map.y - 1);
      g_assert_cmpfloat (r->x + r->width, <=, layout->map.x + layout->map.width + 0.01);
      g_assert_cmpfloat (r->y + r->height, <=, layout->map.y + layout->map.height + 0.01);
      for (int y = (int) ceil (r->y - 0.5); y + 0.5 < r->y + r->height; y++)
        for (int x = (int) ceil (r->x - 0.5); x + 0.5 < r->x + r->width; x++)
          {
            g_assert_cmpuint (count[(gsize) y * w + x], ==, 0);
            count[(gsize) y * w + x] = 1;
          }
    }
  g_free (count);
}

/* Area per byte is the same for every box wider than its least width. */
static void
assert_areas_proportional (const GmlMapLayout *layout)
{
  double ref = 0;

  for (guint i = 0; i < layout->pieces->len; i++)
    {
      const GmlMapPiece *p = &g_array_index (layout->pieces, GmlMapPiece, i);
      double per_byte = p->rect.width * p->rect.height / p->length;

      if (p->rect.width < 8 || p->rect.height < 8)
        continue;   /* a least width, or whole-pixel rows, dominate */
      if (ref == 0)
        ref = per_byte;
      /* Rows are whole pixels high: a row can be a pixel shorter than another. */
      g_assert_cmpfloat (fabs (per_byte / ref - 1), <, 0.12);
    }
}

static void
check_layout (const GmlMemoryMapData *data,
              const GmlRenderStyle   *style,
              int                     width,
              int                     height)
{
  GmlMapLayout layout = { 0 };
  WholeCheck w = { &layout, data, 0, TRUE };

  gml_map_layout_compute (&layout, data, style, width, height);
  g_assert_cmpuint (layout.n_unplaced, ==, 0);
  g_assert_cmpuint (layout.pieces->len, ==, gml_mem_state_get_n_segments (data->state));
  assert_no_overlap (&layout);
  assert_areas_proportional (&layout);
  gml_mem_state_foreach_block (data->state, whole_block_cb, &w);
  g_assert_cmpuint (w.n_blocks, ==, gml_mem_state_get_n_blocks (data->state));
  gml_map_layout_clear (&layout);
}

static void
test_map_whole_blocks (void)
{
  static const int sizes[][2] = { { 447, 498 }, { 553, 544 }, { W, H }, { 1920, 1080 } };
  const char * const *names = gml_scenario_names ();
  GmlRenderStyle style;

  gml_render_style_init (&style, GML_THEME_LIGHT);
  for (guint n = 0; names[n] != NULL; n++)
    {
      Fixture f = { 0 };

      fixture_open (&f, names[n], 0);
      for (guint step = 0; step < gml_scenario_get_n_steps (f.scenario); step++)
        for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
          for (int by_size = 0; by_size <= 1; by_size++)
            {
              GmlMemoryMapData data = { 0 };

              gml_picture_set_step (f.picture, step);
              gml_picture_set_by_size (f.picture, by_size);
              gml_picture_memory_map_data (f.picture, &data);
              check_layout (&data, &style, sizes[i][0], sizes[i][1]);
            }
      fixture_close (&f);
    }
}

/* One 2 GiB segment beside two hundred 2 MiB ones: every segment whole, the
 * big one a taller box of the same bytes per pixel, the small ones visible. */
static void
test_map_big_and_small (void)
{
  GmlDevice *device = gml_device_sim_new (G_GUINT64_CONSTANT (8) << 30, 0);
  GmlAllocator *alloc = gml_allocator_new (device, NULL);
  const GmlMemState *state;
  GmlMemoryMapData data = { 0 };
  GmlRenderStyle style;
  GmlMapLayout layout = { 0 };
  gint32 id;
  const GmlMapPiece *big = NULL, *small = NULL;
  GmlBlockInfo hit;

  gml_render_style_init (&style, GML_THEME_LIGHT);
  for (guint i = 0; i < 200; i++)
    {
      /* Two 1 MiB tensors fill one 2 MiB segment of the small pool. */
      g_assert_true (gml_allocator_malloc (alloc, 1 << 20, 0, "small", GML_CATEGORY_TEMPORARY, &id,
                                           NULL));
      g_assert_true (gml_allocator_malloc (alloc, 1 << 20, 0, "small", GML_CATEGORY_TEMPORARY, &id,
                                           NULL));
      if (i == 100)
        g_assert_true (gml_allocator_malloc (alloc, G_GUINT64_CONSTANT (2) << 30, 0, "big",
                                             GML_CATEGORY_WEIGHTS, &id, NULL));
    }
  state = gml_allocator_get_state (alloc);
  g_assert_cmpuint (gml_mem_state_get_n_segments (state), ==, 201);
  data = (GmlMemoryMapData) { state, G_GUINT64_CONSTANT (8) << 30, 0, "test", FALSE,
                              GML_CATEGORY_NONE, 0 };

  for (int by_size = 0; by_size <= 1; by_size++)
    {
      data.by_size = by_size;
      check_layout (&data, &style, 447, 498);
      check_layout (&data, &style, 1280, 800);
    }

  data.by_size = FALSE;
  gml_map_layout_compute (&layout, &data, &style, 447, 498);
  for (guint i = 0; i < layout.pieces->len; i++)
    {
      const GmlMapPiece *p = &g_array_index (layout.pieces, GmlMapPiece, i);

      if (p->length == G_GUINT64_CONSTANT (2) << 30)
        big = p;
      else
        small = p;
      /* Small segments stay visible boxes. */
      if (p->length == 2 << 20)
        g_assert_cmpfloat (p->rect.width, >=, 1.0);
    }
  g_assert_nonnull (big);
  g_assert_nonnull (small);
  /* Taller than a row: one box over several rows, not pieces on each. */
  g_assert_cmpfloat (big->rect.height, >, 1.5 * layout.row_height);
  /* A tooltip finds the big tensor anywhere in its box, its last row too. */
  g_assert_true (gml_render_memory_map_hit (&data, &style, 447, 498,
                                            big->rect.x + big->rect.width / 2,
                                            big->rect.y + big->rect.height - 3, &hit));
  g_assert_cmpstr (hit.label, ==, "big");
  gml_map_layout_clear (&layout);
  gml_allocator_destroy (alloc);
  gml_device_destroy (device);
}

/* The benchmark's 100 000 blocks (about 15 000 segments): every segment
 * placed whole, none over another, in a window's picture and a whole window. */
static void
test_map_dense (void)
{
  GmlDevice *device = gml_device_sim_new (G_GUINT64_CONSTANT (1) << 42, 0);
  GmlAllocator *alloc = gml_allocator_new (device, NULL);
  GRand *rand = g_rand_new_with_seed (4);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint32));
  GmlRenderStyle style;
  GmlMemoryMapData data = { 0 };

  gml_render_style_init (&style, GML_THEME_LIGHT);
  for (guint i = 0; i < 100000; i++)
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
  data = (GmlMemoryMapData) { gml_allocator_get_state (alloc), G_GUINT64_CONSTANT (1) << 42, 0,
                              "test",
                              FALSE, GML_CATEGORY_NONE, 0 };
  g_assert_cmpuint (gml_mem_state_get_n_blocks (data.state), >, 90000);
  check_layout (&data, &style, 447, 498);
  check_layout (&data, &style, 1280, 800);
  g_array_unref (ids);
  g_rand_free (rand);
  gml_allocator_destroy (alloc);
  gml_device_destroy (device);
}

/* After an answer, the blocks the question is about carry the mark: an
 * outline of the highlight colour (not the colour of failure), explained in
 * the legend. */
static void
test_map_mark (void)
{
  for (GmlTheme theme = 0; theme < GML_N_THEMES; theme++)
    {
      Fixture f = { 0 };
      GmlRenderStyle style;
      FindBlock find = { GML_BLOCK_ALLOCATED, GML_CATEGORY_ACTIVATIONS };
      GmlRect rect;
      g_autoptr(GArray) log = gml_label_log_new ();
      gboolean legend = FALSE;

      gml_render_style_init (&style, theme);
      style.label_log = log;
      fixture_open (&f, "oom", 0);
      gml_picture_set_step (f.picture, gml_scenario_get_focus_step (f.scenario));
      g_assert_cmpint (gml_scenario_get_focus_category (f.scenario), ==, GML_CATEGORY_ACTIVATIONS);
      gml_picture_set_pointing (f.picture, TRUE);
      draw (&f, GML_VIEW_MEMORY_MAP, &style);
      block_rect (&f, &style, &find, &rect);
      /* The outline runs along the block's edge, inside it. */
      g_assert_true (pixel_is (f.surface, (int) (rect.x + rect.width / 2), (int) rect.y + 1,
                               &style.palette.highlight));
      g_assert_true (pixel_is (f.surface, (int) rect.x + 1, (int) (rect.y + rect.height / 2),
                               &style.palette.highlight));
      g_assert_false (pixel_is (f.surface, (int) rect.x + 1, (int) (rect.y + rect.height / 2),
                                &style.palette.oom));
      for (guint i = 0; i < log->len; i++)
        legend = legend || strstr (g_array_index (log, GmlLabel, i).text, "Outlined") != NULL;
      g_assert_true (legend);

      /* Not pointing: no outline, no legend entry. */
      g_array_set_size (log, 0);
      gml_picture_set_pointing (f.picture, FALSE);
      draw (&f, GML_VIEW_MEMORY_MAP, &style);
      g_assert_false (pixel_is (f.surface, (int) rect.x + 1, (int) (rect.y + rect.height / 2),
                                &style.palette.highlight));
      for (guint i = 0; i < log->len; i++)
        g_assert_null (strstr (g_array_index (log, GmlLabel, i).text, "Outlined"));
      fixture_close (&f);
    }
}

/* The overview bar draws free cached memory and inactive splits as the map
 * does: the pattern's ink and its ground both show in the bar's part of it. */
static void
test_bar_matches_map (void)
{
  static const struct { const char *scenario; guint step; GmlMemoryKind kind; } cases[] = {
    { "batch-size", 10, GML_MEMORY_KIND_FREE_CACHED },
    { "fragmentation", 3, GML_MEMORY_KIND_INACTIVE_SPLIT },
  };
  static const GmlMemoryKind order[] = {
    GML_MEMORY_KIND_WEIGHTS, GML_MEMORY_KIND_ACTIVATIONS, GML_MEMORY_KIND_GRADIENTS,
    GML_MEMORY_KIND_OPTIMIZER_STATE, GML_MEMORY_KIND_TEMPORARY, GML_MEMORY_KIND_OTHER,
    GML_MEMORY_KIND_ROUNDING_WASTE, GML_MEMORY_KIND_PENDING_FREE, GML_MEMORY_KIND_INACTIVE_SPLIT,
    GML_MEMORY_KIND_FREE_CACHED, GML_MEMORY_KIND_NOT_RESERVED,
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      Fixture f = { 0 };
      GmlRenderStyle style;
      GmlMemoryMapData data = { 0 };
      GmlMapLayout layout = { 0 };
      const GmlColor *ink;
      guint64 before = 0, total = 0;
      GmlRect part;
      guint area;

      gml_render_style_init (&style, GML_THEME_LIGHT);
      ink = cases[c].kind == GML_MEMORY_KIND_FREE_CACHED ? &style.palette.hatch
                                                         : &style.palette.inactive;
      fixture_open (&f, cases[c].scenario, cases[c].step);
      draw (&f, GML_VIEW_MEMORY_MAP, &style);
      gml_picture_memory_map_data (f.picture, &data);
      gml_map_layout_compute (&layout, &data, &style, W, H);
      for (guint i = 0; i < G_N_ELEMENTS (order); i++)
        {
          if (order[i] == cases[c].kind)
            before = total;
          total += layout.kind_bytes[order[i]];
        }
      g_assert_cmpuint (layout.kind_bytes[cases[c].kind], >, 0);
      part = (GmlRect) { layout.device_bar.x + layout.device_bar.width * before / total,
                         layout.device_bar.y,
                         layout.device_bar.width * layout.kind_bytes[cases[c].kind] / total,
                         layout.device_bar.height };
      area = (guint) ((part.width - 4) * (part.height - 4));
      g_assert_cmpuint (count_nearer (f.surface, &part, ink, &style.palette.free_fill), >,
                        area / 20);
      g_assert_cmpuint (count_color (f.surface, &part, &style.palette.free_fill), >, area / 5);
      gml_map_layout_clear (&layout);
      fixture_close (&f);
    }
}

static void
test_offers_view (void)
{
  const char * const *names = gml_scenario_names ();

  for (guint n = 0; names[n] != NULL; n++)
    {
      Fixture f = { 0 };

      fixture_open (&f, names[n], 0);
      g_assert_true (gml_picture_offers_view (f.picture, GML_VIEW_MEMORY_MAP));
      g_assert_true (gml_picture_offers_view (f.picture, GML_VIEW_TIMELINE));
      g_assert_cmpint (gml_picture_offers_view (f.picture, GML_VIEW_CHECKPOINTING), ==,
                       g_str_equal (names[n], "checkpointing"));
      if (g_str_equal (names[n], "fragmentation") || g_str_equal (names[n], "empty-cache"))
        g_assert_true (gml_picture_offers_view (f.picture, GML_VIEW_FRAGMENTATION));
      g_assert_false (gml_picture_offers_view (f.picture, GML_N_VIEWS));
      fixture_close (&f);
    }
}

/* The render verb, as a lecturer runs it. */
static const char *app;

static int
run_app (const char * const *args,
         char              **out,
         char              **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_ptr_array_add (argv, (char *) app);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status,
                &error);
  g_assert_no_error (error);
  return g_spawn_check_wait_status (status, NULL) ? 0 : 1;
}

static void
test_cli_files (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gml-render-XXXXXX", NULL);
  static const char *views[] = { "memory-map", "fragmentation", "timeline", "checkpointing" };

  if (app == NULL)
    {
      g_test_skip ("no gpu-memory-lab binary given");
      return;
    }

  for (guint v = 0; v < G_N_ELEMENTS (views); v++)
    {
      g_autofree char *png = g_build_filename (dir, "p.png", NULL);
      g_autofree char *svg = g_build_filename (dir, "p.svg", NULL);
      g_autofree char *pdf = g_build_filename (dir, "p.pdf", NULL);
      g_autofree char *check = g_build_filename (dir, "check.png", NULL);
      const char *scenario = v == 3 ? "checkpointing" : "fragmentation";
      const char *png_args[] = { "render", scenario, "--view", views[v], "--output", png,
                                 "--width", "640", "--height", "400", "--theme", "dark", NULL };
      const char *svg_args[] = { "render", scenario, "--view", views[v], "--output", svg, "--step",
                                 "2", NULL };
      const char *pdf_args[] = { "render", scenario, "--view", views[v], "--output", pdf, "--lang",
                                 "tr", NULL };
      cairo_surface_t *surface;
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      int status = 0;

      g_assert_cmpint (run_app (png_args, NULL, NULL), ==, 0);
      surface = cairo_image_surface_create_from_png (png);
      g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
      g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 640);
      g_assert_cmpint (cairo_image_surface_get_height (surface), ==, 400);
      cairo_surface_destroy (surface);

      g_assert_cmpint (run_app (svg_args, NULL, NULL), ==, 0);
      g_assert_true (g_spawn_sync (NULL,
                                   (char *[]) { (char *) "rsvg-convert", svg, (char *) "-o", check,
                                                NULL }, NULL,
                                   G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, NULL));
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      surface = cairo_image_surface_create_from_png (check);
      g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
      cairo_surface_destroy (surface);

      g_assert_cmpint (run_app (pdf_args, NULL, NULL), ==, 0);
      g_assert_true (g_spawn_sync (NULL, (char *[]) { (char *) "pdfinfo", pdf, NULL }, NULL,
                                   G_SPAWN_SEARCH_PATH,
                                   NULL, NULL, &out, &err, &status, NULL));
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      g_assert_nonnull (strstr (out, "Pages:"));
      g_assert_nonnull (strstr (out, "1"));
    }
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
  g_assert_cmpint (system (cmd), ==, 0);
}

static void
test_cli_errors (void)
{
  static const char *bad[][12] = {
    { "render", "no-such-scenario", "--output", "/tmp/x.png", NULL },
    { "render", "oom", "--step", "9999", "--output", "/tmp/x.png", NULL },
    { "render", "oom", "--view", "pie-chart", "--output", "/tmp/x.png", NULL },
    { "render", "oom", "--output", "/tmp/x.gif", NULL },
    { "render", "oom", "--theme", "neon", "--output", "/tmp/x.png", NULL },
    { "render", "oom", "--width", "5", "--output", "/tmp/x.png", NULL },
    { "render", "oom", NULL },
    { "render", "oom", "--lang", "xx", "--output", "/tmp/x.png", NULL },
    { "render", "oom", "--output", "/nonexistent-dir/x.png", NULL },
  };

  if (app == NULL)
    {
      g_test_skip ("no gpu-memory-lab binary given");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *err = NULL;

      g_assert_cmpint (run_app (bad[i], NULL, &err), !=, 0);
      g_assert_true (g_str_has_prefix (err, "gpu-memory-lab render: "));
    }
}

static gboolean
log_has (GArray     *log,
         const char *text)
{
  for (guint i = 0; i < log->len; i++)
    if (g_strcmp0 (g_array_index (log, GmlLabel, i).text, text) == 0)
      return TRUE;
  return FALSE;
}

/* A real snapshot's pictures: the file records no category, the lab infers
 * them, so the map's legend names the categories drawn in the quiz's colours,
 * in the snapshot's words ("Parameters", not the quiz's "Weights"), none that
 * is absent, and says they are inferred; nothing in the file says what the
 * GPU had left outside an OOM; the timeline counts trace entries, not steps,
 * and marks the peak; the active-memory view's legend is the categories. */
static void
test_snapshot_pictures (void)
{
  g_autofree char *path = gml_test_require_fixture ("magma27_memory_snapshot.pickle");
  g_autoptr(GError) error = NULL;
  GmlSnapshot *snapshot;
  GmlSnapshotTimeline *timeline;
  g_autoptr(GmlSnapshotPicture) picture = NULL;
  g_autoptr(GArray) log = gml_label_log_new ();
  GmlRenderStyle style;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 960, 600);
  cairo_t *cr = cairo_create (surface);

  snapshot = gml_snapshot_load (path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  timeline = gml_snapshot_timeline_new (snapshot, 0, NULL, &error);
  g_assert_no_error (error);
  picture = gml_snapshot_picture_new (timeline);
  gml_snapshot_picture_set_at (picture, 2000);
  gml_render_style_init (&style, GML_THEME_LIGHT);
  style.label_log = log;

  gml_render_snapshot (cr, picture, GML_SNAPSHOT_VIEW_MEMORY_MAP, &style, 960, 600);
  g_assert_false (log_has (log, "Allocated"));
  g_assert_false (log_has (log, "Weights"));
  g_assert_true (log_has (log, "Parameters"));
  g_assert_true (log_has (log, "Activations"));
  g_assert_true (log_has (log, "Temporary"));
  g_assert_true (log_has (log, "Other"));
  /* Neither gradients nor optimizer state is live at entry 2000. */
  g_assert_false (log_has (log, "Gradients"));
  g_assert_false (log_has (log, "Optimizer state"));
  g_assert_true (log_has (log, "(categories inferred from each allocation’s stack and lifetime)"));
  g_assert_true (log_has (log, "Free, cached"));

  g_array_set_size (log, 0);
  gml_render_snapshot (cr, picture, GML_SNAPSHOT_VIEW_ACTIVE, &style, 960, 600);
  g_assert_true (log_has (log, "Parameters"));
  g_assert_true (log_has (log, "Activations"));
  g_assert_true (log_has (log, "(categories inferred)"));

  g_array_set_size (log, 0);
  gml_render_snapshot (cr, picture, GML_SNAPSHOT_VIEW_FRAGMENTATION, &style, 960, 600);
  g_assert_true (log_has (log, "not recorded"));
  g_assert_false (log_has (log, "0 B"));

  g_array_set_size (log, 0);
  gml_render_snapshot (cr, picture, GML_SNAPSHOT_VIEW_TIMELINE, &style, 960, 600);
  g_assert_true (log_has (log, "After trace entry 2000 of 5163"));
  g_assert_true (log_has (log, "Peak of allocated"));
  /* The axis: ticks at round entry numbers, and under them the seconds since
   * the first entry (the file has time_us; it spans 0.248 s). */
  g_assert_true (log_has (log, "0"));
  g_assert_true (log_has (log, "1,000"));
  g_assert_true (log_has (log, "5,000"));
  g_assert_true (log_has (log, "0.000 s"));
  g_assert_false (log_has (log, "5,163"));

  g_array_set_size (log, 0);
  gml_render_snapshot (cr, picture, GML_SNAPSHOT_VIEW_ACTIVE, &style, 960, 600);
  g_assert_true (log_has (log, "1,000"));
  g_assert_true (log_has (log, "0.000 s"));

  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  g_clear_pointer (&picture, gml_snapshot_picture_free);
  gml_snapshot_timeline_free (timeline);
  gml_snapshot_free (snapshot);
}

/* Export Picture…: the name decides the format when it has an extension; otherwise
 * the dialog's format is appended (and the window asks again when that file exists). */
static void
test_export_path (void)
{
  struct {
    const char     *path;
    GmlExportFormat chosen;
    const char     *expected;
    GmlExportFormat format;
  } cases[] = {
    { "/tmp/q1-map", GML_EXPORT_PNG, "/tmp/q1-map.png", GML_EXPORT_PNG },
    { "/tmp/q1-map", GML_EXPORT_SVG, "/tmp/q1-map.svg", GML_EXPORT_SVG },
    { "/tmp/q1-map", GML_EXPORT_PDF, "/tmp/q1-map.pdf", GML_EXPORT_PDF },
    { "/tmp/slide.PDF", GML_EXPORT_PNG, "/tmp/slide.PDF", GML_EXPORT_PDF },
    { "/tmp/slide.svg", GML_EXPORT_PDF, "/tmp/slide.svg", GML_EXPORT_SVG },
    { "/tmp/a.png.txt", GML_EXPORT_PNG, "/tmp/a.png.txt.png", GML_EXPORT_PNG },
    { "/tmp/svg", GML_EXPORT_SVG, "/tmp/svg.svg", GML_EXPORT_SVG },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GmlExportFormat format = 99;
      g_autofree char *path = gml_export_path_for_format (cases[i].path, cases[i].chosen, &format);

      g_assert_cmpstr (path, ==, cases[i].expected);
      g_assert_cmpint (format, ==, cases[i].format);
    }
  g_assert_cmpstr (gml_export_format_extension (GML_EXPORT_PNG), ==, ".png");
}

/* How many pixels of @a and @b differ (both W × H ARGB32). */
static guint
count_different (cairo_surface_t *a,
                 cairo_surface_t *b)
{
  guint n = 0;

  cairo_surface_flush (a);
  cairo_surface_flush (b);
  for (int y = 0; y < H; y++)
    {
      const guint32 *ra = (const guint32 *) (cairo_image_surface_get_data (a) +
                                             y * cairo_image_surface_get_stride (a));
      const guint32 *rb = (const guint32 *) (cairo_image_surface_get_data (b) +
                                             y * cairo_image_surface_get_stride (b));

      for (int x = 0; x < W; x++)
        n += ra[x] != rb[x];
    }
  return n;
}

static gpointer
write_drawing_thread (gpointer data)
{
  const char * const *args = data;
  g_autoptr(GError) error = NULL;

  g_assert_true (gml_export_drawing_write ((GmlExportDrawing *) args[0], args[1], GML_EXPORT_PNG,
                                           &error));
  g_assert_no_error (error);
  return NULL;
}

/* The window draws a picture for export on the main loop and writes it in a
 * worker: what is written is the picture as it was drawn (the step it showed,
 * pixel for pixel what the screen's renderer draws), even when the picture has
 * moved on before the file is written, and whichever thread writes it. */
static void
test_export_drawing (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gml-render-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "drawing.png", NULL);
  g_autofree char *bad = g_build_filename (dir, "no-such-folder", "drawing.png", NULL);
  g_autoptr(GmlExportDrawing) drawing = NULL;
  g_autoptr(GError) error = NULL;
  cairo_surface_t *written;
  cairo_surface_t *later;
  GmlRenderStyle style;
  GThread *thread;
  Fixture f = { 0 };
  cairo_t *cr;

  gml_render_style_init (&style, GML_THEME_LIGHT);
  fixture_open (&f, "fragmentation", 1);
  cr = cairo_create (f.surface);
  gml_render_picture (cr, f.picture, GML_VIEW_MEMORY_MAP, &style, W, H);
  cairo_destroy (cr);
  drawing = gml_picture_draw_for_export (f.picture, GML_VIEW_MEMORY_MAP, &style, W, H);

  /* The picture moves on before the file is written. */
  gml_picture_set_step (f.picture, gml_scenario_get_n_steps (f.scenario) - 1);
  later = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
  cr = cairo_create (later);
  gml_render_picture (cr, f.picture, GML_VIEW_MEMORY_MAP, &style, W, H);
  cairo_destroy (cr);

  thread = g_thread_new ("export", write_drawing_thread, (gpointer) (const char *[]) {
                           (const char *) drawing, png });
  g_thread_join (thread);

  written = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (written), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (written), ==, W);
  g_assert_cmpint (cairo_image_surface_get_height (written), ==, H);
  g_assert_cmpuint (count_different (written, f.surface), ==, 0);
  g_assert_cmpuint (count_different (written, later), >, 100);

  /* A file that cannot be written says so, naming it. */
  g_assert_false (gml_export_drawing_write (drawing, bad, GML_EXPORT_PNG, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no-such-folder"));

  /* A picture that cannot be made (wider than an image may be) leaves the file it
   * was to replace as it was: the file is replaced whole or not at all. */
  {
    g_autoptr(GmlExportDrawing) huge = gml_picture_draw_for_export (f.picture, GML_VIEW_MEMORY_MAP,
                                                                     &style, 40000, 100);
    g_autofree char *contents = NULL;
    g_autoptr(GError) huge_error = NULL;

    g_assert_true (g_file_set_contents (png, "old", -1, NULL));
    g_assert_false (gml_export_drawing_write (huge, png, GML_EXPORT_PNG, &huge_error));
    g_assert_error (huge_error, G_IO_ERROR, G_IO_ERROR_FAILED);
    g_assert_true (g_file_get_contents (png, &contents, NULL, NULL));
    g_assert_cmpstr (contents, ==, "old");
  }

  cairo_surface_destroy (written);
  cairo_surface_destroy (later);
  fixture_close (&f);
  g_unlink (png);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);
  app = g_getenv ("GML_APP");

  /* The real snapshot is its own meson test, skipped where the fixtures are not. */
  if (argc == 2 && g_str_equal (argv[1], "--real"))
    {
      g_test_add_func ("/render/snapshot/pictures", test_snapshot_pictures);
      return g_test_run ();
    }
  g_test_add_func ("/render/memory-map/block-colour", test_block_colour);
  g_test_add_func ("/render/memory-map/cached-hatched", test_cached_block_hatched);
  g_test_add_func ("/render/memory-map/hit", test_hit);
  g_test_add_func ("/render/memory-map/whole-blocks", test_map_whole_blocks);
  g_test_add_func ("/render/memory-map/big-and-small", test_map_big_and_small);
  g_test_add_func ("/render/memory-map/dense", test_map_dense);
  g_test_add_func ("/render/memory-map/mark", test_map_mark);
  g_test_add_func ("/render/memory-map/bar-matches-map", test_bar_matches_map);
  g_test_add_func ("/render/picture/offers-view", test_offers_view);
  g_test_add_func ("/render/timeline/reserved-height", test_timeline_reserved_height);
  g_test_add_func ("/render/timeline/replays", test_timeline_replays);
  g_test_add_func ("/render/checkpointing/layers", test_checkpointing_layers);
  g_test_add_func ("/render/descriptions", test_descriptions);
  g_test_add_func ("/render/export/path", test_export_path);
  g_test_add_func ("/render/export/drawing", test_export_drawing);
  g_test_add_func ("/render/cli/files", test_cli_files);
  g_test_add_func ("/render/cli/errors", test_cli_errors);

  return g_test_run ();
}

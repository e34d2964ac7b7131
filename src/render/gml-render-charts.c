/* gml-render-charts.c — fragmentation gauge, timeline and checkpointing chart.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-render"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "gml-render-private.h"

#define MARGIN 8.0

static double
line_height (const GmlRenderStyle *style)
{
  return ceil (style->font_size * 1.45);
}

/* ------------------------------------------------------------------------- */
/* Fragmentation                                                             */

typedef struct
{
  GArray *holes;      /* guint64 sizes of free blocks, address order */
  guint64 total;
} Holes;

static void
collect_hole_cb (const GmlSegmentInfo *segment,
                 const GmlBlockInfo   *block,
                 gpointer              user_data)
{
  Holes *h = user_data;

  if (block->state == GML_BLOCK_FREE)
    {
      g_array_append_val (h->holes, block->size);
      h->total += block->size;
    }
}

void
gml_render_fragmentation (cairo_t                    *cr,
                          const GmlFragmentationData *data,
                          const GmlRenderStyle       *style,
                          int                         width,
                          int                         height)
{
  const GmlPalette *pal = &style->palette;
  Holes h = { g_array_new (FALSE, FALSE, sizeof (guint64)), 0 };
  guint64 largest = gml_mem_state_get_largest_free_block (data->state);
  double frag = gml_mem_state_get_fragmentation (data->state);
  double lh = line_height (style);
  double label_w = 0, x0, bar_w, y, bar_h, scale;
  guint64 top;
  g_autofree char *t_total = NULL;
  g_autofree char *t_largest = gml_format_size_short (largest);
  g_autofree char *t_frag = NULL;
  const char *labels[4];
  guint n_rows = data->request > 0 ? 4 : 3;

  _gml_background (cr, style, width, height);
  gml_mem_state_foreach_block (data->state, collect_hole_cb, &h);
  t_total = gml_format_size_short (h.total);

  /* The gauge: how much of the free memory is outside the largest block. */
  t_frag = g_strdup_printf (_("Fragmentation %d %%"), (int) round (frag * 100));
  _gml_text (cr, style, t_frag, MARGIN, MARGIN, 1.3, GML_TEXT_BOLD, &pal->foreground, 0);
  {
    double gx = MARGIN, gy = MARGIN + lh * 1.4, gw = width - 2 * MARGIN, gh = lh * 0.8;

    cairo_rectangle (cr, gx, gy, gw, gh);
    _gml_set_color (cr, &pal->grid);
    cairo_fill (cr);
    cairo_rectangle (cr, gx, gy, gw * frag, gh);
    _gml_set_color (cr, frag > 0.5 ? &pal->oom : &pal->reserved);
    cairo_fill (cr);
  }

  labels[0] = _("Free in the cache");
  labels[1] = _("Largest free block");
  labels[2] = _("GPU can still give");
  labels[3] = _("Request");
  for (guint i = 0; i < n_rows; i++)
    {
      double tw;

      _gml_text_size (cr, style, labels[i], 1.0, 0, &tw, NULL);
      label_w = MAX (label_w, tw);
    }
  x0 = MARGIN + label_w + 12;
  bar_w = MAX (width - x0 - MARGIN - 90, 20);
  y = MARGIN + lh * 2.8;
  bar_h = MIN (MAX ((height - y - MARGIN - lh * 1.5) / n_rows - lh * 0.9, 10), 48);
  top = MAX (MAX (h.total, data->request), data->device_free);
  scale = top > 0 ? bar_w / top : 0;

  for (guint row = 0; row < n_rows; row++)
    {
      double ry = y + row * (bar_h + lh * 0.9);
      g_autofree char *value = NULL;

      _gml_text (cr, style, labels[row], MARGIN, ry + (bar_h - style->font_size * 1.2) / 2, 1.0, 0,
                 &pal->foreground, 0);
      cairo_rectangle (cr, x0, ry, bar_w, bar_h);
      _gml_set_color (cr, &pal->grid);
      cairo_set_line_width (cr, style->line_width);
      cairo_stroke (cr);

      switch (row)
        {
        case 0:
          {
            /* Each hole as its own hatched piece: the gaps are the point. */
            double x = x0;

            for (guint i = 0; i < h.holes->len; i++)
              {
                double w = g_array_index (h.holes, guint64, i) * scale;

                cairo_rectangle (cr, x, ry, MAX (w - (w > 3 ? 1 : 0), 0.5), bar_h);
                _gml_fill_hatched (cr, &pal->free_fill, &pal->hatch, style->line_width);
                x += w;
              }
            value = g_strdup (t_total);
          }
          break;
        case 1:
          cairo_rectangle (cr, x0, ry, largest * scale, bar_h);
          _gml_fill_hatched (cr, &pal->free_fill, &pal->hatch, style->line_width);
          value = g_strdup (t_largest);
          break;
        case 2:
          cairo_rectangle (cr, x0, ry, data->device_free * scale, bar_h);
          _gml_set_color_alpha (cr, &pal->allocated, 0.5);
          cairo_fill (cr);
          value = gml_format_size_short (data->device_free);
          break;
        default:
          {
            double fit = MIN (data->request, largest) * scale;
            double all = data->request * scale;

            cairo_rectangle (cr, x0, ry, fit, bar_h);
            _gml_set_color (cr, &pal->category[GML_CATEGORY_ACTIVATIONS]);
            cairo_fill (cr);
            if (data->request > largest)
              {
                /* The part that does not fit in any hole. */
                cairo_rectangle (cr, x0 + fit, ry, all - fit, bar_h);
                _gml_set_color (cr, &pal->oom);
                cairo_fill (cr);
                cairo_move_to (cr, x0 + fit, ry - 4);
                cairo_line_to (cr, x0 + fit, ry + bar_h + 4);
                _gml_set_color (cr, &pal->foreground);
                cairo_set_line_width (cr, 2 * style->line_width);
                cairo_stroke (cr);
              }
            value = gml_format_size_short (data->request);
          }
          break;
        }
      _gml_text (cr, style, value, x0 + bar_w + 8, ry + (bar_h - style->font_size * 1.2) / 2, 1.0,
                 GML_TEXT_BOLD, row == 3 && data->request_failed ? &pal->oom : &pal->foreground, 0);
    }

  {
    g_autofree char *summary = gml_describe_fragmentation (data);

    _gml_text (cr, style, summary, MARGIN, height - MARGIN - lh, 0.95, 0, &pal->dim, 0);
  }
  g_array_unref (h.holes);
}

char *
gml_describe_fragmentation (const GmlFragmentationData *data)
{
  Holes h = { g_array_new (FALSE, FALSE, sizeof (guint64)), 0 };
  g_autofree char *t_total = NULL;
  g_autofree char *t_largest = gml_format_size_short (gml_mem_state_get_largest_free_block (data->state));
  int frag = (int) round (gml_mem_state_get_fragmentation (data->state) * 100);
  char *text;

  gml_mem_state_foreach_block (data->state, collect_hole_cb, &h);
  t_total = gml_format_size_short (h.total);
  g_array_unref (h.holes);

  if (data->request > 0 && data->request_failed)
    {
      g_autofree char *req = gml_format_size_short (data->request);
      /* Translators: sizes, then a percentage, then a size. */
      text = g_strdup_printf (_("Free in the cache %s, largest free block %s, fragmentation %d %%; "
                                "a request for %s does not fit."), t_total, t_largest, frag, req);
    }
  else
    /* Translators: sizes, then a percentage. */
    text = g_strdup_printf (_("Free in the cache %s, largest free block %s, fragmentation %d %%."),
                            t_total, t_largest, frag);
  return text;
}

/* ------------------------------------------------------------------------- */
/* Timeline                                                                  */

void
gml_timeline_layout (const GmlTimelineData *data,
                     const GmlRenderStyle  *style,
                     int                    width,
                     int                    height,
                     GmlRect               *plot,
                     guint64               *top)
{
  double lh = line_height (style);
  guint64 max = data->capacity;

  if (max == 0)
    for (gsize i = 0; i < data->n_points; i++)
      max = MAX (max, MAX (data->reserved[i], data->allocated[i]));
  if (max == 0)
    max = 1;

  plot->x = MARGIN + style->font_size * 5.5;
  plot->y = MARGIN + lh * 1.6;
  plot->width = MAX (width - plot->x - MARGIN, 10);
  plot->height = MAX (height - plot->y - MARGIN - lh * 1.4, 10);
  if (top)
    *top = max;
}

gsize
gml_timeline_point_at_x (const GmlTimelineData *data,
                         const GmlRenderStyle  *style,
                         int                    width,
                         int                    height,
                         double                 x)
{
  GmlRect plot;
  double f;

  if (data->n_points == 0)
    return 0;
  gml_timeline_layout (data, style, width, height, &plot, NULL);
  f = (x - plot.x) / plot.width;
  return (gsize) CLAMP (floor (f * data->n_points), 0, (double) data->n_points - 1);
}

static double
value_y (const GmlRect *plot,
         guint64        top,
         guint64        value)
{
  return plot->y + plot->height * (1.0 - (double) MIN (value, top) / top);
}

void
gml_render_timeline (cairo_t               *cr,
                     const GmlTimelineData *data,
                     const GmlRenderStyle  *style,
                     int                    width,
                     int                    height)
{
  const GmlPalette *pal = &style->palette;
  GmlRect plot;
  guint64 top;
  int columns;
  double lh = line_height (style);
  double lx;

  _gml_background (cr, style, width, height);
  gml_timeline_layout (data, style, width, height, &plot, &top);
  columns = MAX ((int) plot.width, 1);

  /* Grid and scale: 0, half and the top (the capacity). */
  cairo_set_line_width (cr, 1);
  for (int i = 0; i <= 4; i++)
    {
      double gy = plot.y + plot.height * i / 4.0;

      cairo_move_to (cr, plot.x, round (gy) + 0.5);
      cairo_line_to (cr, plot.x + plot.width, round (gy) + 0.5);
    }
  _gml_set_color (cr, &pal->grid);
  cairo_stroke (cr);
  for (int i = 0; i <= 4; i += 2)
    {
      g_autofree char *t = gml_format_size_short (top * (4 - i) / 4);

      _gml_text (cr, style, t, plot.x - 6, plot.y + plot.height * i / 4.0 - style->font_size * 0.6,
                 0.85, 0, &pal->dim, 1.0);
    }

  if (data->n_points > 0)
    {
      /* Each pixel column covers a range of points: draw its minimum to maximum,
       * so a million events cost one pass and nothing is lost between pixels. */
      double px_per_point = plot.width / data->n_points;

      double *lo_y = g_new (double, columns);
      double *hi_y = g_new (double, columns);
      double *alloc_y = g_new (double, columns);

      for (int c = 0; c < columns; c++)
        {
          gsize i0 = (gsize) ((double) c / columns * data->n_points);
          gsize i1 = MAX (i0 + 1, (gsize) ((double) (c + 1) / columns * data->n_points));
          guint64 lo = G_MAXUINT64, hi = 0, ahi = 0;

          i1 = MIN (i1, data->n_points);
          for (gsize i = i0; i < i1; i++)
            {
              guint64 r = data->reserved[i];

              lo = r < lo ? r : lo;
              hi = r > hi ? r : hi;
              ahi = data->allocated[i] > ahi ? data->allocated[i] : ahi;
            }
          lo_y[c] = value_y (&plot, top, lo);
          hi_y[c] = value_y (&plot, top, hi);
          alloc_y[c] = value_y (&plot, top, ahi);
        }

      /* Allocated as a filled area with its edge, reserved as a thick line; both
       * as one pixel-wide rectangles per column, which Cairo fills far faster
       * than it strokes a polyline of thousands of joins. */
      cairo_save (cr);
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
      for (int c = 0; c < columns; c++)
        cairo_rectangle (cr, plot.x + c, alloc_y[c], 1, plot.y + plot.height - alloc_y[c]);
      _gml_set_color_alpha (cr, &pal->allocated, 0.35);
      cairo_fill (cr);
      for (int c = 0; c < columns; c++)
        {
          double prev = c > 0 ? alloc_y[c - 1] : alloc_y[c];
          double y0 = MIN (prev, alloc_y[c]) - style->line_width / 2;
          double y1 = MAX (prev, alloc_y[c]) + style->line_width / 2;

          cairo_rectangle (cr, plot.x + c, floor (y0), 1, MAX (ceil (y1) - floor (y0), 1));
        }
      _gml_set_color (cr, &pal->allocated);
      cairo_fill (cr);
      for (int c = 0; c < columns; c++)
        {
          double prev_lo = c > 0 ? lo_y[c - 1] : lo_y[c];
          double prev_hi = c > 0 ? hi_y[c - 1] : hi_y[c];
          double y0 = MIN (MIN (hi_y[c], prev_hi), MIN (lo_y[c], prev_lo)) - style->line_width;
          double y1 = MAX (MAX (hi_y[c], prev_hi), MAX (lo_y[c], prev_lo)) + style->line_width;

          /* Between neighbouring columns the line only has to join them. */
          if (c > 0)
            {
              y0 = MAX (y0, MIN (hi_y[c], prev_lo) - style->line_width);
              y1 = MIN (y1, MAX (lo_y[c], prev_hi) + style->line_width);
            }
          cairo_rectangle (cr, plot.x + c, floor (y0), 1, MAX (ceil (y1) - floor (y0), 2));
        }
      _gml_set_color (cr, &pal->reserved);
      cairo_fill (cr);
      cairo_restore (cr);
      g_free (lo_y);
      g_free (hi_y);
      g_free (alloc_y);

      /* Markers: at most one per pixel column. */
      if (data->marks != NULL)
        {
          int last_column = -1;

          for (gsize i = 0; i < data->n_points; i++)
            {
              int c;
              double mx;
              gboolean oom;

              if (data->marks[i] == 0)
                continue;
              c = (int) (i * px_per_point);
              if (c == last_column)
                continue;
              last_column = c;
              oom = (data->marks[i] & GML_TIMELINE_MARK_OOM) != 0;
              mx = round (plot.x + (i + 0.5) * px_per_point) + 0.5;
              cairo_move_to (cr, mx, plot.y);
              cairo_line_to (cr, mx, plot.y + plot.height);
              _gml_set_color (cr, oom ? &pal->oom : &pal->empty_cache);
              cairo_set_line_width (cr, (data->highlight && i == data->cursor ? 3 : 1.5) * style->line_width);
              if (!oom)
                cairo_set_dash (cr, (double[]) { 5, 3 }, 2, 0);
              cairo_stroke (cr);
              cairo_set_dash (cr, NULL, 0, 0);
              if (px_per_point >= 24)
                _gml_text (cr, style, oom ? _("OOM") : "empty_cache()", mx + 3, plot.y + 2, 0.8,
                           GML_TEXT_BOLD, oom ? &pal->oom : &pal->empty_cache, 0);
            }
        }

      if (data->cursor < data->n_points)
        {
          double cx = round (plot.x + (data->cursor + 0.5) * px_per_point);

          cairo_move_to (cr, cx, plot.y - 4);
          cairo_line_to (cr, cx, plot.y + plot.height + 4);
          _gml_set_color (cr, &pal->cursor);
          cairo_set_line_width (cr, 2 * style->line_width);
          cairo_stroke (cr);
          cairo_arc (cr, cx, value_y (&plot, top, data->reserved[data->cursor]), 4.5, 0, 2 * G_PI);
          _gml_set_color (cr, &pal->reserved);
          cairo_fill (cr);
          cairo_arc (cr, cx, value_y (&plot, top, data->allocated[data->cursor]), 4.5, 0, 2 * G_PI);
          _gml_set_color (cr, &pal->allocated);
          cairo_fill (cr);
        }
    }

  /* Legend on top, axis name below. */
  lx = plot.x;
  cairo_rectangle (cr, lx, MARGIN + lh * 0.3, 14, 4);
  _gml_set_color (cr, &pal->reserved);
  cairo_fill (cr);
  lx += 18 + _gml_text (cr, style, _("Reserved"), lx + 18, MARGIN, 0.95, 0, &pal->foreground, 0) + 16;
  cairo_rectangle (cr, lx, MARGIN + lh * 0.15, 14, 10);
  _gml_set_color_alpha (cr, &pal->allocated, 0.6);
  cairo_fill (cr);
  lx += 18 + _gml_text (cr, style, _("Allocated"), lx + 18, MARGIN, 0.95, 0, &pal->foreground, 0) + 16;
  cairo_move_to (cr, lx + 7, MARGIN + 2);
  cairo_line_to (cr, lx + 7, MARGIN + lh - 2);
  _gml_set_color (cr, &pal->empty_cache);
  cairo_set_dash (cr, (double[]) { 3, 2 }, 2, 0);
  cairo_set_line_width (cr, 2);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  lx += 18 + _gml_text (cr, style, "empty_cache()", lx + 14, MARGIN, 0.95, 0, &pal->foreground, 0) + 12;
  cairo_move_to (cr, lx + 7, MARGIN + 2);
  cairo_line_to (cr, lx + 7, MARGIN + lh - 2);
  _gml_set_color (cr, &pal->oom);
  cairo_stroke (cr);
  _gml_text (cr, style, _("Out of memory"), lx + 14, MARGIN, 0.95, 0, &pal->foreground, 0);

  {
    g_autofree char *axis = NULL;

    if (data->cursor < data->n_points)
      /* Translators: the position on the timeline: "Step 3 of 12". */
      axis = g_strdup_printf (_("Step %u of %u"), (guint) data->cursor, (guint) data->n_points - 1);
    else
      axis = g_strdup (_("Steps"));
    _gml_text (cr, style, axis, plot.x + plot.width / 2, plot.y + plot.height + 4, 0.9, 0,
               &pal->dim, 0.5);
  }
}

char *
gml_describe_timeline (const GmlTimelineData *data)
{
  guint64 peak = 0;
  g_autofree char *t_peak = NULL;
  g_autofree char *t_res = NULL;
  g_autofree char *t_alloc = NULL;
  gsize at = data->cursor < data->n_points ? data->cursor : (data->n_points > 0 ? data->n_points - 1 : 0);

  if (data->n_points == 0)
    return g_strdup (_("Nothing has happened yet."));
  for (gsize i = 0; i < data->n_points; i++)
    peak = MAX (peak, data->reserved[i]);
  t_peak = gml_format_size_short (peak);
  t_res = gml_format_size_short (data->reserved[at]);
  t_alloc = gml_format_size_short (data->allocated[at]);
  /* Translators: step number, number of the last step, then sizes. */
  return g_strdup_printf (_("Step %u of %u: allocated %s, reserved %s; peak reserved %s."),
                          (guint) at, (guint) data->n_points - 1, t_alloc, t_res, t_peak);
}

/* ------------------------------------------------------------------------- */
/* Checkpointing                                                             */

gboolean
gml_checkpointing_layout (const GmlCheckpointData *data,
                          const GmlRenderStyle    *style,
                          int                      width,
                          int                      height,
                          guint                    index,
                          GmlRect                 *plot,
                          guint64                 *top)
{
  guint n = data->scenario != NULL ? gml_scenario_get_n_strategies (data->scenario) : 0;
  double lh = line_height (style);
  double text_w = MIN (MAX (width * 0.3, 150), 260);
  double chart_x = MARGIN + text_w + 10;
  double top_y = MARGIN + lh * 1.5;
  double row_h;

  if (index >= n)
    return FALSE;
  row_h = (height - top_y - MARGIN) / n;
  *top = 1;
  for (guint s = 0; s < n; s++)
    *top = MAX (*top, gml_scenario_get_strategy (data->scenario, s)->peak_bytes);
  plot->x = chart_x;
  plot->y = top_y + index * row_h;
  plot->width = MAX (width - chart_x - MARGIN, 10);
  plot->height = row_h - lh * 0.8;
  return TRUE;
}

void
gml_checkpointing_layer_color (const GmlRenderStyle *style,
                               guint                 layer,
                               gboolean              recomputed,
                               GmlColor             *color)
{
  const GmlPalette *pal = &style->palette;
  const GmlColor *base = &pal->category[recomputed ? GML_CATEGORY_TEMPORARY : GML_CATEGORY_ACTIVATIONS];
  /* Every other layer a third of the way to the background: neighbours stay
   * apart even where a separator is too thin to see. */
  double t = layer % 2 == 1 ? 0.35 : 0.0;

  color->red = base->red + (pal->background.red - base->red) * t;
  color->green = base->green + (pal->background.green - base->green) * t;
  color->blue = base->blue + (pal->background.blue - base->blue) * t;
  color->alpha = 1.0;
}

void
gml_render_checkpointing (cairo_t                 *cr,
                          const GmlCheckpointData *data,
                          const GmlRenderStyle    *style,
                          int                      width,
                          int                      height)
{
  const GmlPalette *pal = &style->palette;
  guint n = data->scenario != NULL ? gml_scenario_get_n_strategies (data->scenario) : 0;
  guint n_layers = data->scenario != NULL ? gml_scenario_get_n_layers (data->scenario) : 0;
  double lh = line_height (style);

  _gml_background (cr, style, width, height);
  if (n == 0)
    {
      _gml_text (cr, style, _("Choose the checkpointing scenario to compare strategies."),
                 width / 2.0, height / 2.0 - lh, 1.0, 0, &pal->dim, 0.5);
      return;
    }

  /* Legend. */
  {
    GmlRect plot;
    guint64 top;
    double lx;

    gml_checkpointing_layout (data, style, width, height, 0, &plot, &top);
    lx = plot.x;
    struct { const char *name; const GmlColor *color; gboolean hatched; } items[] = {
      { gml_category_display_name (GML_CATEGORY_WEIGHTS), &pal->category[GML_CATEGORY_WEIGHTS], FALSE },
      { _("Stored activations"), &pal->category[GML_CATEGORY_ACTIVATIONS], FALSE },
      { _("Recomputed activations"), &pal->category[GML_CATEGORY_TEMPORARY], TRUE },
    };

    for (guint i = 0; i < G_N_ELEMENTS (items); i++)
      {
        cairo_rectangle (cr, lx, MARGIN + 3, style->font_size, style->font_size);
        if (items[i].hatched)
          _gml_fill_hatched (cr, items[i].color, &pal->background, style->line_width);
        else
          {
            _gml_set_color (cr, items[i].color);
            cairo_fill (cr);
          }
        lx += style->font_size + 4;
        lx += _gml_text (cr, style, items[i].name, lx, MARGIN, 0.95, 0, &pal->foreground, 0) + 14;
      }
  }

  for (guint s = 0; s < n; s++)
    {
      const GmlCheckpointStrategy *st = gml_scenario_get_strategy (data->scenario, s);
      GmlRect plot;
      guint64 top;
      double ry, ch, chart_x, chart_w;
      guint points = st->other->len;
      gboolean current = data->step >= st->first_step && data->step <= st->last_step;
      g_autofree char *t_peak = gml_format_size_short (st->peak_bytes);
      g_autofree char *line1 = NULL;
      g_autofree char *line2 = NULL;
      g_autofree char *line3 = NULL;
      double peak_y;
      guint peak_at = 0;
      guint64 peak_seen = 0;

      gml_checkpointing_layout (data, style, width, height, s, &plot, &top);
      ry = plot.y;
      ch = plot.height;
      chart_x = plot.x;
      chart_w = plot.width;

      _gml_text (cr, style, st->name, MARGIN, ry, 1.05, GML_TEXT_BOLD,
                 current ? &pal->highlight : &pal->foreground, 0);
      /* Translators: %s is a size. */
      line1 = g_strdup_printf (_("Peak %s"), t_peak);
      /* Translators: counts of activations. */
      line2 = g_strdup_printf (_("%u stored, %u recomputed"), st->n_stored, st->n_recomputed);
      /* Translators: %d is a percentage of one forward pass. */
      line3 = g_strdup_printf (_("Extra compute: +%d %% of a forward pass"),
                               (int) round (st->extra_compute * 100));
      if (ch > lh * 3.2)
        {
          _gml_text (cr, style, line1, MARGIN, ry + lh * 1.1, 0.95, 0, &pal->foreground, 0);
          _gml_text (cr, style, line2, MARGIN, ry + lh * 2.1, 0.9, 0, &pal->dim, 0);
          _gml_text (cr, style, line3, MARGIN, ry + lh * 3.1, 0.9, 0, &pal->dim, 0);
        }
      else
        _gml_text (cr, style, line1, MARGIN, ry + lh * 1.1, 0.95, 0, &pal->foreground, 0);

      cairo_rectangle (cr, chart_x, ry, chart_w, ch);
      _gml_set_color (cr, &pal->grid);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
      if (points == 0)
        continue;

      /* Stacked, as the allocator held them after each step: weights and the
       * rest at the bottom, then one band per layer's activation in layer
       * order, hatched where the backward pass recomputed it. */
      for (guint i = 0; i < points; i++)
        {
          double bx = chart_x + i * chart_w / points;
          double bw = chart_w / points;
          guint64 lo = g_array_index (st->other, guint64, i);
          guint64 sum = lo;

          if (lo > 0)
            {
              double y0 = ry + ch * (1.0 - (double) lo / top);

              cairo_rectangle (cr, bx, y0, bw + 0.5, ry + ch - y0);
              _gml_set_color (cr, &pal->category[GML_CATEGORY_WEIGHTS]);
              cairo_fill (cr);
            }
          for (guint layer = 0; layer < n_layers && (i + 1) * n_layers <= st->layer_live->len; layer++)
            {
              guint64 live = g_array_index (st->layer_live, guint64, i * n_layers + layer);
              gboolean again = g_array_index (st->layer_recomputed, guint8, i * n_layers + layer);
              GmlColor color;
              double y0, y1;

              if (live == 0)
                continue;
              y1 = ry + ch * (1.0 - (double) lo / top);
              lo += live;
              y0 = ry + ch * (1.0 - (double) lo / top);
              gml_checkpointing_layer_color (style, layer, again, &color);
              cairo_rectangle (cr, bx, y0, bw + 0.5, y1 - y0);
              if (again)
                _gml_fill_hatched (cr, &color, &pal->background, style->line_width);
              else
                {
                  _gml_set_color (cr, &color);
                  cairo_fill (cr);
                }
              /* A hairline separator on top of each band. */
              if (y1 - y0 >= 4)
                {
                  cairo_rectangle (cr, bx, y0, bw + 0.5, 1);
                  _gml_set_color (cr, &pal->background);
                  cairo_fill (cr);
                }
            }
          /* Anything allocated not accounted for by a layer (none today) is
           * still drawn, so the stack always adds up to the allocator's figure. */
          sum += g_array_index (st->stored, guint64, i) + g_array_index (st->recomputed, guint64, i);
          if (sum > lo)
            {
              double y0 = ry + ch * (1.0 - (double) sum / top);
              double y1 = ry + ch * (1.0 - (double) lo / top);

              cairo_rectangle (cr, bx, y0, bw + 0.5, y1 - y0);
              _gml_set_color (cr, &pal->category[GML_CATEGORY_ACTIVATIONS]);
              cairo_fill (cr);
            }
          if (sum > peak_seen)
            {
              peak_seen = sum;
              peak_at = i;
            }
        }

      peak_y = round (ry + ch * (1.0 - (double) st->peak_bytes / top)) + 0.5;
      cairo_move_to (cr, chart_x, peak_y);
      cairo_line_to (cr, chart_x + chart_w, peak_y);
      _gml_set_color (cr, &pal->oom);
      cairo_set_dash (cr, (double[]) { 4, 3 }, 2, 0);
      cairo_set_line_width (cr, style->line_width);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      _gml_text (cr, style, line1, chart_x + chart_w - 4, MAX (peak_y - lh, ry), 0.85, GML_TEXT_BOLD,
                 &pal->oom, 1.0);
      /* The step that held the most: a marker on top of its stack. */
      if (points > 0 && peak_seen > 0)
        {
          double px = chart_x + (peak_at + 0.5) * chart_w / points;
          double py = ry + ch * (1.0 - (double) peak_seen / top);

          cairo_move_to (cr, px, py - 1);
          cairo_line_to (cr, px - 5, py - 8);
          cairo_line_to (cr, px + 5, py - 8);
          cairo_close_path (cr);
          _gml_set_color (cr, &pal->oom);
          cairo_fill (cr);
        }

      if (current)
        {
          double cx = chart_x + (data->step - st->first_step + 0.5) * chart_w / points;

          cairo_move_to (cr, round (cx), ry - 2);
          cairo_line_to (cr, round (cx), ry + ch + 2);
          _gml_set_color (cr, &pal->cursor);
          cairo_set_line_width (cr, 2 * style->line_width);
          cairo_stroke (cr);
        }
    }
}

char *
gml_describe_checkpointing (const GmlCheckpointData *data)
{
  GString *text = g_string_new (NULL);
  guint n = data->scenario != NULL ? gml_scenario_get_n_strategies (data->scenario) : 0;

  if (n == 0)
    return g_strdup (_("No checkpointing strategies in this scenario."));
  for (guint s = 0; s < n; s++)
    {
      const GmlCheckpointStrategy *st = gml_scenario_get_strategy (data->scenario, s);
      g_autofree char *peak = gml_format_size_short (st->peak_bytes);

      if (s > 0)
        g_string_append (text, "; ");
      /* Translators: strategy name, size, counts, percentage. */
      g_string_append_printf (text, _("%s: peak %s, %u stored, %u recomputed, +%d %% compute"),
                              st->name, peak, st->n_stored, st->n_recomputed,
                              (int) round (st->extra_compute * 100));
    }
  g_string_append_c (text, '.');
  return g_string_free (text, FALSE);
}

/* gml-render-bars.c — the comparison view: one bar per run, setting or device.
 *
 * A bar is the engine's bytes at one step, stacked by what they are (weights,
 * cached free memory, the CUDA context, a request and its segment). Bars share
 * one scale, so "half", "four times" and "the same" can be seen. Before the step
 * a bar is measured at, it is drawn empty with its label, so the picture shows
 * the experiment's setup without the answer; a bar marked "reveal" shows only
 * its total until the question is answered.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-render"

#include "config.h"

#include <math.h>
#include <string.h>
#include "gml-i18n.h"
#include "gml-lab.h"

#include "gml-render-private.h"

#define MARGIN 10.0
#define TOTAL_PART GML_N_BAR_PARTS   /* a revealed bar's single part, before the answer */

const char *
gml_bar_part_display_name (guint part)
{
  switch (part)
    {
    case GML_BAR_CACHED: return _("Reserved, free (cached)");
    case GML_BAR_OTHER: return _("Outside the allocator (CUDA context)");
    case GML_BAR_PINNED: return _("Pinned host memory");
    case GML_BAR_MANAGED: return _("Managed memory pages");
    case GML_BAR_REQUESTED: return _("Requested");
    case GML_BAR_BLOCK: return _("Block, after rounding");
    case GML_BAR_SEGMENT: return _("Segment");
    case GML_BAR_DEVICE_FREE: return _("Free on the GPU");
    case GML_BAR_ALLOCATED: return _("Allocated by PyTorch");
    case TOTAL_PART: return _("In use (what it is made of shows after the answer)");
    default:
      return gml_lab_category_name (part < GML_N_CATEGORIES ? part : GML_CATEGORY_NONE);
    }
}

static const GmlColor *
part_color (const GmlRenderStyle *style,
            guint                 part)
{
  const GmlPalette *pal = &style->palette;

  switch (part)
    {
    case GML_BAR_CACHED: return &pal->free_fill;
    case GML_BAR_OTHER: return &pal->other_processes;
    case GML_BAR_PINNED: return &pal->pinned;
    case GML_BAR_MANAGED: return &pal->allocated;
    case GML_BAR_REQUESTED: return &pal->allocated;
    case GML_BAR_BLOCK: return &pal->waste;
    case GML_BAR_SEGMENT: return &pal->reserved;
    case GML_BAR_DEVICE_FREE: return &pal->device_free;
    case GML_BAR_ALLOCATED: return &pal->allocated;
    case TOTAL_PART: return &pal->category[GML_CATEGORY_NONE];
    default: return &pal->category[part < GML_N_CATEGORIES ? part : GML_CATEGORY_NONE];
    }
}

/* Stacking order, left to right: what tensors hold, then what only looks
 * taken (cached free memory), then what is not PyTorch's, then what is free. */
static const guint part_order[] = {
  GML_CATEGORY_WEIGHTS, GML_CATEGORY_GRADIENTS, GML_CATEGORY_OPTIMIZER_STATE,
  GML_CATEGORY_ACTIVATIONS, GML_CATEGORY_KV_CACHE, GML_CATEGORY_TEMPORARY, GML_CATEGORY_NONE,
  GML_BAR_ALLOCATED,
  GML_BAR_REQUESTED, GML_BAR_BLOCK, GML_BAR_SEGMENT, GML_BAR_MANAGED, GML_BAR_PINNED,
  GML_BAR_CACHED, GML_BAR_OTHER, GML_BAR_DEVICE_FREE, TOTAL_PART,
};

G_STATIC_ASSERT (G_N_ELEMENTS (part_order) == GML_N_BAR_PARTS + 1);

/* Which bars stand for @step: a bar is shown from its step to its last one;
 * one not measured yet is drawn empty, unless a shown bar has its label. */
typedef enum
{
  BAR_HIDDEN,
  BAR_PENDING,
  BAR_SHOWN,
} BarState;

static BarState
bar_state (GmlScenario *sc,
           guint        index,
           guint        step)
{
  const GmlBar *bar = gml_scenario_get_bar (sc, index);

  if (bar->step <= step && step <= bar->until)
    return BAR_SHOWN;
  if (bar->step < step)
    return BAR_HIDDEN;
  for (guint i = 0; i < gml_scenario_get_n_bars (sc); i++)
    {
      const GmlBar *other = gml_scenario_get_bar (sc, i);

      if (i != index && g_strcmp0 (other->label, bar->label) == 0 &&
          (other->step <= step && step <= other->until))
        return BAR_HIDDEN;
      /* Of several future bars with one label, only the first waits. */
      if (i < index && g_strcmp0 (other->label, bar->label) == 0 && other->step > step)
        return BAR_HIDDEN;
    }
  return BAR_PENDING;
}

static guint64
bar_sum (const GmlBar *bar)
{
  guint64 sum = 0;

  for (guint p = 0; p < GML_N_BAR_PARTS; p++)
    sum += bar->parts[p];
  return sum;
}

/* The parts to draw: the breakdown, or one total for a bar that waits for the answer. */
static void
bar_parts (const GmlBarsData *data,
           const GmlBar      *bar,
           guint64            parts[GML_N_BAR_PARTS + 1])
{
  memset (parts, 0, sizeof (guint64) * (GML_N_BAR_PARTS + 1));
  if (bar->reveal && !data->pointing)
    parts[TOTAL_PART] = bar_sum (bar);
  else
    memcpy (parts, bar->parts, sizeof bar->parts);
}

/* Below 1 MiB, exact bytes: "1024 B" against "1000 B" is the point of rounding. */
static char *
format_value (GmlScenario *sc,
              guint64      bytes)
{
  if (bytes * gml_scenario_get_scale (sc) < G_GUINT64_CONSTANT (1048576))
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes * gml_scenario_get_scale (sc));
  return gml_scenario_format_size (sc, bytes);
}

static guint
visible_bars (const GmlBarsData *data,
              guint             *indexes,
              guint              max)
{
  guint n = 0;

  for (guint i = 0; i < gml_scenario_get_n_bars (data->scenario) && n < max; i++)
    if (bar_state (data->scenario, i, data->step) != BAR_HIDDEN)
      indexes[n++] = i;
  return n;
}

void
gml_render_bars (cairo_t              *cr,
                 const GmlBarsData    *data,
                 const GmlRenderStyle *style,
                 int                   width,
                 int                   height)
{
  const GmlPalette *pal = &style->palette;
  double fs = style->font_size;
  double lh = ceil (fs * 1.45);
  guint indexes[64];
  guint n, n_legend = 0;
  gboolean used[GML_N_BAR_PARTS + 1] = { FALSE };
  guint64 top = 1, group_top[4] = { 1, 1, 1, 1 };
  const char *note;
  double y, row_h, bar_h, legend_y, x0 = MARGIN, full_w;
  double legend_h;
  double value_w_max = 0;
  guint64 capacity;

  _gml_background (cr, style, width, height);
  if (data->scenario == NULL || gml_scenario_get_n_bars (data->scenario) == 0)
    {
      _gml_text (cr, style, _("This picture has nothing to compare."), MARGIN, MARGIN, 1.0, 0,
                 &pal->dim, 0);
      return;
    }

  n = visible_bars (data, indexes, G_N_ELEMENTS (indexes));
  /* One scale for every bar of the experiment, so it does not jump as bars fill. */
  for (guint i = 0; i < gml_scenario_get_n_bars (data->scenario); i++)
    {
      const GmlBar *b = gml_scenario_get_bar (data->scenario, i);

      group_top[MIN (b->scale_group, 3)] = MAX (group_top[MIN (b->scale_group, 3)], bar_sum (b));
    }
  top = group_top[0];
  capacity = gml_scenario_get_bar_capacity (data->scenario);
  top = MAX (top, capacity);
  /* One width for every bar, so that equal bytes are equal lengths and the
   * capacity line stands at the same place on each. */
  for (guint i = 0; i < n; i++)
    {
      const GmlBar *bar = gml_scenario_get_bar (data->scenario, indexes[i]);
      g_autofree char *v = format_value (data->scenario, bar_sum (bar));
      double vw;

      _gml_text_size (cr, style, v, 1.0, GML_TEXT_BOLD, &vw, NULL);
      value_w_max = MAX (value_w_max, vw);
    }
  for (guint i = 0; i < n; i++)
    {
      const GmlBar *bar = gml_scenario_get_bar (data->scenario, indexes[i]);
      guint64 parts[GML_N_BAR_PARTS + 1];

      if (bar_state (data->scenario, indexes[i], data->step) != BAR_SHOWN)
        continue;
      bar_parts (data, bar, parts);
      for (guint p = 0; p <= GML_N_BAR_PARTS; p++)
        used[p] |= parts[p] > 0;
    }
  for (guint p = 0; p <= GML_N_BAR_PARTS; p++)
    n_legend += used[p];

  /* The legend wraps over as many lines as it needs, at the bottom. */
  {
    double lx = MARGIN;
    guint lines = n_legend > 0 ? 1 : 0;

    for (guint o = 0; o < G_N_ELEMENTS (part_order); o++)
      if (used[part_order[o]])
        {
          guint p = part_order[o];
          double tw;

          _gml_text_size (cr, style, gml_bar_part_display_name (p), 0.92, 0, &tw, NULL);
          if (lx > MARGIN && lx + 18 + tw > width - MARGIN)
            {
              lines++;
              lx = MARGIN;
            }
          lx += 18 + tw + 16;
        }
    legend_h = lines * lh;
  }
  note = gml_scenario_get_bar_note (data->scenario);
  legend_y = height - MARGIN - legend_h;
  if (note != NULL)
    legend_y -= lh;

  full_w = MAX (width - 2 * MARGIN, 20);
  row_h = n > 0 ? MIN ((legend_y - 8 - MARGIN) / n, lh * 4) : lh * 3;
  bar_h = MAX (MIN (row_h - lh - 8, lh * 2.2), 4);
  /* A few bars sit in the middle of the picture, not under its top edge. */
  y = MARGIN + MAX ((legend_y - 8 - MARGIN - n * row_h) / 2, 0);

  for (guint i = 0; i < n; i++)
    {
      const GmlBar *bar = gml_scenario_get_bar (data->scenario, indexes[i]);
      BarState state = bar_state (data->scenario, indexes[i], data->step);
      double by = y + lh, x = x0, bw;
      guint64 parts[GML_N_BAR_PARTS + 1];
      g_autofree char *value = NULL;
      gboolean marked = data->pointing && bar->marked && state == BAR_SHOWN;

      _gml_text (cr, style, bar->label, x0, y, 1.0, marked ? GML_TEXT_BOLD : 0, &pal->foreground,
                 0);

      if (state == BAR_PENDING)
        {
          static const double dash[] = { 4, 3 };

          cairo_save (cr);
          cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
          cairo_set_line_width (cr, style->line_width);
          _gml_set_color (cr, &pal->segment_border);
          cairo_rectangle (cr, x0 + 0.5, by + 0.5, MIN (full_w * 0.25, 120), bar_h - 1);
          cairo_stroke (cr);
          cairo_restore (cr);
          _gml_text (cr, style, "?", x0 + MIN (full_w * 0.25, 120) + 8, by + (bar_h - lh) / 2 + 2,
                     1.0, GML_TEXT_BOLD, &pal->dim, 0);
          y += row_h;
          continue;
        }

      bar_parts (data, bar, parts);
      value = format_value (data->scenario, bar_sum (bar));
      bw = MAX (full_w - value_w_max - 10, 20);
      for (guint o = 0; o < G_N_ELEMENTS (part_order); o++)
        {
          guint p = part_order[o];
          double w;

          if (parts[p] == 0)
            continue;
          /* Every non-empty part stays visible, however small. */
          w = MAX (bw * (double) parts[p] / (bar->scale_group == 0 ? top
                                                 : group_top[MIN (bar->scale_group, 3)]), 2);
          cairo_rectangle (cr, x, by, w, bar_h);
          if (p == GML_BAR_CACHED)
            _gml_fill_hatched (cr, &pal->free_fill, &pal->hatch, style->line_width);
          else
            {
              _gml_set_color (cr, part_color (style, p));
              cairo_fill (cr);
            }
          x += w;
        }
      {
        /* The outline goes around the bar, not into it: a marked bar keeps its
         * length beside an unmarked one of the same bytes. */
        double lw = marked ? 3 * style->line_width : style->line_width;

        cairo_set_line_width (cr, lw);
        _gml_set_color (cr, marked ? &pal->highlight : &pal->segment_border);
        cairo_rectangle (cr, x0 - lw / 2, by - lw / 2, MAX (x - x0, 1) + lw, bar_h + lw);
        cairo_stroke (cr);
      }
      _gml_text (cr, style, value, x + 8, by + (bar_h - lh) / 2 + 2, 1.0, GML_TEXT_BOLD,
                 marked ? &pal->highlight : &pal->foreground, 0);
      y += row_h;
    }

  /* The GPU's memory as a dashed line across the bars, named at its top. */
  if (capacity > 0 && n > 0)
    {
      static const double dash[] = { 5, 3 };
      double bw = MAX (full_w - value_w_max - 10, 20);
      double cx = round (x0 + bw * (double) capacity / top) + 0.5;
      double first_y = MARGIN + MAX ((legend_y - 8 - MARGIN - n * row_h) / 2, 0);
      g_autofree char *size = gml_scenario_format_size (data->scenario, capacity);
      /* Translators: %s is a size, the GPU's memory. */
      g_autofree char *text = g_strdup_printf (_("GPU memory: %s"), size);
      double tw;

      cairo_save (cr);
      cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
      cairo_set_line_width (cr, 2 * style->line_width);
      _gml_set_color (cr, &pal->oom);
      cairo_move_to (cr, cx, first_y + lh - 4);
      cairo_line_to (cr, cx, first_y + n * row_h);
      cairo_stroke (cr);
      cairo_restore (cr);
      _gml_text_size (cr, style, text, 0.92, 0, &tw, NULL);
      _gml_text (cr, style, text, MAX (MIN (cx - tw / 2, width - MARGIN - tw), MARGIN),
                 first_y + n * row_h, 0.92, GML_TEXT_BOLD, &pal->oom, 0);
    }

  /* The scale, then the legend. */
  if (note != NULL)
    _gml_text (cr, style, note, MARGIN, legend_y, 0.92, 0, &pal->dim, 0);
  {
    double lx = MARGIN, ly = height - MARGIN - legend_h;

    for (guint o = 0; o < G_N_ELEMENTS (part_order); o++)
      {
        guint p = part_order[o];
        double tw;

        if (!used[p])
          continue;
        _gml_text_size (cr, style, gml_bar_part_display_name (p), 0.92, 0, &tw, NULL);
        if (lx > MARGIN && lx + 18 + tw > width - MARGIN)
          {
            lx = MARGIN;
            ly += lh;
          }
        cairo_rectangle (cr, lx, ly + 3, 12, 12);
        if (p == GML_BAR_CACHED)
          _gml_fill_hatched (cr, &pal->free_fill, &pal->hatch, style->line_width);
        else
          {
            _gml_set_color (cr, part_color (style, p));
            cairo_fill (cr);
          }
        cairo_rectangle (cr, lx + 0.5, ly + 3.5, 11, 11);
        cairo_set_line_width (cr, 1);
        _gml_set_color (cr, &pal->segment_border);
        cairo_stroke (cr);
        _gml_text (cr, style, gml_bar_part_display_name (p), lx + 18, ly, 0.92, 0, &pal->foreground,
                   0);
        lx += 18 + tw + 16;
      }
  }
}

char *
gml_describe_bars (const GmlBarsData *data)
{
  GString *out;
  guint indexes[64];
  guint n;

  if (data->scenario == NULL || gml_scenario_get_n_bars (data->scenario) == 0)
    return g_strdup (_("This picture has nothing to compare."));

  out = g_string_new (NULL);
  n = visible_bars (data, indexes, G_N_ELEMENTS (indexes));
  for (guint i = 0; i < n; i++)
    {
      const GmlBar *bar = gml_scenario_get_bar (data->scenario, indexes[i]);
      guint64 parts[GML_N_BAR_PARTS + 1];
      g_autofree char *total = NULL;
      GString *detail;
      guint n_parts = 0;

      if (out->len > 0)
        g_string_append_c (out, ' ');
      if (bar_state (data->scenario, indexes[i], data->step) == BAR_PENDING)
        {
          /* Translators: %s is a bar's label, e.g. "Batch 128". */
          g_string_append_printf (out, _("%s: not measured yet."), bar->label);
          continue;
        }
      bar_parts (data, bar, parts);
      total = format_value (data->scenario, bar_sum (bar));
      detail = g_string_new (NULL);
      for (guint o = 0; o < G_N_ELEMENTS (part_order); o++)
        if (parts[part_order[o]] > 0 && part_order[o] != TOTAL_PART)
          {
            guint p = part_order[o];
            g_autofree char *size = format_value (data->scenario, parts[p]);

            if (detail->len > 0)
              g_string_append (detail, ", ");
            /* Translators: a part of a bar and its size, e.g. "Weights 128 MiB". */
            g_string_append_printf (detail, _("%s %s"), gml_bar_part_display_name (p), size);
            n_parts++;
          }
      if (n_parts > 1)
        /* Translators: a bar's label, its total, and its parts. */
        g_string_append_printf (out, _("%s: %s (%s)."), bar->label, total, detail->str);
      else
        /* Translators: a bar's label and its total. */
        g_string_append_printf (out, _("%s: %s."), bar->label, total);
      g_string_free (detail, TRUE);
    }
  if (gml_scenario_get_bar_capacity (data->scenario) > 0)
    {
      guint64 capacity = gml_scenario_get_bar_capacity (data->scenario);
      g_autofree char *size = gml_scenario_format_size (data->scenario, capacity);

      g_string_append_c (out, ' ');
      g_string_append_printf (out, _("GPU memory: %s"), size);
      g_string_append_c (out, '.');
    }
  /* The scale is said by the caption that goes with the picture. */
  return g_string_free (out, FALSE);
}

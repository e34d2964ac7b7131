/* gml-render-charts.c — fragmentation gauge, timeline and checkpointing chart.
 *
 * Each picture is laid out from its text inwards: legends flow over as many
 * lines as their words need, long sentences wrap at word boundaries, and the
 * plots take what is left. Free memory is drawn as the memory map draws it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-render"

#include "config.h"

#include <math.h>
#include "gml-i18n.h"
#include "gml-lab.h"

#include "gml-render-private.h"

#define MARGIN 8.0

/* ------------------------------------------------------------------------- */
/* Swatches of lines and marks                                               */

typedef struct
{
  const GmlColor *color;
  double          width;
  gboolean        dashed;
  gboolean        triangle;
  gboolean        area;       /* a filled area with an edge on top */
} LineSwatch;

static void
swatch_line (cairo_t              *cr,
             const GmlRenderStyle *style,
             const GmlRect        *box,
             gconstpointer         data)
{
  const LineSwatch *s = data;

  cairo_save (cr);
  if (s->area)
    {
      cairo_rectangle (cr, box->x, box->y + box->height * 0.35, box->width, box->height * 0.65);
      _gml_set_color_alpha (cr, s->color, 0.35);
      cairo_fill (cr);
      cairo_rectangle (cr, box->x, box->y + box->height * 0.35, box->width, MAX (s->width, 1.5));
      _gml_set_color (cr, s->color);
      cairo_fill (cr);
    }
  else if (s->triangle && !s->dashed)
    {
      /* A vertical line: a marker across the plot. */
      cairo_move_to (cr, box->x + box->width / 2, box->y);
      cairo_line_to (cr, box->x + box->width / 2, box->y + box->height);
      _gml_set_color (cr, s->color);
      cairo_set_line_width (cr, s->width);
      cairo_stroke (cr);
    }
  else
    {
      double y = round (box->y + box->height / 2) + 0.5;

      if (s->dashed)
        cairo_set_dash (cr, (double[]) { 3, 2 }, 2, 0);
      if (s->triangle)
        {
          /* Dashed vertical line (empty_cache). */
          cairo_move_to (cr, box->x + box->width / 2, box->y);
          cairo_line_to (cr, box->x + box->width / 2, box->y + box->height);
        }
      else
        {
          cairo_move_to (cr, box->x, y);
          cairo_line_to (cr, box->x + box->width, y);
        }
      _gml_set_color (cr, s->color);
      cairo_set_line_width (cr, s->width);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

/* The peak of a checkpointing strategy: a dashed line and a triangle on it. */
static void
swatch_peak (cairo_t              *cr,
             const GmlRenderStyle *style,
             const GmlRect        *box,
             gconstpointer         data)
{
  double y = round (box->y + box->height * 0.7) + 0.5;
  double cx = box->x + box->width / 2;

  cairo_save (cr);
  cairo_set_dash (cr, (double[]) { 3, 2 }, 2, 0);
  cairo_move_to (cr, box->x, y);
  cairo_line_to (cr, box->x + box->width, y);
  _gml_set_color (cr, &style->palette.foreground);
  cairo_set_line_width (cr, style->line_width);
  cairo_stroke (cr);
  cairo_restore (cr);
  cairo_move_to (cr, cx, y - 1);
  cairo_line_to (cr, cx - 4.5, y - 7);
  cairo_line_to (cr, cx + 4.5, y - 7);
  cairo_close_path (cr);
  _gml_set_color (cr, &style->palette.foreground);
  cairo_fill (cr);
}

/* ------------------------------------------------------------------------- */
/* Fragmentation                                                             */

typedef struct
{
  guint64       size;
  GmlMemoryKind kind;
} Hole;

typedef struct
{
  GArray *holes;      /* Hole, address order */
  guint64 total;
  Hole    largest;
  gboolean kinds[GML_N_MEMORY_KINDS];
} Holes;

static void
collect_hole_cb (const GmlSegmentInfo *segment,
                 const GmlBlockInfo   *block,
                 gpointer              user_data)
{
  Holes *h = user_data;

  if (block->state == GML_BLOCK_FREE)
    {
      Hole hole = { block->size, segment->active_bytes > 0 ? GML_MEMORY_KIND_INACTIVE_SPLIT
                                                           : GML_MEMORY_KIND_FREE_CACHED };

      g_array_append_val (h->holes, hole);
      h->total += block->size;
      h->kinds[hole.kind] = TRUE;
      if (hole.size > h->largest.size)
        h->largest = hole;
    }
}

static void
swatch_request (cairo_t              *cr,
                const GmlRenderStyle *style,
                const GmlRect        *box,
                gconstpointer         data)
{
  cairo_rectangle (cr, box->x, box->y, box->width, box->height);
  _gml_set_color (cr, &style->palette.oom);
  cairo_fill (cr);
  cairo_rectangle (cr, box->x + 0.5, box->y + 0.5, box->width - 1, box->height - 1);
  _gml_set_color (cr, &style->palette.foreground);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
}

static void
swatch_request_fits (cairo_t              *cr,
                     const GmlRenderStyle *style,
                     const GmlRect        *box,
                     gconstpointer         data)
{
  cairo_rectangle (cr, box->x + 1, box->y + 1, box->width - 2, box->height - 2);
  _gml_set_color (cr, &style->palette.foreground);
  cairo_set_line_width (cr, 2);
  cairo_stroke (cr);
}

void
gml_render_fragmentation (cairo_t                    *cr,
                          const GmlFragmentationData *data,
                          const GmlRenderStyle       *style,
                          int                         width,
                          int                         height)
{
  const GmlPalette *pal = &style->palette;
  Holes h = { g_array_new (FALSE, FALSE, sizeof (Hole)), 0 };
  double frag = gml_mem_state_get_fragmentation (data->state);
  double lh = _gml_line_height (style);
  double inner = MAX (width - 2 * MARGIN, 1);
  double label_w = 0, value_w = 0, x0, bar_w, y, bar_h, row_gap, th, title_h, footer_h, legend_h;
  guint64 top;
  g_autofree char *t_total = NULL;
  g_autofree char *t_largest = NULL;
  g_autofree char *t_frag = NULL;
  g_autofree char *summary = gml_describe_fragmentation (data);
  char *values[4] = { NULL };
  const char *labels[4];
  guint n_rows = data->request > 0 ? 4 : 3;
  GmlLegendItem items[5];
  guint n_items = 0;
  GmlRect legend, footer, label_box;
  double scale;

  _gml_background (cr, style, width, height);
  gml_mem_state_foreach_block (data->state, collect_hole_cb, &h);
  t_total = gml_format_size_short (h.total);
  t_largest = gml_format_size_short (h.largest.size);

  /* Title and gauge: how much of the free memory is outside the largest block. */
  t_frag = g_strdup_printf (_("Fragmentation %d %%"), (int) round (frag * 100));
  title_h = _gml_paragraph (cr, style, t_frag, MARGIN, MARGIN, inner, 1.3, GML_TEXT_BOLD,
                            &pal->foreground, NULL, NULL);
  {
    double gy = MARGIN + title_h + 4, gh = round (lh * 0.7);

    cairo_rectangle (cr, MARGIN, gy, inner, gh);
    _gml_set_color (cr, &pal->grid);
    cairo_fill (cr);
    cairo_rectangle (cr, MARGIN, gy, inner * frag, gh);
    _gml_set_color (cr, &pal->dim);
    cairo_fill (cr);
    y = gy + gh + lh * 0.6;
  }

  /* The legend: the kinds of free memory the rows show, and the request. */
  for (int k = GML_MEMORY_KIND_FREE_CACHED; k <= GML_MEMORY_KIND_INACTIVE_SPLIT; k++)
    if (h.kinds[k])
      items[n_items++] = (GmlLegendItem) { gml_memory_kind_name (k), _gml_swatch_kind,
                                           GINT_TO_POINTER (k) };
  items[n_items++] = (GmlLegendItem) { gml_memory_kind_name (GML_MEMORY_KIND_NOT_RESERVED),
                                       _gml_swatch_kind,
                                       GINT_TO_POINTER (GML_MEMORY_KIND_NOT_RESERVED) };
  if (data->request > 0)
    {
      items[n_items++] = (GmlLegendItem) { _("Request, where it fits"), swatch_request_fits, NULL };
      if (data->request > h.largest.size)
        items[n_items++] = (GmlLegendItem) { _("Does not fit in any free block"), swatch_request,
                                             NULL };
    }

  /* From the bottom: the summary in words, then the legend. */
  footer_h = _gml_paragraph (cr, style, summary, MARGIN, 0, inner, 0.95, 0, NULL, NULL, NULL);
  footer = (GmlRect) { MARGIN, height - MARGIN - footer_h, inner, footer_h };
  legend = (GmlRect) { MARGIN, 0, inner, 0 };
  legend_h = _gml_legend (cr, style, items, n_items, &legend, FALSE);
  legend.height = legend_h;

  labels[0] = _("Free in the cache");
  labels[1] = _("Largest free block");
  labels[2] = _("GPU can still give");
  labels[3] = _("Request");
  values[0] = g_strdup (t_total);
  values[1] = g_strdup (t_largest);
  /* Translators: what the GPU had left is not in the file. */
  values[2] = data->device_free_unknown ? g_strdup (_("not recorded"))
                                        : gml_format_size_short (data->device_free);
  values[3] = gml_format_size_short (data->request);
  for (guint i = 0; i < n_rows; i++)
    {
      double tw;

      _gml_text_size (cr, style, labels[i], 1.0, 0, &tw, NULL);
      label_w = MAX (label_w, tw);
      _gml_text_size (cr, style, values[i], 1.0, GML_TEXT_BOLD, &tw, NULL);
      value_w = MAX (value_w, tw);
    }
  /* Row names take at most a third of the width, wrapping beyond it. */
  label_w = MIN (label_w, inner * 0.34);
  x0 = MARGIN + label_w + 10;
  bar_w = MAX (inner - label_w - 10 - value_w - 8, 20);
  row_gap = lh * 0.6;
  bar_h = MIN (MAX ((footer.y - 16 - legend_h - y) / n_rows - row_gap, 8), 44);
  /* The legend right under the rows, the summary at the bottom. */
  legend.y = y + n_rows * (bar_h + row_gap) + 4;
  top = MAX (MAX (h.total, data->request), data->device_free_unknown ? 0 : data->device_free);
  scale = top > 0 ? bar_w / top : 0;

  for (guint row = 0; row < n_rows; row++)
    {
      double ry = y + row * (bar_h + row_gap);
      double lhgt = _gml_paragraph (cr, style, labels[row], 0, 0, label_w, 1.0, 0, NULL, NULL,
                                    NULL);

      label_box = (GmlRect) { MARGIN, ry - row_gap / 2, label_w + 4, bar_h + row_gap };
      _gml_paragraph (cr, style, labels[row], MARGIN, ry + (bar_h - lhgt) / 2, label_w, 1.0, 0,
                      &pal->foreground, &label_box, NULL);
      cairo_rectangle (cr, x0 + 0.5, ry + 0.5, bar_w - 1, bar_h - 1);
      _gml_set_color (cr, &pal->grid);
      cairo_set_line_width (cr, style->line_width);
      cairo_stroke (cr);

      switch (row)
        {
        case 0:
          {
            /* Each hole as its own piece, as the map draws it: the gaps are the point. */
            double x = x0;

            for (guint i = 0; i < h.holes->len; i++)
              {
                const Hole *hole = &g_array_index (h.holes, Hole, i);
                double w = hole->size * scale;

                cairo_rectangle (cr, x, ry, MAX (w - (w > 3 ? 1 : 0), 0.5), bar_h);
                gml_render_memory_kind_fill (cr, style, hole->kind);
                x += w;
              }
          }
          break;
        case 1:
          cairo_rectangle (cr, x0, ry, h.largest.size * scale, bar_h);
          gml_render_memory_kind_fill (cr, style, h.largest.kind);
          break;
        case 2:
          if (data->device_free_unknown)
            break;
          cairo_rectangle (cr, x0 + 1, ry + 1, MAX (data->device_free * scale - 2, 0), bar_h - 2);
          _gml_set_color (cr, &pal->segment_border);
          cairo_set_line_width (cr, 2 * style->line_width);
          cairo_stroke (cr);
          break;
        default:
          {
            double fit = MIN (data->request, h.largest.size) * scale;
            double all = data->request * scale;

            if (data->request > h.largest.size)
              {
                /* The part that does not fit in any hole. */
                cairo_rectangle (cr, x0 + fit, ry, all - fit, bar_h);
                _gml_set_color (cr, &pal->oom);
                cairo_fill (cr);
              }
            cairo_rectangle (cr, x0 + 1, ry + 1, MAX (all - 2, 1), bar_h - 2);
            _gml_set_color (cr, &pal->foreground);
            cairo_set_line_width (cr, 2);
            cairo_stroke (cr);
            if (data->request > h.largest.size)
              {
                cairo_move_to (cr, x0 + fit, ry - 4);
                cairo_line_to (cr, x0 + fit, ry + bar_h + 4);
                cairo_set_line_width (cr, 2 * style->line_width);
                cairo_stroke (cr);
              }
          }
          break;
        }
      _gml_text_size (cr, style, values[row], 1.0, GML_TEXT_BOLD, NULL, &th);
      _gml_label (cr, style, values[row], x0 + bar_w + 8, ry + (bar_h - th) / 2, 1.0, GML_TEXT_BOLD,
                  row == 3 && data->request_failed ? &pal->oom : &pal->foreground, 0, NULL);
    }

  _gml_legend (cr, style, items, n_items, &legend, TRUE);
  /* The summary follows the legend (it was given room at the bottom). */
  footer.y = MIN (footer.y, legend.y + legend.height + 8);
  _gml_paragraph (cr, style, summary, MARGIN, footer.y, inner, 0.95, 0, &pal->dim, &footer, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    g_free (values[i]);
  g_array_unref (h.holes);
}

char *
gml_describe_fragmentation (const GmlFragmentationData *data)
{
  Holes h = { g_array_new (FALSE, FALSE, sizeof (Hole)), 0 };
  g_autofree char *t_total = NULL;
  g_autofree char *t_largest =
      gml_format_size_short (gml_mem_state_get_largest_free_block (data->state));
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

/* A replay's line: a category's colour and a dash pattern of its own, so that
 * no two replays are told apart by colour alone. */
typedef struct
{
  const GmlColor *color;
  guint           index;
  double          width;
} ReplaySwatch;

static const double replay_dashes[GML_TIMELINE_MAX_REPLAYS][4] = {
  { 8, 3, 8, 3 }, { 2, 3, 2, 3 }, { 8, 3, 2, 3 }, { 4, 4, 4, 4 },
  { 12, 3, 3, 3 }, { 2, 6, 2, 6 }, { 8, 2, 2, 2 }, { 16, 4, 16, 4 },
};

static void
set_replay_line (cairo_t              *cr,
                 const GmlRenderStyle *style,
                 guint                 index)
{
  cairo_set_dash (cr, replay_dashes[index % GML_TIMELINE_MAX_REPLAYS], 4, 0);
  cairo_set_line_width (cr, 2 * style->line_width);
  _gml_set_color (cr, &style->palette.category[index % GML_N_CATEGORIES]);
}

static void
swatch_replay (cairo_t              *cr,
               const GmlRenderStyle *style,
               const GmlRect        *box,
               gconstpointer         data)
{
  const ReplaySwatch *s = data;
  double y = round (box->y + box->height / 2) + 0.5;

  cairo_save (cr);
  cairo_move_to (cr, box->x, y);
  cairo_line_to (cr, box->x + box->width, y);
  set_replay_line (cr, style, s->index);
  cairo_stroke (cr);
  cairo_restore (cr);
}

typedef struct
{
  GmlLegendItem items[11 + GML_TIMELINE_MAX_REPLAYS];
  guint         n_items;
  LineSwatch    reserved, allocated, empty_cache, oom, cursor, other_reserved, other_allocated;
  char         *names[4];
  char         *replay_names[GML_TIMELINE_MAX_REPLAYS];
  ReplaySwatch  replays[GML_TIMELINE_MAX_REPLAYS];
} TimelineLegend;

/* The points drawn: before an answer only those up to the shown step. */
static gsize
timeline_limit (const GmlTimelineData *data)
{
  return data->n_drawn > 0 ? MIN (data->n_drawn, data->n_points) : data->n_points;
}

static void
swatch_allocated_peak (cairo_t              *cr,
                       const GmlRenderStyle *style,
                       const GmlRect        *box,
                       gconstpointer         data)
{
  cairo_move_to (cr, box->x + box->width / 2, box->y + box->height);
  cairo_line_to (cr, box->x, box->y + box->height * 0.2);
  cairo_line_to (cr, box->x + box->width, box->y + box->height * 0.2);
  cairo_close_path (cr);
  _gml_set_color (cr, &style->palette.allocated);
  cairo_fill (cr);
}

static void
swatch_span (cairo_t              *cr,
             const GmlRenderStyle *style,
             const GmlRect        *box,
             gconstpointer         data)
{
  cairo_rectangle (cr, box->x, box->y + box->height * 0.25, box->width, box->height * 0.5);
  _gml_set_color_alpha (cr, &style->palette.dim, 0.35);
  cairo_fill_preserve (cr);
  _gml_set_color (cr, &style->palette.dim);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
}

static void
timeline_legend_clear (TimelineLegend *l)
{
  for (guint i = 0; i < G_N_ELEMENTS (l->names); i++)
    g_clear_pointer (&l->names[i], g_free);
  for (guint i = 0; i < G_N_ELEMENTS (l->replay_names); i++)
    g_clear_pointer (&l->replay_names[i], g_free);
}

/* The legend lists only what is drawn: a marker kind only where one is. */
static void
timeline_legend (const GmlTimelineData *data,
                 const GmlRenderStyle  *style,
                 TimelineLegend        *l)
{
  const GmlPalette *pal = &style->palette;
  guint8 marks = 0;

  for (gsize i = 0; data->marks != NULL && i < timeline_limit (data); i++)
    marks |= data->marks[i];
  gboolean two = data->other_allocated != NULL;

  memset (l->names, 0, sizeof l->names);
  memset (l->replay_names, 0, sizeof l->replay_names);
  l->reserved = (LineSwatch) { &pal->reserved, 2 * style->line_width, FALSE, FALSE, FALSE };
  l->allocated = (LineSwatch) { &pal->allocated, 1.5 * style->line_width, FALSE, FALSE, TRUE };
  l->empty_cache = (LineSwatch) { &pal->empty_cache, 2, TRUE, TRUE, FALSE };
  l->oom = (LineSwatch) { &pal->oom, 2, FALSE, TRUE, FALSE };
  l->cursor = (LineSwatch) { &pal->cursor, 2 * style->line_width, FALSE, TRUE, FALSE };
  l->other_reserved = (LineSwatch) { &pal->reserved, 2 * style->line_width, TRUE, FALSE, FALSE };
  l->other_allocated = (LineSwatch) { &pal->allocated, 2 * style->line_width, TRUE, FALSE, FALSE };
  l->n_items = 0;
  if (two)
    {
      /* Translators: a run's name (A) and what the line shows. */
      l->names[0] = g_strdup_printf (_("%s: reserved"), data->label != NULL ? data->label : "A");
      l->names[1] = g_strdup_printf (_("%s: allocated"), data->label != NULL ? data->label : "A");
      l->names[2] = g_strdup_printf (_("%s: reserved"),
                                     data->other_label != NULL ? data->other_label : "B");
      l->names[3] = g_strdup_printf (_("%s: allocated"),
                                     data->other_label != NULL ? data->other_label : "B");
    }
  l->items[l->n_items++] = (GmlLegendItem) { two ? l->names[0] : _("Reserved"), swatch_line,
                                            &l->reserved };
  l->items[l->n_items++] = (GmlLegendItem) { two ? l->names[1] : _("Allocated"), swatch_line,
                                             &l->allocated };
  if (two)
    {
      l->items[l->n_items++] = (GmlLegendItem) { l->names[2], swatch_line, &l->other_reserved };
      l->items[l->n_items++] = (GmlLegendItem) { l->names[3], swatch_line, &l->other_allocated };
    }
  l->items[l->n_items++] = (GmlLegendItem) { gml_memory_kind_name (GML_MEMORY_KIND_FREE_CACHED),
                                             _gml_swatch_kind,
                                             GINT_TO_POINTER (GML_MEMORY_KIND_FREE_CACHED) };
  if (marks & GML_TIMELINE_MARK_EMPTY_CACHE)
    l->items[l->n_items++] = (GmlLegendItem) { "empty_cache()", swatch_line, &l->empty_cache };
  if (marks & GML_TIMELINE_MARK_OOM)
    l->items[l->n_items++] = (GmlLegendItem) { _("Out of memory"), swatch_line, &l->oom };
  l->items[l->n_items++] = (GmlLegendItem) { _("This step"), swatch_line, &l->cursor };
  if (data->show_peak)
    l->items[l->n_items++] = (GmlLegendItem) { _("Peak of allocated"), swatch_allocated_peak,
                                               NULL };
  if (data->n_spans > 0)
    l->items[l->n_items++] = (GmlLegendItem) { _("record_function region"), swatch_span, NULL };
  for (guint i = 0; i < MIN (data->n_replays, GML_TIMELINE_MAX_REPLAYS); i++)
    {
      l->replays[i] = (ReplaySwatch) { NULL, i, 2 * style->line_width };
      /* Translators: allocator settings; the line is reserved memory replayed under them. */
      l->replay_names[i] = g_strdup_printf (_("Reserved with %s (replayed)"),
                                            data->replays[i].label);
      l->items[l->n_items++] = (GmlLegendItem) { l->replay_names[i], swatch_replay,
                                                 &l->replays[i] };
    }
}

/* The points the x axis spans: the longer of the two runs. */
static gsize
axis_points (const GmlTimelineData *data)
{
  return MAX (data->n_points, data->other_allocated != NULL ? data->other_n_points : 0);
}

/* The rows of record_function regions above the plot. */
static guint
span_rows (const GmlTimelineData *data)
{
  guint rows = 0;

  for (guint i = 0; i < data->n_spans; i++)
    rows = MAX (rows, MIN (data->spans[i].depth, 1) + 1);
  return rows;
}

static void
size_ticks (guint64  top,
            char   **ticks)
{
  for (int i = 0; i <= 2; i++)
    ticks[i] = gml_format_size_short (top * (2 - i) / 2);
}

/* Seconds under the ticks only for a single run: a second run's entries have
 * times of their own. */
static gboolean
axis_has_times (const GmlTimelineData *data)
{
  return data->point_time_us != NULL && data->other_allocated == NULL;
}

static double
axis_ticks_height (const GmlTimelineData *data,
                   const GmlRenderStyle  *style)
{
  return data->trace_entries ? _gml_axis_ticks_height (style, axis_has_times (data)) : 0;
}

static void
timeline_layout (const GmlTimelineData *data,
                 const GmlRenderStyle  *style,
                 cairo_t               *cr,
                 int                    width,
                 int                    height,
                 GmlRect               *plot,
                 guint64               *top,
                 GmlRect               *legend)
{
  double lh = _gml_line_height (style);
  guint64 max = data->capacity;
  TimelineLegend l;
  char *ticks[3];
  double tick_w = 0;

  if (max == 0)
    for (gsize i = 0; i < timeline_limit (data); i++)
      max = MAX (max, MAX (data->reserved[i], data->allocated[i]));
  if (data->capacity == 0 && data->other_allocated != NULL)
    for (gsize i = 0; i < data->other_n_points; i++)
      max = MAX (max, MAX (data->other_reserved[i], data->other_allocated[i]));
  for (guint r = 0; data->capacity == 0 && r < MIN (data->n_replays, GML_TIMELINE_MAX_REPLAYS); r++)
    for (gsize i = 0; i < MIN (data->replays[r].n_points, timeline_limit (data)); i++)
      max = MAX (max, data->replays[r].reserved[i]);
  if (max == 0)
    max = 1;

  timeline_legend (data, style, &l);
  *legend = (GmlRect) { MARGIN, MARGIN, MAX (width - 2 * MARGIN, 1), 0 };
  legend->height = _gml_legend (cr, style, l.items, l.n_items, legend, FALSE);
  timeline_legend_clear (&l);
  /* Room for the record_function regions between the legend and the plot. */
  legend->height += span_rows (data) * lh;
  size_ticks (max, ticks);
  for (int i = 0; i <= 2; i++)
    {
      double tw;

      _gml_text_size (cr, style, ticks[i], 0.85, 0, &tw, NULL);
      tick_w = MAX (tick_w, tw);
      g_free (ticks[i]);
    }
  plot->x = MARGIN + tick_w + 6;
  plot->y = legend->y + legend->height + lh * 0.6;
  plot->width = MAX (width - plot->x - MARGIN, 10);
  plot->height = MAX (height - plot->y - MARGIN - lh * 1.3 - axis_ticks_height (data, style), 10);
  if (top)
    *top = max;
}

void
gml_timeline_layout (const GmlTimelineData *data,
                     const GmlRenderStyle  *style,
                     int                    width,
                     int                    height,
                     GmlRect               *plot,
                     guint64               *top)
{
  cairo_t *cr = _gml_scratch_cr ();
  GmlRect legend;

  timeline_layout (data, style, cr, width, height, plot, top, &legend);
  cairo_destroy (cr);
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
  return (gsize) CLAMP (floor (f * axis_points (data)), 0, (double) data->n_points - 1);
}

static double
value_y (const GmlRect *plot,
         guint64        top,
         guint64        value)
{
  return plot->y + plot->height * (1.0 - (double) MIN (value, top) / top);
}

/* A path through the first @drawn of @n_points values spread over @columns
 * columns from @box's left, each column at the largest of its points. FALSE
 * when no column has a point. */
static gboolean
path_column_max (cairo_t        *cr,
                 const guint64  *values,
                 gsize           n_points,
                 gsize           drawn,
                 int             columns,
                 const GmlRect  *box,
                 guint64         top)
{
  gboolean started = FALSE;

  for (int c = 0; c < columns; c++)
    {
      gsize i0 = (gsize) ((double) c / columns * n_points);
      gsize i1 = MAX (i0 + 1, (gsize) ((double) (c + 1) / columns * n_points));
      guint64 hi = 0;

      if (i0 >= drawn)
        break;
      for (gsize i = i0; i < MIN (i1, drawn); i++)
        hi = MAX (hi, values[i]);
      if (!started)
        cairo_move_to (cr, box->x + c + 0.5, value_y (box, top, hi));
      else
        cairo_line_to (cr, box->x + c + 0.5, value_y (box, top, hi));
      started = TRUE;
    }
  return started;
}

/* The second run: its allocated and reserved bytes as dashed lines, one
 * point per column at most (the largest in it), over the same axis. */
static void
draw_other (cairo_t               *cr,
            const GmlTimelineData *data,
            const GmlRenderStyle  *style,
            const GmlRect         *full,
            guint64                top)
{
  const GmlPalette *pal = &style->palette;
  double width = full->width * data->other_n_points / MAX (axis_points (data), 1);
  int columns = MAX ((int) width, 1);

  for (int series = 0; series < 2; series++)
    {
      const guint64 *values = series == 0 ? data->other_reserved : data->other_allocated;

      path_column_max (cr, values, data->other_n_points, data->other_n_points, columns, full, top);
      cairo_set_dash (cr, (double[]) { 6, 4 }, 2, 0);
      cairo_set_line_width (cr, 2 * style->line_width);
      _gml_set_color (cr, series == 0 ? &pal->reserved : &pal->allocated);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
}

/* The replays: each one's reserved bytes, the largest per column, over the
 * run's own points. */
static void
draw_replays (cairo_t               *cr,
              const GmlTimelineData *data,
              const GmlRenderStyle  *style,
              const GmlRect         *plot,
              guint64                top)
{
  int columns = MAX ((int) plot->width, 1);
  gsize limit = timeline_limit (data);

  for (guint r = 0; r < MIN (data->n_replays, GML_TIMELINE_MAX_REPLAYS); r++)
    {
      const GmlTimelineReplay *replay = &data->replays[r];

      /* Columns over the run's own points; the replay's, up to those drawn. */
      if (!path_column_max (cr, replay->reserved, data->n_points,
                            MIN (MIN (replay->n_points, data->n_points), limit), columns, plot,
                            top))
        continue;
      set_replay_line (cr, style, r);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
}

/* record_function regions: a band per region above the plot, its name inside
 * where it fits (nested regions a row below). */
static void
draw_spans (cairo_t               *cr,
            const GmlTimelineData *data,
            const GmlRenderStyle  *style,
            const GmlRect         *plot,
            const GmlRect         *legend)
{
  const GmlPalette *pal = &style->palette;
  double lh = _gml_line_height (style);
  guint rows = span_rows (data);
  double px_per_point = plot->width / MAX (data->n_points, 1);
  double y0 = plot->y - lh * 0.6 - rows * lh;

  for (guint i = 0; i < data->n_spans; i++)
    {
      const GmlTimelineSpan *span = &data->spans[i];
      double x0 = plot->x + span->start * px_per_point;
      double x1 = plot->x + MIN (span->end, data->n_points) * px_per_point;
      GmlRect box = { floor (x0), y0 + MIN (span->depth, 1) * lh + 1, MAX (ceil (x1) - floor (x0),
                                                                           2),
                      lh - 2 };
      double tw;

      cairo_rectangle (cr, box.x + 0.5, box.y + 0.5, box.width - 1, box.height - 1);
      _gml_set_color_alpha (cr, &pal->dim, i % 2 ? 0.22 : 0.35);
      cairo_fill_preserve (cr);
      _gml_set_color (cr, &pal->dim);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
      _gml_text_size (cr, style, span->label, 0.75, 0, &tw, NULL);
      if (tw + 6 <= box.width)
        _gml_label_try (cr, style, span->label, box.x + 3, box.y + (box.height - lh * 0.8) / 2,
                        0.75, 0,
                        &pal->foreground, 0, &box);
    }
}

void
gml_render_timeline (cairo_t               *cr,
                     const GmlTimelineData *data,
                     const GmlRenderStyle  *style,
                     int                    width,
                     int                    height)
{
  const GmlPalette *pal = &style->palette;
  GmlRect plot, legend, full;
  guint64 top;
  int columns;
  TimelineLegend l;
  char *ticks[3];

  _gml_background (cr, style, width, height);
  timeline_layout (data, style, cr, width, height, &plot, &top, &legend);
  full = plot;
  /* With a second run the axis is the longer one's: this run takes its share. */
  plot.width = MAX (full.width * data->n_points / MAX (axis_points (data), 1), 1);
  columns = MAX ((int) plot.width, 1);

  /* Grid and scale: 0, half and the top (the capacity). */
  cairo_set_line_width (cr, 1);
  for (int i = 0; i <= 4; i++)
    {
      double gy = plot.y + plot.height * i / 4.0;

      cairo_move_to (cr, full.x, round (gy) + 0.5);
      cairo_line_to (cr, full.x + full.width, round (gy) + 0.5);
    }
  _gml_set_color (cr, &pal->grid);
  cairo_stroke (cr);
  size_ticks (top, ticks);
  for (int i = 0; i <= 2; i++)
    {
      double th;

      _gml_text_size (cr, style, ticks[i], 0.85, 0, NULL, &th);
      _gml_label_try (cr, style, ticks[i], plot.x - 6,
                      CLAMP (plot.y + plot.height * i / 2.0 - th / 2, plot.y - th / 2,
                             plot.y + plot.height - th / 2),
                      0.85, 0, &pal->dim, 1.0, NULL);
      g_free (ticks[i]);
    }

  if (data->n_points > 0)
    {
      /* Each pixel column covers a range of points: draw its minimum to maximum,
       * so a million events cost one pass and nothing is lost between pixels. */
      double px_per_point = plot.width / data->n_points;
      gsize limit = timeline_limit (data);
      /* Columns that hold only points after the limit stay empty: the future. */
      int drawn = MIN (columns, (int) ceil ((double) limit * columns / data->n_points));

      double *lo_y = g_new (double, columns);
      double *hi_y = g_new (double, columns);
      double *alloc_y = g_new (double, columns);

      for (int c = 0; c < drawn; c++)
        {
          gsize i0 = (gsize) ((double) c / columns * data->n_points);
          gsize i1 = MAX (i0 + 1, (gsize) ((double) (c + 1) / columns * data->n_points));
          guint64 lo = G_MAXUINT64, hi = 0, ahi = 0;

          i1 = MIN (i1, limit);
          i0 = MIN (i0, i1 - 1);
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

      /* Allocated as a filled area with its edge, the cache above it (reserved
       * but free) hatched as in the memory map, reserved as a thick line; all
       * as one pixel-wide rectangles per column, which Cairo fills far faster
       * than it strokes a polyline of thousands of joins. */
      cairo_save (cr);
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
      for (int c = 0; c < drawn; c++)
        if (alloc_y[c] - lo_y[c] >= 1)
          cairo_rectangle (cr, plot.x + c, lo_y[c], 1, alloc_y[c] - lo_y[c]);
      gml_render_memory_kind_fill (cr, style, GML_MEMORY_KIND_FREE_CACHED);
      for (int c = 0; c < drawn; c++)
        cairo_rectangle (cr, plot.x + c, alloc_y[c], 1, plot.y + plot.height - alloc_y[c]);
      _gml_set_color_alpha (cr, &pal->allocated, 0.35);
      cairo_fill (cr);
      for (int c = 0; c < drawn; c++)
        {
          double prev = c > 0 ? alloc_y[c - 1] : alloc_y[c];
          double y0 = MIN (prev, alloc_y[c]) - style->line_width / 2;
          double y1 = MAX (prev, alloc_y[c]) + style->line_width / 2;

          cairo_rectangle (cr, plot.x + c, floor (y0), 1, MAX (ceil (y1) - floor (y0), 1));
        }
      _gml_set_color (cr, &pal->allocated);
      cairo_fill (cr);
      for (int c = 0; c < drawn; c++)
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

      /* Markers: at most one per pixel column; their names where they fit. */
      if (data->marks != NULL)
        {
          int last_column = -1;

          for (gsize i = 0; i < limit; i++)
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
              cairo_set_line_width (cr, (data->highlight && i == data->cursor ? 3 : 1.5)
                                        * style->line_width);
              if (!oom)
                cairo_set_dash (cr, (double[]) { 5, 3 }, 2, 0);
              cairo_stroke (cr);
              cairo_set_dash (cr, NULL, 0, 0);
              if (px_per_point >= 24)
                _gml_label_try (cr, style, oom ? _("OOM") : "empty_cache()", mx + 3, plot.y + 2,
                                0.8,
                                GML_TEXT_BOLD, oom ? &pal->oom : &pal->empty_cache, 0, &plot);
            }
        }

      if (data->show_peak && data->peak < data->n_points)
        {
          double px = round (plot.x + (data->peak + 0.5) * px_per_point);
          double py = value_y (&plot, top, data->allocated[data->peak]);

          cairo_move_to (cr, px, py - 2);
          cairo_line_to (cr, px - 6, py - 12);
          cairo_line_to (cr, px + 6, py - 12);
          cairo_close_path (cr);
          _gml_set_color (cr, &pal->allocated);
          cairo_fill_preserve (cr);
          _gml_set_color (cr, &pal->background);
          cairo_set_line_width (cr, 1);
          cairo_stroke (cr);
        }

      if (data->other_allocated != NULL && data->other_n_points > 0)
        draw_other (cr, data, style, &full, top);
      if (data->n_replays > 0)
        draw_replays (cr, data, style, &plot, top);

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

  if (data->n_spans > 0)
    draw_spans (cr, data, style, &plot, &legend);
  timeline_legend (data, style, &l);
  legend.height -= span_rows (data) * _gml_line_height (style);
  _gml_legend (cr, style, l.items, l.n_items, &legend, TRUE);
  timeline_legend_clear (&l);

  if (data->trace_entries && axis_points (data) > 0)
    _gml_axis_ticks (cr, style, &full, axis_points (data), 0.5, full.width / axis_points (data),
                     axis_has_times (data) ? data->point_time_us : NULL, data->point_time_data);

  {
    double below = plot.y + plot.height + axis_ticks_height (data, style);
    g_autofree char *axis = NULL;
    GmlRect axis_box = { full.x, below + 2, full.width, height - MARGIN - below };

    if (data->cursor < data->n_points && data->trace_entries)
      /* Translators: the position in a snapshot's trace: "After trace entry 3 of 12". */
      axis = g_strdup_printf (_("After trace entry %u of %u"), (guint) data->cursor,
                              (guint) data->n_points - 1);
    else if (data->trace_entries)
      axis = g_strdup (_("Trace entries"));
    else if (data->cursor < data->n_points)
      /* Translators: the position on the timeline: "Step 3 of 12". */
      axis = g_strdup_printf (_("Step %u of %u"), (guint) data->cursor, (guint) data->n_points - 1);
    else
      axis = g_strdup (_("Steps"));
    _gml_label_try (cr, style, axis, full.x + full.width / 2, below + 4, 0.9, 0,
                    &pal->dim, 0.5, &axis_box);
  }
}

char *
gml_describe_timeline (const GmlTimelineData *data)
{
  guint64 peak = 0;
  g_autofree char *t_peak = NULL;
  g_autofree char *t_res = NULL;
  g_autofree char *t_alloc = NULL;
  gsize at = data->cursor < data->n_points ? data->cursor
                                           : (data->n_points > 0 ? data->n_points - 1 : 0);

  if (data->n_points == 0)
    return g_strdup (_("Nothing has happened yet."));
  for (gsize i = 0; i < timeline_limit (data); i++)
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

void
gml_checkpointing_layer_color (const GmlRenderStyle *style,
                               guint                 layer,
                               gboolean              recomputed,
                               GmlColor             *color)
{
  const GmlPalette *pal = &style->palette;
  const GmlColor *base = &pal->category[recomputed ? GML_CATEGORY_TEMPORARY
                                                   : GML_CATEGORY_ACTIVATIONS];
  /* Every other layer a third of the way to the background: neighbours stay
   * apart even where a separator is too thin to see. */
  double t = layer % 2 == 1 ? 0.35 : 0.0;

  color->red = base->red + (pal->background.red - base->red) * t;
  color->green = base->green + (pal->background.green - base->green) * t;
  color->blue = base->blue + (pal->background.blue - base->blue) * t;
  color->alpha = 1.0;
}

/* Fills the current path as layer @layer's band. */
static void
fill_layer (cairo_t              *cr,
            const GmlRenderStyle *style,
            guint                 layer,
            gboolean              recomputed)
{
  GmlColor color;

  gml_checkpointing_layer_color (style, layer, recomputed, &color);
  if (recomputed)
    _gml_fill_hatched (cr, &color, &style->palette.background, style->line_width);
  else
    {
      _gml_set_color (cr, &color);
      cairo_fill (cr);
    }
}

/* Two layers' shades side by side, as neighbouring bands alternate. */
static void
swatch_layers (cairo_t              *cr,
               const GmlRenderStyle *style,
               const GmlRect        *box,
               gconstpointer         data)
{
  gboolean recomputed = GPOINTER_TO_INT (data);

  cairo_rectangle (cr, box->x, box->y, box->width, box->height / 2);
  fill_layer (cr, style, 1, recomputed);
  cairo_rectangle (cr, box->x, box->y + box->height / 2, box->width, box->height / 2);
  fill_layer (cr, style, 0, recomputed);
}

typedef struct
{
  GmlLegendItem legend_items[6];
  guint         n_items;
  LineSwatch    cursor;
  GmlRect       legend;
  GmlRect       y_title;
  double        tick_w;
  guint64       top;              /* bytes at the top of a plot: the highest peak and room above it
                                   */
  guint64       highest;          /* the highest peak */
  guint         n;
  gboolean      details;          /* room for each strategy's figures */
  GmlRect      *name;             /* per strategy */
  double       *details_h;
  GmlRect      *plot;
  GmlRect       x_title;
} CheckpointLayout;

static char *
strategy_details (const GmlCheckpointStrategy *st)
{
  g_autofree char *t_peak = gml_format_size_short (st->peak_bytes);
  g_autofree char *line1 = NULL;
  g_autofree char *line2 = NULL;
  g_autofree char *line3 = NULL;

  /* Translators: %s is a size. */
  line1 = g_strdup_printf (_("Peak %s"), t_peak);
  /* Translators: counts of activations. */
  line2 = g_strdup_printf (_("%u stored, %u recomputed"), st->n_stored, st->n_recomputed);
  /* Translators: %d is a percentage of one forward pass. */
  line3 = g_strdup_printf (_("Extra compute: +%d %% of a forward pass"),
                           (int) round (st->extra_compute * 100));
  return g_strjoin (" · ", line1, line2, line3, NULL);
}

static void
checkpoint_layout_clear (CheckpointLayout *l)
{
  g_free (l->name);
  g_free (l->details_h);
  g_free (l->plot);
}

static void
checkpoint_layout (const GmlCheckpointData *data,
                   const GmlRenderStyle    *style,
                   cairo_t                 *cr,
                   int                      width,
                   int                      height,
                   CheckpointLayout        *l)
{
  double lh = _gml_line_height (style);
  double inner = MAX (width - 2 * MARGIN, 1);
  double y, bottom, text_total, plot_h, tw;
  g_autofree char *t_top = NULL;
  static const LineSwatch peak = { NULL };

  memset (l, 0, sizeof *l);
  l->n = data->scenario != NULL ? gml_scenario_get_n_strategies (data->scenario) : 0;
  l->highest = 1;
  for (guint s = 0; s < l->n; s++)
    l->highest = MAX (l->highest, gml_scenario_get_strategy (data->scenario, s)->peak_bytes);
  l->top = l->highest;

  l->cursor = (LineSwatch) { &style->palette.cursor, 2 * style->line_width, FALSE, TRUE, FALSE };
  l->legend_items[l->n_items++] =
      (GmlLegendItem) { gml_lab_category_name (GML_CATEGORY_WEIGHTS),
                        _gml_swatch_kind, GINT_TO_POINTER (GML_MEMORY_KIND_WEIGHTS) };
  l->legend_items[l->n_items++] = (GmlLegendItem) { _("Stored activations, one band per layer"),
                                                    swatch_layers, GINT_TO_POINTER (FALSE) };
  l->legend_items[l->n_items++] = (GmlLegendItem) { _("Recomputed activations, hatched"),
                                                    swatch_layers, GINT_TO_POINTER (TRUE) };
  l->legend_items[l->n_items++] = (GmlLegendItem) { _("Peak of the strategy"), swatch_peak, &peak };
  l->legend_items[l->n_items++] = (GmlLegendItem) { _("This step"), swatch_line, &l->cursor };
  if (data->highlight)
    l->legend_items[l->n_items++] = (GmlLegendItem) { _gml_mark_text (), _gml_swatch_mark, NULL };

  l->legend = (GmlRect) { MARGIN, MARGIN, inner, 0 };
  l->legend.height = _gml_legend (cr, style, l->legend_items, l->n_items, &l->legend, FALSE);
  y = l->legend.y + l->legend.height + 6;
  l->y_title = (GmlRect) { MARGIN, y, inner, 0 };
  l->y_title.height = _gml_paragraph (cr, style,
                                      _("Allocated memory of each strategy, step by step"),
                                      MARGIN, y, inner, 0.85, 0, NULL, NULL, NULL);
  y += l->y_title.height + 2;

  l->x_title = (GmlRect) { MARGIN, 0, inner, 0 };
  l->x_title.height = _gml_paragraph (cr, style,
                                      _("Steps of one training iteration: forward pass, then "
                                        "backward pass"),
                                      MARGIN, 0, inner, 0.85, 0, NULL, NULL, NULL);
  l->x_title.y = height - MARGIN - l->x_title.height;
  bottom = l->x_title.y - 4;

  t_top = gml_format_size_short (l->highest);
  _gml_text_size (cr, style, t_top, 0.8, 0, &tw, NULL);
  l->tick_w = MAX (tw, 8) + 8;

  if (l->n == 0)
    return;
  l->name = g_new0 (GmlRect, l->n);
  l->details_h = g_new0 (double, l->n);
  l->plot = g_new0 (GmlRect, l->n);

  /* The figures under each name while the plots keep a useful height; else
   * the names alone (the description still says every figure). */
  for (int pass = 0; pass < 2; pass++)
    {
      l->details = pass == 0;
      text_total = 0;
      for (guint s = 0; s < l->n; s++)
        {
          const GmlCheckpointStrategy *st = gml_scenario_get_strategy (data->scenario, s);
          g_autofree char *details = strategy_details (st);

          l->name[s].height = _gml_paragraph (cr, style, st->name, MARGIN, 0, inner, 1.0,
                                              GML_TEXT_BOLD,
                                              NULL, NULL, NULL);
          l->details_h[s] = l->details ? _gml_paragraph (cr, style, details, MARGIN, 0, inner, 0.85,
                                                         0,
                                                         NULL, NULL, NULL) : 0;
          text_total += l->name[s].height + l->details_h[s] + 2 + 8;
        }
      plot_h = (bottom - y - text_total) / l->n;
      if (plot_h >= 3.2 * lh)
        break;
    }
  plot_h = MAX (plot_h, 8);
  for (guint s = 0; s < l->n; s++)
    {
      l->name[s].x = MARGIN;
      l->name[s].y = y;
      l->name[s].width = inner;
      y += l->name[s].height + l->details_h[s] + 2;
      l->plot[s] = (GmlRect) { MARGIN + l->tick_w, y, MAX (inner - l->tick_w, 10), plot_h };
      y += plot_h + 8;
    }
  /* Room above the highest peak for its marker, inside the plot. */
  if (plot_h > 12)
    l->top = (guint64) ceil (l->highest * plot_h / (plot_h - 10));
}

gboolean
gml_checkpointing_layout (const GmlCheckpointData *data,
                          const GmlRenderStyle    *style,
                          int                      width,
                          int                      height,
                          guint                    index,
                          GmlRect                 *plot,
                          guint64                 *top)
{
  CheckpointLayout l;
  cairo_t *cr;
  gboolean found;

  if (data->scenario == NULL || index >= gml_scenario_get_n_strategies (data->scenario))
    return FALSE;
  cr = _gml_scratch_cr ();
  checkpoint_layout (data, style, cr, width, height, &l);
  found = index < l.n;
  if (found)
    {
      *plot = l.plot[index];
      *top = l.top;
    }
  checkpoint_layout_clear (&l);
  cairo_destroy (cr);
  return found;
}

void
gml_render_checkpointing (cairo_t                 *cr,
                          const GmlCheckpointData *data,
                          const GmlRenderStyle    *style,
                          int                      width,
                          int                      height)
{
  const GmlPalette *pal = &style->palette;
  guint n_layers = data->scenario != NULL ? gml_scenario_get_n_layers (data->scenario) : 0;
  CheckpointLayout l;
  g_autofree char *t_top = NULL;

  _gml_background (cr, style, width, height);
  checkpoint_layout (data, style, cr, width, height, &l);
  if (l.n == 0)
    {
      GmlRect box = { MARGIN, MARGIN, MAX (width - 2 * MARGIN, 1), MAX (height - 2 * MARGIN, 1) };
      double h = _gml_paragraph (cr, style,
                                 _("Choose the checkpointing scenario to compare strategies."),
                                 0, 0, box.width, 1.0, 0, NULL, NULL, NULL);

      _gml_paragraph (cr, style, _("Choose the checkpointing scenario to compare strategies."),
                      box.x, MAX (box.y, height / 2.0 - h / 2), box.width, 1.0, 0, &pal->dim, &box,
                      NULL);
      checkpoint_layout_clear (&l);
      return;
    }

  _gml_legend (cr, style, l.legend_items, l.n_items, &l.legend, TRUE);
  _gml_paragraph (cr, style, _("Allocated memory of each strategy, step by step"), l.y_title.x,
                  l.y_title.y,
                  l.y_title.width, 0.85, 0, &pal->dim, &l.y_title, NULL);
  _gml_paragraph (cr, style, _("Steps of one training iteration: forward pass, then backward pass"),
                  l.x_title.x, l.x_title.y, l.x_title.width, 0.85, 0, &pal->dim, &l.x_title, NULL);
  t_top = gml_format_size_short (l.highest);

  for (guint s = 0; s < l.n; s++)
    {
      const GmlCheckpointStrategy *st = gml_scenario_get_strategy (data->scenario, s);
      const GmlRect *plot = &l.plot[s];
      double ry = plot->y, ch = plot->height, chart_x = plot->x, chart_w = plot->width;
      guint points = st->other->len;
      gboolean current = data->step >= st->first_step && data->step <= st->last_step;
      g_autofree char *details = strategy_details (st);
      double peak_y, th;
      guint peak_at = 0;
      guint64 peak_seen = 0;

      _gml_paragraph (cr, style, st->name, l.name[s].x, l.name[s].y, l.name[s].width, 1.0,
                      GML_TEXT_BOLD,
                      &pal->foreground, &l.name[s], NULL);
      if (l.details)
        _gml_paragraph (cr, style, details, l.name[s].x, l.name[s].y + l.name[s].height,
                        l.name[s].width,
                        0.85, 0, &pal->dim,
                        &(GmlRect) { l.name[s].x, l.name[s].y + l.name[s].height, l.name[s].width,
                                     l.details_h[s] },
                        NULL);

      /* The scale: the top of every plot is the highest peak, so they compare. */
      _gml_text_size (cr, style, t_top, 0.8, 0, NULL, &th);
      _gml_label_try (cr, style, t_top, chart_x - 5,
                      MAX (ry + ch * (1.0 - (double) l.highest / l.top) - th / 2, ry - 2), 0.8, 0,
                      &pal->dim, 1.0, NULL);
      _gml_label_try (cr, style, "0", chart_x - 5, ry + ch - th + 1, 0.8, 0, &pal->dim, 1.0, NULL);

      cairo_rectangle (cr, chart_x + 0.5, ry + 0.5, chart_w - 1, ch - 1);
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
              double y0 = ry + ch * (1.0 - (double) lo / l.top);

              cairo_rectangle (cr, bx, y0, bw + 0.5, ry + ch - y0);
              gml_render_memory_kind_fill (cr, style, GML_MEMORY_KIND_WEIGHTS);
            }
          for (guint layer = 0; layer < n_layers &&
               (i + 1) * n_layers <= st->layer_live->len; layer++)
            {
              guint64 live = g_array_index (st->layer_live, guint64, i * n_layers + layer);
              gboolean again = g_array_index (st->layer_recomputed, guint8, i * n_layers + layer);
              double y0, y1;

              if (live == 0)
                continue;
              y1 = ry + ch * (1.0 - (double) lo / l.top);
              lo += live;
              y0 = ry + ch * (1.0 - (double) lo / l.top);
              cairo_rectangle (cr, bx, y0, bw + 0.5, y1 - y0);
              fill_layer (cr, style, layer, again);
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
          sum += g_array_index (st->stored, guint64, i) + g_array_index (st->recomputed, guint64,
                                                                         i);
          if (sum > lo)
            {
              double y0 = ry + ch * (1.0 - (double) sum / l.top);
              double y1 = ry + ch * (1.0 - (double) lo / l.top);

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

      /* The strategy's peak: a dashed line, and a triangle on the step that held it. */
      peak_y = round (ry + ch * (1.0 - (double) st->peak_bytes / l.top)) + 0.5;
      cairo_save (cr);
      cairo_move_to (cr, chart_x, peak_y);
      cairo_line_to (cr, chart_x + chart_w, peak_y);
      _gml_set_color (cr, &pal->foreground);
      cairo_set_dash (cr, (double[]) { 3, 2 }, 2, 0);
      cairo_set_line_width (cr, style->line_width);
      cairo_stroke (cr);
      cairo_restore (cr);
      if (peak_seen > 0)
        {
          double px = chart_x + (peak_at + 0.5) * chart_w / points;
          double py = ry + ch * (1.0 - (double) peak_seen / l.top);

          cairo_move_to (cr, px, py - 1);
          cairo_line_to (cr, px - 4.5, py - 7);
          cairo_line_to (cr, px + 4.5, py - 7);
          cairo_close_path (cr);
          _gml_set_color (cr, &pal->foreground);
          cairo_fill (cr);
        }

      if (current)
        {
          double cx = chart_x + (data->step - st->first_step + 0.5) * chart_w / points;

          cairo_move_to (cr, round (cx), ry);
          cairo_line_to (cr, round (cx), ry + ch);
          _gml_set_color (cr, &pal->cursor);
          cairo_set_line_width (cr, 2 * style->line_width);
          cairo_stroke (cr);
          if (data->highlight)
            _gml_draw_mark (cr, style, plot);
        }
    }
  checkpoint_layout_clear (&l);
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

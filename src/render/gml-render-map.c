/* gml-render-map.c — the memory map: segments as boxes, blocks inside them.
 *
 * Segments flow like words in a paragraph, in address order (or largest first),
 * one byte scale for the whole picture so sizes compare by eye; a segment
 * wider than what is left of a row continues on the next. Blocks narrower than
 * three pixels are not drawn one by one: each pixel column gets the colour of
 * the kind that covers most of it, and equal neighbours are drawn as one run,
 * so 100 000 blocks cost about as much as the pixels they cover.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-render"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "gml-render-private.h"

#define MARGIN 8.0
#define ROW_GAP 4.0
#define MAX_LABELS 150
/* Above this many boxes a map is drawn into a pixel buffer of its own: cairo
 * spends about 0.2 µs on each rectangle of a path, and 100 000 blocks make
 * tens of thousands of them, all pixel-aligned and without antialiasing. */
#define DENSE_BOXES 2048

enum
{
  KIND_FREE = GML_N_CATEGORIES,
  KIND_INACTIVE,
  KIND_PENDING,
  N_KINDS
};

typedef struct
{
  guint64 address;
  guint64 size;
  guint   index;   /* address order */
  gint32  first;   /* first block slot */
} SegEntry;

static int
by_address_cmp (const void *a,
                const void *b)
{
  const SegEntry *x = a, *y = b;

  return x->address < y->address ? -1 : (x->address > y->address);
}

/* The segments in address order, read straight from the state's slots: the
 * foreach helpers summarise every segment, which a frame does not need. */
static GArray *
collect_segments (const GmlMemState *state)
{
  guint n = gml_mem_state_get_n_segment_slots (state);
  GArray *segs = g_array_sized_new (FALSE, FALSE, sizeof (SegEntry), gml_mem_state_get_n_segments (state));

  for (guint slot = 0; slot < n; slot++)
    {
      const GmlSegment *seg = gml_mem_state_get_segment (state, slot);
      SegEntry e;

      if (seg == NULL)
        continue;
      e = (SegEntry) { seg->address, seg->size, 0, seg->first_block };
      g_array_append_val (segs, e);
    }
  qsort (segs->data, segs->len, sizeof (SegEntry), by_address_cmp);
  for (guint i = 0; i < segs->len; i++)
    g_array_index (segs, SegEntry, i).index = i;
  return segs;
}

static int
by_size_cmp (gconstpointer a,
             gconstpointer b)
{
  const SegEntry *x = a, *y = b;

  if (x->size != y->size)
    return x->size > y->size ? -1 : 1;
  return x->address < y->address ? -1 : (x->address > y->address);
}

static double
line_height (const GmlRenderStyle *style)
{
  return ceil (style->font_size * 1.45);
}

/* Flows the segments into @rows rows at @bpp bytes per pixel; FALSE if they overflow. */
static gboolean
flow (GmlMapLayout *layout,
      GArray       *segs,
      guint         rows,
      double        bpp)
{
  const GmlRect *map = &layout->map;
  double row_h = (map->height - (rows - 1) * ROW_GAP) / rows;
  double gap = layout->gap;
  guint row = 0;
  double x = map->x;
  double right = map->x + map->width;

  g_array_set_size (layout->pieces, 0);
  g_array_set_size (layout->first_piece, segs->len);
  for (guint i = 0; i < segs->len; i++)
    {
      const SegEntry *e = &g_array_index (segs, SegEntry, i);
      guint64 offset = 0;

      g_array_index (layout->first_piece, guint, e->index) = layout->pieces->len;
      while (offset < e->size)
        {
          double need = MAX ((e->size - offset) / bpp, 2.0);
          double room = right - x;
          GmlMapPiece piece = { e->index, e->address, offset, 0, { 0 } };

          if (row >= rows)
            return FALSE;
          /* Start a fresh row rather than leave a sliver of a box at a row's end. */
          if (room < MIN (need, 24.0) && x > map->x)
            {
              row++;
              x = map->x;
              continue;
            }
          piece.rect.x = x;
          /* Whole pixels vertically: crisp edges, and cheap fills. */
          piece.rect.y = floor (map->y + row * (row_h + ROW_GAP));
          piece.rect.height = floor (map->y + row * (row_h + ROW_GAP) + row_h) - piece.rect.y;
          if (need <= room)
            {
              piece.length = e->size - offset;
              piece.rect.width = need;
              x += need + gap;
            }
          else
            {
              piece.length = MIN ((guint64) (room * bpp), e->size - offset);
              piece.rect.width = room;
              row++;
              x = map->x;
            }
          offset += piece.length;
          g_array_append_val (layout->pieces, piece);
        }
    }
  return TRUE;
}

void
gml_map_layout_compute (GmlMapLayout           *layout,
                        const GmlMemoryMapData *data,
                        const GmlRenderStyle   *style,
                        int                     width,
                        int                     height)
{
  double lh = line_height (style);
  GArray *segs;
  guint64 total = 0;
  guint rows, max_rows;
  double bpp;

  g_clear_pointer (&layout->segments, g_array_unref);
  segs = layout->segments = collect_segments (data->state);
  if (layout->pieces == NULL)
    {
      layout->pieces = g_array_new (FALSE, FALSE, sizeof (GmlMapPiece));
      layout->first_piece = g_array_new (FALSE, TRUE, sizeof (guint));
    }

  layout->device_bar = (GmlRect) { MARGIN, MARGIN, MAX (width - 2 * MARGIN, 1), ceil (style->font_size * 1.5) };
  layout->legend = (GmlRect) { MARGIN, height - MARGIN - 2 * lh, MAX (width - 2 * MARGIN, 1), 2 * lh };
  layout->map.x = MARGIN;
  layout->map.y = layout->device_bar.y + layout->device_bar.height + 4 + lh + 6;
  layout->map.width = MAX (width - 2 * MARGIN, 1);
  layout->map.height = MAX (layout->legend.y - 6 - layout->map.y, 8);

  for (guint i = 0; i < segs->len; i++)
    total += g_array_index (segs, SegEntry, i).size;
  if (data->by_size)
    {
      /* Drawing walks the segments in address order; pack a sorted copy. */
      segs = g_array_copy (layout->segments);
      qsort (segs->data, segs->len, sizeof (SegEntry), by_size_cmp);
    }
  else
    g_array_ref (segs);

  g_array_set_size (layout->pieces, 0);
  g_array_set_size (layout->first_piece, segs->len);
  layout->bytes_per_px = 1;
  layout->row_height = layout->map.height;
  if (segs->len == 0)
    {
      g_array_unref (segs);
      return;
    }

  max_rows = MAX (1, (guint) (layout->map.height / 14.0));
  rows = (guint) CLAMP (round (sqrt (segs->len * layout->map.height / layout->map.width)), 1, max_rows);
  /* Thinner gaps when there are many segments, so they do not eat the map. */
  layout->gap = CLAMP (floor (rows * layout->map.width / segs->len / 8), 1, 4);
  bpp = total / MAX (rows * layout->map.width - (segs->len * (layout->gap + 1) + rows * 24),
                     rows * layout->map.width * 0.25);
  for (int attempt = 0; attempt < 40 && !flow (layout, segs, rows, bpp); attempt++)
    bpp *= 1.08;
  layout->bytes_per_px = bpp;
  layout->row_height = (layout->map.height - (rows - 1) * ROW_GAP) / rows;
  g_array_unref (segs);
}

void
gml_map_layout_clear (GmlMapLayout *layout)
{
  g_clear_pointer (&layout->pieces, g_array_unref);
  g_clear_pointer (&layout->first_piece, g_array_unref);
  g_clear_pointer (&layout->segments, g_array_unref);
}

/* Finds the segment index (address order) of @address by bisection over pieces. */
static gboolean
find_segment_piece (const GmlMapLayout *layout,
                    guint64             address,
                    guint              *piece_index)
{
  for (guint i = 0; i < layout->pieces->len; i++)
    {
      const GmlMapPiece *p = &g_array_index (layout->pieces, GmlMapPiece, i);

      if (address >= p->address + p->offset && address < p->address + p->offset + p->length)
        {
          *piece_index = i;
          return TRUE;
        }
    }
  return FALSE;
}

static void
piece_span (const GmlMapLayout *layout,
            const GmlMapPiece  *p,
            guint64             block_offset,
            guint64             size,
            double             *x0,
            double             *x1)
{
  double a = MAX ((double) block_offset, (double) p->offset);
  double b = MIN ((double) (block_offset + size), (double) (p->offset + p->length));

  *x0 = p->rect.x + (a - p->offset) / p->length * p->rect.width;
  *x1 = p->rect.x + (b - p->offset) / p->length * p->rect.width;
}

gboolean
gml_map_layout_block_rect (const GmlMapLayout     *layout,
                           const GmlMemoryMapData *data,
                           guint64                 address,
                           guint64                 size,
                           GmlRect                *rect)
{
  guint i;
  const GmlMapPiece *p;
  double x0, x1;

  if (!find_segment_piece (layout, address, &i))
    return FALSE;
  p = &g_array_index (layout->pieces, GmlMapPiece, i);
  piece_span (layout, p, address - p->address, size, &x0, &x1);
  *rect = (GmlRect) { x0, p->rect.y, x1 - x0, p->rect.height };
  return TRUE;
}

/* ------------------------------------------------------------------------- */

typedef struct
{
  cairo_t                *cr;
  const GmlMemoryMapData *data;
  const GmlRenderStyle   *style;
  GmlMapLayout           *layout;
  guint                   segment;        /* address-order index of the current segment */
  guint64                 last_segment;
  gboolean                started;
  /* Aggregation of sub-pixel blocks */
  int                     agg_x;
  guint                   agg_piece;
  guint64                 agg_bytes[N_KINDS];
  int                     run_x0, run_x1, run_kind;
  guint                   run_piece;
  guint                   n_labels;
  GArray                 *runs[N_KINDS];   /* GmlRect: filled once per kind at the end */
  GArray                 *pix_runs[N_KINDS]; /* GmlRect: aggregated sub-pixel runs, whole pixels */
  GArray                 *hatched[N_KINDS];
  GArray                 *overlays;        /* Overlay */
} MapDraw;

static const GmlColor *
kind_color (const GmlRenderStyle *style,
            int                   kind)
{
  const GmlPalette *p = &style->palette;

  switch (kind)
    {
    case KIND_FREE: return &p->hatch;
    case KIND_INACTIVE: return &p->inactive;
    case KIND_PENDING: return &p->dim;
    default: return &p->category[kind];
    }
}

static void
flush_run (MapDraw *d)
{
  const GmlMapPiece *p;

  if (d->run_kind < 0)
    return;
  p = &g_array_index (d->layout->pieces, GmlMapPiece, d->run_piece);
  g_array_append_val (d->pix_runs[d->run_kind],
                      ((GmlRect) { d->run_x0, p->rect.y + 1, d->run_x1 - d->run_x0, p->rect.height - 2 }));
  d->run_kind = -1;
}

static void
flush_pixel (MapDraw *d)
{
  int best = -1;
  guint64 best_bytes = 0;

  if (d->agg_x == G_MININT)
    return;
  for (int k = 0; k < N_KINDS; k++)
    if (d->agg_bytes[k] > best_bytes)
      {
        best_bytes = d->agg_bytes[k];
        best = k;
      }
  memset (d->agg_bytes, 0, sizeof d->agg_bytes);
  if (best >= 0)
    {
      if (d->run_kind == best && d->run_piece == d->agg_piece && d->run_x1 == d->agg_x)
        d->run_x1 = d->agg_x + 1;
      else
        {
          flush_run (d);
          d->run_kind = best;
          d->run_piece = d->agg_piece;
          d->run_x0 = d->agg_x;
          d->run_x1 = d->agg_x + 1;
        }
    }
  d->agg_x = G_MININT;
}

static int
block_kind (gboolean        segment_active,
            const GmlBlock *block)
{
  switch (block->state)
    {
    case GML_BLOCK_ALLOCATED:
      return MIN (block->category, GML_N_CATEGORIES - 1);
    case GML_BLOCK_PENDING_FREE:
      return KIND_PENDING;
    case GML_BLOCK_FREE:
    case GML_BLOCK_UNUSED:
    default:
      /* A free piece of a segment that still has an active block: PyTorch's
       * "inactive split", which empty_cache() cannot give back. */
      return segment_active ? KIND_INACTIVE : KIND_FREE;
    }
}

/* What is drawn over the blocks once they are filled: rounding waste, the
 * outline of what the question is about, names and sizes. */
typedef struct
{
  GmlRect     rect;
  GmlRect     waste;            /* width 0 = none */
  int         kind;
  gboolean    highlight;
  gboolean    label;
  guint64     size;
  const char *name;             /* owned by the state */
} Overlay;

static void
draw_wide_block (MapDraw              *d,
                 const GmlMapPiece    *p,
                 const GmlBlock       *block,
                 guint                 id,
                 int                   kind,
                 double                x0,
                 double                x1)
{
  const GmlRenderStyle *style = d->style;
  double y = p->rect.y + 1, h = p->rect.height - 2;
  double w = x1 - x0 - (x1 - x0 >= 4 ? 1 : 0);   /* a hairline between neighbours */
  Overlay o = { { x0, y, w, h }, { 0 }, kind, FALSE, FALSE, block->size, NULL };
  GmlRect rect = { x0, y, w, h };

  /* Filled later, all blocks of a kind in one path. */
  g_array_append_val (kind == KIND_FREE || kind == KIND_INACTIVE ? d->hatched[kind] : d->runs[kind], rect);

  /* Rounding waste: the bytes of the block beyond what was asked for. */
  if (block->state == GML_BLOCK_ALLOCATED && block->size > block->requested_size)
    {
      double waste_w = (block->size - block->requested_size) / d->layout->bytes_per_px;
      double block_x1 = p->rect.x + ((double) (block->address - p->address) - p->offset
                                     + block->size) / p->length * p->rect.width;
      double wx0 = MAX (block_x1 - waste_w, x0);
      double wx1 = MIN (block_x1, x0 + w);

      if (waste_w >= 1.0 && wx1 > wx0)
        o.waste = (GmlRect) { wx0, y, wx1 - wx0, h };
    }
  o.highlight = d->data->highlight != GML_CATEGORY_NONE && block->state == GML_BLOCK_ALLOCATED &&
                block->category == d->data->highlight;
  if (d->n_labels < MAX_LABELS && w > 44 && h >= style->font_size * 1.3)
    {
      GmlBlockInfo info;

      o.label = TRUE;
      if (block->state == GML_BLOCK_ALLOCATED && gml_mem_state_get_block_info (d->data->state, id, &info))
        o.name = info.label;
      d->n_labels++;
    }
  if (o.waste.width > 0 || o.highlight || o.label)
    g_array_append_val (d->overlays, o);
}

static void
draw_overlay (cairo_t              *cr,
              const GmlRenderStyle *style,
              const Overlay        *o)
{
  const GmlPalette *pal = &style->palette;
  static const GmlColor black = { 0, 0, 0, 1 };
  double x0 = o->rect.x, y = o->rect.y, w = o->rect.width, h = o->rect.height;

  if (o->waste.width > 0)
    {
      cairo_rectangle (cr, o->waste.x, o->waste.y, o->waste.width, o->waste.height);
      _gml_fill_hatched (cr, &pal->waste, kind_color (style, o->kind), style->line_width);
    }
  if (o->highlight)
    {
      cairo_rectangle (cr, x0 + 1.5, y + 1.5, MAX (w - 3, 1), MAX (h - 3, 1));
      _gml_set_color (cr, &pal->highlight);
      cairo_set_line_width (cr, 3.0);
      cairo_stroke (cr);
    }
  if (o->label)
    {
      g_autofree char *size = gml_format_size_short (o->size);
      const GmlColor *ink = o->kind >= KIND_FREE ? &pal->foreground
                            : style->theme == GML_THEME_DARK ? &black : &pal->background;
      double tw, th, sw;
      gboolean two_lines = h >= style->font_size * 2.9;

      _gml_text_size (cr, style, size, 0.85, 0, &sw, &th);
      cairo_save (cr);
      cairo_rectangle (cr, x0, y, w, h);
      cairo_clip (cr);
      if (o->name != NULL && two_lines)
        {
          _gml_text_size (cr, style, o->name, 0.85, GML_TEXT_BOLD, &tw, NULL);
          if (tw <= w - 6)
            _gml_text (cr, style, o->name, x0 + 4, y + h / 2 - th, 0.85, GML_TEXT_BOLD, ink, 0);
          if (sw <= w - 6)
            _gml_text (cr, style, size, x0 + 4, y + h / 2, 0.85, 0, ink, 0);
        }
      else if (sw <= w - 6)
        {
          /* On hatching, text needs a plain ground to be read. */
          if (o->kind >= KIND_FREE)
            {
              cairo_rectangle (cr, x0 + 2, y + (h - th) / 2 - 1, sw + 4, th + 2);
              _gml_set_color (cr, &pal->free_fill);
              cairo_fill (cr);
            }
          _gml_text (cr, style, size, x0 + 4, y + (h - th) / 2, 0.85, 0, ink, 0);
        }
      cairo_restore (cr);
    }
}

static void
draw_block (MapDraw        *d,
            const SegEntry *segment,
            gboolean        segment_active,
            const GmlBlock *block,
            guint           id)
{
  int kind = block_kind (segment_active, block);
  guint64 offset = block->address - segment->address;
  guint first = g_array_index (d->layout->first_piece, guint, segment->index);

  for (guint i = first; i < d->layout->pieces->len; i++)
    {
      const GmlMapPiece *p = &g_array_index (d->layout->pieces, GmlMapPiece, i);
      double x0, x1;

      if (p->segment != segment->index || p->offset >= offset + block->size)
        break;
      if (p->offset + p->length <= offset)
        continue;

      piece_span (d->layout, p, offset, block->size, &x0, &x1);
      /* Three pixels: narrower blocks are aggregated, since a hairline gap and
       * hatching need room to be seen anyway. */
      if (x1 - x0 >= 3.0)
        {
          flush_pixel (d);
          flush_run (d);
          draw_wide_block (d, p, block, id, kind, x0, x1);
        }
      else
        {
          int px = (int) floor (x0);

          if (px != d->agg_x || i != d->agg_piece)
            {
              flush_pixel (d);
              d->agg_x = px;
              d->agg_piece = i;
            }
          d->agg_bytes[kind] += block->size;
        }
    }
}

/* Walks every segment's blocks in address order, straight through the state. */
static void
draw_blocks (MapDraw *d)
{
  GArray *segs = d->layout->segments;

  for (guint s = 0; s < segs->len; s++)
    {
      const SegEntry *e = &g_array_index (segs, SegEntry, s);
      gboolean active = FALSE;

      for (gint32 b = e->first; b >= 0 && !active; b = gml_mem_state_get_block (d->data->state, b)->next)
        {
          const GmlBlock *block = gml_mem_state_get_block (d->data->state, b);

          active = block->state == GML_BLOCK_ALLOCATED || block->state == GML_BLOCK_PENDING_FREE;
        }
      for (gint32 b = e->first; b >= 0;)
        {
          const GmlBlock *block = gml_mem_state_get_block (d->data->state, b);

          draw_block (d, e, active, block, b);
          b = block->next;
        }
    }
}

static void
draw_legend (cairo_t                *cr,
             const GmlMemoryMapData *data,
             const GmlRenderStyle   *style,
             const GmlRect          *area)
{
  const GmlPalette *pal = &style->palette;
  double lh = line_height (style);
  double x = area->x, y = area->y;
  double sw = style->font_size;
  struct { const char *name; int kind; } items[] = {
    { gml_category_display_name (GML_CATEGORY_WEIGHTS), GML_CATEGORY_WEIGHTS },
    { gml_category_display_name (GML_CATEGORY_ACTIVATIONS), GML_CATEGORY_ACTIVATIONS },
    { gml_category_display_name (GML_CATEGORY_GRADIENTS), GML_CATEGORY_GRADIENTS },
    { gml_category_display_name (GML_CATEGORY_OPTIMIZER_STATE), GML_CATEGORY_OPTIMIZER_STATE },
    { gml_category_display_name (GML_CATEGORY_TEMPORARY), GML_CATEGORY_TEMPORARY },
    { _("Free, cached"), KIND_FREE },
    { _("Inactive split"), KIND_INACTIVE },
    { _("Rounding waste"), N_KINDS },
  };

  for (guint i = 0; i < G_N_ELEMENTS (items); i++)
    {
      double tw;

      _gml_text_size (cr, style, items[i].name, 0.9, 0, &tw, NULL);
      if (x + sw + 4 + tw > area->x + area->width && x > area->x)
        {
          x = area->x;
          y += lh;
          if (y + lh > area->y + area->height + 1)
            break;
        }
      cairo_rectangle (cr, x, y + (lh - sw) / 2, sw, sw);
      if (items[i].kind == KIND_FREE)
        _gml_fill_hatched (cr, &pal->free_fill, &pal->hatch, style->line_width);
      else if (items[i].kind == KIND_INACTIVE)
        _gml_fill_hatched (cr, &pal->free_fill, &pal->inactive, style->line_width);
      else if (items[i].kind == N_KINDS)
        _gml_fill_hatched (cr, &pal->waste, &pal->category[GML_CATEGORY_WEIGHTS], style->line_width);
      else
        {
          _gml_set_color (cr, &pal->category[items[i].kind]);
          cairo_fill (cr);
        }
      _gml_text (cr, style, items[i].name, x + sw + 4, y + (lh - style->font_size * 1.2) / 2,
                 0.9, 0, &pal->foreground, 0);
      x += sw + 4 + tw + 14;
    }
}

static void
draw_device_bar (cairo_t                *cr,
                 const GmlMemoryMapData *data,
                 const GmlRenderStyle   *style,
                 const GmlMapLayout     *layout)
{
  const GmlPalette *pal = &style->palette;
  const GmlStats *stats = gml_mem_state_get_stats (data->state);
  guint64 reserved = stats->reserved_bytes[GML_STAT_ALL].current;
  guint64 allocated = stats->allocated_bytes[GML_STAT_ALL].current;
  guint64 scale = MAX (data->capacity + data->other_in_use, reserved + data->other_in_use);
  const GmlRect *bar = &layout->device_bar;
  double x = bar->x;
  g_autofree char *t_total = gml_format_size_short (data->capacity);
  g_autofree char *t_res = gml_format_size_short (reserved);
  g_autofree char *t_alloc = gml_format_size_short (allocated);
  g_autofree char *line = NULL;
  double w;

  if (scale == 0)
    scale = 1;

  cairo_rectangle (cr, bar->x, bar->y, bar->width, bar->height);
  _gml_set_color (cr, &pal->free_fill);
  cairo_fill_preserve (cr);
  _gml_set_color (cr, &pal->segment_border);
  cairo_set_line_width (cr, style->line_width);
  cairo_stroke (cr);

  w = bar->width * allocated / scale;
  cairo_rectangle (cr, x, bar->y, w, bar->height);
  _gml_set_color (cr, &pal->allocated);
  cairo_fill (cr);
  x += w;
  w = bar->width * (reserved - allocated) / scale;
  cairo_rectangle (cr, x, bar->y, w, bar->height);
  _gml_fill_hatched (cr, &pal->free_fill, &pal->reserved, style->line_width);
  x += w;
  if (data->other_in_use > 0)
    {
      w = bar->width * data->other_in_use / scale;
      cairo_rectangle (cr, bar->x + bar->width - w, bar->y, w, bar->height);
      _gml_set_color (cr, &pal->other_processes);
      cairo_fill (cr);
    }

  if (data->other_in_use > 0)
    {
      g_autofree char *t_other = gml_format_size_short (data->other_in_use);
      /* Translators: device name, then sizes. */
      line = g_strdup_printf (_("%s · total %s · reserved %s · allocated %s · other processes %s"),
                              data->device_name ? data->device_name : "", t_total, t_res, t_alloc,
                              t_other);
    }
  else
    line = g_strdup_printf (_("%s · total %s · reserved %s · allocated %s"),
                            data->device_name ? data->device_name : "", t_total, t_res, t_alloc);
  w = _gml_text (cr, style, line, bar->x, bar->y + bar->height + 3, 0.95, 0, &pal->foreground, 0);

  if (data->failed_request > 0)
    {
      g_autofree char *req = gml_format_size_short (data->failed_request);
      g_autofree char *text = g_strdup_printf (_("Failed request: %s"), req);
      double tw;

      /* Where the line is too narrow for both, the description still says it. */
      _gml_text_size (cr, style, text, 0.95, GML_TEXT_BOLD, &tw, NULL);
      if (w + tw + 16 <= bar->width)
        _gml_text (cr, style, text, bar->x + bar->width, bar->y + bar->height + 3, 0.95,
                 GML_TEXT_BOLD, &pal->oom, 1.0);
    }
}

/* A premultiplied ARGB32 buffer over the map, written directly. */
typedef struct
{
  cairo_surface_t *surface;
  guint32         *px;
  int              stride;         /* in pixels */
  int              ox, oy, w, h;
} Raster;

static void
raster_init (Raster        *r,
             const GmlRect *map)
{
  r->ox = (int) floor (map->x) - 1;
  r->oy = (int) floor (map->y) - 1;
  r->w = (int) ceil (map->x + map->width) + 2 - r->ox;
  r->h = (int) ceil (map->y + map->height) + 2 - r->oy;
  r->surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, r->w, r->h);
  r->px = (guint32 *) cairo_image_surface_get_data (r->surface);
  r->stride = cairo_image_surface_get_stride (r->surface) / 4;
}

/* Fills what cairo fills without antialiasing: the pixels whose centres are
 * inside the rectangle, blended OVER what is already there. */
static void
raster_fill (Raster         *r,
             const GmlRect  *rect,
             const GmlColor *color,
             double          alpha)
{
  int x0 = MAX ((int) ceil (rect->x - 0.5) - r->ox, 0);
  int x1 = MIN ((int) ceil (rect->x + rect->width - 0.5) - r->ox, r->w);
  int y0 = MAX ((int) ceil (rect->y - 0.5) - r->oy, 0);
  int y1 = MIN ((int) ceil (rect->y + rect->height - 0.5) - r->oy, r->h);
  double a = color->alpha * alpha;
  guint32 sa = (guint32) round (a * 255);
  guint32 sr = (guint32) round (color->red * a * 255);
  guint32 sg = (guint32) round (color->green * a * 255);
  guint32 sb = (guint32) round (color->blue * a * 255);
  guint32 src = sa << 24 | sr << 16 | sg << 8 | sb;
  guint32 inv = 255 - sa;

  for (int y = y0; y < y1; y++)
    {
      guint32 *row = r->px + (gsize) y * r->stride;

      if (sa == 255)
        for (int x = x0; x < x1; x++)
          row[x] = src;
      else
        for (int x = x0; x < x1; x++)
          {
            guint32 dst = row[x];
            guint32 out = 0;

            for (int shift = 0; shift < 32; shift += 8)
              {
                guint32 s_c = (src >> shift) & 0xff;
                guint32 d_c = (dst >> shift) & 0xff;
                guint32 t = d_c * inv + 128;

                out |= MIN (s_c + ((t + (t >> 8)) >> 8), 255u) << shift;
              }
            row[x] = out;
          }
    }
}

static void
raster_paint (cairo_t *cr,
              Raster  *r)
{
  cairo_surface_mark_dirty (r->surface);
  cairo_set_source_surface (cr, r->surface, r->ox, r->oy);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_rectangle (cr, r->ox, r->oy, r->w, r->h);
  cairo_fill (cr);
  g_clear_pointer (&r->surface, cairo_surface_destroy);
}

void
gml_render_memory_map (cairo_t                *cr,
                       const GmlMemoryMapData *data,
                       const GmlRenderStyle   *style,
                       int                     width,
                       int                     height)
{
  GmlMapLayout layout = { 0 };
  MapDraw d = { 0 };

  _gml_background (cr, style, width, height);
  gml_map_layout_compute (&layout, data, style, width, height);
  draw_device_bar (cr, data, style, &layout);

  if (layout.pieces->len == 0)
    {
      _gml_text (cr, style, _("No memory reserved yet"), layout.map.x + layout.map.width / 2,
                 layout.map.y + layout.map.height / 2 - style->font_size, 1.1, 0,
                 &style->palette.dim, 0.5);
    }
  else
    {
      /* Segment boxes: the background every block is drawn on, as one path.
       * Rectangles here are filled without antialiasing: they are
       * pixel-aligned vertically, and sub-pixel runs are already aggregated. */
      Raster raster = { NULL };
      gboolean dense_boxes = layout.pieces->len > DENSE_BOXES;
      guint n_pix_runs = 0;

      cairo_save (cr);
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
      cairo_set_line_width (cr, style->line_width);
      if (dense_boxes)
        {
          raster_init (&raster, &layout.map);
          for (guint i = 0; i < layout.pieces->len; i++)
            raster_fill (&raster, &g_array_index (layout.pieces, GmlMapPiece, i).rect,
                         &style->palette.free_fill, 1.0);
        }
      else
        {
          for (guint i = 0; i < layout.pieces->len; i++)
            {
              const GmlMapPiece *p = &g_array_index (layout.pieces, GmlMapPiece, i);

              cairo_rectangle (cr, p->rect.x, p->rect.y, p->rect.width, p->rect.height);
            }
          _gml_set_color (cr, &style->palette.free_fill);
          cairo_fill (cr);
        }

      d.cr = cr;
      d.data = data;
      d.style = style;
      d.layout = &layout;
      d.agg_x = G_MININT;
      d.run_kind = -1;
      for (int k = 0; k < N_KINDS; k++)
        {
          d.runs[k] = g_array_new (FALSE, FALSE, sizeof (GmlRect));
          d.pix_runs[k] = g_array_new (FALSE, FALSE, sizeof (GmlRect));
          d.hatched[k] = g_array_new (FALSE, FALSE, sizeof (GmlRect));
        }
      d.overlays = g_array_new (FALSE, FALSE, sizeof (Overlay));
      draw_blocks (&d);
      flush_pixel (&d);
      flush_run (&d);
      for (int k = 0; k < N_KINDS; k++)
        n_pix_runs += d.pix_runs[k]->len;

      /* The aggregated runs lie on whole pixels inside the segment boxes and
       * under nothing else, so they go first, into the buffer when there are
       * many (the same pixels cairo would fill) or as one path per kind. */
      if (n_pix_runs > DENSE_BOXES && raster.surface == NULL)
        raster_init (&raster, &layout.map);
      for (int k = 0; k < N_KINDS; k++)
        {
          double alpha = k == KIND_FREE || k == KIND_INACTIVE ? 0.55 : k == KIND_PENDING ? 0.5 : 1.0;

          for (guint i = 0; i < d.pix_runs[k]->len; i++)
            {
              const GmlRect *r = &g_array_index (d.pix_runs[k], GmlRect, i);

              if (raster.surface != NULL)
                raster_fill (&raster, r, kind_color (style, k), alpha);
              else
                cairo_rectangle (cr, r->x, r->y, r->width, r->height);
            }
          if (raster.surface == NULL && d.pix_runs[k]->len > 0)
            {
              _gml_set_color_alpha (cr, kind_color (style, k), alpha);
              cairo_fill (cr);
            }
          g_array_unref (d.pix_runs[k]);
        }
      if (raster.surface != NULL)
        raster_paint (cr, &raster);

      /* Sub-pixel blocks, aggregated into runs: one fill per kind. Runs never
       * overlap the blocks drawn one by one, so the order does not matter. */
      for (int k = 0; k < N_KINDS; k++)
        {
          for (guint i = 0; i < d.runs[k]->len; i++)
            {
              const GmlRect *r = &g_array_index (d.runs[k], GmlRect, i);

              cairo_rectangle (cr, r->x, r->y, r->width, r->height);
            }
          _gml_set_color_alpha (cr, kind_color (style, k),
                                k == KIND_FREE || k == KIND_INACTIVE ? 0.55 : k == KIND_PENDING ? 0.5 : 1.0);
          cairo_fill (cr);
          g_array_unref (d.runs[k]);

          for (guint i = 0; i < d.hatched[k]->len; i++)
            {
              const GmlRect *r = &g_array_index (d.hatched[k], GmlRect, i);

              cairo_rectangle (cr, r->x, r->y, r->width, r->height);
            }
          if (d.hatched[k]->len > 0)
            _gml_fill_hatched (cr, &style->palette.free_fill,
                               k == KIND_INACTIVE ? &style->palette.inactive : &style->palette.hatch,
                               style->line_width);
          g_array_unref (d.hatched[k]);
        }
      cairo_restore (cr);
      for (guint i = 0; i < d.overlays->len; i++)
        draw_overlay (cr, style, &g_array_index (d.overlays, Overlay, i));
      g_array_unref (d.overlays);

      _gml_set_color (cr, &style->palette.segment_border);
      cairo_set_line_width (cr, style->line_width);
      for (guint i = 0; i < layout.pieces->len; i++)
        {
          const GmlMapPiece *p = &g_array_index (layout.pieces, GmlMapPiece, i);

          /* Boxes a few pixels wide are told apart by their gaps already. */
          if (p->rect.width >= 8)
            cairo_rectangle (cr, p->rect.x + 0.5, p->rect.y + 0.5, p->rect.width - 1, p->rect.height - 1);
        }
      cairo_stroke (cr);
    }

  draw_legend (cr, data, style, &layout.legend);
  gml_map_layout_clear (&layout);
}

typedef struct
{
  guint64       address;
  gboolean      found;
  GmlBlockInfo *out;
} HitData;

static void
hit_block_cb (const GmlSegmentInfo *segment,
              const GmlBlockInfo   *block,
              gpointer              user_data)
{
  HitData *h = user_data;

  if (!h->found && h->address >= block->address && h->address < block->address + block->size)
    {
      *h->out = *block;
      h->found = TRUE;
    }
}

gboolean
gml_render_memory_map_hit (const GmlMemoryMapData *data,
                           const GmlRenderStyle   *style,
                           int                     width,
                           int                     height,
                           double                  x,
                           double                  y,
                           GmlBlockInfo           *block)
{
  GmlMapLayout layout = { 0 };
  HitData h = { 0 };

  gml_map_layout_compute (&layout, data, style, width, height);
  for (guint i = 0; i < layout.pieces->len; i++)
    {
      const GmlMapPiece *p = &g_array_index (layout.pieces, GmlMapPiece, i);

      if (x >= p->rect.x && x < p->rect.x + p->rect.width &&
          y >= p->rect.y && y < p->rect.y + p->rect.height)
        {
          h.address = p->address + p->offset
            + (guint64) ((x - p->rect.x) / p->rect.width * p->length);
          h.out = block;
          gml_mem_state_foreach_block (data->state, hit_block_cb, &h);
          break;
        }
    }
  gml_map_layout_clear (&layout);
  return h.found;
}

char *
gml_describe_memory_map (const GmlMemoryMapData *data)
{
  const GmlStats *stats = gml_mem_state_get_stats (data->state);
  g_autofree char *res = gml_format_size_short (stats->reserved_bytes[GML_STAT_ALL].current);
  g_autofree char *alloc = gml_format_size_short (stats->allocated_bytes[GML_STAT_ALL].current);
  g_autofree char *largest = gml_format_size_short (gml_mem_state_get_largest_free_block (data->state));

  if (data->failed_request > 0)
    {
      g_autofree char *req = gml_format_size_short (data->failed_request);
      /* Translators: all %s are sizes. */
      return g_strdup_printf (_("Reserved %s, allocated %s, largest free block %s; a request "
                                "for %s failed."), res, alloc, largest, req);
    }
  /* Translators: all %s are sizes. */
  return g_strdup_printf (_("Reserved %s, allocated %s, largest free block %s."), res, alloc, largest);
}

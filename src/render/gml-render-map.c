/* gml-render-map.c — the memory map: segments as boxes, blocks inside them.
 *
 * Every segment is one box and every block one rectangle in it: nothing is
 * split across rows. Segments are packed into rows in address order (or
 * largest first), one byte scale for the whole picture so sizes compare by
 * eye, with a scale bar under the map. A segment larger than a row is drawn
 * as a taller box spanning several rows, its area still proportional to its
 * bytes (its blocks are full-height columns of it), and the rows beside it
 * take the next segments, like text flowing around a floated picture: one
 * 2 GiB segment and two hundred 2 MiB ones share a map without the small ones
 * vanishing. Blocks narrower than three pixels are not drawn one by one: each
 * pixel column gets the colour of the kind that covers most of it, and equal
 * neighbours are drawn as one run, so 100 000 blocks cost about as much as
 * the pixels they cover.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-render"

#include "config.h"

#include <math.h>
#include <string.h>
#include "gml-i18n.h"

#include "gml-render-private.h"
#include "gml-snapshot-category.h"

#define MARGIN 8.0
#define ROW_GAP 4.0
#define MIN_ROW_HEIGHT 14.0
#define MAX_LABELS 500
/* Above this many boxes a map is drawn into a pixel buffer of its own: cairo
 * spends about 0.2 µs on each rectangle of a path, and 100 000 blocks make
 * tens of thousands of them, all pixel-aligned and without antialiasing. */
#define DENSE_BOXES 2048

typedef struct
{
  guint64  address;
  guint64  size;
  guint    index;    /* address order */
  gint32   first;    /* first block slot */
  gboolean active;   /* holds an allocated or pending-free block */
} SegEntry;

static int
by_address_cmp (const void *a,
                const void *b)
{
  const SegEntry *x = a, *y = b;

  return x->address < y->address ? -1 : (x->address > y->address);
}

static int
by_size_cmp (const void *a,
             const void *b)
{
  const SegEntry *x = a, *y = b;

  if (x->size != y->size)
    return x->size > y->size ? -1 : 1;
  return x->address < y->address ? -1 : (x->address > y->address);
}

static GmlMemoryKind
block_kind (gboolean        segment_active,
            const GmlBlock *block)
{
  switch (block->state)
    {
    case GML_BLOCK_ALLOCATED:
      return (GmlMemoryKind) MIN (block->category, GML_N_CATEGORIES - 1);
    case GML_BLOCK_PENDING_FREE:
      return GML_MEMORY_KIND_PENDING_FREE;
    case GML_BLOCK_FREE:
    case GML_BLOCK_UNUSED:
    default:
      /* A free piece of a segment that still has an active block: PyTorch's
       * "inactive split", which empty_cache() cannot give back. */
      return segment_active ? GML_MEMORY_KIND_INACTIVE_SPLIT : GML_MEMORY_KIND_FREE_CACHED;
    }
}

static guint64
block_waste (const GmlBlock *block)
{
  if (block->state == GML_BLOCK_ALLOCATED && block->requested_size > 0 &&
      block->size > block->requested_size)
    return block->size - block->requested_size;
  return 0;
}

/* The segments in address order, read straight from the state's slots, and
 * the bytes of each kind (the overview bar and the legend need them). */
static GArray *
collect_segments (const GmlMemState *state,
                  guint64           *kind_bytes)
{
  guint n = gml_mem_state_get_n_segment_slots (state);
  GArray *segs = g_array_sized_new (FALSE, FALSE, sizeof (SegEntry),
                                    gml_mem_state_get_n_segments (state));

  for (guint slot = 0; slot < n; slot++)
    {
      const GmlSegment *seg = gml_mem_state_get_segment (state, slot);
      guint64 free_bytes = 0;
      SegEntry e;

      if (seg == NULL || seg->first_block < 0)
        continue;
      e = (SegEntry) { seg->address, seg->size, 0, seg->first_block, FALSE };
      for (gint32 b = e.first; b >= 0;)
        {
          const GmlBlock *block = gml_mem_state_get_block (state, b);

          if (block->state == GML_BLOCK_ALLOCATED)
            {
              guint64 waste = block_waste (block);

              kind_bytes[MIN (block->category, GML_N_CATEGORIES - 1)] += block->size - waste;
              kind_bytes[GML_MEMORY_KIND_ROUNDING_WASTE] += waste;
              e.active = TRUE;
            }
          else if (block->state == GML_BLOCK_PENDING_FREE)
            {
              kind_bytes[GML_MEMORY_KIND_PENDING_FREE] += block->size;
              e.active = TRUE;
            }
          else
            free_bytes += block->size;
          b = block->next;
        }
      kind_bytes[e.active ? GML_MEMORY_KIND_INACTIVE_SPLIT
                          : GML_MEMORY_KIND_FREE_CACHED] += free_bytes;
      g_array_append_val (segs, e);
    }
  /* qsort() must not see the NULL data of an empty array. */
  if (segs->len > 1)
    qsort (segs->data, segs->len, sizeof (SegEntry), by_address_cmp);
  for (guint i = 0; i < segs->len; i++)
    g_array_index (segs, SegEntry, i).index = i;
  return segs;
}

/* ------------------------------------------------------------------------- */
/* Packing                                                                   */

typedef struct
{
  GmlMapLayout *layout;
  GArray       *order;      /* SegEntry in drawing order */
  double       *left;       /* per row: where the next box may start (after floats) */
  double       *top;        /* per row: its first pixel row, and one past its last */
  double       *bottom;
  guint         rows;
  double        row_h;
  double        gap;
  double        min_w;
} Packer;

static void
row_span (const Packer *pk,
          guint         row,
          guint         n_rows,
          GmlRect      *rect)
{
  rect->y = pk->top[row];
  rect->height = MAX (pk->bottom[row + n_rows - 1] - pk->top[row], 1);
}

/* Places every segment at @bpp bytes per pixel (in a box one row high);
 * FALSE when they do not all fit. */
static gboolean
pack (Packer *pk,
      double  bpp)
{
  GmlMapLayout *layout = pk->layout;
  const GmlRect *map = &layout->map;
  double right = map->x + map->width;
  guint row = 0;
  double x = map->x;

  for (guint r = 0; r < pk->rows; r++)
    pk->left[r] = map->x;
  g_array_set_size (layout->pieces, pk->order->len);
  for (guint i = 0; i < pk->order->len; i++)
    {
      const SegEntry *e = &g_array_index (pk->order, SegEntry, i);
      GmlMapPiece *p = &g_array_index (layout->pieces, GmlMapPiece, i);
      double w = MAX (e->size / bpp, pk->min_w);

      *p = (GmlMapPiece) { e->index, e->address, 0, e->size, { 0 } };
      g_array_index (layout->first_piece, guint, e->index) = i;
      if (w <= map->width)
        {
          /* A fresh row rather than a box cut at the row's end; a row beside
           * a tall box may be too short even when empty. */
          while (x + w > right + 1e-6)
            {
              if (++row >= pk->rows)
                return FALSE;
              x = pk->left[row];
            }
          row_span (pk, row, 1, &p->rect);
          p->rect.x = x;
          p->rect.width = w;
          x += w + pk->gap;
        }
      else
        {
          guint k, r;
          double box_w = 0;

          /* Taller: k rows high and narrower, the same area. */
          for (k = 2; k <= pk->rows; k++)
            {
              GmlRect span;

              row_span (pk, 0, k, &span);
              box_w = w * pk->row_h / span.height;
              if (box_w <= map->width)
                break;
            }
          if (k > pk->rows)
            return FALSE;
          /* Rows no earlier box reaches into. */
          r = x > pk->left[row] ? row + 1 : row;
          for (;;)
            {
              gboolean clear = r + k <= pk->rows;

              for (guint j = r; clear && j < r + k; j++)
                clear = pk->left[j] == map->x;
              if (clear)
                break;
              if (++r + k > pk->rows)
                return FALSE;
            }
          row_span (pk, r, k, &p->rect);
          p->rect.x = map->x;
          p->rect.width = box_w;
          for (guint j = r; j < r + k; j++)
            pk->left[j] = map->x + box_w + pk->gap;
          row = r;
          x = pk->left[r];
        }
    }
  return TRUE;
}

/* The least bytes per pixel at which everything fits in @rows rows (within
 * the bisection's last step); 0 when nothing does. */
static double
fit_rows (Packer  *pk,
          guint    rows,
          guint64  total,
          guint64  largest,
          guint    n_steps)
{
  const GmlRect *map = &pk->layout->map;
  guint n = pk->order->len;
  double capacity, lo, hi, slack;

  pk->rows = rows;
  pk->row_h = (map->height - (rows - 1) * ROW_GAP) / rows;
  /* Whole pixels vertically: crisp edges, and cheap fills. */
  for (guint r = 0; r < rows; r++)
    {
      pk->top[r] = floor (map->y + r * (pk->row_h + ROW_GAP));
      pk->bottom[r] = floor (map->y + r * (pk->row_h + ROW_GAP) + pk->row_h);
    }
  capacity = rows * map->width;
  /* Gaps and a least width while there is room for them: each segment stays a
   * box of its own. Thousands of segments in a small map touch instead. */
  if (n * 3.0 <= capacity * 0.5)
    {
      pk->gap = CLAMP (floor (capacity / n / 8), 1, 4);
      pk->min_w = 2;
    }
  else if (n * 1.0 <= capacity * 0.5)
    {
      pk->gap = 0;
      pk->min_w = 1;
    }
  else
    {
      pk->gap = 0;
      pk->min_w = 0;
    }

  /* A lower bound: every pixel used. Each row can lose at most one box's
   * width at its end, and the gaps and least widths take theirs: a first
   * guess that usually fits, so a dense map costs a few packings only. */
  lo = MAX ((double) total / capacity, 1e-9);
  slack = rows * MIN ((double) largest / lo, map->width) * 0.5 + n * (pk->gap + pk->min_w);
  hi = (double) total / MAX (capacity - slack, capacity * 0.2);
  hi = MAX (hi, lo);
  for (guint tries = 0; !pack (pk, hi); tries++)
    {
      if (tries > 60)
        return 0;
      lo = hi;
      hi *= 1.25;
    }
  for (guint i = 0; i < n_steps && hi > lo * 1.002; i++)
    {
      double mid = sqrt (lo * hi);

      if (pack (pk, mid))
        hi = mid;
      else
        lo = mid;
    }
  return hi;
}

/* ------------------------------------------------------------------------- */
/* The text around the map                                                   */

static char *
device_line (const GmlMemoryMapData *data)
{
  const GmlStats *stats = gml_mem_state_get_stats (data->state);
  g_autofree char *t_total = gml_format_size_short (data->capacity);
  g_autofree char *t_res = gml_format_size_short (stats->reserved_bytes[GML_STAT_ALL].current);
  g_autofree char *t_alloc = gml_format_size_short (stats->allocated_bytes[GML_STAT_ALL].current);

  if (data->capacity_is_peak)
    /* Translators: device name, then sizes; the first is what the map is drawn to,
     * as a snapshot does not record the GPU's memory. */
    return g_strdup_printf (_("%s · scale: the most reserved, %s · reserved %s · allocated %s"),
                            data->device_name ? data->device_name : "", t_total, t_res, t_alloc);
  if (data->other_in_use > 0)
    {
      g_autofree char *t_other = gml_format_size_short (data->other_in_use);
      /* Translators: device name, then sizes. */
      return g_strdup_printf (_("%s · total %s · reserved %s · allocated %s · other processes %s"),
                              data->device_name ? data->device_name : "", t_total, t_res, t_alloc,
                              t_other);
    }
  return g_strdup_printf (_("%s · total %s · reserved %s · allocated %s"),
                          data->device_name ? data->device_name : "", t_total, t_res, t_alloc);
}

/* The device line wrapped in @area's width, then the failed request: on the
 * same line when there is room, else on its own. Returns the height. */
static double
header (cairo_t                *cr,
        const GmlMemoryMapData *data,
        const GmlRenderStyle   *style,
        const GmlRect          *area,
        gboolean                draw)
{
  g_autofree char *line = device_line (data);
  double lh = _gml_line_height (style);
  double used = 0, h;

  h = _gml_paragraph (cr, style, line, area->x, area->y, area->width, 0.95, 0,
                      draw ? &style->palette.foreground : NULL, area, &used);
  if (data->failed_request > 0)
    {
      g_autofree char *req = gml_format_size_short (data->failed_request);
      g_autofree char *text = g_strdup_printf (_("Failed request: %s"), req);
      double tw, th, rh;

      _gml_text_size (cr, style, text, 0.95, GML_TEXT_BOLD, &tw, &th);
      if (h <= lh && used + 16 + tw <= area->width)
        {
          h = MAX (h, th);
          if (draw)
            _gml_label (cr, style, text, area->x + area->width, area->y, 0.95, GML_TEXT_BOLD,
                        &style->palette.oom, 1.0, area);
        }
      else
        {
          rh = _gml_paragraph (cr, style, text, area->x, area->y + h, area->width, 0.95,
                               GML_TEXT_BOLD, draw ? &style->palette.oom : NULL, area, NULL);
          h += rh;
        }
    }
  return h;
}

static guint
legend_items (const GmlMemoryMapData *data,
              const GmlMapLayout     *layout,
              GmlLegendItem          *items)
{
  static const GmlMemoryKind always[] = {
    GML_MEMORY_KIND_WEIGHTS, GML_MEMORY_KIND_ACTIVATIONS, GML_MEMORY_KIND_GRADIENTS,
    GML_MEMORY_KIND_OPTIMIZER_STATE, GML_MEMORY_KIND_KV_CACHE, GML_MEMORY_KIND_TEMPORARY,
    GML_MEMORY_KIND_OTHER,
    GML_MEMORY_KIND_FREE_CACHED, GML_MEMORY_KIND_INACTIVE_SPLIT, GML_MEMORY_KIND_PENDING_FREE,
    GML_MEMORY_KIND_ROUNDING_WASTE, GML_MEMORY_KIND_NOT_RESERVED, GML_MEMORY_KIND_OTHER_PROCESSES,
  };
  guint n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (always); i++)
    {
      GmlMemoryKind kind = always[i];

      /* Only the kinds drawn at this step: a legend entry for something the
       * picture does not show sends the reader looking for it. */
      if (layout->kind_bytes[kind] == 0 && kind != GML_MEMORY_KIND_OTHER_PROCESSES &&
          !(data->uncategorised && kind == GML_MEMORY_KIND_OTHER))
        continue;
      if (kind == GML_MEMORY_KIND_OTHER_PROCESSES && data->other_in_use == 0)
        continue;
      if (data->uncategorised && kind > GML_MEMORY_KIND_OTHER && kind < GML_MEMORY_KIND_FREE_CACHED)
        continue;
      if (data->uncategorised && kind == GML_MEMORY_KIND_OTHER)
        {
          /* Nothing says what a tensor was for: one neutral kind. */
          items[n++] = (GmlLegendItem) { C_("memory kind", "Allocated"), _gml_swatch_kind,
                                         GINT_TO_POINTER (kind) };
          continue;
        }
      if (data->inferred && kind < GML_MEMORY_KIND_FREE_CACHED)
        {
          /* Only the categories drawn, in the snapshot's words. */
          if (layout->kind_bytes[kind] > 0)
            items[n++] = (GmlLegendItem) { gml_snapshot_category_name ((GmlCategory) kind),
                                           _gml_swatch_kind, GINT_TO_POINTER (kind) };
          continue;
        }
      items[n++] = (GmlLegendItem) { gml_memory_kind_name (kind), _gml_swatch_kind,
                                     GINT_TO_POINTER (kind) };
    }
  if (data->highlight != GML_CATEGORY_NONE)
    items[n++] = (GmlLegendItem) { _gml_mark_text (), _gml_swatch_mark, NULL };
  if (data->inferred)
    items[n++] = (GmlLegendItem) {
      _("(categories inferred from each allocation’s stack and lifetime)"), NULL, NULL
    };
  return n;
}

static void
layout_compute (GmlMapLayout           *layout,
                const GmlMemoryMapData *data,
                const GmlRenderStyle   *style,
                cairo_t                *cr,
                int                     width,
                int                     height)
{
  double lh = _gml_line_height (style);
  double inner = MAX (width - 2 * MARGIN, 1);
  GmlLegendItem items[GML_N_MEMORY_KINDS + 2];
  guint n_items;
  GArray *order;
  guint64 total = 0, largest = 0;
  guint max_rows, n;
  guint64 reserved;
  double best_score = G_MAXDOUBLE, best_bpp = 0;
  guint best_rows = 0;
  Packer pk = { layout };

  g_clear_pointer (&layout->segments, g_array_unref);
  memset (layout->kind_bytes, 0, sizeof layout->kind_bytes);
  layout->segments = collect_segments (data->state, layout->kind_bytes);
  reserved = gml_mem_state_get_stats (data->state)->reserved_bytes[GML_STAT_ALL].current;
  if (data->capacity > reserved)
    layout->kind_bytes[GML_MEMORY_KIND_NOT_RESERVED] = data->capacity - reserved;
  layout->kind_bytes[GML_MEMORY_KIND_OTHER_PROCESSES] = data->other_in_use;
  if (layout->pieces == NULL)
    {
      layout->pieces = g_array_new (FALSE, FALSE, sizeof (GmlMapPiece));
      layout->first_piece = g_array_new (FALSE, TRUE, sizeof (guint));
    }

  layout->device_bar = (GmlRect) { MARGIN, MARGIN, inner, ceil (style->font_size * 1.5) };
  layout->header = (GmlRect) { MARGIN, layout->device_bar.y + layout->device_bar.height + 3, inner,
                               0 };
  layout->header.height = header (cr, data, style, &layout->header, FALSE);
  n_items = legend_items (data, layout, items);
  layout->legend = (GmlRect) { MARGIN, 0, inner, 0 };
  layout->legend.height = _gml_legend (cr, style, items, n_items, &layout->legend, FALSE);
  layout->legend.y = height - MARGIN - layout->legend.height;
  layout->scale = (GmlRect) { MARGIN, layout->legend.y - 4 - lh, inner, lh };
  layout->map.x = MARGIN;
  layout->map.y = ceil (layout->header.y + layout->header.height + 6);
  layout->map.width = inner;
  layout->map.height = MAX (layout->scale.y - 4 - layout->map.y, 8);

  n = layout->segments->len;
  for (guint i = 0; i < n; i++)
    {
      total += g_array_index (layout->segments, SegEntry, i).size;
      largest = MAX (largest, g_array_index (layout->segments, SegEntry, i).size);
    }
  if (data->by_size)
    {
      /* Drawing walks the segments in address order; pack a sorted copy. */
      order = g_array_copy (layout->segments);
      if (order->len > 1)
        qsort (order->data, order->len, sizeof (SegEntry), by_size_cmp);
    }
  else
    order = g_array_ref (layout->segments);

  g_array_set_size (layout->pieces, 0);
  g_array_set_size (layout->first_piece, n);
  layout->bytes_per_px = 1;
  layout->row_height = layout->map.height;
  layout->n_rows = 1;
  layout->gap = 0;
  layout->n_unplaced = 0;
  if (n == 0)
    {
      g_array_unref (order);
      return;
    }

  max_rows = MAX (1, (guint) floor ((layout->map.height + ROW_GAP) / (MIN_ROW_HEIGHT + ROW_GAP)));
  pk.order = order;
  pk.left = g_new (double, max_rows);
  pk.top = g_new (double, max_rows);
  pk.bottom = g_new (double, max_rows);
  /* Try row counts, keep the one that draws the bytes largest (fewest bytes
   * per square pixel), preferring rows tall enough for a two-line label. A
   * few hundred segments try every count; more try a handful. */
  for (guint i = 0;; i++)
    {
      guint rows;
      double bpp, score;

      if (n <= 256)
        {
          if (i >= MIN (max_rows, 64u))
            break;
          rows = i + 1;
        }
      else
        {
          static const double f[] = { 1.0, 0.75 };

          /* Thousands of segments: the most rows, which wastes least at
           * the rows' ends; a few hundred: that or fewer, taller ones. */
          if (i >= (n > DENSE_BOXES ? 1 : G_N_ELEMENTS (f)))
            break;
          rows = MAX (1, (guint) round (max_rows * f[i]));
        }
      bpp = fit_rows (&pk, rows, total, largest, n <= 256 ? 18 : n > DENSE_BOXES ? 4 : 6);
      if (bpp <= 0)
        continue;
      score = bpp / pk.row_h;
      if (pk.row_h < 2.6 * lh)
        score *= 1.35;
      if (n <= 256)
        {
          guint narrow = 0;
          double skew = 0;

          /* Boxes too narrow for a size label count against a row count, and
           * so do boxes far from square: a 2 MiB segment as a hair-thin
           * full-height stripe says less than a small square beside a big
           * one spanning many rows. */
          pack (&pk, bpp);
          for (guint j = 0; j < layout->pieces->len; j++)
            {
              const GmlRect *r = &g_array_index (layout->pieces, GmlMapPiece, j).rect;

              narrow += r->width < 44;
              skew += fabs (log (MAX (r->width, 0.5) / r->height));
            }
          score *= (1.0 + 0.6 * narrow / n) * exp (0.3 * skew / n);
        }
      if (score < best_score)
        {
          best_score = score;
          best_bpp = bpp;
          best_rows = rows;
        }
    }
  if (best_rows == 0)
    {
      /* Absurdly many segments for the pixels: place what fits, say the rest. */
      fit_rows (&pk, max_rows, total, largest, 0);
      pk.gap = 0;
      pk.min_w = 0;
      best_bpp = (double) total / (max_rows * layout->map.width) * 4;
      best_rows = max_rows;
      while (!pack (&pk, best_bpp) && layout->pieces->len > 0 && order->len > 1)
        g_array_set_size (order, order->len * 3 / 4);
      layout->n_unplaced = n - order->len;
    }
  else
    {
      fit_rows (&pk, best_rows, total, largest, 0);
      pack (&pk, best_bpp);
    }
  layout->bytes_per_px = best_bpp;
  layout->n_rows = best_rows;
  layout->row_height = pk.row_h;
  layout->gap = pk.gap;
  g_free (pk.left);
  g_free (pk.top);
  g_free (pk.bottom);
  g_array_unref (order);
}

void
gml_map_layout_compute (GmlMapLayout           *layout,
                        const GmlMemoryMapData *data,
                        const GmlRenderStyle   *style,
                        int                     width,
                        int                     height)
{
  cairo_t *cr = _gml_scratch_cr ();

  layout_compute (layout, data, style, cr, width, height);
  cairo_destroy (cr);
}

void
gml_map_layout_clear (GmlMapLayout *layout)
{
  g_clear_pointer (&layout->pieces, g_array_unref);
  g_clear_pointer (&layout->first_piece, g_array_unref);
  g_clear_pointer (&layout->segments, g_array_unref);
}

/* The segment (address order) holding @address, by bisection. */
static gboolean
find_segment (const GmlMapLayout *layout,
              guint64             address,
              guint              *index)
{
  GArray *segs = layout->segments;
  guint lo = 0, hi = segs != NULL ? segs->len : 0;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const SegEntry *e = &g_array_index (segs, SegEntry, mid);

      if (address < e->address)
        hi = mid;
      else if (address >= e->address + e->size)
        lo = mid + 1;
      else
        {
          *index = mid;
          return TRUE;
        }
    }
  return FALSE;
}

static const GmlMapPiece *
segment_piece (const GmlMapLayout *layout,
               guint               index)
{
  guint i = g_array_index (layout->first_piece, guint, index);

  if (i >= layout->pieces->len || g_array_index (layout->pieces, GmlMapPiece, i).segment != index)
    return NULL;    /* not placed */
  return &g_array_index (layout->pieces, GmlMapPiece, i);
}

/* Where the bytes [offset, offset + size) of a segment lie across its box. */
static void
piece_span (const GmlMapPiece *p,
            guint64            offset,
            guint64            size,
            double            *x0,
            double            *x1)
{
  *x0 = p->rect.x + (double) offset / p->length * p->rect.width;
  *x1 = p->rect.x + (double) (offset + size) / p->length * p->rect.width;
}

gboolean
gml_map_layout_block_rect (const GmlMapLayout     *layout,
                           const GmlMemoryMapData *data,
                           guint64                 address,
                           guint64                 size,
                           GmlRect                *rect)
{
  const GmlMapPiece *p;
  guint index;
  double x0, x1;

  if (!find_segment (layout, address, &index) || (p = segment_piece (layout, index)) == NULL)
    return FALSE;
  piece_span (p, address - p->address, size, &x0, &x1);
  *rect = (GmlRect) { x0, p->rect.y + 1, x1 - x0, p->rect.height - 2 };
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Drawing                                                                   */

typedef struct
{
  cairo_t                *cr;
  const GmlMemoryMapData *data;
  const GmlRenderStyle   *style;
  GmlMapLayout           *layout;
  /* Aggregation of sub-pixel blocks, per pixel column of a row (boxes of a
   * dense map are thinner than a pixel: their columns and runs merge) */
  int                     agg_x;
  double                  agg_y, agg_h;
  guint64                 agg_bytes[GML_N_MEMORY_KINDS];
  int                     run_x0, run_x1, run_kind;
  double                  run_y, run_h;
  guint                   n_labels;
  GArray                 *wide[GML_N_MEMORY_KINDS];   /* GmlRect: blocks drawn one by one */
  GArray                 *pix_runs[GML_N_MEMORY_KINDS]; /* GmlRect: aggregated runs, whole pixels */
  GArray                 *overlays;                   /* Overlay */
} MapDraw;

/* What is drawn over the blocks once they are filled: rounding waste, the
 * outline of what the question is about, names and sizes. */
typedef struct
{
  GmlRect       rect;
  GmlRect       waste;            /* width 0 = none */
  GmlMemoryKind kind;
  gboolean      highlight;
  gboolean      label;
  guint64       size;
  guint         id;
} Overlay;

static void
flush_run (MapDraw *d)
{
  if (d->run_kind < 0)
    return;
  g_array_append_val (d->pix_runs[d->run_kind],
                      ((GmlRect) { d->run_x0, d->run_y + 1, d->run_x1 - d->run_x0, d->run_h - 2 }));
  d->run_kind = -1;
}

static void
flush_pixel (MapDraw *d)
{
  int best = -1;
  guint64 best_bytes = 0;

  if (d->agg_x == G_MININT)
    return;
  for (int k = 0; k < GML_N_MEMORY_KINDS; k++)
    if (d->agg_bytes[k] > best_bytes)
      {
        best_bytes = d->agg_bytes[k];
        best = k;
      }
  memset (d->agg_bytes, 0, sizeof d->agg_bytes);
  if (best >= 0)
    {
      if (d->run_kind == best && d->run_y == d->agg_y && d->run_h == d->agg_h &&
          d->run_x1 == d->agg_x)
        d->run_x1 = d->agg_x + 1;
      else
        {
          flush_run (d);
          d->run_kind = best;
          d->run_y = d->agg_y;
          d->run_h = d->agg_h;
          d->run_x0 = d->agg_x;
          d->run_x1 = d->agg_x + 1;
        }
    }
  d->agg_x = G_MININT;
}

static void
draw_wide_block (MapDraw           *d,
                 const GmlMapPiece *p,
                 const GmlBlock    *block,
                 guint              id,
                 GmlMemoryKind      kind,
                 double             x0,
                 double             x1)
{
  double y = p->rect.y + 1, h = p->rect.height - 2;
  double w = x1 - x0 - (x1 - x0 >= 4 ? 1 : 0);   /* a hairline between neighbours */
  Overlay o = { { x0, y, w, h }, { 0 }, kind, FALSE, FALSE, block->size, id };
  guint64 waste = block_waste (block);

  /* Filled later, all blocks of a kind in one path. */
  g_array_append_val (d->wide[kind], o.rect);

  /* Rounding waste: the bytes of the block beyond what was asked for, at its end. */
  if (waste > 0)
    {
      double waste_w = (double) waste / p->length * p->rect.width;
      double wx0 = MAX (x1 - waste_w, x0);
      double wx1 = MIN (x1, x0 + w);

      if (waste_w >= 1.0 && wx1 > wx0)
        o.waste = (GmlRect) { wx0, y, wx1 - wx0, h };
    }
  o.highlight = d->data->highlight != GML_CATEGORY_NONE && block->state == GML_BLOCK_ALLOCATED &&
                block->category == d->data->highlight;
  if (d->n_labels < MAX_LABELS && w > 24 && h >= d->style->font_size * 1.2)
    {
      o.label = TRUE;
      d->n_labels++;
    }
  if (o.waste.width > 0 || o.highlight || o.label)
    g_array_append_val (d->overlays, o);
}

/* The name and the size on two lines, else on one, else the name alone, else
 * the size alone: the first that fits in the block, placed in it; nothing
 * when none does (the tooltip still says it). Blocks are disjoint, so a
 * label that fits its block misses every other. */
static void
draw_block_label (cairo_t              *cr,
                  const GmlRenderStyle *style,
                  const GmlMemState    *state,
                  const Overlay        *o)
{
  const GmlPalette *pal = &style->palette;
  double inset = o->highlight ? 6 : 3;
  GmlRect box = { o->rect.x + inset, o->rect.y + inset, o->rect.width - 2 * inset,
                  o->rect.height - 2 * inset };
  g_autofree char *size = gml_format_size_short (o->size);
  gboolean plain = o->kind < GML_MEMORY_KIND_FREE_CACHED;
  const GmlColor *ink = plain ? _gml_ink_on (style, _gml_kind_color (style, o->kind))
                              : &pal->foreground;
  const char *name = NULL;
  GmlBlockInfo info;
  double sw, sh, nw = 0, nh = 0, space;

  if (box.width < 8 || box.height < 8)
    return;
  _gml_text_size (cr, style, size, 0.85, 0, &sw, &sh);
  if (sw > box.width || sh > box.height)
    return;   /* the shortest label does not fit: none does */
  if (plain && gml_mem_state_get_block_info (state, o->id, &info))
    name = info.label;
  if (name != NULL && *name != '\0')
    {
      _gml_text_size (cr, style, name, 0.85, GML_TEXT_BOLD, &nw, &nh);
      if (MAX (nw, sw) <= box.width && nh + sh <= box.height)
        {
          double y = box.y + (box.height - nh - sh) / 2;

          _gml_label (cr, style, name, box.x, y, 0.85, GML_TEXT_BOLD, ink, 0, &box);
          _gml_label (cr, style, size, box.x, y + nh, 0.85, 0, ink, 0, &box);
          return;
        }
      _gml_text_size (cr, style, " ", 0.85, 0, &space, NULL);
      if (nw + space + sw <= box.width && MAX (nh, sh) <= box.height)
        {
          double y = box.y + (box.height - MAX (nh, sh)) / 2;

          _gml_label (cr, style, name, box.x, y, 0.85, GML_TEXT_BOLD, ink, 0, &box);
          _gml_label (cr, style, size, box.x + nw + space, y, 0.85, 0, ink, 0, &box);
          return;
        }
      if (nw <= box.width && nh <= box.height)
        {
          _gml_label (cr, style, name, box.x, box.y + (box.height - nh) / 2, 0.85, GML_TEXT_BOLD,
                      ink, 0, &box);
          return;
        }
    }
  /* On a pattern the text gets a plain ground, which needs room too. */
  if (sw + (plain ? 0 : 4) <= box.width)
    {
      double y = box.y + (box.height - sh) / 2;

      if (!plain)
        {
          cairo_rectangle (cr, box.x, y - 1, sw + 4, sh + 2);
          _gml_set_color (cr, &pal->free_fill);
          cairo_fill (cr);
        }
      _gml_label (cr, style, size, box.x + (plain ? 0 : 2), y, 0.85, 0, ink, 0, &box);
    }
}

static void
draw_block (MapDraw        *d,
            const SegEntry *segment,
            const GmlBlock *block,
            guint           id)
{
  GmlMemoryKind kind = block_kind (segment->active, block);
  guint i = g_array_index (d->layout->first_piece, guint, segment->index);
  const GmlMapPiece *p = &g_array_index (d->layout->pieces, GmlMapPiece, i);
  double x0, x1;

  piece_span (p, block->address - segment->address, block->size, &x0, &x1);
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

      if (px != d->agg_x || p->rect.y != d->agg_y || p->rect.height != d->agg_h)
        {
          flush_pixel (d);
          d->agg_x = px;
          d->agg_y = p->rect.y;
          d->agg_h = p->rect.height;
        }
      d->agg_bytes[kind] += block->size;
    }
}

/* Walks every placed segment's blocks in address order, straight through the state. */
static void
draw_blocks (MapDraw *d)
{
  GArray *segs = d->layout->segments;

  for (guint s = 0; s < segs->len; s++)
    {
      const SegEntry *e = &g_array_index (segs, SegEntry, s);

      if (segment_piece (d->layout, e->index) == NULL)
        continue;
      for (gint32 b = e->first; b >= 0;)
        {
          const GmlBlock *block = gml_mem_state_get_block (d->data->state, b);

          draw_block (d, e, block, b);
          b = block->next;
        }
    }
}

/* The overview bar: the whole capacity, each kind of memory as the map and
 * the legend draw it. */
static void
draw_device_bar (cairo_t                *cr,
                 const GmlMemoryMapData *data,
                 const GmlRenderStyle   *style,
                 const GmlMapLayout     *layout)
{
  static const GmlMemoryKind order[] = {
    GML_MEMORY_KIND_WEIGHTS, GML_MEMORY_KIND_ACTIVATIONS, GML_MEMORY_KIND_GRADIENTS,
    GML_MEMORY_KIND_OPTIMIZER_STATE, GML_MEMORY_KIND_KV_CACHE, GML_MEMORY_KIND_TEMPORARY,
    GML_MEMORY_KIND_OTHER,
    GML_MEMORY_KIND_ROUNDING_WASTE, GML_MEMORY_KIND_PENDING_FREE, GML_MEMORY_KIND_INACTIVE_SPLIT,
    GML_MEMORY_KIND_FREE_CACHED, GML_MEMORY_KIND_NOT_RESERVED,
  };
  const GmlRect *bar = &layout->device_bar;
  guint64 scale = 0;
  double x = bar->x;

  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    scale += layout->kind_bytes[order[i]];
  scale += layout->kind_bytes[GML_MEMORY_KIND_OTHER_PROCESSES];
  if (scale == 0)
    scale = 1;

  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      double w = bar->width * layout->kind_bytes[order[i]] / scale;

      if (w <= 0)
        continue;
      cairo_rectangle (cr, x, bar->y, w, bar->height);
      gml_render_memory_kind_fill (cr, style, order[i]);
      x += w;
    }
  if (layout->kind_bytes[GML_MEMORY_KIND_OTHER_PROCESSES] > 0)
    {
      double w = bar->width * layout->kind_bytes[GML_MEMORY_KIND_OTHER_PROCESSES] / scale;

      cairo_rectangle (cr, bar->x + bar->width - w, bar->y, w, bar->height);
      gml_render_memory_kind_fill (cr, style, GML_MEMORY_KIND_OTHER_PROCESSES);
    }
  cairo_rectangle (cr, bar->x + 0.5, bar->y + 0.5, bar->width - 1, bar->height - 1);
  _gml_set_color (cr, &style->palette.segment_border);
  cairo_set_line_width (cr, style->line_width);
  cairo_stroke (cr);
}

/* A bracket as long as a round number of bytes in a box one row high, and
 * the order the segments are in. */
static void
draw_scale (cairo_t                *cr,
            const GmlMemoryMapData *data,
            const GmlRenderStyle   *style,
            const GmlMapLayout     *layout)
{
  const GmlRect *area = &layout->scale;
  const GmlPalette *pal = &style->palette;
  guint64 bytes = 512;
  double w, tw, th, x = area->x;
  g_autofree char *size = NULL;
  g_autofree char *note = NULL;
  const char *order;

  if (layout->pieces->len == 0)
    return;
  /* The largest power of two no longer than a fifth of a row (and 120 px). */
  while (bytes * 2 / layout->bytes_per_px <= MIN (area->width / 5, 120) &&
         bytes < (G_GUINT64_CONSTANT (1) << 62))
    bytes *= 2;
  w = bytes / layout->bytes_per_px;
  size = gml_format_size_short (bytes);
  _gml_text_size (cr, style, size, 0.85, 0, &tw, &th);
  if (w >= 4 && w + 6 + tw <= area->width)
    {
      double my = round (area->y + area->height / 2) + 0.5;

      cairo_move_to (cr, x + 0.5, my - 4);
      cairo_line_to (cr, x + 0.5, my + 4);
      cairo_move_to (cr, x + 0.5, my);
      cairo_line_to (cr, x + w - 0.5, my);
      cairo_move_to (cr, x + w - 0.5, my - 4);
      cairo_line_to (cr, x + w - 0.5, my + 4);
      _gml_set_color (cr, &pal->foreground);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
      _gml_label_try (cr, style, size, x + w + 6, area->y + (area->height - th) / 2, 0.85, 0,
                      &pal->foreground, 0, area);
      x += w + 6 + tw + 16;
    }
  order = data->by_size ? _("Segments largest first") : _("Segments in address order");
  if (layout->n_unplaced > 0)
    {
      /* Translators: %u segments did not fit the picture. */
      note = g_strdup_printf (ngettext ("%s; %u segment not shown",
                                           "%s; %u segments not shown", layout->n_unplaced),
                              order, layout->n_unplaced);
      order = note;
    }
  _gml_text_size (cr, style, order, 0.85, 0, &tw, &th);
  _gml_label_try (cr, style, order, area->x + area->width, area->y + (area->height - th) / 2, 0.85,
                  0,
                  &pal->dim, 1.0, area);
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
  GmlLegendItem items[GML_N_MEMORY_KINDS + 2];
  guint n_items;

  _gml_background (cr, style, width, height);
  layout_compute (&layout, data, style, cr, width, height);
  draw_device_bar (cr, data, style, &layout);
  header (cr, data, style, &layout.header, TRUE);

  if (layout.pieces->len == 0)
    {
      double tw, th;

      _gml_text_size (cr, style, _("No memory reserved yet"), 1.1, 0, &tw, &th);
      _gml_label_try (cr, style, _("No memory reserved yet"), layout.map.x + layout.map.width / 2,
                      layout.map.y + (layout.map.height - th) / 2, 1.1, 0, &style->palette.dim, 0.5,
                      &layout.map);
    }
  else
    {
      /* Segment boxes: the ground every block is drawn on. Rectangles here
       * are filled without antialiasing: they are pixel-aligned vertically,
       * and sub-pixel runs are already aggregated. */
      Raster raster = { NULL };
      gboolean dense_boxes = layout.pieces->len > DENSE_BOXES;
      guint n_pix_runs = 0;

      cairo_save (cr);
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
      cairo_set_line_width (cr, style->line_width);
      if (dense_boxes)
        {
          GmlRect ground = { 0, 0, 0, 0 };

          /* Boxes that touch on one row are filled as one. */
          raster_init (&raster, &layout.map);
          for (guint i = 0; i < layout.pieces->len; i++)
            {
              const GmlRect *r = &g_array_index (layout.pieces, GmlMapPiece, i).rect;

              if (r->y == ground.y && r->height == ground.height &&
                  fabs (r->x - (ground.x + ground.width)) < 0.5)
                ground.width = r->x + r->width - ground.x;
              else
                {
                  if (ground.width > 0)
                    raster_fill (&raster, &ground, &style->palette.free_fill, 1.0);
                  ground = *r;
                }
            }
          if (ground.width > 0)
            raster_fill (&raster, &ground, &style->palette.free_fill, 1.0);
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
      for (int k = 0; k < GML_N_MEMORY_KINDS; k++)
        {
          d.wide[k] = g_array_new (FALSE, FALSE, sizeof (GmlRect));
          d.pix_runs[k] = g_array_new (FALSE, FALSE, sizeof (GmlRect));
        }
      d.overlays = g_array_new (FALSE, FALSE, sizeof (Overlay));
      draw_blocks (&d);
      flush_pixel (&d);
      flush_run (&d);
      for (int k = 0; k < GML_N_MEMORY_KINDS; k++)
        n_pix_runs += d.pix_runs[k]->len;

      /* The aggregated runs lie on whole pixels inside the segment boxes and
       * under nothing else, so they go first, into the buffer when there are
       * many (the same pixels cairo would fill) or as one path per kind. A
       * run of sub-pixel free pieces is too thin for a pattern: it is drawn
       * in its kind's ink, lighter. */
      if (n_pix_runs > DENSE_BOXES && raster.surface == NULL)
        raster_init (&raster, &layout.map);
      for (int k = 0; k < GML_N_MEMORY_KINDS; k++)
        {
          double alpha = k < GML_N_CATEGORIES ? 1.0 : 0.55;

          for (guint i = 0; i < d.pix_runs[k]->len; i++)
            {
              const GmlRect *r = &g_array_index (d.pix_runs[k], GmlRect, i);

              if (raster.surface != NULL)
                raster_fill (&raster, r, _gml_kind_color (style, k), alpha);
              else
                cairo_rectangle (cr, r->x, r->y, r->width, r->height);
            }
          if (raster.surface == NULL && d.pix_runs[k]->len > 0)
            {
              _gml_set_color_alpha (cr, _gml_kind_color (style, k), alpha);
              cairo_fill (cr);
            }
          g_array_unref (d.pix_runs[k]);
        }
      if (raster.surface != NULL)
        raster_paint (cr, &raster);

      /* Blocks wide enough to be drawn one by one: one fill per kind, in the
       * colour or pattern the legend shows. They never overlap the runs. */
      for (int k = 0; k < GML_N_MEMORY_KINDS; k++)
        {
          for (guint i = 0; i < d.wide[k]->len; i++)
            {
              const GmlRect *r = &g_array_index (d.wide[k], GmlRect, i);

              cairo_rectangle (cr, r->x, r->y, r->width, r->height);
            }
          if (d.wide[k]->len > 0)
            gml_render_memory_kind_fill (cr, style, k);
          g_array_unref (d.wide[k]);
        }
      for (guint i = 0; i < d.overlays->len; i++)
        {
          const Overlay *o = &g_array_index (d.overlays, Overlay, i);

          if (o->waste.width > 0)
            {
              cairo_rectangle (cr, o->waste.x, o->waste.y, o->waste.width, o->waste.height);
              gml_render_memory_kind_fill (cr, style, GML_MEMORY_KIND_ROUNDING_WASTE);
            }
        }
      cairo_restore (cr);

      _gml_set_color (cr, &style->palette.segment_border);
      cairo_set_line_width (cr, style->line_width);
      for (guint i = 0; i < layout.pieces->len; i++)
        {
          const GmlMapPiece *p = &g_array_index (layout.pieces, GmlMapPiece, i);

          /* Boxes a few pixels wide are told apart by their gaps already. */
          if (p->rect.width >= 8)
            cairo_rectangle (cr, p->rect.x + 0.5, p->rect.y + 0.5, p->rect.width - 1,
                             p->rect.height - 1);
        }
      cairo_stroke (cr);

      for (guint i = 0; i < d.overlays->len; i++)
        {
          const Overlay *o = &g_array_index (d.overlays, Overlay, i);

          if (o->highlight)
            _gml_draw_mark (cr, style, &o->rect);
          if (o->label)
            draw_block_label (cr, style, data->state, o);
        }
      g_array_unref (d.overlays);
    }

  draw_scale (cr, data, style, &layout);
  n_items = legend_items (data, &layout, items);
  _gml_legend (cr, style, items, n_items, &layout.legend, TRUE);
  gml_map_layout_clear (&layout);
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
  gboolean found = FALSE;

  gml_map_layout_compute (&layout, data, style, width, height);
  for (guint i = 0; i < layout.pieces->len && !found; i++)
    {
      const GmlMapPiece *p = &g_array_index (layout.pieces, GmlMapPiece, i);
      const SegEntry *e;
      guint64 address;

      if (x < p->rect.x || x >= p->rect.x + p->rect.width || y < p->rect.y ||
          y >= p->rect.y + p->rect.height)
        continue;
      e = &g_array_index (layout.segments, SegEntry, p->segment);
      address = p->address + (guint64) ((x - p->rect.x) / p->rect.width * p->length);
      for (gint32 b = e->first; b >= 0 && !found;)
        {
          const GmlBlock *blk = gml_mem_state_get_block (data->state, b);

          if (address >= blk->address && address < blk->address + blk->size)
            found = gml_mem_state_get_block_info (data->state, b, block);
          b = blk->next;
        }
      break;
    }
  gml_map_layout_clear (&layout);
  return found;
}

char *
gml_describe_memory_map (const GmlMemoryMapData *data)
{
  const GmlStats *stats = gml_mem_state_get_stats (data->state);
  g_autofree char *res = gml_format_size_short (stats->reserved_bytes[GML_STAT_ALL].current);
  g_autofree char *alloc = gml_format_size_short (stats->allocated_bytes[GML_STAT_ALL].current);
  g_autofree char *largest =
      gml_format_size_short (gml_mem_state_get_largest_free_block (data->state));

  if (data->failed_request > 0)
    {
      g_autofree char *req = gml_format_size_short (data->failed_request);
      /* Translators: all %s are sizes. */
      return g_strdup_printf (_("Reserved %s, allocated %s, largest free block %s; a request "
                                "for %s failed."), res, alloc, largest, req);
    }
  /* Translators: all %s are sizes. */
  return g_strdup_printf (_("Reserved %s, allocated %s, largest free block %s."), res, alloc,
                          largest);
}

/* gml-snapshot-summary.c — a snapshot's peak attributed, and two runs compared.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot"

#include "config.h"

#include <string.h>

#include "gml-snapshot-summary.h"

void
gml_snapshot_layout_by_category (GmlSnapshotLayout *layout,
                                 guint64            bytes[GML_N_CATEGORIES])
{
  memset (bytes, 0, GML_N_CATEGORIES * sizeof (guint64));
  for (guint s = 0; s < gml_snapshot_layout_get_n_segments (layout); s++)
    {
      const GmlSnapshotLayoutSegment *seg = gml_snapshot_layout_get_segment (layout, s);

      for (guint i = 0; i < seg->blocks->len; i++)
        {
          const GmlSnapshotLayoutBlock *b = &g_array_index (seg->blocks, GmlSnapshotLayoutBlock, i);

          if (b->state == GML_SNAP_BLOCK_ALLOCATED)
            bytes[MIN (gml_snapshot_kind_category (b->kind), GML_N_CATEGORIES - 1)] += b->size;
        }
    }
}

static void
clear_where_bytes (gpointer data)
{
  g_free (((GmlSnapshotWhereBytes *) data)->where);
}

static void
clear_where_diff (gpointer data)
{
  g_free (((GmlSnapshotWhereDiff *) data)->where);
}

static int
by_bytes_desc (gconstpointer a,
               gconstpointer b)
{
  const GmlSnapshotWhereBytes *x = a, *y = b;

  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return g_strcmp0 (x->where, y->where);
}

GArray *
gml_snapshot_layout_by_where (GmlSnapshot       *snapshot,
                              GmlSnapshotLayout *layout)
{
  /* Label → bytes, and where frame → the same sum: a line's label is made
   * once however many blocks share it. */
  g_autoptr(GHashTable) bytes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) labels = g_hash_table_new (NULL, NULL);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (GmlSnapshotWhereBytes));
  GHashTableIter iter;
  gpointer key, value;

  g_array_set_clear_func (out, clear_where_bytes);
  for (guint s = 0; s < gml_snapshot_layout_get_n_segments (layout); s++)
    {
      const GmlSnapshotLayoutSegment *seg = gml_snapshot_layout_get_segment (layout, s);

      for (guint i = 0; i < seg->blocks->len; i++)
        {
          const GmlSnapshotLayoutBlock *b = &g_array_index (seg->blocks, GmlSnapshotLayoutBlock, i);
          guint32 frame;
          guint64 *sum;

          if (b->state != GML_SNAP_BLOCK_ALLOCATED)
            continue;
          frame = gml_snapshot_get_where_frame (snapshot, b->frames);
          sum = g_hash_table_lookup (labels, GUINT_TO_POINTER (frame));
          if (sum == NULL)
            {
              g_autofree char *text = frame != 0 ? gml_snapshot_format_frame (snapshot, frame)
                                                 : NULL;
              /* "" stands for no stack in the table. */
              const char *label = text != NULL ? text : "";

              sum = g_hash_table_lookup (bytes, label);
              if (sum == NULL)
                {
                  sum = g_new0 (guint64, 1);
                  g_hash_table_insert (bytes, g_strdup (label), sum);
                }
              g_hash_table_insert (labels, GUINT_TO_POINTER (frame), sum);
            }
          *sum += b->size;
        }
    }
  g_hash_table_iter_init (&iter, bytes);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GmlSnapshotWhereBytes w = { NULL, *(guint64 *) value };
      const char *where = key;

      w.where = where[0] != '\0' ? g_strdup (where) : NULL;
      g_array_append_val (out, w);
    }
  g_array_sort (out, by_bytes_desc);
  return out;
}

void
gml_snapshot_peak_init (GmlSnapshotPeak     *peak,
                        GmlSnapshotTimeline *timeline)
{
  g_autoptr(GmlSnapshotLayout) layout = gml_snapshot_layout_new ();

  memset (peak, 0, sizeof *peak);
  peak->allocated_bytes = gml_snapshot_timeline_get_peak_allocated (timeline, &peak->index,
                                                                    &peak->reserved_bytes);
  peak->peak_reserved_bytes = gml_snapshot_timeline_get_peak_reserved (timeline);
  gml_snapshot_timeline_layout_at (timeline, peak->index, layout);
  gml_snapshot_layout_by_category (layout, peak->by_category);
  peak->by_where = gml_snapshot_layout_by_where (gml_snapshot_timeline_get_snapshot (timeline),
                                                 layout);
}

void
gml_snapshot_peak_clear (GmlSnapshotPeak *peak)
{
  g_clear_pointer (&peak->by_where, g_array_unref);
}

static guint64
difference (const GmlSnapshotWhereDiff *d)
{
  return d->a_bytes > d->b_bytes ? d->a_bytes - d->b_bytes : d->b_bytes - d->a_bytes;
}

static int
by_difference_desc (gconstpointer a,
                    gconstpointer b)
{
  const GmlSnapshotWhereDiff *x = a, *y = b;
  guint64 dx = difference (x), dy = difference (y);

  if (dx != dy)
    return dx > dy ? -1 : 1;
  return g_strcmp0 (x->where, y->where);
}

GArray *
gml_snapshot_peaks_compare (const GmlSnapshotPeak *a,
                            const GmlSnapshotPeak *b)
{
  /* Where → index into all; NULL (no stack) is its own line. */
  g_autoptr(GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GArray) all = g_array_new (FALSE, TRUE, sizeof (GmlSnapshotWhereDiff));
  GArray *diffs = g_array_new (FALSE, TRUE, sizeof (GmlSnapshotWhereDiff));

  g_array_set_clear_func (diffs, clear_where_diff);
  /* The strings of @all are the hash table's keys until the end. */
  for (int side = 0; side < 2; side++)
    {
      GArray *lines = side == 0 ? a->by_where : b->by_where;

      for (guint i = 0; lines != NULL && i < lines->len; i++)
        {
          const GmlSnapshotWhereBytes *w = &g_array_index (lines, GmlSnapshotWhereBytes, i);
          const char *key = w->where != NULL ? w->where : "";
          gpointer found;
          GmlSnapshotWhereDiff *d;

          if (g_hash_table_lookup_extended (index, key, NULL, &found))
            d = &g_array_index (all, GmlSnapshotWhereDiff, GPOINTER_TO_UINT (found));
          else
            {
              GmlSnapshotWhereDiff fresh = { g_strdup (w->where), 0, 0 };

              g_array_append_val (all, fresh);
              g_hash_table_insert (index, (gpointer) key, GUINT_TO_POINTER (all->len - 1));
              d = &g_array_index (all, GmlSnapshotWhereDiff, all->len - 1);
            }
          if (side == 0)
            d->a_bytes += w->bytes;
          else
            d->b_bytes += w->bytes;
        }
    }
  /* Only the lines that differ, the largest difference first. */
  g_hash_table_remove_all (index);
  for (guint i = 0; i < all->len; i++)
    {
      GmlSnapshotWhereDiff *d = &g_array_index (all, GmlSnapshotWhereDiff, i);

      if (d->a_bytes != d->b_bytes)
        g_array_append_val (diffs, *d);
      else
        g_free (d->where);
    }
  g_array_sort (diffs, by_difference_desc);
  return diffs;
}

void
gml_snapshot_comparison_init (GmlSnapshotComparison *comparison,
                              GmlSnapshotTimeline   *a,
                              GmlSnapshotTimeline   *b)
{
  memset (comparison, 0, sizeof *comparison);
  gml_snapshot_peak_init (&comparison->a, a);
  gml_snapshot_peak_init (&comparison->b, b);
  comparison->by_where = gml_snapshot_peaks_compare (&comparison->a, &comparison->b);
}

void
gml_snapshot_comparison_clear (GmlSnapshotComparison *comparison)
{
  gml_snapshot_peak_clear (&comparison->a);
  gml_snapshot_peak_clear (&comparison->b);
  g_clear_pointer (&comparison->by_where, g_array_unref);
}

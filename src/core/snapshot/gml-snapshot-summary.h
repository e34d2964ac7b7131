/* gml-snapshot-summary.h — a snapshot's peak attributed, and two runs compared.
 *
 * At the peak of allocated memory: the bytes by category and by the user's
 * line (gml_snapshot_describe_frames()) that holds them. Two snapshots are
 * compared at their peaks, line by line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-snapshot-category.h"
#include "gml-snapshot-state.h"

G_BEGIN_DECLS

typedef struct
{
  char    *where;                 /* "model.py:54 forward"; NULL = no stack recorded */
  guint64  bytes;
} GmlSnapshotWhereBytes;

typedef struct
{
  char    *where;
  guint64  a_bytes;
  guint64  b_bytes;
} GmlSnapshotWhereDiff;

typedef struct
{
  gsize    index;                 /* the first N with the most allocated bytes */
  guint64  allocated_bytes;
  guint64  reserved_bytes;        /* reserved at that N */
  guint64  peak_reserved_bytes;   /* the most reserved at any N */
  guint64  by_category[GML_N_CATEGORIES];   /* by GmlCategory, at that N */
  GArray  *by_where;              /* GmlSnapshotWhereBytes, most bytes first */
} GmlSnapshotPeak;

typedef struct
{
  GmlSnapshotPeak a;
  GmlSnapshotPeak b;
  GArray         *by_where;       /* GmlSnapshotWhereDiff, largest difference first;
                                   * only lines whose bytes differ */
} GmlSnapshotComparison;

/* Allocated bytes in @layout by GmlCategory; they sum to its allocated bytes. */
void     gml_snapshot_layout_by_category (GmlSnapshotLayout     *layout,
                                          guint64                bytes[GML_N_CATEGORIES]);
/* Allocated bytes in @layout by the user's line, most first. */
GArray  *gml_snapshot_layout_by_where    (GmlSnapshot           *snapshot,
                                          GmlSnapshotLayout     *layout);

void     gml_snapshot_peak_init          (GmlSnapshotPeak       *peak,
                                          GmlSnapshotTimeline   *timeline);
void     gml_snapshot_peak_clear         (GmlSnapshotPeak       *peak);

/* The lines whose bytes differ between two peaks (GmlSnapshotWhereDiff),
 * the largest difference first. */
GArray  *gml_snapshot_peaks_compare      (const GmlSnapshotPeak *a,
                                          const GmlSnapshotPeak *b);

void     gml_snapshot_comparison_init    (GmlSnapshotComparison *comparison,
                                          GmlSnapshotTimeline   *a,
                                          GmlSnapshotTimeline   *b);
void     gml_snapshot_comparison_clear   (GmlSnapshotComparison *comparison);

G_END_DECLS

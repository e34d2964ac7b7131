/* gml-snapshot-check.h — the lab's allocator judged by a real PyTorch run.
 *
 * A snapshot records PyTorch deciding: each alloc entry holds the address of
 * the block it chose, each segment_alloc the segment it had to ask for, each
 * segment_free run what it gave back, each oom where it gave up. The check
 * loads the state before the trace into the lab's allocator, replays the same
 * requests in the same order, and compares every decision.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-snapshot-state.h"

G_BEGIN_DECLS

typedef struct
{
  guint64 address;
  guint64 size;
} GmlSnapshotCandidate;

typedef struct
{
  gboolean found;
  gsize    index;              /* the trace entry */
  char    *action;             /* its action: alloc, segment_alloc, segment_free, oom */
  guint64  size;               /* its size (requested, or the segment's) */
  guint32  stream;
  char    *pytorch;            /* what PyTorch did, a sentence (English, for JSON and logs) */
  char    *engine;             /* what the engine did */
  gboolean pytorch_has_address;
  guint64  pytorch_address;
  gboolean engine_has_address;
  guint64  engine_address;
  GArray  *candidates;         /* GmlSnapshotCandidate: the cached free blocks of that
                                * stream and pool the engine chose between */
} GmlSnapshotDivergence;

typedef struct
{
  gsize    allocs;
  gsize    allocs_matched;
  gsize    segment_allocs;
  gsize    segment_allocs_matched;
  gsize    segment_frees;
  gsize    segment_frees_matched;
  gsize    ooms;
  gsize    ooms_matched;
  gsize    empty_caches;       /* segment_free runs read as empty_cache() calls */
  gsize    resyncs;            /* times the engine was set back to PyTorch's state */
  char    *rules;              /* which PyTorch version's rules, and why (English) */
  GmlSnapshotDivergence first_divergence;
} GmlSnapshotCheck;

/* Replays @timeline's trace through the lab's allocator. After a divergence
 * the engine is set back to the snapshot's own state there and goes on, so
 * the counts cover the whole trace. */
/* @gpu_memory: the GPU's total memory, 0 when not known (a snapshot does not
 * record it; expandable segments reserve address space in proportion to it,
 * and the replay then bounds each space by what the file shows around it).
 * FALSE, with @check cleared, when cancelled or when the engine stopped
 * holding together on a damaged file (GML_ALLOCATOR_ERROR_INTERNAL, the
 * message naming the trace entry). */
gboolean gml_snapshot_check          (GmlSnapshotTimeline *timeline,
                                      guint64              gpu_memory,
                                      GmlSnapshotCheck    *check,
                                      GCancellable        *cancellable,
                                      GError             **error);
void     gml_snapshot_check_clear    (GmlSnapshotCheck    *check);

G_END_DECLS

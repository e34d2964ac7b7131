/* gml-snapshot-picture.h — a PyTorch memory snapshot at trace entry N, ready
 * for any view: the memory map, the timeline of allocated and reserved
 * memory, the active-memory timeline and the fragmentation gauge.
 *
 * The same object serves the render verb and the app's Snapshot view; moving
 * N (scrubbing) rebuilds the layout from the nearest checkpoint, which costs a
 * copy and at most a few thousand steps.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <gio/gio.h>

#include "gml-render.h"
#include "gml-snapshot-state.h"

G_BEGIN_DECLS

typedef enum
{
  GML_SNAPSHOT_VIEW_MEMORY_MAP,
  GML_SNAPSHOT_VIEW_TIMELINE,
  GML_SNAPSHOT_VIEW_ACTIVE,
  GML_SNAPSHOT_VIEW_FRAGMENTATION,
  GML_N_SNAPSHOT_VIEWS
} GmlSnapshotView;

typedef struct _GmlSnapshotPicture GmlSnapshotPicture;

/* "memory-map", "timeline", "active-timeline", "fragmentation". */
const char         *gml_snapshot_view_to_string       (GmlSnapshotView       view);
gboolean            gml_snapshot_view_from_string     (const char           *str,
                                                       GmlSnapshotView      *view);
/* Translated tab title. */
const char         *gml_snapshot_view_title           (GmlSnapshotView       view);

/* @timeline is borrowed and must outlive the picture. */
GmlSnapshotPicture *gml_snapshot_picture_new          (GmlSnapshotTimeline  *timeline);
void                gml_snapshot_picture_free         (GmlSnapshotPicture   *self);
GmlSnapshotTimeline *gml_snapshot_picture_get_timeline (GmlSnapshotPicture  *self);
/* The state after the first @at entries (clamped to the trace). */
void                gml_snapshot_picture_set_at       (GmlSnapshotPicture   *self,
                                                       gsize                 at);
gsize               gml_snapshot_picture_get_at       (GmlSnapshotPicture   *self);
/* Builds now what the active-memory view builds at its first use (every
 * allocation's lifetime), e.g. in the thread that made the picture. */
void                gml_snapshot_picture_prepare      (GmlSnapshotPicture   *self);
const GmlSnapshotStats *gml_snapshot_picture_get_stats (GmlSnapshotPicture  *self);
GmlSnapshotLayout  *gml_snapshot_picture_get_layout   (GmlSnapshotPicture   *self);
const GmlMemState  *gml_snapshot_picture_get_state    (GmlSnapshotPicture   *self);
/* The oom entry at @at, if there is one there (for the map's legend line). */
const GmlSnapshotOom *gml_snapshot_picture_get_oom_at (GmlSnapshotPicture   *self);
/* The first N where the most memory is allocated. */
gsize               gml_snapshot_picture_get_peak     (GmlSnapshotPicture   *self);
/* The largest allocated block at N, or NULL: what the details show first. */
const GmlSnapshotLayoutBlock *gml_snapshot_picture_get_largest_block (GmlSnapshotPicture *self);
/* Another run's timeline (borrowed, must outlive the picture, or NULL) drawn
 * over this one's in the timeline view, with the names of the two. */
void                gml_snapshot_picture_set_compare  (GmlSnapshotPicture   *self,
                                                       GmlSnapshotTimeline  *other,
                                                       const char           *label,
                                                       const char           *other_label);
GmlSnapshotTimeline *gml_snapshot_picture_get_compare (GmlSnapshotPicture   *self);
/* Where the program called empty_cache(), found by replaying it
 * (gml_what_if_get_empty_caches): marked on the timeline; NULL clears. */
void                gml_snapshot_picture_set_empty_caches (GmlSnapshotPicture *self,
                                                           const gsize        *entries,
                                                           guint               n);
/* The run replayed under other settings (what-if): each replay's reserved bytes
 * drawn over the timeline view. The arrays and labels are borrowed and must
 * outlive the picture or the next call; at most GML_TIMELINE_MAX_REPLAYS. */
void                gml_snapshot_picture_set_replays  (GmlSnapshotPicture      *self,
                                                       const GmlTimelineReplay *replays,
                                                       guint                    n_replays);

/* The record_function regions of the device, as ranges of N. */
const GmlTimelineSpan *gml_snapshot_picture_get_spans (GmlSnapshotPicture *self,
                                                       guint              *n_spans);

/* "Activations (inferred): made in the forward pass and freed during backward" */
char               *gml_snapshot_describe_kind        (guint8                kind);

void                gml_render_snapshot               (cairo_t              *cr,
                                                       GmlSnapshotPicture   *self,
                                                       GmlSnapshotView       view,
                                                       const GmlRenderStyle *style,
                                                       int                   width,
                                                       int                   height);
/* What the view shows at N, in words, in the current language: the numbers,
 * how many block sizes are estimated, the oom there. */
char               *gml_snapshot_picture_describe     (GmlSnapshotPicture   *self,
                                                       GmlSnapshotView       view);
GmlExportDrawing   *gml_snapshot_picture_draw_for_export (GmlSnapshotPicture   *self,
                                                          GmlSnapshotView       view,
                                                          const GmlRenderStyle *style,
                                                          int                   width,
                                                          int                   height);

/* The block under (x, y) of the memory map, or NULL. */
const GmlSnapshotLayoutBlock *gml_snapshot_picture_block_at (GmlSnapshotPicture   *self,
                                                             const GmlRenderStyle *style,
                                                             int                   width,
                                                             int                   height,
                                                             double                x,
                                                             double                y);
/* A block in words, for its tooltip: size, requested size, state, stream,
 * whether it is estimated, and its stack with the user's own frames first
 * ("allocated in forward, model.py:54"). */
char               *gml_snapshot_picture_describe_block (GmlSnapshotPicture           *self,
                                                         const GmlSnapshotLayoutBlock *block);
/* The allocation under (x, y) of the active-memory view in words, or NULL. */
char               *gml_snapshot_picture_describe_allocation_at (GmlSnapshotPicture   *self,
                                                                 const GmlRenderStyle *style,
                                                                 int                   width,
                                                                 int                   height,
                                                                 double                x,
                                                                 double                y);
/* The same without the stack: for a pane that lists the whole stack itself. */
char *gml_snapshot_picture_describe_block_summary (GmlSnapshotPicture           *self,
                                                   const GmlSnapshotLayoutBlock *block);
/* The trace entry under x in the timeline or active view (for clicks). */
gsize               gml_snapshot_picture_entry_at_x   (GmlSnapshotPicture   *self,
                                                       GmlSnapshotView       view,
                                                       const GmlRenderStyle *style,
                                                       int                   width,
                                                       int                   height,
                                                       double                x);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlSnapshotPicture, gml_snapshot_picture_free)

G_END_DECLS

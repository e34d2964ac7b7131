/* gml-snapshot-private.h — the snapshot's storage, shared by the reader and
 * the accessors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-snapshot.h"

G_BEGIN_DECLS

typedef struct
{
  GArray *segments;           /* GmlSnapshotSegment, address order */
  GArray *blocks;             /* GmlSnapshotBlock, segment by segment */
  GArray *entries;            /* GmlSnapshotEntry */
} GmlSnapshotDevice;

struct _GmlSnapshot
{
  guint       protocol;
  guint       seen;           /* GmlSnapshotSeen */

  /* Interned strings: offsets into chars, id 0 is NULL. */
  GByteArray *chars;
  GArray     *string_offsets; /* gsize */
  guint32    *string_slots;   /* open addressing: id + 1, 0 = empty */
  guint32    *string_hashes;
  gsize       n_string_slots;

  GArray     *frames;         /* GmlSnapshotFrame, index 0 unused */
  GArray     *frame_lists;    /* guint32 pairs (first, count) into frame_items, id 0 = empty */
  guint32    *frame_items;    /* frame ids; a plain array, as the reader appends one per frame */
  gsize       n_frame_items;
  gsize       frame_items_cap;
  guint32    *list_slots;     /* open addressing over frame lists by content: id, 0 = empty */
  guint32    *list_hashes;
  gsize       n_list_slots;

  GArray     *streams;        /* guint64 raw cudaStream_t values, in order of appearance */
  GHashTable *stream_index;   /* raw (as a pointer to a guint64 in streams) → index + 1 */
  guint64     last_stream_raw; /* the stream looked up last (most entries share it) */
  guint32     last_stream;     /* its index + 1; 0 = none yet */

  /* What each frame and frame list is (gml-snapshot-frames.c), once the
   * file is read. */
  guint16    *frame_flags;    /* GmlSnapshotFrameFlags, by frame id */
  guint32    *list_where;     /* by frame list id: the frame that names the user's line */
  guint8     *list_flags;     /* by frame list id: GmlSnapshotPhase | GML_SNAP_LIST_* */
  guint       n_classified_lists;

  GPtrArray  *devices;        /* GmlSnapshotDevice */
  GArray     *annotations;    /* GmlSnapshotAnnotation */
  GmlSnapshotSettings settings;
};

/* What a frame is (gml-snapshot-frames.c). */
typedef enum
{
  GML_SNAP_FRAME_PYTHON    = 1 << 0,  /* a .py file or a notebook cell, not C++ */
  GML_SNAP_FRAME_TORCH     = 1 << 1,  /* Python, in the torch package */
  GML_SNAP_FRAME_LIBRARY   = 1 << 2,  /* Python, installed (site-packages…) or standard library */
  GML_SNAP_FRAME_OPTIM     = 1 << 3,  /* in torch/optim/ */
  GML_SNAP_FRAME_BACKWARD  = 1 << 4,  /* the autograd engine, or loss.backward() calling it */
  GML_SNAP_FRAME_CAPTURE   = 1 << 5,  /* PyTorch's stack capture and the allocator */
  GML_SNAP_FRAME_PARAMETER = 1 << 6,  /* a function that makes parameters (__init__, .to(), …) */
  GML_SNAP_FRAME_NODE      = 1 << 7,  /* an autograd node's apply() (MeanBackward0) */
  GML_SNAP_FRAME_ZERO_GRAD = 1 << 8,  /* Python, a function called zero_grad */
} GmlSnapshotFrameFlags;

/* Where in a training step a stack runs: the low two bits of a list's flags. */
typedef enum
{
  GML_SNAP_PHASE_NONE,        /* no frames, or C++ frames of no known phase */
  GML_SNAP_PHASE_FORWARD,     /* Python outside backward and the optimizer */
  GML_SNAP_PHASE_BACKWARD,
  GML_SNAP_PHASE_OPTIMIZER,
} GmlSnapshotPhase;

#define GML_SNAP_PHASE_MASK       0x3
#define GML_SNAP_LIST_PARAMETER   0x4
#define GML_SNAP_LIST_HAS_FRAMES  0x8
#define GML_SNAP_LIST_ZERO_GRAD   0x10

/* Looks at every frame and frame list; called by gml_snapshot_finish(). */
void         gml_snapshot_classify_frames  (GmlSnapshot  *self);
guint8       gml_snapshot_get_list_flags   (GmlSnapshot  *self,
                                            guint32       frames);

/* The categories of one device's allocations (gml-snapshot-category.c). */
typedef struct _GmlSnapshotClassifier GmlSnapshotClassifier;

GmlSnapshotClassifier *gml_snapshot_classifier_new (GmlSnapshot            *snapshot,
                                                    const GmlSnapshotEntry *entries,
                                                    gsize                   n);
void         gml_snapshot_classifier_free  (GmlSnapshotClassifier *self);
/* The kind (GML_SNAP_KIND) of the allocation of entry @a, freed at entry @f
 * (n: still live at the end). Call it for every alloc entry, last first, as
 * the walk backwards meets them. */
guint8       gml_snapshot_classifier_alloc (GmlSnapshotClassifier *self,
                                            gsize                  a,
                                            gsize                  f);
/* The kind of a block already live before the trace. */
guint8       gml_snapshot_classifier_start_block (GmlSnapshotClassifier *self,
                                                  guint32                frames,
                                                  gsize                  f);
/* The allocations that waited for the whole walk, in @kinds (by entry). */
void         gml_snapshot_classifier_finish (GmlSnapshotClassifier *self,
                                             guint8                *kinds);

GmlSnapshot *gml_snapshot_new_empty        (void);
guint32      gml_snapshot_intern           (GmlSnapshot  *self,
                                            const char   *str,
                                            gsize         len);
/* The id of @str if it was interned, else 0. */
guint32      gml_snapshot_lookup_string    (GmlSnapshot  *self,
                                            const char   *str);
guint32      gml_snapshot_stream_index     (GmlSnapshot  *self,
                                            guint64       raw);
/* Registers frame_items[first …] (to the end) as a frame list and returns its
 * id; an identical list registered before is shared, and the copy dropped. */
guint32      gml_snapshot_add_frame_list   (GmlSnapshot  *self,
                                            gsize         first,
                                            gsize         count);
/* Room for @n more frame_items. */
void         gml_snapshot_reserve_frame_items (GmlSnapshot *self,
                                               gsize        n);

static inline void
gml_snapshot_append_frame_item (GmlSnapshot *self,
                                guint32      frame)
{
  if (G_UNLIKELY (self->n_frame_items == self->frame_items_cap))
    gml_snapshot_reserve_frame_items (self, 1);
  self->frame_items[self->n_frame_items++] = frame;
}

GmlSnapshotDevice *gml_snapshot_ensure_device (GmlSnapshot *self,
                                               guint        device);
/* Sorts each device's segments by address and lays their blocks out behind
 * them; computes what the accessors need. */
void         gml_snapshot_finish           (GmlSnapshot  *self);

G_END_DECLS

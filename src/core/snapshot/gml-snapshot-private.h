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

  GPtrArray  *devices;        /* GmlSnapshotDevice */
  GArray     *annotations;    /* GmlSnapshotAnnotation */
  GmlSnapshotSettings settings;
};

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

/* Asks for the whole 2 MiB pages of a large array being filled to be huge
 * pages: one page fault per 2 MiB instead of one per 4 KiB, which is much of
 * the time to read a large snapshot. Only advice: without transparent huge
 * pages nothing changes. */
void         gml_snapshot_advise_huge      (gpointer      data,
                                            gsize         size);
GmlSnapshotDevice *gml_snapshot_ensure_device (GmlSnapshot *self,
                                               guint        device);
/* Sorts each device's segments by address and lays their blocks out behind
 * them; computes what the accessors need. */
void         gml_snapshot_finish           (GmlSnapshot  *self);

G_END_DECLS

/* gml-snapshot-builder.h — a snapshot made from something other than a file.
 *
 * The live probe sends the allocator's state and trace as messages; this is how
 * they become the same GmlSnapshot a file gives, without reaching into the
 * snapshot's storage.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-snapshot.h"

G_BEGIN_DECLS

typedef struct _GmlSnapshotBuilder GmlSnapshotBuilder;

/* A snapshot of one device, @device, with room for @n_entries trace entries. */
GmlSnapshotBuilder *gml_snapshot_builder_new           (guint               device,
                                                        gsize               n_entries);
/* One trace entry, after the ones added before; @stream is the raw cudaStream_t. */
void                gml_snapshot_builder_add_entry     (GmlSnapshotBuilder *self,
                                                        GmlSnapshotAction   action,
                                                        guint64             addr,
                                                        guint64             size,
                                                        guint64             stream,
                                                        gint64              time_us);
/* A segment at the end of the trace; its blocks follow with add_block, laid out
 * from @address in the order they are added. */
void                gml_snapshot_builder_add_segment   (GmlSnapshotBuilder *self,
                                                        guint64             address,
                                                        guint64             total_size,
                                                        guint64             stream,
                                                        gboolean            small,
                                                        gboolean            expandable);
void                gml_snapshot_builder_add_block     (GmlSnapshotBuilder *self,
                                                        guint64             size,
                                                        guint64             requested_size,
                                                        GmlSnapshotBlockState state);
/* The snapshot; frees @self. */
GmlSnapshot        *gml_snapshot_builder_finish        (GmlSnapshotBuilder *self);

G_END_DECLS

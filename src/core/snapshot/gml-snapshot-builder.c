/* gml-snapshot-builder.c — a snapshot made from something other than a file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot-builder"

#include "config.h"

#include "gml-snapshot-builder.h"
#include "gml-snapshot-private.h"

struct _GmlSnapshotBuilder
{
  GmlSnapshot       *snapshot;
  GmlSnapshotDevice *device;
  guint              device_index;
  gboolean           has_time;
  guint64            next_address;  /* where the current segment's next block starts */
};

GmlSnapshotBuilder *
gml_snapshot_builder_new (guint device,
                          gsize n_entries)
{
  GmlSnapshotBuilder *self = g_new0 (GmlSnapshotBuilder, 1);

  self->snapshot = gml_snapshot_new_empty ();
  self->device = gml_snapshot_ensure_device (self->snapshot, device);
  self->device_index = device;
  g_array_set_size (self->device->entries, 0);
  if (n_entries > 0)
    {
      g_array_set_size (self->device->entries, n_entries);
      g_array_set_size (self->device->entries, 0);
    }
  return self;
}

void
gml_snapshot_builder_add_entry (GmlSnapshotBuilder *self,
                                GmlSnapshotAction   action,
                                guint64             addr,
                                guint64             size,
                                guint64             stream,
                                gint64              time_us)
{
  GmlSnapshotEntry e = { 0 };

  e.addr = addr;
  e.size = size;
  e.time_us = time_us;
  /* A probe names a handful of streams; past the table's limit they share the last. */
  e.stream = (guint16) MIN (gml_snapshot_stream_index (self->snapshot, stream),
                            GML_SNAPSHOT_MAX_STREAMS - 1);
  e.action = action < GML_N_SNAP_ACTIONS ? action : GML_SNAP_OTHER;
  self->has_time = self->has_time || time_us != 0;
  g_array_append_val (self->device->entries, e);
}

void
gml_snapshot_builder_add_segment (GmlSnapshotBuilder *self,
                                  guint64             address,
                                  guint64             total_size,
                                  guint64             stream,
                                  gboolean            small,
                                  gboolean            expandable)
{
  GmlSnapshotSegment seg = { 0 };

  seg.address = address;
  seg.total_size = total_size;
  seg.stream = gml_snapshot_stream_index (self->snapshot, stream);
  seg.first_block = self->device->blocks->len;
  seg.device = (gint32) self->device_index;
  seg.small = small != FALSE;
  seg.expandable = expandable != FALSE;
  g_array_append_val (self->device->segments, seg);
  self->next_address = address;
}

void
gml_snapshot_builder_add_block (GmlSnapshotBuilder    *self,
                                guint64                size,
                                guint64                requested_size,
                                GmlSnapshotBlockState  state)
{
  GmlSnapshotSegment *seg;
  GmlSnapshotBlock b = { self->next_address, size, requested_size, 0, state };

  g_return_if_fail (self->device->segments->len > 0);

  seg = &g_array_index (self->device->segments, GmlSnapshotSegment,
                        self->device->segments->len - 1);
  if (state == GML_SNAP_BLOCK_ALLOCATED)
    {
      seg->allocated_size += size;
      seg->requested_size += requested_size;
    }
  if (state != GML_SNAP_BLOCK_INACTIVE)
    seg->active_size += size;
  seg->n_blocks++;
  self->next_address += size;
  g_array_append_val (self->device->blocks, b);
}

GmlSnapshot *
gml_snapshot_builder_finish (GmlSnapshotBuilder *self)
{
  GmlSnapshot *snapshot = self->snapshot;

  snapshot->seen = GML_SNAP_SEEN_BLOCK_ADDRESS | GML_SNAP_SEEN_SEGMENT_FRAMES
                   | (self->has_time ? GML_SNAP_SEEN_TIME_US : 0);
  gml_snapshot_finish (snapshot);
  g_free (self);
  return snapshot;
}

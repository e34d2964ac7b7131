/* gml-live-record.c — the probe's messages gathered into a snapshot.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-live-record"

#include "config.h"

#include <string.h>

#include "gml-live-record.h"
#include "gml-snapshot-builder.h"

struct _GmlLiveRecord
{
  gsize     max_entries;
  guint     device;
  GArray   *entries;          /* GmlProbeEntry, oldest first */
  GArray   *pending;          /* entries messages before their update */
  guint64   update_total;     /* trace_entries of the latest update */
  guint64   dropped;

  gboolean  has_state;
  gboolean  omitted;
  gsize     state_at;         /* entries the state is the end of */
  GArray   *segments;         /* GmlProbeSegment */
  GArray   *blocks;           /* GmlProbeBlock */
};

GmlLiveRecord *
gml_live_record_new (gsize max_entries)
{
  GmlLiveRecord *self = g_new0 (GmlLiveRecord, 1);

  self->max_entries = MAX (max_entries, 1);
  self->entries = g_array_new (FALSE, FALSE, sizeof (GmlProbeEntry));
  self->pending = g_array_new (FALSE, FALSE, sizeof (GmlProbeEntry));
  self->segments = g_array_new (FALSE, FALSE, sizeof (GmlProbeSegment));
  self->blocks = g_array_new (FALSE, FALSE, sizeof (GmlProbeBlock));
  return self;
}

void
gml_live_record_free (GmlLiveRecord *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->entries);
  g_array_unref (self->pending);
  g_array_unref (self->segments);
  g_array_unref (self->blocks);
  g_free (self);
}

static void
drop_oldest (GmlLiveRecord *self,
             gsize          n)
{
  n = MIN (n, self->entries->len);
  if (n == 0)
    return;
  g_array_remove_range (self->entries, 0, n);
  self->dropped += n;
  self->state_at = self->state_at > n ? self->state_at - n : 0;
}

static void
append_entries (GmlLiveRecord *self,
                GArray        *entries)
{
  if (entries == NULL || entries->len == 0)
    return;
  g_array_append_vals (self->entries, entries->data, entries->len);
  /* Like PyTorch's ring buffer, the newest are kept. A quarter is let go at
   * once, so the copy happens once per many updates, not at each. */
  if (self->entries->len > self->max_entries)
    drop_oldest (self, self->entries->len - self->max_entries * 3 / 4);
}

gboolean
gml_live_record_add (GmlLiveRecord         *self,
                     const GmlProbeMessage *m)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (m != NULL, FALSE);

  switch (m->type)
    {
    case GML_PROBE_ENTRIES:
      /* Bounded: an entries message without its update is not waited for forever. */
      if (self->pending->len + m->entries->len > self->max_entries)
        {
          self->dropped += self->pending->len;
          g_array_set_size (self->pending, 0);
        }
      g_array_append_vals (self->pending, m->entries->data, m->entries->len);
      return FALSE;

    case GML_PROBE_UPDATE:
      if (m->gap || m->device != self->device)
        {
          /* Entries were lost between the last update and these: what came
           * before cannot be walked back to from a later state. */
          drop_oldest (self, self->entries->len);
          self->state_at = 0;
          self->has_state = self->has_state && m->device == self->device;
          self->device = m->device;
        }
      append_entries (self, self->pending);
      g_array_set_size (self->pending, 0);
      append_entries (self, m->entries);
      self->update_total = m->trace_entries;
      return FALSE;

    case GML_PROBE_STATE:
      if (m->device != self->device)
        return FALSE;
      if (m->omitted)
        {
          self->omitted = TRUE;
          return FALSE;
        }
      /* The state belongs to the latest update. If it does not (a message
       * between them was refused), the entries cannot lead up to it: the
       * trace starts again from here. */
      if (m->trace_entries != self->update_total)
        drop_oldest (self, self->entries->len);
      g_array_set_size (self->segments, 0);
      g_array_set_size (self->blocks, 0);
      g_array_append_vals (self->segments, m->state_segments->data, m->state_segments->len);
      g_array_append_vals (self->blocks, m->state_blocks->data, m->state_blocks->len);
      self->state_at = self->entries->len;
      self->has_state = TRUE;
      self->omitted = FALSE;
      return TRUE;

    case GML_PROBE_HELLO:
    case GML_PROBE_OOM:
    case GML_PROBE_ERROR_MESSAGE:
    case GML_PROBE_BYE:
    case GML_PROBE_DUMP_BEGIN:
    case GML_PROBE_DUMP_DATA:
    case GML_PROBE_DUMP_END:
    case GML_PROBE_DUMP_FAILED:
    default:
      return FALSE;
    }
}

gboolean
gml_live_record_has_state (GmlLiveRecord *self)
{
  return self->has_state;
}

gboolean
gml_live_record_state_omitted (GmlLiveRecord *self)
{
  return self->omitted;
}

guint
gml_live_record_get_device (GmlLiveRecord *self)
{
  return self->device;
}

gsize
gml_live_record_get_n_entries (GmlLiveRecord *self)
{
  return self->entries->len;
}

gsize
gml_live_record_get_state_at (GmlLiveRecord *self)
{
  return self->state_at;
}

guint64
gml_live_record_get_dropped (GmlLiveRecord *self)
{
  return self->dropped;
}

GmlSnapshot *
gml_live_record_build_snapshot (GmlLiveRecord *self)
{
  GmlSnapshotBuilder *builder;

  g_return_val_if_fail (self != NULL, NULL);

  if (!self->has_state)
    return NULL;

  builder = gml_snapshot_builder_new (self->device, self->state_at);
  for (gsize i = 0; i < self->state_at; i++)
    {
      const GmlProbeEntry *pe = &g_array_index (self->entries, GmlProbeEntry, i);

      gml_snapshot_builder_add_entry (builder, pe->action, pe->addr, pe->size, pe->stream,
                                      pe->time_us);
    }

  for (guint s = 0; s < self->segments->len; s++)
    {
      const GmlProbeSegment *ps = &g_array_index (self->segments, GmlProbeSegment, s);

      gml_snapshot_builder_add_segment (builder, ps->address, ps->total_size, ps->stream,
                                        ps->small, ps->expandable);
      for (guint32 i = 0; i < ps->n_blocks && ps->first_block + i < self->blocks->len; i++)
        {
          const GmlProbeBlock *pb = &g_array_index (self->blocks, GmlProbeBlock,
                                                    ps->first_block + i);

          gml_snapshot_builder_add_block (builder, pb->size, pb->requested_size, pb->state);
        }
    }

  return gml_snapshot_builder_finish (builder);
}

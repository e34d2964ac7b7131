/* gml-live-record.h — what the probe of a running program has sent so far,
 * as a PyTorch snapshot the lab's views can show.
 *
 * The probe sends the allocator's new trace entries with every update and,
 * after it, the allocator's segments and blocks taken in the same call of
 * torch.cuda.memory._snapshot(): the exact state at the end of those entries.
 * The record keeps the entries (the newest @max_entries, as PyTorch's own
 * ring buffer keeps the newest) and the latest state, and builds from them a
 * GmlSnapshot whose segments are that state and whose trace is the entries up
 * to it — the same shape as a file from torch.cuda.memory._dump_snapshot(), so
 * the timeline walks it backwards from the exact end as it walks a file.
 *
 * No stacks are sent live (they would cost the program time), so the entries
 * carry no frames.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-probe-message.h"
#include "gml-snapshot.h"

G_BEGIN_DECLS

typedef struct _GmlLiveRecord GmlLiveRecord;

GmlLiveRecord *gml_live_record_new            (gsize                  max_entries);
void           gml_live_record_free           (GmlLiveRecord         *self);
/* Takes in an update, entries or state message; other messages are ignored.
 * Returns TRUE when a new state came, i.e. a new picture can be built. */
gboolean       gml_live_record_add            (GmlLiveRecord         *self,
                                               const GmlProbeMessage *message);
gboolean       gml_live_record_has_state      (GmlLiveRecord         *self);
/* The probe had more blocks than it sends: the latest state is not known. */
gboolean       gml_live_record_state_omitted  (GmlLiveRecord         *self);
guint          gml_live_record_get_device     (GmlLiveRecord         *self);
/* Entries held, and those the state covers (the entries up to the state). */
gsize          gml_live_record_get_n_entries  (GmlLiveRecord         *self);
gsize          gml_live_record_get_state_at   (GmlLiveRecord         *self);
/* Entries let go: the oldest beyond @max_entries, and those before a gap. */
guint64        gml_live_record_get_dropped    (GmlLiveRecord         *self);
/* The state and the entries up to it, as a snapshot of one device (the
 * probe's); NULL before the first state. */
GmlSnapshot   *gml_live_record_build_snapshot (GmlLiveRecord         *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlLiveRecord, gml_live_record_free)

G_END_DECLS

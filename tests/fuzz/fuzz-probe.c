/* fuzz-probe.c — the live probe's messages (gml_probe_message_parse) and the
 * live record that turns them into a snapshot, on any bytes.
 *
 * The input is a stream of lines, as it arrives on the socket. Each line is
 * parsed; what parses goes into a live record, and whenever a state comes the
 * record is built into a snapshot, its timeline walked and the state at both
 * ends taken, as the Live view does in its reader thread. A refused line must
 * carry a message; a built snapshot must end where the state said.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "gml-live-record.h"
#include "gml-probe-message.h"
#include "gml-snapshot-state.h"

FUZZ_DEFINE_QUIET_INITIALIZE ()

static void
check_state (GmlLiveRecord         *record,
             const GmlProbeMessage *state)
{
  g_autoptr(GmlSnapshot) snapshot = gml_live_record_build_snapshot (record);
  g_autoptr(GmlSnapshotTimeline) timeline = NULL;
  g_autoptr(GError) error = NULL;
  GmlSnapshotStats end, start;
  guint64 reserved = 0;
  gsize n;

  if (snapshot == NULL)
    abort ();
  timeline = gml_snapshot_timeline_new (snapshot, gml_live_record_get_device (record), NULL,
                                        &error);
  if (timeline == NULL)
    abort ();
  n = gml_snapshot_timeline_get_n_entries (timeline);
  if (n != gml_live_record_get_state_at (record))
    abort ();
  gml_snapshot_timeline_stats_at (timeline, n, &end);
  gml_snapshot_timeline_stats_at (timeline, 0, &start);
  for (guint s = 0; s < state->state_segments->len; s++)
    reserved += g_array_index (state->state_segments, GmlProbeSegment, s).total_size;
  /* The end is the state, exactly. */
  if (end.reserved_bytes != reserved || end.segments != state->state_segments->len)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GmlLiveRecord) record = gml_live_record_new (4096);
  gsize start = 0;

  for (gsize i = 0; i <= size; i++)
    {
      g_autoptr(GmlProbeMessage) m = NULL;
      g_autoptr(GError) error = NULL;

      if (i < size && data[i] != '\n')
        continue;
      m = gml_probe_message_parse ((const char *) data + start, i - start, &error);
      start = i + 1;
      if (m == NULL)
        {
          if (error == NULL || *error->message == '\0')
            abort ();
          continue;
        }
      if (error != NULL)
        abort ();
      if (gml_live_record_add (record, m))
        check_state (record, m);
    }
  return 0;
}

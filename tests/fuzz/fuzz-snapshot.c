/* fuzz-snapshot.c — the PyTorch memory snapshot reader and the rebuilt states.
 *
 * Any input must end in a snapshot or an error, never a crash, a leak or a
 * warning. A snapshot that reads is walked too: its timeline, the state at its
 * start, middle and end, and its picture as the engine's memory state; the
 * user's line and the stack of its first entries (what a file's frames are is
 * only strings, of any shape), the categories, and the file compared with
 * itself at its peak.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "fuzz-common.h"
#include "gml-snapshot-state.h"
#include "gml-snapshot-summary.h"
#include "gml-snapshot.h"

FUZZ_DEFINE_QUIET_INITIALIZE ()

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshot) snap = gml_snapshot_load_data (data, size, &error);

  if (snap == NULL)
    {
      if (error == NULL || error->message[0] == '\0')
        abort ();
      return 0;
    }
  for (guint d = 0; d < gml_snapshot_get_n_devices (snap) && d < 4; d++)
    {
      g_autoptr(GmlSnapshotTimeline) tl = gml_snapshot_timeline_new (snap, d, NULL, NULL);
      g_autoptr(GmlSnapshotLayout) layout = gml_snapshot_layout_new ();
      gsize n = gml_snapshot_timeline_get_n_entries (tl);
      GmlSnapshotStats stats;

      for (gsize at = 0; at <= n; at += MAX (n / 2, 1))
        {
          g_autoptr(GmlMemState) state = NULL;

          gml_snapshot_timeline_layout_at (tl, at, layout);
          gml_snapshot_layout_get_stats (layout, &stats);
          state = gml_snapshot_timeline_mem_state (tl, layout);
          /* What the pictures read of it. */
          (void) gml_mem_state_get_fragmentation (state);
          (void) gml_mem_state_get_largest_free_block (state);
        }
      {
        gsize n_entries;
        const GmlSnapshotEntry *entries = gml_snapshot_get_entries (snap, d, &n_entries);
        GmlSnapshotComparison cmp;

        /* The frames of a hostile file are only strings: every one named. */
        for (gsize i = 0; i < n_entries && i < 64; i++)
          {
            g_autofree char *where = gml_snapshot_describe_frames (snap, entries[i].frames);
            g_autofree char *stack = gml_snapshot_format_stack (snap, entries[i].frames, 4);

            (void) gml_snapshot_timeline_get_kind (tl, i);
          }
        gml_snapshot_comparison_init (&cmp, tl, tl);
        if (cmp.by_where->len != 0)
          abort ();
        gml_snapshot_comparison_clear (&cmp);
      }
    }
  return 0;
}

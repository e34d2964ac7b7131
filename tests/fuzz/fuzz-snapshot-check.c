/* fuzz-snapshot-check.c — `snapshot FILE --check`: the replay of a snapshot's own trace.
 *
 * The checker rebuilds the state at the trace's first entry from whatever the file
 * says, loads it into the engine and replays every entry, comparing the engine's
 * choices with the recorded ones. Any input must end in a report or an error,
 * never a crash, a leak or a warning; with and without a GPU size.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "fuzz-common.h"
#include "gml-snapshot-check.h"
#include "gml-snapshot-state.h"
#include "gml-snapshot.h"

FUZZ_DEFINE_QUIET_INITIALIZE ()

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshot) snap = gml_snapshot_load_data (data, size, &error);

  if (snap == NULL)
    return 0;
  for (guint d = 0; d < gml_snapshot_get_n_devices (snap) && d < 2; d++)
    {
      /* No size (the checker's own guess), then an 80 GiB GPU. */
      static const guint64 gpu_memory[] = { 0, G_GUINT64_CONSTANT (80) << 30 };

      for (guint g = 0; g < G_N_ELEMENTS (gpu_memory); g++)
        {
          g_autoptr(GmlSnapshotTimeline) tl = gml_snapshot_timeline_new (snap, d, NULL, NULL);
          g_autoptr(GError) check_error = NULL;
          GmlSnapshotCheck check;

          if (gpu_memory[g] > 0)
            gml_snapshot_timeline_set_gpu_memory (tl, gpu_memory[g]);
          if (gml_snapshot_check (tl, gpu_memory[g], &check, NULL, &check_error))
            {
              /* Each count matched is at most the count. */
              if (check.allocs_matched > check.allocs ||
                  check.segment_allocs_matched > check.segment_allocs ||
                  check.segment_frees_matched > check.segment_frees ||
                  check.ooms_matched > check.ooms)
                abort ();
              gml_snapshot_check_clear (&check);
            }
          else if (check_error == NULL || check_error->message[0] == '\0')
            abort ();
        }
    }
  return 0;
}

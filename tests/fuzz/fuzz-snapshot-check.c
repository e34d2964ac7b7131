/* fuzz-snapshot-check.c — `snapshot FILE --check` and `--what-if`: the replays of a
 * snapshot's own trace.
 *
 * The checker rebuilds the state at the trace's first entry from whatever the file
 * says, loads it into the engine and replays every entry, comparing the engine's
 * choices with the recorded ones; the what-if replays the same requests on a GPU of
 * its own, as recorded and under other settings. Any input must end in a report or
 * an error, never a crash, a leak or a warning; with and without a GPU size.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "fuzz-common.h"
#include "gml-snapshot-check.h"
#include "gml-snapshot-state.h"
#include "gml-snapshot-whatif.h"
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

      /* What if: as recorded, then expandable segments on a small GPU. */
      {
        g_autoptr(GmlSnapshotTimeline) tl = gml_snapshot_timeline_new (snap, d, NULL, NULL);
        g_autoptr(GError) what_error = NULL;
        g_autoptr(GmlWhatIf) what_if = tl != NULL ? gml_what_if_new (tl, &what_error) : NULL;
        GmlAllocConf conf;
        GmlWhatIfRun run;

        gml_alloc_conf_init (&conf);
        conf.expandable_segments = TRUE;
        if (what_if != NULL)
          {
            for (guint k = 0; k < 2; k++)
              {
                g_autoptr(GError) run_error = NULL;

                if (gml_what_if_run (what_if, k == 0 ? NULL : &conf, "expandable_segments:True",
                                     k == 0 ? 0 : G_GUINT64_CONSTANT (64) << 20, TRUE, &run, NULL,
                                     &run_error))
                  {
                    /* The peak is reached, and the timeline never passes it. */
                    for (guint i = 0; i < run.reserved->len; i++)
                      if (g_array_index (run.reserved, guint64, i) > run.peak_reserved)
                        abort ();
                    gml_what_if_run_clear (&run);
                  }
                else if (run_error == NULL || run_error->message[0] == '\0')
                  abort ();
              }
          }
        else if (tl != NULL && (what_error == NULL || what_error->message[0] == '\0'))
          abort ();
      }
    }
  return 0;
}

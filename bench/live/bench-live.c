/* bench-live.c — what one update of the Live view costs, with the trace full.
 *
 * The Live view's reader thread takes in each update and state the probe sends
 * (parsed like any untrusted line), rebuilds the snapshot from the record and
 * walks its trace (gml_live_record_build_snapshot, gml_snapshot_timeline_new,
 * gml_snapshot_picture_new, gml_snapshot_picture_prepare: what
 * gml_snapshot_document_new_live does); the main loop then draws the picture
 * at the newest entry and makes its words. The
 * probe here is synthetic: 512 tensors of 1 MiB in one 1 GiB segment, each
 * update frees and allocates again ENTRIES_PER_UPDATE / 3 of them, so the state
 * after each update is exact and the trace consistent.
 *
 *   bench-live [ENTRIES_PER_UPDATE] [MAX_ENTRIES]     (defaults 1500 and 200000)
 *
 * Each view is drawn, new, after each update. Targets: the redraw on the main
 * loop within a frame (16 ms); the rebuild, off the main loop, well under the
 * probe's interval (500 ms by default).
 * CPU times of this thread; run it from a release build.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "gml-live-record.h"
#include "gml-snapshot-picture.h"

#define SLOTS   512
#define MiB     ((guint64) 1 << 20)
#define BASE    ((guint64) 0x7f0000000000)
#define SEGMENT ((guint64) 1 << 30)

static double
thread_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static void
print_stats (const char *what,
             double     *ms,
             int         n)
{
  qsort (ms, n, sizeof (double), cmp_double);
  g_print ("  %-40s median %7.2f ms   p95 %7.2f ms   max %7.2f ms\n", what, ms[n / 2],
           ms[(n * 95) / 100],
           ms[n - 1]);
}

static void
take (GmlLiveRecord *record,
      GString       *line)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlProbeMessage) message = gml_probe_message_parse (line->str, line->len, &error);

  if (message == NULL)
    g_error ("bench-live: a line of ours was refused: %s", error->message);
  gml_live_record_add (record, message);
}

/* One update (with @pairs frees and allocations) and its state. */
static void
send_update (GmlLiveRecord *record,
             GString       *line,
             GRand         *rand,
             guint          number,
             guint          pairs,
             guint64       *trace_entries,
             guint64       *time_us)
{
  guint64 allocated = SLOTS * MiB;

  g_string_printf (line,
                   "{\"v\":1,\"type\":\"update\",\"time\":%.3f,\"device\":0,\"allocated_bytes\":%"
                   G_GUINT64_FORMAT ",\"reserved_bytes\":%" G_GUINT64_FORMAT ",\"active_bytes\":%"
                   G_GUINT64_FORMAT ",\"segments\":1,\"allocations\":%u,\"trace_entries\":%" G_GUINT64_FORMAT
                   ",\"entries\":[", number * 0.5, allocated, SEGMENT, allocated, SLOTS,
                   *trace_entries + 3 * (guint64) pairs);
  for (guint i = 0; i < pairs; i++)
    {
      guint64 addr = BASE + (guint64) g_rand_int_range (rand, 0, SLOTS) * MiB;

      g_string_append_printf (line, "%s[\"free_requested\",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",0,%"
                              G_GUINT64_FORMAT "],[\"free_completed\",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                              ",0,%" G_GUINT64_FORMAT "],[\"alloc\",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",0,%"
                              G_GUINT64_FORMAT "]", i > 0 ? "," : "", addr, MiB, *time_us, addr,
                              MiB, *time_us + 1,
                              addr, MiB, *time_us + 2);
      *time_us += 3;
    }
  g_string_append (line, "]");
  if (number == 0)
    g_string_append (line, ",\"gap\":true");
  g_string_append (line, "}");
  take (record, line);
  *trace_entries += 3 * (guint64) pairs;

  g_string_printf (line,
                   "{\"v\":1,\"type\":\"state\",\"time\":%.3f,\"device\":0,\"trace_entries\":%"
                   G_GUINT64_FORMAT ",\"segments\":[[%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                   ",0,\"large\",false,[", number * 0.5, *trace_entries, BASE, SEGMENT);
  for (guint i = 0; i < SLOTS; i++)
    g_string_append_printf (line, "[%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",\"a\"],", MiB, MiB);
  g_string_append_printf (line, "[%" G_GUINT64_FORMAT ",0,\"i\"]]]]}", SEGMENT - SLOTS * MiB);
  take (record, line);
}

int
main (int    argc,
      char **argv)
{
  guint per_update = argc > 1 ? (guint) atoi (argv[1]) : 1500;
  gsize max_entries = argc > 2 ? (gsize) atoll (argv[2]) : 200000;
  guint pairs = MAX (per_update / 3, 1);
  guint updates = (guint) (max_entries / (3 * pairs)) + 40;   /* the record full for the last ones
                                                               */
  g_autoptr(GmlLiveRecord) record = gml_live_record_new (max_entries);
  g_autoptr(GString) line = g_string_new (NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (13);
  double *take_ms = g_new (double, updates), *rebuild_ms = g_new (double, updates);
  double *redraw_ms[GML_N_SNAPSHOT_VIEWS];
  guint64 trace_entries = 0, time_us = 1796042156000000;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 960, 600);
  GmlRenderStyle style;
  guint n = 0;

  gml_render_style_init (&style, GML_THEME_LIGHT);
  for (guint v = 0; v < GML_N_SNAPSHOT_VIEWS; v++)
    redraw_ms[v] = g_new (double, updates);
  g_print ("%u updates of %u entries each, the record keeping %zu:\n", updates, 3 * pairs,
           max_entries);
  for (guint u = 0; u < updates; u++)
    {
      g_autoptr(GmlSnapshot) snapshot = NULL;
      g_autoptr(GmlSnapshotTimeline) timeline = NULL;
      g_autoptr(GmlSnapshotPicture) picture = NULL;
      g_autoptr(GError) error = NULL;
      double t0 = thread_ms (), t1, t2;

      send_update (record, line, rand, u, pairs, &trace_entries, &time_us);
      t1 = thread_ms ();
      snapshot = gml_live_record_build_snapshot (record);
      timeline = snapshot != NULL ? gml_snapshot_timeline_new (snapshot, 0, NULL, &error) : NULL;
      if (timeline == NULL)
        g_error ("bench-live: no timeline: %s", error != NULL ? error->message : "no snapshot");
      picture = gml_snapshot_picture_new (timeline);
      gml_snapshot_picture_prepare (picture);
      t2 = thread_ms ();
      /* Each view as the page would draw it after this update: a new picture,
       * drawn for the first time, and its words made. */
      for (guint v = 0; v < GML_N_SNAPSHOT_VIEWS; v++)
        {
          double t3 = thread_ms ();
          cairo_t *cr = cairo_create (surface);

          gml_render_snapshot (cr, picture, v, &style, 960, 600);
          cairo_destroy (cr);
          cairo_surface_flush (surface);
          g_free (gml_snapshot_picture_describe (picture, v));
          redraw_ms[v][n] = thread_ms () - t3;
        }
      if (gml_live_record_get_dropped (record) == 0)
        continue;   /* timed only once the record has filled and lets entries go */
      take_ms[n] = t1 - t0;
      rebuild_ms[n] = t2 - t1;
      n++;
    }
  g_print ("  (%zu entries held, %" G_GUINT64_FORMAT " let go; %u updates timed)\n",
           gml_live_record_get_n_entries (record), gml_live_record_get_dropped (record), n);
  if (n == 0)
    return 1;
  print_stats ("parse and take in (reader thread)", take_ms, n);
  print_stats ("rebuild and prepare the picture (reader)", rebuild_ms, n);
  for (guint v = 0; v < GML_N_SNAPSHOT_VIEWS; v++)
    {
      g_autofree char *what = g_strdup_printf ("%s drawn + words (main loop)",
                                               gml_snapshot_view_to_string (v));

      print_stats (what, redraw_ms[v], n);
      g_free (redraw_ms[v]);
    }
  cairo_surface_destroy (surface);
  g_free (take_ms);
  g_free (rebuild_ms);
  return 0;
}

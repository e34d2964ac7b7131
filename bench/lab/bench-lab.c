/* bench-lab.c — how long the experiment lab takes: one step through the engine
 * (with its picture's steps, as the window runs it, and quick, as the search
 * runs it) and the search for the largest batch.
 *
 *   bench-lab [REPEATS [ONLY]]
 *
 * ONLY runs just the rows whose configuration contains it (e.g. "--tokens"), for
 * a profiler.
 *
 * Not a test: run it from a release build and copy the figures into the README.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gml-lab.h"

static int
compare_double (const void *a,
                const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static void
report (const char *what,
        double     *ms,
        guint       n,
        const char *extra)
{
  qsort (ms, n, sizeof *ms, compare_double);
  printf ("%-58s median %8.1f ms  min %8.1f  max %8.1f  %s\n", what, ms[n / 2], ms[0], ms[n - 1],
          extra);
}

static const char *only;

static gboolean
skipped (const char *args)
{
  return only != NULL && strstr (args, only) == NULL;
}

static void
bench_run (const char     *args,
           GmlLabRunFlags  flags,
           guint           repeats)
{
  GmlLabConfig c;
  double *ms = g_new (double, repeats);
  char extra[128] = "";

  if (skipped (args))
    {
      g_free (ms);
      return;
    }
  gml_lab_config_init (&c);
  if (!gml_lab_config_parse_args (&c, args, NULL))
    g_error ("bad configuration %s", args);
  for (guint i = 0; i < repeats; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(GmlLabRun) run = gml_lab_run_new (&c, flags, NULL);

      ms[i] = (g_get_monotonic_time () - t0) / 1000.0;
      g_assert (run != NULL);
      g_snprintf (extra, sizeof extra, "(%" G_GUINT64_FORMAT " trace events, %s)",
                  gml_lab_run_get_result (run)->n_events,
                  gml_lab_run_get_result (run)->fits ? "fits" : "does not fit");
    }
  {
    g_autofree char *what = g_strdup_printf ("%s%s", flags & GML_LAB_RUN_QUICK ? "quick: " : "",
                                             args);

    report (what, ms, repeats, extra);
  }
  g_free (ms);
  gml_lab_config_clear (&c);
}

static void
bench_max_batch (const char *args,
                 guint       repeats)
{
  GmlLabConfig c;
  double *ms = g_new (double, repeats);
  char extra[128] = "";

  if (skipped (args))
    {
      g_free (ms);
      return;
    }
  gml_lab_config_init (&c);
  if (!gml_lab_config_parse_args (&c, args, NULL))
    g_error ("bad configuration %s", args);
  for (guint i = 0; i < repeats; i++)
    {
      guint max = 0, probes = 0;
      gint64 t0 = g_get_monotonic_time ();

      if (!gml_lab_find_max_batch (&c, GML_LAB_MAX_BATCH_SEARCH, &max, &probes, NULL, NULL))
        g_error ("search failed");
      ms[i] = (g_get_monotonic_time () - t0) / 1000.0;
      g_snprintf (extra, sizeof extra, "(batch %u, %u runs)", max, probes);
    }
  {
    g_autofree char *what = g_strdup_printf ("max batch: %s", args);

    report (what, ms, repeats, extra);
  }
  g_free (ms);
  gml_lab_config_clear (&c);
}

int
main (int    argc,
      char **argv)
{
  guint repeats = argc > 1 ? (guint) atoi (argv[1]) : 9;

  repeats = MAX (repeats, 1);
  only = argc > 2 ? argv[2] : NULL;
  /* One step of llama-2-7b that fits, as the window runs it and as the search does. */
  bench_run ("--model llama-2-7b --seq 4096 --batch 1 --precision amp-bf16 --zero 3 --gpus 8 "
             "--gpu-memory 80G",
             0, repeats);
  bench_run ("--model llama-2-7b --seq 4096 --batch 1 --precision amp-bf16 --zero 3 --gpus 8 "
             "--gpu-memory 80G",
             GML_LAB_RUN_QUICK, repeats);
  /* One that does not fit: the run, then the run that says what it would need. */
  bench_run ("--model llama-2-7b --seq 4096 --batch 1 --precision amp-bf16 --gpu-memory 80G", 0,
             repeats);
  bench_run ("--model gpt2 --batch 8", 0, repeats);
  bench_run ("--model llama-2-7b --seq 1024 --batch 4 --mode inference --tokens 1024 --precision "
             "bf16 --gpu-memory 80G", 0, repeats);
  bench_max_batch ("--model llama-2-7b --seq 1024 --precision amp-bf16 --zero 3 --gpus 8 "
                   "--gpu-memory 80G",
                   repeats);
  bench_max_batch ("--model gpt2 --precision amp-bf16 --gpu-memory 24G", repeats);
  return 0;
}

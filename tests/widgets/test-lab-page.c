/* test-lab-page.c — the Experiment view on its own: a run of its knobs comes from
 * a worker and is the engine's own run; and a page closed while its run and its
 * largest-batch search are under way is finalized at once, its workers
 * cancelled, their results dropped when they come; a long run says how far it
 * is, and the engine's progress reaches the whole.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>

#include <adwaita.h>

#include "gml-i18n.h"
#include "gml-lab-page.h"

/* Small enough to run at once, large enough to be a whole training step. */
#define QUICK "--model gpt2 --seq 128 --batch 2 --precision fp32 --optimizer adamw --gpu-memory 8G"
/* About 1.8 million allocator events: a second or more in a debug build. */
#define SLOW "--model llama-2-7b --mode inference --seq 1024 --tokens 1024 --gpu-memory 80G"
/* About four times as many: two seconds or more in a debug build, so that the
 * page's tenth-of-a-second progress ticks land inside its decode steps however
 * fast the machine (1,024 tokens took under 0.2 s on one CI machine, and no tick
 * saw the decode under way). */
#define LONG "--model llama-2-7b --mode inference --seq 128 --tokens 3968 --gpu-memory 80G"

static GmlLabPage *
new_page (void)
{
  return g_object_ref_sink (g_object_new (GML_TYPE_LAB_PAGE, NULL));
}

static void
wait_for_run (GmlLabPage *page,
              const char *args)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  GmlLabConfig want;

  gml_lab_config_init (&want);
  g_assert_true (gml_lab_config_parse_args (&want, args, NULL));
  while (g_get_monotonic_time () < deadline &&
         (gml_lab_page_get_run (page) == NULL ||
          !gml_lab_config_equal (gml_lab_run_get_config (gml_lab_page_get_run (page)), &want)))
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (gml_lab_page_get_run (page));
  g_assert_true (gml_lab_config_equal (gml_lab_run_get_config (gml_lab_page_get_run (page)),
                                       &want));
  gml_lab_config_clear (&want);
}

/* The page's run is the engine's, figure for figure. */
static void
test_run (void)
{
  GmlLabPage *page = new_page ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlLabRun) direct = NULL;
  GmlLabConfig config;

  g_assert_true (gml_lab_page_open_config (page, QUICK, &error));
  g_assert_no_error (error);
  wait_for_run (page, QUICK);

  gml_lab_config_init (&config);
  g_assert_true (gml_lab_config_parse_args (&config, QUICK, NULL));
  direct = gml_lab_run_new (&config, GML_LAB_RUN_DEFAULT, &error);
  g_assert_no_error (error);
  gml_lab_config_clear (&config);
  g_assert_cmpuint (gml_lab_run_get_result (gml_lab_page_get_run (page))->peak_allocated, ==,
                    gml_lab_run_get_result (direct)->peak_allocated);
  g_assert_cmpuint (gml_lab_run_get_result (gml_lab_page_get_run (page))->peak_reserved, ==,
                    gml_lab_run_get_result (direct)->peak_reserved);
  g_assert_finalize_object (page);
}

/* Closed while its workers run: the workers do not keep the page, so it goes at
 * once; when they finish, their callbacks find it gone. A second page running the
 * same step, started after, tells when the first one's worker is done too (both
 * run side by side on the worker threads); its own run must still be shown. */
static void
test_closed_while_running (void)
{
  GmlLabPage *page = new_page ();
  GmlLabPage *after;

  g_assert_true (gml_lab_page_open_config (page, SLOW, NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "lab.run", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "lab.max-batch", NULL));
  g_assert_null (gml_lab_page_get_run (page));
  g_assert_finalize_object (page);

  after = new_page ();
  g_assert_true (gml_lab_page_open_config (after, SLOW, NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (after), "lab.run", NULL));
  wait_for_run (after, SLOW);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (after);
}

/* A cancelled run stops with G_IO_ERROR_CANCELLED; one that is not runs whole. */
static void
test_cancelled_run (void)
{
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  g_autoptr(GCancellable) kept = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlLabRun) stopped = NULL;
  g_autoptr(GmlLabRun) whole = NULL;
  GmlLabConfig slow, quick;

  gml_lab_config_init (&slow);
  gml_lab_config_init (&quick);
  g_assert_true (gml_lab_config_parse_args (&slow, SLOW, NULL));
  g_assert_true (gml_lab_config_parse_args (&quick, QUICK, NULL));
  g_cancellable_cancel (cancelled);
  stopped = gml_lab_run_new_cancellable (&slow, GML_LAB_RUN_DEFAULT, cancelled, &error);
  g_assert_null (stopped);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  whole = gml_lab_run_new_cancellable (&quick, GML_LAB_RUN_DEFAULT, kept, &error);
  g_assert_no_error (error);
  g_assert_nonnull (whole);
  gml_lab_config_clear (&slow);
  gml_lab_config_clear (&quick);
}

/* The percentage a "Running… N %" label below @widget shows, or -1. */
static int
shown_percentage (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget))
    {
      const char *text = gtk_label_get_label (GTK_LABEL (widget));
      unsigned int n;

      if (g_str_has_prefix (text, "Running… ") && sscanf (text, "Running… %u %%", &n) == 1)
        return (int) n;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int n = shown_percentage (child);

      if (n >= 0)
        return n;
    }
  return -1;
}

/* A run that takes more than a moment says how far it is, going up, until its
 * result replaces the words. */
static void
test_progress_shown (void)
{
  GmlLabPage *page = new_page ();
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  int last = -1, seen = 0;

  g_assert_true (gml_lab_page_open_config (page, LONG, NULL));
  while (g_get_monotonic_time () < deadline && gml_lab_page_get_run (page) == NULL)
    {
      int n;

      g_main_context_iteration (NULL, TRUE);
      n = shown_percentage (GTK_WIDGET (page));
      if (n < 0)
        continue;
      g_assert_cmpint (n, >, 0);
      g_assert_cmpint (n, <, 100);
      g_assert_cmpint (n, >=, last);
      last = n;
      seen++;
    }
  g_assert_nonnull (gml_lab_page_get_run (page));
  g_assert_cmpint (seen, >, 0);
  g_assert_cmpint (shown_percentage (GTK_WIDGET (page)), ==, -1);
  g_assert_finalize_object (page);
}

/* What the window reads: an inference run's progress reaches 1000 per mille; a
 * training step's says nothing. */
static void
test_progress_reaches_whole (void)
{
  static const char *inference = "--model gpt2 --mode inference --seq 64 --tokens 32 --gpu-memory 8G";
  g_autoptr(GmlLabRun) run = NULL;
  g_autoptr(GmlLabRun) train = NULL;
  GmlLabConfig config;
  gint progress = 0;

  gml_lab_config_init (&config);
  g_assert_true (gml_lab_config_parse_args (&config, inference, NULL));
  run = gml_lab_run_new_full (&config, GML_LAB_RUN_DEFAULT, NULL, &progress, NULL);
  g_assert_nonnull (run);
  g_assert_cmpint (progress, ==, 1000);
  gml_lab_config_clear (&config);

  progress = 0;
  gml_lab_config_init (&config);
  g_assert_true (gml_lab_config_parse_args (&config, QUICK, NULL));
  train = gml_lab_run_new_full (&config, GML_LAB_RUN_DEFAULT, NULL, &progress, NULL);
  g_assert_nonnull (train);
  g_assert_cmpint (progress, ==, 0);
  gml_lab_config_clear (&config);
}

int
main (int    argc,
      char **argv)
{
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  gml_i18n_init ();
  gml_i18n_set_language ("en");
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/lab-page/run", test_run);
  g_test_add_func ("/lab-page/closed-while-running", test_closed_while_running);
  g_test_add_func ("/lab-page/cancelled-run", test_cancelled_run);
  g_test_add_func ("/lab-page/progress-shown", test_progress_shown);
  g_test_add_func ("/lab-page/progress-reaches-whole", test_progress_reaches_whole);
  return g_test_run ();
}

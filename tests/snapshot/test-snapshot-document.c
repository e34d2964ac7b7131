/* test-snapshot-document.c — the Snapshot view's model, without a display.
 *
 * The document is loaded in a GTask thread with a main loop running, as the
 * window does: progress arrives on the main loop (reading, then walking),
 * the real fixture has its 5163 entries and starts at the end, "at" is
 * clamped and notified once per change, cancelling ends in
 * G_IO_ERROR_CANCELLED, a file the reader refuses comes back with the
 * reader's own error, and switching the device walks another trace of the
 * same snapshot without reading the file again.
 *
 *   test-snapshot-document MAKE_SNAPSHOTS.PY [--real]   (--real: the real fixture alone)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "gml-test-locale.h"
#include "gml-i18n.h"
#include "gml-snapshot-document.h"
#include "gml-test-common.h"

static const char *make_snapshots;
static char *real_path;
static char *long_path;             /* a synthetic file of some size */
static char *cases_dir;

typedef struct
{
  GMainLoop           *loop;
  GmlSnapshotDocument *document;
  GError              *error;
  guint                reading;
  guint                walking;
  double               last_fraction;
  gboolean             fraction_out_of_range;
  gboolean             fraction_went_back;
  gboolean             reading_after_walking;
  gboolean             progress_off_main;
  gboolean             done;
  gboolean             progress_after_done;
  GThread             *main_thread;
} Load;

static void
progress_cb (GmlSnapshotLoadPhase phase,
             double               fraction,
             gpointer             user_data)
{
  Load *load = user_data;

  if (g_thread_self () != load->main_thread)
    load->progress_off_main = TRUE;
  if (load->done)
    load->progress_after_done = TRUE;
  if (phase == GML_SNAPSHOT_LOAD_READING)
    {
      load->reading++;
      if (fraction < 0.0 || fraction > 1.0)
        load->fraction_out_of_range = TRUE;
      if (fraction < load->last_fraction)
        load->fraction_went_back = TRUE;
      if (load->walking > 0)
        load->reading_after_walking = TRUE;
      load->last_fraction = fraction;
    }
  else
    load->walking++;
}

static void
loaded_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Load *load = user_data;

  load->document = gml_snapshot_document_load_finish (result, &load->error);
  load->done = TRUE;
  g_main_loop_quit (load->loop);
}

static void
switched_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Load *load = user_data;

  load->document = gml_snapshot_document_switch_device_finish (result, &load->error);
  g_main_loop_quit (load->loop);
}

static void
load_file (Load         *load,
           const char   *path,
           GCancellable *cancellable)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  memset (load, 0, sizeof *load);
  load->loop = g_main_loop_new (NULL, FALSE);
  load->main_thread = g_thread_self ();
  gml_snapshot_document_load_async (file, -1, cancellable, progress_cb, load, loaded_cb, load);
  g_main_loop_run (load->loop);
  g_main_loop_unref (load->loop);
  /* Progress still queued must not reach the caller once the result is in. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static char *
case_path (const char *name)
{
  return g_build_filename (cases_dir, name, NULL);
}

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 gpointer    user_data)
{
  (*(guint *) user_data)++;
}

static void
test_real (void)
{
  Load load;
  g_autofree char *entry = NULL;
  g_autofree char *source = NULL;
  g_autofree char *first = NULL;
  guint notified = 0;
  gsize n;

  load_file (&load, real_path, NULL);
  g_assert_no_error (load.error);
  g_assert_true (GML_IS_SNAPSHOT_DOCUMENT (load.document));
  /* Progress came on the main loop, reading before walking, the fraction
   * only growing; how often depends on how fast the thread was, and none
   * arrives after the result. */
  g_assert_false (load.progress_off_main);
  g_assert_false (load.fraction_out_of_range);
  g_assert_false (load.fraction_went_back);
  g_assert_false (load.reading_after_walking);
  g_assert_cmpuint (load.walking, <=, 1);
  g_assert_false (load.progress_after_done);

  n = gml_snapshot_document_get_n_entries (load.document);
  g_assert_cmpuint (n, ==, 5163);
  g_assert_cmpuint (gml_snapshot_document_get_at (load.document), ==, n);
  g_assert_cmpuint (gml_snapshot_document_get_device (load.document), ==, 0);
  g_assert_cmpuint (gml_snapshot_document_get_n_devices (load.document), ==, 1);
  g_assert_cmpstr (gml_snapshot_document_get_display_name (load.document), ==,
                   "magma27_memory_snapshot.pickle");
  g_assert_cmpuint (gml_snapshot_document_get_page (load.document), ==, 51);
  g_assert_cmpuint (gml_snapshot_picture_get_at (gml_snapshot_document_get_picture (load.document)),
                    ==, n);

  g_signal_connect (load.document, "notify::at", G_CALLBACK (count_notify_cb), &notified);
  gml_snapshot_document_set_at (load.document, 100);
  g_assert_cmpuint (notified, ==, 1);
  g_assert_cmpuint (gml_snapshot_picture_get_at (gml_snapshot_document_get_picture (load.document)),
                    ==, 100);
  gml_snapshot_document_set_at (load.document, 100);
  g_assert_cmpuint (notified, ==, 1);
  gml_snapshot_document_set_at (load.document, n + 1000);
  g_assert_cmpuint (gml_snapshot_document_get_at (load.document), ==, n);
  g_assert_cmpuint (notified, ==, 2);
  g_object_set (load.document, "at", (guint64) 7, NULL);
  g_assert_cmpuint (gml_snapshot_document_get_at (load.document), ==, 7);

  entry = gml_snapshot_document_describe_entry (load.document, 1);
  g_assert_true (g_str_has_prefix (entry, "Entry 1 of 5163: "));
  /* The fixture has time_us, so the line says how far into the trace. */
  g_assert_nonnull (strstr (entry, "s into the trace"));
  first = gml_snapshot_document_describe_entry (load.document, 0);
  g_assert_true (g_str_has_prefix (first, "Before the first trace entry (of 5163)."));
  source = gml_snapshot_document_describe_source (load.document);
  g_assert_cmpstr (source, ==, "cuda:0 · 5163 trace entries");

  g_assert_finalize_object (load.document);
}

static void
test_cancel (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Load load;

  /* Cancelled before the thread starts: the result says so, and no progress
   * reaches the caller once it was cancelled. */
  g_cancellable_cancel (cancellable);
  load_file (&load, long_path, cancellable);
  g_assert_null (load.document);
  g_assert_error (load.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (load.reading + load.walking, ==, 0);
  g_clear_error (&load.error);
}

static void
test_refused (void)
{
  g_autofree char *cut = g_build_filename (cases_dir, "cut.pickle", NULL);
  g_autofree char *data = NULL;
  gsize length;
  Load load;

  /* Cut short: the reader's truncation error, with its byte offset. */
  g_assert_true (g_file_get_contents (long_path, &data, &length, NULL));
  g_assert_true (g_file_set_contents (cut, data, 100000, NULL));
  load_file (&load, cut, NULL);
  g_assert_null (load.document);
  g_assert_error (load.error, GML_SNAPSHOT_ERROR, GML_SNAPSHOT_ERROR_TRUNCATED);
  g_assert_true (g_str_has_prefix (load.error->message, "Byte "));
  g_clear_error (&load.error);

  /* Not a file on this computer. */
  {
    g_autoptr(GFile) remote = g_file_new_for_uri ("http://example.invalid/snapshot.pickle");

    memset (&load, 0, sizeof load);
    load.loop = g_main_loop_new (NULL, FALSE);
    load.main_thread = g_thread_self ();
    gml_snapshot_document_load_async (remote, -1, NULL, NULL, NULL, loaded_cb, &load);
    g_main_loop_run (load.loop);
    g_main_loop_unref (load.loop);
    g_assert_error (load.error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
    g_clear_error (&load.error);
  }

  /* A pickle of Python objects: refused by name, nothing run. */
  {
    g_autofree char *path = g_build_filename (cases_dir, "objects.pickle", NULL);
    /* pickle.dumps(collections.OrderedDict(), protocol=2) */
    static const char objects[] = "\x80\x02" "ccollections\nOrderedDict\nq\x00)Rq\x01.";

    g_assert_true (g_file_set_contents (path, objects, sizeof objects - 1, NULL));
    load_file (&load, path, NULL);
    g_assert_error (load.error, GML_SNAPSHOT_ERROR, GML_SNAPSHOT_ERROR_PYTHON_OBJECTS);
    g_assert_nonnull (strstr (load.error->message, "GLOBAL"));
    g_clear_error (&load.error);
  }
}

static void
test_devices (void)
{
  g_autofree char *path = case_path ("devices.pickle");
  GmlSnapshotDocument *first;
  Load load;

  /* Device 1 has the trace, so it is the default. */
  load_file (&load, path, NULL);
  g_assert_no_error (load.error);
  first = load.document;
  g_assert_cmpuint (gml_snapshot_document_get_n_devices (first), ==, 2);
  g_assert_cmpuint (gml_snapshot_document_get_device (first), ==, 1);
  g_assert_cmpuint (gml_snapshot_document_get_n_entries (first), ==, 1);

  memset (&load, 0, sizeof load);
  load.loop = g_main_loop_new (NULL, FALSE);
  gml_snapshot_document_switch_device_async (first, 0, NULL, switched_cb, &load);
  g_main_loop_run (load.loop);
  g_main_loop_unref (load.loop);
  g_assert_no_error (load.error);
  g_assert_cmpuint (gml_snapshot_document_get_device (load.document), ==, 0);
  g_assert_cmpuint (gml_snapshot_document_get_n_entries (load.document), ==, 0);
  /* The same snapshot, not read again; it outlives the first document. */
  g_assert_true (gml_snapshot_document_get_snapshot (load.document) ==
                 gml_snapshot_document_get_snapshot (first));
  g_assert_finalize_object (first);
  g_assert_cmpuint (gml_snapshot_get_n_devices (gml_snapshot_document_get_snapshot (load.document)),
                    ==, 2);
  g_assert_finalize_object (load.document);
}

/* A training run: the peak by category, the device's words, an entry with
 * its category, user_metadata and record_function regions, a comparison. */
static void
test_training (void)
{
  g_autofree char *path = case_path ("training.pickle");
  g_autofree char *other_path = case_path ("training-sgd.pickle");
  g_autofree char *device = NULL;
  g_autofree char *entry = NULL;
  GmlSnapshotDocument *document, *other;
  const GmlSnapshotPeak *peak;
  const GmlSnapshotEntry *entries;
  guint64 sum = 0;
  gsize n, last = 0;
  GArray *diffs;
  Load load;

  load_file (&load, path, NULL);
  g_assert_no_error (load.error);
  document = load.document;
  peak = gml_snapshot_document_get_peak (document);
  for (guint c = 0; c < GML_N_CATEGORIES; c++)
    sum += peak->by_category[c];
  g_assert_cmpuint (sum, ==, peak->allocated_bytes);
  g_assert_cmpuint (peak->by_category[GML_CATEGORY_OPTIMIZER_STATE], >, 0);
  g_assert_cmpuint (peak->by_where->len, >, 0);
  device = gml_snapshot_document_describe_device (document, 0);
  g_assert_cmpstr (device, ==, "cuda:0 — 138 entries");

  /* The last allocation: a temporary of the second optimizer step. */
  entries = gml_snapshot_get_entries (gml_snapshot_document_get_snapshot (document), 0, &n);
  for (gsize i = 0; i < n; i++)
    if (entries[i].action == GML_SNAP_ALLOC)
      last = i;
  entry = gml_snapshot_document_describe_entry (document, last + 1);
  /* Its line is the user's own, not torch/optim's. */
  g_assert_nonnull (strstr (entry, ", in train.py:44 train_step"));
  g_assert_nonnull (strstr (entry, " (Temporary, inferred)"));
  g_assert_nonnull (strstr (entry, "; user_metadata “step=1”"));
  g_assert_nonnull (strstr (entry, "; inside record_function ## train step 1 ## › "
                                   "Optimizer.step#Adam.step"));

  /* Compared with plain SGD: the lines that differ, the largest first. */
  load_file (&load, other_path, NULL);
  g_assert_no_error (load.error);
  other = load.document;
  gml_snapshot_document_set_compare (document, other);
  g_assert_true (gml_snapshot_document_get_compare (document) == other);
  diffs = gml_snapshot_document_get_comparison (document);
  g_assert_nonnull (diffs);
  g_assert_cmpuint (diffs->len, >, 0);
  for (guint i = 1; i < diffs->len; i++)
    {
      const GmlSnapshotWhereDiff *a = &g_array_index (diffs, GmlSnapshotWhereDiff, i - 1);
      const GmlSnapshotWhereDiff *b = &g_array_index (diffs, GmlSnapshotWhereDiff, i);
      guint64 da = a->a_bytes > a->b_bytes ? a->a_bytes - a->b_bytes : a->b_bytes - a->a_bytes;
      guint64 db = b->a_bytes > b->b_bytes ? b->a_bytes - b->b_bytes : b->b_bytes - b->a_bytes;

      g_assert_cmpuint (da, >=, db);
    }
  /* Compared with itself: nothing differs. */
  gml_snapshot_document_set_compare (document, document);
  g_assert_cmpuint (gml_snapshot_document_get_comparison (document)->len, ==, 0);
  gml_snapshot_document_set_compare (document, NULL);
  g_assert_null (gml_snapshot_document_get_comparison (document));
  g_assert_finalize_object (other);
  g_assert_finalize_object (document);
}

static void
test_oom (void)
{
  g_autofree char *path = case_path ("oom.pickle");
  g_autofree char *entry = NULL;
  Load load;

  load_file (&load, path, NULL);
  g_assert_no_error (load.error);
  /* The oom entry (index 6) is entry 7, counted from 1. */
  entry = gml_snapshot_document_describe_entry (load.document, 7);
  g_assert_true (g_str_has_prefix (entry, "Entry 7 of 8: oom: a request for 3 MiB failed"));
  g_assert_finalize_object (load.document);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *python = NULL;
  int status = 0;
  int result;

  gml_test_set_locale (&argc, &argv);
  gml_i18n_init ();
  gml_i18n_set_language ("en");
  g_test_init (&argc, &argv, NULL);

  if (argc < 2 || (argc == 3 && !g_str_equal (argv[2], "--real")))
    {
      g_printerr ("usage: test-snapshot-document MAKE_SNAPSHOTS.PY [--real]\n");
      return 2;
    }
  /* The real snapshot is its own meson test, skipped where the fixtures are not. */
  if (argc == 3)
    {
      real_path = gml_test_require_fixture ("magma27_memory_snapshot.pickle");
      g_test_add_func ("/snapshot/document/real", test_real);
      return g_test_run ();
    }
  make_snapshots = argv[1];
  cases_dir = gml_test_make_tmp_dir ("gml-document-XXXXXX");
  long_path = g_build_filename (cases_dir, "long.pickle", NULL);
  python = g_find_program_in_path ("python3");
  g_assert_nonnull (python);
  {
    const char *cmd[] = { python, make_snapshots, "cases", cases_dir, NULL };

    g_spawn_sync (NULL, (char **) cmd, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status,
                  &error);
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }

  g_test_add_func ("/snapshot/document/cancel", test_cancel);
  g_test_add_func ("/snapshot/document/refused", test_refused);
  g_test_add_func ("/snapshot/document/devices", test_devices);
  g_test_add_func ("/snapshot/document/oom", test_oom);
  g_test_add_func ("/snapshot/document/training", test_training);
  result = g_test_run ();

  gml_test_remove_tree (cases_dir);
  g_free (cases_dir);
  g_free (long_path);
  return result;
}

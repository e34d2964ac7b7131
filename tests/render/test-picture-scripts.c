/* test-picture-scripts.c — every question's own experiment runs, and says what it claims.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <string.h>

#include "gml-picture-script.h"
#include "gml-question-bank.h"
#include "gml-render.h"
#include "gml-test-common.h"

#define MiB (G_GUINT64_CONSTANT (1048576))
#define GiB (G_GUINT64_CONSTANT (1073741824))
#define GB  (G_GUINT64_CONSTANT (1000000000))

static GmlScenario *
run_on (const GmlPictureScript *e,
        guint64                 capacity)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (capacity, 0);
  g_autoptr(GError) error = NULL;
  GmlScenario *sc = gml_scenario_new_picture_script (e, device, &error);

  g_assert_no_error (error);
  g_assert_nonnull (sc);
  /* The experiment holds no device memory once it has run. */
  g_assert_cmpuint (device->in_use, ==, 0);
  g_assert_cmpuint (device->n_live, ==, 0);
  return sc;
}

static guint64
key (GmlScenario *sc,
     const char  *name)
{
  for (guint i = 0; i < gml_scenario_get_n_keys (sc); i++)
    if (g_str_equal (gml_scenario_get_key (sc, i)->name, name))
      return gml_scenario_get_key (sc, i)->bytes;
  g_error ("no key %s in %s", name, gml_scenario_get_name (sc));
  return 0;
}

typedef struct
{
  const GmlMark *mark;
  gboolean       found;
} FindMark;

static void
find_mark_cb (const GmlSegmentInfo *segment,
              const GmlBlockInfo   *block,
              gpointer              user_data)
{
  FindMark *d = user_data;

  if ((d->mark->label != NULL && block->state == GML_BLOCK_ALLOCATED &&
       g_strcmp0 (block->label, d->mark->label) == 0) ||
      (d->mark->label == NULL && block->address == d->mark->address))
    d->found = TRUE;
}

static void
test_every_question (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_test_load_bank_file ();

  for (guint i = 0; i < gml_question_bank_get_n_questions (bank); i++)
    {
      const GmlQuestion *q = gml_question_bank_get (bank, i);
      g_autoptr(GmlScenario) sc = run_on (q->picture_script, GML_SCENARIO_SIM_CAPACITY);
      guint n = gml_scenario_get_n_steps (sc);
      guint setup = gml_scenario_get_setup_step (sc), focus = gml_scenario_get_focus_step (sc);
      g_autoptr(GmlMemState) at_focus = gml_scenario_state_at (sc, focus);

      g_test_message ("%s: %s", q->id, gml_scenario_get_step (sc, focus)->caption);
      g_assert_nonnull (gml_scenario_get_title (sc));
      g_assert_cmpuint (n, >=, 2);
      g_assert_cmpuint (setup, <=, focus);
      g_assert_cmpuint (focus, <, n);
      /* The view the question opens in is one the panel offers. */
      g_assert_true (gml_scenario_has_view (sc, gml_scenario_get_focus_view (sc)));
      {
        g_autoptr(GmlPicture) picture = gml_picture_new (sc);

        /* ...and the picture has something to draw in it, before and after. */
        g_assert_true (gml_picture_offers_view (picture, gml_scenario_get_focus_view (sc)));
        g_assert_true (gml_picture_offers_view (picture, gml_scenario_get_setup_view (sc)));
      }
      if (gml_scenario_has_view (sc, GML_VIEW_COMPARISON))
        g_assert_cmpuint (gml_scenario_get_n_bars (sc), >, 0);
      if (gml_scenario_has_view (sc, GML_VIEW_CHECKPOINTING))
        g_assert_cmpuint (gml_scenario_get_n_strategies (sc), >, 0);
      /* Something to check in every description. */
      g_assert_cmpuint (gml_scenario_get_n_keys (sc), >, 0);
      /* Before and after the answer the picture says different things. */
      if (setup != focus)
        g_assert_cmpstr (gml_scenario_get_step (sc, setup)->caption, !=,
                         gml_scenario_get_step (sc, focus)->caption);
      else
        g_assert_true (gml_scenario_get_n_bars (sc) > 0);

      for (guint s = 0; s < n; s++)
        {
          const GmlScenarioStep *step = gml_scenario_get_step (sc, s);
          g_autoptr(GmlMemState) state = gml_scenario_state_at (sc, s);
          g_autoptr(GError) error = NULL;

          g_assert_nonnull (step->caption);
          g_assert_true (gml_mem_state_check (state, &error));
          g_assert_no_error (error);
          g_assert_cmpint (gml_mem_state_get_stats (state)->allocated_bytes[GML_STAT_ALL].current,
                           ==,
                           step->stats.allocated_bytes[GML_STAT_ALL].current);
          g_assert_cmpint (gml_mem_state_get_stats (state)->reserved_bytes[GML_STAT_ALL].current,
                           ==,
                           step->stats.reserved_bytes[GML_STAT_ALL].current);
          g_assert_cmpuint (step->run, <, gml_scenario_get_n_runs (sc));
        }
      /* Every mark names something the focus state holds. */
      for (guint m = 0; m < gml_scenario_get_n_marks (sc); m++)
        {
          FindMark d = { gml_scenario_get_mark (sc, m), FALSE };

          gml_mem_state_foreach_block (at_focus, find_mark_cb, &d);
          if (!d.found)
            g_error ("%s: mark “%s” is not in the focus state", q->id, d.mark->text);
        }
      for (guint b = 0; b < gml_scenario_get_n_bars (sc); b++)
        g_assert_cmpuint (gml_scenario_get_bar (sc, b)->step, <, n);
    }
}

static const GmlQuestion *
question (GmlQuestionBank *bank,
          const char      *id)
{
  const GmlQuestion *q = gml_question_bank_lookup (bank, id);

  g_assert_nonnull (q);
  return q;
}

/* The figures each question is about, read from the engine: the answers. */
static void
test_teaches (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_test_load_bank_file ();
  static const struct { const char *id; const char *key; guint64 bytes; } cases[] = {
    { "oom-tried-segment-size", "segment", 20 * MiB },
    { "rounding-small-tensor", "memory_allocated", 1024 },
    { "rounding-small-tensor", "memory_reserved", 2 * MiB },
    { "rounding-large-unsplit", "memory_allocated", 12 * MiB },
    { "empty-cache-live-block", "memory_reserved", 20 * MiB },
    { "empty-cache-live-block", "inactive_split", 17 * MiB },
    { "fragmentation-new-segment", "growth", 10 * MiB },
    { "max-split-small-request", "growth", 20 * MiB },
    { "max-split-large-request", "growth", 110 * MiB },
    { "stream-new-segment", "growth", 20 * MiB },
    { "oom-reserved-total", "reserved", 36 * GiB },
    { "oom-reserved-unallocated", "unallocated", 6 * GiB },
    { "oom-reserved-unallocated", "free", 3 * GiB / 2 },
    { "oom-reserved-unallocated", "capacity", 38 * GiB },
    { "context-smi-gap", "memory_reserved", 10 * GiB },
    { "autocast-7b-weights", "total", 112 * GB },
    { "autocast-7b-weights", "total_first", 112 * GB },
    { "view-keeps-storage", "memory_allocated", 256 * MiB },
    { "lab-gpt2-tied-embeddings", "tied_matrix", G_GUINT64_CONSTANT (50257) * 768 * 4 },
    { "stats-inactive-split", "inactive_split", 17 * MiB },
    { "snapshot-pending-free", "pending_free", 30 * MiB },
    { "snapshot-pending-free", "memory_allocated", 0 },
    { "fragmentation-mixed-lifetimes", "inactive_split", 48 * MiB },
    { "fragmentation-mixed-lifetimes", "growth", 16 * MiB },
    { "fragmentation-mixed-lifetimes", "memory_reserved", 96 * MiB },
    { "rounding-many-scalars", "memory_allocated", 100000 * 512 },
    { "rounding-many-scalars", "memory_reserved", 50 * MiB },
    { "compile-memory-budget", "eager", 320 * MiB },
    { "compile-memory-budget", "compiled", 128 * MiB },
    { "compile-memory-budget", "budget", 64 * MiB },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GmlScenario) sc = run_on (question (bank, cases[i].id)->picture_script,
                                          GML_SCENARIO_SIM_CAPACITY);

      g_test_message ("%s %s", cases[i].id, cases[i].key);
      g_assert_cmpuint (key (sc, cases[i].key), ==, cases[i].bytes);
    }

  /* 10.40 GiB is not a whole number of bytes per 2 MiB page: within a page. */
  {
    g_autoptr(GmlScenario) sc = run_on (question (bank, "context-oom-arithmetic")->picture_script,
                                        GML_SCENARIO_SIM_CAPACITY);
    guint64 in_use = key (sc, "in_use"), want = (guint64) (10.40 * GiB);

    g_assert_cmpuint (in_use > want ? in_use - want : want - in_use, <, 2 * MiB);
  }
  /* √n checkpoints: four times deeper, about twice the activations; without, four times. */
  {
    g_autoptr(GmlScenario) sc = run_on (question (bank, "checkpointing-sqrt-depth")->picture_script,
                                        GML_SCENARIO_SIM_CAPACITY);
    double ratio = (double) key (sc, "peak_sqrt_deep") / key (sc, "peak_sqrt_small");

    g_assert_cmpfloat (ratio, >=, 1.5);
    g_assert_cmpfloat (ratio, <, 3.0);
  }
  /* The KV cache grows with the sequences in the batch. */
  {
    g_autoptr(GmlScenario) sc = run_on (question (bank, "kv-cache-growth")->picture_script,
                                        GML_SCENARIO_SIM_CAPACITY);

    g_assert_cmpuint (key (sc, "kv_batch"), ==, 4 * key (sc, "kv_batch1"));
  }
}

/* A smaller GPU runs the same question at a larger scale, and reports the same
 * figures: the scale is honest, not a story. */
static void
test_scale (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_test_load_bank_file ();
  const char *ids[] = { "oom-reserved-unallocated", "zero-what-is-sharded", "autocast-7b-weights" };

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      const GmlPictureScript *e = question (bank, ids[i])->picture_script;
      g_autoptr(GmlScenario) big = run_on (e, GML_SCENARIO_SIM_CAPACITY);
      g_autoptr(GmlScenario) small = run_on (e, GML_SCENARIO_SIM_CAPACITY / 4);

      g_assert_cmpuint (gml_scenario_get_scale (small), >, gml_scenario_get_scale (big));
      g_assert_cmpuint (gml_scenario_get_n_keys (small), ==, gml_scenario_get_n_keys (big));
      for (guint k = 0; k < gml_scenario_get_n_keys (big); k++)
        g_assert_cmpuint (gml_scenario_get_key (small, k)->bytes, ==,
                          gml_scenario_get_key (big, k)->bytes);
    }
}

/* A question that names no experiment gets its scenario's, and every named
 * scenario is a kind whose defaults run. */
static void
test_defaults (void)
{
  const char * const *names = gml_scenario_names ();

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(GmlPictureScript) e = gml_picture_script_new_default (names[i]);
      g_autoptr(GmlScenario) sc = NULL;

      g_assert_cmpstr (gml_picture_script_get_kind (e), ==, names[i]);
      sc = run_on (e, GML_SCENARIO_SIM_CAPACITY);
      g_assert_cmpuint (gml_scenario_get_focus_step (sc), >, 0);
    }
  {
    g_autoptr(GmlPictureScript) e = gml_picture_script_new_default ("rounding");   /* needs a request */

    g_assert_cmpstr (gml_picture_script_get_kind (e), ==, "oom");
  }
}

/* Out of memory on the device under an experiment is reported, never a crash:
 * a GPU too small for the arena makes the script's requests fail. */
static void
test_tiny_device (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_test_load_bank_file ();

  for (guint i = 0; i < gml_question_bank_get_n_questions (bank); i++)
    {
      g_autoptr(GmlScenario) sc = run_on (gml_question_bank_get (bank, i)->picture_script, 64 * MiB);

      g_assert_cmpuint (gml_scenario_get_n_steps (sc), >=, 1);
    }
}

/* A question's picture run in a worker stops when its cancellable is: the
 * script looks at the thread's current cancellable inside its allocation
 * loops, gives the device everything back and says it was cancelled (it does
 * not fall back to a simulation). A script with fewer than a thousand
 * allocations finishes before it looks. */
static void
test_cancelled (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_test_load_bank_file ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  guint stopped = 0;

  g_cancellable_cancel (cancellable);
  for (guint i = 0; i < gml_question_bank_get_n_questions (bank); i++)
    {
      g_autoptr(GmlDevice) device = gml_device_sim_new (GML_SCENARIO_SIM_CAPACITY, 0);
      g_autoptr(GError) error = NULL;
      g_autoptr(GmlScenario) sc = NULL;

      g_cancellable_push_current (cancellable);
      sc = gml_scenario_new_picture_script (gml_question_bank_get (bank, i)->picture_script, device,
                                            &error);
      g_cancellable_pop_current (cancellable);
      if (sc == NULL)
        {
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
          stopped++;
        }
      else
        g_assert_no_error (error);
      g_assert_cmpuint (device->in_use, ==, 0);
      g_assert_cmpuint (device->n_live, ==, 0);
    }
  /* The lab's questions make thousands of allocations: they at least stop. */
  g_assert_cmpuint (stopped, >=, 5);

  /* Not cancelled, the same runs finish. */
  {
    g_autoptr(GCancellable) fresh = g_cancellable_new ();

    for (guint i = 0; i < gml_question_bank_get_n_questions (bank); i++)
      {
        g_autoptr(GmlScenario) sc = NULL;

        g_cancellable_push_current (fresh);
        sc = run_on (gml_question_bank_get (bank, i)->picture_script, GML_SCENARIO_SIM_CAPACITY);
        g_cancellable_pop_current (fresh);
      }
  }
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/experiment/every-question", test_every_question);
  g_test_add_func ("/experiment/teaches", test_teaches);
  g_test_add_func ("/experiment/scale", test_scale);
  g_test_add_func ("/experiment/defaults", test_defaults);
  g_test_add_func ("/experiment/tiny-device", test_tiny_device);
  g_test_add_func ("/experiment/cancelled", test_cancelled);

  return g_test_run ();
}

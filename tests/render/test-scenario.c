/* test-scenario.c — the scenarios' numbers are the engine's, and they teach what they claim.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <string.h>

#include "gml-scenario.h"

static GmlScenario *
run (const char *name)
{
  g_autoptr(GmlDevice) device = NULL;
  g_autoptr(GError) error = NULL;
  GmlScenario *sc;

  /* The scenario only borrows the device while it runs its script. */
  device = gml_device_sim_new (GML_SCENARIO_SIM_CAPACITY, 0);
  sc = gml_scenario_new (name, device, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sc);
  g_assert_cmpuint (device->in_use, ==, 0);   /* everything given back */
  return sc;
}

/* The first step whose state holds a block labelled @label. */
static gint
step_with_label (GmlScenario *sc,
                 const char  *label,
                 guint64     *requested)
{
  for (guint s = 0; s < gml_scenario_get_n_steps (sc); s++)
    {
      g_autoptr(GmlMemState) state = gml_scenario_state_at (sc, s);
      guint64 r = gml_mem_state_requested_by_label (state, label);

      if (r > 0)
        {
          *requested = r;
          return s;
        }
    }
  return -1;
}

static void
test_steps_match_engine (void)
{
  const char * const *names = gml_scenario_names ();

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(GmlScenario) sc = run (names[i]);

      g_assert_cmpuint (gml_scenario_get_n_steps (sc), >=, 3);
      g_assert_cmpuint (gml_scenario_get_focus_step (sc), <, gml_scenario_get_n_steps (sc));
      for (guint s = 0; s < gml_scenario_get_n_steps (sc); s++)
        {
          const GmlScenarioStep *step = gml_scenario_get_step (sc, s);
          g_autoptr(GmlMemState) state = gml_scenario_state_at (sc, s);
          const GmlStats *stats = gml_mem_state_get_stats (state);
          g_autoptr(GError) error = NULL;

          g_assert_nonnull (step->caption);
          g_assert_true (gml_mem_state_check (state, &error));
          g_assert_no_error (error);
          /* Rebuilding a step from the trace gives the figures recorded while running. */
          g_assert_cmpint (stats->allocated_bytes[GML_STAT_ALL].current, ==,
                           step->stats.allocated_bytes[GML_STAT_ALL].current);
          g_assert_cmpint (stats->reserved_bytes[GML_STAT_ALL].current, ==,
                           step->stats.reserved_bytes[GML_STAT_ALL].current);
          g_assert_cmpuint (gml_mem_state_get_largest_free_block (state), ==, step->largest_free);
        }
    }
}

static void
test_batch_size (void)
{
  g_autoptr(GmlScenario) sc = run ("batch-size");
  guint64 small = 0, large = 0;
  gint s32 = step_with_label (sc, "b32.layer1.out", &small);
  gint s128 = step_with_label (sc, "b128.layer1.out", &large);
  g_autoptr(GmlMemState) at32 = NULL;
  g_autoptr(GmlMemState) at128 = NULL;

  g_assert_cmpint (s32, >, 0);
  g_assert_cmpint (s128, >, s32);
  g_assert_cmpuint (large, ==, 4 * small);

  /* Weights unchanged between the two batches. */
  at32 = gml_scenario_state_at (sc, s32);
  at128 = gml_scenario_state_at (sc, gml_scenario_get_n_steps (sc) - 1);
  g_assert_cmpuint (gml_mem_state_allocated_by_category (at32, GML_CATEGORY_WEIGHTS), >, 0);
  g_assert_cmpuint (gml_mem_state_allocated_by_category (at32, GML_CATEGORY_WEIGHTS), ==,
                    gml_mem_state_allocated_by_category (at128, GML_CATEGORY_WEIGHTS));
}

static void
test_precision (void)
{
  g_autoptr(GmlScenario) sc = run ("precision");
  guint64 fp32 = 0, bf16 = 0, fp32_act = 0, bf16_act = 0;

  g_assert_cmpint (step_with_label (sc, "fp32.layer1.weight", &fp32), >, 0);
  g_assert_cmpint (step_with_label (sc, "bf16.layer1.weight", &bf16), >, 0);
  g_assert_cmpint (step_with_label (sc, "fp32.layer1.out", &fp32_act), >, 0);
  g_assert_cmpint (step_with_label (sc, "bf16.layer1.out", &bf16_act), >, 0);
  g_assert_cmpuint (fp32, ==, 2 * bf16);
  g_assert_cmpuint (fp32_act, ==, 2 * bf16_act);
}

typedef struct
{
  guint segments_with_live;
  guint inactive_pieces;
} SegCount;

static void
count_cb (const GmlSegmentInfo *segment,
          const GmlBlockInfo   *block,
          gpointer              user_data)
{
  SegCount *c = user_data;

  if (block->state == GML_BLOCK_FREE && segment->active_bytes > 0)
    c->inactive_pieces++;
}

static void
test_empty_cache (void)
{
  g_autoptr(GmlScenario) sc = run ("empty-cache");
  gint emptied = -1;
  guint n_oom = 0;

  for (guint s = 0; s < gml_scenario_get_n_steps (sc); s++)
    {
      if (gml_scenario_get_step (sc, s)->empty_cache)
        emptied = s;
      if (gml_scenario_get_step (sc, s)->oom)
        n_oom++;
    }
  g_assert_cmpint (emptied, >, 1);
  /* The same request fails before and after empty_cache(). */
  g_assert_cmpuint (n_oom, ==, 2);
  g_assert_true (gml_scenario_get_step (sc, gml_scenario_get_n_steps (sc) - 1)->oom);

  {
    const GmlScenarioStep *before = gml_scenario_get_step (sc, emptied - 1);
    const GmlScenarioStep *after = gml_scenario_get_step (sc, emptied);
    g_autoptr(GmlMemState) state = gml_scenario_state_at (sc, emptied);
    SegCount c = { 0 };

    /* Allocated had dropped while reserved stayed; empty_cache lowers reserved only. */
    g_assert_cmpint (before->stats.allocated_bytes[GML_STAT_ALL].current, <,
                     before->stats.reserved_bytes[GML_STAT_ALL].current);
    g_assert_cmpint (after->stats.reserved_bytes[GML_STAT_ALL].current, <,
                     before->stats.reserved_bytes[GML_STAT_ALL].current);
    g_assert_cmpint (after->stats.allocated_bytes[GML_STAT_ALL].current, ==,
                     before->stats.allocated_bytes[GML_STAT_ALL].current);
    /* A segment with a live block stays, with its free piece. */
    gml_mem_state_foreach_block (state, count_cb, &c);
    g_assert_cmpuint (c.inactive_pieces, >=, 1);
    g_assert_cmpuint (gml_mem_state_requested_by_label (state, "loss"), >, 0);
  }
}

static void
test_fragmentation (void)
{
  g_autoptr(GmlScenario) sc = run ("fragmentation");
  guint64 request = 0;
  guint step = 0;
  const GmlScenarioStep *s;
  guint64 total_free;

  g_assert_true (gml_scenario_get_failed_request (sc, &request, &step));
  s = gml_scenario_get_step (sc, step);
  g_assert_true (s->oom);
  g_assert_cmpuint (s->request, ==, request);
  total_free = s->stats.reserved_bytes[GML_STAT_ALL].current - s->stats.allocated_bytes[GML_STAT_ALL].current;
  g_assert_cmpuint (request, <, total_free);
  g_assert_cmpuint (request, >, s->largest_free);
}

static void
test_oom (void)
{
  g_autoptr(GmlScenario) sc = run ("oom");
  const GmlScenarioStep *last = gml_scenario_get_step (sc, gml_scenario_get_n_steps (sc) - 1);

  g_assert_true (last->oom);
  g_assert_nonnull (last->oom_message);
  g_assert_true (g_str_has_prefix (last->oom_message, "CUDA out of memory."));
  g_assert_cmpuint (gml_scenario_get_focus_step (sc), ==, gml_scenario_get_n_steps (sc) - 1);
}

static void
test_checkpointing (void)
{
  g_autoptr(GmlScenario) sc = run ("checkpointing");
  const GmlCheckpointStrategy *none, *every, *sqrtn;

  g_assert_cmpuint (gml_scenario_get_n_strategies (sc), ==, 3);
  none = gml_scenario_get_strategy (sc, 0);
  every = gml_scenario_get_strategy (sc, 1);
  sqrtn = gml_scenario_get_strategy (sc, 2);

  g_assert_cmpuint (none->n_recomputed, ==, 0);
  g_assert_cmpuint (none->n_stored, ==, gml_scenario_get_n_layers (sc));
  g_assert_cmpfloat (none->extra_compute, ==, 0.0);
  /* Less stored, more recomputed, lower peak. */
  g_assert_cmpuint (every->n_stored, <, none->n_stored);
  g_assert_cmpuint (sqrtn->n_stored, <, every->n_stored);
  g_assert_cmpuint (sqrtn->n_recomputed, >, every->n_recomputed);
  g_assert_cmpuint (every->peak_bytes, <, none->peak_bytes);
  g_assert_cmpuint (sqrtn->peak_bytes, <, every->peak_bytes);
  g_assert_cmpfloat (sqrtn->extra_compute, >, every->extra_compute);

  /* Each series has one sample per step of its run, and its peak is the series' peak. */
  for (guint i = 0; i < 3; i++)
    {
      const GmlCheckpointStrategy *st = gml_scenario_get_strategy (sc, i);
      guint64 max = 0;

      g_assert_cmpuint (st->stored->len, ==, st->last_step - st->first_step + 1);
      for (guint k = 0; k < st->stored->len; k++)
        max = MAX (max,
                   g_array_index (st->other, guint64, k) + g_array_index (st->stored, guint64, k)
                        + g_array_index (st->recomputed, guint64, k));
      g_assert_cmpuint (max, ==, st->peak_bytes);
    }
}

/* Each scenario opens on the view that shows its lesson, and offers the
 * fragmentation view only where free space is the point. */
static void
test_views (void)
{
  static const struct
  {
    const char *name;
    GmlView     focus;
    gboolean    fragmentation;
  } expected[] = {
    { "oom", GML_VIEW_MEMORY_MAP, FALSE },
    { "batch-size", GML_VIEW_MEMORY_MAP, FALSE },
    { "empty-cache", GML_VIEW_TIMELINE, TRUE },
    { "precision", GML_VIEW_MEMORY_MAP, FALSE },
    { "checkpointing", GML_VIEW_CHECKPOINTING, FALSE },
    { "fragmentation", GML_VIEW_FRAGMENTATION, TRUE },
  };
  const char * const *names = gml_scenario_names ();

  g_assert_cmpuint (g_strv_length ((char **) names), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autoptr(GmlScenario) sc = NULL;

      g_assert_cmpstr (names[i], ==, expected[i].name);
      g_assert_cmpint (gml_scenario_focus_view (names[i]), ==, expected[i].focus);
      g_assert_nonnull (gml_scenario_title (names[i]));
      sc = run (names[i]);
      g_assert_cmpint (gml_scenario_get_focus_view (sc), ==, expected[i].focus);
      g_assert_cmpstr (gml_scenario_get_title (sc), ==, gml_scenario_title (names[i]));
      g_assert_cmpint (gml_scenario_has_view (sc, GML_VIEW_FRAGMENTATION), ==,
                       expected[i].fragmentation);
    }
  g_assert_null (gml_scenario_title ("no-such"));
}

static void
test_unknown (void)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (GML_SCENARIO_SIM_CAPACITY, 0);
  g_autoptr(GError) error = NULL;
  GmlScenario *sc = gml_scenario_new ("no-such", device, &error);

  g_assert_null (sc);
  g_assert_error (error, GML_SCENARIO_ERROR, GML_SCENARIO_ERROR_UNKNOWN);
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/scenario/steps-match-engine", test_steps_match_engine);
  g_test_add_func ("/scenario/batch-size", test_batch_size);
  g_test_add_func ("/scenario/precision", test_precision);
  g_test_add_func ("/scenario/empty-cache", test_empty_cache);
  g_test_add_func ("/scenario/fragmentation", test_fragmentation);
  g_test_add_func ("/scenario/oom", test_oom);
  g_test_add_func ("/scenario/checkpointing", test_checkpointing);
  g_test_add_func ("/scenario/views", test_views);
  g_test_add_func ("/scenario/unknown", test_unknown);

  return g_test_run ();
}

/* gml-scenario.c — scripted teaching runs that drive the allocator.
 *
 * Every figure a scenario shows comes from the allocator it drives: the sizes
 * a script asks for, never what it expects to get. This file holds what a run
 * leaves behind (its runs, steps, bars, marks and key figures) and how the
 * pictures read it back; the toolkit a script drives the allocator with is in
 * gml-script.c, the six named scenarios' stories in gml-scenario-stories.c.
 * Which scenarios there are, with their titles and views, is one table: the
 * kinds of picture script in gml-picture-scripts.c, where the six are the kinds
 * with a story; gml-picture-script.c runs them (gml_scenario_new(),
 * gml_scenario_new_picture_script()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-scenario"

#include "config.h"

#include <string.h>

#include "gml-scenario-private.h"

static const char * const view_names[GML_N_VIEWS] = {
  "memory-map", "fragmentation", "timeline", "checkpointing", "comparison"
};

G_DEFINE_QUARK (gml-scenario-error-quark, gml_scenario_error)

const char *
gml_view_to_string (GmlView view)
{
  g_return_val_if_fail (view < GML_N_VIEWS, NULL);
  return view_names[view];
}

gboolean
gml_view_from_string (const char *str,
                      GmlView    *view)
{
  for (guint i = 0; i < GML_N_VIEWS; i++)
    if (g_strcmp0 (str, view_names[i]) == 0)
      {
        *view = i;
        return TRUE;
      }
  return FALSE;
}

/* ------------------------------------------------------------------------- */
/* Runs, and what the scenario owns                                          */

static void
run_free_func (gpointer data)
{
  GmlScenarioRun *run = data;

  g_clear_pointer (&run->live, g_array_unref);
  g_clear_pointer (&run->allocator, gml_allocator_destroy);
  g_clear_pointer (&run->arena, gml_device_destroy);
  g_free (run->name);
  g_free (run);
}

/* Frees the run's live tensors and empties its cache: its trace stays, its device
 * memory goes back. */
void
_gml_scenario_release_run (GmlScenarioRun *run)
{
  if (run == NULL || run->live == NULL)
    return;
  for (guint i = 0; i < run->live->len; i++)
    if (g_array_index (run->live, gint32, i) > 0)
      gml_allocator_free (run->allocator, g_array_index (run->live, gint32, i) - 1, NULL);
  g_clear_pointer (&run->live, g_array_unref);
  gml_allocator_empty_cache (run->allocator);
}

static void
strategy_free (gpointer data)
{
  GmlCheckpointStrategy *s = data;

  g_free (s->name);
  g_array_unref (s->other);
  g_array_unref (s->stored);
  g_array_unref (s->recomputed);
  g_array_unref (s->layer_live);
  g_array_unref (s->layer_recomputed);
  g_free (s);
}

static void
step_clear (gpointer data)
{
  GmlScenarioStep *step = data;

  g_free (step->caption);
  g_free (step->oom_message);
}

static void
bar_free (gpointer data)
{
  GmlBar *bar = data;

  g_free (bar->label);
  g_free (bar);
}

static void
mark_clear (gpointer data)
{
  GmlMark *mark = data;

  g_free (mark->label);
  g_free (mark->text);
}

static void
key_clear (gpointer data)
{
  g_free (((GmlKeyFigure *) data)->name);
}

/* A scenario with nothing run yet, and the script's bookkeeping for it. */
GmlScenario *
_gml_scenario_create (const char *name,
                      GmlDevice  *device,
                      GmlScript  *r)
{
  GmlScenario *sc = g_new0 (GmlScenario, 1);

  sc->name = g_strdup (name);
  sc->device = gml_device_ref (device);
  sc->runs = g_ptr_array_new_with_free_func (run_free_func);
  sc->steps = g_array_new (FALSE, TRUE, sizeof (GmlScenarioStep));
  g_array_set_clear_func (sc->steps, step_clear);
  sc->strategies = g_ptr_array_new_with_free_func (strategy_free);
  sc->bars = g_ptr_array_new_with_free_func (bar_free);
  sc->marks = g_array_new (FALSE, TRUE, sizeof (GmlMark));
  g_array_set_clear_func (sc->marks, mark_clear);
  sc->keys = g_array_new (FALSE, TRUE, sizeof (GmlKeyFigure));
  g_array_set_clear_func (sc->keys, key_clear);
  sc->device_name = g_strdup (gml_device_get_name (device));
  sc->focus_category = GML_CATEGORY_NONE;
  sc->setup_view = GML_N_VIEWS;
  sc->scale = 1;
  /* Every scenario has a memory map and a timeline; the rest say when they apply. */
  sc->views = (1u << GML_VIEW_MEMORY_MAP) | (1u << GML_VIEW_TIMELINE);

  memset (r, 0, sizeof *r);
  r->sc = sc;
  /* A worker that runs a script pushes its task's cancellable (see
   * gml_scenario_new_picture_script_async()): a cancelled script stops within a
   * thousand allocations, wherever in its loops it is. */
  r->cancellable = g_cancellable_get_current ();
  r->strategy = -1;
  return sc;
}

/* Gives the device everything back (the pictures only need the traces) and checks
 * the result. Frees @sc on failure. */
GmlScenario *
_gml_scenario_finish (GmlScenario  *sc,
                      GmlScript    *r,
                      GError      **error)
{
  for (guint i = 0; i < sc->runs->len; i++)
    _gml_scenario_release_run (g_ptr_array_index (sc->runs, i));
  r->live = NULL;
  g_free (r->oom_message);

  if (g_error_matches (r->fatal, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_propagate_error (error, r->fatal);
      gml_scenario_free (sc);
      return NULL;
    }
  if (r->fatal != NULL)
    {
      g_set_error (error, GML_SCENARIO_ERROR, GML_SCENARIO_ERROR_DEVICE, "%s", r->fatal->message);
      g_error_free (r->fatal);
      gml_scenario_free (sc);
      return NULL;
    }
  if (sc->steps->len == 0)
    {
      g_set_error (error, GML_SCENARIO_ERROR, GML_SCENARIO_ERROR_UNKNOWN,
                   "Scenario %s has no steps", sc->name);
      gml_scenario_free (sc);
      return NULL;
    }
  if (sc->n_layers > 0 && sc->strategies->len > 0)
    sc->views |= 1u << GML_VIEW_CHECKPOINTING;
  sc->focus_step = MIN (sc->focus_step, sc->steps->len - 1);
  sc->setup_step = MIN (sc->setup_step, sc->focus_step);
  return sc;
}

void
gml_scenario_free (GmlScenario *self)
{
  if (self == NULL)
    return;
  /* The runs' allocators give their segments back to the device first. */
  g_clear_pointer (&self->runs, g_ptr_array_unref);
  g_clear_pointer (&self->device, gml_device_unref);
  g_clear_pointer (&self->owned_device, gml_device_unref);
  g_clear_pointer (&self->steps, g_array_unref);
  g_clear_pointer (&self->strategies, g_ptr_array_unref);
  g_clear_pointer (&self->bars, g_ptr_array_unref);
  g_clear_pointer (&self->marks, g_array_unref);
  g_clear_pointer (&self->keys, g_array_unref);
  g_free (self->bar_unit);
  g_free (self->device_name);
  g_free (self->title);
  g_free (self->name);
  g_free (self);
}

const char *
gml_scenario_get_name (GmlScenario *self)
{
  return self->name;
}

const char *
gml_scenario_get_title (GmlScenario *self)
{
  return self->title;
}

guint
gml_scenario_get_n_steps (GmlScenario *self)
{
  return self->steps->len;
}

const GmlScenarioStep *
gml_scenario_get_step (GmlScenario *self,
                       guint        step)
{
  g_return_val_if_fail (step < self->steps->len, NULL);
  return &g_array_index (self->steps, GmlScenarioStep, step);
}

guint
gml_scenario_get_focus_step (GmlScenario *self)
{
  return self->focus_step;
}

guint
gml_scenario_get_setup_step (GmlScenario *self)
{
  return self->setup_step;
}

GmlView
gml_scenario_get_focus_view (GmlScenario *self)
{
  return self->focus_view;
}

GmlView
gml_scenario_get_setup_view (GmlScenario *self)
{
  return self->setup_view < GML_N_VIEWS && gml_scenario_has_view (self, self->setup_view)
         ? self->setup_view : self->focus_view;
}

gboolean
gml_scenario_has_view (GmlScenario *self,
                       GmlView      view)
{
  return view < GML_N_VIEWS && (self->views & (1u << view)) != 0;
}

GmlCategory
gml_scenario_get_focus_category (GmlScenario *self)
{
  return self->focus_category;
}

static GmlScenarioRun *
get_run (GmlScenario *self,
         guint        run)
{
  g_return_val_if_fail (run < self->runs->len, NULL);
  return g_ptr_array_index (self->runs, run);
}

GmlTrace *
gml_scenario_get_trace (GmlScenario *self)
{
  return gml_allocator_get_trace (get_run (self, 0)->allocator);
}

guint
gml_scenario_get_n_runs (GmlScenario *self)
{
  return self->runs->len;
}

const char *
gml_scenario_get_run_name (GmlScenario *self,
                           guint        run)
{
  return get_run (self, run)->name;
}

guint64
gml_scenario_get_run_capacity (GmlScenario *self,
                               guint        run)
{
  return get_run (self, run)->capacity;
}

guint64
gml_scenario_get_run_other_in_use (GmlScenario *self,
                                   guint        run)
{
  return get_run (self, run)->other_in_use;
}

GmlMemState *
gml_scenario_state_at (GmlScenario *self,
                       guint        step)
{
  const GmlScenarioStep *s;

  g_return_val_if_fail (step < self->steps->len, NULL);
  s = gml_scenario_get_step (self, step);
  return gml_trace_state_at (gml_allocator_get_trace (get_run (self, s->run)->allocator),
                             s->n_events);
}

void
gml_scenario_state_at_into (GmlScenario *self,
                            guint        step,
                            GmlMemState *dest)
{
  const GmlScenarioStep *s;

  g_return_if_fail (step < self->steps->len);
  s = gml_scenario_get_step (self, step);
  gml_trace_state_at_into (gml_allocator_get_trace (get_run (self, s->run)->allocator),
                           s->n_events, dest);
}

guint64
gml_scenario_get_capacity (GmlScenario *self)
{
  return get_run (self, 0)->capacity;
}

guint64
gml_scenario_get_other_in_use (GmlScenario *self)
{
  return get_run (self, 0)->other_in_use;
}

const char *
gml_scenario_get_device_name (GmlScenario *self)
{
  return self->device_name;
}

gboolean
gml_scenario_get_failed_request (GmlScenario *self,
                                 guint64     *size,
                                 guint       *step)
{
  if (size)
    *size = self->failed_request;
  if (step)
    *step = self->failed_step;
  return self->has_failed_request;
}

guint
gml_scenario_get_n_bars (GmlScenario *self)
{
  return self->bars->len;
}

const GmlBar *
gml_scenario_get_bar (GmlScenario *self,
                      guint        index)
{
  g_return_val_if_fail (index < self->bars->len, NULL);
  return g_ptr_array_index (self->bars, index);
}

const char *
gml_scenario_get_bar_note (GmlScenario *self)
{
  return self->bar_unit;
}

guint64
gml_scenario_get_bar_capacity (GmlScenario *self)
{
  return self->bar_capacity;
}

guint
gml_scenario_get_n_marks (GmlScenario *self)
{
  return self->marks->len;
}

const GmlMark *
gml_scenario_get_mark (GmlScenario *self,
                       guint        index)
{
  g_return_val_if_fail (index < self->marks->len, NULL);
  return &g_array_index (self->marks, GmlMark, index);
}

guint
gml_scenario_get_n_keys (GmlScenario *self)
{
  return self->keys->len;
}

const GmlKeyFigure *
gml_scenario_get_key (GmlScenario *self,
                      guint        index)
{
  g_return_val_if_fail (index < self->keys->len, NULL);
  return &g_array_index (self->keys, GmlKeyFigure, index);
}

guint64
gml_scenario_get_scale (GmlScenario *self)
{
  return self->scale;
}

char *
gml_scenario_format_size (GmlScenario *self,
                          guint64      bytes)
{
  guint64 real = bytes > G_MAXUINT64 / MAX (self->scale, 1) ? G_MAXUINT64 : bytes * self->scale;

  return self->decimal ? gml_format_size_decimal (real) : gml_format_size_short (real);
}

guint
gml_scenario_get_n_layers (GmlScenario *self)
{
  return self->n_layers;
}

guint64
gml_scenario_get_layer_bytes (GmlScenario *self)
{
  return self->layer_bytes;
}

guint
gml_scenario_get_n_strategies (GmlScenario *self)
{
  return self->strategies->len;
}

const GmlCheckpointStrategy *
gml_scenario_get_strategy (GmlScenario *self,
                           guint        index)
{
  g_return_val_if_fail (index < self->strategies->len, NULL);
  return g_ptr_array_index (self->strategies, index);
}

typedef struct
{
  GmlCategory  category;
  const char  *label;
  gboolean     requested;   /* sum the bytes asked for, not the blocks' sizes */
  guint64      sum;
} SumData;

static void
sum_category_cb (const GmlSegmentInfo *segment,
                 const GmlBlockInfo   *block,
                 gpointer              user_data)
{
  SumData *d = user_data;

  if (block->state == GML_BLOCK_ALLOCATED && block->category == d->category)
    d->sum += d->requested ? block->requested_size : block->size;
}

static void
sum_label_cb (const GmlSegmentInfo *segment,
              const GmlBlockInfo   *block,
              gpointer              user_data)
{
  SumData *d = user_data;

  if (block->state == GML_BLOCK_ALLOCATED &&
      (d->label == NULL || g_strcmp0 (block->label, d->label) == 0))
    d->sum += block->requested_size;
}

guint64
gml_mem_state_allocated_by_category (const GmlMemState *state,
                                     GmlCategory        category)
{
  SumData d = { .category = category };

  gml_mem_state_foreach_block (state, sum_category_cb, &d);
  return d.sum;
}

guint64
gml_mem_state_requested_by_label (const GmlMemState *state,
                                  const char        *label)
{
  SumData d = { .label = label };

  gml_mem_state_foreach_block (state, sum_label_cb, &d);
  return d.sum;
}

guint64
_gml_mem_state_requested_by_category (const GmlMemState *state,
                                      GmlCategory        category)
{
  SumData d = { .category = category, .requested = TRUE };

  gml_mem_state_foreach_block (state, sum_category_cb, &d);
  return d.sum;
}

/* gml-scenario.c — teaching experiments that drive the allocator.
 *
 * Every figure a scenario shows comes from the allocator it drives: the sizes
 * below are what the script asks for, never what it expects to get.  Sizes
 * scale with the memory the lab may use (the "arena": the CUDA budget, or the
 * simulated device), so the story is the same on every device: what fails on
 * a 1 GiB budget fails at the same step on a 512 MiB one.
 *
 * This file holds the machinery every script uses (runs, steps, bars, marks)
 * and the stories of the six named scenarios. Which scenarios there are, with
 * their titles and views, is one table: the kinds of experiment in
 * gml-experiment-scripts.c, where the six are the kinds with a story;
 * gml-experiment.c runs them (gml_scenario_new(), gml_scenario_new_experiment()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-scenario"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gml-i18n.h"
#include "gml-scenario-private.h"

#define MiB GML_MiB

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

static guint64
round_down (guint64 value,
            guint64 multiple)
{
  return value / multiple * multiple;
}

static guint64
round_up (guint64 value,
          guint64 multiple)
{
  return (value + multiple - 1) / multiple * multiple;
}

/* ------------------------------------------------------------------------- */
/* Runs and steps                                                            */

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
static void
release_run (GmlScenarioRun *run)
{
  if (run == NULL || run->live == NULL)
    return;
  for (guint i = 0; i < run->live->len; i++)
    if (g_array_index (run->live, gint32, i) > 0)
      gml_allocator_free (run->allocator, g_array_index (run->live, gint32, i) - 1, NULL);
  g_clear_pointer (&run->live, g_array_unref);
  gml_allocator_empty_cache (run->allocator);
}

GmlScenarioRun *
_gml_script_begin_run (GmlScript          *r,
                       char               *name,
                       guint64             capacity,
                       guint64             other_in_use,
                       const GmlAllocConf *conf,
                       gboolean            keep_previous)
{
  GmlScenario *sc = r->sc;
  GmlScenarioRun *run = g_new0 (GmlScenarioRun, 1);
  GmlDevice *device = sc->device;

  /* Unless kept (GPUs side by side), the old run's memory goes back first. */
  if (!keep_previous)
    release_run (r->run);
  if (capacity == GML_SCRIPT_LAB_ARENA)
    capacity = MIN (gml_device_available (sc->device), GML_SCENARIO_SIM_CAPACITY);

  run->name = name;
  if (capacity > 0)
    {
      run->arena = gml_device_arena_new (sc->device, capacity, other_in_use);
      device = run->arena;
      run->capacity = capacity;
      run->other_in_use = other_in_use;
    }
  else
    {
      guint64 free_bytes = 0, total = 0;

      if (!gml_device_mem_get_info (device, &free_bytes, &total, NULL))
        total = 0;
      run->capacity = gml_device_get_budget (device) > 0 ? gml_device_get_budget (device) : total;
      run->other_in_use = device->other_in_use;
    }
  run->allocator = gml_allocator_new (device, conf);
  run->live = g_array_new (FALSE, TRUE, sizeof (gint32));
  g_ptr_array_add (sc->runs, run);
  r->run = run;
  r->live = run->live;
  r->peak = 0;
  return run;
}

GmlScenarioRun *
_gml_script_begin_sim_run (GmlScript          *r,
                           char               *name,
                           guint64             capacity,
                           const GmlAllocConf *conf)
{
  GmlScenarioRun *run = g_new0 (GmlScenarioRun, 1);

  release_run (r->run);
  run->name = name;
  run->arena = gml_device_sim_new (capacity, 0);
  run->capacity = capacity;
  run->allocator = gml_allocator_new (run->arena, conf);
  run->live = g_array_new (FALSE, TRUE, sizeof (gint32));
  g_ptr_array_add (r->sc->runs, run);
  r->run = run;
  r->live = run->live;
  r->peak = 0;
  return run;
}

const GmlStats *
_gml_script_stats (GmlScript *r)
{
  return gml_allocator_get_stats (r->run->allocator);
}

const GmlMemState *
_gml_script_state (GmlScript *r)
{
  return gml_allocator_get_state (r->run->allocator);
}

/* What the device could still give the allocator, within the lab's budget. */
guint64
_gml_script_device_free (GmlScript *r)
{
  GmlDevice *device = gml_allocator_get_device (r->run->allocator);
  guint64 free_bytes = 0, total = 0;
  guint64 budget = gml_device_get_budget (device);
  guint64 reserved = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current;

  if (!gml_device_mem_get_info (device, &free_bytes, &total, NULL))
    free_bytes = 0;
  if (budget > 0)
    free_bytes = MIN (free_bytes, budget > reserved ? budget - reserved : 0);
  return free_bytes;
}

/* The block the live tensor @label is in, or -1: one look-up, by the label's
 * id in the run's trace. */
static gint32
live_block (GmlScript  *r,
            const char *label)
{
  guint32 id;

  if (!_gml_script_find_label (r, label, &id) || id >= r->live->len)
    return -1;
  return g_array_index (r->live, gint32, id) - 1;
}

/* Allocates a named tensor. FALSE when it did not fit (the step records the
 * out of memory) or when the device failed otherwise (r->fatal). */
gboolean
_gml_script_alloc_on (GmlScript   *r,
                      guint32      stream,
                      const char  *label,
                      GmlCategory  category,
                      guint64      size)
{
  if (r->fatal != NULL)
    return FALSE;
  return _gml_script_alloc_labelled (r, stream,
                                     _gml_script_label_id (r, label), category, size);
}

/* The id of @label in the current run's trace, interned if it was not. */
guint32
_gml_script_label_id (GmlScript  *r,
                      const char *label)
{
  return gml_trace_intern_label (gml_allocator_get_trace (r->run->allocator), label);
}

/* The id of @label in the current run's trace, without interning it: FALSE
 * when no tensor was ever given that name. */
gboolean
_gml_script_find_label (GmlScript  *r,
                        const char *label,
                        guint32    *id)
{
  return gml_trace_find_label (gml_allocator_get_trace (r->run->allocator), label, id);
}

/* _gml_script_alloc_on() with the label's id (_gml_script_label_id()). */
gboolean
_gml_script_alloc_labelled (GmlScript   *r,
                            guint32      stream,
                            guint32      label_id,
                            GmlCategory  category,
                            guint64      size)
{
  g_autoptr(GError) error = NULL;
  gint32 id = -1;

  if (r->fatal != NULL)
    return FALSE;
  if (r->cancellable != NULL && ++r->since_check >= 1024)
    {
      r->since_check = 0;
      if (g_cancellable_set_error_if_cancelled (r->cancellable, &r->fatal))
        return FALSE;
    }

  r->last_request = size;
  if (!gml_allocator_malloc_labelled (r->run->allocator, size, stream, label_id, category, &id,
                                      &error))
    {
      if (g_error_matches (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY))
        {
          r->oom = TRUE;
          g_free (r->oom_message);
          r->oom_message = g_strdup (error->message);
        }
      else
        r->fatal = g_steal_pointer (&error);
      return FALSE;
    }

  /* A label allocated again while live names the new tensor, as before; the
   * old one stays allocated, unnamed. */
  if (label_id >= r->live->len)
    g_array_set_size (r->live, MAX (label_id + 1, 2 * r->live->len));
  g_array_index (r->live, gint32, label_id) = id + 1;
  r->peak = MAX (r->peak, (guint64) _gml_script_stats (r)->allocated_bytes[GML_STAT_ALL].current);
  return TRUE;
}

gboolean
_gml_script_alloc (GmlScript   *r,
                   const char  *label,
                   GmlCategory  category,
                   guint64      size)
{
  return _gml_script_alloc_on (r, 0, label, category, size);
}

gboolean
_gml_script_is_live (GmlScript  *r,
                     const char *label)
{
  return live_block (r, label) >= 0;
}

/* Frees the live tensor @label; with @info, what it was first. FALSE when no
 * tensor of that name is live (nothing done). */
gboolean
_gml_script_free_info (GmlScript    *r,
                       const char   *label,
                       GmlBlockInfo *info)
{
  guint32 id;

  if (r->fatal != NULL || !_gml_script_find_label (r, label, &id))
    return FALSE;
  return _gml_script_free_labelled (r, id, info);
}

/* _gml_script_free_info() with the label's id. */
gboolean
_gml_script_free_labelled (GmlScript    *r,
                           guint32       id,
                           GmlBlockInfo *info)
{
  g_autoptr(GError) error = NULL;
  gint32 block;

  if (r->fatal != NULL || id >= r->live->len || g_array_index (r->live, gint32, id) == 0)
    return FALSE;
  block = g_array_index (r->live, gint32, id) - 1;
  g_array_index (r->live, gint32, id) = 0;
  if (info != NULL && !gml_mem_state_get_block_info (_gml_script_state (r), block, info))
    memset (info, 0, sizeof *info);
  if (!gml_allocator_free (r->run->allocator, block, &error))
    r->fatal = g_steal_pointer (&error);
  return TRUE;
}

void
_gml_script_free (GmlScript  *r,
                  const char *label)
{
  _gml_script_free_info (r, label, NULL);
}

/* tensor.record_stream(): the live tensor @label is used on @stream too, so
 * freeing it leaves its block pending until that stream's work is done. */
void
_gml_script_record_stream (GmlScript  *r,
                           const char *label,
                           guint32     stream)
{
  g_autoptr(GError) error = NULL;
  gint32 block;

  if (r->fatal != NULL || (block = live_block (r, label)) < 0)
    return;
  if (!gml_allocator_record_stream (r->run->allocator, block, stream, &error))
    r->fatal = g_steal_pointer (&error);
}

/* The work queued on @stream is done (an event the allocator recorded has
 * completed): its pending blocks go back to the pool at the next request. */
void
_gml_script_synchronize (GmlScript *r,
                         guint32    stream)
{
  if (r->fatal != NULL)
    return;
  gml_allocator_synchronize (r->run->allocator, FALSE, stream);
}

void
_gml_script_empty_cache (GmlScript *r)
{
  if (r->fatal != NULL)
    return;
  gml_allocator_empty_cache (r->run->allocator);
  r->emptied = TRUE;
}

gboolean
_gml_script_block (GmlScript    *r,
                   const char   *label,
                   GmlBlockInfo *info)
{
  gint32 block = live_block (r, label);

  if (block < 0)
    return FALSE;
  return gml_mem_state_get_block_info (_gml_script_state (r), block, info);
}

guint64
_gml_script_segment_of (GmlScript  *r,
                        const char *label)
{
  GmlBlockInfo info;
  const GmlMemState *state = _gml_script_state (r);

  if (!_gml_script_block (r, label, &info))
    return 0;
  for (guint i = 0; i < gml_mem_state_get_n_segment_slots (state); i++)
    {
      const GmlSegment *seg = gml_mem_state_get_segment (state, i);

      if (seg != NULL && info.address >= seg->address &&
          info.address < seg->address + seg->size)
        return seg->size;
    }
  return 0;
}

/* Closes a step: where the trace is, and the engine's figures there. */
void
_gml_script_end_step (GmlScript *r,
                      char      *caption)
{
  GmlScenarioStep step = { 0 };
  const GmlMemState *state = _gml_script_state (r);

  step.caption = caption;
  step.n_events = gml_trace_get_n_events (gml_allocator_get_trace (r->run->allocator));
  step.oom = r->oom;
  step.empty_cache = r->emptied;
  step.request = r->last_request;
  step.oom_message = g_steal_pointer (&r->oom_message);
  step.stats = *_gml_script_stats (r);
  step.largest_free = gml_mem_state_get_largest_free_block (state);
  step.device_free = _gml_script_device_free (r);
  step.strategy = r->strategy;
  step.run = r->sc->runs->len - 1;
  g_array_append_val (r->sc->steps, step);

  if (step.oom && !r->sc->has_failed_request)
    {
      r->sc->has_failed_request = TRUE;
      r->sc->failed_request = step.request;
      r->sc->failed_step = r->sc->steps->len - 1;
    }

  r->oom = FALSE;
  r->emptied = FALSE;
  r->last_request = 0;
}

guint
_gml_script_last_step (GmlScript *r)
{
  return r->sc->steps->len - 1;
}

void
_gml_script_setup_here (GmlScript *r)
{
  r->sc->setup_step = _gml_script_last_step (r);
}

void
_gml_script_focus_here (GmlScript   *r,
                        GmlView      view,
                        GmlCategory  category)
{
  r->sc->focus_step = _gml_script_last_step (r);
  r->sc->focus_view = view;
  r->sc->focus_category = category;
}

void
_gml_script_mark (GmlScript  *r,
                  const char *label,
                  gboolean    segment,
                  char       *text)
{
  GmlMark mark = { g_strdup (label), 0, segment, text };

  g_array_append_val (r->sc->marks, mark);
}

void
_gml_script_mark_at (GmlScript *r,
                     guint64    address,
                     gboolean   segment,
                     char      *text)
{
  GmlMark mark = { NULL, address, segment, text };

  g_array_append_val (r->sc->marks, mark);
}

void
_gml_script_set_caption (GmlScript *r,
                         guint      step,
                         char      *caption)
{
  GmlScenarioStep *s;

  g_return_if_fail (step < r->sc->steps->len);
  s = &g_array_index (r->sc->steps, GmlScenarioStep, step);
  g_free (s->caption);
  s->caption = caption;
}

void
_gml_script_key (GmlScript  *r,
                 const char *name,
                 guint64     bytes)
{
  GmlKeyFigure key = { g_strdup (name), bytes * r->sc->scale };

  g_array_append_val (r->sc->keys, key);
}

GmlBar *
_gml_script_bar (GmlScript *r,
                 char      *label)
{
  GmlBar *bar = g_new0 (GmlBar, 1);

  bar->label = label;
  bar->step = _gml_script_last_step (r);
  bar->until = G_MAXUINT;
  g_ptr_array_add (r->sc->bars, bar);
  r->sc->views |= 1u << GML_VIEW_COMPARISON;
  return bar;
}

typedef struct
{
  GmlCategory category;
  guint64     sum;
} RequestedSum;

static void
requested_cb (const GmlSegmentInfo *segment,
              const GmlBlockInfo   *block,
              gpointer              user_data)
{
  RequestedSum *d = user_data;

  if (block->state == GML_BLOCK_ALLOCATED && block->category == d->category)
    d->sum += block->requested_size;
}

guint64
_gml_mem_state_requested_by_category (const GmlMemState *state,
                                      GmlCategory        category)
{
  RequestedSum d = { category, 0 };

  gml_mem_state_foreach_block (state, requested_cb, &d);
  return d.sum;
}

static void
measure_state (const GmlMemState *state,
               GmlBar            *bar,
               gboolean           requested)
{
  const GmlStats *st = gml_mem_state_get_stats (state);
  guint64 allocated = 0;

  for (guint c = 0; c < GML_N_CATEGORIES; c++)
    {
      bar->parts[c] = requested ? _gml_mem_state_requested_by_category (state, c)
                                : gml_mem_state_allocated_by_category (state, c);
      allocated += bar->parts[c];
    }
  if (!requested)
    bar->parts[GML_BAR_CACHED] = st->reserved_bytes[GML_STAT_ALL].current - allocated;
}

void
_gml_script_bar_measure (GmlScript *r,
                         GmlBar    *bar,
                         gboolean   requested)
{
  measure_state (_gml_script_state (r), bar, requested);
}

GmlBar *
_gml_script_bar_at_step (GmlScript *r,
                         char      *label,
                         guint      step,
                         gboolean   requested)
{
  GmlBar *bar = _gml_script_bar (r, label);
  g_autoptr(GmlMemState) state = gml_scenario_state_at (r->sc, step);

  bar->step = step;
  measure_state (state, bar, requested);
  return bar;
}

char *
_gml_script_size (GmlScript *r,
                  guint64    engine_bytes)
{
  return gml_scenario_format_size (r->sc, engine_bytes);
}

char *
_gml_script_scale_note (GmlScript *r)
{
  g_autofree char *scale = NULL;

  if (r->sc->scale <= 1)
    return NULL;
  scale = g_strdup_printf ("%" G_GUINT64_FORMAT, r->sc->scale);
  /* Translators: both %s are a number such as 64: the experiment ran 64 times smaller. */
  return g_strdup_printf (_("The lab ran this at 1:%s scale: the figures in this sentence and in "
                            "the bars are the engine’s × %s; the memory map shows the engine’s "
                            "own."), scale, scale);
}

/* The arena's unit: 1/32 of it, in whole 2 MiB pages (32 MiB on a 1 GiB budget). */
static guint64
arena_unit (GmlScript *r)
{
  return MAX (round_down (r->run->capacity / 32, 2 * MiB), 2 * MiB);
}

/* ------------------------------------------------------------------------- */
/* The scripts                                                               */

void
_gml_script_oom (GmlScript *r)
{
  guint64 unit = arena_unit (r);
  guint64 act = 2 * unit;
  g_autofree char *w = gml_format_size_short (4 * unit);
  g_autofree char *o = gml_format_size_short (8 * unit);

  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *label = g_strdup_printf ("layer%u.weight", i);
      _gml_script_alloc (r, label, GML_CATEGORY_WEIGHTS, unit);
    }
  /* Translators: %s is a size such as "128 MiB". */
  _gml_script_end_step (r, g_strdup_printf (_("The model’s weights are loaded: %s."), w));

  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *label = g_strdup_printf ("layer%u.weight.grad", i);
      _gml_script_alloc (r, label, GML_CATEGORY_GRADIENTS, unit);
    }
  _gml_script_end_step (r,
                        g_strdup_printf (_("The backward pass keeps one gradient per weight: %s "
                                           "more."), w));

  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *avg = g_strdup_printf ("adam.exp_avg%u", i);
      g_autofree char *avg_sq = g_strdup_printf ("adam.exp_avg_sq%u", i);
      _gml_script_alloc (r, avg, GML_CATEGORY_OPTIMIZER_STATE, unit);
      _gml_script_alloc (r, avg_sq, GML_CATEGORY_OPTIMIZER_STATE, unit);
    }
  _gml_script_end_step (r,
                        g_strdup_printf (_("Adam keeps two moments for every weight: %s more."),
                                         o));

  /* The forward pass of the next batch stores activations until one does not fit. */
  for (guint i = 1; i <= 64 && r->fatal == NULL; i++)
    {
      g_autofree char *label = g_strdup_printf ("act%u", i);
      g_autofree char *size = gml_format_size_short (act);

      if (_gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, act))
        {
          /* Translators: %u is a layer number, %s a size. */
          _gml_script_end_step (r,
                                g_strdup_printf (_("Forward pass, layer %u: its activations take "
                                                   "%s."),
                                            i, size));
        }
      else
        {
          if (r->fatal == NULL)
            /* Translators: %u is a layer number, %s a size. */
            _gml_script_end_step (r, g_strdup_printf (_("Layer %u’s activations (%s) do not fit: "
                                                "CUDA out of memory."), i, size));
          break;
        }
    }
  r->sc->focus_step = _gml_script_last_step (r);
  r->sc->focus_category = GML_CATEGORY_ACTIVATIONS;
}

void
_gml_script_batch_size (GmlScript *r,
                        guint      from,
                        guint      to,
                        guint64    sizes[2])
{
  guint64 unit = arena_unit (r);
  /* Per example and layer: 5/128 of the unit (1.25 MiB on a 1 GiB arena) at
   * batch 32, so the smaller batch fits beside the weights and one four times
   * larger does not. */
  guint64 per_example = round_up (unit * 5 / (4 * (guint64) MAX (from, 1)), GML_MIN_BLOCK_SIZE);
  const guint n_layers = 8;
  const guint batches[] = { from, to };
  g_autofree char *w = gml_format_size_short (n_layers * unit);

  for (guint i = 1; i <= n_layers; i++)
    {
      g_autofree char *label = g_strdup_printf ("layer%u.weight", i);
      _gml_script_alloc (r, label, GML_CATEGORY_WEIGHTS, unit);
    }
  _gml_script_end_step (r, g_strdup_printf (_("The model’s weights are loaded: %s."), w));

  for (guint b = 0; b < G_N_ELEMENTS (batches) && r->fatal == NULL; b++)
    {
      guint64 size = batches[b] * per_example;
      g_autofree char *size_str = gml_format_size_short (size);

      if (sizes != NULL)
        sizes[b] = size;
      for (guint i = 1; i <= n_layers; i++)
        {
          g_autofree char *label = g_strdup_printf ("b%u.layer%u.out", batches[b], i);

          if (_gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, size))
            /* Translators: batch size, layer number, size. */
            _gml_script_end_step (r,
                                  g_strdup_printf (_("Batch %u, layer %u: the activations take "
                                                     "%s."),
                                              batches[b], i, size_str));
          else
            {
              if (r->fatal == NULL)
                _gml_script_end_step (r,
                                      g_strdup_printf (_("Batch %u, layer %u: %s do not fit — CUDA "
                                                         "out "
                                                    "of memory. The weights did not grow."),
                                                  batches[b], i, size_str));
              break;
            }
        }
      if (b == 0)
        {
          g_autofree char *total = NULL;

          for (guint i = 1; i <= n_layers; i++)
            {
              g_autofree char *label = g_strdup_printf ("b%u.layer%u.out", batches[b], i);
              _gml_script_free (r, label);
            }
          total = gml_format_size_short (n_layers * size);
          /* Translators: %u is a batch size, %s a size. */
          _gml_script_end_step (r,
                                g_strdup_printf (_("The batch-%u activations (%s) are freed; their "
                                                   "segments stay cached."), from, total));
        }
    }
  r->sc->focus_step = _gml_script_last_step (r);
  r->sc->focus_category = GML_CATEGORY_ACTIVATIONS;
}

void
_gml_script_empty_cache_story (GmlScript *r)
{
  guint64 unit = arena_unit (r);
  guint64 request = r->run->capacity - 8 * unit;
  g_autofree char *req = gml_format_size_short (request);
  const GmlStats *st;

  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *label = g_strdup_printf ("layer%u.weight", i);
      _gml_script_alloc (r, label, GML_CATEGORY_WEIGHTS, 2 * unit);
    }
  {
    g_autofree char *w = gml_format_size_short (8 * unit);
    _gml_script_end_step (r, g_strdup_printf (_("The model’s weights are loaded: %s."), w));
  }

  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *label = g_strdup_printf ("act%u", i);
      _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, 4 * unit);
    }
  /* Two small tensors share one 20 MiB segment of the large pool. */
  _gml_script_alloc (r, "loss", GML_CATEGORY_TEMPORARY, 6 * MiB);
  _gml_script_alloc (r, "logits", GML_CATEGORY_TEMPORARY, 6 * MiB);
  {
    g_autofree char *a = gml_format_size_short (16 * unit);
    _gml_script_end_step (r,
                          g_strdup_printf (_("Forward pass: the activations take %s; the loss and "
                                        "the logits share one segment."), a));
  }

  _gml_script_alloc (r, "next_batch", GML_CATEGORY_ACTIVATIONS, request);
  _gml_script_end_step (r,
                        g_strdup_printf (_("The next batch asks for %s: CUDA out of memory."),
                                         req));

  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *label = g_strdup_printf ("act%u", i);
      _gml_script_free (r, label);
    }
  _gml_script_free (r, "logits");
  st = _gml_script_stats (r);
  {
    g_autofree char *a = gml_format_size_short (st->allocated_bytes[GML_STAT_ALL].current);
    g_autofree char *res = gml_format_size_short (st->reserved_bytes[GML_STAT_ALL].current);
    /* Translators: both %s are sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("The activations are freed: allocated drops to %s, "
                                        "reserved stays at %s."), a, res));
  }

  _gml_script_empty_cache (r);
  st = _gml_script_stats (r);
  {
    g_autofree char *res = gml_format_size_short (st->reserved_bytes[GML_STAT_ALL].current);
    _gml_script_end_step (r,
                          g_strdup_printf (_("empty_cache() returns the whole free segments: "
                                             "reserved "
                                        "drops to %s. The segment with the live loss tensor "
                                        "stays, and so do the weights."), res));
  }
  r->sc->focus_step = _gml_script_last_step (r);

  _gml_script_alloc (r, "next_batch", GML_CATEGORY_ACTIVATIONS, request);
  _gml_script_end_step (r,
                        g_strdup_printf (_("The same request for %s fails again: the live tensors "
                                      "still hold their memory."), req));
  r->sc->focus_category = GML_CATEGORY_NONE;
}

void
_gml_script_precision (GmlScript *r)
{
  guint64 unit = arena_unit (r);
  guint64 params = unit / 4;              /* values per weight tensor */
  guint64 values = unit * 3 / 16;         /* values per activation tensor */
  static const struct { const char *dtype; guint bytes; } formats[] = {
    { "fp32", 4 }, { "bf16", 2 }
  };

  for (guint f = 0; f < G_N_ELEMENTS (formats) && r->fatal == NULL; f++)
    {
      g_autofree char *w = gml_format_size_short (4 * params * formats[f].bytes);
      g_autofree char *a = gml_format_size_short (4 * values * formats[f].bytes);

      for (guint i = 1; i <= 4; i++)
        {
          g_autofree char *label = g_strdup_printf ("%s.layer%u.weight", formats[f].dtype, i);
          _gml_script_alloc (r, label, GML_CATEGORY_WEIGHTS, params * formats[f].bytes);
        }
      /* Translators: %s is fp32 or bf16, %u bytes per value, the last %s a size. */
      _gml_script_end_step (r, g_strdup_printf (_("%s weights, %u bytes per value: %s."),
                                        formats[f].dtype, formats[f].bytes, w));
      for (guint i = 1; i <= 4; i++)
        {
          g_autofree char *label = g_strdup_printf ("%s.layer%u.out", formats[f].dtype, i);
          _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, values * formats[f].bytes);
        }
      _gml_script_end_step (r, g_strdup_printf (_("%s activations, %u bytes per value: %s."),
                                        formats[f].dtype, formats[f].bytes, a));
      {
        GmlBar *bar = _gml_script_bar (r, g_strdup (formats[f].dtype));

        _gml_script_bar_measure (r, bar, FALSE);
        bar->marked = f == 1;
      }
      if (f == 0)
        {
          for (guint i = 1; i <= 4; i++)
            {
              g_autofree char *wl = g_strdup_printf ("%s.layer%u.weight", formats[f].dtype, i);
              g_autofree char *al = g_strdup_printf ("%s.layer%u.out", formats[f].dtype, i);
              _gml_script_free (r, wl);
              _gml_script_free (r, al);
            }
          _gml_script_empty_cache (r);
          _gml_script_end_step (r,
                                g_strdup (_("Everything is freed and the cache emptied, to start "
                                       "again in bf16.")));
        }
    }
  r->sc->focus_step = _gml_script_last_step (r);
  r->sc->focus_category = GML_CATEGORY_NONE;
}

typedef struct
{
  guint    n_layers;
  guint64 *live;
  guint8  *recomputed;
} LayerData;

/* Activation blocks are labelled "layerNN.act" (act_label()); a recomputed one
 * is allocated in the temporary category. */
static void
layer_live_cb (const GmlSegmentInfo *segment,
               const GmlBlockInfo   *block,
               gpointer              user_data)
{
  LayerData *d = user_data;
  guint layer;

  if (block->state != GML_BLOCK_ALLOCATED || block->label == NULL ||
      sscanf (block->label, "layer%u.act", &layer) != 1 || layer < 1 || layer > d->n_layers)
    return;
  d->live[layer - 1] += block->size;
  if (block->category == GML_CATEGORY_TEMPORARY)
    d->recomputed[layer - 1] = TRUE;
}

static void
strategy_sample (GmlScript                   *r,
                 GmlCheckpointStrategy *s)
{
  guint n_layers = r->sc->n_layers;
  guint at = s->layer_live->len;
  LayerData layers;

  const GmlMemState *state = _gml_script_state (r);
  guint64 stored = gml_mem_state_allocated_by_category (state, GML_CATEGORY_ACTIVATIONS);
  guint64 recomputed = gml_mem_state_allocated_by_category (state, GML_CATEGORY_TEMPORARY);
  guint64 all = _gml_script_stats (r)->allocated_bytes[GML_STAT_ALL].current;
  guint64 other = all - stored - recomputed;

  g_array_append_val (s->other, other);
  g_array_append_val (s->stored, stored);
  g_array_append_val (s->recomputed, recomputed);

  g_array_set_size (s->layer_live, at + n_layers);
  g_array_set_size (s->layer_recomputed, at + n_layers);
  layers = (LayerData) { n_layers, &g_array_index (s->layer_live, guint64, at),
                         &g_array_index (s->layer_recomputed, guint8, at) };
  gml_mem_state_foreach_block (state, layer_live_cb, &layers);
}

static void
strategy_end_step (GmlScript                   *r,
                   GmlCheckpointStrategy *s,
                   char                  *caption)
{
  _gml_script_end_step (r, caption);
  strategy_sample (r, s);
}

static char *
act_label (guint layer)
{
  return g_strdup_printf ("layer%02u.act", layer);
}

/* One forward and backward pass of the N-layer network with a checkpoint every
 * k layers (Chen et al. 2016): the forward pass keeps only checkpoints (and the
 * last output); the backward pass recomputes a segment's activations from its
 * checkpoint when it reaches the segment, then frees each as it goes down. */
static void
run_strategy (GmlScript                   *r,
              GmlCheckpointStrategy *s)
{
  GmlScenario *sc = r->sc;
  guint n = sc->n_layers, k = s->segment;
  g_autofree gboolean *recomputed = g_new0 (gboolean, n);

  r->peak = _gml_script_stats (r)->allocated_bytes[GML_STAT_ALL].current;
  s->first_step = sc->steps->len;

  for (guint i = 0; i < n && r->fatal == NULL; i++)
    {
      g_autofree char *label = act_label (i + 1);

      _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, sc->layer_bytes);
      if (i > 0 && (i - 1) % k != 0)
        {
          g_autofree char *prev = act_label (i);
          _gml_script_free (r, prev);
          /* Translators: %s names a strategy, %u is a layer number. */
          strategy_end_step (r, s, g_strdup_printf (_("%s — forward, layer %u: layer %u’s "
                                                      "activation is dropped, not stored."),
                                                    s->name, i + 1, i));
        }
      else if (i % k == 0 || i == n - 1)
        strategy_end_step (r, s, g_strdup_printf (_("%s — forward, layer %u: its activation "
                                                    "is stored."), s->name, i + 1));
      else
        strategy_end_step (r, s, g_strdup_printf (_("%s — forward, layer %u: its activation "
                                                    "is kept only until the next layer."),
                                                  s->name, i + 1));
    }

  for (guint i = n; i-- > 0 && r->fatal == NULL;)
    {
      g_autofree char *label = act_label (i + 1);

      if (!_gml_script_is_live (r, label))
        {
          guint first = i / k * k;   /* the checkpoint this segment starts from */
          guint count = 0;

          for (guint j = first + 1; j <= i; j++)
            {
              g_autofree char *again = act_label (j + 1);

              if (!_gml_script_is_live (r, again))
                {
                  _gml_script_alloc (r, again, GML_CATEGORY_TEMPORARY, sc->layer_bytes);
                  recomputed[j] = TRUE;
                  count++;
                }
            }
          s->n_recomputed += count;
          strategy_end_step (r, s, g_strdup_printf (ngettext ("%s — backward reaches layer %u: "
                                                                 "%u activation is recomputed from "
                                                                 "the checkpoint at layer %u.",
                                                                 "%s — backward reaches layer %u: "
                                                                 "%u activations are recomputed "
                                                                 "from the checkpoint at layer %u.",
                                                                 count),
                                                    s->name, i + 1, count, first + 1));
        }
      _gml_script_free (r, label);
      strategy_end_step (r, s, g_strdup_printf (_("%s — backward through layer %u: its "
                                                  "activation is freed."), s->name, i + 1));
    }

  s->last_step = sc->steps->len - 1;
  s->peak_bytes = r->peak;
  s->extra_compute = (double) s->n_recomputed / n;
  for (guint i = 0; i < n; i++)
    if (i % k == 0 || i == n - 1)
      s->n_stored++;
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

/* Runs one forward and backward pass with a checkpoint every @segment layers
 * (sc->n_layers layers of sc->layer_bytes each) and keeps it as a strategy. */
GmlCheckpointStrategy *
_gml_script_checkpoint_strategy (GmlScript *r,
                                 guint      segment,
                                 char      *name)
{
  GmlCheckpointStrategy *st = g_new0 (GmlCheckpointStrategy, 1);

  st->other = g_array_new (FALSE, FALSE, sizeof (guint64));
  st->stored = g_array_new (FALSE, FALSE, sizeof (guint64));
  st->recomputed = g_array_new (FALSE, FALSE, sizeof (guint64));
  st->layer_live = g_array_new (FALSE, TRUE, sizeof (guint64));
  st->layer_recomputed = g_array_new (FALSE, TRUE, sizeof (guint8));
  st->segment = MAX (segment, 1);
  st->name = name;
  g_ptr_array_add (r->sc->strategies, st);
  r->strategy = r->sc->strategies->len - 1;
  run_strategy (r, st);
  r->strategy = -1;
  return st;
}

void
_gml_script_checkpointing (GmlScript *r,
                           guint      n_layers)
{
  GmlScenario *sc = r->sc;
  guint64 unit = arena_unit (r);
  guint every = 2;
  guint sqrt_n;

  sc->n_layers = n_layers;
  /* Half a unit per layer for 16 layers: the widest strategy then fills 8 units. */
  sc->layer_bytes = round_up (unit * 8 / MAX (n_layers, 1), GML_MIN_BLOCK_SIZE);
  sqrt_n = (guint) ceil (sqrt ((double) sc->n_layers));

  _gml_script_alloc (r, "weights", GML_CATEGORY_WEIGHTS, 2 * unit);
  {
    g_autofree char *w = gml_format_size_short (2 * unit);
    g_autofree char *a = gml_format_size_short (sc->layer_bytes);
    /* Translators: %u is the number of layers, the %s are sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("A %u-layer network: weights %s, each layer’s "
                                        "activation %s."), sc->n_layers, w, a));
  }

  for (guint s = 0; s < 3 && r->fatal == NULL; s++)
    {
      switch (s)
        {
        case 0:
          _gml_script_checkpoint_strategy (r, 1, g_strdup (_("No checkpointing")));
          break;
        case 1:
          _gml_script_checkpoint_strategy (r, every,
                                           g_strdup_printf (ngettext ("Every %u layer",
                                                                         "Every %u layers", every),
                                                            every));
          break;
        default:
          /* Translators: %u is √N, the number of segments. */
          _gml_script_checkpoint_strategy (r, sqrt_n,
                                           g_strdup_printf (_("√N segments (%u)"), sqrt_n));
          break;
        }
    }
  sc->focus_step = sc->strategies->len > 0
    ? ((GmlCheckpointStrategy *) g_ptr_array_index (sc->strategies,
                                                    sc->strategies->len - 1))->first_step
      + sc->n_layers
    : _gml_script_last_step (r);
  sc->focus_step = MIN (sc->focus_step, _gml_script_last_step (r));
  sc->focus_category = GML_CATEGORY_TEMPORARY;
}

void
_gml_script_fragmentation (GmlScript *r)
{
  const guint64 tensor = 5 * MiB;   /* four fill one 20 MiB segment exactly */
  const guint64 request = 8 * MiB;  /* more than one hole, less than all of them */
  g_autofree char *t = gml_format_size_short (tensor);
  guint n = 0;
  const GmlStats *st;

  for (; n < 4; n++)
    {
      g_autofree char *label = g_strdup_printf ("t%03u", n + 1);
      _gml_script_alloc (r, label, n % 2 == 0 ? GML_CATEGORY_TEMPORARY : GML_CATEGORY_ACTIVATIONS,
                         tensor);
    }
  _gml_script_end_step (r, g_strdup_printf (_("Four tensors of %s fill one 20 MiB segment."), t));

  /* Fill while the device could still give a whole segment, so that the final
   * request can only be served from the holes. */
  while (r->fatal == NULL && _gml_script_device_free (r) >= GML_LARGE_BUFFER && n < 100000)
    {
      for (guint j = 0; j < 4 && r->fatal == NULL; j++, n++)
        {
          g_autofree char *label = g_strdup_printf ("t%03u", n + 1);
          _gml_script_alloc (r, label,
                             n % 2 == 0 ? GML_CATEGORY_TEMPORARY : GML_CATEGORY_ACTIVATIONS,
                     tensor);
        }
    }
  st = _gml_script_stats (r);
  {
    g_autofree char *res = gml_format_size_short (st->reserved_bytes[GML_STAT_ALL].current);
    _gml_script_end_step (r, g_strdup_printf (ngettext ("More of them, until no segment fits: %u "
                                                   "tensor, %s reserved.",
                                                   "More of them, until no segment fits: %u "
                                                   "tensors, %s reserved.", n),
                                      n, res));
  }

  for (guint i = 0; i < n; i += 2)
    {
      g_autofree char *label = g_strdup_printf ("t%03u", i + 1);
      _gml_script_free (r, label);
    }
  {
    const GmlMemState *state = _gml_script_state (r);
    g_autofree char *largest = gml_format_size_short (gml_mem_state_get_largest_free_block (state));
    st = _gml_script_stats (r);
    g_autofree char *free_ = gml_format_size_short (st->reserved_bytes[GML_STAT_ALL].current
                                        - st->allocated_bytes[GML_STAT_ALL].current);
    /* Translators: both %s are sizes. */
    _gml_script_end_step (r,
                          g_strdup_printf (_("Every other tensor is freed: %s free in the cache, "
                                             "in "
                                        "holes of at most %s."), free_, largest));
  }

  {
    const GmlMemState *state = _gml_script_state (r);
    g_autofree char *req = gml_format_size_short (request);
    g_autofree char *largest = gml_format_size_short (gml_mem_state_get_largest_free_block (state));

    _gml_script_alloc (r, "big", GML_CATEGORY_ACTIVATIONS, request);
    /* Translators: both %s are sizes. */
    _gml_script_end_step (r,
                          g_strdup_printf (_("A request for %s fails: no hole is larger than %s, "
                                        "and the GPU has no room for a new segment."),
                                      req, largest));
  }
  r->sc->focus_step = _gml_script_last_step (r);
  r->sc->focus_category = GML_CATEGORY_NONE;
}

/* ------------------------------------------------------------------------- */

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
   * gml_scenario_new_experiment_async()): a cancelled script stops within a
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
    release_run (g_ptr_array_index (sc->runs, i));
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
  guint64      sum;
} SumData;

static void
sum_category_cb (const GmlSegmentInfo *segment,
                 const GmlBlockInfo   *block,
                 gpointer              user_data)
{
  SumData *d = user_data;

  if (block->state == GML_BLOCK_ALLOCATED && block->category == d->category)
    d->sum += block->size;
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

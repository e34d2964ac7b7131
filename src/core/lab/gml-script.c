/* gml-script.c — the toolkit every script drives the allocator with.
 *
 * A script (a named scenario's story, a question's experiment, the lab's
 * step) starts runs, allocates and frees named tensors, and closes a step
 * whenever the picture should show something; bars, marks and key figures
 * say what the picture points at. Every figure they hold is read from the
 * engine. What a script leaves behind is the scenario's (gml-scenario.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-script"

#include "config.h"

#include <string.h>

#include "gml-i18n.h"
#include "gml-script-private.h"

/* ------------------------------------------------------------------------- */
/* Runs and steps                                                            */

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
    _gml_scenario_release_run (r->run);
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
  r->stats = gml_allocator_get_stats (run->allocator);
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

  _gml_scenario_release_run (r->run);
  run->name = name;
  run->arena = gml_device_sim_new (capacity, 0);
  run->capacity = capacity;
  run->allocator = gml_allocator_new (run->arena, conf);
  run->live = g_array_new (FALSE, TRUE, sizeof (gint32));
  g_ptr_array_add (r->sc->runs, run);
  r->run = run;
  r->live = run->live;
  r->stats = gml_allocator_get_stats (run->allocator);
  r->peak = 0;
  return run;
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

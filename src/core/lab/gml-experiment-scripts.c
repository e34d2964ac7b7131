/* gml-experiment-scripts.c — the kinds of experiment and what each one runs.
 *
 * Each script takes the question's numbers, drives the caching allocator with
 * them (in an arena of the lab's device: live CUDA memory or the simulator),
 * and closes steps. Two steps matter to the quiz: the setup (shown before the
 * answer, without giving it away) and the focus (the exact state the question
 * is about, with one caption sentence that says what to see). Every figure in
 * a caption, bar, mark or key comes from the allocator's state or statistics.
 *
 * Where a question's numbers are larger than any device the lab may use (36 GiB
 * of reserved memory, a 7-billion-parameter model), the script runs at a
 * power-of-two scale chosen to fit, says so, and reports the engine's figures
 * multiplied back by the scale.
 *
 * Facts behind the scripts: pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp
 * (sizes, pools, splitting, max_split_size, streams, the retry before out of
 * memory, the message), torch/cuda/memory.py (memory_allocated, memory_reserved,
 * empty_cache), the PyTorch FAQ and CUDA semantics notes (held references,
 * pinned memory, no_grad, inference_mode), Rajbhandari et al. 2020 (ZeRO's
 * 2 + 2 + 12 bytes per parameter), Chen et al. 2016 (checkpointing).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-experiment"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gml-experiment-private.h"
#include "gml-lab-private.h"
#include "gml-i18n.h"

#define MiB GML_MiB
#define GiB GML_GiB

#define V(name)  _gml_experiment_value (e, name)
#define IS(name, word) _gml_experiment_is (e, name, word)

/* ------------------------------------------------------------------------- */
/* Helpers                                                                   */

static guint64
round_up (guint64 value,
          guint64 multiple)
{
  return (value + multiple - 1) / multiple * multiple;
}

static guint64
round_down (guint64 value,
            guint64 multiple)
{
  return value / multiple * multiple;
}

static gint
compare_guint64 (gconstpointer a,
                 gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* What an experiment's arena may take: the device's free memory within the
 * budget, and never more than the lab's default simulated GPU, so that the
 * window and the render verb tell the same story on every machine. */
static guint64
lab_arena (GmlScript *r)
{
  return MIN (gml_device_available (r->sc->device), GML_SCENARIO_SIM_CAPACITY);
}

/* The smallest round scale (1, 2, 4, 5, 8, 10, 16, 20, 25, …: powers of two
 * times powers of five) at which @needed bytes fit in @available and, if
 * possible, every value of @exact divides into whole @quantum units, so that
 * the engine's figures times the scale are the question's exactly. */
static guint64
choose_scale (guint64        needed,
              guint64        available,
              const guint64 *exact,
              guint          n_exact,
              guint64        quantum)
{
  g_autoptr(GArray) candidates = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 first_fit = 0;

  for (guint64 two = 1; two <= (G_GUINT64_CONSTANT (1) << 40); two *= 2)
    for (guint64 five = 1; five <= G_GUINT64_CONSTANT (1000000000000) / two; five *= 5)
      {
        guint64 c = two * five;
        g_array_append_val (candidates, c);
      }
  g_array_sort (candidates, compare_guint64);

  for (guint c = 0; c < candidates->len; c++)
    {
      guint64 s = g_array_index (candidates, guint64, c);
      gboolean whole = TRUE;

      /* A sixteenth is left for rounding: each tensor may take up to 2 MiB more. */
      if (needed / s > available - available / 16)
        continue;
      if (first_fit == 0)
        first_fit = s;
      for (guint i = 0; i < n_exact && whole; i++)
        whole = exact[i] % s == 0 && (exact[i] / s) % quantum == 0;
      if (whole)
        return s;
      if (s >= first_fit * 64)
        break;
    }
  return MAX (first_fit, 1);
}

/* Sizes below 1 MiB as exact bytes ("1024 B"), as the rounding rules need. */
static char *
exact_size (GmlScript *r,
            guint64    bytes)
{
  if (bytes * r->sc->scale < MiB)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes * r->sc->scale);
  return _gml_script_size (r, bytes);
}

/* "7 billion", "33.6 million": a parameter count in words. */
static char *
format_count (guint64 n)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char *end;

  if (n >= 1000000000)
    {
      g_ascii_formatd (buf, sizeof buf, "%.1f", n / 1e9);
      if ((end = strstr (buf, ".0")) != NULL && end[2] == '\0')
        *end = '\0';
      /* Translators: %s is a number such as 7 or 1.5. */
      return g_strdup_printf (_("%s billion"), gml_format_localise_point (buf));
    }
  if (n >= 1000000)
    {
      g_ascii_formatd (buf, sizeof buf, "%.1f", n / 1e6);
      if ((end = strstr (buf, ".0")) != NULL && end[2] == '\0')
        *end = '\0';
      /* Translators: %s is a number such as 33.6. */
      return g_strdup_printf (_("%s million"), gml_format_localise_point (buf));
    }
  return g_strdup_printf ("%" G_GUINT64_FORMAT, n);
}

/* "1.9", "4": a ratio for captions. */
static char *
format_ratio (double ratio)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char *end;

  g_ascii_formatd (buf, sizeof buf, "%.1f", ratio);
  if ((end = strstr (buf, ".0")) != NULL && end[2] == '\0')
    *end = '\0';
  return g_strdup (gml_format_localise_point (buf));
}

static const GmlScenarioStep *
step_at (GmlScript *r,
         guint      step)
{
  return gml_scenario_get_step (r->sc, step);
}

static const GmlStats *
stats_at (GmlScript *r,
          guint      step)
{
  return &step_at (r, step)->stats;
}

static guint64
allocated_at (GmlScript *r,
              guint      step)
{
  return stats_at (r, step)->allocated_bytes[GML_STAT_ALL].current;
}

static guint64
reserved_at (GmlScript *r,
             guint      step)
{
  return stats_at (r, step)->reserved_bytes[GML_STAT_ALL].current;
}

/* The last out-of-memory event of the current run: the segment size it tried to
 * get and the device's free bytes then. */
static gboolean
last_oom (GmlScript *r,
          guint64   *segment,
          guint64   *device_free)
{
  GmlTrace *trace = gml_allocator_get_trace (r->run->allocator);

  for (gsize i = gml_trace_get_n_events (trace); i-- > 0;)
    {
      const GmlTraceEvent *ev = gml_trace_get_event (trace, i);

      if (ev->kind == GML_EVENT_OOM)
        {
          *segment = ev->size;
          *device_free = ev->address;
          return TRUE;
        }
    }
  return FALSE;
}

static char *
category_size (GmlScript         *r,
               const GmlMemState *state,
               GmlCategory        category)
{
  return _gml_script_size (r, gml_mem_state_allocated_by_category (state, category));
}

static guint64
allocated_now (GmlScript *r)
{
  return _gml_script_stats (r)->allocated_bytes[GML_STAT_ALL].current;
}

static guint64
requested_now (GmlScript *r)
{
  return _gml_script_stats (r)->requested_bytes[GML_STAT_ALL].current;
}

static void
start (GmlScript  *r,
       const char *title,
       GmlView     focus_view)
{
  r->sc->title = g_strdup (title);
  r->sc->focus_view = focus_view;
}

static void
set_scale (GmlScript *r,
           guint64    scale)
{
  r->sc->scale = MAX (scale, 1);
  g_clear_pointer (&r->sc->bar_unit, g_free);
  if (r->sc->scale > 1)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, r->sc->scale);

      /* Translators: both %s are a number such as 64. */
      r->sc->bar_unit = g_strdup_printf (_("Run at 1:%s scale: the bars show the engine’s figures "
                                           "× %s."), n, n);
    }
}

/* Adds the scale to a caption that ran scaled down. Takes @caption. */
static char *
with_scale (GmlScript *r,
            char      *caption)
{
  g_autofree char *note = _gml_script_scale_note (r);
  char *joined;

  if (note == NULL)
    return caption;
  joined = g_strconcat (caption, " ", note, NULL);
  g_free (caption);
  return joined;
}

static void
first_step (GmlScript *r)
{
  _gml_script_end_step (r, g_strdup (_("Start: nothing is allocated yet.")));
}

/* ------------------------------------------------------------------------- */
/* The named scenarios, as experiments                                       */

static void
script_oom (GmlScript           *r,
            const GmlExperiment *e)
{
  guint focus;
  guint64 request, device_free;
  const GmlScenarioStep *step;
  g_autoptr(GmlMemState) state = NULL;

  start (r, gml_scenario_title ("oom"), GML_VIEW_MEMORY_MAP);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  _gml_script_oom (r);
  focus = _gml_script_last_step (r);
  step = step_at (r, focus);
  request = step->request;
  device_free = step->device_free;
  state = gml_scenario_state_at (r->sc, focus);
  {
    g_autofree char *req = _gml_script_size (r, request);
    g_autofree char *free_ = _gml_script_size (r, device_free);
    g_autofree char *w = category_size (r, state, GML_CATEGORY_WEIGHTS);
    g_autofree char *g = category_size (r, state, GML_CATEGORY_GRADIENTS);
    g_autofree char *o = category_size (r, state, GML_CATEGORY_OPTIMIZER_STATE);
    g_autofree char *a = category_size (r, state, GML_CATEGORY_ACTIVATIONS);

    /* Translators: all %s are sizes. */
    _gml_script_set_caption (r, focus,
                             g_strdup_printf (_("The next activations need %s, but the GPU has only %s "
                                                "free and no cached block fits: CUDA out of memory. "
                                                "Weights %s, gradients %s, optimizer state %s and "
                                                "activations %s fill it."),
                                              req, free_, w, g, o, a));
  }
  _gml_script_key (r, "request", request);
  _gml_script_key (r, "device_free", device_free);
  r->sc->setup_step = focus > 0 ? focus - 1 : 0;
  r->sc->focus_step = focus;
  r->sc->focus_category = GML_CATEGORY_ACTIVATIONS;
}

static void
script_batch_size (GmlScript           *r,
                   const GmlExperiment *e)
{
  guint from = V ("from"), to = V ("to");
  guint64 sizes[2] = { 0, 0 };
  guint focus, setup = 1 + 8;   /* start, weights, then the smaller batch's 8 layers */
  g_autofree char *title = NULL;
  GmlBar *bar;

  /* Translators: both %u are batch sizes. */
  title = g_strdup_printf (_("Batch size: the same model at batch %u and at batch %u"), from, to);
  start (r, title, GML_VIEW_MEMORY_MAP);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  _gml_script_batch_size (r, from, to, sizes);
  focus = _gml_script_last_step (r);

  {
    const GmlScenarioStep *step = step_at (r, focus);
    g_autoptr(GmlMemState) state = gml_scenario_state_at (r->sc, focus);
    g_autofree char *big = _gml_script_size (r, sizes[1]);
    g_autofree char *small = _gml_script_size (r, sizes[0]);
    g_autofree char *ratio = format_ratio ((double) sizes[1] / MAX (sizes[0], 1));
    g_autofree char *w = category_size (r, state, GML_CATEGORY_WEIGHTS);
    g_autofree char *a = category_size (r, state, GML_CATEGORY_ACTIVATIONS);

    if (step->oom)
      /* Translators: batch size, size, ratio, size, batch size, size, size. */
      _gml_script_set_caption (r, focus,
                               g_strdup_printf (_("At batch %u each layer’s activations take %s, %s× "
                                                  "the %s of batch %u: once %s of them are held, the "
                                                  "next layer’s do not fit and the GPU runs out of "
                                                  "memory. The weights stay at %s."),
                                                to, big, ratio, small, from, a, w));
    else
      _gml_script_set_caption (r, focus,
                               g_strdup_printf (_("At batch %u each layer’s activations take %s, %s× "
                                                  "the %s of batch %u: %s of activations beside "
                                                  "weights of %s."),
                                                to, big, ratio, small, from, a, w));
  }
  /* What each batch needs, whole: the smaller one as it ran, the larger one as
   * its layers would take it (it runs out before the last), against the GPU. */
  {
    GmlBar *small_bar;
    guint n_layers = 8;

    /* Translators: %u is a batch size. */
    small_bar = _gml_script_bar_at_step (r, g_strdup_printf (_("Batch %u"), from), setup, FALSE);
    small_bar->parts[GML_BAR_CACHED] = 0;
    /* Translators: %u is a batch size; what its step would need in all. */
    bar = _gml_script_bar (r, g_strdup_printf (_("Batch %u, needed"), to));
    bar->parts[GML_CATEGORY_WEIGHTS] = small_bar->parts[GML_CATEGORY_WEIGHTS];
    bar->parts[GML_CATEGORY_ACTIVATIONS] = n_layers * sizes[1];
    bar->marked = TRUE;
    r->sc->bar_capacity = r->run->capacity;
  }
  _gml_script_key (r, "activations_per_layer_small", sizes[0]);
  _gml_script_key (r, "activations_per_layer_large", sizes[1]);
  r->sc->setup_step = MIN (setup, focus);
  r->sc->focus_step = focus;
  r->sc->focus_category = GML_CATEGORY_ACTIVATIONS;
}

static void
script_empty_cache (GmlScript           *r,
                    const GmlExperiment *e)
{
  guint oom_step, freed, emptied, retry, focus;
  guint64 request;

  start (r, gml_scenario_title ("empty-cache"), GML_VIEW_TIMELINE);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  _gml_script_empty_cache_story (r);
  /* The story's steps: weights, forward, out of memory, freed, emptied, again. */
  oom_step = 3;
  freed = 4;
  emptied = 5;
  retry = 6;
  g_assert (retry == _gml_script_last_step (r) || r->fatal != NULL);
  if (r->fatal != NULL)
    return;
  request = step_at (r, oom_step)->request;

  {
    g_autofree char *req = _gml_script_size (r, request);
    g_autofree char *before = _gml_script_size (r, reserved_at (r, freed));
    g_autofree char *after = _gml_script_size (r, reserved_at (r, emptied));
    g_autofree char *given = _gml_script_size (r, reserved_at (r, freed) - reserved_at (r, emptied));
    g_autofree char *live = _gml_script_size (r, allocated_at (r, emptied));
    g_autofree char *device_free = _gml_script_size (r, step_at (r, emptied)->device_free);

    if (IS ("point", "retry"))
      {
        focus = retry;
        /* Translators: all %s are sizes. */
        _gml_script_set_caption (r, retry,
                                 g_strdup_printf (_("empty_cache() gave %s back to the GPU (reserved "
                                                    "%s → %s), but the live tensors still hold %s: "
                                                    "the same %s request fails again."),
                                                  given, before, after, live, req));
        r->sc->setup_step = oom_step;
      }
    else if (IS ("point", "other-programs"))
      {
        focus = emptied;
        _gml_script_set_caption (r, emptied,
                                 g_strdup_printf (_("empty_cache() drops memory_reserved() from %s to "
                                                    "%s: %s are now free on the GPU for other "
                                                    "programs, while PyTorch’s own %s request still "
                                                    "does not fit."),
                                                  before, after, device_free, req));
        r->sc->focus_view = GML_VIEW_COMPARISON;
        r->sc->setup_step = freed;
      }
    else
      {
        focus = emptied;
        _gml_script_set_caption (r, emptied,
                                 g_strdup_printf (_("empty_cache() returns the whole free segments: "
                                                    "reserved drops from %s to %s. The live tensors "
                                                    "(%s) keep their segments."),
                                                  before, after, live));
        r->sc->setup_step = freed;
      }
    _gml_script_key (r, "reserved_before", reserved_at (r, freed));
    _gml_script_key (r, "reserved_after", reserved_at (r, emptied));
  }

  /* The GPU before and after empty_cache(): PyTorch's part and what is free. */
  for (guint i = 0; i < 2; i++)
    {
      guint at = i == 0 ? freed : emptied;
      GmlBar *bar = _gml_script_bar_at_step (r, g_strdup (i == 0 ? _("GPU before empty_cache()")
                                                                 : _("GPU after empty_cache()")),
                                             at, FALSE);

      bar->parts[GML_BAR_DEVICE_FREE] = step_at (r, at)->device_free;
      bar->marked = i == 1;
    }
  r->sc->focus_step = focus;
}

static void
script_precision (GmlScript           *r,
                  const GmlExperiment *e)
{
  guint64 fp32 = 0, bf16 = 0;

  start (r, gml_scenario_title ("precision"), GML_VIEW_COMPARISON);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  _gml_script_precision (r);
  if (r->fatal != NULL || r->sc->bars->len < 2)
    return;
  for (guint c = 0; c < GML_N_CATEGORIES; c++)
    {
      fp32 += ((GmlBar *) g_ptr_array_index (r->sc->bars, 0))->parts[c];
      bf16 += ((GmlBar *) g_ptr_array_index (r->sc->bars, 1))->parts[c];
    }
  {
    g_autofree char *a = _gml_script_size (r, bf16);
    g_autofree char *b = _gml_script_size (r, fp32);

    /* Translators: both %s are sizes. */
    _gml_script_set_caption (r, _gml_script_last_step (r),
                             g_strdup_printf (_("The same weights and activations take %s in bf16 "
                                                "against %s in fp32: 2 bytes per value instead of 4, "
                                                "half the memory."), a, b));
  }
  _gml_script_key (r, "fp32", fp32);
  _gml_script_key (r, "bf16", bf16);
  r->sc->setup_step = 2;
  r->sc->focus_step = _gml_script_last_step (r);
}

static void
script_checkpointing (GmlScript           *r,
                      const GmlExperiment *e)
{
  GmlScenario *sc = r->sc;
  const GmlCheckpointStrategy *none, *sqrt_n;

  start (r, gml_scenario_title ("checkpointing"), GML_VIEW_CHECKPOINTING);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  _gml_script_checkpointing (r, V ("layers"));
  if (r->fatal != NULL || sc->strategies->len < 3)
    return;
  none = g_ptr_array_index (sc->strategies, 0);
  sqrt_n = g_ptr_array_index (sc->strategies, 2);
  {
    g_autofree char *p1 = _gml_script_size (r, sqrt_n->peak_bytes);
    g_autofree char *p0 = _gml_script_size (r, none->peak_bytes);
    g_autofree char *extra = g_strdup_printf ("%.0f", 100 * sqrt_n->extra_compute);

    /* Translators: %u of %u activations; peak, peak; a percentage. */
    _gml_script_set_caption (r, sc->focus_step,
                             g_strdup_printf (_("√N checkpointing stores %u of the %u activations and "
                                                "recomputes the others from the last checkpoint "
                                                "during the backward pass: peak %s instead of %s "
                                                "without checkpointing, for %s %% more layer forwards."),
                                              sqrt_n->n_stored, sc->n_layers, p1, p0, extra));
  }
  _gml_script_key (r, "peak_sqrt_n", sqrt_n->peak_bytes);
  _gml_script_key (r, "peak_none", none->peak_bytes);
  sc->setup_step = none->first_step + sc->n_layers - 1;
  /* The chart compares the strategies: that is the answer. Before it, the map. */
  sc->setup_view = GML_VIEW_MEMORY_MAP;
}

static void
script_fragmentation (GmlScript           *r,
                      const GmlExperiment *e)
{
  guint focus;
  guint64 request, largest, free_cached;

  start (r, gml_scenario_title ("fragmentation"), GML_VIEW_FRAGMENTATION);
  r->sc->views |= 1u << GML_VIEW_FRAGMENTATION;
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  _gml_script_fragmentation (r);
  if (r->fatal != NULL)
    return;
  focus = _gml_script_last_step (r);
  request = step_at (r, focus)->request;
  largest = step_at (r, focus)->largest_free;
  free_cached = reserved_at (r, focus) - allocated_at (r, focus);
  {
    g_autofree char *req = _gml_script_size (r, request);
    g_autofree char *big = _gml_script_size (r, largest);
    g_autofree char *cached = _gml_script_size (r, free_cached);
    g_autofree char *res = _gml_script_size (r, reserved_at (r, focus));
    guint n_segments = stats_at (r, focus)->segment[GML_STAT_ALL].current;

    if (IS ("point", "advice"))
      {
        /* Translators: all %s are sizes. Keep the quoted sentence in English: it is PyTorch's. */
        _gml_script_set_caption (r, focus,
                                 g_strdup_printf (_("Reserved but unallocated: %s of the %s reserved "
                                                    "are cached free, in holes too small for %s. "
                                                    "That is when the message ends with “If reserved "
                                                    "but unallocated memory is large try setting "
                                                    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True”."),
                                                  cached, res, req));
        r->sc->focus_view = GML_VIEW_MEMORY_MAP;
      }
    else if (IS ("point", "segments"))
      {
        /* Translators: %u segments; then sizes. */
        _gml_script_set_caption (r, focus,
                                 g_strdup_printf (ngettext ("Each miss took a separate segment of "
                                                               "fixed size: %u segment now holds %s "
                                                               "free in holes of at most %s, which "
                                                               "cannot join across segments, so %s "
                                                               "fails. Expandable segments grow one "
                                                               "segment by mapping pages instead.",
                                                               "Each miss took a separate segment of "
                                                               "fixed size: %u segments now hold %s "
                                                               "free in holes of at most %s, which "
                                                               "cannot join across segments, so %s "
                                                               "fails. Expandable segments grow one "
                                                               "segment by mapping pages instead.",
                                                               n_segments),
                                                  n_segments, cached, big, req));
        r->sc->focus_view = GML_VIEW_MEMORY_MAP;
      }
    else
      _gml_script_set_caption (r, focus,
                               g_strdup_printf (_("%s are free in the cache, but in holes of at most "
                                                  "%s between live tensors: the %s request fails "
                                                  "although the holes add up to far more."),
                                                cached, big, req));
  }
  _gml_script_key (r, "request", request);
  _gml_script_key (r, "largest_free", largest);
  _gml_script_key (r, "cached_free", free_cached);
  /* Before the answer: the fragmented cache, every other tensor freed (step 2 is
   * the filled GPU, whose last request may fail like any OOM). */
  r->sc->setup_step = 3;
  r->sc->focus_step = focus;
}

/* ------------------------------------------------------------------------- */
/* The allocator's rules                                                     */

/* del x: the block goes back to the cache, its segment stays reserved. */
static void
script_free_to_cache (GmlScript           *r,
                      const GmlExperiment *e)
{
  guint64 size = V ("size"), keep = V ("keep");
  GmlBlockInfo x = { 0 }, y = { 0 };
  guint64 y_segment;
  guint setup, focus;
  g_autofree char *sx = NULL;
  g_autofree char *sy = NULL;

  start (r, IS ("point", "del") ? _("del x: allocated memory falls, reserved memory stays")
                                : _("memory_allocated() and memory_reserved()"),
         GML_VIEW_MEMORY_MAP);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);

  _gml_script_alloc (r, "x", GML_CATEGORY_ACTIVATIONS, size);
  _gml_script_alloc (r, "y", GML_CATEGORY_WEIGHTS, keep);
  _gml_script_block (r, "x", &x);
  _gml_script_block (r, "y", &y);
  y_segment = _gml_script_segment_of (r, "y");
  sx = _gml_script_size (r, size);
  sy = _gml_script_size (r, keep);
  {
    g_autofree char *a = _gml_script_size (r, allocated_now (r));
    g_autofree char *res = _gml_script_size (r, _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current);

    /* Translators: x and y are tensor names; all %s are sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("Two tensors: x (%s) and y (%s). memory_allocated() "
                                                 "is %s, memory_reserved() %s."), sx, sy, a, res));
  }
  setup = _gml_script_last_step (r);

  _gml_script_free (r, "x");
  {
    const GmlStats *st = _gml_script_stats (r);
    g_autofree char *a0 = _gml_script_size (r, allocated_at (r, setup));
    g_autofree char *a = _gml_script_size (r, st->allocated_bytes[GML_STAT_ALL].current);
    g_autofree char *res = _gml_script_size (r, st->reserved_bytes[GML_STAT_ALL].current);
    g_autofree char *xb = _gml_script_size (r, x.size);
    g_autofree char *rest = _gml_script_size (r, y_segment - y.size);

    if (IS ("point", "del"))
      /* Translators: all %s are sizes. */
      _gml_script_end_step (r, g_strdup_printf (_("del x: memory_allocated() falls from %s to %s, "
                                                   "but memory_reserved() stays at %s: x’s %s block "
                                                   "went back to the cache inside its segment, so "
                                                   "nvidia-smi shows no change either."),
                                                 a0, a, res, xb));
    else
      _gml_script_end_step (r, g_strdup_printf (_("memory_allocated() = %s: the blocks handed out to "
                                                   "live tensors (y). memory_reserved() = %s: all the "
                                                   "allocator’s segments, with x’s freed %s block and "
                                                   "the %s beside y kept cached."),
                                                 a, res, xb, rest));
    _gml_script_key (r, "memory_allocated", st->allocated_bytes[GML_STAT_ALL].current);
    _gml_script_key (r, "memory_reserved", st->reserved_bytes[GML_STAT_ALL].current);
  }
  focus = _gml_script_last_step (r);
  {
    g_autofree char *xb = _gml_script_size (r, x.size);

    /* Translators: %s is a size. */
    _gml_script_mark_at (r, x.address, FALSE, g_strdup_printf (_("x, freed: %s cached"), xb));
    _gml_script_mark (r, "y", FALSE, g_strdup_printf (_("y, live: %s"), sy));
  }
  {
    GmlBar *bar = _gml_script_bar (r, g_strdup ("memory_allocated()"));

    _gml_script_bar_measure (r, bar, FALSE);
    bar->parts[GML_BAR_CACHED] = 0;
    bar = _gml_script_bar (r, g_strdup ("memory_reserved()"));
    _gml_script_bar_measure (r, bar, FALSE);
    bar->marked = TRUE;
  }
  r->sc->setup_step = setup;
  r->sc->focus_step = focus;
}

static gboolean
check_oom_message (const GmlExperiment *e,
                   char               **field,
                   char               **reason)
{
  guint64 reserved = V ("allocated") + V ("unallocated");

  if (_gml_experiment_given (e, "in_use") && V ("in_use") < reserved)
    {
      *field = g_strdup ("experiment.in_use");
      *reason = g_strdup (_("must be at least allocated + unallocated"));
      return FALSE;
    }
  if (_gml_experiment_given (e, "capacity") && V ("capacity") < reserved + V ("free"))
    {
      *field = g_strdup ("experiment.capacity");
      *reason = g_strdup (_("must be at least allocated + unallocated + free"));
      return FALSE;
    }
  return TRUE;
}

/* An out-of-memory message with the question's figures, built for real: live
 * tensors that split cached segments, so that "reserved but unallocated" memory
 * lies in pieces no request can join. */
static void
script_oom_message (GmlScript           *r,
                    const GmlExperiment *e)
{
  guint64 A = V ("allocated"), U = V ("unallocated"), F = V ("free");
  guint n = V ("pieces");
  guint64 R = A + U, O = 0, C, s, seg, live, other, spare, request;
  guint64 exact[2];
  guint setup, focus, early;

  if (_gml_experiment_given (e, "in_use"))
    O = V ("in_use") - R;
  else if (_gml_experiment_given (e, "capacity"))
    O = V ("capacity") - R - F;
  C = R + O + F;

  start (r, _("Reading an out-of-memory message"), IS ("point", "unallocated") ? GML_VIEW_MEMORY_MAP
                                                                             : GML_VIEW_COMPARISON);
  exact[0] = R / n;
  exact[1] = A / n;
  s = choose_scale (C + (R / n), lab_arena (r), exact, G_N_ELEMENTS (exact), 2 * MiB);
  set_scale (r, s);
  seg = round_up (R / n / s, 2 * MiB);
  live = MIN (round_up (A / n / s, GML_MIN_BLOCK_SIZE), seg);
  other = O / s;
  spare = F / s;
  _gml_script_begin_run (r, NULL, n * seg + other + spare, other, NULL, FALSE);
  first_step (r);

  /* Segments first, then live tensors that split them: the cached rest of each
   * segment cannot be returned while its tensor lives. */
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *label = g_strdup_printf ("batch%u", i + 1);
      _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, seg);
    }
  /* Before the answer, where the question is what the unallocated figure is:
   * the segments full, not yet the free pieces that answer it. */
  /* Translators: %u is a number of segments. */
  _gml_script_end_step (r, with_scale (r, g_strdup_printf (ngettext ("Training fills %u segment "
                                                                        "with its tensors.",
                                                                        "Training fills %u segments "
                                                                        "with its tensors.", n),
                                                           n)));
  early = _gml_script_last_step (r);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *label = g_strdup_printf ("batch%u", i + 1);
      _gml_script_free (r, label);
    }
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *label = g_strdup_printf ("tensor%u", i + 1);
      _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, live);
    }
  /* No totals here: what memory_reserved() returns may be the question. */
  /* Translators: %u is a number of segments. */
  _gml_script_end_step (r, with_scale (r, g_strdup_printf (ngettext ("Training has left %u segment "
                                                                        "that holds live tensors and a "
                                                                        "free piece; another tensor is "
                                                                        "requested.",
                                                                        "Training has left %u segments, "
                                                                        "each holding live tensors and a "
                                                                        "free piece; another tensor is "
                                                                        "requested.", n),
                                                           n)));
  setup = _gml_script_last_step (r);

  request = _gml_experiment_given (e, "request")
            ? V ("request") / s
            : round_up (MAX (seg - live, spare) + 1, 2 * MiB);
  _gml_script_alloc (r, "request", GML_CATEGORY_ACTIVATIONS, request);
  {
    const GmlStats *st = _gml_script_stats (r);
    guint64 alloc = st->allocated_bytes[GML_STAT_ALL].current;
    guint64 res_b = st->reserved_bytes[GML_STAT_ALL].current;
    g_autofree char *a = _gml_script_size (r, alloc);
    g_autofree char *u = _gml_script_size (r, res_b - alloc);
    g_autofree char *res = _gml_script_size (r, res_b);
    g_autofree char *req = _gml_script_size (r, request);
    g_autofree char *piece = _gml_script_size (r, gml_mem_state_get_largest_free_block (
                                                       _gml_script_state (r)));
    g_autofree char *cap = _gml_script_size (r, r->run->capacity);
    g_autofree char *free_ = _gml_script_size (r, _gml_script_device_free (r));
    g_autofree char *in_use = _gml_script_size (r, res_b + other);
    g_autofree char *out = _gml_script_size (r, other);
    gboolean failed = r->oom;
    char *caption;

    if (IS ("point", "reserved"))
      /* Translators: all %s are sizes. */
      caption = g_strdup_printf (_("The message gives allocated memory (%s) and reserved minus "
                                   "allocated (%s): memory_reserved() = %s + %s = %s."),
                                 a, u, a, u, res);
    else if (IS ("point", "outside"))
      caption = g_strdup_printf (_("PyTorch reserves %s + %s = %s; the process uses %s, so %s lie "
                                   "outside the caching allocator — in this model, the CUDA "
                                   "context."),
                                 a, u, res, in_use, out);
    else if (failed)
      /* Translators: %u pieces; then sizes. */
      caption = g_strdup_printf (ngettext ("Beside the %s allocated, %s are cached free, but in %u "
                                              "piece of at most %s inside segments that hold live "
                                              "tensors: none fits the %s request, no segment can be "
                                              "released, and the GPU (%s) has only %s free.",
                                              "Beside the %s allocated, %s are cached free, but in %u "
                                              "pieces of at most %s inside segments that hold live "
                                              "tensors: none fits the %s request, no segment can be "
                                              "released, and the GPU (%s) has only %s free.", n),
                                 a, u, n, piece, req, cap, free_);
    else
      caption = g_strdup_printf (_("The %s request fits: no out-of-memory error this time."), req);
    _gml_script_end_step (r, with_scale (r, caption));
    _gml_script_key (r, "allocated", alloc);
    _gml_script_key (r, "unallocated", res_b - alloc);
    _gml_script_key (r, "reserved", res_b);
    if (_gml_experiment_given (e, "in_use"))
      _gml_script_key (r, "in_use", res_b + other);
    if (IS ("point", "unallocated"))
      {
        _gml_script_key (r, "request", request);
        _gml_script_key (r, "capacity", r->run->capacity);
        _gml_script_key (r, "free", _gml_script_device_free (r));
      }
  }
  focus = _gml_script_last_step (r);
  {
    GmlBar *bar;
    const GmlStats *st = &step_at (r, focus)->stats;
    guint64 alloc = st->allocated_bytes[GML_STAT_ALL].current;
    guint64 res_b = st->reserved_bytes[GML_STAT_ALL].current;

    /* The message's own figures are there before the answer; their sums come with it. */
    bar = _gml_script_bar (r, g_strdup (_("Allocated by PyTorch")));
    bar->parts[GML_BAR_ALLOCATED] = alloc;
    bar->step = setup;
    bar = _gml_script_bar (r, g_strdup (_("Reserved but unallocated")));
    bar->parts[GML_BAR_CACHED] = res_b - alloc;
    bar->step = setup;
    bar = _gml_script_bar (r, g_strdup ("memory_reserved()"));
    bar->parts[GML_BAR_ALLOCATED] = alloc;
    bar->parts[GML_BAR_CACHED] = res_b - alloc;
    bar->marked = IS ("point", "reserved");
    if (other > 0 || IS ("point", "outside"))
      {
        bar = _gml_script_bar (r, g_strdup (_("The process in all")));
        bar->parts[GML_BAR_ALLOCATED] = alloc;
        bar->parts[GML_BAR_CACHED] = res_b - alloc;
        bar->parts[GML_BAR_OTHER] = other;
        bar->marked = IS ("point", "outside");
      }
  }
  {
    /* The map shows the engine's own sizes, so its labels do too. */
    g_autofree char *l = gml_format_size_short (live);
    g_autofree char *f = gml_format_size_short (seg - live);

    /* Translators: both %s are sizes. */
    _gml_script_mark (r, "tensor1", TRUE, g_strdup_printf (_("live %s + free %s"), l, f));
  }
  r->sc->setup_step = IS ("point", "unallocated") ? early : setup;
  r->sc->focus_step = focus;
}

/* The size after "Tried to allocate": the segment, not the request. */
static void
script_segment_size (GmlScript           *r,
                     const GmlExperiment *e)
{
  guint64 request = V ("request");
  GmlAllocConf conf;
  guint64 rounded, segment, spare, filler;
  guint setup;
  g_autofree char *req = NULL;

  gml_alloc_conf_init (&conf);
  rounded = gml_round_size (&conf, request);
  segment = gml_allocation_size (rounded);
  /* Room for the request itself, not for its segment. */
  spare = segment > 2 * MiB ? round_down (segment - 1, 2 * MiB) : 0;
  filler = round_up (MAX (2 * segment, 16 * MiB), 2 * MiB);
  req = _gml_script_size (r, request);

  {
    g_autofree char *title = NULL;

    /* Translators: %s is a size such as "3 MiB". */
    title = g_strdup_printf (_("What “Tried to allocate” means for a tensor of %s"), req);
    start (r, title, GML_VIEW_COMPARISON);
  }
  _gml_script_begin_run (r, NULL, filler + spare, 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "weights", GML_CATEGORY_WEIGHTS, filler);
  {
    g_autofree char *free_ = _gml_script_size (r, _gml_script_device_free (r));

    /* Translators: both %s are sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("The GPU has %s free, and a layer asks for a new %s "
                                                 "tensor that no cached block fits."), free_, req));
  }
  setup = _gml_script_last_step (r);
  {
    GmlBar *bar = _gml_script_bar (r, g_strdup (_("Requested")));

    bar->parts[GML_BAR_REQUESTED] = request;
  }

  _gml_script_alloc (r, "request", GML_CATEGORY_ACTIVATIONS, request);
  {
    guint64 tried = segment, device_free = spare;
    g_autofree char *seg = NULL;
    g_autofree char *free_ = NULL;
    g_autofree char *pytorch = NULL;
    g_autofree char *rule = NULL;
    GmlBar *bar;

    last_oom (r, &tried, &device_free);
    seg = _gml_script_size (r, tried);
    free_ = _gml_script_size (r, device_free);
    pytorch = gml_format_size (tried * r->sc->scale);
    if (gml_pool_for_size (rounded) == GML_POOL_SMALL)
      /* Translators: %s is a size. */
      rule = g_strdup_printf (_("a request of at most 1 MiB takes a %s small-pool segment"), seg);
    else if (rounded < GML_MIN_LARGE_ALLOC)
      rule = g_strdup_printf (_("a request below 10 MiB takes a %s segment"), seg);
    else
      rule = g_strdup_printf (_("a request of 10 MiB or more takes a segment of its size rounded "
                                "up to 2 MiB, %s"), seg);
    if (r->oom)
      /* Translators: the request, the rule (a clause), the free size, PyTorch's figure. */
      _gml_script_end_step (r, g_strdup_printf (_("The %s request needs a new segment — %s — and the "
                                                   "GPU has only %s free: the message says “Tried to "
                                                   "allocate %s”, the segment, not the tensor."),
                                                 req, rule, free_, pytorch));
    else
      _gml_script_end_step (r, g_strdup_printf (_("The %s request got a new segment: %s."), req, rule));
    bar = _gml_script_bar (r, g_strdup (_("Segment asked of the GPU")));
    bar->parts[GML_BAR_SEGMENT] = tried;
    bar->marked = TRUE;
    bar = _gml_script_bar (r, g_strdup (_("Free on the GPU")));
    bar->parts[GML_BAR_DEVICE_FREE] = device_free;
    _gml_script_key (r, "request", request);
    _gml_script_key (r, "segment", tried);
    _gml_script_key (r, "device_free", device_free);
  }
  r->sc->setup_step = setup;
  r->sc->focus_step = _gml_script_last_step (r);
}

/* Block rounding, pools and splitting, in a fresh process. */
static void
script_rounding (GmlScript           *r,
                 const GmlExperiment *e)
{
  guint64 request = V ("request");
  GmlAllocConf conf;
  guint64 rounded;
  GmlBlockInfo block = { 0 };
  guint64 segment;
  g_autofree char *req = NULL;
  GmlBar *bar;

  gml_alloc_conf_init (&conf);
  rounded = gml_round_size (&conf, request);
  req = exact_size (r, request);
  {
    g_autofree char *title = NULL;

    /* Translators: %s is a size such as "1000 B". */
    title = g_strdup_printf (_("Rounding: what a tensor of %s really takes"), req);
    start (r, title, GML_VIEW_COMPARISON);
  }
  _gml_script_begin_run (r, NULL, MAX (64 * MiB, 2 * round_up (gml_allocation_size (rounded), 2 * MiB)),
                         0, NULL, FALSE);
  /* Translators: %s is a size. */
  _gml_script_end_step (r, g_strdup_printf (_("A fresh process: nothing is reserved yet, and a tensor "
                                               "of %s is created."), req));
  bar = _gml_script_bar (r, g_strdup (_("Requested")));
  bar->parts[GML_BAR_REQUESTED] = request;

  _gml_script_alloc (r, "tensor", GML_CATEGORY_ACTIVATIONS, request);
  _gml_script_block (r, "tensor", &block);
  segment = _gml_script_segment_of (r, "tensor");
  {
    g_autofree char *blk = exact_size (r, block.size);
    g_autofree char *seg = exact_size (r, segment);
    g_autofree char *rnd = exact_size (r, rounded);
    g_autofree char *rest = exact_size (r, segment - block.size);
    g_autofree char *left = exact_size (r, segment - rounded);
    char *caption;

    if (block.pool == GML_POOL_SMALL)
      /* Translators: all %s are sizes. */
      caption = g_strdup_printf (_("%s rounds up to a multiple of 512 B: a %s block, so "
                                   "memory_allocated() = %s. A request of at most 1 MiB is served "
                                   "from the small pool, which takes a %s segment: "
                                   "memory_reserved() = %s."),
                                 req, blk, blk, seg, seg);
    else if (block.size > rounded && rounded >= GML_MIN_LARGE_ALLOC)
      caption = g_strdup_printf (_("%s is 10 MiB or more: its segment is rounded up to %s, a "
                                   "multiple of 2 MiB. The %s left over is not more than 1 MiB, so "
                                   "the block is not split: memory_allocated() grows by %s, "
                                   "requested_bytes by %s."),
                                 req, seg, left, blk, req);
    else if (block.size > rounded)
      caption = g_strdup_printf (_("%s takes a new %s segment. The %s left over is not more than "
                                   "1 MiB, so the block is not split: memory_allocated() grows by "
                                   "%s, requested_bytes by %s."),
                                 req, seg, left, blk, req);
    else if (segment > block.size)
      caption = g_strdup_printf (_("%s rounds to a %s block in a new %s segment; the other %s is "
                                   "split off and stays cached: memory_allocated() = %s, "
                                   "memory_reserved() = %s."),
                                 req, blk, seg, rest, blk, seg);
    else
      caption = g_strdup_printf (_("%s rounds to %s, and its segment is exactly that size: "
                                   "memory_allocated() = memory_reserved() = %s."),
                                 req, rnd, blk);
    _gml_script_end_step (r, caption);
  }
  bar = _gml_script_bar (r, g_strdup (_("Block (memory_allocated())")));
  bar->parts[GML_BAR_BLOCK] = block.size;
  bar->marked = TRUE;
  bar = _gml_script_bar (r, g_strdup (_("Segment (memory_reserved())")));
  bar->parts[GML_BAR_SEGMENT] = segment;
  bar->marked = TRUE;
  /* A few hundred bytes beside a 2 MiB segment would be a one-pixel line: the
   * request and its block get a scale of their own, the segment its own. */
  if (segment > 256 * block.size)
    {
      for (guint i = 0; i < r->sc->bars->len; i++)
        ((GmlBar *) g_ptr_array_index (r->sc->bars, i))->scale_group = 1;
      bar->scale_group = 2;
      g_free (r->sc->bar_unit);
      /* Translators: a note under the bars. */
      r->sc->bar_unit = g_strdup (_("Requested and block are drawn to one scale, the segment to "
                                    "another: it is thousands of times larger."));
    }
  {
    g_autofree char *blk = exact_size (r, block.size);
    g_autofree char *seg = exact_size (r, segment);

    /* Translators: both %s are sizes. */
    _gml_script_mark (r, "tensor", TRUE, g_strdup_printf (_("block %s in a %s segment"), blk, seg));
  }
  _gml_script_key (r, "request", request);
  _gml_script_key (r, "memory_allocated", block.size);
  _gml_script_key (r, "memory_reserved", segment);
  r->sc->setup_step = 0;
  r->sc->focus_step = _gml_script_last_step (r);
}

/* empty_cache() and a segment that still holds a live tensor. */
/* Short-lived tensors interleaved with long-lived ones: each pair shares a 20 MiB
 * segment; once the short ones are freed, every segment still holds a long one, so
 * none can be released and their holes cannot serve a larger request. */
static void
script_mixed_lifetimes (GmlScript           *r,
                        const GmlExperiment *e)
{
  guint pairs = (guint) V ("pairs");
  guint64 tensor = V ("tensor"), request = V ("request");
  guint64 before, after, inactive;
  g_autofree char *t = NULL;
  g_autofree char *req = NULL;

  start (r, _("Long-lived and short-lived tensors, allocated in turn"), GML_VIEW_MEMORY_MAP);
  r->sc->views |= 1u << GML_VIEW_FRAGMENTATION;
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  t = _gml_script_size (r, tensor);
  req = _gml_script_size (r, request);
  for (guint i = 0; i < pairs; i++)
    {
      g_autofree char *s_label = g_strdup_printf ("short %u", i + 1);
      g_autofree char *l_label = g_strdup_printf ("long %u", i + 1);

      _gml_script_alloc (r, s_label, GML_CATEGORY_TEMPORARY, tensor);
      _gml_script_alloc (r, l_label, GML_CATEGORY_ACTIVATIONS, tensor);
    }
  {
    guint n = _gml_script_stats (r)->segment[GML_STAT_ALL].current;
    g_autofree char *res = _gml_script_size (r, _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current);

    /* Translators: %u pairs; a size; %u segments; a size. */
    _gml_script_end_step (r, g_strdup_printf (_("%u short-lived and %u long-lived tensors of %s, "
                                                 "allocated in turn, share %u segments (%s "
                                                 "reserved)."),
                                               pairs, pairs, t, n, res));
  }
  for (guint i = 0; i < pairs; i++)
    {
      g_autofree char *s_label = g_strdup_printf ("short %u", i + 1);

      _gml_script_free (r, s_label);
    }
  _gml_script_empty_cache (r);
  before = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current;
  inactive = _gml_script_stats (r)->inactive_split_bytes[GML_STAT_ALL].current;
  {
    g_autofree char *b = _gml_script_size (r, before);
    g_autofree char *in = _gml_script_size (r, inactive);

    /* Translators: all %s are sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("The short-lived tensors are freed and "
                                                 "empty_cache() is called: every segment still holds "
                                                 "a long-lived tensor, so none goes back; %s stay "
                                                 "reserved, %s of it free in pieces between them."),
                                               b, in));
  }
  r->sc->setup_step = _gml_script_last_step (r);
  _gml_script_alloc (r, "request", GML_CATEGORY_ACTIVATIONS, request);
  after = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current;
  {
    g_autofree char *in = _gml_script_size (r, inactive);
    g_autofree char *grow = _gml_script_size (r, after - before);
    g_autofree char *a = _gml_script_size (r, after);
    g_autofree char *b = _gml_script_size (r, before);

    /* Translators: all %s are sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("%s are free, but no piece holds %s: the request "
                                                 "takes a new %s segment and memory_reserved() "
                                                 "grows from %s to %s."),
                                               in, req, grow, b, a));
    _gml_script_mark (r, "request", TRUE, g_strdup_printf (_("new %s segment"), grow));
    _gml_script_mark (r, "long 1", TRUE, g_strdup (_("held by a long-lived tensor")));
  }
  _gml_script_key (r, "inactive_split", inactive);
  _gml_script_key (r, "growth", after - before);
  _gml_script_key (r, "memory_reserved", after);
  r->sc->focus_step = _gml_script_last_step (r);
}

/* Many tiny tensors: each takes a 512-byte block, and the small pool packs them
 * into 2 MiB segments. */
static void
script_many_small (GmlScript           *r,
                   const GmlExperiment *e)
{
  guint count = (guint) V ("count");
  guint64 size = V ("size"), allocated, reserved, requested;
  guint segments;
  g_autofree char *sz = NULL;

  start (r, _("Many tiny tensors in the small pool"), GML_VIEW_MEMORY_MAP);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  sz = _gml_script_size (r, size);
  _gml_script_alloc (r, "t 1", GML_CATEGORY_TEMPORARY, size);
  {
    g_autofree char *block = _gml_script_size (r, _gml_script_stats (r)->allocated_bytes[GML_STAT_ALL].current);

    /* Translators: the first %s is a size, the second a block size. */
    _gml_script_end_step (r, g_strdup_printf (_("The first tensor of %s gets a block of %s from a "
                                                 "new 2 MiB segment of the small pool."),
                                               sz, block));
  }
  /* Before the answer, nothing yet: the first block's size is half the answer. */
  r->sc->setup_step = 0;
  for (guint i = 1; i < count && r->fatal == NULL && !r->oom; i++)
    {
      char label[32];

      g_snprintf (label, sizeof label, "t %u", i + 1);
      _gml_script_alloc (r, label, GML_CATEGORY_TEMPORARY, size);
    }
  allocated = _gml_script_stats (r)->allocated_bytes[GML_STAT_ALL].current;
  reserved = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current;
  requested = _gml_script_stats (r)->requested_bytes[GML_STAT_ALL].current;
  segments = _gml_script_stats (r)->segment[GML_STAT_ALL].current;
  {
    g_autofree char *al = _gml_script_size (r, allocated);
    g_autofree char *res = _gml_script_size (r, reserved);
    g_autofree char *rq = _gml_script_size (r, requested);

    /* Translators: %u tensors, a size, the requested bytes, allocated, %u segments, reserved. */
    _gml_script_end_step (r, g_strdup_printf (_("%u tensors of %s ask for %s, but each block is "
                                                 "512 bytes: memory_allocated() is %s, in %u "
                                                 "segments of 2 MiB, so memory_reserved() is %s."),
                                               count, sz, rq, al, segments, res));
  }
  _gml_script_mark (r, "t 1", TRUE, g_strdup (_("one 2 MiB segment of 512-byte blocks")));
  _gml_script_key (r, "memory_allocated", allocated);
  _gml_script_key (r, "memory_reserved", reserved);
  r->sc->focus_step = _gml_script_last_step (r);
}

static void
script_live_segment (GmlScript           *r,
                     const GmlExperiment *e)
{
  guint64 live = V ("live");
  guint64 segment;
  GmlBlockInfo block = { 0 };
  g_autofree char *l = NULL;

  start (r, _("empty_cache() and a segment with a live tensor"), GML_VIEW_MEMORY_MAP);
  _gml_script_begin_run (r, NULL, 64 * MiB, 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "tensor", GML_CATEGORY_ACTIVATIONS, live);
  _gml_script_block (r, "tensor", &block);
  segment = _gml_script_segment_of (r, "tensor");
  l = _gml_script_size (r, live);
  {
    g_autofree char *seg = _gml_script_size (r, segment);
    g_autofree char *rest = _gml_script_size (r, segment - block.size);

    /* Translators: all %s are sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("The process holds one %s segment: a live %s tensor "
                                                 "and %s of free cached memory."), seg, l, rest));
  }
  _gml_script_empty_cache (r);
  {
    const GmlStats *st = _gml_script_stats (r);
    g_autofree char *seg = _gml_script_size (r, segment);
    g_autofree char *res = _gml_script_size (r, st->reserved_bytes[GML_STAT_ALL].current);
    g_autofree char *split = _gml_script_size (r, st->inactive_split_bytes[GML_STAT_ALL].current);

    /* Translators: all %s are sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("empty_cache() returns only segments that are "
                                                 "entirely free: this %s segment holds the live %s "
                                                 "tensor, so memory_reserved() stays %s and the free "
                                                 "%s remain, as inactive split memory."),
                                               seg, l, res, split));
    _gml_script_mark (r, "tensor", TRUE, g_strdup_printf (_("%s segment, kept"), seg));
    _gml_script_key (r, "memory_reserved", st->reserved_bytes[GML_STAT_ALL].current);
    _gml_script_key (r, "memory_allocated", st->allocated_bytes[GML_STAT_ALL].current);
    _gml_script_key (r, "inactive_split", st->inactive_split_bytes[GML_STAT_ALL].current);
  }
  r->sc->setup_step = 1;
  r->sc->focus_step = _gml_script_last_step (r);
}

static gboolean
check_retry (const GmlExperiment *e,
             char               **field,
             char               **reason)
{
  if (V ("weights") + V ("count") * round_up (V ("cached"), 2 * MiB) > V ("capacity"))
    {
      *field = g_strdup ("experiment.capacity");
      *reason = g_strdup (_("must hold the weights and the cached tensors"));
      return FALSE;
    }
  return TRUE;
}

/* Before raising out of memory the allocator returns whole free segments and
 * tries once more. */
static void
script_retry (GmlScript           *r,
              const GmlExperiment *e)
{
  guint count = V ("count");
  guint64 request = V ("request");
  guint64 cached_total, retries;
  guint setup;
  g_autofree char *req = NULL;

  start (r, _("What the allocator tries before out of memory"), GML_VIEW_MEMORY_MAP);
  _gml_script_begin_run (r, NULL, V ("capacity"), 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "weights", GML_CATEGORY_WEIGHTS, V ("weights"));
  for (guint i = 0; i < count; i++)
    {
      g_autofree char *label = g_strdup_printf ("temporary%u", i + 1);
      _gml_script_alloc (r, label, GML_CATEGORY_TEMPORARY, V ("cached"));
    }
  _gml_script_end_step (r, g_strdup (_("The weights and a few temporaries are allocated.")));
  for (guint i = 0; i < count; i++)
    {
      g_autofree char *label = g_strdup_printf ("temporary%u", i + 1);
      _gml_script_free (r, label);
    }
  cached_total = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current
                 - _gml_script_stats (r)->allocated_bytes[GML_STAT_ALL].current;
  req = _gml_script_size (r, request);
  {
    g_autofree char *cached = _gml_script_size (r, cached_total);
    g_autofree char *free_ = _gml_script_size (r, _gml_script_device_free (r));

    /* Translators: %u tensors; then sizes. */
    _gml_script_end_step (r, g_strdup_printf (ngettext ("The %u temporary is freed: %s stays cached "
                                                           "as whole free segments, %s is free on the "
                                                           "GPU, and %s is requested next.",
                                                           "The %u temporaries are freed: %s stay cached "
                                                           "as whole free segments, %s are free on the "
                                                           "GPU, and %s are requested next.", count),
                                              count, cached, free_, req));
  }
  setup = _gml_script_last_step (r);
  {
    guint64 free_before = _gml_script_device_free (r);

    retries = _gml_script_stats (r)->num_alloc_retries;
    _gml_script_alloc (r, "request", GML_CATEGORY_ACTIVATIONS, request);
    retries = _gml_script_stats (r)->num_alloc_retries - retries;
    {
      g_autofree char *free_ = _gml_script_size (r, free_before);
      g_autofree char *cached = _gml_script_size (r, cached_total);
      g_autofree char *seg = _gml_script_size (r, _gml_script_segment_of (r, "request"));
      char *caption;

      if (!r->oom)
        /* Translators: size, size, count, size, size. */
        caption = g_strdup_printf (ngettext ("No cached block fits the %s request and the GPU has "
                                                "only %s free: the allocator returns its %u whole "
                                                "free segment (%s) to the device and retries once — "
                                                "now the new %s segment fits (num_alloc_retries = 1).",
                                                "No cached block fits the %s request and the GPU has "
                                                "only %s free: the allocator returns its %u whole "
                                                "free segments (%s) to the device and retries once — "
                                                "now the new %s segment fits (num_alloc_retries = 1).",
                                                count),
                                   req, free_, count, cached, seg);
      else
        caption = g_strdup_printf (ngettext ("No cached block fits the %s request and the GPU has "
                                                "only %s free: the allocator returns its %u whole "
                                                "free segment (%s) to the device and retries once — "
                                                "still no room, so it raises out of memory.",
                                                "No cached block fits the %s request and the GPU has "
                                                "only %s free: the allocator returns its %u whole "
                                                "free segments (%s) to the device and retries once — "
                                                "still no room, so it raises out of memory.",
                                                count),
                                   req, free_, count, cached);
      _gml_script_end_step (r, caption);
      if (!r->oom)
        _gml_script_mark (r, "request", TRUE, g_strdup_printf (_("new %s segment, after the retry"),
                                                                seg));
      _gml_script_key (r, "request", request);
      _gml_script_key (r, "cached_segments", cached_total);
      _gml_script_key (r, "device_free", free_before);
    }
  }
  r->sc->setup_step = setup;
  r->sc->focus_step = _gml_script_last_step (r);
}

static gboolean
check_new_segment (const GmlExperiment *e,
                   char               **field,
                   char               **reason)
{
  if (V ("first") >= GML_MIN_LARGE_ALLOC)
    {
      *field = g_strdup ("experiment.first");
      *reason = g_strdup (_("must be below 10 MiB, so that the segment is a shared 20 MiB one"));
      return FALSE;
    }
  if (V ("first") + V ("second") >= GML_LARGE_BUFFER)
    {
      *field = g_strdup ("experiment.second");
      *reason = g_strdup (_("the two free pieces must leave room for a live tensor in the 20 MiB "
                            "segment"));
      return FALSE;
    }
  return TRUE;
}

/* Two free pieces with a live tensor between them, and a request neither fits. */
static void
script_new_segment (GmlScript           *r,
                    const GmlExperiment *e)
{
  guint64 first = V ("first"), second = V ("second"), request = V ("request");
  guint64 segment, between;
  guint setup;
  g_autofree char *f1 = NULL;
  g_autofree char *f2 = NULL;
  g_autofree char *req = NULL;
  g_autofree char *seg = NULL;

  start (r, _("Two free pieces with a live tensor between them, and a request"),
         GML_VIEW_MEMORY_MAP);
  r->sc->views |= 1u << GML_VIEW_FRAGMENTATION;
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "a", GML_CATEGORY_TEMPORARY, first);
  segment = _gml_script_segment_of (r, "a");
  between = segment - gml_round_size (gml_allocator_get_conf (r->run->allocator), first)
            - gml_round_size (gml_allocator_get_conf (r->run->allocator), second);
  _gml_script_alloc (r, "live", GML_CATEGORY_ACTIVATIONS, between);
  _gml_script_alloc (r, "b", GML_CATEGORY_TEMPORARY, second);
  f1 = _gml_script_size (r, first);
  f2 = _gml_script_size (r, second);
  seg = _gml_script_size (r, segment);
  req = _gml_script_size (r, request);
  {
    g_autofree char *l = _gml_script_size (r, between);

    /* Translators: all %s are sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("Three tensors fill one %s segment: %s, %s and %s."),
                                               seg, f1, l, f2));
    _gml_script_free (r, "a");
    _gml_script_free (r, "b");
    _gml_script_end_step (r, g_strdup_printf (_("The first and the last are freed: the %s segment "
                                                 "has free pieces of %s and %s with a live %s tensor "
                                                 "between them."), seg, f1, f2, l));
  }
  setup = _gml_script_last_step (r);
  {
    guint64 before = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current;
    guint64 after, new_segment;
    g_autofree char *total = _gml_script_size (r, first + second);
    g_autofree char *b = _gml_script_size (r, before);
    g_autofree char *a = NULL;
    g_autofree char *ns = NULL;

    _gml_script_alloc (r, "request", GML_CATEGORY_ACTIVATIONS, request);
    after = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current;
    new_segment = after - before;
    a = _gml_script_size (r, after);
    ns = _gml_script_size (r, new_segment);
    /* Translators: all %s are sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("%s are free, but as %s and %s with a live tensor "
                                                 "between them: the %s request fits neither, so a new "
                                                 "%s segment is taken and memory_reserved() grows "
                                                 "from %s to %s."),
                                               total, f1, f2, req, ns, b, a));
    _gml_script_mark (r, "request", TRUE, g_strdup_printf (_("new %s segment"), ns));
    _gml_script_mark (r, "live", TRUE, g_strdup_printf (_("%s free as %s + %s"), total, f1, f2));
    _gml_script_key (r, "growth", new_segment);
    _gml_script_key (r, "request", request);
  }
  r->sc->setup_step = setup;
  r->sc->focus_step = _gml_script_last_step (r);
}

/* Memory outside PyTorch's allocator: the CUDA context. */
static void
script_context (GmlScript           *r,
                const GmlExperiment *e)
{
  guint64 context = V ("context");
  GmlBar *bar;

  if (IS ("point", "smi-gap") || IS ("point", "nccl"))
    {
      guint64 reserved = V ("reserved"), nccl = IS ("point", "nccl") ? V ("nccl") : 0;
      guint64 exact[] = { reserved / 4 };
      guint64 s = choose_scale (reserved + context + nccl, lab_arena (r), exact, 1, 2 * MiB);
      guint64 chunk, other;

      start (r, _("memory_reserved() and nvidia-smi"), GML_VIEW_COMPARISON);
      set_scale (r, s);
      chunk = round_up (reserved / 4 / s, 2 * MiB);
      other = (context + nccl) / s;
      _gml_script_begin_run (r, NULL, 4 * chunk + other, other, NULL, FALSE);
      first_step (r);
      for (guint i = 0; i < 4; i++)
        {
          g_autofree char *label = g_strdup_printf ("tensor%u", i + 1);
          _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, chunk);
        }
      _gml_script_end_step (r, g_strdup (_("Training allocates its tensors.")));
      _gml_script_free (r, "tensor4");
      {
        const GmlStats *st = _gml_script_stats (r);
        guint64 res = st->reserved_bytes[GML_STAT_ALL].current;
        guint64 alloc = st->allocated_bytes[GML_STAT_ALL].current;
        g_autofree char *rs = _gml_script_size (r, res);
        g_autofree char *cached = _gml_script_size (r, res - alloc);
        g_autofree char *ctx = _gml_script_size (r, other);
        g_autofree char *all = _gml_script_size (r, res + other);

        g_autofree char *nc = _gml_script_size (r, nccl / s);
        g_autofree char *cx = _gml_script_size (r, context / s);

        if (nccl > 0)
          /* Translators: all %s are sizes. */
          _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("memory_reserved() = %s: "
                                                                     "PyTorch’s segments, DDP’s "
                                                                     "gradient buckets and the %s "
                                                                     "of cached free blocks "
                                                                     "included. nvidia-smi also "
                                                                     "counts what is outside the "
                                                                     "allocator: the CUDA context "
                                                                     "(%s) and NCCL’s "
                                                                     "communication "
                                                                     "buffers (%s): %s in all."),
                                                                   rs, cached, cx, nc, all)));
        else
        /* Translators: all %s are sizes. */
        _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("memory_reserved() = %s: "
                                                                   "PyTorch’s segments, the %s of "
                                                                   "cached free blocks included. "
                                                                   "nvidia-smi also counts memory "
                                                                   "outside the allocator, above all "
                                                                   "the CUDA context (%s here): %s in "
                                                                   "all."),
                                                                 rs, cached, ctx, all)));
        bar = _gml_script_bar (r, g_strdup ("memory_reserved()"));
        _gml_script_bar_measure (r, bar, FALSE);
        bar = _gml_script_bar (r, g_strdup (_("nvidia-smi: the process")));
        _gml_script_bar_measure (r, bar, FALSE);
        bar->parts[GML_BAR_OTHER] = other;
        bar->marked = TRUE;
        bar->reveal = TRUE;
        _gml_script_key (r, "memory_reserved", res);
        _gml_script_key (r, "context", context / s);
        if (nccl > 0)
          _gml_script_key (r, "nccl", nccl / s);
      }
      r->sc->setup_step = 1;
      r->sc->focus_step = _gml_script_last_step (r);
      return;
    }

  start (r, _("The first CUDA call and the CUDA context"), GML_VIEW_COMPARISON);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, context, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "tiny", GML_CATEGORY_TEMPORARY, 4);
  {
    const GmlStats *st = _gml_script_stats (r);
    guint64 res = st->reserved_bytes[GML_STAT_ALL].current;
    GmlBlockInfo block = { 0 };
    g_autofree char *all = _gml_script_size (r, res + context);
    g_autofree char *ctx = _gml_script_size (r, context);
    g_autofree char *seg = _gml_script_size (r, res);
    g_autofree char *blk = NULL;

    _gml_script_block (r, "tiny", &block);
    blk = exact_size (r, block.size);
    /* Translators: %s is a size. */
    _gml_script_end_step (r, g_strdup_printf (_("The first CUDA operation creates a tiny tensor, and "
                                                 "nvidia-smi shows the process using %s."), all));
    r->sc->setup_step = _gml_script_last_step (r);
    bar = _gml_script_bar (r, g_strdup (_("nvidia-smi: the process")));
    _gml_script_bar_measure (r, bar, FALSE);
    bar->parts[GML_BAR_OTHER] = context;
    bar->marked = TRUE;
    bar->reveal = TRUE;
    /* Translators: all %s are sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("Most of the %s nvidia-smi shows is the CUDA context "
                                                 "(%s here), which the process needs before anything "
                                                 "runs on the GPU; the tiny tensor takes a %s block in "
                                                 "one %s small-pool segment."),
                                               all, ctx, blk, seg));
    bar = _gml_script_bar (r, g_strdup ("memory_reserved()"));
    _gml_script_bar_measure (r, bar, FALSE);
    _gml_script_key (r, "context", context);
    _gml_script_key (r, "memory_reserved", res);
  }
  r->sc->focus_step = _gml_script_last_step (r);
}

static gboolean
check_max_split (const GmlExperiment *e,
                 char               **field,
                 char               **reason)
{
  if (V ("max_split") % MiB != 0 || V ("max_split") <= GML_LARGE_BUFFER)
    {
      *field = g_strdup ("experiment.max_split");
      *reason = g_strdup (_("must be a whole number of MiB above 20 MiB, as max_split_size_mb"));
      return FALSE;
    }
  return TRUE;
}

/* One cached block, one request, with and without max_split_size_mb. */
static void
max_split_run (GmlScript           *r,
               const GmlExperiment *e,
               gboolean             with_option)
{
  guint64 cached = V ("cached"), request = V ("request");
  g_autofree char *conf_text = g_strdup_printf ("max_split_size_mb:%" G_GUINT64_FORMAT,
                                                V ("max_split") / MiB);
  g_autofree char *c = _gml_script_size (r, cached);
  g_autofree char *req = _gml_script_size (r, request);
  GmlAllocConf conf;
  guint64 before;
  GmlBlockInfo block = { 0 };
  GmlBar *bar;

  gml_alloc_conf_init (&conf);
  if (with_option)
    gml_alloc_conf_parse (&conf, conf_text, NULL);
  _gml_script_begin_run (r, g_strdup (with_option ? conf_text : _("No max_split_size_mb")),
                         GML_SCRIPT_LAB_ARENA, 0, &conf, FALSE);
  /* Translators: %s names the setting, e.g. "max_split_size_mb:64". */
  _gml_script_end_step (r, with_option ? g_strdup_printf (_("Start, with %s."), conf_text)
                                       : g_strdup (_("Start, without max_split_size_mb.")));
  _gml_script_alloc (r, "cached", GML_CATEGORY_TEMPORARY, cached);
  _gml_script_free (r, "cached");
  /* Translators: %s is a size. */
  _gml_script_end_step (r, g_strdup_printf (_("A tensor of %s is freed: its block is the only free "
                                               "cached block."), c));
  r->sc->setup_step = _gml_script_last_step (r);
  before = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current;
  /* The tensor is named by what it asked for: its block may be larger. */
  g_autofree char *label = g_strdup_printf (_("%s tensor"), req);

  _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, request);
  _gml_script_block (r, label, &block);
  {
    const GmlStats *st = _gml_script_stats (r);
    guint64 after = st->reserved_bytes[GML_STAT_ALL].current;
    g_autofree char *b = _gml_script_size (r, before);
    g_autofree char *a = _gml_script_size (r, after);
    g_autofree char *grow = _gml_script_size (r, after - before);
    g_autofree char *blk = _gml_script_size (r, block.size);
    g_autofree char *ms = _gml_script_size (r, V ("max_split"));
    g_autofree char *bound = _gml_script_size (r, request + GML_LARGE_BUFFER);
    char *caption;

    if (after > before && with_option)
      /* Translators: sizes, and the setting's text. */
      caption = g_strdup_printf (_("With %s, the %s request may not take a cached block of %s or "
                                   "more, so the %s block stays whole and a new %s segment is taken: "
                                   "memory_reserved() grows from %s to %s."),
                                 conf_text, req, ms, c, grow, b, a);
    else if (after > before)
      caption = g_strdup_printf (_("No cached block fits: a new %s segment is taken, "
                                   "memory_reserved() grows from %s to %s."), grow, b, a);
    else if (block.size > gml_round_size (&conf, request) && with_option)
      caption = g_strdup_printf (_("With %s, the %s request may take a cached block smaller than "
                                   "%s (the request + 20 MiB): the %s block is handed out whole, "
                                   "not split, so memory_allocated() grows by %s and "
                                   "requested_bytes by %s."),
                                 conf_text, req, bound, c, blk, req);
    else if (block.size > gml_round_size (&conf, request))
      caption = g_strdup_printf (_("The %s block is handed out whole: memory_allocated() grows by "
                                   "%s."), c, blk);
    else
      caption = g_strdup_printf (_("Without the option the %s request splits the %s block: "
                                   "memory_allocated() grows by %s and memory_reserved() stays %s."),
                                 req, c, blk, a);
    _gml_script_end_step (r, caption);
    bar = _gml_script_bar (r, g_strdup (with_option ? conf_text : _("No max_split_size_mb")));
    _gml_script_bar_measure (r, bar, FALSE);
    bar->marked = with_option;
    if (with_option && after > before)
      {
        /* Drawn as what it is: the cached block whole, and a new segment
         * beside it, not a tensor cut from the block (which the bar of the
         * run without the option shows). */
        memset (bar->parts, 0, sizeof bar->parts);
        bar->parts[GML_BAR_SEGMENT] = after - before;
        bar->parts[GML_BAR_CACHED] = cached;
      }
    if (with_option)
      {
        _gml_script_mark (r, label, after > before,
                          after > before ? g_strdup_printf (_("new %s segment"), grow)
                                         : g_strdup_printf (_("%s block, whole"), blk));
        _gml_script_key (r, "cached", cached);
        _gml_script_key (r, "request", request);
        _gml_script_key (r, "growth", after > before ? after - before : block.size);
      }
  }
}

static void
script_max_split (GmlScript           *r,
                  const GmlExperiment *e)
{
  g_autofree char *c = _gml_script_size (r, V ("cached"));
  g_autofree char *req = _gml_script_size (r, V ("request"));
  g_autofree char *title = NULL;

  /* The setting, not the conclusion: what the option does is the question. */
  /* Translators: sizes, then the setting's value in MiB. */
  title = g_strdup_printf (_("A %s block is free; a %s request comes (max_split_size_mb:%u)"),
                           c, req, (guint) (V ("max_split") / MiB));
  start (r, title, GML_VIEW_MEMORY_MAP);
  if (V ("compare"))
    {
      max_split_run (r, e, FALSE);
      r->sc->focus_view = GML_VIEW_COMPARISON;
    }
  max_split_run (r, e, TRUE);
  r->sc->focus_step = _gml_script_last_step (r);
  if (V ("compare"))
    {
      /* One sentence for both runs: the point is the difference. */
      g_autofree char *grow = _gml_script_size (r, reserved_at (r, r->sc->focus_step)
                                                   - reserved_at (r, r->sc->focus_step - 1));
      g_autofree char *ms = _gml_script_size (r, V ("max_split"));

      /* Translators: all %s are sizes. */
      _gml_script_set_caption (r, r->sc->focus_step,
                               g_strdup_printf (_("Without the option the %s request splits the "
                                                  "cached %s block; with max_split_size_mb set to "
                                                  "%s, blocks that large are kept whole for large "
                                                  "requests, and the small one gets a new %s "
                                                  "segment instead."),
                                                req, c, ms, grow));
    }
}

/* The cache is per stream. */
static void
script_streams (GmlScript           *r,
                const GmlExperiment *e)
{
  guint64 cached = V ("cached"), request = V ("request");
  g_autofree char *c = NULL;
  g_autofree char *req = NULL;

  if (IS ("point", "free-too-early"))
    {
      GmlBlockInfo x = { 0 }, y = { 0 };
      g_autofree char *xa = NULL;
      g_autofree char *ya = NULL;

      start (r, _("Freeing a tensor another stream still reads"), GML_VIEW_MEMORY_MAP);
      _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
      first_step (r);
      c = _gml_script_size (r, cached);
      _gml_script_alloc_on (r, 0, "x", GML_CATEGORY_ACTIVATIONS, cached);
      _gml_script_block (r, "x", &x);
      xa = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", x.address);
      /* Translators: %s is a size, the second %s an address such as 0x7f0000000000. */
      _gml_script_end_step (r, g_strdup_printf (_("x (%s) is allocated on the default stream at %s; "
                                                   "a kernel on a side stream starts reading it."),
                                                 c, xa));
      _gml_script_free (r, "x");
      _gml_script_end_step (r, g_strdup (_("The program drops its last reference to x while the "
                                           "side stream’s kernel may still run: the block goes "
                                           "back to the cache at once.")));
      r->sc->setup_step = _gml_script_last_step (r);
      _gml_script_alloc_on (r, 0, "y", GML_CATEGORY_TEMPORARY, cached);
      _gml_script_block (r, "y", &y);
      ya = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", y.address);
      /* Translators: %s is an address. */
      _gml_script_end_step (r, g_strdup_printf (y.address == x.address
                                                ? _("The next tensor on the default stream, y, gets "
                                                    "x’s block at the same address %s and may be "
                                                    "written while the side stream still reads x. "
                                                    "x.record_stream(side_stream), or waiting on an "
                                                    "event, would keep the block until the side "
                                                    "stream’s work is done (the lab does not "
                                                    "simulate record_stream()).")
                                                : _("The next tensor on the default stream, y, got "
                                                    "another block (%s)."), ya));
      _gml_script_mark (r, "y", FALSE, g_strdup_printf (_("y, at x’s address %s"), xa));
      _gml_script_key (r, "x", cached);
      r->sc->focus_step = _gml_script_last_step (r);
      return;
    }

  if (IS ("point", "record-stream"))
    {
      GmlBlockInfo x = { 0 }, y = { 0 };
      guint64 allocated, active;
      g_autofree char *xa = NULL;
      g_autofree char *ya = NULL;

      start (r, _("A freed block another stream still uses: pending free"), GML_VIEW_MEMORY_MAP);
      _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
      first_step (r);
      c = _gml_script_size (r, cached);
      _gml_script_alloc_on (r, 0, "x", GML_CATEGORY_ACTIVATIONS, cached);
      _gml_script_block (r, "x", &x);
      xa = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", x.address);
      _gml_script_record_stream (r, "x", 1);
      /* Translators: %s is a size, the second %s an address such as 0x7f0000000000. */
      _gml_script_end_step (r, g_strdup_printf (_("x (%s, at %s) is allocated on the default stream; "
                                                   "a kernel on a side stream reads it, and "
                                                   "x.record_stream(side_stream) tells the allocator."),
                                                 c, xa));
      r->sc->setup_step = _gml_script_last_step (r);
      _gml_script_free (r, "x");
      allocated = _gml_script_stats (r)->allocated_bytes[GML_STAT_ALL].current;
      active = _gml_script_stats (r)->active_bytes[GML_STAT_ALL].current;
      {
        g_autofree char *al = _gml_script_size (r, allocated);
        g_autofree char *ac = _gml_script_size (r, active);

        /* Translators: the first %s is a size; then memory_allocated() and the active bytes. */
        _gml_script_end_step (r, g_strdup_printf (_("The program frees x while the side stream may "
                                                     "still read it: the %s block is pending free "
                                                     "(active_pending_free in a snapshot) until the "
                                                     "event the allocator recorded on the side stream "
                                                     "completes. memory_allocated() is %s, active "
                                                     "memory still %s, and no request can have the "
                                                     "block."),
                                                   c, al, ac));
      }
      _gml_script_mark_at (r, x.address, FALSE, g_strdup_printf (_("x: pending free, %s"), c));
      _gml_script_key (r, "pending_free", active - allocated);
      _gml_script_key (r, "memory_allocated", allocated);
      r->sc->focus_step = _gml_script_last_step (r);
      _gml_script_synchronize (r, 1);
      _gml_script_alloc_on (r, 0, "y", GML_CATEGORY_TEMPORARY, cached);
      _gml_script_block (r, "y", &y);
      ya = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", y.address);
      /* Translators: %s is an address. */
      _gml_script_end_step (r, g_strdup_printf (y.address == x.address
                                                ? _("Once the side stream’s work is done, the next "
                                                    "request finds the block free: y gets x’s "
                                                    "block at %s.")
                                                : _("Once the side stream’s work is done, the "
                                                    "block is free again; y got another one (%s)."),
                                                ya));
      return;
    }

  start (r, _("A block cached on stream A, a request on stream B"), GML_VIEW_MEMORY_MAP);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  c = _gml_script_size (r, cached);
  req = _gml_script_size (r, request);
  _gml_script_alloc_on (r, 1, "x", GML_CATEGORY_TEMPORARY, cached);
  _gml_script_free (r, "x");
  /* Translators: %s is a size. */
  _gml_script_end_step (r, g_strdup_printf (_("A tensor of %s allocated on stream A is freed: its "
                                               "block is the only free cached block."), c));
  r->sc->setup_step = _gml_script_last_step (r);
  {
    guint64 before = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current, after;
    g_autofree char *b = _gml_script_size (r, before);
    g_autofree char *a = NULL;
    g_autofree char *grow = NULL;

    _gml_script_alloc_on (r, 2, "on B", GML_CATEGORY_ACTIVATIONS, request);
    after = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current;
    a = _gml_script_size (r, after);
    grow = _gml_script_size (r, after - before);
    /* Translators: all %s are sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("The %s cached block belongs to stream A, so the %s "
                                                 "request on stream B cannot use it: a new %s segment "
                                                 "is taken and memory_reserved() grows from %s to %s."),
                                               c, req, grow, b, a));
    _gml_script_mark (r, "on B", TRUE, g_strdup_printf (_("stream B: new %s segment"), grow));
    _gml_script_key (r, "growth", after - before);
    _gml_script_key (r, "cached", cached);
    _gml_script_key (r, "request", request);
    if (IS ("point", "reuse"))
      {
        guint64 again;
        g_autofree char *g2 = NULL;

        _gml_script_alloc_on (r, 1, "on A", GML_CATEGORY_ACTIVATIONS, request);
        again = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current;
        g2 = _gml_script_size (r, again);
        _gml_script_end_step (r, g_strdup_printf (_("The same %s request on stream A is served from "
                                                     "stream A’s cached %s block (memory_reserved() "
                                                     "stays %s); the one on stream B needed a new %s "
                                                     "segment."),
                                                   req, c, g2, grow));
        _gml_script_mark (r, "on A", FALSE, g_strdup_printf (_("stream A: from the cached %s block"),
                                                              c));
      }
  }
  r->sc->focus_step = _gml_script_last_step (r);
}

/* ------------------------------------------------------------------------- */
/* Training memory                                                           */

typedef struct
{
  const char  *label;
  GmlCategory  category;
  guint        bytes;          /* per parameter */
} StatePart;

typedef struct
{
  const char      *name;       /* N_() */
  const StatePart *parts;
  guint            n_parts;
} StateRun;

/* The labels name tensors in the picture and in captions: translated (N_). */
static const StatePart sgd_parts[] = {
  { N_("weights (fp32)"), GML_CATEGORY_WEIGHTS, 4 },
  { N_("gradients (fp32)"), GML_CATEGORY_GRADIENTS, 4 },
};
static const StatePart adam_fp32_parts[] = {
  { N_("weights (fp32)"), GML_CATEGORY_WEIGHTS, 4 },
  { N_("gradients (fp32)"), GML_CATEGORY_GRADIENTS, 4 },
  { "adam.exp_avg (fp32)", GML_CATEGORY_OPTIMIZER_STATE, 4 },
  { "adam.exp_avg_sq (fp32)", GML_CATEGORY_OPTIMIZER_STATE, 4 },
};
static const StatePart mixed_parts[] = {
  { N_("weights (fp16)"), GML_CATEGORY_WEIGHTS, 2 },
  { N_("gradients (fp16)"), GML_CATEGORY_GRADIENTS, 2 },
  { N_("master weights (fp32)"), GML_CATEGORY_OPTIMIZER_STATE, 4 },
  { "adam.exp_avg (fp32)", GML_CATEGORY_OPTIMIZER_STATE, 4 },
  { "adam.exp_avg_sq (fp32)", GML_CATEGORY_OPTIMIZER_STATE, 4 },
};
/* ZeRO, DeepSpeed and Megatron-LM in bf16: 16-bit weights and gradients, the
 * optimizer's fp32 master copy and moments. */
static const StatePart zero_bf16_parts[] = {
  { N_("weights (bf16)"), GML_CATEGORY_WEIGHTS, 2 },
  { N_("gradients (bf16)"), GML_CATEGORY_GRADIENTS, 2 },
  { N_("master weights (fp32)"), GML_CATEGORY_OPTIMIZER_STATE, 4 },
  { "adam.exp_avg (fp32)", GML_CATEGORY_OPTIMIZER_STATE, 4 },
  { "adam.exp_avg_sq (fp32)", GML_CATEGORY_OPTIMIZER_STATE, 4 },
};
static const StatePart mixed_fp32_grad_parts[] = {
  { N_("weights (fp16)"), GML_CATEGORY_WEIGHTS, 2 },
  { N_("gradients (fp32)"), GML_CATEGORY_GRADIENTS, 4 },
  { N_("master weights (fp32)"), GML_CATEGORY_OPTIMIZER_STATE, 4 },
  { "adam.exp_avg (fp32)", GML_CATEGORY_OPTIMIZER_STATE, 4 },
  { "adam.exp_avg_sq (fp32)", GML_CATEGORY_OPTIMIZER_STATE, 4 },
};

static guint
run_bytes (const StateRun *run)
{
  guint sum = 0;

  for (guint i = 0; i < run->n_parts; i++)
    sum += run->parts[i].bytes;
  return sum;
}

/* Allocates one run's model state, one step per tensor, and returns its bar. */
static GmlBar *
state_run (GmlScript      *r,
           const StateRun *run,
           guint64         params,
           guint64         capacity)
{
  GmlBar *bar;

  _gml_script_begin_run (r, g_strdup (_(run->name)), capacity, 0, NULL, FALSE);
  for (guint i = 0; i < run->n_parts; i++)
    {
      g_autofree char *size = NULL;

      _gml_script_alloc (r, _(run->parts[i].label), run->parts[i].category,
                         params * run->parts[i].bytes);
      size = _gml_script_size (r, params * run->parts[i].bytes);
      /* Translators: the run's name, a tensor's name, bytes per parameter, a size. */
      _gml_script_end_step (r, g_strdup_printf (_("%s: %s, %u B per parameter: %s."),
                                                 _(run->name), _(run->parts[i].label),
                                                 run->parts[i].bytes, size));
    }
  bar = _gml_script_bar (r, g_strdup (_(run->name)));
  _gml_script_bar_measure (r, bar, TRUE);
  return bar;
}

static guint64
bar_total (const GmlBar *bar)
{
  guint64 sum = 0;

  for (guint i = 0; i < GML_N_BAR_PARTS; i++)
    sum += bar->parts[i];
  return sum;
}

/* Weights, gradients and optimizer state by the accountings the questions use. */
static void
script_model_state (GmlScript           *r,
                    const GmlExperiment *e)
{
  guint64 params = V ("parameters");
  static const StateRun sgd = { N_("SGD"), sgd_parts, G_N_ELEMENTS (sgd_parts) };
  static const StateRun adam = { N_("Adam"), adam_fp32_parts, G_N_ELEMENTS (adam_fp32_parts) };
  static const StateRun fp32 = { N_("Adam in fp32"), adam_fp32_parts, G_N_ELEMENTS (adam_fp32_parts) };
  static const StateRun mixed = { N_("Mixed-precision Adam"), mixed_parts, G_N_ELEMENTS (mixed_parts) };
  static const StateRun fp16g = { N_("fp16 gradients (ZeRO)"), mixed_parts, G_N_ELEMENTS (mixed_parts) };
  static const StateRun fp32g = { N_("fp32 gradients"), mixed_fp32_grad_parts,
                                  G_N_ELEMENTS (mixed_fp32_grad_parts) };
  /* PyTorch's torch.autocast leaves the parameters, their gradients and the
   * optimizer's state in fp32 (the amp examples create model and optimizer "in
   * default precision"); its 16-bit copies live for one pass. */
  static const StateRun autocast = { N_("torch.autocast"), adam_fp32_parts,
                                     G_N_ELEMENTS (adam_fp32_parts) };
  static const StateRun zero_bf16 = { N_("ZeRO layout, bf16"), zero_bf16_parts,
                                      G_N_ELEMENTS (zero_bf16_parts) };
  const StateRun *runs[2] = { NULL, NULL };
  GmlBar *bars[2] = { NULL, NULL };
  guint n_runs, max_bytes = 0;
  guint64 s, p, capacity;
  g_autofree char *count = format_count (params);
  char *caption = NULL;

  if (IS ("accounting", "sgd-vs-adam"))
    runs[0] = &sgd, runs[1] = &adam;
  else if (IS ("accounting", "fp32-grads"))
    runs[0] = &fp16g, runs[1] = &fp32g;
  else if (IS ("accounting", "fp32-vs-mixed"))
    runs[0] = &fp32, runs[1] = &mixed;
  else if (IS ("accounting", "autocast-vs-zero"))
    runs[0] = &zero_bf16, runs[1] = &autocast;
  else
    runs[0] = &mixed;
  n_runs = runs[1] != NULL ? 2 : 1;
  for (guint i = 0; i < n_runs; i++)
    max_bytes = MAX (max_bytes, run_bytes (runs[i]));

  start (r, _("Weights, gradients and optimizer state"), GML_VIEW_COMPARISON);
  r->sc->decimal = TRUE;   /* the papers count in GB */
  capacity = lab_arena (r);
  s = choose_scale (params * max_bytes, capacity, &params, 1, 1);
  set_scale (r, s);
  p = params / s;
  /* Translators: %s is a parameter count such as "7 billion". */
  _gml_script_begin_run (r, NULL, capacity, 0, NULL, FALSE);
  _gml_script_end_step (r, g_strdup_printf (_("A model with %s parameters."), count));
  for (guint i = 0; i < n_runs; i++)
    bars[i] = state_run (r, runs[i], p, capacity);
  bars[n_runs - 1]->marked = TRUE;

  {
    const GmlBar *b0 = bars[0], *b1 = bars[n_runs - 1];
    g_autofree char *t0 = _gml_script_size (r, bar_total (b0));
    g_autofree char *t1 = _gml_script_size (r, bar_total (b1));
    g_autofree char *w = _gml_script_size (r, b1->parts[GML_CATEGORY_WEIGHTS]);
    g_autofree char *g = _gml_script_size (r, b1->parts[GML_CATEGORY_GRADIENTS]);
    g_autofree char *o = _gml_script_size (r, b1->parts[GML_CATEGORY_OPTIMIZER_STATE]);
    /* Bytes per parameter, read back from the engine's sums. */
    guint bpp0 = bar_total (b0) / p, bpp1 = bar_total (b1) / p;
    guint w1 = b1->parts[GML_CATEGORY_WEIGHTS] / p, g1 = b1->parts[GML_CATEGORY_GRADIENTS] / p;
    guint o1 = b1->parts[GML_CATEGORY_OPTIMIZER_STATE] / p;
    guint g0 = b0->parts[GML_CATEGORY_GRADIENTS] / p, w0 = b0->parts[GML_CATEGORY_WEIGHTS] / p;
    guint o0 = b0->parts[GML_CATEGORY_OPTIMIZER_STATE] / p;

    if (IS ("accounting", "sgd-vs-adam"))
      {
        g_autofree char *more = _gml_script_size (r, bar_total (b1) - bar_total (b0));

        /* Translators: count; size, bytes; bytes, size, size. */
        caption = g_strdup_printf (_("For the same %s parameters SGD holds %s (weights and gradients, "
                                     "%u B per parameter); Adam adds two fp32 moments, %u B per "
                                     "parameter: %s more, %s in all."),
                                   count, t0, bpp0, o1, more, t1);
      }
    else if (IS ("accounting", "zero-parts"))
      caption = g_strdup_printf (_("%u B per parameter: %u B of fp16 weights, %u B of fp16 gradients "
                                   "and %u B of optimizer state — the fp32 master weights (4 B) and "
                                   "Adam’s two fp32 moments (4 B + 4 B). For %s parameters: %s, %s "
                                   "and %s."),
                                 bpp1, w1, g1, o1, count, w, g, o);
    else if (IS ("accounting", "mixed"))
      caption = g_strdup_printf (_("%s parameters × %u B = %s: weights %s, gradients %s and "
                                   "optimizer state %s (fp32 master weights and two moments)."),
                                 count, bpp1, t1, w, g, o);
    else if (IS ("accounting", "autocast-vs-zero"))
      {
        g_autofree char *w0s = _gml_script_size (r, b0->parts[GML_CATEGORY_WEIGHTS]);

        /* Translators: count; size, bytes; size, bytes; size, bytes; size; size. */
        caption = g_strdup_printf (_("Under torch.autocast the %s parameters stay fp32: weights %s "
                                     "(%u B per parameter), gradients %s (%u B) and AdamW’s "
                                     "moments "
                                     "%s (%u B). The ZeRO layout keeps %s of bf16 weights and puts "
                                     "an fp32 master copy in the optimizer. Both hold %s."),
                                   count, w, w1, g, g1, o, o1, w0s, t1);
      }
    else if (IS ("accounting", "fp32-grads"))
      caption = g_strdup_printf (_("fp32 gradients take %u B instead of %u B per parameter: "
                                   "%u + %u + %u = %u B per parameter, %s for %s parameters instead "
                                   "of %s."),
                                 g1, g0, w1, g1, o1, bpp1, t1, count, t0);
    else
      caption = g_strdup_printf (_("Adam in fp32: %u + %u + %u = %u B per parameter, %s; mixed "
                                   "precision: %u + %u + %u = %u B, also %s. Mixed precision saves "
                                   "memory in the activations, not here."),
                                 w0, g0, o0, bpp0, t0, w1, g1, o1, bpp1, t1);
    _gml_script_set_caption (r, _gml_script_last_step (r), with_scale (r, caption));
    _gml_script_key (r, "total", bar_total (b1));
    if (n_runs == 2)
      _gml_script_key (r, "total_first", bar_total (b0));
  }
  /* Before the answer: the first run's weights only; where the question asks
   * for the weights themselves, only the model. */
  r->sc->setup_step = IS ("accounting", "autocast-vs-zero") ? 0 : 1;
  r->sc->focus_step = _gml_script_last_step (r);
}

/* ZeRO and FSDP: the same model state, sharded over N GPUs. */
static void
script_zero (GmlScript           *r,
             const GmlExperiment *e)
{
  guint64 params = V ("parameters");
  guint gpus = V ("gpus");
  guint64 exact[] = { params };
  guint64 s, p, capacity;
  g_autofree char *count = format_count (params);
  GmlBar *bar;

  start (r, IS ("point", "per-gpu") ? _("ZeRO stage 3: model state per GPU")
                                    : _("What ZeRO shards, stage by stage"),
         GML_VIEW_COMPARISON);
  r->sc->decimal = TRUE;
  capacity = lab_arena (r);
  s = choose_scale (params * 16, capacity, exact, 1, gpus);
  set_scale (r, s);
  p = params / s;

  if (IS ("point", "per-gpu"))
    {
      guint64 total, shard;

      _gml_script_begin_run (r, g_strdup (_("Without sharding")), capacity, 0, NULL, FALSE);
      first_step (r);
      for (guint i = 0; i < G_N_ELEMENTS (mixed_parts); i++)
        _gml_script_alloc (r, mixed_parts[i].label, mixed_parts[i].category, p * mixed_parts[i].bytes);
      /* Translators: %s is a parameter count, the second a size. */
      {
        g_autofree char *t = _gml_script_size (r, requested_now (r));

        _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("%s parameters, 16 B each by the "
                                                                   "ZeRO accounting: %s of model "
                                                                   "state on one GPU."), count, t)));
      }
      bar = _gml_script_bar (r, g_strdup (_("Without sharding")));
      _gml_script_bar_measure (r, bar, TRUE);
      total = bar_total (bar);
      r->sc->setup_step = _gml_script_last_step (r);
      for (guint g = 0; g < gpus; g++)
        {
          /* Translators: %u is a GPU's number. */
          g_autofree char *name = g_strdup_printf (_("GPU %u"), g);

          /* Each GPU is a device of its own: one at a time, on the lab's arena. */
          _gml_script_begin_run (r, g_strdup (name), capacity, 0, NULL, FALSE);
          for (guint i = 0; i < G_N_ELEMENTS (mixed_parts); i++)
            {
              g_autofree char *label = g_strdup_printf ("%s shard", mixed_parts[i].label);
              _gml_script_alloc (r, label, mixed_parts[i].category, p / gpus * mixed_parts[i].bytes);
            }
          {
            g_autofree char *sh = _gml_script_size (r, requested_now (r));

            /* Translators: a GPU's name, then a size. */
            _gml_script_end_step (r, g_strdup_printf (_("%s holds its shard: %s."), name, sh));
          }
          bar = _gml_script_bar (r, g_strdup (name));
          _gml_script_bar_measure (r, bar, TRUE);
          bar->marked = TRUE;
        }
      shard = bar_total (bar);
      {
        g_autofree char *t = _gml_script_size (r, total);
        g_autofree char *sh = _gml_script_size (r, shard);

        /* Translators: count, size, number of GPUs, size. */
        _gml_script_set_caption (r, _gml_script_last_step (r),
                                 with_scale (r, g_strdup_printf (_("%s parameters × 16 B = %s of model "
                                                                   "state. ZeRO stage 3 splits the "
                                                                   "weights, gradients and optimizer "
                                                                   "state evenly over %u GPUs: %s on "
                                                                   "each, before any activations or "
                                                                   "weights gathered for a moment."),
                                                                 count, t, gpus, sh)));
        _gml_script_key (r, "total", total);
        _gml_script_key (r, "per_gpu", shard);
      }
      r->sc->focus_step = _gml_script_last_step (r);
      return;
    }

  /* Stages 0–3 on one GPU of N. */
  {
    static const char *names[] = {
      N_("Data parallel"), N_("ZeRO stage 1"), N_("ZeRO stage 2"), N_("ZeRO stage 3 / FSDP")
    };
    guint64 totals[4];

    for (guint stage = 0; stage < 4; stage++)
      {
        _gml_script_begin_run (r, g_strdup (_(names[stage])), capacity, 0, NULL, FALSE);
        if (stage == 0)
          first_step (r);
        for (guint i = 0; i < G_N_ELEMENTS (mixed_parts); i++)
          {
            const StatePart *part = &mixed_parts[i];
            gboolean sharded = (part->category == GML_CATEGORY_OPTIMIZER_STATE && stage >= 1) ||
                               (part->category == GML_CATEGORY_GRADIENTS && stage >= 2) ||
                               (part->category == GML_CATEGORY_WEIGHTS && stage >= 3);

            _gml_script_alloc (r, part->label, part->category,
                               (sharded ? p / gpus : p) * part->bytes);
          }
        {
          g_autofree char *t = _gml_script_size (r, requested_now (r));

          /* Translators: a stage's name, a size. */
          _gml_script_end_step (r, g_strdup_printf (_("%s: GPU 0 holds %s of model state."),
                                                     _(names[stage]), t));
        }
        bar = _gml_script_bar (r, g_strdup (_(names[stage])));
        _gml_script_bar_measure (r, bar, TRUE);
        bar->marked = stage == 3;
        totals[stage] = bar_total (bar);
        if (stage == 0)
          r->sc->setup_step = _gml_script_last_step (r);
      }
    {
      g_autofree char *t0 = _gml_script_size (r, totals[0]);
      g_autofree char *t1 = _gml_script_size (r, totals[1]);
      g_autofree char *t2 = _gml_script_size (r, totals[2]);
      g_autofree char *t3 = _gml_script_size (r, totals[3]);

      /* Translators: count of GPUs, then four sizes. */
      _gml_script_set_caption (r, _gml_script_last_step (r),
                               with_scale (r, g_strdup_printf (_("Per GPU, with %u GPUs: data "
                                                                 "parallelism keeps the whole model "
                                                                 "state, %s; ZeRO stage 1 shards the "
                                                                 "optimizer state (%s), stage 2 also "
                                                                 "the gradients (%s), stage 3 — FSDP’s "
                                                                 "full sharding — also the weights "
                                                                 "(%s)."),
                                                               gpus, t0, t1, t2, t3)));
      _gml_script_key (r, "data_parallel", totals[0]);
      _gml_script_key (r, "stage3", totals[3]);
    }
    r->sc->focus_step = _gml_script_last_step (r);
  }
}

/* FSDP's forward pass: gather a layer, compute, free the copy. */
static void
script_fsdp_gather (GmlScript           *r,
                    const GmlExperiment *e)
{
  guint layers = V ("layers"), gpus = V ("gpus");
  guint64 layer = V ("layer"), shard = round_up (layer / gpus, GML_MIN_BLOCK_SIZE);
  guint64 act = layer / 4;
  guint focus_layer = MIN (2, layers);
  g_autofree char *l = NULL;
  g_autofree char *sh = NULL;

  start (r, _("FSDP: each GPU holds a shard of every layer"), GML_VIEW_MEMORY_MAP);
  _gml_script_begin_run (r, g_strdup (_("GPU 0")), GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  l = _gml_script_size (r, layer);
  sh = _gml_script_size (r, shard);
  for (guint i = 1; i <= layers; i++)
    {
      g_autofree char *label = g_strdup_printf ("layer%u shard", i);
      _gml_script_alloc (r, label, GML_CATEGORY_WEIGHTS, shard);
    }
  /* Translators: %u GPUs, %u layers, sizes. */
  _gml_script_end_step (r, g_strdup_printf (_("GPU 0 of %u holds a %s shard of each of the %u "
                                               "layers (%s each in full)."), gpus, sh, layers, l));
  r->sc->setup_step = _gml_script_last_step (r);
  for (guint i = 1; i <= layers && r->fatal == NULL; i++)
    {
      g_autofree char *full = g_strdup_printf ("layer%u (gathered)", i);
      g_autofree char *out = g_strdup_printf ("layer%u.out", i);

      _gml_script_alloc (r, full, GML_CATEGORY_TEMPORARY, layer);
      /* Translators: layer number, size, number of GPUs. */
      _gml_script_end_step (r, g_strdup_printf (_("Layer %u: all-gather its full weights (%s) from "
                                                   "the %u GPUs."), i, l, gpus));
      _gml_script_alloc (r, out, GML_CATEGORY_ACTIVATIONS, act);
      if (i == focus_layer)
        {
          g_autofree char *peak = _gml_script_size (r, allocated_now (r));

          /* Translators: layer, size, GPUs, size, size. */
          _gml_script_end_step (r, g_strdup_printf (_("For layer %u’s forward pass GPU 0 gathers the "
                                                       "full %s from all %u GPUs and computes its "
                                                       "part of the batch; then it frees the copy and "
                                                       "keeps only its %s shard, so one layer at a "
                                                       "time is held in full (%s allocated now)."),
                                                     i, l, gpus, sh, peak));
          r->sc->focus_step = _gml_script_last_step (r);
          _gml_script_mark (r, full, FALSE, g_strdup_printf (_("layer %u, gathered: %s"), i, l));
          _gml_script_key (r, "layer", layer);
          _gml_script_key (r, "shard", shard);
        }
      else
        _gml_script_end_step (r, g_strdup_printf (_("Layer %u computes its output."), i));
      _gml_script_free (r, full);
      _gml_script_end_step (r, g_strdup_printf (_("Layer %u: the gathered copy is freed."), i));
    }
}

/* Chen et al.: activation memory grows with n without checkpointing, with √n with it. */
static void
script_checkpointing_depth (GmlScript           *r,
                            const GmlExperiment *e)
{
  GmlScenario *sc = r->sc;
  guint n = V ("layers"), factor = V ("factor");
  guint depths[2] = { n, n * factor };
  guint64 peaks[4];
  guint64 layer_bytes;
  GmlBar *bar;

  start (r, _("Checkpointing and depth"), GML_VIEW_COMPARISON);
  layer_bytes = MAX (round_down (lab_arena (r) / (n * factor) / 2, 2 * MiB), 2 * MiB);
  for (guint i = 0; i < 4 && r->fatal == NULL; i++)
    {
      guint depth = depths[i % 2];
      gboolean ckpt = i >= 2;
      guint segment = ckpt ? (guint) ceil (sqrt ((double) depth)) : 1;
      g_autofree char *name = ckpt ? g_strdup_printf (_("%u layers, √n checkpoints"), depth)
                                   : g_strdup_printf (_("%u layers, no checkpointing"), depth);
      const GmlCheckpointStrategy *st;

      _gml_script_begin_run (r, g_strdup (name), GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
      if (i == 0)
        first_step (r);
      sc->n_layers = depth;
      sc->layer_bytes = layer_bytes;
      st = _gml_script_checkpoint_strategy (r, segment, g_strdup (name));
      peaks[i] = st->peak_bytes;
      bar = _gml_script_bar (r, g_strdup (name));
      bar->parts[ckpt ? GML_CATEGORY_TEMPORARY : GML_CATEGORY_ACTIVATIONS] = 0;
      bar->parts[GML_CATEGORY_ACTIVATIONS] = st->peak_bytes;
      bar->marked = ckpt;
      if (i == 0)
        sc->setup_step = _gml_script_last_step (r);
    }
  /* The strategies ran with different depths: no single checkpointing chart. */
  g_ptr_array_set_size (sc->strategies, 0);
  sc->n_layers = 0;
  if (r->fatal != NULL)
    return;
  {
    g_autofree char *a = _gml_script_size (r, peaks[0]);
    g_autofree char *b = _gml_script_size (r, peaks[1]);
    g_autofree char *c = _gml_script_size (r, peaks[2]);
    g_autofree char *d = _gml_script_size (r, peaks[3]);
    g_autofree char *r1 = format_ratio ((double) peaks[1] / MAX (peaks[0], 1));
    g_autofree char *r2 = format_ratio ((double) peaks[3] / MAX (peaks[2], 1));

    /* Translators: factor, layers, layers; sizes and ratios. */
    _gml_script_set_caption (r, _gml_script_last_step (r),
                             g_strdup_printf (_("%u× deeper (%u → %u layers): without checkpointing "
                                                "the activations’ peak grows from %s to %s (%s×); "
                                                "with √n checkpoints only from %s to %s (%s×)."),
                                              factor, n, n * factor, a, b, r1, c, d, r2));
    _gml_script_key (r, "peak_sqrt_small", peaks[2]);
    _gml_script_key (r, "peak_sqrt_deep", peaks[3]);
  }
  sc->focus_step = _gml_script_last_step (r);
}

/* A small model for the training-loop experiments: per layer, a weight and an
 * activation tensor; gradients are as large as the weights. */
static void
alloc_weights (GmlScript *r,
               guint      layers,
               guint64    weight)
{
  for (guint i = 1; i <= layers; i++)
    {
      g_autofree char *label = g_strdup_printf ("layer%u.weight", i);
      _gml_script_alloc (r, label, GML_CATEGORY_WEIGHTS, weight);
    }
}

static void
alloc_grads (GmlScript *r,
             guint      layers,
             guint64    weight)
{
  for (guint i = layers; i >= 1; i--)
    {
      g_autofree char *label = g_strdup_printf ("layer%u.weight.grad", i);
      _gml_script_alloc (r, label, GML_CATEGORY_GRADIENTS, weight);
    }
}

static void
free_grads (GmlScript *r,
            guint      layers)
{
  for (guint i = 1; i <= layers; i++)
    {
      g_autofree char *label = g_strdup_printf ("layer%u.weight.grad", i);
      _gml_script_free (r, label);
    }
}

static void
forward (GmlScript  *r,
         const char *prefix,
         guint       layers,
         guint64     activation)
{
  for (guint i = 1; i <= layers; i++)
    {
      g_autofree char *label = g_strdup_printf ("%slayer%u.out", prefix, i);
      _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, activation);
    }
}

/* The backward pass: each layer's gradient is written (added into .grad when it
 * exists) and its saved activation freed, from the last layer down. */
static void
backward (GmlScript  *r,
          const char *prefix,
          guint       layers,
          guint64     weight)
{
  for (guint i = layers; i >= 1; i--)
    {
      g_autofree char *grad = g_strdup_printf ("layer%u.weight.grad", i);
      g_autofree char *act = g_strdup_printf ("%slayer%u.out", prefix, i);

      if (!_gml_script_is_live (r, grad))
        _gml_script_alloc (r, grad, GML_CATEGORY_GRADIENTS, weight);
      _gml_script_free (r, act);
    }
}

static void
script_zero_grad (GmlScript           *r,
                  const GmlExperiment *e)
{
  guint layers = V ("layers");
  guint64 weight = V ("weight"), activation = V ("activation");
  GmlBar *bar;

  if (IS ("point", "placement"))
    {
      guint64 peak[2], grads = layers * weight, acts = layers * activation;

      start (r, _("Where zero_grad() goes in a training step"), GML_VIEW_COMPARISON);
      for (guint run = 0; run < 2 && r->fatal == NULL; run++)
        {
          gboolean early = run == 0;

          _gml_script_begin_run (r, g_strdup (early ? _("zero_grad() before the forward pass")
                                                    : _("zero_grad() after the forward pass")),
                                 GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
          if (run == 0)
            first_step (r);
          alloc_weights (r, layers, weight);
          alloc_grads (r, layers, weight);
          _gml_script_end_step (r, g_strdup (_("The previous step left its gradients allocated.")));
          if (early)
            {
              free_grads (r, layers);
              _gml_script_end_step (r, g_strdup (_("optimizer.zero_grad(set_to_none=True) frees "
                                                   "them.")));
            }
          forward (r, "", layers, activation);
          _gml_script_end_step (r, g_strdup (_("The forward pass stores its activations.")));
          peak[run] = allocated_now (r);
          bar = _gml_script_bar (r, g_strdup (early ? _("zero_grad() before the forward pass")
                                                    : _("zero_grad() after the forward pass")));
          _gml_script_bar_measure (r, bar, FALSE);
          bar->parts[GML_BAR_CACHED] = 0;
          bar->marked = early;
          if (run == 0)
            r->sc->setup_step = _gml_script_last_step (r) - 2;
          if (!early)
            {
              free_grads (r, layers);
              _gml_script_end_step (r, g_strdup (_("zero_grad() frees the old gradients only now.")));
            }
          backward (r, "", layers, weight);
          _gml_script_end_step (r, g_strdup (_("backward() writes fresh gradients and frees the "
                                               "activations.")));
        }
      {
        g_autofree char *g = _gml_script_size (r, grads);
        g_autofree char *a = _gml_script_size (r, acts);
        g_autofree char *p0 = _gml_script_size (r, peak[0]);
        g_autofree char *p1 = _gml_script_size (r, peak[1]);

        /* Translators: all %s are sizes. */
        _gml_script_set_caption (r, _gml_script_last_step (r),
                                 g_strdup_printf (_("Called before the forward pass (or right after "
                                                    "optimizer.step()), zero_grad() frees the old "
                                                    "gradients (%s) before the activations (%s) are "
                                                    "stored: peak %s. Called after the forward pass, "
                                                    "both are held at once: peak %s."),
                                                  g, a, p0, p1));
        _gml_script_key (r, "peak_early", peak[0]);
        _gml_script_key (r, "peak_late", peak[1]);
      }
      r->sc->focus_step = _gml_script_last_step (r);
      return;
    }

  start (r, _("zero_grad(set_to_none=True) and the gradients’ memory"), GML_VIEW_TIMELINE);
  for (guint run = 0; run < 2 && r->fatal == NULL; run++)
    {
      gboolean none = run == 1;
      guint64 before;

      _gml_script_begin_run (r, g_strdup (none ? "set_to_none=True" : "set_to_none=False"),
                             GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
      if (run == 0)
        first_step (r);
      alloc_weights (r, layers, weight);
      forward (r, "", layers, activation);
      _gml_script_end_step (r, g_strdup (_("Forward pass: weights and activations.")));
      backward (r, "", layers, weight);
      _gml_script_end_step (r, g_strdup (_("backward() creates the gradients and frees the "
                                           "activations; optimizer.step() updates the weights.")));
      if (none)
        r->sc->setup_step = _gml_script_last_step (r);
      before = allocated_now (r);
      if (none)
        free_grads (r, layers);
      {
        const GmlStats *st = _gml_script_stats (r);
        g_autofree char *b = _gml_script_size (r, before);
        g_autofree char *a = _gml_script_size (r, st->allocated_bytes[GML_STAT_ALL].current);
        g_autofree char *res = _gml_script_size (r, st->reserved_bytes[GML_STAT_ALL].current);
        g_autofree char *g = _gml_script_size (r, layers * weight);

        if (none)
          /* Translators: all %s are sizes. */
          _gml_script_end_step (r, g_strdup_printf (_("zero_grad(set_to_none=True) sets every .grad to "
                                                       "None and frees the gradients: "
                                                       "memory_allocated() drops from %s to %s; "
                                                       "memory_reserved() stays %s, their %s of "
                                                       "blocks cached for the next backward(). "
                                                       "Writing zeros instead keeps them allocated."),
                                                     b, a, res, g));
        else
          _gml_script_end_step (r, g_strdup_printf (_("zero_grad(set_to_none=False) writes zeros into "
                                                       "the gradients: they stay allocated, "
                                                       "memory_allocated() stays %s."), a));
        bar = _gml_script_bar (r, g_strdup (none ? "set_to_none=True" : "set_to_none=False"));
        _gml_script_bar_measure (r, bar, FALSE);
        bar->marked = none;
        if (none)
          {
            _gml_script_key (r, "allocated_before", before);
            _gml_script_key (r, "allocated_after", st->allocated_bytes[GML_STAT_ALL].current);
            _gml_script_key (r, "reserved", st->reserved_bytes[GML_STAT_ALL].current);
          }
      }
    }
  r->sc->focus_step = _gml_script_last_step (r);
}

/* Gradient accumulation against a real batch, and a deferred backward(). */
static void
script_grad_accum (GmlScript           *r,
                   const GmlExperiment *e)
{
  guint micro = V ("micro_batch"), k = V ("micro_batches");
  guint64 act = V ("activations"), fixed = V ("fixed");
  guint64 s = 1, peak[2] = { 0, 0 };
  gboolean arithmetic = IS ("point", "arithmetic");
  gboolean deferred = IS ("point", "deferred");
  GmlBar *bars[2] = { NULL, NULL };
  char *caption;

  start (r, deferred ? _("Gradient accumulation: backward() at once or deferred")
                     : _("Gradient accumulation against a real batch"),
         GML_VIEW_COMPARISON);
  if (arithmetic)
    {
      guint64 exact[] = { act, fixed };

      s = choose_scale (fixed + k * act, lab_arena (r), exact, 2, 1);
      set_scale (r, s);
    }
  act /= s;
  fixed /= s;

  for (guint run = 0; run < 2 && r->fatal == NULL; run++)
    {
      /* Run 0: the comparison (a real batch, or a deferred backward); run 1: accumulation. */
      g_autofree char *name = NULL;
      guint64 top = 0;

      if (run == 1)
        /* Translators: number of micro-batches, examples per micro-batch. */
        name = g_strdup_printf (_("%u micro-batches of %u, accumulated"), k, micro);
      else if (deferred)
        name = g_strdup (_("sum(losses).backward() once"));
      else
        /* Translators: %u is a batch size. */
        name = g_strdup_printf (_("One batch of %u"), k * micro);

      _gml_script_begin_run (r, g_strdup (name), GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
      if (run == 0)
        first_step (r);
      if (arithmetic)
        _gml_script_alloc (r, "weights, gradients and optimizer state", GML_CATEGORY_NONE, fixed);
      else
        {
          _gml_script_alloc (r, "weights", GML_CATEGORY_WEIGHTS, fixed / 4);
          _gml_script_alloc (r, "gradients", GML_CATEGORY_GRADIENTS, fixed / 4);
          _gml_script_alloc (r, "adam state", GML_CATEGORY_OPTIMIZER_STATE, fixed / 2);
        }
      _gml_script_end_step (r, g_strdup (_("Weights, gradients and optimizer state: the same for "
                                           "every batch size.")));
      if (run == 0 && !deferred)
        {
          g_autofree char *label = g_strdup_printf ("activations (%u examples)", k * micro);

          _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, k * act);
          /* Translators: %u is a batch size. */
          _gml_script_end_step (r, g_strdup_printf (_("The forward pass of all %u examples."), k * micro));
          top = allocated_now (r);
          bars[run] = _gml_script_bar (r, g_strdup (name));
          _gml_script_bar_measure (r, bars[run], arithmetic);
          bars[run]->parts[GML_BAR_CACHED] = 0;
          _gml_script_free (r, label);
          _gml_script_end_step (r, g_strdup (_("backward() frees the activations into the "
                                               "gradients.")));
        }
      else
        {
          guint first_forward = 0;

          for (guint m = 1; m <= k; m++)
            {
              g_autofree char *label = g_strdup_printf ("activations, micro-batch %u", m);

              _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, act);
              /* Translators: micro-batch number, examples. */
              _gml_script_end_step (r, g_strdup_printf (_("Forward pass of micro-batch %u (%u "
                                                          "examples)."), m, micro));
              if (m == 1)
                first_forward = _gml_script_last_step (r);
              top = MAX (top, allocated_now (r));
              if (run == 1)
                {
                  _gml_script_free (r, label);
                  _gml_script_end_step (r, g_strdup_printf (_("backward() of micro-batch %u adds its "
                                                              "gradients into .grad and frees its "
                                                              "activations."), m));
                }
            }
          if (run == 0)
            {
              bars[run] = _gml_script_bar (r, g_strdup (name));
              _gml_script_bar_measure (r, bars[run], arithmetic);
              for (guint m = 1; m <= k; m++)
                {
                  g_autofree char *label = g_strdup_printf ("activations, micro-batch %u", m);
                  _gml_script_free (r, label);
                }
              /* Translators: %u is the number of micro-batches. */
              _gml_script_end_step (r, g_strdup_printf (_("One backward() through the %u graphs frees "
                                                          "all their activations."), k));
            }
          else
            /* The accumulation's peak: any micro-batch's forward pass, the first one. */
            bars[run] = _gml_script_bar_at_step (r, g_strdup (name), first_forward, arithmetic);
          bars[run]->parts[GML_BAR_CACHED] = 0;
        }
      peak[run] = top;
      if (run == 0)
        r->sc->setup_step = _gml_script_last_step (r);
    }
  if (r->fatal != NULL)
    return;
  bars[1]->marked = TRUE;
  {
    guint64 a0 = arithmetic ? bars[0]->parts[GML_CATEGORY_ACTIVATIONS] : peak[0] - fixed;
    guint64 a1 = arithmetic ? bars[1]->parts[GML_CATEGORY_ACTIVATIONS] : peak[1] - fixed;
    guint64 t0 = arithmetic ? bar_total (bars[0]) : peak[0];
    guint64 t1 = arithmetic ? bar_total (bars[1]) : peak[1];
    g_autofree char *sa0 = _gml_script_size (r, a0);
    g_autofree char *sa1 = _gml_script_size (r, a1);
    g_autofree char *st0 = _gml_script_size (r, t0);
    g_autofree char *st1 = _gml_script_size (r, t1);
    g_autofree char *sf = _gml_script_size (r, arithmetic ? fixed : fixed);
    g_autofree char *grads = _gml_script_size (r, fixed / 4);

    if (arithmetic)
      /* Translators: batch, micro-batches, size, size, size, size; micro-batches, examples, sizes. */
      caption = g_strdup_printf (_("A real batch of %u holds %u × %s = %s of activations + %s: %s. "
                                   "Accumulating %u micro-batches of %u holds one micro-batch’s %s at "
                                   "a time + %s: %s, at the price of %u passes one after another."),
                                 k * micro, k, sa1, sa0, sf, st0, k, micro, sa1, sf, st1, k);
    else if (deferred)
      caption = g_strdup_printf (_("Keeping the %u losses keeps their graphs, so the activations of "
                                   "all %u micro-batches are held at once (%s): peak %s, against %s "
                                   "when each backward() frees its micro-batch’s %s first."),
                                 k, k, sa0, st0, st1, sa1);
    else
      caption = g_strdup_printf (_("Accumulating %u micro-batches of %u holds the activations of %u "
                                   "examples (%s) and one set of gradients (%s): peak %s. A real "
                                   "batch of %u holds %s of activations: peak %s."),
                                 k, micro, micro, sa1, grads, st1, k * micro, sa0, st0);
    _gml_script_set_caption (r, _gml_script_last_step (r), with_scale (r, caption));
    _gml_script_key (r, "peak_comparison", t0);
    _gml_script_key (r, "peak_accumulation", t1);
  }
  r->sc->focus_step = _gml_script_last_step (r);
}

/* What autograd keeps during a forward pass, and what no_grad() does not. */
static void
script_no_grad (GmlScript           *r,
                const GmlExperiment *e)
{
  guint layers = V ("layers");
  guint64 weight = V ("weight"), activation = V ("activation");
  gboolean inference = IS ("point", "inference-mode");
  static const char *names[] = { N_("Autograd on"), "torch.no_grad()", "torch.inference_mode()" };
  guint n_runs = inference ? 3 : 2;
  guint64 peak[3] = { 0 };
  GmlBar *bar = NULL;

  start (r, inference ? _("inference_mode() and no_grad()") : _("Activations kept for backward()"),
         GML_VIEW_COMPARISON);
  for (guint run = 0; run < n_runs && r->fatal == NULL; run++)
    {
      _gml_script_begin_run (r, g_strdup (_(names[run])), GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
      if (run == 0)
        first_step (r);
      alloc_weights (r, layers, weight);
      /* Translators: %s names the mode, e.g. "torch.no_grad()". */
      _gml_script_end_step (r, g_strdup_printf (_("%s: the weights are loaded."), _(names[run])));
      for (guint i = 1; i <= layers; i++)
        {
          g_autofree char *label = g_strdup_printf ("layer%u.out", i);
          g_autofree char *prev = g_strdup_printf ("layer%u.out", i - 1);

          _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, activation);
          /* Without a graph, nothing needs the previous output once this layer has it. */
          if (run > 0 && i > 1)
            _gml_script_free (r, prev);
          peak[run] = MAX (peak[run], allocated_now (r));
          /* Translators: mode, layer number. */
          _gml_script_end_step (r, g_strdup_printf (run == 0 ? _("%s: layer %u’s output is saved for "
                                                                 "backward().")
                                                             : _("%s: layer %u’s output is computed; "
                                                                 "the one before it is freed."),
                                                    _(names[run]), i));
        }
      bar = _gml_script_bar (r, g_strdup (_(names[run])));
      _gml_script_bar_measure (r, bar, FALSE);
      bar->parts[GML_BAR_CACHED] = 0;
      bar->marked = run > 0;
      if (run == 0)
        r->sc->setup_step = _gml_script_last_step (r);
    }
  if (r->fatal != NULL)
    return;
  {
    g_autofree char *a = _gml_script_size (r, activation);
    g_autofree char *all = _gml_script_size (r, peak[0] - layers * weight);
    g_autofree char *few = _gml_script_size (r, peak[1] - layers * weight);

    if (inference)
      /* Translators: size, size. */
      _gml_script_set_caption (r, _gml_script_last_step (r),
                               g_strdup_printf (_("inference_mode() frees activations exactly as "
                                                  "no_grad() does: %s of activations at most in "
                                                  "both, against %s with autograd. What it also "
                                                  "drops — view tracking and version counters — is "
                                                  "bookkeeping, not GPU memory."), few, all));
    else
      /* Translators: count, size, size, size. */
      _gml_script_set_caption (r, _gml_script_last_step (r),
                               g_strdup_printf (_("With autograd on, every layer’s output is saved "
                                                  "for backward(): %u × %s = %s at the end of the "
                                                  "forward pass. Under no_grad() no graph is "
                                                  "recorded and each output is freed once the next "
                                                  "layer has used it: %s at most."),
                                                layers, a, all, few));
    _gml_script_key (r, "activations_autograd", peak[0] - layers * weight);
    _gml_script_key (r, "activations_no_grad", peak[1] - layers * weight);
  }
  r->sc->focus_step = _gml_script_last_step (r);
}

/* References that keep memory alive: a running loss tensor, kept outputs. */
static void
script_held_references (GmlScript           *r,
                        const GmlExperiment *e)
{
  guint64 weight = V ("weight");

  if (IS ("point", "loss"))
    {
      guint steps = V ("steps"), every = MAX (steps / 16, 1);
      guint64 end[2] = { 0, 0 };

      start (r, _("total_loss += loss"), GML_VIEW_TIMELINE);
      for (guint run = 0; run < 2 && r->fatal == NULL; run++)
        {
          gboolean tensor = run == 1;
          const char *name = tensor ? "total_loss += loss" : "total_loss += loss.item()";

          _gml_script_begin_run (r, g_strdup (name), GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
          if (run == 0)
            first_step (r);
          _gml_script_alloc (r, "model", GML_CATEGORY_WEIGHTS, weight);
          for (guint i = 1; i <= steps && r->fatal == NULL; i++)
            {
              g_autofree char *label = g_strdup_printf ("loss%u", i);

              /* A 0-dimensional fp32 loss: 4 bytes, one 512-byte block. */
              _gml_script_alloc (r, label, GML_CATEGORY_TEMPORARY, 4);
              if (!tensor)
                _gml_script_free (r, label);
              if (i % every == 0)
                {
                  g_autofree char *a = _gml_script_size (r, allocated_now (r));

                  /* Translators: the loop's code, a step number, a size. */
                  _gml_script_end_step (r, g_strdup_printf (_("%s, after %u steps: %s allocated."),
                                                             name, i, a));
                }
            }
          end[run] = allocated_now (r);
          if (run == 0)
            r->sc->setup_step = _gml_script_last_step (r);
        }
      if (r->fatal != NULL)
        return;
      {
        g_autofree char *grow = _gml_script_size (r, end[1] - weight);
        g_autofree char *per = exact_size (r, (end[1] - weight) / steps);
        g_autofree char *flat = _gml_script_size (r, end[0]);

        /* Translators: steps, size, size, size. */
        _gml_script_set_caption (r, _gml_script_last_step (r),
                                 g_strdup_printf (_("After %u steps, total_loss += loss keeps every "
                                                    "step’s loss tensor alive through its autograd "
                                                    "history: memory_allocated() grew by %s (%s a "
                                                    "step) and never stops growing. With "
                                                    "loss.item(), a plain Python number, it stays at "
                                                    "%s."), steps, grow, per, flat));
        _gml_script_key (r, "growth", end[1] - weight);
      }
      r->sc->focus_step = _gml_script_last_step (r);
      return;
    }

  {
    guint64 saved = V ("saved"), output = V ("output");
    guint n_batches = V ("batches");
    guint64 kept_end = 0, oom_at = 0;

    start (r, _("Outputs kept in a list"), GML_VIEW_TIMELINE);
    for (guint run = 0; run < 2 && r->fatal == NULL; run++)
      {
        gboolean graph = run == 1;
        const char *name = graph ? _("Outputs kept, autograd on") : "torch.no_grad()";

        _gml_script_begin_run (r, g_strdup (name), GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
        if (run == 0)
          first_step (r);
        _gml_script_alloc (r, "model", GML_CATEGORY_WEIGHTS, V ("model"));
        for (guint b = 1; b <= n_batches && r->fatal == NULL; b++)
          {
            g_autofree char *act = g_strdup_printf ("batch%u saved activations", b);
            g_autofree char *out = g_strdup_printf ("batch%u output", b);
            gboolean ok = _gml_script_alloc (r, act, GML_CATEGORY_ACTIVATIONS, saved) &&
                          _gml_script_alloc (r, out, GML_CATEGORY_ACTIVATIONS, output);

            if (!graph)
              _gml_script_free (r, act);
            if (!ok)
              {
                oom_at = b;
                /* Translators: batch number. */
                _gml_script_end_step (r, g_strdup_printf (_("Batch %u: out of memory."), b));
                break;
              }
            {
              g_autofree char *a = _gml_script_size (r, allocated_now (r));

              /* Translators: mode, batch number, size. */
              _gml_script_end_step (r, g_strdup_printf (_("%s, batch %u: %s allocated."), name, b, a));
            }
          }
        if (graph)
          kept_end = _gml_script_stats (r)->allocated_bytes[GML_STAT_ALL].current;
        else
          r->sc->setup_step = _gml_script_last_step (r);
      }
    if (r->fatal != NULL)
      return;
    {
      g_autofree char *sv = _gml_script_size (r, saved);
      g_autofree char *op = _gml_script_size (r, output);
      g_autofree char *k = _gml_script_size (r, kept_end);
      g_autofree char *flat = _gml_script_size (r, reserved_at (r, r->sc->setup_step) > 0
                                                     ? allocated_at (r, r->sc->setup_step) : 0);

      if (oom_at > 0)
        /* Translators: size; batches, size, batch; size, size, batches. */
        _gml_script_set_caption (r, _gml_script_last_step (r),
                                 g_strdup_printf (_("Each kept output holds its graph and the "
                                                    "batch’s saved activations (%s): after %u "
                                                    "batches %s are allocated and batch %u runs out "
                                                    "of memory. Under no_grad() only the outputs "
                                                    "(%s each) stay: %s after %u batches."),
                                                  sv, (guint) oom_at - 1, k, (guint) oom_at, op,
                                                  flat, n_batches));
      else
        _gml_script_set_caption (r, _gml_script_last_step (r),
                                 g_strdup_printf (_("Each kept output holds its graph and the "
                                                    "batch’s saved activations (%s): %s after %u "
                                                    "batches, and growing. Under no_grad() only the "
                                                    "outputs (%s each) stay: %s."),
                                                  sv, k, n_batches, op, flat));
      _gml_script_key (r, "saved_per_batch", saved);
    }
    r->sc->focus_step = _gml_script_last_step (r);
  }
}

/* Host memory beside device memory: pinned buffers, offloaded state, managed pages. */
static void
script_placement (GmlScript           *r,
                  const GmlExperiment *e)
{
  guint64 size = V ("size");
  GmlBar *bar;

  if (IS ("point", "managed"))
    {
      g_autofree char *s = NULL;
      static const guint on_gpu[3] = { 0, 2, 1 };   /* halves of the buffer on the GPU */

      start (r, _("Unified (managed) memory"), GML_VIEW_COMPARISON);
      r->sc->views = 1u << GML_VIEW_COMPARISON;
      _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
      s = _gml_script_size (r, size);
      /* Translators: %s is a size. */
      _gml_script_end_step (r, g_strdup_printf (_("cudaMallocManaged() gives one %s buffer whose "
                                                   "pointer works on the CPU and the GPU; the CPU "
                                                   "writes it first, so its pages are in host RAM."),
                                                 s));
      _gml_script_end_step (r, g_strdup (_("A kernel reads all of it: the driver migrates the pages "
                                           "to the GPU as they are touched.")));
      {
        g_autofree char *h = _gml_script_size (r, size / 2);

        /* Translators: both %s are sizes. */
        _gml_script_end_step (r, g_strdup_printf (_("The same pointer, on both sides: the CPU has "
                                                     "read the first half again, so the driver "
                                                     "moved %s of pages back to host RAM and %s stay "
                                                     "on the GPU. These pages are the lab’s model of "
                                                     "the driver: PyTorch’s caching allocator does "
                                                     "not use managed memory."), h, h));
      }
      for (guint step = 0; step < 3; step++)
        {
          bar = _gml_script_bar (r, g_strdup (_("GPU memory")));
          bar->step = step;
          bar->until = step < 2 ? step : G_MAXUINT;
          bar->parts[GML_BAR_MANAGED] = size / 2 * on_gpu[step];
          bar->marked = step == 2;
          bar = _gml_script_bar (r, g_strdup (_("Host RAM")));
          bar->step = step;
          bar->until = step < 2 ? step : G_MAXUINT;
          bar->parts[GML_BAR_MANAGED] = size - size / 2 * on_gpu[step];
          bar->marked = step == 2;
        }
      _gml_script_key (r, "on_gpu", size / 2);
      r->sc->setup_step = 0;
      r->sc->focus_step = 2;
      return;
    }

  if (IS ("point", "pinned"))
    {
      g_autofree char *s = NULL;
      g_autofree char *w = NULL;

      start (r, _("Pinned host memory beside GPU memory"), GML_VIEW_COMPARISON);
      _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
      first_step (r);
      _gml_script_alloc (r, "model", GML_CATEGORY_WEIGHTS, V ("weight"));
      s = _gml_script_size (r, size);
      w = _gml_script_size (r, V ("weight"));
      /* Translators: both %s are sizes. */
      _gml_script_end_step (r, g_strdup_printf (_("The model’s weights (%s) are on the GPU; the next "
                                                   "batch (%s) is in ordinary host RAM."), w, s));
      bar = _gml_script_bar (r, g_strdup (_("GPU memory")));
      _gml_script_bar_measure (r, bar, FALSE);
      bar->until = 2;
      r->sc->setup_step = 1;
      _gml_script_end_step (r, g_strdup_printf (_("pin_memory() copies the %s batch into page-locked "
                                                   "host RAM: GPU memory stays at %s, the weights "
                                                   "alone. From pinned memory the copy to the GPU is "
                                                   "faster, and with non_blocking=True it can run "
                                                   "asynchronously."), s, w));
      bar = _gml_script_bar (r, g_strdup (_("Host RAM")));
      bar->parts[GML_BAR_PINNED] = size;
      bar->marked = TRUE;
      r->sc->focus_step = 2;
      _gml_script_alloc (r, "batch", GML_CATEGORY_ACTIVATIONS, size);
      _gml_script_end_step (r, g_strdup_printf (_(".to(\"cuda\", non_blocking=True): the batch now "
                                                   "also takes %s on the GPU."), s));
      bar = _gml_script_bar (r, g_strdup (_("GPU memory")));
      _gml_script_bar_measure (r, bar, FALSE);
      _gml_script_key (r, "batch", size);
      _gml_script_key (r, "gpu", V ("weight"));
      return;
    }

  /* Optimizer offloading. */
  {
    guint64 params = V ("parameters");
    guint64 w = params * 4, m = params * 8;
    guint64 gpu[2];

    start (r, _("Offloading the optimizer state to host RAM"), GML_VIEW_COMPARISON);
    for (guint run = 0; run < 2 && r->fatal == NULL; run++)
      {
        gboolean offload = run == 1;

        _gml_script_begin_run (r, g_strdup (offload ? _("Adam state in host RAM")
                                                    : _("Adam state on the GPU")),
                               GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
        if (run == 0)
          first_step (r);
        _gml_script_alloc (r, "weights (fp32)", GML_CATEGORY_WEIGHTS, w);
        _gml_script_alloc (r, "gradients (fp32)", GML_CATEGORY_GRADIENTS, w);
        if (!offload)
          {
            _gml_script_alloc (r, "adam.exp_avg", GML_CATEGORY_OPTIMIZER_STATE, w);
            _gml_script_alloc (r, "adam.exp_avg_sq", GML_CATEGORY_OPTIMIZER_STATE, w);
          }
        gpu[run] = allocated_now (r);
        {
          g_autofree char *g = _gml_script_size (r, gpu[run]);

          /* Translators: %s is a size. */
          _gml_script_end_step (r, g_strdup_printf (offload ? _("Offloaded: the GPU holds the weights "
                                                                "and gradients, %s.")
                                                            : _("Adam on the GPU: weights, gradients "
                                                                "and two moments, %s."), g));
        }
        bar = _gml_script_bar (r, g_strdup (offload ? _("GPU, state offloaded")
                                                    : _("GPU, state on the GPU")));
        _gml_script_bar_measure (r, bar, FALSE);
        bar->parts[GML_BAR_CACHED] = 0;
        bar->marked = offload;
        if (offload)
          {
            bar = _gml_script_bar (r, g_strdup (_("Host RAM, state offloaded")));
            bar->parts[GML_CATEGORY_OPTIMIZER_STATE] = m;
            bar->marked = TRUE;
          }
        else
          r->sc->setup_step = _gml_script_last_step (r);
      }
    if (r->fatal != NULL)
      return;
    {
      g_autofree char *sm = _gml_script_size (r, m);
      g_autofree char *g0 = _gml_script_size (r, gpu[0]);
      g_autofree char *g1 = _gml_script_size (r, gpu[1]);
      g_autofree char *sw = _gml_script_size (r, w);
      g_autofree char *count = format_count (params);

      /* Translators: count, then sizes. */
      _gml_script_set_caption (r, _gml_script_last_step (r),
                               g_strdup_printf (_("For %s parameters, offloading moves Adam’s two "
                                                  "moments (%s, 8 B per parameter) into host RAM: the "
                                                  "GPU holds %s instead of %s. The price is %s of "
                                                  "host RAM and, at every step, moving the gradients "
                                                  "(%s) to the host and the new weights (%s) back, "
                                                  "or running the update on the CPU."),
                                                count, sm, g1, g0, sm, sw, sw));
      _gml_script_key (r, "moments", m);
      _gml_script_key (r, "gpu_offloaded", gpu[1]);
    }
    r->sc->focus_step = _gml_script_last_step (r);
  }
}

/* The KV cache of autoregressive generation, grown with torch.cat as Hugging
 * Face's DynamicCache does: each token, a new keys and values tensor per layer. */
static guint64
kv_run (GmlScript           *r,
        const GmlExperiment *e,
        guint                batch,
        guint                every)
{
  guint layers = V ("layers"), tokens = V ("tokens");
  guint64 per_token = V ("hidden") * 2 /* bytes, fp16 */ * batch;

  _gml_script_alloc (r, "model", GML_CATEGORY_WEIGHTS, V ("weight"));
  for (guint t = 1; t <= tokens && r->fatal == NULL; t++)
    {
      for (guint l = 1; l <= layers; l++)
        for (guint kv = 0; kv < 2; kv++)
          {
            g_autofree char *label = g_strdup_printf ("layer%u.%s", l, kv == 0 ? "keys" : "values");
            g_autofree char *next = g_strdup_printf ("%s+", label);

            /* torch.cat: the longer tensor is allocated before the old one is freed. */
            _gml_script_alloc (r, next, GML_CATEGORY_KV_CACHE, per_token * t);
            _gml_script_free (r, label);
            _gml_script_alloc (r, label, GML_CATEGORY_KV_CACHE, per_token * t);
            _gml_script_free (r, next);
          }
      if (t % every == 0 || t == tokens)
        {
          g_autofree char *kv = _gml_script_size (r, per_token * t * 2 * layers);

          /* Translators: token count, batch size, size. */
          _gml_script_end_step (r, g_strdup_printf (_("%u tokens, batch %u: the KV cache holds %s."),
                                                     t, batch, kv));
        }
    }
  return per_token * tokens * 2 * layers;
}

static void
script_kv_cache (GmlScript           *r,
                 const GmlExperiment *e)
{
  guint layers = V ("layers"), tokens = V ("tokens"), batch = V ("batch");
  guint64 hidden = V ("hidden");
  GmlBar *bar;

  if (IS ("point", "growth"))
    {
      guint batches[2] = { 1, batch };
      guint64 totals[2];

      start (r, _("How the KV cache grows"), GML_VIEW_COMPARISON);
      for (guint run = 0; run < 2 && r->fatal == NULL; run++)
        {
          /* Translators: %u is a batch size. */
          g_autofree char *name = g_strdup_printf (_("Batch %u"), batches[run]);

          _gml_script_begin_run (r, g_strdup (name), GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
          if (run == 0)
            first_step (r);
          totals[run] = kv_run (r, e, batches[run], MAX (tokens / 8, 1));
          bar = _gml_script_bar (r, g_strdup (name));
          _gml_script_bar_measure (r, bar, TRUE);
          bar->marked = run == 1;
          if (run == 0)
            r->sc->setup_step = _gml_script_last_step (r) - 4;
        }
      if (r->fatal != NULL)
        return;
      {
        g_autofree char *p1 = _gml_script_size (r, hidden * 2 * 2 * layers);
        g_autofree char *pb = _gml_script_size (r, hidden * 2 * 2 * layers * batch);
        g_autofree char *t1 = _gml_script_size (r, totals[0]);
        g_autofree char *tb = _gml_script_size (r, totals[1]);

        /* Translators: sizes, batch, tokens, sizes, batch. */
        _gml_script_set_caption (r, _gml_script_last_step (r),
                                 g_strdup_printf (_("Every generated token adds a key and a value in "
                                                    "each layer for every sequence: %s a token at "
                                                    "batch 1, %s at batch %u. After %u tokens the "
                                                    "cache holds %s at batch 1 and %s at batch %u."),
                                                  p1, pb, batch, tokens, t1, tb, batch));
        _gml_script_key (r, "kv_batch1", totals[0]);
        _gml_script_key (r, "kv_batch", totals[1]);
      }
      r->sc->focus_step = _gml_script_last_step (r);
      return;
    }

  start (r, _("What the KV cache holds"), GML_VIEW_MEMORY_MAP);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  {
    guint64 total = kv_run (r, e, batch, MAX (tokens / 16, 1));
    g_autofree char *kv = _gml_script_size (r, total);
    g_autofree char *per = _gml_script_size (r, hidden * 2 * 2 * layers * batch);
    g_autofree char *w = _gml_script_size (r, V ("weight"));

    /* Translators: tokens, layers, size, size, size. */
    _gml_script_set_caption (r, _gml_script_last_step (r),
                             g_strdup_printf (_("After %u tokens the KV cache holds the attention "
                                                "keys and values of every token so far, for each of "
                                                "the %u layers: %s (%s a token), kept so that the "
                                                "next token need not recompute them. The weights "
                                                "(%s) are a separate tensor."),
                                              tokens, layers, kv, per, w));
    for (guint l = 1; l <= layers; l++)
      {
        g_autofree char *label = g_strdup_printf ("layer%u.keys", l);

        if (l == 1)
          _gml_script_mark (r, label, FALSE, g_strdup_printf (_("layer %u keys"), l));
      }
    _gml_script_key (r, "kv", total);
    r->sc->setup_step = 1;
    r->sc->focus_step = _gml_script_last_step (r);
  }
}

/* ------------------------------------------------------------------------- */
/* Fixed and expandable segments                                             */

/* The same tensors, one after the other until the GPU is full, with fixed
 * segments and with expandable_segments:True (c10/cuda/CUDACachingAllocator.cpp,
 * "Note [Expandable Segments]"; the comment block in gml-allocator.c). A request
 * between 1 and 10 MiB gets a 20 MiB segment of its own; what is left at the end
 * of each segment is too small for the next tensor. An expandable segment grows
 * by 20 MiB pages and the tensors lie end to end across the pages. The runs use a
 * simulated GPU of their own: mapping pages needs the CUDA virtual memory API,
 * which the lab's CUDA backend does not use. */
#define EXPANDABLE_GPU (G_GUINT64_CONSTANT (200) * MiB)

static guint
expandable_run (GmlScript  *r,
                gboolean    expandable,
                guint64     tensor,
                GmlBar    **bar)
{
  GmlAllocConf conf;
  guint n = 0;
  g_autofree char *size = gml_format_size_short (tensor);

  gml_alloc_conf_init (&conf);
  conf.expandable_segments = expandable;
  _gml_script_begin_sim_run (r, g_strdup (expandable ? _("Expandable segments") : _("Fixed segments")),
                             EXPANDABLE_GPU, &conf);
  if (!expandable)
    first_step (r);
  while (r->fatal == NULL && n < 1000)
    {
      g_autofree char *label = g_strdup_printf ("t%03u", n + 1);

      if (!_gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, tensor))
        break;
      n++;
    }
  {
    g_autofree char *res = _gml_script_size (r, _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current);
    g_autofree char *alloc = _gml_script_size (r, allocated_now (r));

    if (expandable)
      /* Translators: a number of tensors, a size, sizes. */
      _gml_script_end_step (r, g_strdup_printf (ngettext ("expandable_segments:True: %u tensor of %s fits "
                                                             "before the next one does not; %s allocated in "
                                                             "%s reserved.",
                                                             "expandable_segments:True: %u tensors of %s fit "
                                                             "before the next one does not; %s allocated in "
                                                             "%s reserved.", n),
                                                n, size, alloc, res));
    else
      _gml_script_end_step (r, g_strdup_printf (ngettext ("Fixed segments: %u tensor of %s fits before the "
                                                             "next one does not; %s allocated in %s "
                                                             "reserved.",
                                                             "Fixed segments: %u tensors of %s fit before the "
                                                             "next one does not; %s allocated in %s "
                                                             "reserved.", n),
                                                n, size, alloc, res));
  }
  *bar = _gml_script_bar (r, g_strdup (expandable ? _("Expandable segments") : _("Fixed segments")));
  _gml_script_bar_measure (r, *bar, FALSE);
  return n;
}

static void
script_expandable (GmlScript           *r,
                   const GmlExperiment *e)
{
  GmlAllocConf plain;
  guint64 tensor, block;
  GmlBar *fixed_bar, *grow_bar;
  guint fixed, grow;
  guint64 tail;
  g_autofree char *t = NULL;
  g_autofree char *tail_text = NULL;
  g_autofree char *gpu = NULL;
  g_autofree char *fixed_text = NULL;
  g_autofree char *grow_text = NULL;

  gml_alloc_conf_init (&plain);
  tensor = V ("tensor");
  block = gml_round_size (&plain, tensor);
  start (r, _("Fixed segments and expandable segments, side by side"), GML_VIEW_COMPARISON);
  r->sc->views |= 1u << GML_VIEW_FRAGMENTATION;
  fixed = expandable_run (r, FALSE, tensor, &fixed_bar);
  r->sc->setup_step = 0;
  grow = expandable_run (r, TRUE, tensor, &grow_bar);
  if (r->fatal != NULL)
    return;
  grow_bar->marked = TRUE;
  tail = GML_LARGE_BUFFER - GML_LARGE_BUFFER / block * block;
  t = _gml_script_size (r, tensor);
  tail_text = _gml_script_size (r, tail);
  gpu = _gml_script_size (r, EXPANDABLE_GPU);
  fixed_text = _gml_script_size (r, fixed * block);
  grow_text = _gml_script_size (r, grow * block);
  /* Translators: sizes and numbers of tensors. */
  _gml_script_set_caption (r, _gml_script_last_step (r),
                           g_strdup_printf (_("On a %s GPU: with fixed segments every %s tensor gets room in a "
                                              "20 MiB segment, and the %s left at the end of each segment is "
                                              "too small for the next one: %u tensors fit (%s). With "
                                              "expandable_segments:True each pool has one segment that grows "
                                              "by mapping 20 MiB pages, and the tensors lie end to end across "
                                              "them: %u fit (%s). Simulated: mapping pages needs CUDA’s "
                                              "virtual memory API."),
                                            gpu, t, tail_text, fixed, fixed_text, grow, grow_text));
  _gml_script_key (r, "fixed_allocated", fixed * block);
  _gml_script_key (r, "expandable_allocated", grow * block);
  r->sc->focus_step = _gml_script_last_step (r);
}

/* ------------------------------------------------------------------------- */
/* Views                                                                     */

/* A slice is a view: it shares its base's storage, and the storage's block is
 * freed only when the last tensor that uses it is gone (the PyTorch FAQ's "a
 * view keeps the whole storage alive"; .clone() copies what the view needs). */
static void
script_view_storage (GmlScript           *r,
                     const GmlExperiment *e)
{
  guint64 size = V ("tensor"), slice = V ("slice");
  GmlBlockInfo block = { 0 };
  g_autofree char *t = NULL;
  g_autofree char *sl = NULL;

  start (r, _("A slice of a large tensor, and the large tensor deleted"), GML_VIEW_MEMORY_MAP);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "x", GML_CATEGORY_ACTIVATIONS, size);
  _gml_script_block (r, "x", &block);
  t = _gml_script_size (r, size);
  sl = _gml_script_size (r, slice);
  {
    g_autofree char *b = _gml_script_size (r, block.size);
    g_autofree char *a = _gml_script_size (r, allocated_now (r));

    /* Translators: sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("x is a %s tensor: one block of %s."), t, b));
    /* Translators: sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("y = x[:n] takes the first %s as a view: no new "
                                                 "block, memory_allocated() is still %s. Next: "
                                                 "del x."), sl, a));
  }
  {
    g_autofree char *a = _gml_script_size (r, allocated_now (r));

    /* Translators: sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("del x drops a name, not the storage: y still "
                                                 "uses it, so the whole %s block stays allocated "
                                                 "(memory_allocated() %s) for a view of %s."),
                                               t, a, sl));
    _gml_script_mark (r, "x", FALSE, g_strdup (_("x’s storage, kept by the view y")));
    _gml_script_key (r, "memory_allocated", allocated_now (r));
  }
  r->sc->setup_step = 2;
  r->sc->focus_step = _gml_script_last_step (r);
  _gml_script_alloc (r, "y (clone)", GML_CATEGORY_ACTIVATIONS, slice);
  _gml_script_free (r, "x");
  {
    g_autofree char *a = _gml_script_size (r, allocated_now (r));

    /* Translators: a size. */
    _gml_script_end_step (r, g_strdup_printf (_("y = y.clone() copies the slice into a block of "
                                                "its "
                                                 "own; the view is dropped and the large block is "
                                                 "freed: memory_allocated() %s."), a));
  }
}

/* ------------------------------------------------------------------------- */
/* CUDA graphs, torch.compile, offloading, limits                            */

/* A captured CUDA graph allocates from a private pool that keeps its blocks for
 * replays ("Note [Interaction with CUDA graph capture]" in the allocator: the
 * pool "reserve[s] its high-water mark of used memory away from the default
 * pools" while the graph lives). Two allocators on one arena: the pool, and the
 * default pool beside it, which sees the pool's memory as in use. */
static void
script_graph_pool (GmlScript           *r,
                   const GmlExperiment *e)
{
  guint64 capacity = V ("capacity"), graph = V ("graph"), request = V ("request");
  guint64 held;
  g_autofree char *g = NULL;
  g_autofree char *q = NULL;
  g_autofree char *c = NULL;

  start (r, _("A captured CUDA graph, then the rest of the program"), GML_VIEW_COMPARISON);
  _gml_script_begin_run (r, g_strdup (_("The graph’s private pool")), capacity, 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "static input", GML_CATEGORY_ACTIVATIONS, 4 * MiB);
  _gml_script_alloc (r, "graph temporaries", GML_CATEGORY_TEMPORARY, graph);
  _gml_script_free (r, "graph temporaries");
  held = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current;
  g = _gml_script_size (r, graph);
  q = _gml_script_size (r, request);
  c = _gml_script_size (r, capacity);
  {
    g_autofree char *h = _gml_script_size (r, held);

    /* Translators: sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("torch.cuda.graph captures a step: its %s of "
                                                 "temporaries come from the graph’s private pool "
                                                 "and "
                                                 "are freed inside it. The pool holds %s of this "
                                                 "%s "
                                                 "GPU. Next, outside the graph, the program asks "
                                                 "for "
                                                 "%s."), g, h, c, q));
  }
  r->sc->setup_step = _gml_script_last_step (r);
  r->sc->setup_view = GML_VIEW_MEMORY_MAP;
  {
    GmlBar *bar = _gml_script_bar (r, g_strdup (_("The graph’s private pool")));

    _gml_script_bar_measure (r, bar, FALSE);
    bar = _gml_script_bar (r, g_strdup (_("Requested outside the graph")));
    bar->parts[GML_BAR_REQUESTED] = request;
  }
  _gml_script_begin_run (r, g_strdup (_("The default pool")), capacity, held, NULL, TRUE);
  _gml_script_alloc (r, "new tensor", GML_CATEGORY_ACTIVATIONS, request);
  {
    g_autofree char *h = _gml_script_size (r, held);
    g_autofree char *f = _gml_script_size (r, capacity - held);

    if (r->oom)
      /* Translators: sizes. */
      _gml_script_end_step (r, g_strdup_printf (_("The default pool cannot use the private pool’s "
                                                   "free blocks: while the graph lives its %s (the "
                                                   "%s of temporaries among them) stay reserved "
                                                   "for "
                                                   "replays, %s of the %s are left, and the %s "
                                                   "request runs out of memory. Deleting the graph "
                                                   "(and its pool) gives the memory back."),
                                                 h, g, f, c, q));
    else
      _gml_script_end_step (r, g_strdup_printf (_("The default pool cannot use the private pool’s "
                                                   "free blocks: while the graph lives its %s (the "
                                                   "%s of temporaries among them) stay reserved "
                                                   "for "
                                                   "replays, and the %s request is served from the "
                                                   "%s "
                                                   "left of the %s."), h, g, q, f, c));
  }
  {
    GmlBar *bar = _gml_script_bar (r, g_strdup (_("Free for the default pool")));

    bar->parts[GML_BAR_DEVICE_FREE] = capacity - held;
    bar->marked = TRUE;
  }
  _gml_script_key (r, "pool", held);
  _gml_script_key (r, "request", request);
  r->sc->focus_step = _gml_script_last_step (r);
}

/* Activations a layer keeps for its backward pass, eagerly and compiled: the
 * lab's model of the min-cut partitioner of torch.compile's AOTAutograd, which
 * saves a pointwise chain's input and recomputes the cheap operations (GELU,
 * dropout from its seed) in the backward pass. */
static void
script_compile_saved (GmlScript           *r,
                      const GmlExperiment *e)
{
  guint layers = V ("layers");
  guint64 act = V ("activation");
  /* torch._functorch.config.activation_memory_budget, in percent: below 100 a
   * third run keeps at most that share of the compiled default's activations,
   * recomputing the first linear too in as few layers as that takes (the
   * knapsack's least recomputation, for layers that cost the same). */
  guint budget = V ("budget");
  guint n_runs = budget < 100 ? 3 : 2;
  guint kept_layers = layers * budget / 100;
  guint64 kept[3] = { 0, 0, 0 };
  g_autofree char *budget_value = g_strdup_printf ("%u.%02u", budget / 100, budget % 100);
  /* Translators: %s is a number such as 0.50. */
  g_autofree char *budget_name = g_strdup_printf (_("budget %s"), budget_value);

  start (r, budget < 100
            ? _("What an MLP keeps for its backward pass: eager, compiled, and under a memory budget")
            : _("What an MLP keeps for its backward pass, eager and compiled"),
         GML_VIEW_COMPARISON);
  for (guint run = 0; run < n_runs && r->fatal == NULL; run++)
    {
      gboolean compiled = run >= 1;
      GmlBar *bar;

      if (run == 2)
        {
          _gml_script_begin_run (r, g_strdup (budget_name), GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
          for (guint l = 0; l < kept_layers; l++)
            {
              g_autofree char *fc = g_strdup_printf ("mlp.%u fc out", l);

              _gml_script_alloc (r, fc, GML_CATEGORY_ACTIVATIONS, act);
            }
          kept[2] = allocated_now (r);
          {
            g_autofree char *k = _gml_script_size (r, kept[2]);

            /* Translators: the budget (a number such as 0.50); then counts; then a size. */
            _gml_script_end_step (r, g_strdup_printf (_("activation_memory_budget = %s: the "
                                                         "partitioner recomputes the first linear "
                                                         "too in %u of the %u layers, the least "
                                                         "recomputation under the budget. Kept: %s."),
                                                       budget_value,
                                                       layers - kept_layers, layers, k));
          }
          bar = _gml_script_bar (r, g_strdup (budget_name));
          _gml_script_bar_measure (r, bar, FALSE);
          bar->parts[GML_BAR_CACHED] = 0;
          bar->marked = TRUE;
          continue;
        }

      _gml_script_begin_run (r, g_strdup (compiled ? _("torch.compile") : _("Eager")),
                             GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
      if (run == 0)
        first_step (r);
      for (guint l = 0; l < layers; l++)
        {
          g_autofree char *fc = g_strdup_printf ("mlp.%u fc out", l);
          g_autofree char *gelu = g_strdup_printf ("mlp.%u gelu out", l);
          g_autofree char *mask = g_strdup_printf ("mlp.%u dropout mask", l);

          _gml_script_alloc (r, fc, GML_CATEGORY_ACTIVATIONS, act);
          if (!compiled)
            {
              _gml_script_alloc (r, gelu, GML_CATEGORY_ACTIVATIONS, act);
              _gml_script_alloc (r, mask, GML_CATEGORY_ACTIVATIONS, act / 2);
            }
        }
      kept[run] = allocated_now (r);
      {
        g_autofree char *k = _gml_script_size (r, kept[run]);

        /* Translators: a count, a size. */
        _gml_script_end_step (r, g_strdup_printf (compiled
                                                  ? _("Compiled: each of the %u layers keeps the "
                                                      "first linear’s output only; the GELU and "
                                                      "the "
                                                      "dropout mask are recomputed in the backward "
                                                      "pass. Kept: %s.")
                                                  : _("Eager: each of the %u layers keeps the "
                                                      "first "
                                                      "linear’s output, the GELU’s output and the "
                                                      "dropout mask. Kept: %s."), layers, k));
      }
      bar = _gml_script_bar (r, g_strdup (compiled ? _("torch.compile") : _("Eager")));
      _gml_script_bar_measure (r, bar, FALSE);
      bar->parts[GML_BAR_CACHED] = 0;
      bar->marked = compiled && n_runs == 2;
      if (!compiled)
        r->sc->setup_step = _gml_script_last_step (r);
    }
  if (n_runs == 3)
    {
      g_autofree char *k0 = _gml_script_size (r, kept[0]);
      g_autofree char *k1 = _gml_script_size (r, kept[1]);
      g_autofree char *k2 = _gml_script_size (r, kept[2]);

      /* Translators: sizes, then the budget (a number such as 0.50), then a size. */
      _gml_script_set_caption (r, _gml_script_last_step (r),
                               g_strdup_printf (_("Eager PyTorch keeps %s for the backward pass and "
                                                  "compiled %s; with activation_memory_budget = "
                                                  "%s the partitioner keeps at most that share "
                                                  "of the compiled default, %s here, by recomputing "
                                                  "more in the backward pass."),
                                                k0, k1, budget_value, k2));
      _gml_script_key (r, "eager", kept[0]);
      _gml_script_key (r, "compiled", kept[1]);
      _gml_script_key (r, "budget", kept[2]);
      r->sc->focus_step = _gml_script_last_step (r);
      return;
    }
  {
    g_autofree char *k0 = _gml_script_size (r, kept[0]);
    g_autofree char *k1 = _gml_script_size (r, kept[1]);

    /* Translators: sizes. */
    _gml_script_set_caption (r, _gml_script_last_step (r),
                             g_strdup_printf (_("Eager PyTorch keeps %s for the backward pass; "
                                                "compiled, %s: the partitioner saves the cheap "
                                                "operations’ input and recomputes them, trading a "
                                                "little compute for memory. The weights, gradients "
                                                "and optimizer state are the same in both."),
                                              k0, k1));
    _gml_script_key (r, "eager", kept[0]);
    _gml_script_key (r, "compiled", kept[1]);
  }
  r->sc->focus_step = _gml_script_last_step (r);
}

/* torch.autograd.graph.save_on_cpu: every tensor autograd saves goes to (pinned)
 * host RAM at once, and comes back for the backward pass. */
static void
script_offload_activations (GmlScript           *r,
                            const GmlExperiment *e)
{
  guint layers = V ("layers");
  guint64 act = V ("activation"), weight = V ("weight");
  guint64 gpu[2] = { 0, 0 };
  GmlBar *bar;

  start (r, _("Saved activations on the GPU, or in host RAM"), GML_VIEW_COMPARISON);
  for (guint run = 0; run < 2 && r->fatal == NULL; run++)
    {
      gboolean offload = run == 1;

      _gml_script_begin_run (r, g_strdup (offload ? _("save_on_cpu") : _("Saved on the GPU")),
                             GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
      if (run == 0)
        first_step (r);
      _gml_script_alloc (r, "weights", GML_CATEGORY_WEIGHTS, weight);
      for (guint l = 0; l < layers; l++)
        {
          g_autofree char *label = g_strdup_printf ("layer %u saved", l + 1);

          _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, act);
          /* Packed by the hook: copied to host RAM, the GPU tensor freed. */
          if (offload)
            _gml_script_free (r, label);
        }
      gpu[run] = allocated_now (r);
      {
        g_autofree char *g = _gml_script_size (r, gpu[run]);
        g_autofree char *h = _gml_script_size (r, act * layers);

        /* Translators: sizes. */
        _gml_script_end_step (r, offload
                              ? g_strdup_printf (_("With save_on_cpu the forward pass copies each "
                                                   "saved tensor to host RAM (%s there) and the "
                                                   "GPU "
                                                   "holds %s at the end of the forward pass."),
                                                 h, g)
                              : g_strdup_printf (_("Saved on the GPU: at the end of the forward "
                                                   "pass it holds the weights and %s of saved "
                                                   "activations, %s in all."), h, g));
      }
      bar = _gml_script_bar (r, g_strdup (offload ? _("GPU, save_on_cpu") : _("GPU, saved there")));
      _gml_script_bar_measure (r, bar, FALSE);
      bar->parts[GML_BAR_CACHED] = 0;
      bar->marked = offload;
      if (offload)
        {
          bar = _gml_script_bar (r, g_strdup (_("Host RAM, save_on_cpu")));
          bar->parts[GML_BAR_PINNED] = act * layers;
          bar->marked = TRUE;
        }
      else
        r->sc->setup_step = _gml_script_last_step (r);
    }
  _gml_script_key (r, "gpu_saved", gpu[0]);
  _gml_script_key (r, "gpu_offloaded", gpu[1]);
  r->sc->focus_step = _gml_script_last_step (r);
}

/* torch.cuda.set_per_process_memory_fraction(f): the allocator refuses to
 * reserve beyond f × the GPU's memory (alloc_block checks it), however much the
 * device has free. The arena is the allowed share. */
static void
script_fraction (GmlScript           *r,
                 const GmlExperiment *e)
{
  guint64 total = V ("total"), allowed = V ("allowed"), used = V ("used"), request = V ("request");
  guint64 s = choose_scale (total, lab_arena (r), &used, 1, 2 * MiB);
  g_autofree char *t = NULL;
  g_autofree char *a = NULL;
  g_autofree char *q = NULL;

  start (r, _("A per-process memory fraction"), GML_VIEW_MEMORY_MAP);
  set_scale (r, s);
  _gml_script_begin_run (r, NULL, allowed / s, 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "model and activations", GML_CATEGORY_ACTIVATIONS, used / s);
  t = _gml_script_size (r, total / s);
  a = _gml_script_size (r, allowed / s);
  q = _gml_script_size (r, request / s);
  {
    g_autofree char *u = _gml_script_size (r, allocated_now (r));

    /* Translators: sizes. */
    _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("The GPU has %s; the process has "
                                                               "set a memory fraction and holds "
                                                               "%s. Next it asks for %s."),
                                                             t, u, q)));
  }
  r->sc->setup_step = _gml_script_last_step (r);
  _gml_script_alloc (r, "next tensor", GML_CATEGORY_ACTIVATIONS, request / s);
  {
    g_autofree char *f = _gml_script_size (r, (total - allowed) / s);

    if (r->oom)
      /* Translators: sizes. */
      {
        g_autofree char *u = _gml_script_size (r, used / s);

        /* Translators: sizes. */
        _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("CUDA out of memory: %s held "
                                                                   "and "
                                                                   "%s more would take the process "
                                                                   "past the %s it is allowed of "
                                                                   "the GPU’s %s, although %s are "
                                                                   "outside its share; the message "
                                                                   "names the share "
                                                                   "(“… allowed;”)."),
                                                                 u, q, a, t, f)));
      }
    else
      _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("The request fits in the %s the "
                                                                 "process is allowed."), a)));
  }
  _gml_script_key (r, "allowed", allowed / s);
  r->sc->focus_step = _gml_script_last_step (r);
}

/* Tied embeddings: GPT-2's output layer is the token embedding's matrix
 * (lm_head.weight is transformer.wte.weight), stored once. The model's fp32
 * weights by module, and the head that an untied model would add. */
static void
script_tied_embeddings (GmlScript           *r,
                        const GmlExperiment *e)
{
  guint64 vocab = V ("vocab"), hidden = V ("hidden"), positions = V ("positions");
  guint64 layers = V ("layers"), block = V ("block");
  guint64 wte = vocab * hidden, total = wte + positions * hidden + layers * block + 2 * hidden;
  guint64 needed = 4 * (total + wte);
  guint64 s = choose_scale (needed, lab_arena (r), NULL, 0, 1);
  g_autofree char *n_total = gml_format_grouped (total);
  g_autofree char *n_head = gml_format_grouped (wte);
  g_autofree char *n_untied = gml_format_grouped (total + wte);

  start (r, _("GPT-2’s weights, module by module"), GML_VIEW_MEMORY_MAP);
  set_scale (r, s);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "transformer.wpe", GML_CATEGORY_WEIGHTS, 4 * positions * hidden / s);
  _gml_script_alloc (r, "transformer.h (blocks)", GML_CATEGORY_WEIGHTS, 4 * layers * block / s);
  _gml_script_alloc (r, "transformer.ln_f", GML_CATEGORY_WEIGHTS, MAX (4 * 2 * hidden / s, 1));
  {
    g_autofree char *b = _gml_script_size (r, 4 * layers * block / s);

    /* Translators: a count of layers, a size. */
    _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("The positions, the %u blocks (%s) "
                                                               "and the final LayerNorm, in fp32. "
                                                               "Next: the token embedding and the "
                                                               "output layer."),
                                                             (guint) layers, b)));
  }
  r->sc->setup_step = _gml_script_last_step (r);
  _gml_script_alloc (r, "transformer.wte = lm_head", GML_CATEGORY_WEIGHTS, 4 * wte / s);
  {
    g_autofree char *w = _gml_script_size (r, 4 * wte / s);
    g_autofree char *all = _gml_script_size (r, allocated_now (r));

    /* Translators: sizes and parameter counts. */
    _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("One %s matrix of %s parameters is "
                                                               "both the token embedding (wte) and "
                                                               "the output layer (lm_head): %s "
                                                               "parameters, %s of fp32 weights. An "
                                                               "untied head would add another %s: "
                                                               "%s parameters."),
                                                             w, n_head, n_total, all, w,
                                                             n_untied)));
    _gml_script_mark (r, "transformer.wte = lm_head", FALSE,
                      g_strdup_printf (_("wte and lm_head: one %s tensor"), w));
    _gml_script_key (r, "weights", allocated_now (r));
    _gml_script_key (r, "tied_matrix", 4 * wte / s);
  }
  r->sc->focus_step = _gml_script_last_step (r);
  /* Only the tied matrix is outlined, not every weight. */
  r->sc->focus_category = GML_CATEGORY_NONE;
}

static gboolean
check_lab (const GmlExperiment *e,
           char               **field,
           char               **reason)
{
  if (!_gml_lab_check_args (_gml_experiment_text (e, "config"), reason))
    {
      *field = g_strdup ("experiment.config");
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* The table                                                                 */

#define POINT(def, list) { "point", GML_PARAM_CHOICE, def, 0, 0, list }
#define SIZE(name, def, lo, hi) { name, GML_PARAM_SIZE, def, lo, hi, NULL }
#define COUNT(name, def, lo, hi) { name, GML_PARAM_COUNT, def, lo, hi, NULL }

#define KiB G_GUINT64_CONSTANT (1024)
#define TB_ G_GUINT64_CONSTANT (1000000000000000)

const GmlKindDef _gml_experiment_kind_defs[] = {
  { "oom", { { NULL } }, script_oom, NULL },
  { "batch-size", { COUNT ("from", "32", 1, 4096), COUNT ("to", "128", 1, 16384) },
    script_batch_size, NULL },
  { "empty-cache", { POINT ("after", "after|retry|other-programs") }, script_empty_cache, NULL },
  { "precision", { { NULL } }, script_precision, NULL },
  { "checkpointing", { COUNT ("layers", "16", 4, 64) }, script_checkpointing, NULL },
  { "fragmentation", { POINT ("meaning", "meaning|advice|segments") }, script_fragmentation, NULL },
  { "free-to-cache", { POINT ("difference", "difference|del"),
                       SIZE ("size", "256 MiB", 10 * MiB, 512 * MiB),
                       SIZE ("keep", "3 MiB", 512, 8 * MiB) },
    script_free_to_cache, NULL },
  { "oom-message", { POINT ("reserved", "reserved|unallocated|outside"),
                     SIZE ("allocated", NULL, 64 * MiB, TB_),
                     SIZE ("unallocated", NULL, 8 * MiB, TB_),
                     SIZE ("capacity", "0", 0, TB_),
                     SIZE ("free", "0", 0, TB_),
                     SIZE ("request", "0", 0, TB_),
                     SIZE ("in_use", "0", 0, TB_),
                     COUNT ("pieces", "4", 1, 16) },
    script_oom_message, check_oom_message },
  { "segment-size", { SIZE ("request", "3 MiB", 1, 256 * MiB) }, script_segment_size, NULL },
  { "rounding", { SIZE ("request", NULL, 1, 256 * MiB) }, script_rounding, NULL },
  { "live-segment", { SIZE ("live", "3 MiB", 512, 9 * MiB) }, script_live_segment, NULL },
  { "retry", { SIZE ("weights", "64 MiB", 2 * MiB, 512 * MiB),
               SIZE ("cached", "12 MiB", 10 * MiB, 128 * MiB),
               COUNT ("count", "3", 1, 8),
               SIZE ("request", "40 MiB", 10 * MiB, 512 * MiB),
               SIZE ("capacity", "128 MiB", 32 * MiB, GML_SCENARIO_SIM_CAPACITY) },
    script_retry, check_retry },
  { "new-segment", { SIZE ("first", "6 MiB", 2 * MiB, 18 * MiB),
                     SIZE ("second", "8 MiB", 2 * MiB, 18 * MiB),
                     SIZE ("request", "10 MiB", 2 * MiB, 256 * MiB) },
    script_new_segment, check_new_segment },
  { "context", { POINT ("first-call", "first-call|smi-gap|nccl"),
                 SIZE ("context", "0.40 GiB", 0, 8 * GiB),
                 SIZE ("reserved", "10 GiB", 64 * MiB, TB_),
                 SIZE ("nccl", "0", 0, 8 * GiB) },
    script_context, NULL },
  { "max-split", { SIZE ("max_split", "64 MiB", 21 * MiB, 512 * MiB),
                   SIZE ("cached", "80 MiB", 10 * MiB, 512 * MiB),
                   SIZE ("request", "8 MiB", 512, 512 * MiB),
                   { "compare", GML_PARAM_BOOL, "false", 0, 0, NULL } },
    script_max_split, check_max_split },
  { "streams", { POINT ("new-segment", "new-segment|reuse|free-too-early|record-stream"),
                 SIZE ("cached", "30 MiB", 2 * MiB, 256 * MiB),
                 SIZE ("request", "5 MiB", 512, 256 * MiB) },
    script_streams, NULL },
  { "model-state", { { "accounting", GML_PARAM_CHOICE, "mixed", 0, 0,
                       "sgd-vs-adam|zero-parts|mixed|fp32-grads|fp32-vs-mixed|autocast-vs-zero" },
                     COUNT ("parameters", "1000000000", 1000000, G_GUINT64_CONSTANT (1000000000000)) },
    script_model_state, NULL },
  { "zero", { POINT ("stages", "stages|per-gpu"),
              COUNT ("parameters", "1000000000", 1000000, G_GUINT64_CONSTANT (1000000000000)),
              COUNT ("gpus", "4", 2, 64) },
    script_zero, NULL },
  { "fsdp-gather", { COUNT ("layers", "4", 2, 16), COUNT ("gpus", "4", 2, 16),
                     SIZE ("layer", "64 MiB", 4 * MiB, 128 * MiB) },
    script_fsdp_gather, NULL },
  { "checkpointing-depth", { COUNT ("layers", "16", 4, 32), COUNT ("factor", "4", 2, 4) },
    script_checkpointing_depth, NULL },
  { "zero-grad", { POINT ("set-to-none", "set-to-none|placement"),
                   COUNT ("layers", "4", 1, 8),
                   SIZE ("weight", "32 MiB", 2 * MiB, 64 * MiB),
                   SIZE ("activation", "48 MiB", 2 * MiB, 64 * MiB) },
    script_zero_grad, NULL },
  { "grad-accum", { POINT ("memory", "memory|deferred|arithmetic"),
                    COUNT ("micro_batch", "32", 1, 4096),
                    COUNT ("micro_batches", "4", 2, 8),
                    SIZE ("activations", "64 MiB", 2 * MiB, TB_),
                    SIZE ("fixed", "192 MiB", 8 * MiB, TB_) },
    script_grad_accum, NULL },
  { "no-grad", { POINT ("no-grad", "no-grad|inference-mode"),
                 COUNT ("layers", "8", 2, 16),
                 SIZE ("weight", "16 MiB", 2 * MiB, 32 * MiB),
                 SIZE ("activation", "40 MiB", 2 * MiB, 64 * MiB) },
    script_no_grad, NULL },
  { "held-references", { POINT ("loss", "loss|outputs"),
                         SIZE ("weight", "10 MiB", 2 * MiB, 512 * MiB),
                         COUNT ("steps", "8192", 16, 65536),
                         COUNT ("batches", "24", 2, 256),
                         SIZE ("model", "256 MiB", 2 * MiB, 512 * MiB),
                         SIZE ("saved", "48 MiB", 2 * MiB, 128 * MiB),
                         SIZE ("output", "4 MiB", 512, 32 * MiB) },
    script_held_references, NULL },
  { "placement", { POINT ("pinned", "pinned|offload|managed"),
                   SIZE ("size", "64 MiB", 2 * MiB, 256 * MiB),
                   SIZE ("weight", "256 MiB", 2 * MiB, 512 * MiB),
                   COUNT ("parameters", "33554432", 1048576, 67108864) },
    script_placement, NULL },
  { "kv-cache", { POINT ("contents", "contents|growth"),
                  COUNT ("layers", "4", 1, 16),
                  COUNT ("hidden", "4096", 64, 16384),
                  COUNT ("batch", "4", 1, 16),
                  COUNT ("tokens", "256", 16, 1024),
                  SIZE ("weight", "128 MiB", 2 * MiB, 512 * MiB) },
    script_kv_cache, NULL },
  /* Runs on a simulated GPU of its own (see gml_scenario_new_experiment). */
  { "lab", { { "config", GML_PARAM_TEXT, NULL, 0, 0, NULL } }, NULL, check_lab },
  { "expandable", { SIZE ("tensor", "7 MiB", MiB + 512, 10 * MiB - 1) }, script_expandable, NULL },
  { "graph-pool", { SIZE ("capacity", "96 MiB", 32 * MiB, 512 * MiB),
                    SIZE ("graph", "48 MiB", 2 * MiB, 256 * MiB),
                    SIZE ("request", "40 MiB", 2 * MiB, 256 * MiB) },
    script_graph_pool, NULL },
  { "compile-saved", { COUNT ("layers", "4", 1, 8),
                       SIZE ("activation", "32 MiB", 2 * MiB, 64 * MiB),
                       COUNT ("budget", "100", 0, 100) },
    script_compile_saved, NULL },
  { "offload-activations", { COUNT ("layers", "8", 1, 16),
                             SIZE ("activation", "32 MiB", 2 * MiB, 64 * MiB),
                             SIZE ("weight", "64 MiB", 2 * MiB, 256 * MiB) },
    script_offload_activations, NULL },
  { "fraction", { SIZE ("total", "80 GiB", 64 * MiB, TB_),
                  SIZE ("allowed", "40 GiB", 32 * MiB, TB_),
                  SIZE ("used", "38 GiB", 0, TB_), SIZE ("request", "4 GiB", 2 * MiB, TB_) },
    script_fraction, NULL },
  { "tied-embeddings", { COUNT ("vocab", "50257", 2, 1000000),
                         COUNT ("hidden", "768", 2, 65536),
                         COUNT ("positions", "1024", 0, 1000000), COUNT ("layers", "12", 1, 256),
                         COUNT ("block", "7087872", 1, G_GUINT64_CONSTANT (100000000000)) },
    script_tied_embeddings, NULL },
  { "mixed-lifetimes", { COUNT ("pairs", "4", 2, 8), SIZE ("tensor", "8 MiB", 2 * MiB, 9 * MiB),
                         SIZE ("request", "16 MiB", 10 * MiB, 64 * MiB) },
    script_mixed_lifetimes, NULL },
  { "many-small", { COUNT ("count", "100000", 1, 200000), SIZE ("size", "4", 1, 512) },
    script_many_small, NULL },
  { "view-storage", { SIZE ("tensor", "256 MiB", 4 * MiB, 512 * MiB),
                      SIZE ("slice", "4 MiB", 512, 64 * MiB) },
    script_view_storage, NULL },
};

const guint _gml_experiment_n_kind_defs = G_N_ELEMENTS (_gml_experiment_kind_defs);

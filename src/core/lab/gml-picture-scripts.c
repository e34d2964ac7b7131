/* gml-picture-scripts.c — the kinds of picture script and what each one runs.
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

#define G_LOG_DOMAIN "gml-picture-script"

#include "config.h"

#include "gml-picture-scripts-private.h"

/* ------------------------------------------------------------------------- */
/* The named scenarios                                                       */

/* Their stories, as the table below names them for gml_scenario_new() and for
 * the kinds' scripts: gml-scenario-stories.c's, with the kind's numbers. */

static void
story_oom (GmlScript              *r,
           const GmlPictureScript *e)
{
  _gml_script_oom (r);
}

static void
story_batch_size (GmlScript              *r,
                  const GmlPictureScript *e)
{
  _gml_script_batch_size (r, V ("from"), V ("to"), NULL);
}

static void
story_empty_cache (GmlScript              *r,
                   const GmlPictureScript *e)
{
  _gml_script_empty_cache_story (r);
}

static void
story_precision (GmlScript              *r,
                 const GmlPictureScript *e)
{
  _gml_script_precision (r);
}

static void
story_checkpointing (GmlScript              *r,
                     const GmlPictureScript *e)
{
  _gml_script_checkpointing (r, V ("layers"));
}

static void
story_fragmentation (GmlScript              *r,
                     const GmlPictureScript *e)
{
  _gml_script_fragmentation (r);
}

/* The story as a question tells it, before the question's own captions and
 * figures: in the lab's arena, so that the window and the render verb show
 * the same thing on every machine. */
static void
tell_story (GmlScript              *r,
            const GmlPictureScript *e)
{
  _gml_picture_script_begin_scenario (r, e, GML_SCRIPT_LAB_ARENA);
  e->kind->scenario.story (r, e);
}

static void
script_oom (GmlScript              *r,
            const GmlPictureScript *e)
{
  guint focus;
  guint64 request, device_free;
  const GmlScenarioStep *step;
  g_autoptr(GmlMemState) state = NULL;

  tell_story (r, e);
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
                             g_strdup_printf (_("The next activations need %s, but the GPU has "
                                                "only %s free and no cached block fits: CUDA out "
                                                "of memory. Weights %s, gradients %s, optimizer "
                                                "state %s and activations %s fill it."),
                                              req, free_, w, g, o, a));
  }
  _gml_script_key (r, "request", request);
  _gml_script_key (r, "device_free", device_free);
  r->sc->setup_step = focus > 0 ? focus - 1 : 0;
  r->sc->focus_step = focus;
  r->sc->focus_category = GML_CATEGORY_ACTIVATIONS;
}

static void
script_batch_size (GmlScript              *r,
                   const GmlPictureScript *e)
{
  guint from = V ("from"), to = V ("to");
  guint64 sizes[2] = { 0, 0 };
  guint focus, setup = 1 + 8;   /* start, weights, then the smaller batch's 8 layers */
  GmlBar *bar;

  _gml_picture_script_begin_scenario (r, e, GML_SCRIPT_LAB_ARENA);
  /* The title names the question's batch sizes, not the scenario's. */
  g_free (r->sc->title);
  /* Translators: both %u are batch sizes. */
  r->sc->title = g_strdup_printf (_("Batch size: the same model at batch %u and at batch %u"),
                                  from, to);
  /* The story itself (story_batch_size()), for the sizes it chose. */
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
                               g_strdup_printf (_("At batch %u each layer’s activations take %s, "
                                                  "%s× the %s of batch %u: once %s of them are "
                                                  "held, the next layer’s do not fit and the GPU "
                                                  "runs out of memory. The weights stay at %s."),
                                                to, big, ratio, small, from, a, w));
    else
      _gml_script_set_caption (r, focus,
                               g_strdup_printf (_("At batch %u each layer’s activations take %s, "
                                                  "%s× the %s of batch %u: %s of activations "
                                                  "beside weights of %s."),
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
script_empty_cache (GmlScript              *r,
                    const GmlPictureScript *e)
{
  guint oom_step, freed, emptied, retry, focus;
  guint64 request;

  tell_story (r, e);
  /* A question's picture offers the views it always has: the fragmentation
   * view stays the named scenario's alone. */
  r->sc->views &= ~(1u << GML_VIEW_FRAGMENTATION);
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
    g_autofree char *given = _gml_script_size (r,
                                               reserved_at (r, freed) - reserved_at (r, emptied));
    g_autofree char *live = _gml_script_size (r, allocated_at (r, emptied));
    g_autofree char *device_free = _gml_script_size (r, step_at (r, emptied)->device_free);

    if (IS ("point", "retry"))
      {
        focus = retry;
        /* Translators: all %s are sizes. */
        _gml_script_set_caption (r, retry,
                                 g_strdup_printf (_("empty_cache() gave %s back to the GPU "
                                                    "(reserved %s → %s), but the live tensors "
                                                    "still hold %s: the same %s request fails "
                                                    "again."),
                                                  given, before, after, live, req));
        r->sc->setup_step = oom_step;
      }
    else if (IS ("point", "other-programs"))
      {
        focus = emptied;
        _gml_script_set_caption (r, emptied,
                                 g_strdup_printf (_("empty_cache() drops memory_reserved() from %s "
                                                    "to %s: %s are now free on the GPU for other "
                                                    "programs, while PyTorch’s own %s request "
                                                    "still does not fit."),
                                                  before, after, device_free, req));
        r->sc->focus_view = GML_VIEW_COMPARISON;
        r->sc->setup_step = freed;
      }
    else
      {
        focus = emptied;
        _gml_script_set_caption (r, emptied,
                                 g_strdup_printf (_("empty_cache() returns the whole free "
                                                    "segments: reserved drops from %s to %s. The "
                                                    "live tensors (%s) keep their segments."),
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
script_precision (GmlScript              *r,
                  const GmlPictureScript *e)
{
  guint64 fp32 = 0, bf16 = 0;

  tell_story (r, e);
  /* The question is about the two bars: its picture opens on them. */
  r->sc->focus_view = GML_VIEW_COMPARISON;
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
                                                "against %s in fp32: 2 bytes per value instead of "
                                                "4, half the memory."), a, b));
  }
  _gml_script_key (r, "fp32", fp32);
  _gml_script_key (r, "bf16", bf16);
  r->sc->setup_step = 2;
  r->sc->focus_step = _gml_script_last_step (r);
}

static void
script_checkpointing (GmlScript              *r,
                      const GmlPictureScript *e)
{
  GmlScenario *sc = r->sc;
  const GmlCheckpointStrategy *none, *sqrt_n;

  tell_story (r, e);
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
                             g_strdup_printf (_("√N checkpointing stores %u of the %u activations "
                                                "and recomputes the others from the last "
                                                "checkpoint during the backward pass: peak %s "
                                                "instead of %s without checkpointing, for %s %% "
                                                "more layer forwards."),
                                              sqrt_n->n_stored, sc->n_layers, p1, p0, extra));
  }
  _gml_script_key (r, "peak_sqrt_n", sqrt_n->peak_bytes);
  _gml_script_key (r, "peak_none", none->peak_bytes);
  sc->setup_step = none->first_step + sc->n_layers - 1;
  /* The chart compares the strategies: that is the answer. Before it, the map. */
  sc->setup_view = GML_VIEW_MEMORY_MAP;
}

static void
script_fragmentation (GmlScript              *r,
                      const GmlPictureScript *e)
{
  guint focus;
  guint64 request, largest, free_cached;

  tell_story (r, e);
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
                                 g_strdup_printf (_("Reserved but unallocated: %s of the %s "
                                                    "reserved are cached free, in holes too small "
                                                    "for %s. That is when the message ends with "
                                                    "“If reserved but unallocated memory is large "
                                                    "try setting PYTORCH_CUDA_ALLOC_CONF="
                                                    "expandable_segments:True”."),
                                                  cached, res, req));
        r->sc->focus_view = GML_VIEW_MEMORY_MAP;
      }
    else if (IS ("point", "segments"))
      {
        /* Translators: %u segments; then sizes. */
        _gml_script_set_caption (r, focus,
                                 g_strdup_printf (ngettext ("Each miss took a separate segment of "
                                                               "fixed size: %u segment now holds "
                                                               "%s free in holes of at most %s, "
                                                               "which cannot join across segments, "
                                                               "so %s fails. Expandable segments "
                                                               "grow one segment by mapping pages "
                                                               "instead.",
                                                               "Each miss took a separate segment "
                                                               "of fixed size: %u segments now "
                                                               "hold %s free in holes of at most "
                                                               "%s, which cannot join across "
                                                               "segments, so %s fails. Expandable "
                                                               "segments grow one segment by "
                                                               "mapping pages instead.",
                                                               n_segments),
                                                  n_segments, cached, big, req));
        r->sc->focus_view = GML_VIEW_MEMORY_MAP;
      }
    else
      _gml_script_set_caption (r, focus,
                               g_strdup_printf (_("%s are free in the cache, but in holes of at "
                                                  "most %s between live tensors: the %s request "
                                                  "fails although the holes add up to far more."),
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
script_free_to_cache (GmlScript              *r,
                      const GmlPictureScript *e)
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
    g_autofree char *res = _gml_script_size (r, reserved_now (r));

    /* Translators: x and y are tensor names; all %s are sizes. */
    _gml_script_end_step (r,
                          g_strdup_printf (_("Two tensors: x (%s) and y (%s). memory_allocated() "
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
                                                   "but memory_reserved() stays at %s: x’s %s "
                                                   "block went back to the cache inside its "
                                                   "segment, so nvidia-smi shows no change "
                                                   "either."),
                                                 a0, a, res, xb));
    else
      _gml_script_end_step (r,
                            g_strdup_printf (_("memory_allocated() = %s: the blocks handed out to "
                                                   "live tensors (y). memory_reserved() = %s: all "
                                                   "the allocator’s segments, with x’s freed %s "
                                                   "block and the %s beside y kept cached."),
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
check_oom_message (const GmlPictureScript *e,
                   char                  **field,
                   char                  **reason)
{
  guint64 reserved = V ("allocated") + V ("unallocated");

  if (_gml_picture_script_given (e, "in_use") && V ("in_use") < reserved)
    {
      *field = g_strdup ("experiment.in_use");
      *reason = g_strdup (_("must be at least allocated + unallocated"));
      return FALSE;
    }
  if (_gml_picture_script_given (e, "capacity") && V ("capacity") < reserved + V ("free"))
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
script_oom_message (GmlScript              *r,
                    const GmlPictureScript *e)
{
  guint64 A = V ("allocated"), U = V ("unallocated"), F = V ("free");
  guint n = V ("pieces");
  guint64 R = A + U, O = 0, C, s, seg, live, other, spare, request;
  guint64 exact[2];
  guint setup, focus, early;

  if (_gml_picture_script_given (e, "in_use"))
    O = V ("in_use") - R;
  else if (_gml_picture_script_given (e, "capacity"))
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
                                                                        "Training fills %u "
                                                                        "segments with its "
                                                                        "tensors.", n),
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
                                                                        "that holds live tensors "
                                                                        "and a free piece; another "
                                                                        "tensor is requested.",
                                                                        "Training has left %u "
                                                                        "segments, each holding "
                                                                        "live tensors and a free "
                                                                        "piece; another tensor is "
                                                                        "requested.", n),
                                                           n)));
  setup = _gml_script_last_step (r);

  request = _gml_picture_script_given (e, "request")
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
                                              "tensors: none fits the %s request, no segment can "
                                              "be released, and the GPU (%s) has only %s free.",
                                              "Beside the %s allocated, %s are cached free, but in "
                                              "%u pieces of at most %s inside segments that hold "
                                              "live tensors: none fits the %s request, no segment "
                                              "can be released, and the GPU (%s) has only %s free.",
                                           n),
                                 a, u, n, piece, req, cap, free_);
    else
      caption = g_strdup_printf (_("The %s request fits: no out-of-memory error this time."), req);
    _gml_script_end_step (r, with_scale (r, caption));
    _gml_script_key (r, "allocated", alloc);
    _gml_script_key (r, "unallocated", res_b - alloc);
    _gml_script_key (r, "reserved", res_b);
    if (_gml_picture_script_given (e, "in_use"))
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
script_segment_size (GmlScript              *r,
                     const GmlPictureScript *e)
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
    _gml_script_end_step (r,
                          g_strdup_printf (_("The GPU has %s free, and a layer asks for a new %s "
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
      _gml_script_end_step (r,
                            g_strdup_printf (_("The %s request needs a new segment — %s — and the "
                                                   "GPU has only %s free: the message says “Tried "
                                                   "to allocate %s”, the segment, not the tensor."),
                                                 req, rule, free_, pytorch));
    else
      _gml_script_end_step (r,
                            g_strdup_printf (_("The %s request got a new segment: %s."), req,
                                             rule));
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
script_rounding (GmlScript              *r,
                 const GmlPictureScript *e)
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
  _gml_script_begin_run (r, NULL,
                         MAX (64 * MiB, 2 * round_up (gml_allocation_size (rounded), 2 * MiB)),
                         0, NULL, FALSE);
  /* Translators: %s is a size. */
  _gml_script_end_step (r,
                        g_strdup_printf (_("A fresh process: nothing is reserved yet, and a tensor "
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
script_mixed_lifetimes (GmlScript              *r,
                        const GmlPictureScript *e)
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
    g_autofree char *res = _gml_script_size (r, reserved_now (r));

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
                                                 "empty_cache() is called: every segment still "
                                                 "holds a long-lived tensor, so none goes back; %s "
                                                 "stay reserved, %s of it free in pieces between "
                                                 "them."),
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
script_many_small (GmlScript              *r,
                   const GmlPictureScript *e)
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
    g_autofree char *block = _gml_script_size (r, allocated_now (r));

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
script_live_segment (GmlScript              *r,
                     const GmlPictureScript *e)
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
    _gml_script_end_step (r,
                          g_strdup_printf (_("The process holds one %s segment: a live %s tensor "
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
                                                 "tensor, so memory_reserved() stays %s and the "
                                                 "free %s remain, as inactive split memory."),
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
check_retry (const GmlPictureScript *e,
             char                  **field,
             char                  **reason)
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
script_retry (GmlScript              *r,
              const GmlPictureScript *e)
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
    _gml_script_end_step (r,
                          g_strdup_printf (ngettext ("The %u temporary is freed: %s stays cached "
                                                           "as whole free segments, %s is free on "
                                                           "the GPU, and %s is requested next.",
                                                           "The %u temporaries are freed: %s stay "
                                                           "cached as whole free segments, %s are "
                                                           "free on the GPU, and %s are requested "
                                                           "next.", count),
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
                                                "free segment (%s) to the device and retries once "
                                                "— now the new %s segment fits (num_alloc_retries "
                                                "= 1).",
                                                "No cached block fits the %s request and the GPU "
                                                "has only %s free: the allocator returns its %u "
                                                "whole free segments (%s) to the device and "
                                                "retries once — now the new %s segment fits "
                                                "(num_alloc_retries = 1).",
                                                count),
                                   req, free_, count, cached, seg);
      else
        caption = g_strdup_printf (ngettext ("No cached block fits the %s request and the GPU has "
                                                "only %s free: the allocator returns its %u whole "
                                                "free segment (%s) to the device and retries once "
                                                "— still no room, so it raises out of memory.",
                                                "No cached block fits the %s request and the GPU "
                                                "has only %s free: the allocator returns its %u "
                                                "whole free segments (%s) to the device and "
                                                "retries once — still no room, so it raises out of "
                                                "memory.",
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
check_new_segment (const GmlPictureScript *e,
                   char                  **field,
                   char                  **reason)
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
script_new_segment (GmlScript              *r,
                    const GmlPictureScript *e)
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
    _gml_script_end_step (r,
                          g_strdup_printf (_("Three tensors fill one %s segment: %s, %s and %s."),
                                               seg, f1, l, f2));
    _gml_script_free (r, "a");
    _gml_script_free (r, "b");
    _gml_script_end_step (r, g_strdup_printf (_("The first and the last are freed: the %s segment "
                                                 "has free pieces of %s and %s with a live %s "
                                                 "tensor between them."), seg, f1, f2, l));
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
                                                 "between them: the %s request fits neither, so a "
                                                 "new %s segment is taken and memory_reserved() "
                                                 "grows from %s to %s."),
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
script_context (GmlScript              *r,
                const GmlPictureScript *e)
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
                                                                   "outside the allocator, above "
                                                                   "all the CUDA context (%s "
                                                                   "here): %s in all."),
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
    _gml_script_end_step (r,
                          g_strdup_printf (_("The first CUDA operation creates a tiny tensor, and "
                                                 "nvidia-smi shows the process using %s."), all));
    r->sc->setup_step = _gml_script_last_step (r);
    bar = _gml_script_bar (r, g_strdup (_("nvidia-smi: the process")));
    _gml_script_bar_measure (r, bar, FALSE);
    bar->parts[GML_BAR_OTHER] = context;
    bar->marked = TRUE;
    bar->reveal = TRUE;
    /* Translators: all %s are sizes. */
    _gml_script_end_step (r,
                          g_strdup_printf (_("Most of the %s nvidia-smi shows is the CUDA context "
                                                 "(%s here), which the process needs before "
                                                 "anything runs on the GPU; the tiny tensor takes "
                                                 "a %s block in one %s small-pool segment."),
                                               all, ctx, blk, seg));
    bar = _gml_script_bar (r, g_strdup ("memory_reserved()"));
    _gml_script_bar_measure (r, bar, FALSE);
    _gml_script_key (r, "context", context);
    _gml_script_key (r, "memory_reserved", res);
  }
  r->sc->focus_step = _gml_script_last_step (r);
}

static gboolean
check_max_split (const GmlPictureScript *e,
                 char                  **field,
                 char                  **reason)
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
max_split_run (GmlScript              *r,
               const GmlPictureScript *e,
               gboolean                with_option)
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
                                   "more, so the %s block stays whole and a new %s segment is "
                                   "taken: memory_reserved() grows from %s to %s."),
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
                                   "memory_allocated() grows by %s and memory_reserved() stays "
                                   "%s."),
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
script_max_split (GmlScript              *r,
                  const GmlPictureScript *e)
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

/* The two points about a freed block another stream still reads start alike:
 * x, of @cached bytes, on the default stream. Returns x's address, written out. */
static char *
begin_with_x (GmlScript    *r,
              guint64       cached,
              GmlBlockInfo *x)
{
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc_on (r, 0, "x", GML_CATEGORY_ACTIVATIONS, cached);
  _gml_script_block (r, "x", x);
  return g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", x->address);
}

/* The cache is per stream. */
static void
script_streams (GmlScript              *r,
                const GmlPictureScript *e)
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
      xa = begin_with_x (r, cached, &x);
      c = _gml_script_size (r, cached);
      /* Translators: %s is a size, the second %s an address such as 0x7f0000000000. */
      _gml_script_end_step (r,
                            g_strdup_printf (_("x (%s) is allocated on the default stream at %s; "
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
                                                ? _("The next tensor on the default stream, y, "
                                                    "gets x’s block at the same address %s and may "
                                                    "be written while the side stream still reads "
                                                    "x. x.record_stream(side_stream), or waiting "
                                                    "on an event, would keep the block until the "
                                                    "side stream’s work is done (the lab does not "
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
      xa = begin_with_x (r, cached, &x);
      c = _gml_script_size (r, cached);
      _gml_script_record_stream (r, "x", 1);
      /* Translators: %s is a size, the second %s an address such as 0x7f0000000000. */
      _gml_script_end_step (r,
                            g_strdup_printf (_("x (%s, at %s) is allocated on the default stream; "
                                                   "a kernel on a side stream reads it, and "
                                                   "x.record_stream(side_stream) tells the "
                                                   "allocator."),
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
                                                     "(active_pending_free in a snapshot) until "
                                                     "the event the allocator recorded on the side "
                                                     "stream completes. memory_allocated() is %s, "
                                                     "active memory still %s, and no request can "
                                                     "have the block."),
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
    _gml_script_end_step (r,
                          g_strdup_printf (_("The %s cached block belongs to stream A, so the %s "
                                                 "request on stream B cannot use it: a new %s "
                                                 "segment is taken and memory_reserved() grows "
                                                 "from %s to %s."),
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
        _gml_script_end_step (r,
                              g_strdup_printf (_("The same %s request on stream A is served from "
                                                     "stream A’s cached %s block "
                                                     "(memory_reserved() stays %s); the one on "
                                                     "stream B needed a new %s segment."),
                                                   req, c, g2, grow));
        _gml_script_mark (r, "on A", FALSE,
                          g_strdup_printf (_("stream A: from the cached %s block"),
                                                              c));
      }
  }
  r->sc->focus_step = _gml_script_last_step (r);
}

/* ------------------------------------------------------------------------- */
/* The table                                                                 */

#define POINT(def, list) { "point", GML_PARAM_CHOICE, def, 0, 0, list }
#define SIZE(name, def, lo, hi) { name, GML_PARAM_SIZE, def, lo, hi, NULL }
#define COUNT(name, def, lo, hi) { name, GML_PARAM_COUNT, def, lo, hi, NULL }

#define KiB G_GUINT64_CONSTANT (1024)
/* 10^15 bytes, a petabyte: no bound a question could reach. */
#define PB_ G_GUINT64_CONSTANT (1000000000000000)

/* A named scenario's row: its title, the view it opens on, the views it offers
 * besides the usual ones, and its story. */
#define SCENARIO(title, focus_view, extra_views, story) { title, focus_view, extra_views, story }

const GmlKindDef _gml_picture_script_kind_defs[] = {
  /* The named scenarios, in the order gml_scenario_names() lists them. */
  { "oom", { { NULL } }, script_oom, NULL,
    SCENARIO (N_("A training step on a small GPU: weights, gradients, optimizer state, "
                 "activations"),
              GML_VIEW_MEMORY_MAP, 0, story_oom) },
  { "batch-size", { COUNT ("from", "32", 1, 4096), COUNT ("to", "128", 1, 16384) },
    script_batch_size, NULL,
    SCENARIO (N_("Batch size: the same model at batch 32 and at batch 128"),
              GML_VIEW_MEMORY_MAP, 0, story_batch_size) },
  { "empty-cache", { POINT ("after", "after|retry|other-programs") }, script_empty_cache, NULL,
    SCENARIO (N_("empty_cache(): what the caching allocator gives back, and what it cannot"),
              GML_VIEW_TIMELINE, 1u << GML_VIEW_FRAGMENTATION, story_empty_cache) },
  { "precision", { { NULL } }, script_precision, NULL,
    SCENARIO (N_("Precision: the same tensors in fp32 and in bf16"),
              GML_VIEW_MEMORY_MAP, 0, story_precision) },
  { "checkpointing", { COUNT ("layers", "16", 4, 64) }, script_checkpointing, NULL,
    SCENARIO (N_("Gradient checkpointing: stored and recomputed activations"),
              GML_VIEW_CHECKPOINTING, 0, story_checkpointing) },
  { "fragmentation", { POINT ("meaning", "meaning|advice|segments") }, script_fragmentation, NULL,
    SCENARIO (N_("Many tensors allocated, every other one freed, then a larger request"),
              GML_VIEW_FRAGMENTATION, 1u << GML_VIEW_FRAGMENTATION, story_fragmentation) },

  /* The other kinds: a question's own picture script only. */
  { "free-to-cache", { POINT ("difference", "difference|del"),
                       SIZE ("size", "256 MiB", 10 * MiB, 512 * MiB),
                       SIZE ("keep", "3 MiB", 512, 8 * MiB) },
    script_free_to_cache, NULL },
  { "oom-message", { POINT ("reserved", "reserved|unallocated|outside"),
                     SIZE ("allocated", NULL, 64 * MiB, PB_),
                     SIZE ("unallocated", NULL, 8 * MiB, PB_),
                     SIZE ("capacity", "0", 0, PB_),
                     SIZE ("free", "0", 0, PB_),
                     SIZE ("request", "0", 0, PB_),
                     SIZE ("in_use", "0", 0, PB_),
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
                 SIZE ("reserved", "10 GiB", 64 * MiB, PB_),
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
                     COUNT ("parameters", "1000000000", 1000000,
                            G_GUINT64_CONSTANT (1000000000000)) },
    _gml_kind_model_state, NULL },
  { "zero", { POINT ("stages", "stages|per-gpu"),
              COUNT ("parameters", "1000000000", 1000000, G_GUINT64_CONSTANT (1000000000000)),
              COUNT ("gpus", "4", 2, 64) },
    _gml_kind_zero, NULL },
  { "fsdp-gather", { COUNT ("layers", "4", 2, 16), COUNT ("gpus", "4", 2, 16),
                     SIZE ("layer", "64 MiB", 4 * MiB, 128 * MiB) },
    _gml_kind_fsdp_gather, NULL },
  { "checkpointing-depth", { COUNT ("layers", "16", 4, 32), COUNT ("factor", "4", 2, 4) },
    _gml_kind_checkpointing_depth, NULL },
  { "zero-grad", { POINT ("set-to-none", "set-to-none|placement"),
                   COUNT ("layers", "4", 1, 8),
                   SIZE ("weight", "32 MiB", 2 * MiB, 64 * MiB),
                   SIZE ("activation", "48 MiB", 2 * MiB, 64 * MiB) },
    _gml_kind_zero_grad, NULL },
  { "grad-accum", { POINT ("memory", "memory|deferred|arithmetic"),
                    COUNT ("micro_batch", "32", 1, 4096),
                    COUNT ("micro_batches", "4", 2, 8),
                    SIZE ("activations", "64 MiB", 2 * MiB, PB_),
                    SIZE ("fixed", "192 MiB", 8 * MiB, PB_) },
    _gml_kind_grad_accum, NULL },
  { "no-grad", { POINT ("no-grad", "no-grad|inference-mode"),
                 COUNT ("layers", "8", 2, 16),
                 SIZE ("weight", "16 MiB", 2 * MiB, 32 * MiB),
                 SIZE ("activation", "40 MiB", 2 * MiB, 64 * MiB) },
    _gml_kind_no_grad, NULL },
  { "held-references", { POINT ("loss", "loss|outputs"),
                         SIZE ("weight", "10 MiB", 2 * MiB, 512 * MiB),
                         COUNT ("steps", "8192", 16, 65536),
                         COUNT ("batches", "24", 2, 256),
                         SIZE ("model", "256 MiB", 2 * MiB, 512 * MiB),
                         SIZE ("saved", "48 MiB", 2 * MiB, 128 * MiB),
                         SIZE ("output", "4 MiB", 512, 32 * MiB) },
    _gml_kind_held_references, NULL },
  { "placement", { POINT ("pinned", "pinned|offload|managed"),
                   SIZE ("size", "64 MiB", 2 * MiB, 256 * MiB),
                   SIZE ("weight", "256 MiB", 2 * MiB, 512 * MiB),
                   COUNT ("parameters", "33554432", 1048576, 67108864) },
    _gml_kind_placement, NULL },
  { "kv-cache", { POINT ("contents", "contents|growth"),
                  COUNT ("layers", "4", 1, 16),
                  COUNT ("hidden", "4096", 64, 16384),
                  COUNT ("batch", "4", 1, 16),
                  COUNT ("tokens", "256", 16, 1024),
                  SIZE ("weight", "128 MiB", 2 * MiB, 512 * MiB) },
    _gml_kind_kv_cache, NULL },
  /* Runs on a simulated GPU of its own (see gml_scenario_new_picture_script). */
  { "lab", { { "config", GML_PARAM_TEXT, NULL, 0, 0, NULL } }, NULL, _gml_kind_check_lab },
  { "expandable", { SIZE ("tensor", "7 MiB", MiB + 512, 10 * MiB - 1) }, _gml_kind_expandable,
    NULL },
  { "graph-pool", { SIZE ("capacity", "96 MiB", 32 * MiB, 512 * MiB),
                    SIZE ("graph", "48 MiB", 2 * MiB, 256 * MiB),
                    SIZE ("request", "40 MiB", 2 * MiB, 256 * MiB) },
    _gml_kind_graph_pool, NULL },
  { "compile-saved", { COUNT ("layers", "4", 1, 8),
                       SIZE ("activation", "32 MiB", 2 * MiB, 64 * MiB),
                       COUNT ("budget", "100", 0, 100) },
    _gml_kind_compile_saved, NULL },
  { "offload-activations", { COUNT ("layers", "8", 1, 16),
                             SIZE ("activation", "32 MiB", 2 * MiB, 64 * MiB),
                             SIZE ("weight", "64 MiB", 2 * MiB, 256 * MiB) },
    _gml_kind_offload_activations, NULL },
  { "fraction", { SIZE ("total", "80 GiB", 64 * MiB, PB_),
                  SIZE ("allowed", "40 GiB", 32 * MiB, PB_),
                  SIZE ("used", "38 GiB", 0, PB_), SIZE ("request", "4 GiB", 2 * MiB, PB_) },
    _gml_kind_fraction, NULL },
  { "tied-embeddings", { COUNT ("vocab", "50257", 2, 1000000),
                         COUNT ("hidden", "768", 2, 65536),
                         COUNT ("positions", "1024", 0, 1000000), COUNT ("layers", "12", 1, 256),
                         COUNT ("block", "7087872", 1, G_GUINT64_CONSTANT (100000000000)) },
    _gml_kind_tied_embeddings, NULL },
  { "mixed-lifetimes", { COUNT ("pairs", "4", 2, 8), SIZE ("tensor", "8 MiB", 2 * MiB, 9 * MiB),
                         SIZE ("request", "16 MiB", 10 * MiB, 64 * MiB) },
    script_mixed_lifetimes, NULL },
  { "many-small", { COUNT ("count", "100000", 1, 200000), SIZE ("size", "4", 1, 512) },
    script_many_small, NULL },
  { "view-storage", { SIZE ("tensor", "256 MiB", 4 * MiB, 512 * MiB),
                      SIZE ("slice", "4 MiB", 512, 64 * MiB) },
    _gml_kind_view_storage, NULL },
};

const guint _gml_picture_script_n_kind_defs = G_N_ELEMENTS (_gml_picture_script_kind_defs);

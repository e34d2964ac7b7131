/* gml-scenario-stories.c — the stories of the six named scenarios.
 *
 * Sizes scale with the memory the lab may use (the "arena": the CUDA budget,
 * or the simulated device), so the story is the same on every device: what
 * fails on a 1 GiB budget fails at the same step on a 512 MiB one. The table
 * of kinds in gml-picture-scripts.c names each story once, for
 * gml_scenario_new() and for the questions' picture scripts alike.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-scenario"

#include "config.h"

#include <math.h>
#include <stdio.h>

#include "gml-i18n.h"
#include "gml-script-private.h"

#define MiB GML_MiB

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

/* The arena's unit: 1/32 of it, in whole 2 MiB pages (32 MiB on a 1 GiB budget). */
static guint64
arena_unit (GmlScript *r)
{
  return MAX (round_down (r->run->capacity / 32, 2 * MiB), 2 * MiB);
}

/* ------------------------------------------------------------------------- */
/* The stories                                                               */

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

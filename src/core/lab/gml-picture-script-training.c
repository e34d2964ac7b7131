/* gml-picture-script-training.c — the picture scripts about a training step's memory:
 * model state (ZeRO's bytes per parameter), sharding, FSDP's gather,
 * checkpointing's depth, zero_grad, gradient accumulation, no_grad, held
 * references, placement and the KV cache. Facts: Rajbhandari et al. 2020
 * (ZeRO), Chen et al. 2016 (checkpointing), the PyTorch FAQ and the CUDA
 * semantics notes, as the comment at the top of gml-picture-scripts.c says.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-picture-script"

#include "config.h"

#include "gml-picture-scripts-private.h"

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
void
_gml_kind_model_state (GmlScript              *r,
                       const GmlPictureScript *e)
{
  guint64 params = V ("parameters");
  static const StateRun sgd = { N_("SGD"), sgd_parts, G_N_ELEMENTS (sgd_parts) };
  static const StateRun adam = { N_("Adam"), adam_fp32_parts, G_N_ELEMENTS (adam_fp32_parts) };
  static const StateRun fp32 = { N_("Adam in fp32"), adam_fp32_parts,
                                 G_N_ELEMENTS (adam_fp32_parts) };
  static const StateRun mixed = { N_("Mixed-precision Adam"), mixed_parts,
                                  G_N_ELEMENTS (mixed_parts) };
  static const StateRun fp16g = { N_("fp16 gradients (ZeRO)"), mixed_parts,
                                  G_N_ELEMENTS (mixed_parts) };
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
        caption =
            g_strdup_printf (_("For the same %s parameters SGD holds %s (weights and gradients, "
                               "%u B per parameter); Adam adds two fp32 moments, %u B per "
                               "parameter: %s more, %s in all."),
                             count, t0, bpp0, o1, more, t1);
      }
    else if (IS ("accounting", "zero-parts"))
      caption =
          g_strdup_printf (_("%u B per parameter: %u B of fp16 weights, %u B of fp16 gradients "
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
                                   "%u + %u + %u = %u B per parameter, %s for %s parameters "
                                   "instead of %s."),
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
void
_gml_kind_zero (GmlScript              *r,
                const GmlPictureScript *e)
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
        _gml_script_alloc (r, mixed_parts[i].label, mixed_parts[i].category,
                           p * mixed_parts[i].bytes);
      /* Translators: %s is a parameter count, the second a size. */
      {
        g_autofree char *t = _gml_script_size (r, requested_now (r));

        _gml_script_end_step (r,
                              with_scale (r, g_strdup_printf (_("%s parameters, 16 B each by the "
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
              _gml_script_alloc (r, label, mixed_parts[i].category,
                                 p / gpus * mixed_parts[i].bytes);
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
                                 with_scale (r,
                                             g_strdup_printf (_("%s parameters × 16 B = %s of "
                                                                "model state. ZeRO stage 3 splits "
                                                                "the weights, gradients and "
                                                                "optimizer state evenly over %u "
                                                                "GPUs: %s on each, before any "
                                                                "activations or weights gathered "
                                                                "for a moment."),
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
                                                                 "parallelism keeps the whole "
                                                                 "model state, %s; ZeRO stage 1 "
                                                                 "shards the optimizer state (%s), "
                                                                 "stage 2 also the gradients (%s), "
                                                                 "stage 3 — FSDP’s full sharding — "
                                                                 "also the weights (%s)."),
                                                               gpus, t0, t1, t2, t3)));
      _gml_script_key (r, "data_parallel", totals[0]);
      _gml_script_key (r, "stage3", totals[3]);
    }
    r->sc->focus_step = _gml_script_last_step (r);
  }
}

/* FSDP's forward pass: gather a layer, compute, free the copy. */
void
_gml_kind_fsdp_gather (GmlScript              *r,
                       const GmlPictureScript *e)
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
          _gml_script_end_step (r,
                                g_strdup_printf (_("For layer %u’s forward pass GPU 0 gathers the "
                                                       "full %s from all %u GPUs and computes its "
                                                       "part of the batch; then it frees the copy "
                                                       "and keeps only its %s shard, so one layer "
                                                       "at a time is held in full (%s allocated "
                                                       "now)."),
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
void
_gml_kind_checkpointing_depth (GmlScript              *r,
                               const GmlPictureScript *e)
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
                             g_strdup_printf (_("%u× deeper (%u → %u layers): without "
                                                "checkpointing the activations’ peak grows from %s "
                                                "to %s (%s×); with √n checkpoints only from %s to "
                                                "%s (%s×)."),
                                              factor, n, n * factor, a, b, r1, c, d, r2));
    _gml_script_key (r, "peak_sqrt_small", peaks[2]);
    _gml_script_key (r, "peak_sqrt_deep", peaks[3]);
  }
  sc->focus_step = _gml_script_last_step (r);
}

/* A small model for the training-loop picture scripts: per layer, a weight and an
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

void
_gml_kind_zero_grad (GmlScript              *r,
                     const GmlPictureScript *e)
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
              _gml_script_end_step (r,
                                    g_strdup (_("zero_grad() frees the old gradients only now.")));
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
                                 g_strdup_printf (_("Called before the forward pass (or right "
                                                    "after optimizer.step()), zero_grad() frees "
                                                    "the old gradients (%s) before the activations "
                                                    "(%s) are stored: peak %s. Called after the "
                                                    "forward pass, both are held at once: peak "
                                                    "%s."),
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
          _gml_script_end_step (r,
                                g_strdup_printf (_("zero_grad(set_to_none=True) sets every .grad "
                                                   "to "
                                                       "None and frees the gradients: "
                                                       "memory_allocated() drops from %s to %s; "
                                                       "memory_reserved() stays %s, their %s of "
                                                       "blocks cached for the next backward(). "
                                                       "Writing zeros instead keeps them "
                                                       "allocated."),
                                                     b, a, res, g));
        else
          _gml_script_end_step (r,
                                g_strdup_printf (_("zero_grad(set_to_none=False) writes zeros into "
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
void
_gml_kind_grad_accum (GmlScript              *r,
                      const GmlPictureScript *e)
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
          _gml_script_end_step (r,
                                g_strdup_printf (_("The forward pass of all %u examples."),
                                                 k * micro));
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
                  _gml_script_end_step (r,
                                        g_strdup_printf (_("backward() of micro-batch %u adds its "
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
              _gml_script_end_step (r,
                                    g_strdup_printf (_("One backward() through the %u graphs frees "
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
      /* Translators: batch, micro-batches, size, size, size, size; micro-batches, examples, sizes.
       */
      caption = g_strdup_printf (_("A real batch of %u holds %u × %s = %s of activations + %s: %s. "
                                   "Accumulating %u micro-batches of %u holds one micro-batch’s %s "
                                   "at a time + %s: %s, at the price of %u passes one after "
                                   "another."),
                                 k * micro, k, sa1, sa0, sf, st0, k, micro, sa1, sf, st1, k);
    else if (deferred)
      caption =
          g_strdup_printf (_("Keeping the %u losses keeps their graphs, so the activations of "
                             "all %u micro-batches are held at once (%s): peak %s, against %s "
                             "when each backward() frees its micro-batch’s %s first."),
                           k, k, sa0, st0, st1, sa1);
    else
      caption =
          g_strdup_printf (_("Accumulating %u micro-batches of %u holds the activations of %u "
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
void
_gml_kind_no_grad (GmlScript              *r,
                   const GmlPictureScript *e)
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
          _gml_script_end_step (r,
                                g_strdup_printf (run == 0 ? _("%s: layer %u’s output is saved for "
                                                              "backward().")
                                                             : _("%s: layer %u’s output is "
                                                                 "computed; "
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
void
_gml_kind_held_references (GmlScript              *r,
                           const GmlPictureScript *e)
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
                                 g_strdup_printf (_("After %u steps, total_loss += loss keeps "
                                                    "every step’s loss tensor alive through its "
                                                    "autograd history: memory_allocated() grew by "
                                                    "%s (%s a step) and never stops growing. With "
                                                    "loss.item(), a plain Python number, it stays "
                                                    "at %s."), steps, grow, per, flat));
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
              _gml_script_end_step (r,
                                    g_strdup_printf (_("%s, batch %u: %s allocated."), name, b, a));
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
                                                    "batches %s are allocated and batch %u runs "
                                                    "out of memory. Under no_grad() only the "
                                                    "outputs (%s each) stay: %s after %u batches."),
                                                  sv, (guint) oom_at - 1, k, (guint) oom_at, op,
                                                  flat, n_batches));
      else
        _gml_script_set_caption (r, _gml_script_last_step (r),
                                 g_strdup_printf (_("Each kept output holds its graph and the "
                                                    "batch’s saved activations (%s): %s after %u "
                                                    "batches, and growing. Under no_grad() only "
                                                    "the outputs (%s each) stay: %s."),
                                                  sv, k, n_batches, op, flat));
      _gml_script_key (r, "saved_per_batch", saved);
    }
    r->sc->focus_step = _gml_script_last_step (r);
  }
}

/* Host memory beside device memory: pinned buffers, offloaded state, managed pages. */
void
_gml_kind_placement (GmlScript              *r,
                     const GmlPictureScript *e)
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
                                                   "writes it first, so its pages are in host "
                                                   "RAM."),
                                                 s));
      _gml_script_end_step (r,
                            g_strdup (_("A kernel reads all of it: the driver migrates the pages "
                                        "to the GPU as they are touched.")));
      {
        g_autofree char *h = _gml_script_size (r, size / 2);

        /* Translators: both %s are sizes. */
        _gml_script_end_step (r, g_strdup_printf (_("The same pointer, on both sides: the CPU has "
                                                     "read the first half again, so the driver "
                                                     "moved %s of pages back to host RAM and %s "
                                                     "stay on the GPU. These pages are the lab’s "
                                                     "model of the driver: PyTorch’s caching "
                                                     "allocator does not use managed memory."), h,
                                                  h));
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
      _gml_script_end_step (r,
                            g_strdup_printf (_("The model’s weights (%s) are on the GPU; the next "
                                                   "batch (%s) is in ordinary host RAM."), w, s));
      bar = _gml_script_bar (r, g_strdup (_("GPU memory")));
      _gml_script_bar_measure (r, bar, FALSE);
      bar->until = 2;
      r->sc->setup_step = 1;
      _gml_script_end_step (r,
                            g_strdup_printf (_("pin_memory() copies the %s batch into page-locked "
                                                   "host RAM: GPU memory stays at %s, the weights "
                                                   "alone. From pinned memory the copy to the GPU "
                                                   "is faster, and with non_blocking=True it can "
                                                   "run asynchronously."), s, w));
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
          _gml_script_end_step (r,
                                g_strdup_printf (offload ? _("Offloaded: the GPU holds the weights "
                                                             "and gradients, %s.")
                                                            : _("Adam on the GPU: weights, "
                                                                "gradients "
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
                                                  "moments (%s, 8 B per parameter) into host RAM: "
                                                  "the GPU holds %s instead of %s. The price is %s "
                                                  "of host RAM and, at every step, moving the "
                                                  "gradients (%s) to the host and the new weights "
                                                  "(%s) back, or running the update on the CPU."),
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
kv_run (GmlScript              *r,
        const GmlPictureScript *e,
        guint                   batch,
        guint                   every)
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
          _gml_script_end_step (r,
                                g_strdup_printf (_("%u tokens, batch %u: the KV cache holds %s."),
                                                     t, batch, kv));
        }
    }
  return per_token * tokens * 2 * layers;
}

void
_gml_kind_kv_cache (GmlScript              *r,
                    const GmlPictureScript *e)
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
                                 g_strdup_printf (_("Every generated token adds a key and a value "
                                                    "in each layer for every sequence: %s a token "
                                                    "at batch 1, %s at batch %u. After %u tokens "
                                                    "the cache holds %s at batch 1 and %s at batch "
                                                    "%u."),
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
                                                "keys and values of every token so far, for each "
                                                "of the %u layers: %s (%s a token), kept so that "
                                                "the next token need not recompute them. The "
                                                "weights (%s) are a separate tensor."),
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

/* gml-lab-notes.c — where the engine's run differs from the formulas, and why.
 *
 * The difference is the lesson: the allocator rounds every request and caches
 * what is freed (pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp), real
 * layers keep more or less than a formula counts, and the peak comes at one
 * moment of the step, not as a sum of maxima.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-lab"

#include "config.h"

#include <math.h>

#include "gml-i18n.h"

#include "gml-lab-private.h"

static char *
sz (guint64 bytes)
{
  return gml_format_size_short (bytes);
}

/* "16", "2.5": bytes per parameter. */
static char *
per_param (double bytes)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (fabs (bytes - round (bytes)) < 1e-9)
    g_snprintf (buf, sizeof buf, "%.0f", bytes);
  else
    g_ascii_formatd (buf, sizeof buf, "%.2f", bytes);
  return g_strdup (buf);
}

GPtrArray *
gml_lab_run_dup_notes (GmlLabRun *self)
{
  const GmlLabConfig *c = gml_lab_run_get_config (self);
  const GmlLabResult *r = gml_lab_run_get_result (self);
  const GmlLabFormula *f = &r->formula;
  GPtrArray *notes = g_ptr_array_new_with_free_func (g_free);
  guint64 allocated = 0;

  for (guint i = 0; i < GML_N_CATEGORIES; i++)
    allocated += r->by_category[i];

  if (!r->fits)
    {
      g_autofree char *a = sz (r->needed_allocated);
      g_autofree char *res = sz (r->needed_reserved);
      g_autofree char *gpu = sz (c->gpu_memory);

      if (r->needed_reserved > 0)
        /* Translators: sizes. */
        g_ptr_array_add (notes,
                         g_strdup_printf (_("It does not fit in %s: on a GPU large enough, this "
                                            "step would allocate %s at its peak and reserve %s."),
                                          gpu, a, res));
      else
        g_ptr_array_add (notes,
                         g_strdup_printf (_("It does not fit in %s, nor in the largest GPU the lab "
                                            "simulates (448 GiB)."), gpu));
      /* The figures are at the error: state the optimizer had not made yet is 0 B. */
      if (c->mode == GML_LAB_TRAIN && f->optimizer_state > 0 &&
          r->by_category[GML_CATEGORY_OPTIMIZER_STATE] == 0 && r->peak_at != NULL)
        {
          g_autofree char *state = sz (f->optimizer_state);

          /* Translators: a size, then when it ran out ("in step 1, during the forward pass
           * of layer 10 of 12"). */
          g_ptr_array_add (notes,
                           g_strdup_printf (_("Optimizer state is 0 B at the error, against the "
                                              "formula’s %s: it ran out of memory %s, before the "
                                              "first optimizer.step() made that state."),
                                            state, r->peak_at));
        }
    }

  /* Rounding and caching. */
  if (allocated > r->requested_at_peak)
    {
      g_autofree char *asked = sz (r->requested_at_peak);
      g_autofree char *given = sz (allocated);

      /* Translators: sizes. */
      g_ptr_array_add (notes,
                       g_strdup_printf (_("Rounding: at the peak the tensors asked for %s and were "
                                          "given blocks of %s. Every request is rounded up to a "
                                          "multiple of 512 bytes, and a cached block is handed out "
                                          "whole when what would be left is 1 MiB or less."),
                                        asked, given));
    }
  if (r->reserved_at_peak > allocated)
    {
      g_autofree char *res = sz (r->reserved_at_peak);
      g_autofree char *more = sz (r->reserved_at_peak - allocated);
      g_autofree char *split = sz (r->inactive_split_at_peak);

      if (c->conf.expandable_segments)
        /* Translators: sizes. */
        g_ptr_array_add (notes,
                         g_strdup_printf (_("Cache: %s was reserved at the peak, %s more than "
                                            "allocated: free blocks the allocator keeps for the "
                                            "next request. With expandable segments each pool "
                                            "grows one segment page by page (2 MiB or 20 MiB)."),
                                          res, more));
      else
        /* Translators: sizes. */
        g_ptr_array_add (notes,
                         g_strdup_printf (_("Cache: %s was reserved at the peak, %s more than "
                                            "allocated: free blocks the allocator keeps for the "
                                            "next request, %s of them in segments that also hold a "
                                            "live tensor (inactive split memory). Segments are 2 "
                                            "MiB for small requests, 20 MiB for requests up to 10 "
                                            "MiB, and the request rounded up to 2 MiB above that."),
                                          res, more, split));
    }

  /* Activations against Korthikanti et al. */
  if (c->mode == GML_LAB_TRAIN && c->arch != GML_LAB_ARCH_MLP)
    {
      g_autofree char *paper = sz (f->korthikanti_per_layer);
      g_autofree char *lab = sz (f->activations_per_layer);
      guint k = _gml_lab_checkpoint_group (c);

      if (c->arch == GML_LAB_ARCH_GPT2 && c->precision != GML_LAB_FP32)
        /* Translators: sizes; s·b·h·(34 + 5·a·s/h) is a formula, keep it. */
        g_ptr_array_add (notes,
                         g_strdup_printf (_("Activations: Korthikanti et al.’s s·b·h·(34 + "
                                            "5·a·s/h) gives %s per layer; the lab keeps %s: the "
                                            "same tensors and LayerNorm’s mean and 1/σ in fp32 "
                                            "(16·s·b bytes), which the paper leaves out."), paper,
                                          lab));
      else if (c->arch == GML_LAB_ARCH_GPT2)
        g_ptr_array_add (notes,
                         g_strdup_printf (_("Activations: Korthikanti et al. count 16-bit values "
                                            "(%s per layer); in fp32 every value but the dropout "
                                            "masks takes 4 bytes, so the lab keeps %s per layer."),
                                          paper, lab));
      else
        /* Translators: a size, the MLP's width, the key/value heads, a size. */
        g_ptr_array_add (notes,
                         g_strdup_printf (_("Activations: Korthikanti et al.’s formula is for "
                                            "GPT’s block (dropout, a GELU MLP four times as wide): "
                                            "%s per layer here. This model has no dropout, a "
                                            "SwiGLU MLP of width %u and %u key/value heads: the "
                                            "lab keeps %s per layer."),
                                          paper, (guint) c->ffn, c->kv_heads, lab));
      if (k > 0)
        {
          GmlLabConfig plain;
          GmlLabFormula pf;
          g_autofree char *with = sz (f->activations);
          g_autofree char *without = NULL;

          plain = *c;
          plain.checkpointing = GML_LAB_CHECKPOINT_NONE;
          plain.alloc_conf = NULL;
          gml_lab_formula (&plain, &pf);
          without = sz (pf.activations);
          /* Translators: layers per group, sizes, a percentage. */
          g_ptr_array_add (notes,
                           g_strdup_printf (_("Checkpointing every %u layers keeps only each "
                                              "group’s input through the forward pass (%s of "
                                              "activations in all instead of %s) and recomputes "
                                              "one group at a time in the backward pass: about "
                                              "%.0f %% more compute (one more forward pass, "
                                              "against a step of a forward pass and a backward "
                                              "pass twice as long)."),
                                            k, with, without, 100 * r->extra_compute));
        }
    }

  /* Model state against the ZeRO paper. */
  if (c->mode == GML_LAB_TRAIN)
    {
      g_autofree char *bpp = per_param (gml_lab_bytes_per_parameter (c));
      g_autofree char *w = sz (f->weights);
      g_autofree char *g = sz (f->gradients);
      g_autofree char *o = sz (f->optimizer_state);

      if (c->zero > 0)
        /* Translators: bytes per parameter, a ZeRO stage, GPUs, sizes. */
        g_ptr_array_add (notes,
                         g_strdup_printf (_("Model state: %s bytes per parameter on this GPU with "
                                            "ZeRO stage %u over %u GPUs (weights %s, gradients %s, "
                                            "optimizer state %s), as Rajbhandari et al. 2020 count "
                                            "it."), bpp, c->zero, c->gpus, w, g, o));
      else
        g_ptr_array_add (notes,
                         g_strdup_printf (_("Model state: %s bytes per parameter (weights %s, "
                                            "gradients %s, optimizer state %s)."), bpp, w, g, o));
      if (c->precision == GML_LAB_AMP_FP16 || c->precision == GML_LAB_AMP_BF16)
        g_ptr_array_add (notes,
                         g_strdup (_("Mixed precision is counted as in the ZeRO paper, DeepSpeed "
                                     "and Megatron-LM: 16-bit weights and gradients, fp32 master "
                                     "weights and moments in the optimizer (2 + 2 + 12 bytes with "
                                     "Adam). PyTorch’s own torch.autocast keeps fp32 weights and "
                                     "gradients instead (4 + 4 + 8) and makes 16-bit copies of the "
                                     "weights during the step.")));
      if (_gml_lab_is_autocast (c))
        g_ptr_array_add (notes,
                         g_strdup (_("torch.autocast, as PyTorch does it: the weights, gradients "
                                     "and optimizer state stay fp32 (4 + 4 + 8 bytes with Adam); "
                                     "activations are saved in 16 bits, and each layer’s 16-bit "
                                     "weight copies live from its forward to its backward. The lab "
                                     "saves every activation in 16 bits; autocast keeps some in "
                                     "fp32 (LayerNorm’s inputs, the residual stream), and the "
                                     "output layer’s copy is not counted.")));
      if (c->optimizer == GML_LAB_ADAM || c->optimizer == GML_LAB_ADAMW)
        {
          guint64 w_, g_, m_, s_;
          g_autofree char *tmp = NULL;

          _gml_lab_state_bytes (c, &w_, &g_, &m_, &s_);
          tmp = sz (s_ / 2 * (c->zero >= 1 ? _gml_lab_shard (r->parameters, c->gpus)
                                           : r->parameters));
          /* Translators: a size. */
          g_ptr_array_add (notes,
                           g_strdup_printf (_("optimizer.step(): torch.optim’s default foreach "
                                              "Adam computes √v for every parameter at once, %s of "
                                              "temporaries for a moment."), tmp));
        }
      if (c->accumulation > 1)
        {
          /* Translators: micro-steps, a batch size. */
          g_ptr_array_add (notes,
                           g_strdup_printf (_("Accumulation over %u micro-steps: each forward pass "
                                              "holds the activations of a batch of %u only, but "
                                              "from the second micro-step on the gradients stay "
                                              "allocated through it."), c->accumulation, c->batch));
          if (c->accumulation > r->simulated_micro_steps)
            g_ptr_array_add (notes,
                             g_strdup_printf (_("The lab runs %u of the %u micro-steps; the others "
                                                "repeat them."), r->simulated_micro_steps,
                                              c->accumulation));
        }
    }
  else
    {
      g_autofree char *kv = sz (f->kv_cache);
      g_autofree char *got = sz (r->by_category[GML_CATEGORY_KV_CACHE]);
      guint64 tokens = c->seq + c->tokens;

      /* Translators: layers, tokens, heads, head size, bytes, batch, sizes. */
      g_ptr_array_add (notes,
                       g_strdup_printf (_("KV cache: 2 × %u layers × %u tokens × %u key/value "
                                          "heads × %u × %u bytes × batch %u = %s. At the peak the "
                                          "cache holds %s: torch.cat makes each layer’s longer "
                                          "cache before it frees the old one."),
                                        c->layers, (guint) tokens, c->kv_heads,
                                        (guint) (c->hidden / c->heads),
                                        (guint) _gml_lab_dtype_bytes (c), c->batch, kv, got));
    }

  if (r->peak_at != NULL)
    /* Translators: where in the step ("in step 2, during the backward pass of layer 3 of 12"). */
    g_ptr_array_add (notes, g_strdup_printf (_("The peak comes %s."), r->peak_at));
  g_ptr_array_add (notes,
                   g_strdup (_("Not counted: the CUDA context (300–500 MiB on a real GPU), the "
                               "cuBLAS workspace, NCCL’s buffers and DDP’s gradient buckets.")));
  return notes;
}

/* "--batch 8" pairs of a configuration's command line. */
static GHashTable *
knob_table (const GmlLabConfig *c,
            GPtrArray          *order)
{
  g_autofree char *args = gml_lab_config_to_args (c);
  g_auto(GStrv) words = g_strsplit (args, " ", -1);
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; words[i] != NULL; i++)
    if (g_str_has_prefix (words[i], "--"))
      {
        const char *value = words[i + 1] != NULL &&
        !g_str_has_prefix (words[i + 1], "--") ? words[i + 1] : "";

        if (order != NULL && !g_ptr_array_find_with_equal_func (order, words[i], g_str_equal, NULL))
          g_ptr_array_add (order, g_strdup (words[i]));
        g_hash_table_replace (table, g_strdup (words[i]), g_strdup (value));
      }
  return table;
}

static char *
percent_change (guint64 a,
                guint64 b)
{
  double change;
  const char *sign;

  if (a == 0)
    return g_strdup ("");
  change = round (100.0 * ((double) b - (double) a) / (double) a);
  /* The sign apart from the number, so that a language that writes the percent
   * sign first puts it between them (Turkish "−%4", not "%-4"). */
  sign = change > 0 ? "+" : change < 0 ? "−" : "±";
  /* Translators: a change in percent after a size, " (+69 %)": the sign (+, − or ±),
   * then the number without its sign. */
  return g_strdup_printf (_(" (%s%.0f %%)"), sign, fabs (change));
}

char *
gml_lab_describe_difference (GmlLabRun *a,
                             GmlLabRun *b)
{
  const GmlLabResult *ra = gml_lab_run_get_result (a);
  const GmlLabResult *rb = gml_lab_run_get_result (b);
  g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) ka = knob_table (gml_lab_run_get_config (a), order);
  g_autoptr(GHashTable) kb = knob_table (gml_lab_run_get_config (b), order);
  g_autoptr(GString) changed = g_string_new (NULL);
  g_autoptr(GString) cats = g_string_new (NULL);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < order->len; i++)
    {
      const char *knob = g_ptr_array_index (order, i);
      const char *va = g_hash_table_lookup (ka, knob);
      const char *vb = g_hash_table_lookup (kb, knob);

      if (g_strcmp0 (va, vb) == 0)
        continue;
      if (changed->len > 0)
        g_string_append (changed, ", ");
      g_string_append_printf (changed, "%s %s → %s", knob, va != NULL ? va : "—",
                              vb != NULL ? vb : "—");
    }
  if (changed->len == 0)
    g_string_append (out, _("A and B have the same knobs."));
  else
    /* Translators: %s lists the knobs that differ: "--batch 8 → 16, --precision fp32 → amp-bf16".
     */
    g_string_append_printf (out, _("From A to B: %s."), changed->str);

  {
    g_autofree char *pa = sz (ra->peak_allocated);
    g_autofree char *pb = sz (rb->peak_allocated);
    g_autofree char *pc = percent_change (ra->peak_allocated, rb->peak_allocated);
    g_autofree char *sa = sz (ra->peak_reserved);
    g_autofree char *sb = sz (rb->peak_reserved);

    g_string_append_c (out, ' ');
    /* Translators: sizes, then a change such as " (−31 %)", then sizes. */
    g_string_append_printf (out, _("Peak allocated %s → %s%s, peak reserved %s → %s."), pa, pb, pc,
                            sa, sb);
  }

  for (guint c = 1; c < GML_N_CATEGORIES; c++)
    {
      g_autofree char *va = NULL;
      g_autofree char *vb = NULL;

      if (ra->by_category[c] == rb->by_category[c])
        continue;
      va = sz (ra->by_category[c]);
      vb = sz (rb->by_category[c]);
      if (cats->len > 0)
        g_string_append (cats, ", ");
      /* Translators: a category ("Activations"), then two sizes. */
      g_string_append_printf (cats, _("%s %s → %s"), gml_lab_category_name (c), va, vb);
    }
  if (cats->len > 0)
    {
      g_string_append_c (out, ' ');
      /* Translators: %s lists the categories that changed. */
      g_string_append_printf (out, _("At the peak: %s."), cats->str);
    }
  if (ra->extra_compute != rb->extra_compute)
    {
      g_string_append_c (out, ' ');
      /* Translators: two percentages of recomputed work ("0 %", "33 %"). */
      g_string_append_printf (out, _("Recomputation: %.0f %% → %.0f %% more compute."),
                              100 * ra->extra_compute, 100 * rb->extra_compute);
    }
  if (ra->fits != rb->fits)
    {
      g_string_append_c (out, ' ');
      g_string_append (out, rb->fits ? _("A does not fit; B fits.") : _("A fits; B does not."));
    }
  return g_string_free (out, FALSE);
}

char *
gml_lab_live_describe (const GmlLabLive *live)
{
  g_autofree char *share = gml_format_size_short (live->capacity);
  g_autofree char *alloc = gml_format_size_short (live->peak_allocated);
  g_autofree char *reserved = gml_format_size_short (live->peak_reserved);
  g_autofree char *driver = gml_format_size_short (live->driver_peak);
  g_autofree char *sim_alloc = gml_format_size_short (live->sim_peak_allocated);
  g_autofree char *sim_reserved = gml_format_size_short (live->sim_peak_reserved);
  g_autofree char *scale = g_strdup_printf ("%" G_GUINT64_FORMAT, live->scale);
  GString *s = g_string_new (NULL);

  /* Translators: the GPU's name, the scale (64 means every tensor is 64 times smaller),
   * then a size: the share of the real GPU the step ran in. */
  g_string_append_printf (s, _("Ran on %s with every tensor divided by %s, in %s of it: "),
                          live->device_name,
                          scale, share);
  if (live->fits)
    /* Translators: sizes. */
    g_string_append_printf (s, _("peak %s allocated and %s reserved; the driver gave at most %s."),
                            alloc,
                            reserved, driver);
  else
    /* Translators: PyTorch's out of memory message follows. */
    g_string_append_printf (s, _("out of memory: %s"), live->oom_message);
  g_string_append_c (s, ' ');
  if (live->agrees)
    /* Translators: sizes. */
    g_string_append_printf (s,
                            _("The simulator, at the same scale, gives the same figures (%s "
                              "allocated, %s reserved)."), sim_alloc, sim_reserved);
  else if (live->sim_fits && !live->fits)
    /* Translators: sizes. */
    g_string_append_printf (s,
                            _("The simulator, at the same scale, differs: %s allocated and %s "
                              "reserved. The GPU refused memory the simulator had (other programs "
                              "may hold it)."),
                            sim_alloc, sim_reserved);
  else if (live->sim_fits)
    /* Translators: sizes. */
    g_string_append_printf (s,
                            _("The simulator, at the same scale, differs: %s allocated and %s "
                              "reserved."),
                            sim_alloc, sim_reserved);
  else
    g_string_append (s,
                     _("The simulator, at the same scale, differs: it runs out of memory as well, "
                       "but not at the same point."));
  return g_string_free (s, FALSE);
}

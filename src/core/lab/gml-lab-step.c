/* gml-lab-step.c — a training or inference step as PyTorch allocates it.
 *
 * The lab turns a configuration into the tensors a PyTorch program allocates
 * and frees, in order, and runs them through the caching allocator on a
 * simulated GPU of the chosen size. Every tensor is one request, labelled with
 * its module's name, so the memory map shows what each block is.
 *
 * Training is the steady state: the model is loaded, one step runs (its
 * optimizer.step() creates the optimizer's state, as torch.optim does lazily),
 * then the step the lab reports runs on the same allocator, with the cache the
 * first step left. With --step first the lab reports that first step instead
 * and the picture ends after it. Each step is: zero_grad(set_to_none=True) (the default since
 * PyTorch 2.0), then for each micro-step the forward pass (each layer keeps what
 * its backward needs) and the backward pass (each layer frees what it kept and
 * produces its weights' gradients; with accumulation, later micro-steps add into
 * the gradients), then optimizer.step().
 *
 * What one transformer layer keeps is the list of Korthikanti et al. 2022
 * (arXiv:2205.05198), section 4.1, one tensor each:
 *
 *   attention: the LayerNorm's input 2sbh, the QKV projection's input 2sbh, Q, K
 *     and V 6sbh (one c_attn output), the softmax output 2as²b, its dropout mask
 *     as²b (1 byte a value) and output 2as²b, the output projection's input 2sbh,
 *     its dropout mask sbh — 11sbh + 5as²b;
 *   MLP: the LayerNorm's input 2sbh, the first linear's input 2sbh, the GELU's
 *     input 8sbh and output 8sbh (4h wide), the dropout mask sbh — 19sbh + ... ;
 *
 * in 16-bit s·b·h·(34 + 5·a·s/h) a layer. The lab adds what the paper leaves
 * out: LayerNorm's mean and 1/σ (fp32, s·b each). Tensors the backward does not
 * need (the raw attention scores, the projections' outputs before dropout) are
 * temporaries, freed as soon as the next operation has read them. The Llama
 * block keeps its own list (RMSNorm, RoPE'd Q and K, grouped-query K and V, no
 * dropout, SwiGLU's gate, up, SiLU and product). Backward allocates each
 * activation gradient as PyTorch's autograd does, one operation at a time.
 *
 * Optimizers follow torch/optim: SGD keeps nothing, momentum one buffer, Adam
 * and AdamW exp_avg and exp_avg_sq, created at the first step(); the default
 * foreach implementation computes √v for all parameters at once (a list of
 * temporaries as large as the state; the torch.optim documentation: foreach
 * "uses more peak memory"). Mixed precision keeps fp32 master weights in the
 * optimizer (Micikevicius et al. 2018; the ZeRO paper's 2 + 2 + 12 bytes).
 *
 * ZeRO (Rajbhandari et al. 2020): stage 1 keeps 1/N of the optimizer's state
 * (one flat shard, as DeepSpeed does), stage 2 also of the gradients (each
 * gradient is reduce-scattered into the shard as soon as it is computed), stage
 * 3 also of the weights (each layer's weights are gathered before its forward
 * and again before its backward, and freed after). One GPU is shown.
 *
 * Gradient checkpointing wraps every group of K layers in
 * torch.utils.checkpoint: the forward keeps each group's input only; the
 * backward recomputes the group (all its activations at once) and then runs
 * its backward.
 *
 * Inference (under torch.no_grad) frees every activation as soon as the next
 * operation has read it; the KV cache grows by torch.cat for every token, as
 * the Hugging Face DynamicCache does: a longer tensor is allocated before the
 * old one is freed.
 *
 * Left out, and said so in the notes: the CUDA context, the cuBLAS workspace,
 * NCCL and DDP's gradient buckets.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-lab"

#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gml-i18n.h"

#include "gml-lab-private.h"
#include "gml-script-private.h"

#define A_ GML_CATEGORY_ACTIVATIONS
#define T_ GML_CATEGORY_TEMPORARY
#define G_ GML_CATEGORY_GRADIENTS
#define W_ GML_CATEGORY_WEIGHTS
#define O_ GML_CATEGORY_OPTIMIZER_STATE
#define K_ GML_CATEGORY_KV_CACHE

typedef enum
{
  PHASE_SETUP,
  PHASE_FORWARD,
  PHASE_LOSS,
  PHASE_LOSS_BACKWARD,
  PHASE_BACKWARD,
  PHASE_EMBED_BACKWARD,
  PHASE_OPTIMIZER,
  PHASE_ZERO_GRAD,
  PHASE_PREFILL,
  PHASE_DECODE,
} PhaseKind;

typedef struct
{
  PhaseKind kind;
  guint     step;             /* training step (1 or 2) */
  guint     micro;            /* 0-based micro-step */
  int       layer;            /* layer, or token while decoding */
} Phase;

/* Immutable once made, and shared: the Experiment view, its pinned A and its
 * projected form hold references to one run instead of running it again. */
/* Label ids by format and its one %u argument (a layer): a llama-2-7b decode of
 * 1,024 tokens allocates and frees 1.8 million named tensors, and formatting and
 * hashing each name took longer than the allocator itself. */
typedef struct
{
  gboolean  cacheable;         /* no conversion but at most one %u */
  gboolean  has_argument;
  GArray   *ids;               /* guint32 by the argument: label id + 1, 0 not known yet */
} LabelFormat;

#define MAX_CACHED_ARGUMENT 65536

typedef struct
{
  GmlScript           r;
  const GmlLabConfig *c;
  gboolean            quick;
  guint64             scale;           /* every tensor divided by this (live runs), else 1 */
  GArray             *params;          /* GmlLabParam */
  guint64             n_params;
  guint64             d;               /* activation bytes per value */
  guint64             wb, gb, mb, sb;  /* weight, gradient, master, state bytes per parameter */
  guint64             mom_bytes;       /* one moment's bytes per parameter */
  guint               moments;
  guint64             s, b, h, a, f, V;
  guint64             kv;              /* key/value width: kv_heads × head dim */
  guint64             t;               /* s·b·h values */
  guint64             A;               /* a·s²·b values */
  guint               K;               /* micro-steps simulated */
  guint               group;           /* checkpointing: layers per group, 0 = none */
  guint64             cat[GML_N_CATEGORIES];
  gboolean            failed;
  Phase               phase;
  /* The peak the lab reports (the steady-state step's; inference: the run's). */
  gboolean            track;
  guint64             peak;
  guint64             peak_cat[GML_N_CATEGORIES];
  guint64             peak_requested;
  gsize               peak_events;
  Phase               peak_phase;
  /* The current layer's kept tensors, for checkpointed groups. */
  GPtrArray          *kept;
  gboolean            pending_tied;    /* the tied embedding's first gradient part is held */
  guint               recomputed;      /* layer forwards run again */
  char               *oom_message;
  guint64             oom_request;
  /* Steps of the picture the tests and the window point at (G_MAXUINT: none). */
  guint               forward_step;
  guint               optimizer_step;
  GCancellable       *cancellable;     /* or NULL */
  gint               *progress;        /* per mille, or NULL */
  guint               since_check;     /* allocations since it was last looked at */
  gboolean            cancelled;
  GHashTable         *formats;         /* label format → LabelFormat, for r.run */
  const char         *recent_format[64]; /* in front of it, by the format's address */
  LabelFormat        *recent[64];
} Lab;


/* ------------------------------------------------------------------------- */
/* Allocations                                                               */

/* The training step the lab reports: 2, the steady state, or 1. */
static guint
reported_step (Lab *lab)
{
  return lab->c->step == GML_LAB_STEP_FIRST ? 1 : 2;
}

static void
label_format_free (gpointer data)
{
  LabelFormat *lf = data;

  g_array_unref (lf->ids);
  g_free (lf);
}

static LabelFormat *
label_format_new (const char *format)
{
  LabelFormat *lf = g_new0 (LabelFormat, 1);
  guint n_u = 0, n_other = 0;

  for (const char *p = strchr (format, '%'); p != NULL; p = strchr (p + 2, '%'))
    {
      if (p[1] == 'u')
        n_u++;
      else
        n_other++;
      if (p[1] == '\0')
        break;
    }
  lf->cacheable = n_other == 0 && n_u <= 1;
  lf->has_argument = n_u == 1;
  lf->ids = g_array_new (FALSE, TRUE, sizeof (guint32));
  return lf;
}

/* The id of the label @format and @args make, in the run's trace; interned
 * when @intern, else FALSE if no tensor was ever given that name. */
static gboolean
label_id (Lab        *lab,
          gboolean    intern,
          const char *format,
          va_list     args,
          guint32    *id)
{
  guint slot = (GPOINTER_TO_SIZE (format) >> 3) % G_N_ELEMENTS (lab->recent);
  LabelFormat *lf = lab->recent_format[slot] == format ? lab->recent[slot] : NULL;
  char label[160];
  guint argument = 0;

  if (lf == NULL)
    {
      lf = g_hash_table_lookup (lab->formats, format);
      if (lf == NULL)
        {
          lf = label_format_new (format);
          g_hash_table_insert (lab->formats, (gpointer) format, lf);
        }
      lab->recent_format[slot] = format;
      lab->recent[slot] = lf;
    }
  if (lf->cacheable)
    {
      if (lf->has_argument)
        {
          va_list copy;

          va_copy (copy, args);
          argument = va_arg (copy, guint);
          va_end (copy);
        }
      if (argument < lf->ids->len && g_array_index (lf->ids, guint32, argument) != 0)
        {
          *id = g_array_index (lf->ids, guint32, argument) - 1;
          return TRUE;
        }
    }
  g_vsnprintf (label, sizeof label, format, args);
  if (intern)
    *id = _gml_script_label_id (&lab->r, label);
  else if (!_gml_script_find_label (&lab->r, label, id))
    return FALSE;
  if (lf->cacheable && argument < MAX_CACHED_ARGUMENT)
    {
      if (argument >= lf->ids->len)
        g_array_set_size (lf->ids, argument + 1);
      g_array_index (lf->ids, guint32, argument) = *id + 1;
    }
  return TRUE;
}

static guint64
allocated_now (Lab *lab)
{
  return _gml_script_stats (&lab->r)->allocated_bytes[GML_STAT_ALL].current;
}

static gboolean
alloc_v (Lab         *lab,
         GmlCategory  category,
         guint64      bytes,
         const char  *format,
         va_list      args)
{
  guint32 label;
  guint64 before, after;

  if (lab->failed)
    return FALSE;
  /* A superseded or abandoned run stops within a thousand allocations: a
   * llama-2-7b decode makes about 1,750 per token. */
  if (lab->cancellable != NULL && ++lab->since_check >= 1024)
    {
      lab->since_check = 0;
      if (g_cancellable_is_cancelled (lab->cancellable))
        {
          lab->cancelled = TRUE;
          lab->failed = TRUE;
          lab->r.fatal = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
          return FALSE;
        }
    }
  if (bytes == 0)
    return TRUE;
  if (lab->scale > 1)
    bytes = (bytes - 1) / lab->scale + 1;
  label_id (lab, TRUE, format, args, &label);
  before = allocated_now (lab);
  if (!_gml_script_alloc_labelled (&lab->r, 0, label, category, bytes))
    {
      lab->failed = TRUE;
      lab->oom_message = g_strdup (lab->r.oom_message);
      lab->oom_request = bytes;
      return FALSE;
    }
  after = allocated_now (lab);
  lab->cat[category] += after - before;
  if (lab->track && after > lab->peak)
    {
      lab->peak = after;
      memcpy (lab->peak_cat, lab->cat, sizeof lab->cat);
      lab->peak_requested = _gml_script_stats (&lab->r)->requested_bytes[GML_STAT_ALL].current;
      lab->peak_events = gml_trace_get_n_events (gml_allocator_get_trace (lab->r.run->allocator));
      lab->peak_phase = lab->phase;
    }
  return TRUE;
}

G_GNUC_PRINTF (4, 5)
static gboolean
alloc (Lab         *lab,
       GmlCategory  category,
       guint64      bytes,
       const char  *format,
       ...)
{
  va_list args;
  gboolean ok;

  va_start (args, format);
  ok = alloc_v (lab, category, bytes, format, args);
  va_end (args);
  return ok;
}

/* An activation the backward pass needs: remembered for checkpointed groups. */
G_GNUC_PRINTF (3, 4)
static void
keep (Lab        *lab,
      guint64     bytes,
      const char *format,
      ...)
{
  va_list args;
  char label[160];

  va_start (args, format);
  g_vsnprintf (label, sizeof label, format, args);
  va_end (args);
  if (alloc (lab, A_, bytes, "%s", label) && lab->kept != NULL)
    g_ptr_array_add (lab->kept, g_strdup (label));
}

static void
free_label (Lab        *lab,
            const char *label)
{
  GmlBlockInfo info;

  if (!lab->failed && _gml_script_free_info (&lab->r, label, &info))
    lab->cat[info.category] -= info.size;
}

G_GNUC_PRINTF (2, 3)
static void
release (Lab        *lab,
         const char *format,
         ...)
{
  va_list args;
  GmlBlockInfo info;
  guint32 label;
  gboolean known;

  if (lab->failed)
    return;
  va_start (args, format);
  known = label_id (lab, FALSE, format, args, &label);
  va_end (args);
  if (known && _gml_script_free_labelled (&lab->r, label, &info))
    lab->cat[info.category] -= info.size;
}

static char *
size_text (Lab     *lab,
           guint64  bytes)
{
  return gml_format_size_short (bytes);
}

/* Closes a step of the picture (not in quick runs). Takes @caption. */
static void
end_step (Lab  *lab,
          char *caption)
{
  /* After an out of memory only the step that says so is closed. */
  if (lab->quick || lab->failed)
    {
      g_free (caption);
      return;
    }
  _gml_script_end_step (&lab->r, caption);
}

/* "Step 2", "Step 2, micro-step 3 of 8". */
static char *
step_prefix (Lab *lab)
{
  if (lab->c->accumulation > 1)
    /* Translators: a training step, then a micro-step of gradient accumulation. */
    return g_strdup_printf (_("Step %u, micro-step %u of %u"), lab->phase.step,
                            lab->phase.micro + 1,
                            lab->c->accumulation);
  /* Translators: a training step (1 or 2). */
  return g_strdup_printf (_("Step %u"), lab->phase.step);
}

static void
set_phase (Lab       *lab,
           PhaseKind  kind,
           int        layer)
{
  /* After an out of memory the phase stays where it happened. */
  if (lab->failed)
    return;
  lab->phase.kind = kind;
  lab->phase.layer = layer;
}

/* ------------------------------------------------------------------------- */
/* Parameters                                                                */

static guint64
layer_elements (Lab *lab,
                int  layer)
{
  guint64 n = 0;

  for (guint i = 0; i < lab->params->len; i++)
    {
      const GmlLabParam *p = &g_array_index (lab->params, GmlLabParam, i);

      if (p->layer == layer)
        n += p->elements;
    }
  return n;
}

static const char *
layer_prefix (Lab  *lab,
              int   layer,
              char *buf,
              gsize size)
{
  if (layer == GML_LAB_LAYER_EMBED || layer == GML_LAB_LAYER_HEAD)
    g_strlcpy (buf, lab->c->arch == GML_LAB_ARCH_GPT2 ? "transformer." : "model.", size);
  else if (lab->c->arch == GML_LAB_ARCH_MLP)
    g_snprintf (buf, size, "fc%d.", layer);
  else if (lab->c->arch == GML_LAB_ARCH_GPT2)
    g_snprintf (buf, size, "transformer.h.%d.", layer);
  else
    g_snprintf (buf, size, "model.layers.%d.", layer);
  return buf;
}

static const GmlLabParam *
find_param (Lab        *lab,
            int         layer,
            const char *name)
{
  for (guint i = 0; i < lab->params->len; i++)
    {
      const GmlLabParam *p = &g_array_index (lab->params, GmlLabParam, i);

      if (p->layer == layer && g_str_equal (p->name, name))
        return p;
    }
  return NULL;
}

/* ZeRO stage 3: a layer's weights, gathered from every GPU for as long as it
 * computes. */
static void
gather (Lab *lab,
        int  layer)
{
  char prefix[64];

  if (lab->c->zero < 3)
    return;
  layer_prefix (lab, layer, prefix, sizeof prefix);
  alloc (lab, W_, lab->wb * layer_elements (lab, layer), "%s* (gathered)", prefix);
  /* The tied output layer gathers the embedding too. */
  if (layer == GML_LAB_LAYER_HEAD && lab->c->tied)
    alloc (lab, W_, lab->wb * layer_elements (lab, GML_LAB_LAYER_EMBED),
           "%swte (gathered for the head)",
           prefix);
}

static void
ungather (Lab *lab,
          int  layer)
{
  char prefix[64];

  if (lab->c->zero < 3)
    return;
  layer_prefix (lab, layer, prefix, sizeof prefix);
  release (lab, "%s* (gathered)", prefix);
  if (layer == GML_LAB_LAYER_HEAD && lab->c->tied)
    release (lab, "%swte (gathered for the head)", prefix);
}

/* The gradient of @p has been computed by its layer's backward. */
static void
grad_param (Lab               *lab,
            const GmlLabParam *p)
{
  char prefix[64];
  guint64 bytes;

  if (p == NULL || lab->failed)
    return;
  bytes = lab->gb * p->elements;
  layer_prefix (lab, p->layer, prefix, sizeof prefix);
  if (lab->c->zero >= 2)
    {
      /* Computed whole, reduce-scattered into this GPU's shard, freed. */
      alloc (lab, G_, bytes, "%s%s.grad (before reduce-scatter)", prefix, p->name);
      if (!_gml_script_is_live (&lab->r, "gradients (this GPU's shard)"))
        alloc (lab, G_, lab->gb * _gml_lab_shard (lab->n_params, lab->c->gpus),
               "gradients (this GPU's shard)");
      release (lab, "%s%s.grad (before reduce-scatter)", prefix, p->name);
    }
  else if (lab->phase.micro == 0)
    alloc (lab, G_, bytes, "%s%s.grad", prefix, p->name);
  else
    {
      /* AccumulateGrad adds the new gradient into .grad in place. */
      alloc (lab, T_, bytes, "%s%s.grad (new, added in place)", prefix, p->name);
      release (lab, "%s%s.grad (new, added in place)", prefix, p->name);
    }
}

static void
grad_named (Lab        *lab,
            int         layer,
            const char *name)
{
  const GmlLabParam *p = find_param (lab, layer, name);

  if (p != NULL)
    grad_param (lab, p);
}

/* The tied embedding's gradient arrives in two parts: the output layer's early
 * in the backward pass, the embedding's at its end. Autograd holds the first in
 * the AccumulateGrad node's input buffer and adds the second into it. */
static void
tied_grad_first (Lab *lab)
{
  const GmlLabParam *p = find_param (lab, GML_LAB_LAYER_EMBED,
                                     lab->c->arch == GML_LAB_ARCH_GPT2 ? "wte" : "embed_tokens");
  char prefix[64];

  layer_prefix (lab, GML_LAB_LAYER_EMBED, prefix, sizeof prefix);
  if (lab->phase.micro == 0 && lab->c->zero < 2)
    alloc (lab, G_, lab->gb * p->elements, "%s%s.grad", prefix, p->name);
  else
    alloc (lab, lab->c->zero >= 2 ? G_ : T_, lab->gb * p->elements,
           "%s%s.grad (output layer's part)",
           prefix, p->name);
  lab->pending_tied = TRUE;
}

static void
tied_grad_second (Lab *lab)
{
  const GmlLabParam *p = find_param (lab, GML_LAB_LAYER_EMBED,
                                     lab->c->arch == GML_LAB_ARCH_GPT2 ? "wte" : "embed_tokens");
  char prefix[64];

  layer_prefix (lab, GML_LAB_LAYER_EMBED, prefix, sizeof prefix);
  alloc (lab, T_, lab->gb * p->elements, "%s%s.grad (embedding's part)", prefix, p->name);
  release (lab, "%s%s.grad (embedding's part)", prefix, p->name);
  if (lab->phase.micro == 0 && lab->c->zero < 2)
    return;
  if (lab->c->zero >= 2 && !_gml_script_is_live (&lab->r, "gradients (this GPU's shard)"))
    alloc (lab, G_, lab->gb * _gml_lab_shard (lab->n_params, lab->c->gpus),
           "gradients (this GPU's shard)");
  release (lab, "%s%s.grad (output layer's part)", prefix, p->name);
  lab->pending_tied = FALSE;
}

/* ------------------------------------------------------------------------- */
/* The model loaded                                                          */

static void
load_model (Lab *lab)
{
  char prefix[64];

  set_phase (lab, PHASE_SETUP, 0);
  if (lab->c->zero >= 3)
    alloc (lab, W_, lab->wb * _gml_lab_shard (lab->n_params, lab->c->gpus),
           "weights (this GPU's shard)");
  else
    for (guint i = 0; i < lab->params->len; i++)
      {
        const GmlLabParam *p = &g_array_index (lab->params, GmlLabParam, i);

        layer_prefix (lab, p->layer, prefix, sizeof prefix);
        alloc (lab, W_, lab->wb * p->elements, "%s%s", prefix, p->name);
      }

  /* Mixed precision: the optimizer's fp32 master weights, made with it. */
  if (lab->mb > 0)
    {
      if (lab->c->zero >= 1)
        alloc (lab, O_, lab->mb * _gml_lab_shard (lab->n_params, lab->c->gpus),
               "fp32 master weights (this GPU's shard)");
      else
        for (guint i = 0; i < lab->params->len; i++)
          {
            const GmlLabParam *p = &g_array_index (lab->params, GmlLabParam, i);

            layer_prefix (lab, p->layer, prefix, sizeof prefix);
            alloc (lab, O_, lab->mb * p->elements, "%s%s (fp32 master)", prefix, p->name);
          }
    }

  if (!lab->quick)
    {
      g_autofree char *w = size_text (lab, lab->cat[W_]);
      g_autofree char *m = size_text (lab, lab->cat[O_]);

      if (lab->cat[O_] > 0)
        /* Translators: sizes. */
        end_step (lab,
                  g_strdup_printf (_("The model is loaded: weights %s, and the optimizer’s fp32 "
                                     "master copy of them %s."), w, m));
      else
        /* Translators: a size. */
        end_step (lab, g_strdup_printf (_("The model is loaded: weights %s."), w));
    }
}

/* ------------------------------------------------------------------------- */
/* Transformer layers                                                        */

/* The forward of layer @l. Its input is "h.l"; its output is @out. */
static void
forward_gpt2 (Lab        *lab,
              guint       l,
              const char *out)
{
  guint64 d = lab->d, t = lab->t, A = lab->A, sb = lab->s * lab->b, bsf = sb * lab->f;

  keep (lab, 4 * sb, "h.%u.ln_1 mean", l);
  keep (lab, 4 * sb, "h.%u.ln_1 rstd", l);
  keep (lab, d * t, "h.%u.ln_1 out", l);
  keep (lab, 3 * d * t, "h.%u.attn q,k,v", l);
  alloc (lab, T_, d * A, "h.%u.attn scores q·kᵀ", l);
  alloc (lab, T_, d * A, "h.%u.attn scores scaled, masked", l);
  release (lab, "h.%u.attn scores q·kᵀ", l);
  keep (lab, d * A, "h.%u.attn softmax", l);
  release (lab, "h.%u.attn scores scaled, masked", l);
  keep (lab, A, "h.%u.attn dropout mask", l);
  keep (lab, d * A, "h.%u.attn dropout out", l);
  alloc (lab, T_, d * t, "h.%u.attn context", l);
  keep (lab, d * t, "h.%u.attn heads merged", l);
  release (lab, "h.%u.attn context", l);
  alloc (lab, T_, d * t, "h.%u.attn c_proj out", l);
  keep (lab, t, "h.%u.attn resid dropout mask", l);
  alloc (lab, T_, d * t, "h.%u.attn resid dropout out", l);
  release (lab, "h.%u.attn c_proj out", l);
  keep (lab, d * t, "h.%u.residual", l);
  release (lab, "h.%u.attn resid dropout out", l);
  keep (lab, 4 * sb, "h.%u.ln_2 mean", l);
  keep (lab, 4 * sb, "h.%u.ln_2 rstd", l);
  keep (lab, d * t, "h.%u.ln_2 out", l);
  keep (lab, d * bsf, "h.%u.mlp c_fc out", l);
  keep (lab, d * bsf, "h.%u.mlp gelu out", l);
  alloc (lab, T_, d * t, "h.%u.mlp c_proj out", l);
  keep (lab, t, "h.%u.mlp dropout mask", l);
  alloc (lab, T_, d * t, "h.%u.mlp dropout out", l);
  release (lab, "h.%u.mlp c_proj out", l);
  alloc (lab, A_, d * t, "%s", out);
  release (lab, "h.%u.mlp dropout out", l);
}

static void
forward_llama (Lab        *lab,
               guint       l,
               const char *out)
{
  guint64 d = lab->d, t = lab->t, A = lab->A, sb = lab->s * lab->b, bsf = sb * lab->f;
  guint64 kv = sb * lab->kv;

  keep (lab, 4 * sb, "h.%u.input_layernorm rstd", l);
  keep (lab, d * t, "h.%u.input_layernorm out", l);
  alloc (lab, T_, d * t, "h.%u.q_proj out", l);
  alloc (lab, T_, d * kv, "h.%u.k_proj out", l);
  keep (lab, d * kv, "h.%u.v", l);
  keep (lab, d * t, "h.%u.q (RoPE)", l);
  release (lab, "h.%u.q_proj out", l);
  keep (lab, d * kv, "h.%u.k (RoPE)", l);
  release (lab, "h.%u.k_proj out", l);
  alloc (lab, T_, d * A, "h.%u.attn scores q·kᵀ", l);
  alloc (lab, T_, d * A, "h.%u.attn scores scaled, masked", l);
  release (lab, "h.%u.attn scores q·kᵀ", l);
  keep (lab, d * A, "h.%u.attn softmax", l);
  release (lab, "h.%u.attn scores scaled, masked", l);
  alloc (lab, T_, d * t, "h.%u.attn context", l);
  keep (lab, d * t, "h.%u.attn heads merged", l);
  release (lab, "h.%u.attn context", l);
  alloc (lab, T_, d * t, "h.%u.o_proj out", l);
  keep (lab, d * t, "h.%u.residual", l);
  release (lab, "h.%u.o_proj out", l);
  keep (lab, 4 * sb, "h.%u.post_attention_layernorm rstd", l);
  keep (lab, d * t, "h.%u.post_attention_layernorm out", l);
  keep (lab, d * bsf, "h.%u.mlp gate", l);
  keep (lab, d * bsf, "h.%u.mlp up", l);
  keep (lab, d * bsf, "h.%u.mlp silu(gate)", l);
  keep (lab, d * bsf, "h.%u.mlp silu(gate)·up", l);
  alloc (lab, T_, d * t, "h.%u.down_proj out", l);
  alloc (lab, A_, d * t, "%s", out);
  release (lab, "h.%u.down_proj out", l);
}

/* torch.autocast runs a layer's matrix products on 16-bit copies of its weights
 * (norms run in fp32 and keep theirs); autograd saves each copy for the
 * backward pass, so they live from the layer's forward to its backward. */
static gboolean
autocast_copies (const GmlLabParam *p)
{
  return strstr (p->name, "ln") == NULL && strstr (p->name, "norm") == NULL;
}

static void
cast_weights (Lab  *lab,
              guint l,
              gboolean keep_them)
{
  if (!_gml_lab_is_autocast (lab->c))
    return;
  for (guint i = 0; i < lab->params->len; i++)
    {
      const GmlLabParam *p = &g_array_index (lab->params, GmlLabParam, i);

      if (p->layer != (int) l || !autocast_copies (p))
        continue;
      if (keep_them)
        keep (lab, 2 * p->elements, "h.%u.%s (16-bit copy, autocast)", l, p->name);
      else
        release (lab, "h.%u.%s (16-bit copy, autocast)", l, p->name);
    }
}

static void
forward_layer (Lab      *lab,
               guint     l,
               gboolean  transient,
               gboolean  group_start,
               gboolean  recompute_last)
{
  char out[32];

  g_snprintf (out, sizeof out, recompute_last ? "h.%u (recomputed)" : "h.%u", l + 1);
  if (transient)
    lab->kept = g_ptr_array_new_with_free_func (g_free);
  gather (lab, (int) l);
  cast_weights (lab, l, TRUE);
  if (lab->c->arch == GML_LAB_ARCH_GPT2)
    forward_gpt2 (lab, l, out);
  else
    forward_llama (lab, l, out);
  ungather (lab, (int) l);
  if (transient)
    {
      /* Inside torch.utils.checkpoint nothing is kept but the group's input. */
      for (guint i = 0; i < lab->kept->len; i++)
        free_label (lab, g_ptr_array_index (lab->kept, i));
      g_clear_pointer (&lab->kept, g_ptr_array_unref);
      if (!group_start)
        release (lab, "h.%u", l);
    }
}

static void
backward_gpt2 (Lab  *lab,
               guint l)
{
  guint64 d = lab->d, t = lab->t, A = lab->A, bsf = lab->s * lab->b * lab->f;

  /* MLP. */
  alloc (lab, T_, d * t, "h.%u grad mlp dropout", l);
  release (lab, "h.%u.mlp dropout mask", l);
  grad_named (lab, (int) l, "mlp.c_proj");
  alloc (lab, T_, d * bsf, "h.%u grad gelu out", l);
  release (lab, "h.%u.mlp gelu out", l);
  release (lab, "h.%u grad mlp dropout", l);
  alloc (lab, T_, d * bsf, "h.%u grad c_fc out", l);
  release (lab, "h.%u.mlp c_fc out", l);
  release (lab, "h.%u grad gelu out", l);
  grad_named (lab, (int) l, "mlp.c_fc");
  alloc (lab, T_, d * t, "h.%u grad ln_2 out", l);
  release (lab, "h.%u.ln_2 out", l);
  release (lab, "h.%u grad c_fc out", l);
  grad_named (lab, (int) l, "ln_2");
  alloc (lab, T_, d * t, "h.%u grad ln_2 in", l);
  release (lab, "h.%u.ln_2 mean", l);
  release (lab, "h.%u.ln_2 rstd", l);
  release (lab, "h.%u grad ln_2 out", l);
  release (lab, "h.%u.residual", l);
  alloc (lab, T_, d * t, "h.%u grad residual", l);
  release (lab, "grad h.%u", l + 1);
  release (lab, "h.%u grad ln_2 in", l);

  /* Attention. */
  alloc (lab, T_, d * t, "h.%u grad attn resid dropout", l);
  release (lab, "h.%u.attn resid dropout mask", l);
  grad_named (lab, (int) l, "attn.c_proj");
  alloc (lab, T_, d * t, "h.%u grad heads merged", l);
  release (lab, "h.%u.attn heads merged", l);
  release (lab, "h.%u grad attn resid dropout", l);
  alloc (lab, T_, d * t, "h.%u grad context", l);
  release (lab, "h.%u grad heads merged", l);
  alloc (lab, T_, d * A, "h.%u grad dropout out", l);
  alloc (lab, T_, d * t, "h.%u grad v", l);
  release (lab, "h.%u.attn dropout out", l);
  release (lab, "h.%u grad context", l);
  alloc (lab, T_, d * A, "h.%u grad softmax", l);
  release (lab, "h.%u.attn dropout mask", l);
  release (lab, "h.%u grad dropout out", l);
  alloc (lab, T_, d * A, "h.%u grad scores", l);
  release (lab, "h.%u.attn softmax", l);
  release (lab, "h.%u grad softmax", l);
  alloc (lab, T_, d * A, "h.%u grad q·kᵀ", l);
  release (lab, "h.%u grad scores", l);
  alloc (lab, T_, d * t, "h.%u grad q", l);
  alloc (lab, T_, d * t, "h.%u grad k", l);
  release (lab, "h.%u grad q·kᵀ", l);
  alloc (lab, T_, 3 * d * t, "h.%u grad q,k,v", l);
  release (lab, "h.%u grad q", l);
  release (lab, "h.%u grad k", l);
  release (lab, "h.%u grad v", l);
  release (lab, "h.%u.attn q,k,v", l);
  grad_named (lab, (int) l, "attn.c_attn");
  alloc (lab, T_, d * t, "h.%u grad ln_1 out", l);
  release (lab, "h.%u.ln_1 out", l);
  release (lab, "h.%u grad q,k,v", l);
  grad_named (lab, (int) l, "ln_1");
  alloc (lab, T_, d * t, "h.%u grad ln_1 in", l);
  release (lab, "h.%u.ln_1 mean", l);
  release (lab, "h.%u.ln_1 rstd", l);
  release (lab, "h.%u grad ln_1 out", l);
  release (lab, "h.%u", l);
  alloc (lab, T_, d * t, "grad h.%u", l);
  release (lab, "h.%u grad residual", l);
  release (lab, "h.%u grad ln_1 in", l);
}

static void
backward_llama (Lab  *lab,
                guint l)
{
  guint64 d = lab->d, t = lab->t, A = lab->A, sb = lab->s * lab->b, bsf = sb * lab->f;
  guint64 kv = sb * lab->kv;

  /* MLP. */
  grad_named (lab, (int) l, "mlp.down_proj");
  alloc (lab, T_, d * bsf, "h.%u grad silu(gate)·up", l);
  release (lab, "h.%u.mlp silu(gate)·up", l);
  alloc (lab, T_, d * bsf, "h.%u grad silu(gate)", l);
  alloc (lab, T_, d * bsf, "h.%u grad up", l);
  release (lab, "h.%u grad silu(gate)·up", l);
  release (lab, "h.%u.mlp up", l);
  release (lab, "h.%u.mlp silu(gate)", l);
  alloc (lab, T_, d * bsf, "h.%u grad gate", l);
  release (lab, "h.%u grad silu(gate)", l);
  release (lab, "h.%u.mlp gate", l);
  grad_named (lab, (int) l, "mlp.gate_proj");
  grad_named (lab, (int) l, "mlp.up_proj");
  alloc (lab, T_, d * t, "h.%u grad post_attention_layernorm out", l);
  alloc (lab, T_, d * t, "h.%u grad post_attention_layernorm out (up's part)", l);
  release (lab, "h.%u grad post_attention_layernorm out (up's part)", l);
  release (lab, "h.%u grad gate", l);
  release (lab, "h.%u grad up", l);
  release (lab, "h.%u.post_attention_layernorm out", l);
  grad_named (lab, (int) l, "post_attention_layernorm");
  alloc (lab, T_, d * t, "h.%u grad post_attention_layernorm in", l);
  release (lab, "h.%u.post_attention_layernorm rstd", l);
  release (lab, "h.%u grad post_attention_layernorm out", l);
  release (lab, "h.%u.residual", l);
  alloc (lab, T_, d * t, "h.%u grad residual", l);
  release (lab, "grad h.%u", l + 1);
  release (lab, "h.%u grad post_attention_layernorm in", l);

  /* Attention. */
  grad_named (lab, (int) l, "self_attn.o_proj");
  alloc (lab, T_, d * t, "h.%u grad heads merged", l);
  release (lab, "h.%u.attn heads merged", l);
  alloc (lab, T_, d * t, "h.%u grad context", l);
  release (lab, "h.%u grad heads merged", l);
  alloc (lab, T_, d * A, "h.%u grad softmax", l);
  alloc (lab, T_, d * kv, "h.%u grad v", l);
  release (lab, "h.%u grad context", l);
  release (lab, "h.%u.v", l);
  alloc (lab, T_, d * A, "h.%u grad scores", l);
  release (lab, "h.%u.attn softmax", l);
  release (lab, "h.%u grad softmax", l);
  alloc (lab, T_, d * A, "h.%u grad q·kᵀ", l);
  release (lab, "h.%u grad scores", l);
  alloc (lab, T_, d * t, "h.%u grad q", l);
  alloc (lab, T_, d * kv, "h.%u grad k", l);
  release (lab, "h.%u grad q·kᵀ", l);
  release (lab, "h.%u.q (RoPE)", l);
  release (lab, "h.%u.k (RoPE)", l);
  alloc (lab, T_, d * t, "h.%u grad q_proj out", l);
  release (lab, "h.%u grad q", l);
  alloc (lab, T_, d * kv, "h.%u grad k_proj out", l);
  release (lab, "h.%u grad k", l);
  grad_named (lab, (int) l, "self_attn.q_proj");
  grad_named (lab, (int) l, "self_attn.k_proj");
  grad_named (lab, (int) l, "self_attn.v_proj");
  alloc (lab, T_, d * t, "h.%u grad input_layernorm out", l);
  alloc (lab, T_, d * t, "h.%u grad input_layernorm out (k and v parts)", l);
  release (lab, "h.%u grad input_layernorm out (k and v parts)", l);
  release (lab, "h.%u grad q_proj out", l);
  release (lab, "h.%u grad k_proj out", l);
  release (lab, "h.%u grad v", l);
  release (lab, "h.%u.input_layernorm out", l);
  grad_named (lab, (int) l, "input_layernorm");
  alloc (lab, T_, d * t, "h.%u grad input_layernorm in", l);
  release (lab, "h.%u.input_layernorm rstd", l);
  release (lab, "h.%u grad input_layernorm out", l);
  release (lab, "h.%u", l);
  alloc (lab, T_, d * t, "grad h.%u", l);
  release (lab, "h.%u grad residual", l);
  release (lab, "h.%u grad input_layernorm in", l);
}

static void
backward_layer (Lab  *lab,
                guint l)
{
  gather (lab, (int) l);
  if (lab->c->arch == GML_LAB_ARCH_GPT2)
    backward_gpt2 (lab, l);
  else
    backward_llama (lab, l);
  cast_weights (lab, l, FALSE);
  ungather (lab, (int) l);
}

/* ------------------------------------------------------------------------- */
/* Training                                                                  */

static void
end_layer_step (Lab        *lab,
                const char *what,
                guint       layer)
{
  g_autofree char *prefix = NULL;
  g_autofree char *act = NULL;

  if (lab->quick)
    return;
  prefix = step_prefix (lab);
  act = size_text (lab, lab->cat[A_]);
  /* Translators: "Step 2", "forward" or "backward", a layer, the number of layers, a size. */
  end_step (lab, g_strdup_printf (_("%s, %s of layer %u of %u: activations kept %s."), prefix, what,
                                  layer + 1, lab->c->layers, act));
}

/* The loss: the output layer's logits, cast to fp32 for cross-entropy, whose
 * log-softmax the backward needs (Korthikanti et al. count it as 4sbv). */
static void
loss_forward (Lab     *lab,
              guint64  rows)
{
  guint64 logits = rows * lab->V;

  alloc (lab, T_, lab->d * logits, "logits");
  if (lab->d != 4)
    alloc (lab, T_, 4 * logits, "logits.float()");
  alloc (lab, A_, 4 * logits, "log_softmax (cross-entropy)");
  release (lab, "logits.float()");
  release (lab, "logits");
  alloc (lab, T_, 4, "loss");
}

static void
loss_backward (Lab *lab)
{
  guint64 logits = lab->s * lab->b * lab->V;

  if (lab->c->arch == GML_LAB_ARCH_MLP)
    logits = lab->b * lab->V;
  alloc (lab, T_, 4 * logits, "grad log_softmax");
  alloc (lab, T_, 4 * logits, "grad logits.float()");
  release (lab, "grad log_softmax");
  release (lab, "log_softmax (cross-entropy)");
  release (lab, "loss");
  if (lab->d != 4)
    {
      alloc (lab, T_, lab->d * logits, "grad logits");
      release (lab, "grad logits.float()");
    }
}

static const char *
grad_logits_label (Lab *lab)
{
  return lab->d != 4 ? "grad logits" : "grad logits.float()";
}

static void
mark_forward (Lab *lab)
{
  if (!lab->quick && !lab->failed && lab->phase.step == reported_step (lab) &&
      lab->phase.micro == 0)
    lab->forward_step = _gml_script_last_step (&lab->r);
}

static void
micro_step_transformer (Lab *lab)
{
  guint64 d = lab->d, t = lab->t, sb = lab->s * lab->b;
  guint L = lab->c->layers, k = lab->group;
  gboolean gpt2 = lab->c->arch == GML_LAB_ARCH_GPT2;
  const char *fwd = _("forward");
  const char *bwd = _("backward");

  /* The batch and the embedding. */
  set_phase (lab, PHASE_FORWARD, 0);
  alloc (lab, A_, 8 * sb, "input_ids");
  alloc (lab, A_, 8 * sb, "labels");
  gather (lab, GML_LAB_LAYER_EMBED);
  if (gpt2)
    {
      alloc (lab, T_, d * t, "wte(input_ids)");
      alloc (lab, T_, d * lab->s * lab->h, "wpe(positions)");
      alloc (lab, T_, d * t, "wte + wpe");
      release (lab, "wte(input_ids)");
      release (lab, "wpe(positions)");
      alloc (lab, A_, t, "embedding dropout mask");
      alloc (lab, A_, d * t, "h.0");
      release (lab, "wte + wpe");
    }
  else
    alloc (lab, A_, d * t, "h.0");
  ungather (lab, GML_LAB_LAYER_EMBED);

  for (guint l = 0; l < L && !lab->failed; l++)
    {
      set_phase (lab, PHASE_FORWARD, (int) l);
      forward_layer (lab, l, k > 0, k > 0 && l % k == 0, FALSE);
      end_layer_step (lab, fwd, l);
    }

  /* The final norm, the output layer and the loss. */
  set_phase (lab, PHASE_LOSS, 0);
  gather (lab, GML_LAB_LAYER_HEAD);
  if (gpt2)
    {
      alloc (lab, A_, 4 * sb, "ln_f mean");
      alloc (lab, A_, 4 * sb, "ln_f rstd");
      alloc (lab, A_, d * t, "ln_f out");
    }
  else
    {
      alloc (lab, A_, 4 * sb, "norm rstd");
      alloc (lab, A_, d * t, "norm out");
    }
  loss_forward (lab, sb);
  ungather (lab, GML_LAB_LAYER_HEAD);
  if (!lab->quick)
    {
      g_autofree char *prefix = step_prefix (lab);
      g_autofree char *act = size_text (lab, lab->cat[A_]);

      /* Translators: "Step 2", a size. */
      end_step (lab, g_strdup_printf (_("%s: the forward pass is done and the loss computed; the "
                                        "activations kept for the backward pass: %s."), prefix,
                                      act));
      mark_forward (lab);
    }

  /* Backward: the loss, the output layer, the final norm. */
  set_phase (lab, PHASE_LOSS_BACKWARD, 0);
  gather (lab, GML_LAB_LAYER_HEAD);
  loss_backward (lab);
  if (lab->c->tied)
    tied_grad_first (lab);
  else
    grad_named (lab, GML_LAB_LAYER_HEAD, "lm_head");
  alloc (lab, T_, d * t, "grad norm out");
  release (lab, "%s", grad_logits_label (lab));
  release (lab, gpt2 ? "ln_f out" : "norm out");
  grad_named (lab, GML_LAB_LAYER_HEAD, gpt2 ? "ln_f" : "norm");
  alloc (lab, T_, d * t, "grad h.%u", L);
  release (lab, gpt2 ? "ln_f mean" : "norm rstd");
  release (lab, "ln_f rstd");
  release (lab, "grad norm out");
  release (lab, "h.%u", L);
  ungather (lab, GML_LAB_LAYER_HEAD);

  for (guint l = L; l-- > 0 && !lab->failed;)
    {
      set_phase (lab, PHASE_BACKWARD, (int) l);
      /* Entering a checkpointed group from its top: run its forward again. */
      if (k > 0 && (l == L - 1 || (l + 1) % k == 0))
        {
          guint first = l / k * k;

          for (guint r = first; r <= l; r++)
            {
              forward_layer (lab, r, FALSE, FALSE, r == l);
              lab->recomputed++;
            }
          release (lab, "h.%u (recomputed)", l + 1);
        }
      backward_layer (lab, l);
      end_layer_step (lab, bwd, l);
    }

  /* The embedding. */
  set_phase (lab, PHASE_EMBED_BACKWARD, 0);
  gather (lab, GML_LAB_LAYER_EMBED);
  if (gpt2)
    {
      alloc (lab, T_, d * t, "grad wte + wpe");
      release (lab, "embedding dropout mask");
      release (lab, "grad h.0");
      alloc (lab, T_, d * lab->s * lab->h, "grad wpe(positions)");
      grad_named (lab, GML_LAB_LAYER_EMBED, "wpe");
      release (lab, "grad wpe(positions)");
    }
  if (lab->c->tied)
    tied_grad_second (lab);
  else
    grad_named (lab, GML_LAB_LAYER_EMBED, gpt2 ? "wte" : "embed_tokens");
  release (lab, gpt2 ? "grad wte + wpe" : "grad h.0");
  release (lab, "input_ids");
  release (lab, "labels");
  ungather (lab, GML_LAB_LAYER_EMBED);
  if (!lab->quick)
    {
      g_autofree char *prefix = step_prefix (lab);
      g_autofree char *g = size_text (lab, lab->cat[G_]);

      /* Translators: "Step 2", a size. */
      end_step (lab,
                g_strdup_printf (_("%s: the backward pass is done; every activation is freed and "
                                   "the gradients hold %s."), prefix, g));
    }
}

static void
micro_step_mlp (Lab *lab)
{
  guint64 d = lab->d, b = lab->b, h = lab->h;
  guint L = lab->c->layers;

  set_phase (lab, PHASE_FORWARD, 0);
  alloc (lab, A_, d * b * lab->c->inputs, "input");
  alloc (lab, A_, 8 * b, "labels");
  for (guint l = 0; l < L && !lab->failed; l++)
    {
      set_phase (lab, PHASE_FORWARD, (int) l);
      alloc (lab, T_, d * b * h, "fc%u out", l);
      alloc (lab, A_, d * b * h, "relu%u out", l);
      release (lab, "fc%u out", l);
      end_layer_step (lab, _("forward"), l);
    }
  set_phase (lab, PHASE_LOSS, 0);
  loss_forward (lab, b);
  end_step (lab,
            lab->quick ? NULL : g_strdup (_("The forward pass is done and the loss computed.")));
  mark_forward (lab);

  set_phase (lab, PHASE_LOSS_BACKWARD, 0);
  loss_backward (lab);
  grad_named (lab, (int) L, "weight");
  grad_named (lab, (int) L, "bias");
  alloc (lab, T_, d * b * h, "grad relu%u out", L - 1);
  release (lab, "%s", grad_logits_label (lab));
  for (guint l = L; l-- > 0 && !lab->failed;)
    {
      set_phase (lab, PHASE_BACKWARD, (int) l);
      alloc (lab, T_, d * b * h, "grad fc%u out", l);
      release (lab, "grad relu%u out", l);
      release (lab, "relu%u out", l);
      grad_named (lab, (int) l, "weight");
      grad_named (lab, (int) l, "bias");
      if (l > 0)
        alloc (lab, T_, d * b * h, "grad relu%u out", l - 1);
      release (lab, "grad fc%u out", l);
      end_layer_step (lab, _("backward"), l);
    }
  release (lab, "input");
  release (lab, "labels");
}

static void
optimizer_step (Lab *lab)
{
  char prefix[64];
  gboolean first = lab->phase.step == 1;
  static const char * const moment_names[2][2] = { { "momentum_buffer", NULL },
                                                   { "exp_avg", "exp_avg_sq" } };
  const char * const *names = lab->moments == 2 ? moment_names[1] : moment_names[0];
  guint64 shard = _gml_lab_shard (lab->n_params, lab->c->gpus);

  set_phase (lab, PHASE_OPTIMIZER, 0);
  lab->phase.micro = 0;
  if (first && lab->moments > 0)
    {
      /* torch.optim creates its state at the first step(), one tensor per
       * parameter; ZeRO keeps one flat shard per state. */
      for (guint m = 0; m < lab->moments; m++)
        {
          if (lab->c->zero >= 1)
            alloc (lab, O_, lab->mom_bytes * shard, "%s (this GPU's shard)", names[m]);
          else
            for (guint i = 0; i < lab->params->len; i++)
              {
                const GmlLabParam *p = &g_array_index (lab->params, GmlLabParam, i);

                layer_prefix (lab, p->layer, prefix, sizeof prefix);
                alloc (lab, O_, lab->mom_bytes * p->elements, "%s%s %s", prefix, p->name, names[m]);
              }
        }
    }
  if (lab->moments == 2)
    {
      /* foreach Adam: exp_avg_sq.sqrt() for every parameter at once. */
      if (lab->c->zero >= 1)
        {
          alloc (lab, T_, lab->mom_bytes * shard, "√exp_avg_sq (this GPU's shard)");
          release (lab, "√exp_avg_sq (this GPU's shard)");
        }
      else
        {
          for (guint i = 0; i < lab->params->len; i++)
            {
              const GmlLabParam *p = &g_array_index (lab->params, GmlLabParam, i);

              layer_prefix (lab, p->layer, prefix, sizeof prefix);
              alloc (lab, T_, lab->mom_bytes * p->elements, "%s%s √exp_avg_sq (foreach)", prefix,
                     p->name);
            }
          for (guint i = 0; i < lab->params->len; i++)
            {
              const GmlLabParam *p = &g_array_index (lab->params, GmlLabParam, i);

              layer_prefix (lab, p->layer, prefix, sizeof prefix);
              release (lab, "%s%s √exp_avg_sq (foreach)", prefix, p->name);
            }
        }
    }
  if (!lab->quick)
    {
      g_autofree char *o = size_text (lab, lab->cat[O_]);

      if (first)
        /* Translators: a step number, a size. */
        end_step (lab,
                  g_strdup_printf (_("Step %u, optimizer.step(): the optimizer’s state is created "
                                     "at the first step and holds %s."), lab->phase.step, o));
      else
        /* Translators: a step number, a size. */
        end_step (lab, g_strdup_printf (_("Step %u, optimizer.step(): the weights are updated; the "
                                          "optimizer’s state holds %s."), lab->phase.step, o));
      if (lab->phase.step == reported_step (lab) && !lab->failed)
        lab->optimizer_step = _gml_script_last_step (&lab->r);
    }
}

static void
zero_grad (Lab *lab)
{
  char prefix[64];

  set_phase (lab, PHASE_ZERO_GRAD, 0);
  release (lab, "gradients (this GPU's shard)");
  for (guint i = 0; i < lab->params->len; i++)
    {
      const GmlLabParam *p = &g_array_index (lab->params, GmlLabParam, i);

      layer_prefix (lab, p->layer, prefix, sizeof prefix);
      release (lab, "%s%s.grad", prefix, p->name);
    }
  if (!lab->quick)
    /* Translators: a step number. */
    end_step (lab,
              g_strdup_printf (_("Step %u, zero_grad(set_to_none=True): the gradients are freed."),
                               lab->phase.step));
}

static void
train_step (Lab   *lab,
            guint  step)
{
  if (lab->failed)
    return;
  lab->phase.step = step;
  /* The peak the lab reports is the steady-state step's (the first step's
   * when that one already runs out of memory, or with --step first, when
   * step 2 does not run). */
  lab->track = TRUE;
  if (step == 2)
    lab->peak = 0;
  for (guint m = 0; m < lab->K && !lab->failed; m++)
    {
      lab->phase.micro = m;
      if (lab->c->arch == GML_LAB_ARCH_MLP)
        micro_step_mlp (lab);
      else
        micro_step_transformer (lab);
    }
  if (!lab->failed)
    optimizer_step (lab);
  if (!lab->failed)
    zero_grad (lab);
}

/* ------------------------------------------------------------------------- */
/* Inference                                                                 */

/* One layer's forward under no_grad over @q new positions, attending to @L
 * positions; its keys and values go into the cache. */
static void
infer_layer (Lab     *lab,
             guint    l,
             guint64  q,
             guint64  L,
             guint    token)
{
  guint64 d = lab->d, b = lab->b, h = lab->h, f = lab->f;
  guint64 t = q * b * h, kv = q * b * lab->kv, A = lab->a * q * L * b;
  gboolean gpt2 = lab->c->arch == GML_LAB_ARCH_GPT2;
  gboolean even = token % 2 == 0;

  gather (lab, (int) l);
  alloc (lab, T_, d * t, "h.%u norm out", l);
  alloc (lab, T_, d * t, "h.%u q", l);
  /* The cache of an even token is "h.N cache keys", of an odd one "h.N cache
   * keys′": written out, so that each name is a format of one layer number. */
  if (token == 0)
    {
      /* The prompt: its keys and values become the cache. */
      alloc (lab, K_, d * kv, "h.%u cache keys", l);
      alloc (lab, K_, d * kv, "h.%u cache values", l);
    }
  else
    {
      /* torch.cat: the longer cache is allocated before the old one is freed. */
      alloc (lab, T_, d * kv, "h.%u new keys", l);
      alloc (lab, T_, d * kv, "h.%u new values", l);
      alloc (lab, K_, d * L * b * lab->kv, even ? "h.%u cache keys" : "h.%u cache keys′", l);
      release (lab, even ? "h.%u cache keys′" : "h.%u cache keys", l);
      release (lab, "h.%u new keys", l);
      alloc (lab, K_, d * L * b * lab->kv, even ? "h.%u cache values" : "h.%u cache values′", l);
      release (lab, even ? "h.%u cache values′" : "h.%u cache values", l);
      release (lab, "h.%u new values", l);
    }
  release (lab, "h.%u norm out", l);
  alloc (lab, T_, d * A, "h.%u attn scores", l);
  alloc (lab, T_, d * A, "h.%u attn softmax", l);
  release (lab, "h.%u attn scores", l);
  alloc (lab, T_, d * t, "h.%u attn context", l);
  release (lab, "h.%u attn softmax", l);
  release (lab, "h.%u q", l);
  alloc (lab, T_, d * t, "h.%u attn out", l);
  release (lab, "h.%u attn context", l);
  alloc (lab, A_, d * t, "h.%u residual", l);
  release (lab, "h.%u attn out", l);
  release (lab, "h.%u", l);
  alloc (lab, T_, d * t, "h.%u norm 2 out", l);
  if (gpt2)
    {
      alloc (lab, T_, d * q * b * f, "h.%u mlp c_fc out", l);
      alloc (lab, T_, d * q * b * f, "h.%u mlp gelu out", l);
      release (lab, "h.%u mlp c_fc out", l);
      release (lab, "h.%u norm 2 out", l);
      alloc (lab, T_, d * t, "h.%u mlp out", l);
      release (lab, "h.%u mlp gelu out", l);
    }
  else
    {
      alloc (lab, T_, d * q * b * f, "h.%u mlp gate", l);
      alloc (lab, T_, d * q * b * f, "h.%u mlp up", l);
      release (lab, "h.%u norm 2 out", l);
      alloc (lab, T_, d * q * b * f, "h.%u mlp silu(gate)", l);
      release (lab, "h.%u mlp gate", l);
      alloc (lab, T_, d * q * b * f, "h.%u mlp silu(gate)·up", l);
      release (lab, "h.%u mlp silu(gate)", l);
      release (lab, "h.%u mlp up", l);
      alloc (lab, T_, d * t, "h.%u mlp out", l);
      release (lab, "h.%u mlp silu(gate)·up", l);
    }
  alloc (lab, A_, d * t, "h.%u", l + 1);
  release (lab, "h.%u mlp out", l);
  release (lab, "h.%u residual", l);
  ungather (lab, (int) l);
}

static void
infer_pass (Lab     *lab,
            guint64  q,
            guint64  L,
            guint    token)
{
  guint64 d = lab->d, b = lab->b, h = lab->h;

  alloc (lab, T_, 8 * q * b, "input_ids");
  alloc (lab, A_, d * q * b * h, "h.0");
  release (lab, "input_ids");
  for (guint l = 0; l < lab->c->layers && !lab->failed; l++)
    {
      if (token == 0)
        set_phase (lab, PHASE_PREFILL, (int) l);
      infer_layer (lab, l, q, L, token);
      if (token == 0 && !lab->quick)
        {
          g_autofree char *kv = size_text (lab, lab->cat[K_]);

          /* Translators: a number of tokens, a layer, the number of layers, a size. */
          end_step (lab,
                    g_strdup_printf (_("The prompt (%u tokens) through layer %u of %u: the KV "
                                       "cache holds %s."), (guint) q, l + 1, lab->c->layers, kv));
        }
    }
  /* The last position's logits, in fp32 for sampling. */
  alloc (lab, T_, d * b * h, "norm out (last position)");
  release (lab, "h.%u", lab->c->layers);
  alloc (lab, T_, d * b * lab->V, "logits");
  alloc (lab, T_, 4 * b * lab->V, "logits.float()");
  release (lab, "logits");
  release (lab, "norm out (last position)");
  alloc (lab, T_, 8 * b, "next token");
  release (lab, "logits.float()");
  release (lab, "next token");
}

/* How far the run is, per mille, for a window that shows it: only raised (a
 * second pass, such as what an OOM run would need, starts again below). */
static void
raise_progress (Lab  *lab,
                guint per_mille)
{
  gint now;

  if (lab->progress == NULL)
    return;
  do
    now = g_atomic_int_get (lab->progress);
  while (now < (gint) per_mille &&
         !g_atomic_int_compare_and_exchange (lab->progress, now, (gint) per_mille));
}

static void
inference (Lab *lab)
{
  guint T = lab->c->tokens;
  guint stride = MAX (1, (T + 63) / 64);

  lab->track = TRUE;
  lab->phase.step = 1;
  infer_pass (lab, lab->s, lab->s, 0);
  for (guint tok = 1; tok <= T && !lab->failed; tok++)
    {
      set_phase (lab, PHASE_DECODE, (int) tok);
      infer_pass (lab, 1, lab->s + tok, tok);
      if (tok % stride == 0)
        raise_progress (lab, (guint) ((guint64) tok * 1000 / T));
      if (!lab->quick && (tok % stride == 0 || tok == T))
        {
          g_autofree char *kv = size_text (lab, lab->cat[K_]);

          /* Translators: a token, the number of tokens, a size. */
          end_step (lab, g_strdup_printf (_("Token %u of %u: the KV cache holds %s."), tok, T, kv));
        }
    }
}

/* ------------------------------------------------------------------------- */
/* The run                                                                   */

static char *
phase_text (const GmlLabConfig *c,
            const Phase        *p)
{
  g_autofree char *what = NULL;

  switch (p->kind)
    {
    case PHASE_SETUP:
      return g_strdup (_("while the model is loaded"));
    case PHASE_PREFILL:
      /* Translators: a layer and the number of layers. */
      return g_strdup_printf (_("while the prompt goes through layer %d of %u"), p->layer + 1,
                              c->layers);
    case PHASE_DECODE:
      /* Translators: a token and the number of tokens. */
      return g_strdup_printf (_("while token %d of %u is generated"), p->layer, c->tokens);
    case PHASE_FORWARD:
      /* Translators: a layer and the number of layers. */
      what = g_strdup_printf (_("the forward pass of layer %d of %u"), p->layer + 1, c->layers);
      break;
    case PHASE_LOSS:
      what = g_strdup (_("the loss (the logits in fp32)"));
      break;
    case PHASE_LOSS_BACKWARD:
      what = g_strdup (_("the backward pass of the loss and the output layer"));
      break;
    case PHASE_BACKWARD:
      /* Translators: a layer and the number of layers. */
      what = g_strdup_printf (_("the backward pass of layer %d of %u"), p->layer + 1, c->layers);
      break;
    case PHASE_EMBED_BACKWARD:
      what = g_strdup (_("the backward pass of the embedding"));
      break;
    case PHASE_OPTIMIZER:
      what = g_strdup (_("optimizer.step()"));
      break;
    case PHASE_ZERO_GRAD:
    default:
      what = g_strdup (_("zero_grad()"));
      break;
    }
  if (c->accumulation > 1 && p->kind != PHASE_OPTIMIZER && p->kind != PHASE_ZERO_GRAD)
    /* Translators: a step, a micro-step, the number of micro-steps, then where in it. */
    return g_strdup_printf (_("in step %u, micro-step %u of %u, during %s"), p->step, p->micro + 1,
                            c->accumulation, what);
  /* Translators: a step, then where in it ("the backward pass of layer 3 of 12"). */
  return g_strdup_printf (_("in step %u, during %s"), p->step, what);
}

/* "Weights 475 MiB · Activations 16.4 GiB": the categories that hold bytes. */
static char *
category_list (const guint64 *bytes)
{
  static const GmlCategory order[] = {
    GML_CATEGORY_WEIGHTS, GML_CATEGORY_GRADIENTS, GML_CATEGORY_OPTIMIZER_STATE,
    GML_CATEGORY_ACTIVATIONS, GML_CATEGORY_TEMPORARY, GML_CATEGORY_KV_CACHE,
  };
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    if (bytes[order[i]] > 0)
      {
        g_autofree char *size = gml_format_size_short (bytes[order[i]]);

        g_string_append_printf (out, "%s%s %s", out->len > 0 ? " · " : "",
                                gml_lab_category_name (order[i]),
                                size);
      }
  return g_string_free (out, FALSE);
}

/* A step of the picture exactly at the peak, inserted among the others. */
static void
insert_peak_step (Lab *lab)
{
  GmlScenario *sc = lab->r.sc;
  GmlScenarioStep step = { 0 };
  g_autoptr(GmlMemState) state = NULL;
  g_autofree char *where = phase_text (lab->c, &lab->peak_phase);
  g_autofree char *alloc_text = NULL;
  g_autofree char *res_text = NULL;
  g_autofree char *cats = NULL;
  g_autofree char *gpu_text = NULL;
  guint pos = 0;

  state = gml_trace_state_at (gml_allocator_get_trace (lab->r.run->allocator), lab->peak_events);
  step.n_events = lab->peak_events;
  step.stats = *gml_mem_state_get_stats (state);
  step.largest_free = gml_mem_state_get_largest_free_block (state);
  step.device_free = lab->c->gpu_memory > (guint64) step.stats.reserved_bytes[GML_STAT_ALL].current
                     ? lab->c->gpu_memory - step.stats.reserved_bytes[GML_STAT_ALL].current : 0;
  step.strategy = -1;
  step.run = 0;
  alloc_text = gml_format_size_short (lab->peak);
  res_text = gml_format_size_short (step.stats.reserved_bytes[GML_STAT_ALL].current);
  cats = category_list (lab->peak_cat);
  gpu_text = gml_format_size_short (lab->c->gpu_memory / MAX (lab->scale, 1));
  /* Translators: sizes (the last the GPU's memory), then where ("in step 2, during the
   * backward pass of layer 3 of 12"), then the categories ("Weights 475 MiB · …"). */
  step.caption = g_strdup_printf (_("The peak: %s allocated, %s reserved of the GPU’s %s, %s. "
                                    "At the peak: %s."), alloc_text, res_text, gpu_text, where,
                                  cats);
  _gml_script_key (&lab->r, "peak_allocated", lab->peak);
  _gml_script_key (&lab->r, "reserved_at_peak", step.stats.reserved_bytes[GML_STAT_ALL].current);

  while (pos < sc->steps->len &&
         g_array_index (sc->steps, GmlScenarioStep, pos).n_events <= lab->peak_events)
    pos++;
  g_array_insert_val (sc->steps, pos, step);
  sc->focus_step = pos;
  if (lab->forward_step != G_MAXUINT && lab->forward_step >= pos)
    lab->forward_step++;
  if (lab->optimizer_step != G_MAXUINT && lab->optimizer_step >= pos)
    lab->optimizer_step++;
  if (sc->has_failed_request && sc->failed_step >= pos)
    sc->failed_step++;
}

static void
fill_result (Lab          *lab,
             GmlLabResult *res)
{
  const GmlStats *stats = _gml_script_stats (&lab->r);
  g_autoptr(GmlMemState) state = NULL;

  res->parameters = lab->n_params;
  res->fits = !lab->failed;
  res->oom_message = g_strdup (lab->oom_message);
  res->oom_request = lab->oom_request;
  res->peak_allocated = stats->allocated_bytes[GML_STAT_ALL].peak;
  res->peak_reserved = stats->reserved_bytes[GML_STAT_ALL].peak;
  if (lab->failed || !lab->track || lab->peak == 0)
    {
      /* Out of memory: the bytes where it ran out, as the message and the
       * picture's last step show them. */
      memcpy (lab->peak_cat, lab->cat, sizeof lab->cat);
      lab->peak = allocated_now (lab);
      lab->peak_requested = stats->requested_bytes[GML_STAT_ALL].current;
      lab->peak_events = gml_trace_get_n_events (gml_allocator_get_trace (lab->r.run->allocator));
      lab->peak_phase = lab->phase;
    }
  memcpy (res->by_category, lab->peak_cat, sizeof res->by_category);
  res->allocated_at_peak = lab->peak;
  res->requested_at_peak = lab->peak_requested;
  state = gml_trace_state_at (gml_allocator_get_trace (lab->r.run->allocator), lab->peak_events);
  res->reserved_at_peak = gml_mem_state_get_stats (state)->reserved_bytes[GML_STAT_ALL].current;
  res->inactive_split_at_peak =
      gml_mem_state_get_stats (state)->inactive_split_bytes[GML_STAT_ALL].current;
  res->largest_free_at_peak = gml_mem_state_get_largest_free_block (state);
  res->segments_at_peak = gml_mem_state_get_n_segments (state);
  res->peak_at = phase_text (lab->c, &lab->peak_phase);
  res->simulated_micro_steps = lab->K;
  /* Layer forwards run again, per step, against a step's work: one forward
   * and a backward of about twice its cost (Chen et al. 2016). */
  res->extra_compute = lab->c->mode == GML_LAB_TRAIN && lab->group > 0
                       ? lab->recomputed / 2.0 / (3.0 * lab->c->layers * lab->K) : 0.0;
  res->n_events = gml_trace_get_n_events (gml_allocator_get_trace (lab->r.run->allocator));
  gml_lab_formula (lab->c, &res->formula);
}

GmlScenario *
_gml_lab_run_step (const GmlLabConfig *c,
                   GmlDevice          *device,
                   gboolean            quick,
                   guint64             scale,
                   GCancellable       *cancellable,
                   gint               *progress,
                   GmlLabResult       *result,
                   GError            **error)
{
  Lab lab;
  GmlScenario *sc;
  g_autofree char *args = NULL;
  gboolean cancelled;

  memset (&lab, 0, sizeof lab);
  lab.forward_step = G_MAXUINT;
  lab.optimizer_step = G_MAXUINT;
  lab.c = c;
  lab.quick = quick;
  lab.scale = MAX (scale, 1);
  lab.cancellable = cancellable;
  lab.progress = progress;
  lab.formats = g_hash_table_new_full (NULL, NULL, NULL, label_format_free);
  lab.params = g_array_new (FALSE, FALSE, sizeof (GmlLabParam));
  _gml_lab_param_list (c, lab.params);
  lab.n_params = gml_lab_count_parameters (c);
  lab.d = _gml_lab_dtype_bytes (c);
  _gml_lab_state_bytes (c, &lab.wb, &lab.gb, &lab.mb, &lab.sb);
  lab.moments = c->mode == GML_LAB_INFERENCE ? 0
                : c->optimizer == GML_LAB_SGD ? 0 : c->optimizer == GML_LAB_MOMENTUM ? 1 : 2;
  lab.mom_bytes = lab.moments > 0 ? lab.sb / lab.moments : 0;
  lab.s = c->seq;
  lab.b = c->batch;
  lab.h = c->hidden;
  lab.a = c->heads;
  lab.f = c->ffn;
  lab.V = c->vocab;
  lab.kv = c->arch == GML_LAB_ARCH_MLP ? 0 : c->hidden / c->heads * c->kv_heads;
  lab.t = lab.s * lab.b * lab.h;
  lab.A = lab.a * lab.s * lab.s * lab.b;
  lab.K = MIN (c->accumulation, GML_LAB_MAX_MICRO_STEPS);
  lab.group = c->arch == GML_LAB_ARCH_MLP ? 0 : _gml_lab_checkpoint_group (c);
  if (c->mode == GML_LAB_INFERENCE)
    lab.s = c->seq;

  sc = _gml_scenario_create ("lab", device, &lab.r);
  args = gml_lab_config_describe (c);
  sc->title = g_steal_pointer (&args);
  sc->focus_view = GML_VIEW_MEMORY_MAP;
  sc->views |= 1u << GML_VIEW_FRAGMENTATION;
  _gml_script_begin_run (&lab.r, NULL, 0, 0, &c->conf, FALSE);
  if (!quick)
    _gml_script_end_step (&lab.r, g_strdup (_("Start: nothing is allocated yet.")));

  load_model (&lab);
  if (c->mode == GML_LAB_INFERENCE)
    inference (&lab);
  else
    {
      if (!lab.failed)
        train_step (&lab, 1);
      if (!lab.failed && c->step == GML_LAB_STEP_STEADY)
        train_step (&lab, 2);
    }

  if (lab.failed && lab.r.fatal == NULL)
    {
      /* The step that ran out of memory: the picture ends on it. */
      const GmlStats *st = _gml_script_stats (&lab.r);
      g_autofree char *where = phase_text (c, &lab.phase);
      g_autofree char *alloc_text =
          gml_format_size_short (st->allocated_bytes[GML_STAT_ALL].current);
      g_autofree char *res_text = gml_format_size_short (st->reserved_bytes[GML_STAT_ALL].current);
      g_autofree char *req_text = gml_format_size_short (lab.oom_request);
      g_autofree char *cats = category_list (lab.cat);
      g_autofree char *gpu_text = gml_format_size_short (c->gpu_memory / MAX (lab.scale, 1));

      /* Translators: where it happened ("in step 2, during the backward pass of layer 3 of 12"),
       * sizes (the last the GPU's memory), then the categories ("Weights 12.6 GiB · …"). */
      _gml_script_end_step (&lab.r, g_strdup_printf (_("Out of memory %s: a request for %s failed "
                                                       "with %s allocated and %s reserved of the "
                                                       "GPU’s %s. Allocated: %s."),
                                                     where, req_text, alloc_text, res_text,
                                                     gpu_text,
                                                     cats));
      sc->focus_step = _gml_script_last_step (&lab.r);
      if (!quick)
        {
          _gml_script_key (&lab.r, "allocated", st->allocated_bytes[GML_STAT_ALL].current);
          _gml_script_key (&lab.r, "reserved", st->reserved_bytes[GML_STAT_ALL].current);
          _gml_script_key (&lab.r, "request", lab.oom_request);
        }
    }
  else if (quick)
    _gml_script_end_step (&lab.r, g_strdup (""));

  if (lab.r.fatal == NULL)
    {
      fill_result (&lab, result);
      if (!quick && !lab.failed)
        insert_peak_step (&lab);
      else if (!quick)
        sc->focus_step = sc->steps->len - 1;
      result->peak_step = quick ? G_MAXUINT : sc->focus_step;
      result->forward_step = lab.forward_step;
      result->optimizer_step = lab.optimizer_step;
    }
  sc->setup_step = 0;
  g_array_unref (lab.params);
  g_clear_pointer (&lab.kept, g_ptr_array_unref);
  g_hash_table_unref (lab.formats);
  g_free (lab.oom_message);
  cancelled = lab.cancelled;
  sc = _gml_scenario_finish (sc, &lab.r, cancelled ? NULL : error);
  if (cancelled)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The run was cancelled."));
  return sc;
}

void
_gml_lab_result_clear (GmlLabResult *res)
{
  g_clear_pointer (&res->oom_message, g_free);
  g_clear_pointer (&res->peak_at, g_free);
  g_clear_pointer (&res->step_difference, g_free);
}

/* gml-lab.c — the experiment lab's knobs, presets and formulas.
 *
 * The presets have the exact shapes of the published models:
 *
 * - gpt2: 12 layers, hidden 768, 12 heads, FFN 3072, vocabulary 50257, 1024
 *   positions, output layer tied to the token embedding (Radford et al. 2019;
 *   the Hugging Face "gpt2" config.json): 124,439,808 parameters.
 * - llama-3.2-1b: 16 layers, hidden 2048, 32 heads of which 8 key/value heads,
 *   FFN 8192, vocabulary 128256, tied embeddings (meta-llama/Llama-3.2-1B
 *   config.json): 1,235,814,400 parameters.
 * - llama-2-7b: 32 layers, hidden 4096, 32 heads, FFN 11008, vocabulary 32000,
 *   4096 positions, untied (Touvron et al. 2023; meta-llama/Llama-2-7b-hf
 *   config.json): 6,738,415,616 parameters.
 * - mlp: 784 inputs (an MNIST image), 4 hidden layers of 2048, 10 classes.
 *
 * The formulas the engine's run is compared with:
 *
 * - Activations: Korthikanti et al. 2022, "Reducing Activation Recomputation in
 *   Large Transformer Models" (arXiv:2205.05198), section 4.1, equation (1):
 *   s·b·h·(34 + 5·a·s/h) bytes per layer in 16-bit without recomputation.
 * - Model state with ZeRO: Rajbhandari et al. 2020, "ZeRO: Memory Optimizations
 *   Toward Training Trillion Parameter Models" (arXiv:1910.02054), figure 1:
 *   (2 + 2 + K)·Ψ bytes for Ψ parameters with mixed-precision Adam (K = 12),
 *   divided by N for what each stage shards.
 * - KV cache: 2 (keys and values) × layers × tokens × key/value heads × head
 *   dimension × bytes × batch.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-lab"

#include "config.h"

#include <math.h>
#include <string.h>

#include "gml-i18n.h"

#include "gml-lab-private.h"

G_DEFINE_QUARK (gml-lab-error-quark, gml_lab_error)

static const char * const model_names[] = { "gpt2", "llama-3.2-1b", "llama-2-7b", "mlp", NULL };
static const char * const precision_names[GML_LAB_N_PRECISIONS] = {
  "fp32", "amp-fp16", "amp-bf16", "bf16", "autocast-fp16", "autocast-bf16"
};
static const char * const optimizer_names[GML_LAB_N_OPTIMIZERS] = { "sgd", "momentum", "adam",
                                                                    "adamw" };
static const guint gpu_presets[] = { 8, 12, 16, 24, 40, 48, 80, 141 };

const char * const *
gml_lab_model_names (void)
{
  return model_names;
}

const char *
gml_lab_category_name (GmlCategory category)
{
  switch (category)
    {
    case GML_CATEGORY_WEIGHTS: return _("Weights");
    case GML_CATEGORY_ACTIVATIONS: return _("Activations");
    case GML_CATEGORY_GRADIENTS: return _("Gradients");
    case GML_CATEGORY_OPTIMIZER_STATE: return _("Optimizer state");
    case GML_CATEGORY_TEMPORARY: return _("Temporary");
    case GML_CATEGORY_KV_CACHE: return _("KV cache");
    case GML_CATEGORY_NONE:
    case GML_N_CATEGORIES:
    default: return _("Other");
    }
}

const char *
gml_lab_precision_to_string (GmlLabPrecision precision)
{
  g_return_val_if_fail (precision < GML_LAB_N_PRECISIONS, NULL);
  return precision_names[precision];
}

const char *
gml_lab_optimizer_to_string (GmlLabOptimizer optimizer)
{
  g_return_val_if_fail (optimizer < GML_LAB_N_OPTIMIZERS, NULL);
  return optimizer_names[optimizer];
}

const char *
gml_lab_step_to_string (GmlLabStep step)
{
  return step == GML_LAB_STEP_FIRST ? "first" : "steady";
}

char *
gml_lab_checkpointing_to_string (const GmlLabConfig *config)
{
  switch (config->checkpointing)
    {
    case GML_LAB_CHECKPOINT_EVERY:
      return g_strdup_printf ("every-%u", config->checkpoint_every);
    case GML_LAB_CHECKPOINT_SQRT:
      return g_strdup ("sqrt");
    case GML_LAB_CHECKPOINT_NONE:
    default:
      return g_strdup ("none");
    }
}

const guint *
gml_lab_gpu_presets (guint *n_presets)
{
  *n_presets = G_N_ELEMENTS (gpu_presets);
  return gpu_presets;
}

/* ------------------------------------------------------------------------- */
/* Configurations                                                            */

gboolean
gml_lab_config_set_model (GmlLabConfig *config,
                          const char   *model)
{
  if (g_strcmp0 (model, "gpt2") == 0)
    {
      config->model = config->base = model_names[0];
      config->arch = GML_LAB_ARCH_GPT2;
      config->layers = 12;
      config->hidden = 768;
      config->heads = 12;
      config->kv_heads = 12;
      config->ffn = 3072;
      config->vocab = 50257;
      config->context = 1024;
      config->seq = 1024;
      config->inputs = 0;
      config->tied = TRUE;
    }
  else if (g_strcmp0 (model, "llama-3.2-1b") == 0)
    {
      config->model = config->base = model_names[1];
      config->arch = GML_LAB_ARCH_LLAMA;
      config->layers = 16;
      config->hidden = 2048;
      config->heads = 32;
      config->kv_heads = 8;
      config->ffn = 8192;
      config->vocab = 128256;
      config->context = 131072;
      config->seq = 2048;
      config->inputs = 0;
      config->tied = TRUE;
    }
  else if (g_strcmp0 (model, "llama-2-7b") == 0)
    {
      config->model = config->base = model_names[2];
      config->arch = GML_LAB_ARCH_LLAMA;
      config->layers = 32;
      config->hidden = 4096;
      config->heads = 32;
      config->kv_heads = 32;
      config->ffn = 11008;
      config->vocab = 32000;
      config->context = 4096;
      config->seq = 4096;
      config->inputs = 0;
      config->tied = FALSE;
    }
  else if (g_strcmp0 (model, "mlp") == 0)
    {
      config->model = config->base = model_names[3];
      config->arch = GML_LAB_ARCH_MLP;
      config->layers = 4;
      config->hidden = 2048;
      config->heads = 1;
      config->kv_heads = 1;
      config->ffn = 2048;
      config->vocab = 10;
      config->context = 1;
      config->seq = 1;
      config->inputs = 784;
      config->tied = FALSE;
    }
  else
    return FALSE;
  return TRUE;
}

void
gml_lab_config_init (GmlLabConfig *config)
{
  memset (config, 0, sizeof *config);
  gml_lab_config_set_model (config, "gpt2");
  config->batch = 8;
  config->mode = GML_LAB_TRAIN;
  config->tokens = 256;
  config->precision = GML_LAB_FP32;
  config->optimizer = GML_LAB_ADAMW;
  config->step = GML_LAB_STEP_STEADY;
  config->checkpointing = GML_LAB_CHECKPOINT_NONE;
  config->checkpoint_every = 2;
  config->accumulation = 1;
  config->zero = 0;
  config->gpus = 1;
  config->gpu_memory = G_GUINT64_CONSTANT (24) << 30;
  config->alloc_conf = NULL;
  gml_alloc_conf_init (&config->conf);
}

void
gml_lab_config_clear (GmlLabConfig *config)
{
  g_clear_pointer (&config->alloc_conf, g_free);
}

void
gml_lab_config_copy (GmlLabConfig       *dest,
                     const GmlLabConfig *src)
{
  if (dest == src)
    return;
  g_free (dest->alloc_conf);
  *dest = *src;
  dest->alloc_conf = g_strdup (src->alloc_conf);
}

gboolean
gml_lab_config_equal (const GmlLabConfig *a,
                      const GmlLabConfig *b)
{
  g_autofree char *args_a = gml_lab_config_to_args (a);
  g_autofree char *args_b = gml_lab_config_to_args (b);

  return g_str_equal (args_a, args_b);
}

static gboolean
parse_count (const char *knob,
             const char *value,
             guint64     min,
             guint64     max,
             guint64    *out,
             GError    **error)
{
  guint64 v;

  if (value == NULL || !g_ascii_string_to_unsigned (value, 10, min, max, &v, NULL))
    {
      g_autofree char *lo = g_strdup_printf ("%" G_GUINT64_FORMAT, min);
      g_autofree char *hi = g_strdup_printf ("%" G_GUINT64_FORMAT, max);

      /* Translators: --%s is an option such as --batch; then what was typed, and the range. */
      g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
                   _("--%s “%s” is not a whole number from %s to %s."), knob,
                   value != NULL ? value : "", lo, hi);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
bad_choice (const char *knob,
            const char *value,
            const char *choices,
            GError    **error)
{
  /* Translators: --%s is an option; then what was typed, and the words it accepts. */
  g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
               _("--%s “%s” is not known. Use one of: %s."), knob, value != NULL ? value : "",
               choices);
  return FALSE;
}

static gboolean
mlp_has_no (const char *knob,
            GError    **error)
{
  /* Translators: --%s is an option such as --heads. */
  g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
               _("--%s does not apply to the MLP: it has layers (--layers), a width (--hidden) and "
                 "classes (--vocab)."), knob);
  return FALSE;
}

static void
make_custom (GmlLabConfig *config)
{
  if (config->arch != GML_LAB_ARCH_MLP)
    config->model = "custom";
}

gboolean
gml_lab_config_set (GmlLabConfig  *config,
                    const char    *knob,
                    const char    *value,
                    GError       **error)
{
  guint64 v;

  g_return_val_if_fail (knob != NULL, FALSE);

  if (g_str_equal (knob, "model"))
    {
      if (!gml_lab_config_set_model (config, value))
        return bad_choice (knob, value, "gpt2, llama-3.2-1b, llama-2-7b, mlp", error);
      return TRUE;
    }
  if (g_str_equal (knob, "layers"))
    {
      if (!parse_count (knob, value, 1, GML_LAB_MAX_LAYERS, &v, error))
        return FALSE;
      config->layers = (guint) v;
      make_custom (config);
      return TRUE;
    }
  if (g_str_equal (knob, "hidden"))
    {
      if (!parse_count (knob, value, 1, 65536, &v, error))
        return FALSE;
      config->hidden = v;
      make_custom (config);
      return TRUE;
    }
  if (g_str_equal (knob, "heads"))
    {
      if (config->arch == GML_LAB_ARCH_MLP)
        return mlp_has_no (knob, error);
      if (!parse_count (knob, value, 1, 1024, &v, error))
        return FALSE;
      /* Grouped-query attention keeps its key/value heads where it can. */
      if (config->kv_heads == config->heads || v % config->kv_heads != 0)
        config->kv_heads = (guint) v;
      config->heads = (guint) v;
      make_custom (config);
      return TRUE;
    }
  if (g_str_equal (knob, "ffn"))
    {
      if (config->arch == GML_LAB_ARCH_MLP)
        return mlp_has_no (knob, error);
      if (!parse_count (knob, value, 1, 262144, &v, error))
        return FALSE;
      config->ffn = v;
      make_custom (config);
      return TRUE;
    }
  if (g_str_equal (knob, "seq"))
    {
      if (!parse_count (knob, value, 1, 131072, &v, error))
        return FALSE;
      if (config->arch == GML_LAB_ARCH_MLP)
        return mlp_has_no (knob, error);
      config->seq = v;
      return TRUE;
    }
  if (g_str_equal (knob, "vocab"))
    {
      if (!parse_count (knob, value, 1, 1048576, &v, error))
        return FALSE;
      config->vocab = v;
      make_custom (config);
      return TRUE;
    }
  if (g_str_equal (knob, "batch"))
    {
      if (!parse_count (knob, value, 1, GML_LAB_MAX_BATCH, &v, error))
        return FALSE;
      config->batch = (guint) v;
      return TRUE;
    }
  if (g_str_equal (knob, "mode"))
    {
      if (g_strcmp0 (value, "train") == 0)
        config->mode = GML_LAB_TRAIN;
      else if (g_strcmp0 (value, "inference") == 0)
        config->mode = GML_LAB_INFERENCE;
      else
        return bad_choice (knob, value, "train, inference", error);
      return TRUE;
    }
  if (g_str_equal (knob, "tokens"))
    {
      if (!parse_count (knob, value, 1, GML_LAB_MAX_TOKENS, &v, error))
        return FALSE;
      config->tokens = (guint) v;
      return TRUE;
    }
  if (g_str_equal (knob, "precision"))
    {
      for (guint i = 0; i < GML_LAB_N_PRECISIONS; i++)
        if (g_strcmp0 (value, precision_names[i]) == 0)
          {
            config->precision = i;
            return TRUE;
          }
      return bad_choice (knob, value,
                         "fp32, amp-fp16, amp-bf16, bf16, autocast-fp16, autocast-bf16", error);
    }
  if (g_str_equal (knob, "optimizer"))
    {
      for (guint i = 0; i < GML_LAB_N_OPTIMIZERS; i++)
        if (g_strcmp0 (value, optimizer_names[i]) == 0)
          {
            config->optimizer = i;
            return TRUE;
          }
      return bad_choice (knob, value, "sgd, momentum, adam, adamw", error);
    }
  if (g_str_equal (knob, "step"))
    {
      if (g_strcmp0 (value, "steady") == 0)
        config->step = GML_LAB_STEP_STEADY;
      else if (g_strcmp0 (value, "first") == 0)
        config->step = GML_LAB_STEP_FIRST;
      else
        return bad_choice (knob, value, "steady, first", error);
      return TRUE;
    }
  if (g_str_equal (knob, "checkpointing"))
    {
      if (g_strcmp0 (value, "none") == 0)
        config->checkpointing = GML_LAB_CHECKPOINT_NONE;
      else if (g_strcmp0 (value, "sqrt") == 0)
        config->checkpointing = GML_LAB_CHECKPOINT_SQRT;
      else if (value != NULL && g_str_has_prefix (value, "every-") &&
               g_ascii_string_to_unsigned (value + 6, 10, 1, GML_LAB_MAX_LAYERS, &v, NULL))
        {
          config->checkpointing = GML_LAB_CHECKPOINT_EVERY;
          config->checkpoint_every = (guint) v;
        }
      else
        return bad_choice (knob, value, "none, every-K (K a number of layers), sqrt", error);
      return TRUE;
    }
  if (g_str_equal (knob, "accumulation"))
    {
      if (!parse_count (knob, value, 1, 1024, &v, error))
        return FALSE;
      config->accumulation = (guint) v;
      return TRUE;
    }
  if (g_str_equal (knob, "zero"))
    {
      if (!parse_count (knob, value, 0, 3, &v, error))
        return FALSE;
      config->zero = (guint) v;
      return TRUE;
    }
  if (g_str_equal (knob, "gpus"))
    {
      if (!parse_count (knob, value, 1, 4096, &v, error))
        return FALSE;
      config->gpus = (guint) v;
      return TRUE;
    }
  if (g_str_equal (knob, "gpu-memory"))
    {
      if (!gml_parse_size (value, GML_SIZE_COMMAND_LINE, &v, NULL) || v < GML_LAB_MIN_GPU_MEMORY ||
          v > GML_LAB_MAX_GPU_MEMORY)
        {
          /* Translators: %s is what was typed. */
          g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
                       _("--gpu-memory “%s” is not a GPU size the lab can simulate: use 8G, 12G, "
                         "16G, 24G, 40G, 48G, 80G or 141G, or a number of bytes from 64 MiB to 256 "
                         "GiB."),
                       value != NULL ? value : "");
          return FALSE;
        }
      config->gpu_memory = v;
      return TRUE;
    }
  if (g_str_equal (knob, "alloc-conf"))
    {
      GmlAllocConf conf;
      g_autoptr(GError) conf_error = NULL;

      gml_alloc_conf_init (&conf);
      if (value != NULL && *value != '\0' && !gml_alloc_conf_parse (&conf, value, &conf_error))
        {
          g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID, "--alloc-conf: %s",
                       conf_error->message);
          return FALSE;
        }
      config->conf = conf;
      g_free (config->alloc_conf);
      config->alloc_conf = value != NULL && *value != '\0' ? g_strdup (value) : NULL;
      return TRUE;
    }

  /* Translators: --%s is what was typed. */
  g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID, _("There is no knob --%s."), knob);
  return FALSE;
}

gboolean
gml_lab_config_check (const GmlLabConfig *c,
                      GError            **error)
{
  gboolean transformer = c->arch != GML_LAB_ARCH_MLP;

  if (transformer && c->hidden % c->heads != 0)
    {
      g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
                   _("The hidden size (%u) must be a multiple of the number of heads (%u): every "
                     "head gets hidden ÷ heads of it."), (guint) c->hidden, c->heads);
      return FALSE;
    }
  if (transformer && c->heads % c->kv_heads != 0)
    {
      g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
                   _("The number of heads (%u) must be a multiple of the %u key/value heads of "
                     "this model."), c->heads, c->kv_heads);
      return FALSE;
    }
  if (c->arch == GML_LAB_ARCH_GPT2 && g_str_equal (c->model, "gpt2") &&
      c->seq + (c->mode == GML_LAB_INFERENCE ? c->tokens : 0) > c->context)
    {
      g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
                   _("GPT-2 knows %u positions: the sequence (with the generated tokens) cannot be "
                     "longer."), (guint) c->context);
      return FALSE;
    }
  if (c->arch == GML_LAB_ARCH_LLAMA &&
      c->seq + (c->mode == GML_LAB_INFERENCE ? c->tokens : 0) > c->context)
    {
      g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
                   _("This model was trained for %u positions: the sequence (with the generated "
                     "tokens) cannot be longer."), (guint) c->context);
      return FALSE;
    }
  if (c->checkpointing == GML_LAB_CHECKPOINT_EVERY && c->checkpoint_every > c->layers)
    {
      g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
                   _("--checkpointing every-%u: the model has only %u layers."),
                   c->checkpoint_every,
                   c->layers);
      return FALSE;
    }
  if (c->mode == GML_LAB_INFERENCE)
    {
      if (c->checkpointing != GML_LAB_CHECKPOINT_NONE || c->accumulation != 1 || c->zero != 0)
        {
          g_set_error_literal (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
                               _("Checkpointing, accumulation and ZeRO are about training: use "
                                 "them with --mode train."));
          return FALSE;
        }
      if (c->arch == GML_LAB_ARCH_MLP)
        {
          g_set_error_literal (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
                               _("The MLP has no attention and so no KV cache: its inference is "
                                 "one forward pass, which --mode train shows too. Choose a "
                                 "transformer for --mode inference."));
          return FALSE;
        }
      if ((guint64) c->tokens * c->layers > GML_LAB_MAX_DECODE_WORK)
        {
          g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_TOO_LARGE,
                       _("%u tokens through %u layers are more steps than the lab simulates at "
                         "once (tokens × layers at most %u)."), c->tokens, c->layers,
                       (guint) GML_LAB_MAX_DECODE_WORK);
          return FALSE;
        }
    }
  if (c->zero > 0 && c->gpus < 2)
    {
      g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
                   _("ZeRO stage %u shards over several GPUs: give --gpus 2 or more."), c->zero);
      return FALSE;
    }
  return TRUE;
}

char *
gml_lab_config_to_args (const GmlLabConfig *c)
{
  GString *s = g_string_new (NULL);
  g_autofree char *ckpt = gml_lab_checkpointing_to_string (c);

  /* The preset, and a shape of one's own by its numbers. */
  g_string_append_printf (s, "--model %s", c->base);
  if (c->arch == GML_LAB_ARCH_MLP)
    g_string_append_printf (s,
                            " --layers %u --hidden %" G_GUINT64_FORMAT " --vocab "
                                                                       "%" G_GUINT64_FORMAT,
                            c->layers, c->hidden, c->vocab);
  else if (g_str_equal (c->model, "custom"))
    g_string_append_printf (s, " --layers %u --hidden %" G_GUINT64_FORMAT " --heads %u --ffn %"
                            G_GUINT64_FORMAT " --vocab %" G_GUINT64_FORMAT,
                            c->layers, c->hidden, c->heads, c->ffn, c->vocab);
  if (c->arch != GML_LAB_ARCH_MLP)
    g_string_append_printf (s, " --seq %" G_GUINT64_FORMAT, c->seq);
  g_string_append_printf (s, " --batch %u", c->batch);
  if (c->mode == GML_LAB_INFERENCE)
    g_string_append_printf (s, " --mode inference --tokens %u", c->tokens);
  g_string_append_printf (s, " --precision %s", precision_names[c->precision]);
  if (c->mode == GML_LAB_TRAIN)
    {
      g_string_append_printf (s, " --optimizer %s", optimizer_names[c->optimizer]);
      if (c->step == GML_LAB_STEP_FIRST)
        g_string_append (s, " --step first");
      if (c->checkpointing != GML_LAB_CHECKPOINT_NONE)
        g_string_append_printf (s, " --checkpointing %s", ckpt);
      if (c->accumulation > 1)
        g_string_append_printf (s, " --accumulation %u", c->accumulation);
      if (c->zero > 0)
        g_string_append_printf (s, " --zero %u", c->zero);
    }
  if (c->gpus > 1)
    g_string_append_printf (s, " --gpus %u", c->gpus);
  if (c->gpu_memory % (G_GUINT64_CONSTANT (1) << 30) == 0)
    g_string_append_printf (s, " --gpu-memory %" G_GUINT64_FORMAT "G", c->gpu_memory >> 30);
  else
    g_string_append_printf (s, " --gpu-memory %" G_GUINT64_FORMAT, c->gpu_memory);
  if (c->alloc_conf != NULL)
    g_string_append_printf (s, " --alloc-conf %s", c->alloc_conf);
  return g_string_free (s, FALSE);
}

char *
gml_lab_config_describe (const GmlLabConfig *c)
{
  static const char * const optimizer_words[GML_LAB_N_OPTIMIZERS] = {
    "SGD", N_("SGD with momentum"), "Adam", "AdamW",
  };
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *seq = gml_format_grouped (c->seq);
  g_autofree char *gpu = gml_format_size_short (c->gpu_memory);
  g_autofree char *text = NULL;

  /* Translators: a model's name, then what the lab runs: "gpt2 training". */
  g_ptr_array_add (parts, g_strdup_printf (c->mode == GML_LAB_INFERENCE ? _("%s inference")
                                                                          : _("%s training"),
                                           g_str_equal (c->model, "custom")
                                             ? _("a model of its own") : c->base));
  /* Translators: the batch size. */
  g_ptr_array_add (parts, g_strdup_printf (_("batch %u"), c->batch));
  if (c->arch != GML_LAB_ARCH_MLP && c->mode == GML_LAB_INFERENCE)
    {
      g_autofree char *tokens = gml_format_grouped (c->tokens);

      /* Translators: the prompt's tokens, then those generated: "2,048 + 2,048 tokens". */
      g_ptr_array_add (parts, g_strdup_printf (_("%s + %s tokens"), seq, tokens));
    }
  else if (c->arch != GML_LAB_ARCH_MLP)
    /* Translators: the sequence length: "1,024 tokens". */
    g_ptr_array_add (parts, g_strdup_printf (_("%s tokens"), seq));
  g_ptr_array_add (parts, g_strdup (precision_names[c->precision]));
  if (c->mode == GML_LAB_TRAIN)
    {
      g_ptr_array_add (parts, g_strdup (_(optimizer_words[c->optimizer])));
      if (c->step == GML_LAB_STEP_FIRST)
        g_ptr_array_add (parts, g_strdup (_("the first step")));
      if (c->checkpointing != GML_LAB_CHECKPOINT_NONE)
        {
          g_autofree char *ckpt = gml_lab_checkpointing_to_string (c);

          /* Translators: the checkpointing strategy as the command line names it. */
          g_ptr_array_add (parts, g_strdup_printf (_("checkpointing %s"), ckpt));
        }
      if (c->accumulation > 1)
        /* Translators: gradient accumulation's micro-steps per optimizer step. */
        g_ptr_array_add (parts, g_strdup_printf (_("%u micro-steps"), c->accumulation));
      if (c->zero > 0)
        /* Translators: a ZeRO stage, then a number of GPUs. */
        g_ptr_array_add (parts, g_strdup_printf (_("ZeRO-%u on %u GPUs"), c->zero, c->gpus));
    }
  if (c->gpus > 1 && (c->mode != GML_LAB_TRAIN || c->zero == 0))
    /* Translators: a number of GPUs. */
    g_ptr_array_add (parts, g_strdup_printf (_("%u GPUs"), c->gpus));
  /* Translators: the GPU's memory: "24 GiB GPU". */
  g_ptr_array_add (parts, g_strdup_printf (_("%s GPU"), gpu));
  if (c->alloc_conf != NULL)
    g_ptr_array_add (parts, g_strdup (c->alloc_conf));
  g_ptr_array_add (parts, NULL);
  /* Translators: what separates the parts of a run's description. */
  text = g_strjoinv (C_("list", ", "), (char **) parts->pdata);
  return g_steal_pointer (&text);
}

gboolean
gml_lab_config_parse_args (GmlLabConfig *config,
                           const char   *args,
                           GError      **error)
{
  g_auto(GStrv) words = NULL;
  guint n;

  if (args == NULL)
    return TRUE;
  words = g_strsplit_set (args, " \t\n", -1);
  n = g_strv_length (words);
  for (guint i = 0; i < n; i++)
    {
      const char *w = words[i];

      if (*w == '\0')
        continue;
      if (!g_str_has_prefix (w, "--") || w[2] == '\0')
        {
          /* Translators: %s is a word of the configuration. */
          g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID,
                       _("“%s” is not a knob: knobs are written --name value."), w);
          return FALSE;
        }
      while (i + 1 < n && *words[i + 1] == '\0')
        i++;
      if (!gml_lab_config_set (config, w + 2, i + 1 < n ? words[i + 1] : NULL, error))
        return FALSE;
      i++;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Shapes and formulas                                                       */

void
_gml_lab_param_list (const GmlLabConfig *c,
                     GArray             *params)
{
  guint64 h = c->hidden, f = c->ffn, v = c->vocab;
  guint64 kv = c->arch == GML_LAB_ARCH_LLAMA ? h / c->heads * c->kv_heads : h;

#define ADD(layer_, name_, n_) G_STMT_START {                                    \
    GmlLabParam p_ = { (layer_), (name_), (n_) };                                \
    g_array_append_val (params, p_);                                             \
  } G_STMT_END

  if (c->arch == GML_LAB_ARCH_MLP)
    {
      for (guint l = 0; l <= c->layers; l++)
        {
          guint64 in = l == 0 ? c->inputs : h;
          guint64 out = l == c->layers ? v : h;

          ADD ((int) l, "weight", in * out);
          ADD ((int) l, "bias", out);
        }
      return;
    }

  ADD (GML_LAB_LAYER_EMBED, c->arch == GML_LAB_ARCH_GPT2 ? "wte" : "embed_tokens", v * h);
  if (c->arch == GML_LAB_ARCH_GPT2)
    ADD (GML_LAB_LAYER_EMBED, "wpe", _gml_lab_positions (c) * h);
  for (guint l = 0; l < c->layers; l++)
    {
      if (c->arch == GML_LAB_ARCH_GPT2)
        {
          ADD ((int) l, "ln_1", 2 * h);
          ADD ((int) l, "attn.c_attn", 3 * h * h + 3 * h);
          ADD ((int) l, "attn.c_proj", h * h + h);
          ADD ((int) l, "ln_2", 2 * h);
          ADD ((int) l, "mlp.c_fc", h * f + f);
          ADD ((int) l, "mlp.c_proj", f * h + h);
        }
      else
        {
          ADD ((int) l, "input_layernorm", h);
          ADD ((int) l, "self_attn.q_proj", h * h);
          ADD ((int) l, "self_attn.k_proj", h * kv);
          ADD ((int) l, "self_attn.v_proj", h * kv);
          ADD ((int) l, "self_attn.o_proj", h * h);
          ADD ((int) l, "post_attention_layernorm", h);
          ADD ((int) l, "mlp.gate_proj", h * f);
          ADD ((int) l, "mlp.up_proj", h * f);
          ADD ((int) l, "mlp.down_proj", f * h);
        }
    }
  ADD (GML_LAB_LAYER_HEAD, c->arch == GML_LAB_ARCH_GPT2 ? "ln_f" : "norm",
       c->arch == GML_LAB_ARCH_GPT2 ? 2 * h : h);
  if (!c->tied)
    ADD (GML_LAB_LAYER_HEAD, "lm_head", v * h);
#undef ADD
}

/* GPT-2 learns one embedding per position: 1024 for the preset; a shape of
 * one's own learns as many as its sequence needs (at least 1024). */
guint64
_gml_lab_positions (const GmlLabConfig *c)
{
  if (g_str_equal (c->model, "custom"))
    return MAX (c->context, c->seq);
  return c->context;
}

guint64
gml_lab_count_parameters (const GmlLabConfig *config)
{
  g_autoptr(GArray) params = g_array_new (FALSE, FALSE, sizeof (GmlLabParam));
  guint64 n = 0;

  _gml_lab_param_list (config, params);
  for (guint i = 0; i < params->len; i++)
    n += g_array_index (params, GmlLabParam, i).elements;
  return n;
}

guint64
gml_lab_korthikanti_per_layer (guint64 s,
                               guint64 b,
                               guint64 h,
                               guint64 a)
{
  /* s·b·h·(34 + 5·a·s/h) = 34·s·b·h + 5·a·s²·b: exact in whole bytes. */
  return 34 * s * b * h + 5 * a * s * s * b;
}

gboolean
_gml_lab_is_autocast (const GmlLabConfig *c)
{
  return c->precision == GML_LAB_AUTOCAST_FP16 || c->precision == GML_LAB_AUTOCAST_BF16;
}

guint64
_gml_lab_dtype_bytes (const GmlLabConfig *c)
{
  return c->precision == GML_LAB_FP32 ? 4 : 2;
}

void
_gml_lab_state_bytes (const GmlLabConfig *c,
                      guint64            *weight,
                      guint64            *grad,
                      guint64            *master,
                      guint64            *state)
{
  guint64 moments = c->optimizer == GML_LAB_SGD ? 0 : c->optimizer == GML_LAB_MOMENTUM ? 1 : 2;

  switch (c->precision)
    {
    case GML_LAB_AMP_FP16:
    case GML_LAB_AMP_BF16:
      /* Mixed precision as in Micikevicius et al. 2018 and the ZeRO paper:
       * 16-bit weights and gradients, fp32 master weights and moments. */
      *weight = 2;
      *grad = 2;
      *master = 4;
      *state = 4 * moments;
      break;
    case GML_LAB_AUTOCAST_FP16:
    case GML_LAB_AUTOCAST_BF16:
      /* torch.autocast leaves the model and torch.optim as they were made, in
       * fp32 (the amp examples: "model and optimizer in default precision"). */
      *weight = 4;
      *grad = 4;
      *master = 0;
      *state = 4 * moments;
      break;
    case GML_LAB_BF16:
      /* torch.optim keeps its state in the parameter's dtype. */
      *weight = 2;
      *grad = 2;
      *master = 0;
      *state = 2 * moments;
      break;
    case GML_LAB_FP32:
    default:
      *weight = 4;
      *grad = 4;
      *master = 0;
      *state = 4 * moments;
      break;
    }
  if (c->mode == GML_LAB_INFERENCE)
    {
      *grad = 0;
      *master = 0;
      *state = 0;
    }
}

/* Ceil(n / gpus): the shard each GPU keeps of n elements. */
guint64
_gml_lab_shard (guint64 n,
                guint   gpus)
{
  return (n + gpus - 1) / gpus;
}

double
gml_lab_bytes_per_parameter (const GmlLabConfig *c)
{
  guint64 w, g, m, s;
  double n = c->gpus;

  _gml_lab_state_bytes (c, &w, &g, &m, &s);
  switch (c->zero)
    {
    case 1: return w + g + (m + s) / n;
    case 2: return w + (g + m + s) / n;
    case 3: return (w + g + m + s) / n;
    default: return w + g + m + s;
    }
}

/* The activations one layer keeps for backward: the same list of tensors the
 * step allocates (gml-lab-step.c), summed here in closed form. t = s·b·h. */
static guint64
layer_activations (const GmlLabConfig *c)
{
  guint64 s = c->seq, b = c->batch, h = c->hidden, a = c->heads, f = c->ffn;
  guint64 d = _gml_lab_dtype_bytes (c);
  guint64 t = s * b * h, A = a * s * s * b, stats = 4 * s * b;

  switch (c->arch)
    {
    case GML_LAB_ARCH_GPT2:
      /* LayerNorm inputs 2·d·t, LayerNorm outputs (QKV and MLP inputs) 2·d·t,
       * Q, K and V 3·d·t, softmax output d·A, its dropout mask A (1 byte) and
       * output d·A, the projection's input d·t, two dropout masks 2·t, the MLP's
       * two intermediates 2·d·s·b·f; plus LayerNorm's mean and 1/σ (fp32). */
      return 2 * d * t + 2 * d * t + 3 * d * t + d * A + A + d * A + d * t + 2 * t
             + 2 * d * s * b * f + 2 * 2 * stats;
    case GML_LAB_ARCH_LLAMA:
      {
        guint64 kv = t / c->heads * c->kv_heads;

        /* RMSNorm inputs and outputs 4·d·t, Q after RoPE d·t, K and V 2·d·kv,
         * softmax output d·A, the projection's input d·t, gate, up, SiLU and
         * product 4·d·s·b·f; plus RMSNorm's 1/rms (fp32). */
        return 4 * d * t + d * t + 2 * d * kv + d * A + d * t + 4 * d * s * b * f + 2 * stats;
      }
    case GML_LAB_ARCH_MLP:
    default:
      /* The ReLU's output: the next layer's input. */
      return d * b * h;
    }
}

void
gml_lab_formula (const GmlLabConfig *c,
                 GmlLabFormula      *f)
{
  guint64 n = gml_lab_count_parameters (c);
  guint64 w, g, m, s, d = _gml_lab_dtype_bytes (c);
  guint N = c->gpus;

  memset (f, 0, sizeof *f);
  f->parameters = n;
  _gml_lab_state_bytes (c, &w, &g, &m, &s);

  f->weights = c->zero >= 3 ? w * _gml_lab_shard (n, N) : w * n;
  f->gradients = c->zero >= 2 ? g * _gml_lab_shard (n, N) : g * n;
  f->optimizer_state = c->zero >= 1 ? (m + s) * _gml_lab_shard (n, N) : (m + s) * n;

  if (c->arch != GML_LAB_ARCH_MLP)
    f->korthikanti_per_layer = gml_lab_korthikanti_per_layer (c->seq, c->batch, c->hidden,
                                                              c->heads);

  if (c->mode == GML_LAB_INFERENCE)
    {
      guint64 head_dim = c->hidden / c->heads;

      f->kv_cache =
          2 * (guint64) c->layers * (c->seq + c->tokens) * c->kv_heads * head_dim * d * c->batch;
      return;
    }

  f->activations_per_layer = layer_activations (c);
  if (c->arch == GML_LAB_ARCH_MLP)
    {
      /* The input, the labels (int64), every hidden layer's ReLU output, and
       * the fp32 log-softmax. */
      f->activations =
          d * c->batch * c->inputs + 8 * c->batch + c->layers * f->activations_per_layer
                       + 4 * c->batch * c->vocab;
    }
  else
    {
      guint64 t = c->seq * c->batch * c->hidden;
      guint64 k = _gml_lab_checkpoint_group (c);

      if (k == 0)
        f->activations = c->layers * f->activations_per_layer;
      else
        f->activations = (c->layers + k - 1) / k * d * t;   /* each group's input only */
      /* Token ids and labels (int64); GPT-2's embedding dropout mask; the last
       * layer's output and the final norm's output and statistics; the fp32
       * log-softmax the loss keeps (Korthikanti et al.'s 4sbv). */
      f->activations += 16 * c->seq * c->batch;
      if (c->arch == GML_LAB_ARCH_GPT2)
        f->activations += t;
      f->activations += 2 * d * t + (c->arch == GML_LAB_ARCH_GPT2 ? 8 : 4) * c->seq * c->batch
                        + 4 * c->seq * c->batch * c->vocab;
    }
}

/* Layers per checkpointed group; 0 without checkpointing. */
guint
_gml_lab_checkpoint_group (const GmlLabConfig *c)
{
  switch (c->checkpointing)
    {
    case GML_LAB_CHECKPOINT_EVERY:
      return MAX (c->checkpoint_every, 1);
    case GML_LAB_CHECKPOINT_SQRT:
      return (guint) ceil (sqrt ((double) c->layers));
    case GML_LAB_CHECKPOINT_NONE:
    default:
      return 0;
    }
}

/* ------------------------------------------------------------------------- */
/* The largest batch that fits                                               */

gboolean
gml_lab_find_max_batch (const GmlLabConfig *config,
                        guint               limit,
                        guint              *max_batch,
                        guint              *probes,
                        GCancellable       *cancellable,
                        GError            **error)
{
  GmlLabConfig probe;
  guint lo = 0, hi, n = 0;
  gboolean ok = TRUE;

  memset (&probe, 0, sizeof probe);
  gml_lab_config_copy (&probe, config);
  limit = CLAMP (limit, 1, GML_LAB_MAX_BATCH);

  /* Whether batch @b fits: one quick run. */
#define FITS(b_, out_) G_STMT_START {                                           \
    g_autoptr(GmlLabRun) run_ = NULL;                                           \
    probe.batch = (b_);                                                         \
    n++;                                                                        \
    if (g_cancellable_set_error_if_cancelled (cancellable, error))              \
      { ok = FALSE; goto out; }                                                 \
    run_ = gml_lab_run_new_cancellable (&probe, GML_LAB_RUN_QUICK, cancellable, error); \
    if (run_ == NULL)                                                           \
      { ok = FALSE; goto out; }                                                 \
    (out_) = gml_lab_run_get_result (run_)->fits;                               \
  } G_STMT_END

  /* Doubling until it fails, then bisection between the last that fitted and
   * the first that did not. */
  hi = 1;
  while (TRUE)
    {
      gboolean fits;

      FITS (hi, fits);
      if (!fits)
        break;
      lo = hi;
      if (hi >= limit)
        {
          hi = limit + 1;
          break;
        }
      hi = MIN (hi * 2, limit);
    }
  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;
      gboolean fits;

      FITS (mid, fits);
      if (fits)
        lo = mid;
      else
        hi = mid;
    }
#undef FITS

out:
  if (ok)
    *max_batch = lo;
  if (probes != NULL)
    *probes = n;
  gml_lab_config_clear (&probe);
  return ok;
}

gboolean
_gml_lab_check_args (const char  *args,
                     char       **reason)
{
  GmlLabConfig config;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  gml_lab_config_init (&config);
  ok = gml_lab_config_parse_args (&config, args, &error) && gml_lab_config_check (&config, &error);
  gml_lab_config_clear (&config);
  if (!ok)
    *reason = g_strdup (error->message);
  return ok;
}

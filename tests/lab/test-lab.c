/* test-lab.c — the experiment lab: worked numbers for every rule, and the
 * engine's run against the formulas.
 *
 * Sources of the numbers:
 * - shapes: the Hugging Face config.json of openai-community/gpt2,
 *   meta-llama/Llama-3.2-1B and meta-llama/Llama-2-7b-hf;
 * - activations: Korthikanti et al. 2022, "Reducing Activation Recomputation
 *   in Large Transformer Models", arXiv:2205.05198, section 4.1, eq. (1);
 * - model state: Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward
 *   Training Trillion Parameter Models", arXiv:1910.02054, figure 1 and
 *   section 3.1 (7.5 B parameters, 64 GPUs: 120, 31.4, 16.6 and 1.9 GB);
 * - optimizers: torch/optim/sgd.py (momentum_buffer), torch/optim/adam.py
 *   (exp_avg, exp_avg_sq; _multi_tensor_adam's exp_avg_sq_sqrt list);
 * - allocator: pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp (512-byte
 *   rounding, kMinBlockSize) and the CUDA semantics notes
 *   (https://docs.pytorch.org/docs/stable/notes/cuda.html).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <string.h>

#include "gml-i18n.h"
#include "gml-lab.h"
#include "gml-scenario-private.h"
#include "gml-test-locale.h"

static void
config_from (GmlLabConfig *c,
             const char   *args)
{
  g_autoptr(GError) error = NULL;

  gml_lab_config_init (c);
  g_assert_true (gml_lab_config_parse_args (c, args, &error));
  g_assert_no_error (error);
  g_assert_true (gml_lab_config_check (c, &error));
  g_assert_no_error (error);
}

static GmlLabRun *
run_args (const char *args)
{
  GmlLabConfig c;
  g_autoptr(GError) error = NULL;
  GmlLabRun *run;

  config_from (&c, args);
  run = gml_lab_run_new (&c, GML_LAB_RUN_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_nonnull (run);
  gml_lab_config_clear (&c);
  return run;
}

/* Requested bytes of @category (all when GML_N_CATEGORIES) in the state at @step. */
static guint64
requested_at (GmlLabRun   *run,
              guint        step,
              GmlCategory  category)
{
  GmlScenario *sc = gml_lab_run_get_scenario (run);
  g_autoptr(GmlMemState) state = NULL;
  guint64 sum = 0;

  g_assert_cmpuint (step, <, gml_scenario_get_n_steps (sc));
  state = gml_scenario_state_at (sc, step);
  if (category < GML_N_CATEGORIES)
    return _gml_mem_state_requested_by_category (state, category);
  for (guint c = 0; c < GML_N_CATEGORIES; c++)
    sum += _gml_mem_state_requested_by_category (state, c);
  return sum;
}

typedef struct
{
  const char *prefix;
  guint64     requested;
  guint64     size;
  guint       n;
} LabelSum;

static void
label_sum_cb (const GmlSegmentInfo *segment,
              const GmlBlockInfo   *block,
              gpointer              user_data)
{
  LabelSum *d = user_data;

  if (block->state == GML_BLOCK_ALLOCATED && block->label != NULL &&
      g_str_has_prefix (block->label, d->prefix) && block->category == GML_CATEGORY_ACTIVATIONS)
    {
      d->requested += block->requested_size;
      d->size += block->size;
      d->n++;
    }
}

static LabelSum
activations_with_prefix (GmlLabRun  *run,
                         guint       step,
                         const char *prefix)
{
  GmlScenario *sc = gml_lab_run_get_scenario (run);
  g_autoptr(GmlMemState) state = gml_scenario_state_at (sc, step);
  LabelSum d = { prefix, 0, 0, 0 };

  gml_mem_state_foreach_block (state, label_sum_cb, &d);
  return d;
}

/* ------------------------------------------------------------------------- */

static void
test_parameters (void)
{
  GmlLabConfig c;

  gml_lab_config_init (&c);

  /* GPT-2 small, tied embeddings:
   *   wte 50257 × 768                                    =  38,597,376
   *   wpe 1024 × 768                                     =     786,432
   *   per layer: ln_1 2·768 + c_attn 768·2304 + 2304 + c_proj 768·768 + 768
   *     + ln_2 2·768 + c_fc 768·3072 + 3072 + c_proj 3072·768 + 768
   *     = 12·768² + 13·768 = 7,077,888 + 9,984            =   7,087,872
   *   × 12 layers                                        =  85,054,464
   *   ln_f 2·768                                         =       1,536
   *   total                                               = 124,439,808 */
  g_assert_true (gml_lab_config_set_model (&c, "gpt2"));
  g_assert_cmpuint (gml_lab_count_parameters (&c), ==, 124439808);

  /* Llama 2 7B, untied:
   *   embed_tokens 32000 × 4096                           =   131,072,000
   *   per layer: q, k, v, o 4·4096² = 67,108,864; gate, up, down 3·4096·11008
   *     = 135,266,304; two RMSNorms 2·4096 = 8,192          =   202,383,360
   *   × 32 layers                                         = 6,476,267,520
   *   norm 4096; lm_head 32000 × 4096 = 131,072,000
   *   total                                               = 6,738,415,616 */
  g_assert_true (gml_lab_config_set_model (&c, "llama-2-7b"));
  g_assert_cmpuint (gml_lab_count_parameters (&c), ==, G_GUINT64_CONSTANT (6738415616));

  /* Llama 3.2 1B, tied, 8 key/value heads of 64 (K and V 2048 × 512):
   *   embed_tokens 128256 × 2048                          =   262,668,288
   *   per layer: q 4,194,304 + k, v 2 × 1,048,576 + o 4,194,304
   *     + MLP 3·2048·8192 = 50,331,648 + norms 4,096        =    60,821,504
   *   × 16 layers                                         =   973,144,064
   *   norm 2,048                                          = 1,235,814,400 */
  g_assert_true (gml_lab_config_set_model (&c, "llama-3.2-1b"));
  g_assert_cmpuint (gml_lab_count_parameters (&c), ==, G_GUINT64_CONSTANT (1235814400));

  /* The classroom MLP: 784 → 2048 → 2048 → 2048 → 2048 → 10, with biases:
   *   784·2048 + 2048 = 1,607,680; 3 × (2048² + 2048) = 12,589,056;
   *   2048·10 + 10 = 20,490; total 14,217,226. */
  g_assert_true (gml_lab_config_set_model (&c, "mlp"));
  g_assert_cmpuint (gml_lab_count_parameters (&c), ==, 14217226);

  gml_lab_config_clear (&c);
}

static void
test_korthikanti (void)
{
  /* GPT-2 at s = 1024, b = 8, h = 768, a = 12:
   *   34·s·b·h  = 34 · 1024 · 8 · 768  = 213,909,504
   *   5·a·s²·b  = 5 · 12 · 1024² · 8   = 503,316,480
   *   sum                              = 717,225,984 bytes a layer (684 MiB) */
  g_assert_cmpuint (gml_lab_korthikanti_per_layer (1024, 8, 768, 12), ==, 717225984);
  /* Their GPT-3 175B row (s = 2048, h = 12288, a = 96), per sequence:
   *   34·2048·12288 + 5·96·2048² = 855,638,016 + 2,013,265,920 = 2,868,903,936. */
  g_assert_cmpuint (gml_lab_korthikanti_per_layer (2048, 1, 12288, 96), ==,
                    G_GUINT64_CONSTANT (2868903936));
}

/* The engine keeps exactly the paper's tensors (plus LayerNorm's statistics):
 * GPT-2 in bf16, b = 1, s = 128, so t = s·b·h = 98,304 and A = a·s²·b = 196,608.
 *   Korthikanti:  34·t + 5·A = 3,342,336 + 983,040      = 4,325,376 a layer
 *   the lab:      + mean and 1/σ of two LayerNorms, fp32 = 16·s·b = 2,048
 *                                                        = 4,327,424 a layer
 *   × 12 layers                                          = 51,929,088
 *   input_ids and labels (int64) 16·s·b                  =      2,048
 *   embedding dropout mask t (1 byte)                    =     98,304
 *   last layer's output and ln_f's output 2·2·t           =    393,216
 *   ln_f's mean and 1/σ 8·s·b                             =      1,024
 *   log-softmax in fp32 4·s·b·v = 4·128·50257            = 25,731,584
 *   kept at the end of the forward pass                  = 78,155,264 */
static void
test_activations_gpt2 (void)
{
  g_autoptr(GmlLabRun) run = run_args ("--model gpt2 --seq 128 --batch 1 --precision amp-bf16");
  const GmlLabResult *r = gml_lab_run_get_result (run);
  LabelSum layer0;

  g_assert_true (r->fits);
  g_assert_cmpuint (r->formula.korthikanti_per_layer, ==, 4325376);
  g_assert_cmpuint (r->formula.activations_per_layer, ==, 4327424);
  g_assert_cmpuint (r->formula.activations, ==, 78155264);
  g_assert_cmpuint (r->forward_step, !=, G_MAXUINT);
  g_assert_cmpuint (requested_at (run, r->forward_step, GML_CATEGORY_ACTIVATIONS), ==, 78155264);

  /* Layer 0's own tensors: its input "h.0" and everything labelled "h.0.". */
  layer0 = activations_with_prefix (run, r->forward_step, "h.0.");
  g_assert_cmpuint (layer0.requested + 2 * 98304, ==, 4327424);
  /* 16 tensors kept by the layer besides its input: the paper's other 12 and
   * the two LayerNorms' mean and 1/σ. */
  g_assert_cmpuint (layer0.n, ==, 16);
}

/* fp32: every value 4 bytes but the masks (1 byte): 66·t + 9·A + 16·s·b
 * = 6,488,064 + 1,769,472 + 2,048 = 8,259,584 a layer at s = 128, b = 1. */
static void
test_activations_fp32 (void)
{
  g_autoptr(GmlLabRun) run = run_args ("--model gpt2 --seq 128 --batch 1 --precision fp32");
  const GmlLabResult *r = gml_lab_run_get_result (run);

  g_assert_cmpuint (r->formula.activations_per_layer, ==, 8259584);
  g_assert_cmpuint (requested_at (run, r->forward_step, GML_CATEGORY_ACTIVATIONS), ==,
                    r->formula.activations);
}

/* Llama 3.2 1B in bf16 at s = 128, b = 1: t = 262,144, K and V 65,536 values
 * each (8 heads of 64), A = 32·128² = 524,288, s·b·f = 1,048,576:
 *   RMSNorm inputs and outputs 4·2·t  = 2,097,152
 *   Q after RoPE 2·t                  =   524,288
 *   K and V 2·2·65,536                =   262,144
 *   softmax output 2·A                = 1,048,576
 *   o_proj's input 2·t                =   524,288
 *   gate, up, SiLU, product 4·2·sbf   = 8,388,608
 *   two 1/rms, fp32 2·4·s·b           =     1,024
 *                                     = 12,846,080 a layer
 * against Korthikanti's 34·t + 5·A = 8,912,896 + 2,621,440 = 11,534,336. */
static void
test_activations_llama (void)
{
  g_autoptr(GmlLabRun) run =
      run_args ("--model llama-3.2-1b --seq 128 --batch 1 --precision bf16 --gpu-memory 80G");
  const GmlLabResult *r = gml_lab_run_get_result (run);

  g_assert_cmpuint (r->formula.activations_per_layer, ==, 12846080);
  g_assert_cmpuint (r->formula.korthikanti_per_layer, ==, 11534336);
  g_assert_cmpuint (requested_at (run, r->forward_step, GML_CATEGORY_ACTIVATIONS), ==,
                    r->formula.activations);
}

/* Checkpointing every 4 of 12 layers keeps each group's input only: 3 × 2·t =
 * 589,824 instead of 51,929,088, plus the same 26,226,176 outside the layers:
 * 26,816,000 at the end of the forward pass. √12 rounds up to groups of 4 too. */
static void
test_checkpointing (void)
{
  const char *args[] = {
    "--model gpt2 --seq 128 --batch 1 --precision amp-bf16 --checkpointing every-4",
    "--model gpt2 --seq 128 --batch 1 --precision amp-bf16 --checkpointing sqrt",
  };

  for (guint i = 0; i < G_N_ELEMENTS (args); i++)
    {
      g_autoptr(GmlLabRun) run = run_args (args[i]);
      g_autoptr(GmlLabRun) plain =
          run_args ("--model gpt2 --seq 128 --batch 1 --precision amp-bf16");
      const GmlLabResult *r = gml_lab_run_get_result (run);

      g_assert_cmpuint (r->formula.activations, ==, 26816000);
      g_assert_cmpuint (requested_at (run, r->forward_step, GML_CATEGORY_ACTIVATIONS), ==,
                        26816000);
      g_assert_cmpuint (requested_at (plain, gml_lab_run_get_result (plain)->forward_step,
                                      GML_CATEGORY_ACTIVATIONS), ==, 78155264);
      /* Every layer's forward runs once more: one forward of three units of work. */
      g_assert_cmpfloat_with_epsilon (r->extra_compute, 1.0 / 3.0, 1e-9);
    }
}

/* Mixed-precision Adam: 2 + 2 + 12 = 16 bytes a parameter (the ZeRO paper's
 * accounting). For GPT-2: weights 2 · 124,439,808 = 248,879,616, gradients the
 * same, optimizer state 12 · 124,439,808 = 1,493,277,696 (fp32 master weights,
 * exp_avg, exp_avg_sq): 1,991,036,928 in all, after step 2's optimizer.step(). */
static void
test_model_state_mixed_adam (void)
{
  g_autoptr(GmlLabRun) run =
      run_args ("--model gpt2 --seq 64 --batch 1 --precision amp-bf16 --optimizer adam");
  const GmlLabResult *r = gml_lab_run_get_result (run);
  guint step = r->optimizer_step;

  g_assert_cmpfloat (gml_lab_bytes_per_parameter (gml_lab_run_get_config (run)), ==, 16.0);
  g_assert_cmpuint (r->formula.weights, ==, 248879616);
  g_assert_cmpuint (r->formula.gradients, ==, 248879616);
  g_assert_cmpuint (r->formula.optimizer_state, ==, 1493277696);
  g_assert_cmpuint (requested_at (run, step, GML_CATEGORY_WEIGHTS), ==, 248879616);
  g_assert_cmpuint (requested_at (run, step, GML_CATEGORY_GRADIENTS), ==, 248879616);
  g_assert_cmpuint (requested_at (run, step, GML_CATEGORY_OPTIMIZER_STATE), ==, 1493277696);
}

/* torch.optim: SGD keeps nothing, momentum one buffer, Adam and AdamW two
 * moments, in the parameter's dtype (fp32: 0, 4 and 8 bytes a parameter; pure
 * bf16: 0, 2 and 4). */
static void
test_optimizers (void)
{
  static const struct { const char *args; guint64 per_param; } cases[] = {
    { "--model mlp --batch 8 --optimizer sgd", 0 },
    { "--model mlp --batch 8 --optimizer momentum", 4 },
    { "--model mlp --batch 8 --optimizer adam", 8 },
    { "--model mlp --batch 8 --optimizer adamw", 8 },
    { "--model mlp --batch 8 --optimizer adamw --precision bf16", 4 },
    { "--model mlp --batch 8 --optimizer momentum --precision bf16", 2 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GmlLabRun) run = run_args (cases[i].args);
      const GmlLabResult *r = gml_lab_run_get_result (run);
      guint64 state = 14217226 * cases[i].per_param;

      g_assert_cmpuint (r->formula.optimizer_state, ==, state);
      if (r->optimizer_step != G_MAXUINT)
        g_assert_cmpuint (requested_at (run, r->optimizer_step, GML_CATEGORY_OPTIMIZER_STATE), ==,
                          state);
    }
}

/* ZeRO, figure 1 of the paper: Ψ = 7.5 B, K = 12, N = 64:
 *   baseline (2 + 2 + 12)·Ψ            = 120 GB
 *   P_os     (2 + 2 + 12/64)·Ψ         = 31.4 GB
 *   P_os+g   (2 + 14/64)·Ψ             = 16.6 GB
 *   P_os+g+p 16/64·Ψ                   = 1.9 GB */
static void
test_zero_paper (void)
{
  GmlLabConfig c;
  static const double expected[4] = { 120e9, 31.40625e9, 16.640625e9, 1.875e9 };

  gml_lab_config_init (&c);
  c.precision = GML_LAB_AMP_FP16;
  c.optimizer = GML_LAB_ADAM;
  c.gpus = 64;
  for (guint z = 0; z <= 3; z++)
    {
      c.zero = z;
      g_assert_cmpfloat_with_epsilon (gml_lab_bytes_per_parameter (&c) * 7.5e9, expected[z], 1.0);
    }
  gml_lab_config_clear (&c);
}

/* The same sharding through the engine, one GPU of 4, GPT-2 (Ψ/4 = 31,109,952):
 * stage 1 keeps 12 · 31,109,952 = 373,319,424 of optimizer state, stage 2 also
 * 2 · 31,109,952 = 62,219,904 of gradients, stage 3 also 62,219,904 of weights
 * (each layer's weights gathered only while it computes). */
static void
test_zero_engine (void)
{
  for (guint z = 1; z <= 3; z++)
    {
      g_autofree char *args =
          g_strdup_printf ("--model gpt2 --seq 64 --batch 1 --precision amp-bf16 "
                           "--optimizer adam --zero %u --gpus 4", z);
      g_autoptr(GmlLabRun) run = run_args (args);
      const GmlLabResult *r = gml_lab_run_get_result (run);
      guint step = r->optimizer_step;

      g_assert_cmpuint (r->formula.optimizer_state, ==, 373319424);
      g_assert_cmpuint (requested_at (run, step, GML_CATEGORY_OPTIMIZER_STATE), ==, 373319424);
      g_assert_cmpuint (requested_at (run, step, GML_CATEGORY_GRADIENTS), ==,
                        z >= 2 ? 62219904 : 248879616);
      g_assert_cmpuint (requested_at (run, step, GML_CATEGORY_WEIGHTS), ==,
                        z >= 3 ? 62219904 : 248879616);
      g_assert_cmpuint (r->formula.gradients, ==, z >= 2 ? 62219904 : 248879616);
      g_assert_cmpuint (r->formula.weights, ==, z >= 3 ? 62219904 : 248879616);
    }
}

/* The KV cache, Llama 3.2 1B in bf16, batch 2, a prompt of 64 tokens and 16
 * generated: 2 × 16 layers × 80 tokens × 8 heads × 64 × 2 bytes × 2
 * = 5,242,880 bytes at the end. */
static void
test_kv_cache (void)
{
  g_autoptr(GmlLabRun) run =
      run_args ("--model llama-3.2-1b --mode inference --seq 64 --tokens 16 --batch 2 "
                "--precision bf16");
  const GmlLabResult *r = gml_lab_run_get_result (run);
  GmlScenario *sc = gml_lab_run_get_scenario (run);

  g_assert_cmpuint (r->formula.kv_cache, ==, 5242880);
  g_assert_cmpuint (requested_at (run, gml_scenario_get_n_steps (sc) - 1, GML_CATEGORY_KV_CACHE),
                    ==, 5242880);
  /* Here the peak comes while the prompt goes through the last layer (its
   * 32 × 64² attention scores): the cache holds the prompt's 64 tokens then,
   * 2 × 16 × 64 × 8 × 64 × 2 × 2 = 4,194,304 bytes. */
  g_assert_cmpuint (r->by_category[GML_CATEGORY_KV_CACHE], ==, 4194304);
  g_assert_cmpuint (r->by_category[GML_CATEGORY_GRADIENTS], ==, 0);
  g_assert_cmpuint (r->by_category[GML_CATEGORY_OPTIMIZER_STATE], ==, 0);
  /* The weights in bf16: 2 · 1,235,814,400. */
  g_assert_cmpuint (r->by_category[GML_CATEGORY_WEIGHTS], >=, G_GUINT64_CONSTANT (2471628800));
}

/* Rounding (kMinBlockSize = 512): at s = 3, b = 1 a LayerNorm's mean is 12
 * bytes and gets a 512-byte block; a peak includes every such block. */
static void
test_rounding (void)
{
  g_autoptr(GmlLabRun) run = run_args ("--model gpt2 --seq 3 --batch 1 --precision amp-bf16");
  const GmlLabResult *r = gml_lab_run_get_result (run);
  LabelSum mean = activations_with_prefix (run, r->forward_step, "h.0.ln_1 mean");
  guint64 sum = 0;

  g_assert_cmpuint (mean.n, ==, 1);
  g_assert_cmpuint (mean.requested, ==, 12);
  g_assert_cmpuint (mean.size, ==, 512);
  for (guint i = 0; i < GML_N_CATEGORIES; i++)
    sum += r->by_category[i];
  g_assert_cmpuint (sum, ==, r->peak_allocated);
  g_assert_cmpuint (r->requested_at_peak, <, r->peak_allocated);
  g_assert_cmpuint (r->reserved_at_peak, >=, r->peak_allocated);
  g_assert_cmpuint (r->peak_reserved, >=, r->reserved_at_peak);
}

/* Llama 2 7B in fp32 needs 4 · 6,738,415,616 bytes for its weights alone:
 * on an 8 GiB GPU the lab ends where PyTorch would, with its message. */
static void
test_oom (void)
{
  g_autoptr(GmlLabRun) run = run_args ("--model llama-2-7b --batch 1 --seq 512 --gpu-memory 8G");
  const GmlLabResult *r = gml_lab_run_get_result (run);
  GmlScenario *sc = gml_lab_run_get_scenario (run);

  g_assert_false (r->fits);
  g_assert_nonnull (r->oom_message);
  g_assert_true (g_str_has_prefix (r->oom_message, "CUDA out of memory. Tried to allocate "));
  g_assert_nonnull (strstr (r->oom_message, "GPU 0 has a total capacity of 8.00 GiB"));
  g_assert_cmpuint (r->peak_allocated, <=, G_GUINT64_CONSTANT (8) << 30);
  /* What it would need: at least the weights. */
  g_assert_cmpuint (r->needed_allocated, >=, 4 * G_GUINT64_CONSTANT (6738415616));
  /* The picture ends on the step that failed, with the same message. */
  g_assert_cmpstr (gml_scenario_get_step (sc, r->peak_step)->oom_message, ==, r->oom_message);
}

/* The same step with expandable_segments:True: one segment per pool grows, so
 * the peak has fewer segments (and the allocator's settings are the parser's;
 * see the comment block on expandable segments in src/core/engine/gml-allocator.c). */
static void
test_alloc_conf (void)
{
  g_autoptr(GmlLabRun) fixed = run_args ("--model gpt2 --seq 256 --batch 4 --precision amp-bf16");
  g_autoptr(GmlLabRun) grow = run_args ("--model gpt2 --seq 256 --batch 4 --precision amp-bf16 "
                                        "--alloc-conf expandable_segments:True");
  GmlLabConfig c;
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (gml_lab_run_get_result (grow)->segments_at_peak, <,
                    gml_lab_run_get_result (fixed)->segments_at_peak);
  /* In an expandable segment any remainder of 512 bytes or more is split off
   * (should_split()), so no block is handed out whole: less allocated, and
   * less reserved. */
  g_assert_cmpuint (gml_lab_run_get_result (grow)->peak_allocated, <,
                    gml_lab_run_get_result (fixed)->peak_allocated);
  g_assert_cmpuint (gml_lab_run_get_result (grow)->peak_reserved, <,
                    gml_lab_run_get_result (fixed)->peak_reserved);

  gml_lab_config_init (&c);
  g_assert_true (gml_lab_config_set (&c, "alloc-conf",
                                     "max_split_size_mb:128,roundup_power2_divisions:4",
                                     &error));
  g_assert_cmpuint (c.conf.max_split_size, ==, 128 << 20);
  g_assert_false (gml_lab_config_set (&c, "alloc-conf", "max_split_size_mb:banana", &error));
  g_assert_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID);
  gml_lab_config_clear (&c);
}

/* Accumulation: a micro-batch's activations, and from the second micro-step on
 * the gradients through the forward pass. */
static void
test_accumulation (void)
{
  g_autoptr(GmlLabRun) whole = run_args ("--model gpt2 --seq 256 --batch 8 --precision amp-bf16");
  g_autoptr(GmlLabRun) split =
      run_args ("--model gpt2 --seq 256 --batch 2 --accumulation 4 --precision amp-bf16");
  const GmlLabResult *r = gml_lab_run_get_result (split);

  g_assert_cmpuint (r->peak_allocated, <, gml_lab_run_get_result (whole)->peak_allocated);
  g_assert_cmpuint (r->simulated_micro_steps, ==, 4);
  /* The peak is in a later micro-step's forward or loss, with the gradients there. */
  g_assert_cmpuint (r->by_category[GML_CATEGORY_GRADIENTS], >=, 248879616);
}

/* The largest batch that fits: it fits, one more does not. */
static void
test_max_batch (void)
{
  GmlLabConfig c;
  g_autoptr(GError) error = NULL;
  guint max = 0, probes = 0;

  config_from (&c, "--model gpt2 --seq 512 --precision amp-bf16 --gpu-memory 8G");
  g_assert_true (gml_lab_find_max_batch (&c, GML_LAB_MAX_BATCH_SEARCH, &max, &probes, NULL,
                                         &error));
  g_assert_no_error (error);
  g_assert_cmpuint (max, >, 0);
  g_assert_cmpuint (probes, <, 30);
  for (guint b = max; b <= max + 1; b++)
    {
      g_autoptr(GmlLabRun) run = NULL;

      c.batch = b;
      run = gml_lab_run_new (&c, GML_LAB_RUN_QUICK, &error);
      g_assert_no_error (error);
      g_assert_cmpint (gml_lab_run_get_result (run)->fits, ==, b == max);
    }
  gml_lab_config_clear (&c);
}

static void
test_bad_values (void)
{
  static const char *bad[][2] = {
    { "batch", "0" }, { "batch", "-3" }, { "batch", "eight" }, { "batch", "70000" },
    { "model", "gpt3" }, { "mode", "eval" }, { "precision", "fp8" }, { "optimizer", "lion" },
    { "checkpointing", "every-0" }, { "checkpointing", "every" }, { "zero", "4" },
    { "gpus", "0" }, { "gpu-memory", "3x" }, { "gpu-memory", "32M" }, { "gpu-memory", "1000G" },
    { "layers", "0" }, { "hidden", "" }, { "tokens", "99999" }, { "nonsense", "1" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GmlLabConfig c;
      g_autoptr(GError) error = NULL;

      gml_lab_config_init (&c);
      g_assert_false (gml_lab_config_set (&c, bad[i][0], bad[i][1], &error));
      g_assert_error (error, GML_LAB_ERROR, GML_LAB_ERROR_INVALID);
      gml_lab_config_clear (&c);
    }

  /* Knobs that do not go together. */
  {
    static const char *together[] = {
      "--model gpt2 --seq 2048",
      "--model gpt2 --heads 7",
      "--zero 2 --gpus 1",
      "--mode inference --accumulation 2",
      "--model mlp --mode inference",
      "--model gpt2 --checkpointing every-13",
    };

    for (guint i = 0; i < G_N_ELEMENTS (together); i++)
      {
        GmlLabConfig c;
        g_autoptr(GError) error = NULL;

        gml_lab_config_init (&c);
        g_assert_true (gml_lab_config_parse_args (&c, together[i], NULL));
        g_assert_false (gml_lab_config_check (&c, &error));
        g_assert_nonnull (error);
        g_assert_null (gml_lab_run_new (&c, GML_LAB_RUN_DEFAULT, NULL));
        gml_lab_config_clear (&c);
      }
  }
}

static void
test_args_round_trip (void)
{
  static const char *args[] = {
    "--model gpt2 --seq 1024 --batch 8 --precision fp32 --optimizer adamw --gpu-memory 24G",
    "--model llama-2-7b --layers 8 --hidden 1024 --heads 16 --ffn 2752 --vocab 32000 --seq 512 "
    "--batch 2 "
      "--precision amp-bf16 --optimizer adam --checkpointing every-2 --accumulation 4 --zero 2 "
      "--gpus 8 --gpu-memory 40G --alloc-conf expandable_segments:True",
    "--model llama-3.2-1b --seq 128 --batch 4 --mode inference --tokens 64 --precision bf16 "
    "--gpu-memory 16G",
    "--model mlp --layers 4 --hidden 2048 --vocab 10 --batch 64 --precision fp32 --optimizer sgd "
    "--gpu-memory 8G",
  };

  for (guint i = 0; i < G_N_ELEMENTS (args); i++)
    {
      GmlLabConfig a, b;
      g_autofree char *text = NULL;

      config_from (&a, args[i]);
      text = gml_lab_config_to_args (&a);
      g_assert_cmpstr (text, ==, args[i]);
      config_from (&b, text);
      g_assert_true (gml_lab_config_equal (&a, &b));
      g_assert_cmpuint (gml_lab_count_parameters (&a), ==, gml_lab_count_parameters (&b));
      gml_lab_config_clear (&a);
      gml_lab_config_clear (&b);
    }
}

/* Every picture works on the lab's scenario: a memory map at the peak, steps
 * in trace order, the peak's step equal to the result. */
static void
test_scenario (void)
{
  g_autoptr(GmlLabRun) run = run_args ("--model gpt2 --seq 128 --batch 2");
  GmlScenario *sc = gml_lab_run_get_scenario (run);
  const GmlLabResult *r = gml_lab_run_get_result (run);
  const GmlScenarioStep *peak;

  g_assert_cmpuint (gml_scenario_get_focus_step (sc), ==, r->peak_step);
  peak = gml_scenario_get_step (sc, r->peak_step);
  g_assert_cmpuint (peak->stats.allocated_bytes[GML_STAT_ALL].current, ==,
                    r->by_category[GML_CATEGORY_WEIGHTS]
                    + r->by_category[GML_CATEGORY_ACTIVATIONS] + r->by_category[GML_CATEGORY_GRADIENTS]
                    + r->by_category[GML_CATEGORY_OPTIMIZER_STATE] + r->by_category[GML_CATEGORY_TEMPORARY]
                    + r->by_category[GML_CATEGORY_KV_CACHE]);
  for (guint i = 1; i < gml_scenario_get_n_steps (sc); i++)
    g_assert_cmpuint (gml_scenario_get_step (sc, i - 1)->n_events, <=,
                      gml_scenario_get_step (sc, i)->n_events);
  g_assert_true (gml_scenario_has_view (sc, GML_VIEW_MEMORY_MAP));
  g_assert_true (gml_scenario_has_view (sc, GML_VIEW_TIMELINE));
  g_assert_cmpuint (gml_scenario_get_capacity (sc), ==, G_GUINT64_CONSTANT (24) << 30);
}

/* The first step (--step first): torch.optim creates Adam's exp_avg and
 * exp_avg_sq at the first optimizer.step() (torch/optim/adam.py, _init_group:
 * "Lazy state initialization"), so the optimizer holds nothing before it.
 *
 * The classroom MLP (784 → 2048 → 2048 → 2048 → 2048 → 10, P = 14,217,226
 * parameters), fp32, Adam, batch 8: at the first optimizer.step() the weights
 * (4P), the gradients (4P), the new moments (8P) and foreach Adam's √exp_avg_sq
 * temporaries (4P) are allocated at once, 20P = 284,344,520 bytes requested —
 * the step's peak, as high as the steady step's, whose optimizer.step() holds
 * the same tensors. Plain SGD keeps no state: both steps are alike. GPT-2 at
 * seq 1024, batch 8 peaks in the backward pass, where the steady step also
 * holds the moments: the first step's peak is lower by about 8 × 124 M bytes. */
static void
test_first_step (void)
{
  const guint64 P = 14217226;
  g_autoptr(GmlLabRun) first = run_args ("--model mlp --batch 8 --optimizer adam --step first");
  g_autoptr(GmlLabRun) steady = run_args ("--model mlp --batch 8 --optimizer adam");
  const GmlLabResult *f = gml_lab_run_get_result (first);
  const GmlLabResult *s = gml_lab_run_get_result (steady);
  GmlScenario *sc = gml_lab_run_get_scenario (first);
  g_autofree char *args = gml_lab_config_to_args (gml_lab_run_get_config (first));
  g_autofree char *steady_args = gml_lab_config_to_args (gml_lab_run_get_config (steady));

  g_assert_nonnull (strstr (args, " --step first"));
  g_assert_null (strstr (steady_args, "--step"));
  g_assert_null (s->step_difference);

  /* No state before optimizer.step(); all of it after. */
  g_assert_cmpuint (f->forward_step, !=, G_MAXUINT);
  g_assert_cmpuint (f->optimizer_step, !=, G_MAXUINT);
  g_assert_cmpuint (requested_at (first, f->forward_step, GML_CATEGORY_OPTIMIZER_STATE), ==, 0);
  /* The peak's step is inserted just before optimizer.step()'s: the one
   * before it ends the backward pass. */
  g_assert_cmpuint (f->peak_step + 1, ==, f->optimizer_step);
  g_assert_cmpuint (requested_at (first, f->peak_step - 1, GML_CATEGORY_OPTIMIZER_STATE), ==, 0);
  g_assert_cmpuint (requested_at (first, f->peak_step - 1, GML_CATEGORY_GRADIENTS), ==, 4 * P);
  g_assert_cmpuint (requested_at (first, f->peak_step, GML_CATEGORY_OPTIMIZER_STATE), ==, 8 * P);
  g_assert_cmpuint (requested_at (first, f->optimizer_step, GML_CATEGORY_OPTIMIZER_STATE), ==,
                    8 * P);
  /* The steady step's forward pass already holds the moments. */
  g_assert_cmpuint (requested_at (steady, s->forward_step, GML_CATEGORY_OPTIMIZER_STATE), ==,
                    8 * P);

  /* The picture ends after the first step. */
  g_assert_null (strstr (gml_scenario_get_step (sc, gml_scenario_get_n_steps (sc) - 1)->caption,
                         "Step 2"));
  g_assert_cmpuint (f->n_events, <, s->n_events);

  /* The peak: at the first optimizer.step(), 20P requested, as high as the steady step's. */
  g_assert_cmpuint (f->requested_at_peak, ==, 20 * P);
  g_assert_cmpstr (f->peak_at, ==, "in step 1, during optimizer.step()");
  g_assert_cmpuint (f->peak_allocated, ==, s->peak_allocated);
  g_assert_cmpuint (f->steady_peak_allocated, ==, s->peak_allocated);
  g_assert_cmpuint (f->by_category[GML_CATEGORY_OPTIMIZER_STATE], ==,
                    s->by_category[GML_CATEGORY_OPTIMIZER_STATE]);
  g_assert_nonnull (f->step_difference);
  g_assert_true (g_str_has_prefix (f->step_difference,
                                   "The first step peaks as high as the steady step"));

  /* GPT-2: the first step's peak is in the backward pass, without the moments. */
  {
    g_autoptr(GmlLabRun) g1 =
        run_args ("--model gpt2 --seq 1024 --batch 8 --optimizer adamw --step first");
    g_autoptr(GmlLabRun) g2 = run_args ("--model gpt2 --seq 1024 --batch 8 --optimizer adamw");
    const GmlLabResult *r1 = gml_lab_run_get_result (g1);
    const GmlLabResult *r2 = gml_lab_run_get_result (g2);

    g_assert_true (r1->fits);
    g_assert_cmpuint (r1->by_category[GML_CATEGORY_OPTIMIZER_STATE], ==, 0);
    g_assert_cmpuint (requested_at (g2, r2->peak_step, GML_CATEGORY_OPTIMIZER_STATE), ==,
                      r2->formula.optimizer_state);
    g_assert_cmpuint (requested_at (g1, r1->peak_step, GML_CATEGORY_OPTIMIZER_STATE), ==, 0);
    g_assert_cmpuint (r1->peak_allocated, <, r2->peak_allocated);
    g_assert_cmpuint (r1->steady_peak_allocated, ==, r2->peak_allocated);
    g_assert_cmpuint (r2->peak_allocated - r1->peak_allocated, >=, r2->formula.optimizer_state);
    g_assert_nonnull (strstr (r1->peak_at, "in step 1, during the backward pass"));
    g_assert_true (g_str_has_prefix (r1->step_difference, "The first step peaks at "));
    g_assert_nonnull (strstr (r1->step_difference, "less than the steady step’s"));
  }

  /* Plain SGD: no state, the same peak. */
  {
    g_autoptr(GmlLabRun) g1 = run_args ("--model mlp --batch 8 --optimizer sgd --step first");
    g_autoptr(GmlLabRun) g2 = run_args ("--model mlp --batch 8 --optimizer sgd");

    g_assert_cmpuint (gml_lab_run_get_result (g1)->peak_allocated, ==,
                      gml_lab_run_get_result (g2)->peak_allocated);
    g_assert_true (g_str_has_prefix (gml_lab_run_get_result (g1)->step_difference,
                                     "Plain SGD keeps no optimizer state"));
  }
}

/* A picture's title says the knobs in words, in the lab's language: never the
 * command line. */
static void
test_describe (void)
{
  GmlLabConfig c;
  g_autofree char *infer = NULL;
  g_autofree char *train = NULL;
  g_autofree char *tr = NULL;
  g_autoptr(GmlLabRun) run = NULL;

  config_from (&c, "--model llama-2-7b --seq 2048 --batch 8 --mode inference --tokens 2048 "
                   "--precision bf16 --gpu-memory 80G");
  infer = gml_lab_config_describe (&c);
  g_assert_cmpstr (infer, ==,
                   "llama-2-7b inference, batch 8, 2,048 + 2,048 tokens, bf16, 80 GiB GPU");
  gml_lab_config_clear (&c);

  config_from (&c, "--model gpt2 --seq 1024 --batch 4 --precision amp-bf16 --optimizer momentum "
                   "--accumulation 4 --gpu-memory 24G");
  train = gml_lab_config_describe (&c);
  g_assert_cmpstr (train, ==, "gpt2 training, batch 4, 1,024 tokens, amp-bf16, SGD with momentum, "
                              "4 micro-steps, 24 GiB GPU");
  gml_i18n_set_language ("tr");
  tr = gml_lab_config_describe (&c);
  gml_i18n_set_language ("en");
  g_assert_nonnull (strstr (tr, "1.024"));
  g_assert_null (strstr (tr, "training"));
  gml_lab_config_clear (&c);

  /* The picture's title is that sentence. */
  run = run_args ("--model mlp --batch 8 --optimizer sgd");
  g_assert_null (strstr (gml_scenario_get_title (gml_lab_run_get_scenario (run)), "--"));
  g_assert_true (g_str_has_prefix (gml_scenario_get_title (gml_lab_run_get_scenario (run)),
                                   "mlp training, batch 8"));
}

/* A/B names each knob that changed once, and what the change did. */
static void
test_difference (void)
{
  g_autoptr(GmlLabRun) a = run_args ("--model gpt2 --seq 256 --batch 4 --precision amp-bf16");
  g_autoptr(GmlLabRun) b = run_args ("--model gpt2 --seq 256 --batch 4 --precision amp-bf16 "
                                     "--checkpointing every-2");
  g_autoptr(GmlLabRun) same = run_args ("--model gpt2 --seq 256 --batch 4 --precision amp-bf16");
  g_autofree char *text = gml_lab_describe_difference (a, b);
  g_autofree char *none = gml_lab_describe_difference (a, same);

  g_assert_nonnull (strstr (text, "--checkpointing — → every-2"));
  g_assert_null (strstr (strstr (text, "--checkpointing") + 1, "--checkpointing"));
  g_assert_null (strstr (text, "--batch"));
  g_assert_nonnull (strstr (text, "Activations"));
  g_assert_nonnull (strstr (text, "Recomputation: 0 % → 33 % more compute."));
  g_assert_true (g_str_has_prefix (none, "A and B have the same knobs."));

  /* Percent changes carry their sign apart from the number: "(−33 %)", and in
   * Turkish, which writes the percent sign first, "(−%33)", never "%-33". */
  {
    g_autofree char *fewer = gml_lab_describe_difference (b, a);
    g_autofree char *tr = NULL;

    g_assert_nonnull (strstr (text, " %)"));
    g_assert_null (strstr (text, "(-"));
    g_assert_nonnull (strstr (fewer, "(+"));
    gml_i18n_set_language ("tr");
    tr = gml_lab_describe_difference (a, b);
    gml_i18n_set_language ("en");
    g_assert_nonnull (strstr (tr, "(−%"));
    g_assert_null (strstr (tr, "%-"));
    g_assert_null (strstr (tr, "%+"));
  }
}

/* The live run's scale: the smallest power of two that brings the GPU into what
 * the lab may have, none past 1/1024; and a simulated GPU is never live. */
static void
test_live_scale (void)
{
  const guint64 mib = G_GUINT64_CONSTANT (1) << 20, gib = mib << 10;
  g_autoptr(GmlDevice) sim = gml_device_sim_new (gib, 0);
  g_autoptr(GError) error = NULL;
  GmlLabConfig config;
  GmlLabLive live;

  g_assert_cmpuint (gml_lab_live_scale (8 * gib, 8 * gib), ==, 1);
  g_assert_cmpuint (gml_lab_live_scale (8 * gib + 1, 8 * gib), ==, 2);
  g_assert_cmpuint (gml_lab_live_scale (80 * gib, gib), ==, 128);
  g_assert_cmpuint (gml_lab_live_scale (24 * gib, gib), ==, 32);
  g_assert_cmpuint (gml_lab_live_scale (141 * gib, 141 * mib), ==, 1024);
  g_assert_cmpuint (gml_lab_live_scale (141 * gib, 140 * mib), ==, 0);
  g_assert_cmpuint (gml_lab_live_scale (8 * gib, 0), ==, 0);

  gml_lab_config_init (&config);
  g_assert_false (gml_lab_run_live (&config, sim, &live, &error));
  g_assert_error (error, GML_LAB_ERROR, GML_LAB_ERROR_NOT_LIVE);
  g_assert_null (live.device_name);
  gml_lab_config_clear (&config);
}

int
main (int    argc,
      char **argv)
{
  gml_test_set_locale (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  gml_i18n_init ();
  gml_i18n_set_language ("en");

  g_test_add_func ("/lab/parameters", test_parameters);
  g_test_add_func ("/lab/korthikanti", test_korthikanti);
  g_test_add_func ("/lab/activations/gpt2", test_activations_gpt2);
  g_test_add_func ("/lab/activations/fp32", test_activations_fp32);
  g_test_add_func ("/lab/activations/llama", test_activations_llama);
  g_test_add_func ("/lab/checkpointing", test_checkpointing);
  g_test_add_func ("/lab/model-state/mixed-adam", test_model_state_mixed_adam);
  g_test_add_func ("/lab/optimizers", test_optimizers);
  g_test_add_func ("/lab/zero/paper", test_zero_paper);
  g_test_add_func ("/lab/zero/engine", test_zero_engine);
  g_test_add_func ("/lab/kv-cache", test_kv_cache);
  g_test_add_func ("/lab/rounding", test_rounding);
  g_test_add_func ("/lab/oom", test_oom);
  g_test_add_func ("/lab/alloc-conf", test_alloc_conf);
  g_test_add_func ("/lab/accumulation", test_accumulation);
  g_test_add_func ("/lab/max-batch", test_max_batch);
  g_test_add_func ("/lab/bad-values", test_bad_values);
  g_test_add_func ("/lab/args-round-trip", test_args_round_trip);
  g_test_add_func ("/lab/scenario", test_scenario);
  g_test_add_func ("/lab/describe", test_describe);
  g_test_add_func ("/lab/difference", test_difference);
  g_test_add_func ("/lab/first-step", test_first_step);
  g_test_add_func ("/lab/live-scale", test_live_scale);

  return g_test_run ();
}

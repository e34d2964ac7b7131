/* gml-lab.h — the experiment lab: one training or inference step, knobs in,
 * allocations out, run through the caching allocator.
 *
 * A configuration (a model's shape, the batch, the precision, the optimizer,
 * checkpointing, accumulation, ZeRO, the GPU) is turned into the sequence of
 * tensor allocations and frees a PyTorch program makes in that step, and that
 * sequence runs through GmlAllocator on a simulated GPU of the chosen size. The
 * result is the engine's: peaks include the 512-byte rounding, the segments and
 * the cached blocks, and a configuration that does not fit ends with the
 * out-of-memory message PyTorch prints. The closed-form formulas the lab is
 * compared with (Korthikanti et al. 2022 for activations, Rajbhandari et al.
 * 2020 for ZeRO, the KV cache) are here too, computed independently.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "gml-allocator.h"
#include "gml-scenario.h"

G_BEGIN_DECLS

#define GML_LAB_ERROR (gml_lab_error_quark ())

typedef enum
{
  GML_LAB_ERROR_INVALID,       /* a knob out of range or knobs that do not go together */
  GML_LAB_ERROR_TOO_LARGE,     /* more allocations than the lab simulates at once */
  GML_LAB_ERROR_DEVICE,        /* the simulated device failed (should not happen) */
  GML_LAB_ERROR_NOT_LIVE,      /* a live run on a device that is not a GPU, or one too full */
} GmlLabError;

typedef enum
{
  GML_LAB_ARCH_GPT2,           /* the block of GPT-2 and of Korthikanti et al.: LayerNorm,
                                * GELU MLP, dropout, learned positions */
  GML_LAB_ARCH_LLAMA,          /* RMSNorm, SwiGLU MLP, RoPE, no dropout, grouped-query K/V */
  GML_LAB_ARCH_MLP,            /* Linear + ReLU layers, for the classroom */
} GmlLabArch;

typedef enum
{
  GML_LAB_TRAIN,
  GML_LAB_INFERENCE,
} GmlLabMode;

typedef enum
{
  GML_LAB_FP32,                /* fp32 weights, gradients, optimizer state and activations */
  GML_LAB_AMP_FP16,            /* mixed precision: 16-bit weights, gradients and activations,
                                * fp32 master weights and optimizer state */
  GML_LAB_AMP_BF16,
  GML_LAB_BF16,                /* everything in bf16, the optimizer's state too */
  GML_LAB_AUTOCAST_FP16,       /* PyTorch's torch.autocast: fp32 weights, gradients and
                                * optimizer state; 16-bit activations and, for as long as
                                * the backward pass needs them, 16-bit copies of the weights */
  GML_LAB_AUTOCAST_BF16,
  GML_LAB_N_PRECISIONS
} GmlLabPrecision;

typedef enum
{
  GML_LAB_SGD,
  GML_LAB_MOMENTUM,
  GML_LAB_ADAM,
  GML_LAB_ADAMW,
  GML_LAB_N_OPTIMIZERS
} GmlLabOptimizer;

typedef enum
{
  GML_LAB_CHECKPOINT_NONE,
  GML_LAB_CHECKPOINT_EVERY,    /* torch.utils.checkpoint around every group of K layers */
  GML_LAB_CHECKPOINT_SQRT,     /* groups of ⌈√L⌉ layers (Chen et al. 2016) */
} GmlLabCheckpointing;

/* Which training step the lab reports. */
typedef enum
{
  GML_LAB_STEP_STEADY,         /* the step after the first: the optimizer's state exists */
  GML_LAB_STEP_FIRST,          /* the first step: the state is created at its optimizer.step() */
} GmlLabStep;

/* The knobs. Plain data: copy with gml_lab_config_copy(), which copies the
 * allocator settings' text too. */
typedef struct
{
  const char         *model;          /* "gpt2", "llama-3.2-1b", "llama-2-7b", "mlp" or "custom" */
  const char         *base;           /* the preset a custom shape started from */
  GmlLabArch          arch;
  guint               layers;
  guint64             hidden;
  guint               heads;
  guint               kv_heads;       /* grouped-query attention: key/value heads */
  guint64             ffn;
  guint64             seq;            /* sequence length (inference: the prompt) */
  guint64             vocab;          /* the MLP: classes */
  guint64             context;        /* positions the model knows (GPT-2: 1024) */
  guint64             inputs;         /* the MLP's input features */
  gboolean            tied;           /* the output layer shares the embedding's weights */
  guint               batch;          /* per GPU, per micro-step */
  GmlLabMode          mode;
  guint               tokens;         /* inference: tokens generated after the prompt */
  GmlLabPrecision     precision;
  GmlLabOptimizer     optimizer;
  GmlLabStep          step;           /* training: the steady step (default) or the first */
  GmlLabCheckpointing checkpointing;
  guint               checkpoint_every;
  guint               accumulation;   /* micro-steps per optimizer step */
  guint               zero;           /* ZeRO stage 0–3 */
  guint               gpus;
  guint64             gpu_memory;     /* the GPU's total memory, bytes */
  char               *alloc_conf;     /* PYTORCH_CUDA_ALLOC_CONF text, or NULL */
  GmlAllocConf        conf;           /* parsed from alloc_conf */
} GmlLabConfig;

/* The closed-form figures the engine's run is compared with, on one GPU, in
 * bytes. Model state follows the ZeRO paper's sharding; activations are the
 * sum of the tensors the lab keeps for the backward pass (the same list the
 * step allocates), and for the GPT-2 block in 16-bit without checkpointing
 * they equal Korthikanti et al.'s s·b·h·(34 + 5·a·s/h) per layer. */
typedef struct
{
  guint64 parameters;
  guint64 weights;
  guint64 gradients;
  guint64 optimizer_state;
  guint64 activations;               /* kept for backward at the end of the forward pass */
  guint64 activations_per_layer;     /* the lab's tensors for one layer */
  guint64 korthikanti_per_layer;     /* s·b·h·(34 + 5·a·s/h); 0 for the MLP */
  guint64 kv_cache;                  /* 2 × layers × tokens × kv-heads × head-dim × bytes × batch */
} GmlLabFormula;

typedef struct
{
  guint64   parameters;
  gboolean  fits;
  char     *oom_message;             /* PyTorch's text, or NULL */
  guint64   oom_request;             /* the request that failed */
  guint64   peak_allocated;          /* max_memory_allocated() over the run */
  guint64   peak_reserved;           /* max_memory_reserved() over the run */
  guint64   by_category[GML_N_CATEGORIES]; /* allocated bytes at the steady-state peak
                                            * (out of memory: where it ran out) */
  guint64   allocated_at_peak;       /* memory_allocated() at that peak (out of memory: at the
                                      * error) */
  guint64   requested_at_peak;       /* what the program asked for, at that peak */
  guint64   reserved_at_peak;
  guint64   inactive_split_at_peak;
  guint64   largest_free_at_peak;
  guint     segments_at_peak;
  char     *peak_at;                 /* translated: "step 2, backward of layer 3" */
  double    extra_compute;           /* recomputed forward work / step's work (backward = 2 forward)
                                      */
  guint     simulated_micro_steps;   /* micro-steps run per step (at most 16) */
  guint64   n_events;                /* trace events of the run */
  guint64   needed_allocated;        /* when it does not fit: the peaks on a GPU large enough */
  guint64   needed_reserved;         /* (0: more than the lab simulates) */
  /* Steps of the scenario (G_MAXUINT in quick runs): the peak (or the out of
   * memory), the end of the steady-state step's first forward pass, and its
   * optimizer.step(). */
  guint     peak_step;
  guint     forward_step;
  guint     optimizer_step;
  /* The first step (--step first): the steady step's peaks from a run of the
   * same knobs, and one translated sentence on the difference (else 0, NULL). */
  gboolean  steady_fits;
  guint64   steady_peak_allocated;
  guint64   steady_peak_reserved;
  char     *step_difference;
  GmlLabFormula formula;
} GmlLabResult;

typedef struct _GmlLabRun GmlLabRun;

typedef enum
{
  GML_LAB_RUN_DEFAULT = 0,
  GML_LAB_RUN_QUICK   = 1 << 0,      /* no steps or captions: the result only (max-batch search) */
} GmlLabRunFlags;

/* The largest batch find-max-batch tries. */
#define GML_LAB_MAX_BATCH_SEARCH 65536

GQuark              gml_lab_error_quark        (void);
/* Translated: "Weights", "Optimizer state", "KV cache". */
const char         *gml_lab_category_name      (GmlCategory      category);

/* NULL-terminated preset names. */
const char * const *gml_lab_model_names        (void);
const char         *gml_lab_precision_to_string (GmlLabPrecision  precision);
const char         *gml_lab_optimizer_to_string (GmlLabOptimizer  optimizer);
/* "steady" or "first". */
const char         *gml_lab_step_to_string     (GmlLabStep       step);
/* "none", "every-2", "sqrt" (a new string). */
char               *gml_lab_checkpointing_to_string (const GmlLabConfig *config);
/* The GPU sizes offered: 8, 12, 16, 24, 40, 48, 80 and 141 GiB. */
const guint        *gml_lab_gpu_presets        (guint           *n_presets);

/* The defaults: gpt2, batch 8, training, fp32, AdamW, 24 GiB. */
void                gml_lab_config_init        (GmlLabConfig       *config);
void                gml_lab_config_clear       (GmlLabConfig       *config);
void                gml_lab_config_copy        (GmlLabConfig       *dest,
                                                const GmlLabConfig *src);
gboolean            gml_lab_config_equal       (const GmlLabConfig *a,
                                                const GmlLabConfig *b);
/* Loads a preset's shape (and its sequence length). */
gboolean            gml_lab_config_set_model   (GmlLabConfig       *config,
                                                const char         *model);
/* Sets one knob from its command-line spelling: "batch" "8", "precision"
 * "amp-bf16", "checkpointing" "every-2", "step" "first", "gpu-memory" "80G",
 * "alloc-conf" "…".
 * Errors are translated and name the knob and the value. Shape knobs (layers,
 * hidden, heads, ffn, vocab) make the model "custom". */
gboolean            gml_lab_config_set         (GmlLabConfig       *config,
                                                const char         *knob,
                                                const char         *value,
                                                GError            **error);
/* Knobs that do not go together, and sizes the lab cannot simulate. */
gboolean            gml_lab_config_check       (const GmlLabConfig *config,
                                                GError            **error);
/* "--model gpt2 --batch 8 …": the command line that gives this configuration. */
char               *gml_lab_config_to_args     (const GmlLabConfig *config);
/* The knobs in words, for a picture's title: "llama-2-7b inference, batch 8,
 * 2,048 + 2,048 tokens, bf16, 80 GiB GPU". */
char               *gml_lab_config_describe    (const GmlLabConfig *config);
/* Parses what gml_lab_config_to_args() writes (and any subset of it). */
gboolean            gml_lab_config_parse_args  (GmlLabConfig       *config,
                                                const char         *args,
                                                GError            **error);

/* The formulas (no engine). */
guint64             gml_lab_count_parameters   (const GmlLabConfig *config);
void                gml_lab_formula            (const GmlLabConfig *config,
                                                GmlLabFormula      *formula);
/* Korthikanti et al. 2022, eq. (1): s·b·h·(34 + 5·a·s/h) bytes per layer. */
guint64             gml_lab_korthikanti_per_layer (guint64 seq,
                                                   guint64 batch,
                                                   guint64 hidden,
                                                   guint64 heads);
/* Bytes per parameter of weights, gradients and optimizer state on one GPU,
 * with ZeRO stage @zero over @gpus (Rajbhandari et al. 2020, figure 1). */
double              gml_lab_bytes_per_parameter (const GmlLabConfig *config);

/* Runs the step through the engine. The run owns its simulated GPU and the
 * scenario (every picture works on it); QUICK runs have one step only. */
GmlLabRun          *gml_lab_run_new            (const GmlLabConfig *config,
                                                GmlLabRunFlags      flags,
                                                GError            **error);
/* The same, stopped within a thousand allocations once @cancellable is
 * cancelled (G_IO_ERROR_CANCELLED): the window's superseded and abandoned runs. */
GmlLabRun          *gml_lab_run_new_cancellable (const GmlLabConfig *config,
                                                 GmlLabRunFlags      flags,
                                                 GCancellable       *cancellable,
                                                 GError            **error);
/* The same, saying how far it is: *@progress (or NULL) goes up towards 1000,
 * per mille, as an inference run's tokens are generated, and can be read from
 * another thread with g_atomic_int_get() while it runs (the window's "Running…
 * 40 %"). Training steps take milliseconds and say nothing until they end. */
GmlLabRun          *gml_lab_run_new_full       (const GmlLabConfig *config,
                                                GmlLabRunFlags      flags,
                                                GCancellable       *cancellable,
                                                gint               *progress,
                                                GError            **error);
/* A run is immutable once made and reference-counted: _free() drops a reference. */
GmlLabRun          *gml_lab_run_ref            (GmlLabRun          *self);
void                gml_lab_run_free           (GmlLabRun          *self);
const GmlLabResult *gml_lab_run_get_result     (GmlLabRun          *self);
GmlScenario        *gml_lab_run_get_scenario   (GmlLabRun          *self);
const GmlLabConfig *gml_lab_run_get_config     (GmlLabRun          *self);
/* Translated sentences: where the engine differs from the formulas, and why. */
GPtrArray          *gml_lab_run_dup_notes      (GmlLabRun          *self);

/* Translated: which knobs differ from A to B and what the difference did (the
 * peaks, the categories that changed, recomputation, whether it fits). */
char               *gml_lab_describe_difference (GmlLabRun         *a,
                                                 GmlLabRun         *b);

/* The largest batch that fits, searched through the engine (doubling, then
 * bisection), 0 when batch 1 does not fit. @probes (may be NULL) receives the
 * number of runs. */
gboolean            gml_lab_find_max_batch     (const GmlLabConfig *config,
                                                guint               limit,
                                                guint              *max_batch,
                                                guint              *probes,
                                                GCancellable       *cancellable,
                                                GError            **error);

/* A live run: the same step on a real GPU, within what the lab may hold there.
 * A step for an 80 GiB GPU does not fit in the lab's share of this one, so every
 * tensor is divided by @scale (a power of two) and the step runs on a share of
 * the GPU that is the chosen GPU's memory divided by the same: the caching
 * allocator's segments are then real cuMemAlloc calls. The same scaled step
 * runs on the simulator too; on a GPU that gives what it is asked for, the two
 * must agree to the byte, and the memory the driver gave at the peak must be
 * the reserved peak. At a large scale the 512-byte rounding and the 2 MiB
 * segments weigh more than at full size: the live figures are to be compared
 * with the simulator's at the same scale, not with the full-size run. */
typedef struct
{
  char     *device_name;             /* the GPU it ran on */
  guint64   scale;                   /* every tensor divided by this */
  guint64   capacity;                /* the chosen GPU's memory divided by @scale */
  guint64   available;               /* what the lab could have had on the GPU */
  gboolean  fits;
  guint64   peak_allocated;          /* the engine's figures, on the real GPU */
  guint64   peak_reserved;
  guint64   driver_peak;             /* the most the driver had given the run at once */
  char     *oom_message;             /* PyTorch's text when the scaled step does not fit */
  gboolean  sim_fits;                /* the same scaled step on the simulator */
  guint64   sim_peak_allocated;
  guint64   sim_peak_reserved;
  gboolean  agrees;                  /* the live run, the simulator and the driver agree */
} GmlLabLive;

/* The power of two by which a step for a GPU of @gpu_memory is divided to fit
 * in @available bytes, or 0 when even the largest scale the lab uses does not. */
guint64             gml_lab_live_scale         (guint64             gpu_memory,
                                                guint64             available);
gboolean            gml_lab_run_live           (const GmlLabConfig *config,
                                                GmlDevice          *device,
                                                GmlLabLive         *live,
                                                GError            **error);
void                gml_lab_live_clear         (GmlLabLive         *live);
/* Translated, one paragraph: the live run against the simulator at the same scale. */
char               *gml_lab_live_describe      (const GmlLabLive   *live);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlLabRun, gml_lab_run_free)

G_END_DECLS

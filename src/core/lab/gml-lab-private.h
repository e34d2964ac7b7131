/* gml-lab-private.h — what the lab's files share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-lab.h"

G_BEGIN_DECLS

/* What the lab simulates at once. */
#define GML_LAB_MAX_LAYERS        256
#define GML_LAB_MAX_BATCH         65536
#define GML_LAB_MAX_TOKENS        8192
#define GML_LAB_MAX_DECODE_WORK   262144     /* tokens × layers */
#define GML_LAB_MAX_MICRO_STEPS   16         /* simulated per step; the rest repeat */
#define GML_LAB_MIN_GPU_MEMORY    (G_GUINT64_CONSTANT (64) << 20)
#define GML_LAB_MAX_GPU_MEMORY    (G_GUINT64_CONSTANT (256) << 30)
/* A run on a GPU this large says what a configuration that does not fit needs. */
#define GML_LAB_UNBOUNDED_MEMORY  (G_GUINT64_CONSTANT (448) << 30)

#define GML_LAB_LAYER_EMBED  (-1)
#define GML_LAB_LAYER_HEAD   (-2)

/* One parameter tensor (weight and bias together where the lab treats them as one). */
typedef struct
{
  int         layer;          /* 0 … layers − 1, or GML_LAB_LAYER_EMBED / _HEAD */
  const char *name;           /* "attn.c_attn", "wte" */
  guint64     elements;
} GmlLabParam;

void     _gml_lab_param_list        (const GmlLabConfig *config,
                                     GArray             *params);
guint64  _gml_lab_positions         (const GmlLabConfig *config);
/* torch.autocast (not the ZeRO layout's mixed precision). */
gboolean _gml_lab_is_autocast       (const GmlLabConfig *config);
/* Bytes per element of activations (the compute dtype). */
guint64  _gml_lab_dtype_bytes       (const GmlLabConfig *config);
/* Bytes per parameter: the weight, its gradient, the fp32 master copy (mixed
 * precision) and the optimizer's moments. */
void     _gml_lab_state_bytes       (const GmlLabConfig *config,
                                     guint64            *weight,
                                     guint64            *grad,
                                     guint64            *master,
                                     guint64            *state);
guint64  _gml_lab_shard             (guint64             n,
                                     guint               gpus);
guint    _gml_lab_checkpoint_group  (const GmlLabConfig *config);

/* The scenario of a configuration given as knobs, with its simulated GPU: the
 * question experiments' "lab" kind. */
GmlScenario *_gml_lab_scenario_new  (const char         *args,
                                     GError            **error);
/* Whether @args is a configuration the lab runs; *reason (translated) when not. */
gboolean     _gml_lab_check_args    (const char         *args,
                                     char              **reason);

/* One step of @c through the engine on @device, every tensor divided by @scale
 * (live runs; else 1); @quick: no picture steps, as the search runs it. Fills
 * @result (_gml_lab_result_clear() it) and returns the picture. @progress (or
 * NULL) is raised, never lowered, towards 1000 as the run goes (per mille,
 * atomically: another thread reads it). */
GmlScenario *_gml_lab_run_step      (const GmlLabConfig *c,
                                     GmlDevice          *device,
                                     gboolean            quick,
                                     guint64             scale,
                                     GCancellable       *cancellable,
                                     gint               *progress,
                                     GmlLabResult       *result,
                                     GError            **error);
void         _gml_lab_result_clear  (GmlLabResult       *res);

G_END_DECLS

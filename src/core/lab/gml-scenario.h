/* gml-scenario.h — scripted teaching runs that drive the allocator.
 *
 * A scenario runs its whole script once, eagerly, over a fresh GmlAllocator
 * on the device it is given (live CUDA memory or the simulator), and remembers
 * where each step ended in the allocator's trace. Stepping forward, back or
 * restarting is then only gml_trace_state_at(): cheap, and exactly what the
 * engine computed. When the script has run, every block is freed and the cache
 * emptied, so a scenario holds no device memory while it is on screen.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "gml-allocator.h"
#include "gml-device.h"
#include "gml-trace.h"

G_BEGIN_DECLS

/* The simulated device the pictures use when there is no GPU: the same size as
 * the CUDA backend's default budget, so both tell the same story. */
#define GML_SCENARIO_SIM_CAPACITY (G_GUINT64_CONSTANT (1) << 30)

#define GML_SCENARIO_ERROR (gml_scenario_error_quark ())

typedef enum
{
  GML_SCENARIO_ERROR_UNKNOWN,   /* no scenario of that name */
  GML_SCENARIO_ERROR_DEVICE,    /* the device failed for another reason than a full memory */
} GmlScenarioError;

/* The pictures a scenario can be looked at through. */
typedef enum
{
  GML_VIEW_MEMORY_MAP,
  GML_VIEW_FRAGMENTATION,
  GML_VIEW_TIMELINE,
  GML_VIEW_CHECKPOINTING,
  GML_VIEW_COMPARISON,
  GML_N_VIEWS
} GmlView;

/* What a bar of the comparison view is made of: the categories of allocated
 * memory (GmlCategory values), then memory the allocator holds free, memory
 * outside it, and host memory. */
typedef enum
{
  GML_BAR_CACHED = GML_N_CATEGORIES, /* reserved but unallocated: free cached blocks */
  GML_BAR_OTHER,                     /* outside PyTorch's allocator: the CUDA context, others */
  GML_BAR_PINNED,                    /* page-locked host memory */
  GML_BAR_MANAGED,                   /* unified (managed) memory pages */
  GML_BAR_REQUESTED,                 /* what the program asked for */
  GML_BAR_BLOCK,                     /* the block it got (after rounding) */
  GML_BAR_SEGMENT,                   /* the segment asked of the device */
  GML_BAR_DEVICE_FREE,               /* what the device could still give */
  GML_BAR_ALLOCATED,                 /* allocated by PyTorch, whatever the tensors are */
  GML_N_BAR_PARTS
} GmlBarPart;

typedef struct
{
  char       *label;           /* translated: "Batch 32", "GPU 3", "Host RAM" */
  guint       step;            /* measured at this step; drawn empty before it */
  guint       until;           /* last step it stands for; G_MAXUINT: to the end */
  guint64     parts[GML_N_BAR_PARTS]; /* the engine's bytes (not scaled) */
  gboolean    marked;          /* the bar the question is about */
  gboolean    reveal;          /* before the answer, only its total (no breakdown) */
  guint       scale_group;     /* bars of one group share a length scale (0 for most);
                                * a few bytes beside megabytes get a group of their own,
                                * so that 1000 B and 1024 B can be told apart */
} GmlBar;

/* Something the picture outlines when it points at the focus step. */
typedef struct
{
  char       *label;           /* a tensor's label in the focus step's state, or NULL */
  guint64     address;         /* else the block or segment at this address */
  gboolean    segment;         /* outline the whole segment, not only the block */
  char       *text;            /* translated, short, with the numbers */
} GmlMark;

/* A figure the focus step is about (the question's scale). */
typedef struct
{
  char       *name;            /* "memory_reserved", "segment" … (not translated) */
  guint64     bytes;
} GmlKeyFigure;

typedef struct
{
  char       *caption;         /* translated sentence: what this step did */
  gsize       n_events;        /* trace position after the step */
  gboolean    oom;             /* the step's last request ran out of memory */
  gboolean    empty_cache;     /* the step called empty_cache() */
  guint64     request;         /* bytes the step's last allocation asked for, 0 if none */
  char       *oom_message;     /* PyTorch's text when oom, else NULL */
  GmlStats    stats;           /* the engine's figures after the step */
  guint64     largest_free;    /* largest cached free block after the step */
  guint64     device_free;     /* what the device (within the lab's budget) could still give */
  int         strategy;        /* checkpointing: the strategy the step belongs to, else -1 */
  guint       run;             /* the allocator (setting, strategy, GPU) the step ran on */
} GmlScenarioStep;

/* One gradient-checkpointing strategy for the N-layer network. */
typedef struct
{
  char       *name;            /* translated: "No checkpointing", "Every 2 layers", "√N segments" */
  guint       segment;         /* k: a checkpoint every k layers (1 = every activation stored) */
  guint       n_stored;        /* activations kept from the forward pass */
  guint       n_recomputed;    /* activations computed again during the backward pass */
  guint64     peak_bytes;      /* the allocator's peak allocated bytes during this run */
  double      extra_compute;   /* recomputed layer forwards / forward layers */
  guint       first_step;      /* the steps of this run, inclusive */
  guint       last_step;
  GArray     *other;           /* guint64 per step of the run: weights and the rest */
  GArray     *stored;          /* guint64 per step: stored activations (allocated bytes) */
  GArray     *recomputed;      /* guint64 per step: recomputed activations */
  /* Per step of the run, n_layers entries each (index step × n_layers + layer),
   * read from the allocator's blocks labelled with the layer's activation: */
  GArray     *layer_live;      /* guint64: bytes of layer's activation allocated */
  GArray     *layer_recomputed; /* guint8: TRUE when that activation was recomputed */
} GmlCheckpointStrategy;

typedef struct _GmlScenario GmlScenario;

GQuark              gml_scenario_error_quark      (void);

/* NULL-terminated list of scenario names ("oom", "batch-size", …): the kinds of
 * picture script that have a story, in the one table of gml-picture-scripts.c.
 * These four and gml_scenario_new() read it, in gml-picture-script.c. */
const char * const *gml_scenario_names            (void);
gboolean            gml_scenario_name_is_known    (const char    *name);
/* Translated one-line title and the view that shows the point best. */
const char         *gml_scenario_title            (const char    *name);
GmlView             gml_scenario_focus_view       (const char    *name);

const char         *gml_view_to_string            (GmlView        view);
gboolean            gml_view_from_string          (const char    *str,
                                                   GmlView       *view);

/* Runs @name's script on @device (the scenario holds a reference to it). Out of
 * memory is part of the story, not an error; any other device failure is. */
GmlScenario        *gml_scenario_new              (const char    *name,
                                                   GmlDevice     *device,
                                                   GError       **error);
void                gml_scenario_free             (GmlScenario   *self);

const char         *gml_scenario_get_name         (GmlScenario   *self);
guint               gml_scenario_get_n_steps      (GmlScenario   *self);
const GmlScenarioStep *gml_scenario_get_step      (GmlScenario   *self,
                                                   guint          step);
/* The step the question is about (the failure, the comparison). */
guint               gml_scenario_get_focus_step   (GmlScenario   *self);
/* The step shown before answering: the picture script set up, the answer not yet shown. */
guint               gml_scenario_get_setup_step   (GmlScenario   *self);
/* The view that shows the point best, and whether @view shows anything at all. */
GmlView             gml_scenario_get_focus_view   (GmlScenario   *self);
/* The view shown before the answer (the focus view unless that would give it away). */
GmlView             gml_scenario_get_setup_view   (GmlScenario   *self);
gboolean            gml_scenario_has_view         (GmlScenario   *self,
                                                   GmlView        view);
/* Translated one-line title. */
const char         *gml_scenario_get_title        (GmlScenario   *self);
/* The category the focus points at, GML_CATEGORY_NONE for none. */
GmlCategory         gml_scenario_get_focus_category (GmlScenario *self);
/* The trace of the first run; gml_scenario_state_at() picks the step's own. */
GmlTrace           *gml_scenario_get_trace        (GmlScenario   *self);
guint               gml_scenario_get_n_runs       (GmlScenario   *self);
/* Translated name of a run ("bf16", "GPU 2"), or NULL. */
const char         *gml_scenario_get_run_name     (GmlScenario   *self,
                                                   guint          run);
guint64             gml_scenario_get_run_capacity (GmlScenario   *self,
                                                   guint          run);
guint64             gml_scenario_get_run_other_in_use (GmlScenario *self,
                                                       guint        run);
GmlMemState        *gml_scenario_state_at         (GmlScenario   *self,
                                                   guint          step);
void                gml_scenario_state_at_into    (GmlScenario   *self,
                                                   guint          step,
                                                   GmlMemState   *dest);
/* The memory the lab may use: the budget, or the device's total. */
guint64             gml_scenario_get_capacity     (GmlScenario   *self);
guint64             gml_scenario_get_other_in_use (GmlScenario   *self);
const char         *gml_scenario_get_device_name  (GmlScenario   *self);
/* The request that failed (fragmentation, oom, empty-cache), or FALSE. */
gboolean            gml_scenario_get_failed_request (GmlScenario *self,
                                                     guint64     *size,
                                                     guint       *step);

/* The comparison view's bars (none for most scenarios). */
guint               gml_scenario_get_n_bars       (GmlScenario   *self);
const GmlBar       *gml_scenario_get_bar          (GmlScenario   *self,
                                                   guint          index);
/* A translated note on the bars' units or scale, or NULL. */
const char         *gml_scenario_get_bar_note     (GmlScenario   *self);
/* The GPU's memory (engine bytes) the bars are measured against, 0 when none. */
guint64             gml_scenario_get_bar_capacity (GmlScenario   *self);
guint               gml_scenario_get_n_marks      (GmlScenario   *self);
const GmlMark      *gml_scenario_get_mark         (GmlScenario   *self,
                                                   guint          index);
guint               gml_scenario_get_n_keys       (GmlScenario   *self);
const GmlKeyFigure *gml_scenario_get_key          (GmlScenario   *self,
                                                   guint          index);
/* The engine's figures are the question's divided by the scale (1 = real size). */
guint64             gml_scenario_get_scale        (GmlScenario   *self);
/* Formats the engine's @bytes at the question's scale, as captions do. */
char               *gml_scenario_format_size      (GmlScenario   *self,
                                                   guint64        bytes);

/* Checkpointing only (0 strategies elsewhere). */
guint               gml_scenario_get_n_layers     (GmlScenario   *self);
guint64             gml_scenario_get_layer_bytes  (GmlScenario   *self);
guint               gml_scenario_get_n_strategies (GmlScenario   *self);
const GmlCheckpointStrategy *gml_scenario_get_strategy (GmlScenario *self,
                                                        guint        index);

/* Sums of allocated blocks in @state by category, and of those whose label is
 * @label (NULL: all). */
guint64             gml_mem_state_allocated_by_category (const GmlMemState *state,
                                                         GmlCategory        category);
guint64             gml_mem_state_requested_by_label    (const GmlMemState *state,
                                                         const char        *label);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlScenario, gml_scenario_free)

G_END_DECLS

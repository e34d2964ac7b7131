/* gml-scenario-private.h — what the scripts of scenarios and experiments share.
 *
 * A script drives one or more allocators ("runs": a setting, a strategy, one
 * GPU of several) and closes a step whenever the picture should show something.
 * Every figure it puts in a caption, a bar or a mark is read from the engine.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "gml-scenario.h"

G_BEGIN_DECLS


typedef struct
{
  char         *name;            /* translated: the setting, strategy or GPU; NULL for none */
  GmlDevice    *arena;           /* owned, or NULL when the run uses the scenario's device */
  GmlAllocator *allocator;       /* holds no device memory once the script has run */
  guint64       capacity;
  guint64       other_in_use;
  GArray       *live;            /* while the script runs: by label id, block id + 1 (0: none) */
} GmlScenarioRun;

struct _GmlScenario
{
  char          *name;           /* scenario name or experiment kind */
  char          *title;          /* translated */
  GmlDevice     *device;         /* a reference, held while the scenario lives */
  GmlDevice     *owned_device;   /* the experiment lab's own GPU; freed after the runs */
  GPtrArray     *runs;           /* GmlScenarioRun* */
  GArray        *steps;          /* GmlScenarioStep */
  GPtrArray     *strategies;     /* GmlCheckpointStrategy*, checkpointing only */
  GPtrArray     *bars;           /* GmlBar*, owned */
  GArray        *marks;          /* GmlMark */
  GArray        *keys;           /* GmlKeyFigure */
  char          *device_name;
  guint          focus_step;
  guint          setup_step;
  GmlView        focus_view;
  GmlView        setup_view;     /* GML_N_VIEWS: the focus view */
  guint          views;          /* 1 << GmlView for each view that shows something */
  GmlCategory    focus_category;
  gboolean       has_failed_request;
  guint64        failed_request;
  guint          failed_step;
  guint          n_layers;
  guint64        layer_bytes;
  guint64        scale;          /* the question's figures are the engine's × scale */
  gboolean       decimal;        /* sizes in GB = 10⁹ bytes, as the papers count */
  char          *bar_unit;       /* translated note under the bars, or NULL */
  guint64        bar_capacity;   /* the GPU's memory drawn as a line over the bars, 0: none */
};

/* The script's bookkeeping while it runs. */
typedef struct
{
  GmlScenario    *sc;
  GmlScenarioRun *run;           /* the current run */
  GArray         *live;          /* the current run's live tensors: by label id, block id + 1 */
  GError         *fatal;         /* a device failure other than out of memory */
  guint64         last_request;
  gboolean        oom;
  char           *oom_message;
  gboolean        emptied;
  int             strategy;
  guint64         peak;          /* allocated peak since the last reset */
  GCancellable   *cancellable;   /* the thread's current one when the script began, or NULL */
  guint           since_check;   /* allocations since it was last looked at */
} GmlScript;

/* A scenario with nothing run yet; @r is set up to run its script. */
GmlScenario    *_gml_scenario_create    (const char         *name,
                                         GmlDevice          *device,
                                         GmlScript          *r);
/* Frees every run's tensors, empties the caches (the device gets all its memory
 * back; the traces stay) and returns the scenario, or NULL (freed) with @error
 * when the device failed. */
GmlScenario    *_gml_scenario_finish    (GmlScenario        *sc,
                                         GmlScript          *r,
                                         GError            **error);

/* The capacity that asks _gml_script_begin_run() for the lab's usual arena: the
 * device's free memory (within the budget), at most the default simulated GPU,
 * measured once the previous run has given its memory back. */
#define GML_SCRIPT_LAB_ARENA G_MAXUINT64

/* Starts a new allocator. The previous run's tensors are freed and its cache
 * emptied first, so runs never hold device memory at the same time unless
 * @keep_previous. @capacity 0: the scenario's device itself; otherwise an arena
 * of that size inside it, @other_in_use of which someone else holds. */
GmlScenarioRun *_gml_script_begin_run   (GmlScript          *r,
                                         char               *name,
                                         guint64             capacity,
                                         guint64             other_in_use,
                                         const GmlAllocConf *conf,
                                         gboolean            keep_previous);
/* Starts a new allocator on a simulated GPU of its own (@capacity bytes), for
 * what the device the lab was given cannot do (expandable segments need pages
 * to map, which arenas and the CUDA backend do not offer). */
GmlScenarioRun *_gml_script_begin_sim_run (GmlScript          *r,
                                           char               *name,
                                           guint64             capacity,
                                           const GmlAllocConf *conf);
gboolean        _gml_script_alloc       (GmlScript          *r,
                                         const char         *label,
                                         GmlCategory         category,
                                         guint64             size);
gboolean        _gml_script_alloc_on    (GmlScript          *r,
                                         guint32             stream,
                                         const char         *label,
                                         GmlCategory         category,
                                         guint64             size);
gboolean        _gml_script_is_live     (GmlScript          *r,
                                         const char         *label);
void            _gml_script_free        (GmlScript          *r,
                                         const char         *label);
gboolean        _gml_script_free_info   (GmlScript          *r,
                                         const char         *label,
                                         GmlBlockInfo       *info);
/* The same by the label's id in the current run's trace, for scripts that name
 * millions of tensors: formatting and hashing each name would cost more than
 * the allocator. The id stays valid for the whole run. */
guint32         _gml_script_label_id    (GmlScript          *r,
                                         const char         *label);
gboolean        _gml_script_find_label  (GmlScript          *r,
                                         const char         *label,
                                         guint32            *id);
gboolean        _gml_script_alloc_labelled (GmlScript       *r,
                                            guint32          stream,
                                            guint32          label_id,
                                            GmlCategory      category,
                                            guint64          size);
gboolean        _gml_script_free_labelled (GmlScript        *r,
                                           guint32          label_id,
                                           GmlBlockInfo    *info);
void            _gml_script_record_stream (GmlScript        *r,
                                           const char       *label,
                                           guint32           stream);
void            _gml_script_synchronize (GmlScript          *r,
                                         guint32             stream);
void            _gml_script_empty_cache (GmlScript          *r);
/* Closes a step: where the trace is, and the engine's figures there. Takes @caption. */
void            _gml_script_end_step    (GmlScript          *r,
                                         char               *caption);
guint           _gml_script_last_step   (GmlScript          *r);
const GmlStats *_gml_script_stats       (GmlScript          *r);
const GmlMemState *_gml_script_state    (GmlScript          *r);
/* What the current run's device could still give its allocator. */
guint64         _gml_script_device_free (GmlScript          *r);
/* The block of a live tensor, or FALSE. */
gboolean        _gml_script_block       (GmlScript          *r,
                                         const char         *label,
                                         GmlBlockInfo       *info);
/* The size of the segment that holds a live tensor, 0 if none. */
guint64         _gml_script_segment_of  (GmlScript          *r,
                                         const char         *label);

/* The last step is the one before answering / the one the question is about. */
void            _gml_script_setup_here  (GmlScript          *r);
void            _gml_script_focus_here  (GmlScript          *r,
                                         GmlView             view,
                                         GmlCategory         category);
/* Outlines the live tensor @label (or, with @segment, its whole segment) with
 * @text beside it when the picture points at the focus step. Takes @text. */
void            _gml_script_mark        (GmlScript          *r,
                                         const char         *label,
                                         gboolean            segment,
                                         char               *text);
void            _gml_script_mark_at     (GmlScript          *r,
                                         guint64             address,
                                         gboolean            segment,
                                         char               *text);
/* Replaces a step's caption. Takes @caption. */
void            _gml_script_set_caption (GmlScript          *r,
                                         guint               step,
                                         char               *caption);
/* A figure the focus step is about; tests check the description names it. */
void            _gml_script_key         (GmlScript          *r,
                                         const char         *name,
                                         guint64             bytes);
/* A bar measured at the last step; before that step it is drawn empty. Takes @label. */
GmlBar         *_gml_script_bar         (GmlScript          *r,
                                         char               *label);
/* Fills @bar with the allocated bytes per category of the current state, and the
 * cached free bytes; with @requested, the requested bytes instead (exact sizes,
 * for arithmetic that rounding would blur). */
void            _gml_script_bar_measure (GmlScript          *r,
                                         GmlBar             *bar,
                                         gboolean            requested);

/* A bar measured at an earlier step, from the trace (same rules as above). */
GmlBar         *_gml_script_bar_at_step (GmlScript          *r,
                                         char               *label,
                                         guint               step,
                                         gboolean            requested);

/* Sizes for captions: "3 MiB" (the engine's bytes × the scenario's scale, in GB
 * where the scenario counts decimally). */
char           *_gml_script_size        (GmlScript          *r,
                                         guint64             engine_bytes);
/* The sentence that says the scale, or NULL at 1:1. */
char           *_gml_script_scale_note  (GmlScript          *r);

/* The six named scenarios' stories; the table of kinds in gml-experiment-scripts.c
 * names them, for gml_scenario_new() and for the questions' experiments alike. */
void            _gml_script_oom              (GmlScript *r);
/* @sizes (may be NULL) receives each batch's activation bytes per layer. */
void            _gml_script_batch_size       (GmlScript *r,
                                              guint      from,
                                              guint      to,
                                              guint64    sizes[2]);
void            _gml_script_empty_cache_story (GmlScript *r);
void            _gml_script_precision        (GmlScript *r);
void            _gml_script_checkpointing    (GmlScript *r,
                                              guint      n_layers);
void            _gml_script_fragmentation    (GmlScript *r);
/* One pass of sc->n_layers layers with a checkpoint every @segment layers, kept
 * in sc->strategies. Takes @name. */
GmlCheckpointStrategy *_gml_script_checkpoint_strategy (GmlScript *r,
                                                        guint      segment,
                                                        char      *name);

/* Sums of requested bytes of allocated blocks by category. */
guint64         _gml_mem_state_requested_by_category (const GmlMemState *state,
                                                      GmlCategory        category);

G_END_DECLS

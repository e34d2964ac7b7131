/* gml-script-private.h — the toolkit a script drives the allocator with
 * (gml-script.c), and the six named scenarios' stories built on it
 * (gml-scenario-stories.c).
 *
 * A script drives one or more allocators ("runs": a setting, a strategy, one
 * GPU of several) and closes a step whenever the picture should show something.
 * Every figure it puts in a caption, a bar or a mark is read from the engine.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-scenario-private.h"

G_BEGIN_DECLS

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
/* The current run's figures, read on every allocation of a lab run: inline. */
static inline const GmlStats *
_gml_script_stats (GmlScript *r)
{
  return r->stats;
}

/* Closes a step: where the trace is, and the engine's figures there. Takes @caption. */
void            _gml_script_end_step    (GmlScript          *r,
                                         char               *caption);
guint           _gml_script_last_step   (GmlScript          *r);
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

/* The six named scenarios' stories (gml-scenario-stories.c); the table of kinds
 * in gml-picture-scripts.c names them, for gml_scenario_new() and for the
 * questions' picture scripts alike. */
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

G_END_DECLS

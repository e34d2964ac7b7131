/* gml-scenario-private.h — a scenario's insides: its runs, what a script has
 * recorded, and the script's bookkeeping while it runs. The toolkit scripts
 * call is in gml-script-private.h.
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
  const GmlStats *stats;         /* the current run's allocator's: read on every allocation */
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

/* Frees the run's live tensors and empties its cache: its trace stays, its
 * device memory goes back. */
void            _gml_scenario_release_run (GmlScenarioRun   *run);

/* Sums of requested bytes of allocated blocks by category. */
guint64         _gml_mem_state_requested_by_category (const GmlMemState *state,
                                                      GmlCategory        category);

G_END_DECLS

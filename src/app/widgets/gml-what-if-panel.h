/* gml-what-if-panel.h — the open snapshot's own run, replayed under other
 * allocator settings and GPU sizes (gml-snapshot-whatif.h), in rows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-snapshot-document.h"
#include "gml-snapshot-whatif.h"

G_BEGIN_DECLS

#define GML_TYPE_WHAT_IF_PANEL (gml_what_if_panel_get_type ())

G_DECLARE_FINAL_TYPE (GmlWhatIfPanel, gml_what_if_panel, GML, WHAT_IF_PANEL, GtkWidget)

GtkWidget     *gml_what_if_panel_new            (void);
/* Replays @document's trace (NULL: none) off the main loop, every row, on the GPU
 * the file implies; a new document, or a new GPU size, replays again. */
void           gml_what_if_panel_set_document   (GmlWhatIfPanel      *self,
                                                 GmlSnapshotDocument *document);
GmlSnapshotDocument *gml_what_if_panel_get_document (GmlWhatIfPanel  *self);
/* Manual: a new document waits for the Replay button (the Live view, whose
 * document changes twice a second); otherwise it is replayed at once. */
void           gml_what_if_panel_set_manual     (GmlWhatIfPanel      *self,
                                                 gboolean             manual);
/* Whether the replays are running. */
gboolean       gml_what_if_panel_get_busy       (GmlWhatIfPanel      *self);
/* The rows: the run as recorded first. A row's run is NULL until its replay is done. */
guint          gml_what_if_panel_get_n_rows     (GmlWhatIfPanel      *self);
const GmlWhatIfRun *gml_what_if_panel_get_run   (GmlWhatIfPanel      *self,
                                                 guint                row);
/* Whether the row's reserved memory is to be drawn over the recorded timeline. */
gboolean       gml_what_if_panel_get_shown      (GmlWhatIfPanel      *self,
                                                 guint                row);
/* The ticked rows' reserved memory drawn over @picture's timeline (none ticked:
 * none drawn); their arrays are the panel's until its next "changed", which is
 * when to call this again. Returns how many. */
guint          gml_what_if_panel_draw_on        (GmlWhatIfPanel      *self,
                                                 GmlSnapshotPicture  *picture);
/* The entries before which the run called empty_cache(), as its replay found
 * them; NULL with *@n 0 until the replays are done. */
const gsize   *gml_what_if_panel_get_empty_caches (GmlWhatIfPanel    *self,
                                                   guint             *n);
/* The GPU every row replays on (0: unbounded), and how it was chosen. */
guint64        gml_what_if_panel_get_gpu_memory (GmlWhatIfPanel      *self);
/* One sentence per setting that would have changed the out-of-memory outcome,
 * or NULL: for the out-of-memory explainer ("With expandable_segments:True this
 * run would have peaked at 71.2 GiB reserved and not run out of memory
 * (replayed)."). Translated. */
char          *gml_what_if_panel_describe_verdict (GmlWhatIfPanel    *self,
                                                   const char        *setting);

/* The words again, after a change of language. */
void           gml_what_if_panel_refresh        (GmlWhatIfPanel      *self);

G_END_DECLS

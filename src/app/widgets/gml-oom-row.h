/* gml-oom-row.h — one out-of-memory error of a snapshot, explained.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-question-bank.h"
#include "gml-snapshot-state.h"

G_BEGIN_DECLS

#define GML_TYPE_OOM_ROW (gml_oom_row_get_type ())

G_DECLARE_FINAL_TYPE (GmlOomRow, gml_oom_row, GML, OOM_ROW, GtkWidget)

GtkWidget *gml_oom_row_new (const GmlSnapshotOom *oom,
                            gsize                 n_entries,
                            GmlQuestionBank      *bank);
/* What replaying the run under expandable_segments and max_split_size_mb found
 * (gml_what_if_panel_describe_verdict), in place of what the error's figures
 * suggest; NULL keeps that reasoning. */
void       gml_oom_row_set_replayed (GmlOomRow  *self,
                                     const char *expandable,
                                     const char *max_split);

G_END_DECLS

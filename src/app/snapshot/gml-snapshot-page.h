/* gml-snapshot-page.h — the Snapshot view: open a PyTorch memory snapshot,
 * move through its trace, read its out-of-memory errors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-snapshot-document.h"

G_BEGIN_DECLS

#define GML_TYPE_SNAPSHOT_PAGE (gml_snapshot_page_get_type ())

G_DECLARE_FINAL_TYPE (GmlSnapshotPage, gml_snapshot_page, GML, SNAPSHOT_PAGE, GtkWidget)

/* Reads @file in a thread; the page shows the progress, then the snapshot or
 * what is wrong with the file. A load in progress is cancelled. */
void                 gml_snapshot_page_open         (GmlSnapshotPage *self,
                                                     GFile           *file);
/* Reads @file as the run to compare the open one with (B), in a thread; with
 * no snapshot open it is opened as the first. */
void                 gml_snapshot_page_compare      (GmlSnapshotPage *self,
                                                     GFile           *file);
GmlSnapshotDocument *gml_snapshot_page_get_document (GmlSnapshotPage *self);
/* The file's name and "cuda:0 · 5163 trace entries", or NULL before a snapshot is open. */
const char          *gml_snapshot_page_get_title    (GmlSnapshotPage *self);
const char          *gml_snapshot_page_get_subtitle (GmlSnapshotPage *self);

G_END_DECLS

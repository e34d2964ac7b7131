/* gml-snapshot-canvas.h — a snapshot's picture at the document's position.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-snapshot-document.h"

G_BEGIN_DECLS

#define GML_TYPE_SNAPSHOT_CANVAS (gml_snapshot_canvas_get_type ())

G_DECLARE_FINAL_TYPE (GmlSnapshotCanvas, gml_snapshot_canvas, GML, SNAPSHOT_CANVAS, GtkWidget)

GmlSnapshotDocument *gml_snapshot_canvas_get_document    (GmlSnapshotCanvas   *self);
void                 gml_snapshot_canvas_set_document    (GmlSnapshotCanvas   *self,
                                                          GmlSnapshotDocument *document);
GmlSnapshotView      gml_snapshot_canvas_get_view        (GmlSnapshotCanvas   *self);
void                 gml_snapshot_canvas_set_view        (GmlSnapshotCanvas   *self,
                                                          GmlSnapshotView      view);
/* The style the picture is drawn in now (follows dark and high contrast). */
void                 gml_snapshot_canvas_get_style       (GmlSnapshotCanvas   *self,
                                                          GmlRenderStyle      *style);
const char          *gml_snapshot_canvas_get_description (GmlSnapshotCanvas   *self);
/* The words again, after a change of language. */
void                 gml_snapshot_canvas_refresh         (GmlSnapshotCanvas   *self);

G_END_DECLS

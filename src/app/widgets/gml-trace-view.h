/* gml-trace-view.h — a snapshot's pictures with the scrubber that moves through its trace.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-snapshot-canvas.h"
#include "gml-snapshot-document.h"

G_BEGIN_DECLS

#define GML_TYPE_TRACE_VIEW (gml_trace_view_get_type ())

G_DECLARE_FINAL_TYPE (GmlTraceView, gml_trace_view, GML, TRACE_VIEW, GtkWidget)

GmlSnapshotDocument *gml_trace_view_get_document     (GmlTraceView        *self);
void                 gml_trace_view_set_document     (GmlTraceView        *self,
                                                      GmlSnapshotDocument *document);
gboolean             gml_trace_view_get_live         (GmlTraceView        *self);
gboolean             gml_trace_view_get_follow       (GmlTraceView        *self);
void                 gml_trace_view_set_follow       (GmlTraceView        *self,
                                                      gboolean             follow);
GmlSnapshotCanvas   *gml_trace_view_get_canvas       (GmlTraceView        *self);
void                 gml_trace_view_set_view         (GmlTraceView        *self,
                                                      GmlSnapshotView      view);
void                 gml_trace_view_set_waiting_text (GmlTraceView        *self,
                                                      const char          *text);
void                 gml_trace_view_refresh          (GmlTraceView        *self);

G_END_DECLS

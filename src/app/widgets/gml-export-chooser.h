/* gml-export-chooser.h — Export Picture…: the save dialog the quiz's picture and the
 * Snapshot view share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-render.h"

G_BEGIN_DECLS

GtkFileChooserNative *gml_export_chooser_new      (GtkWidget            *parent,
                                                   const char           *stem);

/* @message is translated: "The picture could not be exported: …". */
typedef void (*GmlExportFailedFunc) (GtkWidget  *owner,
                                     const char *message);

/* The owner's picture as it is shown, at @width × @height, or NULL if it has none. */
typedef GmlExportDrawing *(*GmlExportDrawForFunc) (GtkWidget *owner,
                                                   int        width,
                                                   int        height);

gboolean              gml_export_chooser_respond  (GtkFileChooserNative *chooser,
                                                   int                   response,
                                                   GtkWidget            *owner,
                                                   GmlExportDrawForFunc  draw,
                                                   GmlExportFailedFunc   failed);

G_END_DECLS

/* gml-export-chooser.h — Export Picture…: the save dialog the quiz's picture and the
 * Snapshot view share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-render.h"

G_BEGIN_DECLS

/* The owner's picture as it is shown, at @width × @height, or NULL if it has none. */
typedef GmlExportDrawing *(*GmlExportDrawForFunc) (GtkWidget *owner,
                                                   int        width,
                                                   int        height);

void gml_export_chooser_open (GtkWidget             *owner,
                              GtkFileChooserNative **chooser,
                              const char            *stem,
                              GmlExportDrawForFunc   draw);

G_END_DECLS

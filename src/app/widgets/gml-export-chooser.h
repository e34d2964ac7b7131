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
char                 *gml_export_chooser_get_path (GtkFileChooserNative *chooser,
                                                   GmlExportFormat      *format,
                                                   gboolean             *confirmed);

/* @message is translated: "The picture could not be exported: …". */
typedef void (*GmlExportFailedFunc) (GtkWidget  *owner,
                                     const char *message);

void                  gml_export_chooser_write    (GtkWidget            *owner,
                                                   GmlExportDrawing     *drawing,
                                                   const char           *path,
                                                   GmlExportFormat       format,
                                                   GmlExportFailedFunc   failed);

G_END_DECLS

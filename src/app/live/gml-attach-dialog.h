/* gml-attach-dialog.h — Attach…: the programs whose probe waits for the lab.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define GML_TYPE_ATTACH_DIALOG (gml_attach_dialog_get_type ())

G_DECLARE_FINAL_TYPE (GmlAttachDialog, gml_attach_dialog, GML, ATTACH_DIALOG, AdwWindow)

/* Emits ::attach (a GSocket connected to the chosen probe, and its hello as a
 * GmlProbeMessage *, both for the handler to take) and closes. */
GmlAttachDialog *gml_attach_dialog_new (GtkWindow *parent);

G_END_DECLS

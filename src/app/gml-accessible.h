/* gml-accessible.h — accessible names that read as the visible labels.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void gml_accessible_name_buttons (GtkWidget *root);

G_END_DECLS

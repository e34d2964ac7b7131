/* gml-accessible.h — accessible names that read as the visible labels, and a
 * stack whose hidden states stay out of the accessibility tree.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void  gml_accessible_name_buttons   (GtkWidget  *root);
char *gml_accessible_strip_mnemonic (const char *text);
void  gml_accessible_name_by_row    (GtkWidget  *control,
                                     GtkWidget  *row);
void  gml_accessible_set_bytes      (GtkLabel   *label,
                                     guint64     bytes);
void  gml_accessible_show_state     (GtkStack   *stack,
                                     const char *name);

G_END_DECLS

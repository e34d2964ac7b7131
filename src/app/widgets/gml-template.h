/* gml-template.h — binding an array of template children in one call.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Binds the template's object @names[i] to the pointer at @offset + i
 * pointers in the instance: @offset is G_STRUCT_OFFSET of an array of widget
 * pointers, and @names, ended by NULL, lists its ids in the array's order. */
void gml_template_bind_children (GtkWidgetClass     *widget_class,
                                 gsize               offset,
                                 const char * const *names);

G_END_DECLS

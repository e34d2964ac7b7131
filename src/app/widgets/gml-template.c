/* gml-template.c — binding an array of template children in one call.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "gml-template.h"

void
gml_template_bind_children (GtkWidgetClass     *widget_class,
                            gsize               offset,
                            const char * const *names)
{
  g_return_if_fail (GTK_IS_WIDGET_CLASS (widget_class));
  g_return_if_fail (names != NULL);

  for (guint i = 0; names[i] != NULL; i++)
    gtk_widget_class_bind_template_child_full (widget_class, names[i], FALSE,
                                               offset + i * sizeof (gpointer));
}

/* gml-look.h — the one palette every canvas of the app draws with.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "gml-render.h"

G_BEGIN_DECLS

#define GML_TYPE_LOOK (gml_look_get_type ())

G_DECLARE_FINAL_TYPE (GmlLook, gml_look, GML, LOOK, GObject)

/* The app's look: follows libadwaita's style manager (dark, high contrast) and
 * the Preferences' forced high contrast (the "style" key), which libadwaita 1.2
 * cannot be told about. Notifies "theme" when it changes. */
GmlLook   *gml_look_get_default      (void);
GmlTheme   gml_look_get_theme        (GmlLook *self);
gboolean   gml_look_is_dark          (GmlLook *self);
gboolean   gml_look_is_high_contrast (GmlLook *self);
/* Queues a redraw of @widget whenever the theme changes, for as long as it lives. */
void       gml_look_redraw_on_change (GmlLook *self,
                                      gpointer widget);

G_END_DECLS

/* gml-presentation-window.h — the quiz on the projector, for the audience.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-application.h"
#include "gml-presentation.h"

G_BEGIN_DECLS

#define GML_TYPE_PRESENTATION_WINDOW (gml_presentation_window_get_type ())

G_DECLARE_FINAL_TYPE (GmlPresentationWindow, gml_presentation_window, GML, PRESENTATION_WINDOW,
                      AdwWindow)

GmlPresentationWindow *gml_presentation_window_new   (GmlApplication  *app,
                                                      GmlPresentation *model);
gboolean               gml_presentation_window_start (GtkWindow       *parent,
                                                      GmlApplication  *app,
                                                      GArray          *slides,
                                                      guint            start);

void                   _gml_presentation_debug_watch (GtkWindow       *window,
                                                      const char      *role);

G_END_DECLS

/* gml-presenter-window.h — what the lecturer sees while the audience sees the quiz.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-application.h"
#include "gml-presentation.h"

G_BEGIN_DECLS

#define GML_TYPE_PRESENTER_WINDOW (gml_presenter_window_get_type ())

G_DECLARE_FINAL_TYPE (GmlPresenterWindow, gml_presenter_window, GML, PRESENTER_WINDOW, AdwWindow)

GmlPresenterWindow *gml_presenter_window_new (GmlApplication  *app,
                                              GmlPresentation *model);

G_END_DECLS

/* gml-preferences-window.h — the lab's settings, kept in GSettings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-application.h"

G_BEGIN_DECLS

#define GML_TYPE_PREFERENCES_WINDOW (gml_preferences_window_get_type ())

G_DECLARE_FINAL_TYPE (GmlPreferencesWindow, gml_preferences_window, GML, PREFERENCES_WINDOW,
                      AdwPreferencesWindow)

GmlPreferencesWindow *gml_preferences_window_new (GmlApplication *app,
                                                  GtkWindow      *parent);

G_END_DECLS

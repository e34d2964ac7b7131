/* gml-stats-window.h — the Statistics window (Ctrl+I): the statistics picture of the
 * answers so far, kept in the application's language.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-application.h"

G_BEGIN_DECLS

#define GML_TYPE_STATS_WINDOW (gml_stats_window_get_type ())

G_DECLARE_FINAL_TYPE (GmlStatsWindow, gml_stats_window, GML, STATS_WINDOW, AdwWindow)

/* A window over @parent drawing @app's progress against its bank. Escape and
 * Ctrl+W close it. */
GtkWindow *gml_stats_window_new    (GtkWindow      *parent,
                                    GmlApplication *app);
/* Draws the answers again (one was added or undone). */
void       gml_stats_window_update (GmlStatsWindow *self);

G_END_DECLS

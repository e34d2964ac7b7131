/* gml-window.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-application.h"

G_BEGIN_DECLS

#define GML_TYPE_WINDOW (gml_window_get_type ())

G_DECLARE_FINAL_TYPE (GmlWindow, gml_window, GML, WINDOW, AdwApplicationWindow)

GmlWindow *gml_window_new       (GmlApplication *application);
/* Shows the Snapshot view and opens @file there (File ▸ Open, a drop, the command line). */
void       gml_window_open_file (GmlWindow      *self,
                                 GFile          *file);
/* Shows the Experiment view with the knobs of @args ("--model gpt2 --batch 8"). */
void       gml_window_start_review (GmlWindow  *self,
                                    GArray     *indexes,
                                    const char *name);
void       gml_window_open_lab  (GmlWindow      *self,
                                 const char     *args);

GtkShortcutsWindow *gml_window_new_shortcuts_window (void);

G_END_DECLS

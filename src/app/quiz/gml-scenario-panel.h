/* gml-scenario-panel.h — a question's picture script with its controls, beside the question.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-question-bank.h"
#include "gml-render.h"

G_BEGIN_DECLS

#define GML_TYPE_SCENARIO_PANEL (gml_scenario_panel_get_type ())

G_DECLARE_FINAL_TYPE (GmlScenarioPanel, gml_scenario_panel, GML, SCENARIO_PANEL, GtkWidget)

GtkWidget  *gml_scenario_panel_new          (void);
/* Shows @question's picture script at its setup, in the view that shows it best,
 * without giving the answer away (@question is borrowed: the bank outlives it). */
void        gml_scenario_panel_set_question (GmlScenarioPanel  *self,
                                             const GmlQuestion *question);
/* After an answer: jump to the step the question is about, in the view that
 * shows it best, and outline what it was about. */
void        gml_scenario_panel_point        (GmlScenarioPanel *self);
/* Moves the steps by @delta; before the answer it does nothing (can_step). */
void        gml_scenario_panel_step         (GmlScenarioPanel *self,
                                             int               delta);
gboolean    gml_scenario_panel_can_step     (GmlScenarioPanel *self);
/* Runs the picture scripts again, e.g. after the language changed. */
void        gml_scenario_panel_reload       (GmlScenarioPanel *self);

G_END_DECLS

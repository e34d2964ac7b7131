/* gml-application.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-progress.h"
#include "gml-question-bank.h"
#include "gml-scenario.h"

G_BEGIN_DECLS

#define GML_TYPE_APPLICATION (gml_application_get_type ())

G_DECLARE_FINAL_TYPE (GmlApplication, gml_application, GML, APPLICATION, AdwApplication)

GmlApplication  *gml_application_new          (void);
GmlQuestionBank *gml_application_get_bank     (GmlApplication *self);
GmlProgress     *gml_application_get_progress (GmlApplication *self);
GSettings       *gml_application_get_settings (GmlApplication *self);
GPtrArray       *gml_application_steal_startup_messages (GmlApplication *self);
GmlDevice       *gml_application_get_device   (GmlApplication *self,
                                               const char    **reason);

G_END_DECLS

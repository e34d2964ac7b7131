/* gml-review.h — spaced review, statistics, undo and reset for one window.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-application.h"
#include "gml-quiz-page.h"

G_BEGIN_DECLS

#define GML_TYPE_REVIEW (gml_review_get_type ())

G_DECLARE_FINAL_TYPE (GmlReview, gml_review, GML, REVIEW, GObject)

GmlReview *gml_review_new          (GtkWindow       *window,
                                    GmlApplication  *app,
                                    GmlQuizPage     *page,
                                    GtkButton       *due_button,
                                    AdwToastOverlay *toasts);
guint      gml_review_get_n_due    (GmlReview       *self);
void       gml_review_update       (GmlReview       *self);

G_END_DECLS

/* gml-presentation-window.h — the quiz on the projector, for the audience.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-application.h"
#include "gml-question-bank.h"

G_BEGIN_DECLS

#define GML_TYPE_PRESENTATION_WINDOW (gml_presentation_window_get_type ())

G_DECLARE_FINAL_TYPE (GmlPresentationWindow, gml_presentation_window, GML, PRESENTATION_WINDOW, AdwWindow)

/* One question of the presented round. */
typedef struct
{
  guint    question;                /* index in the bank */
  guint    order[GML_N_OPTIONS];    /* order[shown] = source option */
  gboolean revealed;
} GmlSlide;

gboolean           gml_presentation_start                   (GtkWindow             *parent,
                                                             GmlApplication        *app,
                                                             GArray                *slides,
                                                             guint                  start);
gboolean           gml_presentation_window_handle_key       (GmlPresentationWindow *self,
                                                             guint                  keyval,
                                                             GdkModifierType        state);
void               gml_presentation_window_reveal           (GmlPresentationWindow *self);
void               gml_presentation_window_go               (GmlPresentationWindow *self,
                                                             int                    delta);
const GmlSlide    *gml_presentation_window_get_slide        (GmlPresentationWindow *self,
                                                             guint                  offset);
const GmlQuestion *gml_presentation_window_get_question     (GmlPresentationWindow *self,
                                                             guint                  offset);
guint              gml_presentation_window_get_position     (GmlPresentationWindow *self);
guint              gml_presentation_window_get_n_slides     (GmlPresentationWindow *self);
gint64             gml_presentation_window_get_started_at   (GmlPresentationWindow *self);
int                gml_presentation_window_get_seconds_left (GmlPresentationWindow *self);
gboolean           gml_presentation_window_is_at_end        (GmlPresentationWindow *self);
void               gml_presentation_window_zoom             (GmlPresentationWindow *self,
                                                             int                    direction);
double             gml_presentation_window_get_zoom         (GmlPresentationWindow *self);

void               _gml_presentation_debug_watch            (GtkWindow             *window,
                                                             const char            *role);

G_END_DECLS

/* gml-presentation.h — a presented round: the state both lecture windows show.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "gml-question-bank.h"

G_BEGIN_DECLS

/* One question of the presented round. */
typedef struct
{
  guint    question;                /* index in the bank */
  guint    order[GML_N_OPTIONS];    /* order[shown] = source option */
  gboolean revealed;
} GmlSlide;

#define GML_TYPE_PRESENTATION (gml_presentation_get_type ())

G_DECLARE_FINAL_TYPE (GmlPresentation, gml_presentation, GML, PRESENTATION, GObject)

GmlPresentation   *gml_presentation_new                (GmlQuestionBank *bank,
                                                        GArray          *slides,
                                                        guint            start);
const GmlSlide    *gml_presentation_get_slide          (GmlPresentation *self,
                                                        guint            index);
const GmlQuestion *gml_presentation_get_question       (GmlPresentation *self,
                                                        guint            index);
guint              gml_presentation_get_position       (GmlPresentation *self);
guint              gml_presentation_get_n_questions    (GmlPresentation *self);
guint              gml_presentation_get_n_revealed     (GmlPresentation *self);
gboolean           gml_presentation_get_revealed       (GmlPresentation *self);
gboolean           gml_presentation_get_at_end         (GmlPresentation *self);
gboolean           gml_presentation_get_ended          (GmlPresentation *self);
gint64             gml_presentation_get_started_at     (GmlPresentation *self);
int                gml_presentation_get_question_timer (GmlPresentation *self);
void               gml_presentation_set_question_timer (GmlPresentation *self,
                                                        int              seconds);
int                gml_presentation_get_seconds_left   (GmlPresentation *self);
gboolean           gml_presentation_get_bilingual      (GmlPresentation *self);
void               gml_presentation_set_bilingual      (GmlPresentation *self,
                                                        gboolean         bilingual);
double             gml_presentation_get_zoom           (GmlPresentation *self);

void               gml_presentation_go                 (GmlPresentation *self,
                                                        int              delta);
void               gml_presentation_next               (GmlPresentation *self);
void               gml_presentation_previous           (GmlPresentation *self);
void               gml_presentation_first              (GmlPresentation *self);
void               gml_presentation_last               (GmlPresentation *self);
void               gml_presentation_reveal             (GmlPresentation *self);
void               gml_presentation_advance            (GmlPresentation *self);
void               gml_presentation_zoom               (GmlPresentation *self,
                                                        int              direction);
void               gml_presentation_end                (GmlPresentation *self);
void               gml_presentation_set_audience       (GmlPresentation *self,
                                                        GObject         *audience);
GObject           *gml_presentation_get_audience       (GmlPresentation *self);

G_END_DECLS

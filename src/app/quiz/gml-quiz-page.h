/* gml-quiz-page.h — one question at a time, then the round's summary.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-progress.h"
#include "gml-question-bank.h"

G_BEGIN_DECLS

#define GML_TYPE_QUIZ_PAGE (gml_quiz_page_get_type ())

G_DECLARE_FINAL_TYPE (GmlQuizPage, gml_quiz_page, GML, QUIZ_PAGE, GtkWidget)

GtkWidget *gml_quiz_page_new          (void);
void       gml_quiz_page_set_sources  (GmlQuizPage     *self,
                                       GmlQuestionBank *bank,
                                       GmlProgress     *progress,
                                       GSettings       *settings);
void       gml_quiz_page_start_round  (GmlQuizPage     *self,
                                       GArray          *indexes);
void       gml_quiz_page_start_named_round (GmlQuizPage *self,
                                            GArray      *indexes,
                                            const char  *name);
const char *gml_quiz_page_get_round_name (GmlQuizPage    *self);
void       gml_quiz_page_refresh      (GmlQuizPage     *self);
void       gml_quiz_page_undo_answer  (GmlQuizPage     *self,
                                       const char      *question);
guint      gml_quiz_page_get_n_items  (GmlQuizPage     *self);
guint      gml_quiz_page_get_position (GmlQuizPage     *self);
guint      gml_quiz_page_get_item     (GmlQuizPage     *self,
                                       guint            position,
                                       guint            order[GML_N_OPTIONS]);

/* A round as it stands, kept so that it can be put back: the undo of
 * restarting a round. */
typedef struct _GmlQuizRound GmlQuizRound;

gboolean      gml_quiz_page_round_has_progress (GmlQuizPage        *self);
GmlQuizRound *gml_quiz_page_save_round         (GmlQuizPage        *self);
void          gml_quiz_page_restore_round      (GmlQuizPage        *self,
                                                const GmlQuizRound *round);
void          gml_quiz_round_free              (GmlQuizRound       *round);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlQuizRound, gml_quiz_round_free)

G_END_DECLS

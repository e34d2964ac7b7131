/* gml-leitner.h — Leitner boxes computed from the answer log.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "gml-progress.h"
#include "gml-question-bank.h"

G_BEGIN_DECLS

#define GML_LEITNER_N_BOXES 5

/* The box of a question that was never answered. */
#define GML_LEITNER_BOX_NEW 0

typedef struct _GmlLeitner GmlLeitner;

GmlLeitner *gml_leitner_new            (GTimeZone         *tz);
GmlLeitner *gml_leitner_new_from_progress (GmlProgress    *progress,
                                        GTimeZone         *tz);
void        gml_leitner_free           (GmlLeitner        *self);
void        gml_leitner_apply          (GmlLeitner        *self,
                                        const char        *question,
                                        gboolean           correct,
                                        gint64             time);
guint       gml_leitner_get_box        (GmlLeitner        *self,
                                        const char        *question);
gint64      gml_leitner_get_due_time   (GmlLeitner        *self,
                                        const char        *question);
gboolean    gml_leitner_is_due         (GmlLeitner        *self,
                                        const char        *question,
                                        gint64             now);
GPtrArray  *gml_leitner_dup_due_ids    (GmlLeitner        *self,
                                        GmlQuestionBank   *bank,
                                        gint64             now);
GArray     *gml_leitner_due_indexes    (GmlLeitner        *self,
                                        GmlQuestionBank   *bank,
                                        gint64             now);
gint64      gml_leitner_next_due_time  (GmlLeitner        *self,
                                        GmlQuestionBank   *bank,
                                        gint64             now);
guint       gml_leitner_interval_days  (guint              box);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlLeitner, gml_leitner_free)

G_END_DECLS

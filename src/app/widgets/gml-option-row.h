/* gml-option-row.h — one option of a question: its letter, its text and its state.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-question-bank.h"

G_BEGIN_DECLS

#define GML_TYPE_OPTION_ROW (gml_option_row_get_type ())

G_DECLARE_FINAL_TYPE (GmlOptionRow, gml_option_row, GML, OPTION_ROW, GtkWidget)

GtkWidget  *gml_option_row_new          (void);
void        gml_option_row_set_option   (GmlOptionRow      *self,
                                         const GmlQuestion *question,
                                         const guint        order[GML_N_OPTIONS],
                                         guint              shown,
                                         gboolean           bilingual);
const char *gml_option_row_get_letter   (GmlOptionRow      *self);
void        gml_option_row_set_letter   (GmlOptionRow      *self,
                                         const char        *letter);
const char *gml_option_row_get_text     (GmlOptionRow      *self);
void        gml_option_row_set_text     (GmlOptionRow      *self,
                                         const char        *text);
void        gml_option_row_set_other    (GmlOptionRow      *self,
                                         const char        *other);
void        gml_option_row_set_feedback (GmlOptionRow      *self,
                                         const char        *feedback);
void        gml_option_row_set_state    (GmlOptionRow      *self,
                                         gboolean           revealed,
                                         gboolean           correct,
                                         gboolean           selected);

void        gml_option_row_bind_template_children (GtkWidgetClass *widget_class,
                                                   const char     *prefix,
                                                   gsize           offset);

void        gml_label_set_other         (GtkLabel          *label,
                                         const char        *shown,
                                         const char        *other);

G_END_DECLS

/* gml-language.h — switching the language of windows that are already open.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-question-bank.h"

G_BEGIN_DECLS

const char *gml_language_other              (void);
void        gml_language_retranslate_widget (GtkWidget         *root,
                                             const char        *previous);
GMenuModel *gml_language_retranslate_menu   (GMenuModel        *model,
                                             const char        *previous);
char       *gml_language_format_other       (const GmlQuestion *question,
                                             const char        *source,
                                             const guint        order[GML_N_OPTIONS]);

G_END_DECLS

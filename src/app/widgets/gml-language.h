/* gml-language.h — the language of templates, and of windows that are already open.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-question-bank.h"

G_BEGIN_DECLS

const char *gml_language_other              (void);
void        gml_language_localize_widget    (GtkWidget         *root,
                                             const char        *context);
void        gml_language_retranslate_widget (GtkWidget         *root);

/* What a window or page sets again itself after a language change. */
typedef void (*GmlLanguageRefreshFunc) (GtkWidget *root);

void        gml_language_follow             (GtkWidget              *root,
                                             GmlLanguageRefreshFunc  refresh);
GMenuModel *gml_language_localize_menu      (GMenuModel        *model,
                                             const char        *context);
GMenuModel *gml_language_retranslate_menu   (GMenuModel        *model);
char       *gml_language_format_other       (const GmlQuestion *question,
                                             const char        *source,
                                             const guint        order[GML_N_OPTIONS]);

G_END_DECLS

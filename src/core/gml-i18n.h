/* gml-i18n.h — which language the lab speaks, and switching it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

void        gml_i18n_init          (void);
void        gml_i18n_set_language  (const char *lang);
const char *gml_i18n_get_language  (void);
gboolean    gml_i18n_is_known_language (const char *lang);

/* Running lookups in another language for a moment (bilingual mode). */
char       *gml_i18n_push_language (const char *lang);
void        gml_i18n_pop_language  (char       *saved);

/* The lab's catalogue for `lang` read directly, without switching: the catalogue key
 * ("context\004msgid" or "msgid") of a translated text, or of an English source
 * text that the catalogue translates. NULL when the text is not the lab's. */
const char *gml_i18n_key_for_text  (const char *lang,
                                    const char *text);

G_END_DECLS

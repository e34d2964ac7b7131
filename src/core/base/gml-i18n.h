/* gml-i18n.h — which language the lab speaks, and its own catalogue lookups.
 *
 * The lab reads its compiled catalogues itself and looks every string up in the
 * language the user chose, without touching the process environment: switching the
 * language at run time is a pointer swap, safe while GTK's and GDBus's threads run.
 * Include this header instead of <glib/gi18n.h>: _(), C_() and ngettext() below are
 * the lab's lookups; N_() and NC_() are GLib's markers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <glib/gi18n.h>

G_BEGIN_DECLS

void        gml_i18n_init                (void);
gboolean    gml_i18n_is_known_language   (const char  *lang);
const char *gml_i18n_get_system_language (void);
void        gml_i18n_set_language        (const char  *lang);
const char *gml_i18n_get_language        (void);

/* Lookups in the language in effect for the calling thread. */
const char *gml_i18n_gettext             (const char  *msgid);
const char *gml_i18n_pgettext            (const char  *context,
                                          const char  *msgid);
const char *gml_i18n_ngettext            (const char  *singular,
                                          const char  *plural,
                                          gulong       n);

/* A catalogue key ("context\004msgid" or "msgid") looked up in @lang. */
const char *gml_i18n_lookup              (const char  *lang,
                                          const char  *key);
/* The catalogue key of an English source text, preferring @context when the same
 * text has several; NULL when the text is not the lab's. */
const char *gml_i18n_key_for_source      (const char  *text,
                                          const char  *context);

/* For GOptionContext: gml_i18n_gettext() as a GTranslateFunc. */
const char *gml_i18n_translate_func      (const char  *text,
                                          gpointer     user_data);

/* g_date_time_format() with the month names in the lab's language. */
char       *gml_i18n_format_date         (GDateTime   *date,
                                          const char  *format);

/* Runs the calling thread's lookups in @lang for a moment (bilingual mode); the
 * returned value goes to gml_i18n_pop_language(). Other threads are not affected. */
const char *gml_i18n_push_language       (const char  *lang);
void        gml_i18n_pop_language        (const char  *saved);

G_END_DECLS

#undef _
#undef C_
#undef ngettext
#define _(String) gml_i18n_gettext (String)
#define C_(Context, String) gml_i18n_pgettext (Context, String)
#define ngettext(Singular, Plural, N) gml_i18n_ngettext (Singular, Plural, N)

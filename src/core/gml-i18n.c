/* gml-i18n.c — which language the lab speaks, and switching it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-i18n"

#include "config.h"

#include <locale.h>
#include <libintl.h>

#include "gml-i18n.h"

/* glibc's counter of loaded catalogues; bumping it makes gettext drop its cache so a
 * change of LANGUAGE takes effect at once (the GNU gettext manual documents this). */
extern int _nl_msg_cat_cntr;

static gboolean
locale_is_c (const char *name)
{
  return name == NULL || g_str_equal (name, "C") || g_str_equal (name, "POSIX");
}

void
gml_i18n_init (void)
{
  const char *localedir = g_getenv ("GML_LOCALEDIR");

  setlocale (LC_ALL, "");
  /* Questions hold Turkish letters and typographic quotes: with no locale configured,
   * print them as UTF-8 rather than as question marks. */
  if (locale_is_c (setlocale (LC_CTYPE, NULL)))
    setlocale (LC_CTYPE, "C.UTF-8");
  /* GML_LOCALEDIR lets the uninstalled build and the tests use the catalogues
   * compiled into the build directory. */
  bindtextdomain (GETTEXT_PACKAGE, localedir != NULL ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}

gboolean
gml_i18n_is_known_language (const char *lang)
{
  return lang != NULL && (g_str_equal (lang, "tr") || g_str_equal (lang, "en"));
}

/* Chooses the language of every later gettext lookup: "tr", "en", or NULL for the
 * system's. gettext ignores LANGUAGE in the C locale, so a machine without a
 * configured locale gets C.UTF-8 for messages, which honours it. */
void
gml_i18n_set_language (const char *lang)
{
  if (lang == NULL)
    g_unsetenv ("LANGUAGE");
  else
    g_setenv ("LANGUAGE", lang, TRUE);

  if (lang != NULL && locale_is_c (setlocale (LC_MESSAGES, NULL)))
    setlocale (LC_MESSAGES, "C.UTF-8");

  ++_nl_msg_cat_cntr;
}

/* The language the user actually sees: "tr" when Turkish messages are in effect,
 * otherwise "en" (English is the source language). */
const char *
gml_i18n_get_language (void)
{
  const char *language = g_getenv ("LANGUAGE");
  const char *messages = setlocale (LC_MESSAGES, NULL);

  if (locale_is_c (messages))
    return "en";

  if (language != NULL && *language != '\0')
    return g_str_has_prefix (language, "tr") ? "tr" : "en";

  return g_str_has_prefix (messages, "tr") ? "tr" : "en";
}

/* gml-test-locale.h — lets a test binary run under a named locale
 * (--locale=tr_TR.UTF-8), so the same checks run in Turkish where the locale
 * is installed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <locale.h>
#include <string.h>

#include <glib.h>

/* Call before g_test_init(). Returns the locale asked for but missing, or NULL. */
static inline const char *
gml_test_set_locale (int    *argc,
                        char ***argv)
{
  const char *wanted = NULL;
  int j = 1;

  for (int i = 1; i < *argc; i++)
    {
      if (g_str_has_prefix ((*argv)[i], "--locale="))
        wanted = (*argv)[i] + strlen ("--locale=");
      else
        (*argv)[j++] = (*argv)[i];
    }
  *argc = j;
  (*argv)[j] = NULL;

  if (wanted == NULL)
    {
      setlocale (LC_ALL, "");
      return NULL;
    }

  /* Children (the replay command) inherit it through the environment. */
  g_setenv ("LC_ALL", wanted, TRUE);
  if (setlocale (LC_ALL, wanted) == NULL)
    {
      setlocale (LC_ALL, "");
      return wanted;
    }
  return NULL;
}

static inline void
gml_test_report_locale (const char *missing)
{
  if (missing)
    g_test_message ("locale %s is not installed here; these checks ran in the C locale",
                    missing);
  else
    g_test_message ("running in locale %s", setlocale (LC_ALL, NULL));
}

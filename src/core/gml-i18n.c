/* gml-i18n.c — which language the lab speaks, and switching it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-i18n"

#include "config.h"

#include <locale.h>
#include <libintl.h>
#include <string.h>

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
  /* gettext ignores LANGUAGE in the C locale; "LANGUAGE=tr gpu-memory-lab" on a
   * machine with no locale configured should still speak Turkish. */
  if (g_getenv ("LANGUAGE") != NULL && *g_getenv ("LANGUAGE") != '\0' &&
      locale_is_c (setlocale (LC_MESSAGES, NULL)))
    setlocale (LC_MESSAGES, "C.UTF-8");
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

/* Switches to `lang` and returns what to give gml_i18n_pop_language() to switch back,
 * so that a few strings can be looked up in the other language of a bilingual class. */
char *
gml_i18n_push_language (const char *lang)
{
  const char *language = g_getenv ("LANGUAGE");
  char *saved = g_strdup (language != NULL ? language : "");

  gml_i18n_set_language (lang);
  return saved;
}

void
gml_i18n_pop_language (char *saved)
{
  gml_i18n_set_language (saved != NULL && *saved != '\0' ? saved : NULL);
  g_free (saved);
}

typedef struct
{
  GMappedFile *file;
  GHashTable  *by_translation;   /* translated text -> key */
  GHashTable  *by_source;        /* msgid without context -> key */
} Catalogue;

static guint32
mo_word (const guint8 *data,
         gsize         length,
         gsize         offset,
         gboolean      swap)
{
  guint32 value;

  if (offset + 4 > length)
    return 0;
  memcpy (&value, data + offset, 4);
  return swap ? GUINT32_SWAP_LE_BE (value) : value;
}

/* Reads a compiled catalogue (.mo: a header, then two tables of (length, offset)
 * pairs for the keys and their translations) into two lookup tables. */
static Catalogue *
catalogue_load (const char *lang)
{
  const char *dir = bindtextdomain (GETTEXT_PACKAGE, NULL);
  g_autofree char *path = g_build_filename (dir, lang, "LC_MESSAGES", GETTEXT_PACKAGE ".mo", NULL);
  Catalogue *cat = g_new0 (Catalogue, 1);
  const guint8 *data;
  gsize length;
  gboolean swap;
  guint32 n, keys, values;

  cat->by_translation = g_hash_table_new (g_str_hash, g_str_equal);
  cat->by_source = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  cat->file = g_mapped_file_new (path, FALSE, NULL);
  if (cat->file == NULL)
    return cat;

  data = (const guint8 *) g_mapped_file_get_contents (cat->file);
  length = g_mapped_file_get_length (cat->file);
  if (length < 20)
    return cat;
  swap = mo_word (data, length, 0, FALSE) != 0x950412de;
  if (mo_word (data, length, 0, swap) != 0x950412de)
    return cat;
  n = mo_word (data, length, 8, swap);
  keys = mo_word (data, length, 12, swap);
  values = mo_word (data, length, 16, swap);

  for (guint32 i = 0; i < n; i++)
    {
      guint32 klen = mo_word (data, length, keys + 8 * i, swap);
      guint32 koff = mo_word (data, length, keys + 8 * i + 4, swap);
      guint32 vlen = mo_word (data, length, values + 8 * i, swap);
      guint32 voff = mo_word (data, length, values + 8 * i + 4, swap);
      const char *key, *value, *source;

      /* Strings are NUL-terminated in the file; plural forms follow the first one
       * after a NUL, so reading them as C strings keeps the singular. */
      if (klen == 0 || (gsize) koff + klen >= length || (gsize) voff + vlen >= length)
        continue;
      key = (const char *) data + koff;
      value = (const char *) data + voff;
      source = strchr (key, '\004');
      source = source != NULL ? source + 1 : key;
      g_hash_table_insert (cat->by_translation, (gpointer) value, (gpointer) key);
      g_hash_table_insert (cat->by_source, g_strdup (source), (gpointer) key);
    }
  return cat;
}

const char *
gml_i18n_key_for_text (const char *lang,
                       const char *text)
{
  static GHashTable *catalogues;   /* lang -> Catalogue, kept for the process's life */
  Catalogue *cat;
  const char *key;

  if (text == NULL || *text == '\0' || !gml_i18n_is_known_language (lang))
    return NULL;

  if (catalogues == NULL)
    catalogues = g_hash_table_new (g_str_hash, g_str_equal);
  /* English is the source language and has no catalogue; its texts are looked up
   * among the sources of the Turkish one. */
  cat = g_hash_table_lookup (catalogues, "tr");
  if (cat == NULL)
    {
      cat = catalogue_load ("tr");
      g_hash_table_insert (catalogues, (gpointer) "tr", cat);
    }

  if (g_str_equal (lang, "en"))
    return g_hash_table_lookup (cat->by_source, text);

  key = g_hash_table_lookup (cat->by_translation, text);
  return key;
}

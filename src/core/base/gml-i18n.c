/* gml-i18n.c — which language the lab speaks, and its own catalogue lookups.
 *
 * gettext chooses its language from the environment (LANGUAGE, LC_ALL, LANG), read
 * on every call; changing it at run time means setenv() while other threads may read
 * the environment, and glibc's catalogue cache has to be flushed by hand. The lab
 * instead reads its compiled catalogues (.mo files) once into hash tables and keeps
 * the language it speaks in a variable: gml_i18n_set_language() changes nothing but
 * that variable, and bilingual mode's look at the other language is per thread.
 *
 * The user's own choice at start-up wins when the setting is "system": LANGUAGE (a
 * list such as "tr:en", honoured even in the C locale, as the README promises), then
 * LC_ALL, LC_MESSAGES and LANG, as GLib orders them.
 *
 * The lab's text domain is bound for GOptionContext and for GLib's own use, but it is
 * not the default domain: GtkBuilder, which translates templates through the default
 * domain, gives the lab's templates their English source strings, and
 * gml_language_localize_widget() looks them up here and remembers their keys.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-i18n"

#include "config.h"

#include <locale.h>
#include <libintl.h>
#include <string.h>

#include "gml-i18n.h"

#define MO_MAGIC 0x950412de

typedef struct
{
  const char *text;       /* the translation; plural forms follow, NUL-separated */
  guint32     length;     /* of all forms together */
} Translation;

typedef struct
{
  GMappedFile *file;
  GHashTable  *by_key;        /* "context\004msgid" or "msgid" -> Translation */
  int          plural_kind;   /* see plural_index() */
} Catalogue;

typedef struct
{
  GHashTable *sources;        /* English msgid (without context) -> GPtrArray of keys */
} SourceIndex;

static const char *system_language;          /* NULL until read from the environment */
static const char *chosen_language = NULL;   /* NULL: the system's */
static char       *catalogue_dir;
static GPrivate    thread_language = G_PRIVATE_INIT (NULL);
static GMutex      load_lock;
static Catalogue  *turkish;                  /* loaded on first use, then read-only */
static SourceIndex *source_index;

static const char *
canonical_language (const char *lang)
{
  if (lang == NULL)
    return NULL;
  if (g_str_equal (lang, "tr"))
    return "tr";
  if (g_str_equal (lang, "en"))
    return "en";
  return NULL;
}

gboolean
gml_i18n_is_known_language (const char *lang)
{
  return canonical_language (lang) != NULL;
}

/* "tr_TR.UTF-8", "tr" -> "tr"; "en_GB", "C", "POSIX" -> "en"; anything else NULL. */
static const char *
language_of_locale_name (const char *name)
{
  if (name == NULL || *name == '\0')
    return NULL;
  if (g_ascii_strncasecmp (name, "tr", 2) == 0 &&
      (name[2] == '\0' || strchr ("_.@", name[2]) != NULL))
    return "tr";
  if (g_ascii_strncasecmp (name, "en", 2) == 0 &&
      (name[2] == '\0' || strchr ("_.@", name[2]) != NULL))
    return "en";
  if (g_str_equal (name, "C") || g_str_equal (name, "POSIX") || g_str_has_prefix (name, "C."))
    return "en";
  return NULL;
}

static const char *
language_from_environment (void)
{
  const char * const *names;
  const char *language = g_getenv ("LANGUAGE");

  /* LANGUAGE first, even in the C locale (gettext would ignore it there). Entries
   * the lab has no catalogue for are skipped, as gettext skips them. */
  if (language != NULL && *language != '\0')
    {
      g_auto(GStrv) entries = g_strsplit (language, ":", -1);

      for (guint i = 0; entries[i] != NULL; i++)
        {
          const char *lang = language_of_locale_name (entries[i]);

          if (lang != NULL && !g_str_equal (entries[i], "C"))
            return lang;
        }
    }

  /* Then LC_ALL, LC_MESSAGES and LANG, as GLib reads them. */
  names = g_get_language_names_with_category ("LC_MESSAGES");
  for (guint i = 0; names[i] != NULL; i++)
    {
      const char *lang = language_of_locale_name (names[i]);

      if (lang != NULL)
        return lang;
    }
  return "en";
}

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
  /* GTK's and libadwaita's own strings still come from gettext, which ignores
   * LANGUAGE in the C locale; C.UTF-8 honours it. */
  if (g_getenv ("LANGUAGE") != NULL && *g_getenv ("LANGUAGE") != '\0' &&
      locale_is_c (setlocale (LC_MESSAGES, NULL)))
    setlocale (LC_MESSAGES, "C.UTF-8");

  /* GML_LOCALEDIR lets the uninstalled build and the tests use the catalogues
   * compiled into the build directory. */
  g_free (catalogue_dir);
  catalogue_dir = g_strdup (localedir != NULL && *localedir != '\0' ? localedir : LOCALEDIR);
  bindtextdomain (GETTEXT_PACKAGE, catalogue_dir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  g_atomic_pointer_set (&system_language, language_from_environment ());
}

/* For programs (and tests) that never call gml_i18n_init(): the environment as it is. */
static void
ensure_system_language (void)
{
  static gsize read = 0;

  if (g_once_init_enter (&read))
    {
      if (g_atomic_pointer_get (&system_language) == NULL)
        g_atomic_pointer_set (&system_language, language_from_environment ());
      g_once_init_leave (&read, 1);
    }
}

const char *
gml_i18n_get_system_language (void)
{
  ensure_system_language ();
  return g_atomic_pointer_get (&system_language);
}

/* Chooses the language of every later lookup: "tr", "en", or NULL for the system's
 * (the user's LANGUAGE or locale at start-up). Nothing else changes. */
void
gml_i18n_set_language (const char *lang)
{
  g_atomic_pointer_set (&chosen_language, canonical_language (lang));
}

/* The language the calling thread's lookups use: "tr" or "en". */
const char *
gml_i18n_get_language (void)
{
  const char *lang = g_private_get (&thread_language);

  if (lang == NULL)
    lang = g_atomic_pointer_get (&chosen_language);
  return lang != NULL ? lang : gml_i18n_get_system_language ();
}

const char *
gml_i18n_push_language (const char *lang)
{
  const char *saved = g_private_get (&thread_language);

  g_private_set (&thread_language, (gpointer) canonical_language (lang));
  return saved;
}

void
gml_i18n_pop_language (const char *saved)
{
  g_private_set (&thread_language, (gpointer) saved);
}

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

/* The Plural-Forms the lab's catalogues use: Turkish has "plural=(n != 1);". */
enum {
  PLURAL_NOT_ONE,      /* n != 1 */
  PLURAL_ABOVE_ONE,    /* n > 1 */
  PLURAL_NONE,         /* one form */
};

static int
plural_kind_of_header (const char *header)
{
  const char *forms = header != NULL ? strstr (header, "plural=") : NULL;
  g_autoptr(GString) expression = g_string_new (NULL);

  if (forms == NULL)
    return PLURAL_NOT_ONE;
  for (const char *p = forms + strlen ("plural="); *p != '\0' && *p != ';' && *p != '\n'; p++)
    if (!g_ascii_isspace (*p) && *p != '(' && *p != ')')
      g_string_append_c (expression, *p);
  if (g_str_equal (expression->str, "n>1"))
    return PLURAL_ABOVE_ONE;
  if (g_str_equal (expression->str, "0"))
    return PLURAL_NONE;
  return PLURAL_NOT_ONE;
}

static guint
plural_index (int    kind,
              gulong n)
{
  switch (kind)
    {
    case PLURAL_ABOVE_ONE:
      return n > 1;
    case PLURAL_NONE:
      return 0;
    case PLURAL_NOT_ONE:
    default:
      return n != 1;
    }
}

/* A compiled catalogue: a header, then two tables of (length, offset) pairs, for
 * the keys and for their translations. Entries that point outside the file or are
 * not NUL-terminated are skipped: a damaged file gives English, never a crash. */
static Catalogue *
catalogue_load (const char *lang)
{
  const char *dir = catalogue_dir != NULL ? catalogue_dir : g_getenv ("GML_LOCALEDIR");
  g_autofree char *path = g_build_filename (dir != NULL && *dir != '\0' ? dir : LOCALEDIR, lang,
                                            "LC_MESSAGES", GETTEXT_PACKAGE ".mo", NULL);
  Catalogue *cat = g_new0 (Catalogue, 1);
  const guint8 *data;
  gsize length;
  gboolean swap;
  guint32 n, keys, values;

  cat->by_key = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  cat->plural_kind = PLURAL_NOT_ONE;
  cat->file = g_mapped_file_new (path, FALSE, NULL);
  if (cat->file == NULL)
    return cat;

  data = (const guint8 *) g_mapped_file_get_contents (cat->file);
  length = g_mapped_file_get_length (cat->file);
  if (length < 20)
    return cat;
  swap = mo_word (data, length, 0, FALSE) != MO_MAGIC;
  if (mo_word (data, length, 0, swap) != MO_MAGIC)
    return cat;
  n = mo_word (data, length, 8, swap);
  keys = mo_word (data, length, 12, swap);
  values = mo_word (data, length, 16, swap);

  for (guint32 i = 0; i < n; i++)
    {
      guint32 klen = mo_word (data, length, (gsize) keys + 8 * (gsize) i, swap);
      guint32 koff = mo_word (data, length, (gsize) keys + 8 * (gsize) i + 4, swap);
      guint32 vlen = mo_word (data, length, (gsize) values + 8 * (gsize) i, swap);
      guint32 voff = mo_word (data, length, (gsize) values + 8 * (gsize) i + 4, swap);
      Translation *translation;

      if ((gsize) koff + klen >= length || (gsize) voff + vlen >= length ||
          data[koff + klen] != '\0' || data[voff + vlen] != '\0')
        continue;
      if (klen == 0)
        {
          /* The header: its Plural-Forms line says how to choose a plural form. */
          cat->plural_kind = plural_kind_of_header ((const char *) data + voff);
          continue;
        }
      if (vlen == 0)
        continue;
      translation = g_new (Translation, 1);
      translation->text = (const char *) data + voff;
      translation->length = vlen;
      /* A plural entry's key is "singular\0plural": as a C string, the singular. */
      g_hash_table_replace (cat->by_key, (gpointer) (data + koff), translation);
    }
  return cat;
}

static Catalogue *
catalogue_for (const char *lang)
{
  Catalogue *cat;

  /* English is the source language: it has no catalogue. */
  if (g_strcmp0 (lang, "tr") != 0)
    return NULL;

  cat = g_atomic_pointer_get (&turkish);
  if (cat != NULL)
    return cat;

  g_mutex_lock (&load_lock);
  if (turkish == NULL)
    g_atomic_pointer_set (&turkish, catalogue_load ("tr"));
  cat = turkish;
  g_mutex_unlock (&load_lock);
  return cat;
}

static const Translation *
translation_of (const char *lang,
                const char *key)
{
  Catalogue *cat = catalogue_for (lang);

  if (cat == NULL || key == NULL || *key == '\0')
    return NULL;
  return g_hash_table_lookup (cat->by_key, key);
}

static const char *
strip_context (const char *key)
{
  const char *eot = strchr (key, '\004');

  return eot != NULL ? eot + 1 : key;
}

const char *
gml_i18n_lookup (const char *lang,
                 const char *key)
{
  const Translation *translation;

  if (key == NULL)
    return NULL;
  translation = translation_of (lang, key);
  return translation != NULL ? translation->text : strip_context (key);
}

const char *
gml_i18n_gettext (const char *msgid)
{
  const Translation *translation;

  if (msgid == NULL || *msgid == '\0')
    return msgid;
  translation = translation_of (gml_i18n_get_language (), msgid);
  return translation != NULL ? translation->text : msgid;
}

const char *
gml_i18n_pgettext (const char *context,
                   const char *msgid)
{
  g_autofree char *key = g_strconcat (context, "\004", msgid, NULL);
  const Translation *translation = translation_of (gml_i18n_get_language (), key);

  return translation != NULL ? translation->text : msgid;
}

const char *
gml_i18n_ngettext (const char *singular,
                   const char *plural,
                   gulong      n)
{
  const char *lang = gml_i18n_get_language ();
  const Translation *translation = translation_of (lang, singular);
  Catalogue *cat = catalogue_for (lang);
  const char *form, *end;
  guint index;

  if (translation == NULL || cat == NULL)
    return n == 1 ? singular : plural;

  index = plural_index (cat->plural_kind, n);
  form = translation->text;
  end = translation->text + translation->length;
  for (guint i = 0; i < index; i++)
    {
      const char *next = form + strlen (form) + 1;

      /* A catalogue with fewer forms than its formula asks for: the last one. */
      if (next >= end)
        break;
      form = next;
    }
  return form;
}

const char *
gml_i18n_translate_func (const char *text,
                         gpointer    user_data)
{
  return gml_i18n_gettext (text);
}

static SourceIndex *
source_index_get (void)
{
  SourceIndex *index = g_atomic_pointer_get (&source_index);
  Catalogue *cat;
  GHashTableIter iter;
  gpointer key;

  if (index != NULL)
    return index;

  cat = catalogue_for ("tr");
  g_mutex_lock (&load_lock);
  if (source_index == NULL)
    {
      index = g_new0 (SourceIndex, 1);
      index->sources = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                              (GDestroyNotify) g_ptr_array_unref);
      g_hash_table_iter_init (&iter, cat->by_key);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        {
          const char *source = strip_context (key);
          GPtrArray *keys = g_hash_table_lookup (index->sources, source);

          if (keys == NULL)
            {
              keys = g_ptr_array_new ();
              g_hash_table_insert (index->sources, (gpointer) source, keys);
            }
          g_ptr_array_add (keys, key);
        }
      g_atomic_pointer_set (&source_index, index);
    }
  index = source_index;
  g_mutex_unlock (&load_lock);
  return index;
}

const char *
gml_i18n_key_for_source (const char *text,
                         const char *context)
{
  GPtrArray *keys;
  const char *without_context = NULL;

  if (text == NULL || *text == '\0')
    return NULL;
  keys = g_hash_table_lookup (source_index_get ()->sources, text);
  if (keys == NULL)
    return NULL;

  for (guint i = 0; i < keys->len; i++)
    {
      const char *key = g_ptr_array_index (keys, i);
      const char *eot = strchr (key, '\004');

      if (eot == NULL)
        without_context = key;
      else if (context != NULL && strncmp (key, context, eot - key) == 0 &&
               context[eot - key] == '\0')
        return key;
    }
  return without_context != NULL ? without_context : g_ptr_array_index (keys, 0);
}

/* g_date_time_format() with the month's name from the lab's catalogue: GLib takes
 * %b and %B from the system's LC_TIME, which need not be the language the lab speaks
 * (a Turkish desktop, the lab in English). */
char *
gml_i18n_format_date (GDateTime  *date,
                      const char *format)
{
  static const char *abbreviated[12] = {
    NC_("abbreviated month", "Jan"), NC_("abbreviated month", "Feb"),
    NC_("abbreviated month", "Mar"), NC_("abbreviated month", "Apr"),
    NC_("abbreviated month", "May"), NC_("abbreviated month", "Jun"),
    NC_("abbreviated month", "Jul"), NC_("abbreviated month", "Aug"),
    NC_("abbreviated month", "Sep"), NC_("abbreviated month", "Oct"),
    NC_("abbreviated month", "Nov"), NC_("abbreviated month", "Dec"),
  };
  static const char *full[12] = {
    NC_("month", "January"), NC_("month", "February"), NC_("month", "March"), NC_("month", "April"),
    NC_("month", "May"), NC_("month", "June"), NC_("month", "July"), NC_("month", "August"),
    NC_("month", "September"), NC_("month", "October"), NC_("month", "November"),
    NC_("month", "December"),
  };
  g_autoptr(GString) spelled = g_string_new (NULL);
  int month;

  g_return_val_if_fail (date != NULL && format != NULL, NULL);

  month = g_date_time_get_month (date) - 1;
  for (const char *p = format; *p != '\0'; p++)
    {
      const char *name = NULL;

      if (p[0] == '%' && p[1] == 'b')
        name = gml_i18n_pgettext ("abbreviated month", abbreviated[month]);
      else if (p[0] == '%' && p[1] == 'B')
        name = gml_i18n_pgettext ("month", full[month]);
      else if (p[0] == '%' && p[1] != '\0')
        {
          g_string_append_len (spelled, p, 2);
          p++;
          continue;
        }
      if (name == NULL)
        {
          g_string_append_c (spelled, *p);
          continue;
        }
      for (const char *c = name; *c != '\0'; c++)
        {
          if (*c == '%')
            g_string_append_c (spelled, '%');
          g_string_append_c (spelled, *c);
        }
      p++;
    }
  return g_date_time_format (date, spelled->str);
}

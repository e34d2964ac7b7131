/* test-i18n.c — the lab's own catalogue lookups: the user's LANGUAGE at start-up,
 * switching without touching the environment, contexts, plurals, per-thread
 * bilingual lookups, month names, and damaged catalogues.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "gml-i18n.h"

static void
set_environment (const char *language,
                 const char *lang)
{
  g_unsetenv ("LC_ALL");
  g_unsetenv ("LC_MESSAGES");
  if (language != NULL)
    g_setenv ("LANGUAGE", language, TRUE);
  else
    g_unsetenv ("LANGUAGE");
  g_setenv ("LANG", lang, TRUE);
}

/* The README's way to choose Turkish: LANGUAGE=tr (or tr:en), with an English or a
 * C locale. "system" must be the user's LANGUAGE, not the locale. */
static void
test_system_language (void)
{
  static const struct { const char *language, *lang, *expected; } cases[] = {
    { "tr", "en_US.UTF-8", "tr" },
    { "tr", "C.UTF-8", "tr" },
    { "tr", "C", "tr" },
    { "tr:en", "en_US.UTF-8", "tr" },
    { "de:tr", "en_US.UTF-8", "tr" },
    { "en:tr", "tr_TR.UTF-8", "en" },
    { "en", "tr_TR.UTF-8", "en" },
    { NULL, "tr_TR.UTF-8", "tr" },
    { NULL, "en_US.UTF-8", "en" },
    { NULL, "C.UTF-8", "en" },
    { "", "tr_TR.UTF-8", "tr" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      set_environment (cases[i].language, cases[i].lang);
      gml_i18n_init ();
      gml_i18n_set_language (NULL);
      g_test_message ("LANGUAGE=%s LANG=%s", cases[i].language, cases[i].lang);
      g_assert_cmpstr (gml_i18n_get_system_language (), ==, cases[i].expected);
      g_assert_cmpstr (gml_i18n_get_language (), ==, cases[i].expected);
    }
}

static char *
environment_string (void)
{
  g_auto(GStrv) environment = g_get_environ ();

  return g_strjoinv ("\n", environment);
}

/* Switching looks strings up in the other language and changes nothing else. */
static void
test_switch_keeps_environment (void)
{
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  set_environment ("tr:en", "en_US.UTF-8");
  gml_i18n_init ();
  before = environment_string ();

  gml_i18n_set_language ("en");
  g_assert_cmpstr (_("Difficulty %d"), ==, "Difficulty %d");
  gml_i18n_set_language ("tr");
  g_assert_cmpstr (_("Difficulty %d"), ==, "Zorluk %d");
  gml_i18n_set_language (NULL);
  g_assert_cmpstr (_("Difficulty %d"), ==, "Zorluk %d");
  gml_i18n_set_language ("en");
  g_assert_cmpstr (_("Difficulty %d"), ==, "Difficulty %d");
  gml_i18n_set_language ("xx");
  g_assert_cmpstr (gml_i18n_get_language (), ==, "tr");

  after = environment_string ();
  g_assert_cmpstr (before, ==, after);
  gml_i18n_set_language (NULL);
}

static void
test_context_and_plural (void)
{
  gml_i18n_set_language ("tr");
  g_assert_cmpstr (C_("memory kind", "Allocated"), ==, "Tahsis edilmiş");
  g_assert_cmpstr (C_("no such context", "Allocated"), ==, "Allocated");
  g_assert_cmpstr (ngettext ("%u trace entry contradicts the state and was skipped.",
                             "%u trace entries contradict the state and were skipped.", 1), ==,
                   "%u iz kaydı durumla çelişiyor ve atlandı.");
  g_assert_cmpstr (ngettext ("%u trace entry contradicts the state and was skipped.",
                             "%u trace entries contradict the state and were skipped.", 7), ==,
                   "%u iz kaydı durumla çelişiyor ve atlandı.");
  g_assert_cmpstr (_("not a string of the lab"), ==, "not a string of the lab");
  g_assert_cmpstr (_(""), ==, "");

  gml_i18n_set_language ("en");
  g_assert_cmpstr (ngettext ("%u trace entry contradicts the state and was skipped.",
                             "%u trace entries contradict the state and were skipped.", 1), ==,
                   "%u trace entry contradicts the state and was skipped.");
  g_assert_cmpstr (ngettext ("%u trace entry contradicts the state and was skipped.",
                             "%u trace entries contradict the state and were skipped.", 3), ==,
                   "%u trace entries contradict the state and were skipped.");
  gml_i18n_set_language (NULL);
}

/* Two source strings can share one translation, and one source string can have
 * several contexts: the key of a source string prefers the context asked for. */
static void
test_keys (void)
{
  const char *key = gml_i18n_key_for_source ("Next question", "shortcut window");

  g_assert_cmpstr (key, ==, "shortcut window\004Next question");
  g_assert_cmpstr (gml_i18n_key_for_source ("Next Question", NULL), ==, "Next Question");
  g_assert_cmpstr (gml_i18n_key_for_source ("Play or pause the picture", NULL), ==,
                   "Play or pause the picture");
  g_assert_cmpstr (gml_i18n_key_for_source ("Play or pause the picture", "shortcut window"), ==,
                   "shortcut window\004Play or pause the picture");
  g_assert_null (gml_i18n_key_for_source ("not a string of the lab", NULL));
  g_assert_null (gml_i18n_key_for_source (NULL, NULL));

  g_assert_cmpstr (gml_i18n_lookup ("tr", "shortcut window\004Next question"), ==, "Sonraki soru");
  g_assert_cmpstr (gml_i18n_lookup ("en", "shortcut window\004Next question"), ==, "Next question");
  /* A category's name and a topic of the bank. */
  g_assert_cmpstr (gml_i18n_lookup ("tr", "KV cache"), ==, gml_i18n_lookup ("tr", "The KV cache"));
  g_assert_cmpstr (gml_i18n_lookup ("en", "The KV cache"), ==, "The KV cache");
}

static gpointer
other_thread_cb (gpointer data)
{
  const char *seen = NULL;

  /* The main thread looks at English for a moment; this one still sees Turkish. */
  for (guint i = 0; i < 2000; i++)
    {
      seen = _("Difficulty %d");
      if (!g_str_equal (seen, "Zorluk %d"))
        return (gpointer) seen;
    }
  return NULL;
}

/* Bilingual mode's look at the other language is the calling thread's alone. */
static void
test_push_is_per_thread (void)
{
  GThread *thread;
  const char *saved;

  gml_i18n_set_language ("tr");
  saved = gml_i18n_push_language ("en");
  g_assert_cmpstr (gml_i18n_get_language (), ==, "en");
  thread = g_thread_new ("lookups", other_thread_cb, NULL);
  for (guint i = 0; i < 2000; i++)
    g_assert_cmpstr (_("Difficulty %d"), ==, "Difficulty %d");
  g_assert_null (g_thread_join (thread));
  gml_i18n_pop_language (saved);
  g_assert_cmpstr (gml_i18n_get_language (), ==, "tr");
  gml_i18n_set_language (NULL);
}

static gpointer
reader_cb (gpointer data)
{
  gint *stop = data;

  while (!g_atomic_int_get (stop))
    {
      const char *text = _("Difficulty %d");

      g_assert_true (g_str_equal (text, "Zorluk %d") || g_str_equal (text, "Difficulty %d"));
    }
  return NULL;
}

/* Switching while another thread looks strings up is safe: no environment, no cache. */
static void
test_switch_while_reading (void)
{
  gint stop = 0;
  GThread *thread = g_thread_new ("reader", reader_cb, &stop);

  for (guint i = 0; i < 20000; i++)
    gml_i18n_set_language (i % 2 ? "tr" : "en");
  g_atomic_int_set (&stop, 1);
  g_thread_join (thread);
  gml_i18n_set_language (NULL);
}

static void
test_month_names (void)
{
  g_autoptr(GDateTime) date = g_date_time_new_utc (2026, 11, 30, 12, 0, 0);
  g_autofree char *en = NULL;
  g_autofree char *tr = NULL;
  g_autofree char *tr_full = NULL;
  g_autofree char *numbers = NULL;

  gml_i18n_set_language ("en");
  en = gml_i18n_format_date (date, "%-d %b");
  numbers = gml_i18n_format_date (date, _("%-d %B %Y"));
  gml_i18n_set_language ("tr");
  tr = gml_i18n_format_date (date, "%-d %b %%b");
  tr_full = gml_i18n_format_date (date, "%-d %B %Y");
  g_assert_cmpstr (en, ==, "30 Nov");
  g_assert_cmpstr (numbers, ==, "30 November 2026");
  g_assert_cmpstr (tr, ==, "30 Kas %b");
  g_assert_cmpstr (tr_full, ==, "30 Kasım 2026");
  g_clear_pointer (&numbers, g_free);
  numbers = gml_i18n_format_date (date, _("%-d %B %Y"));
  g_assert_cmpstr (numbers, ==, "30.11.2026");
  gml_i18n_set_language (NULL);
}

/* A damaged catalogue gives English, never a crash. Run in a child process: the
 * catalogue is read once per process. */
static void
test_damaged_catalogue (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *dir = g_dir_make_tmp ("gml-i18n-XXXXXX", NULL);
      g_autofree char *messages = g_build_filename (dir, "tr", "LC_MESSAGES", NULL);
      g_autofree char *path = g_build_filename (messages, GETTEXT_PACKAGE ".mo", NULL);
      /* The right magic number, then tables that point far outside the file. */
      static const guint32 header[] = { 0x950412de, 0, 1000, 28, 0x7ffffff0, 0, 0 };

      g_assert_cmpint (g_mkdir_with_parents (messages, 0700), ==, 0);
      g_assert_true (g_file_set_contents (path, (const char *) header, sizeof header, NULL));
      g_setenv ("GML_LOCALEDIR", dir, TRUE);
      set_environment ("tr", "C.UTF-8");
      gml_i18n_init ();
      g_assert_cmpstr (_("Difficulty %d"), ==, "Difficulty %d");
      g_assert_cmpstr (ngettext ("%u of %u right", "%u of %u right", 2), ==, "%u of %u right");
      g_assert_null (gml_i18n_key_for_source ("Difficulty %d", NULL));
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/i18n/system-language", test_system_language);
  g_test_add_func ("/core/i18n/switch-keeps-environment", test_switch_keeps_environment);
  g_test_add_func ("/core/i18n/context-and-plural", test_context_and_plural);
  g_test_add_func ("/core/i18n/keys", test_keys);
  g_test_add_func ("/core/i18n/push-is-per-thread", test_push_is_per_thread);
  g_test_add_func ("/core/i18n/switch-while-reading", test_switch_while_reading);
  g_test_add_func ("/core/i18n/month-names", test_month_names);
  g_test_add_func ("/core/i18n/damaged-catalogue", test_damaged_catalogue);

  return g_test_run ();
}

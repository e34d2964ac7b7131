/* test-shortcuts-window.c — the shortcuts window fits a 1024-pixel-wide screen (a
 * classroom projector's) in both languages: its widest page once took 1,500
 * pixels in Turkish, and a window manager cannot shrink it below that.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "gml-i18n.h"
#include "gml-window.h"

/* How wide the window's content is once shown, in the language set now. */
static int
shortcuts_width (void)
{
  GtkWindow *window = GTK_WINDOW (gml_window_new_shortcuts_window ());
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  int width;

  g_assert_nonnull (window);
  gtk_window_present (window);
  while (g_get_monotonic_time () < deadline &&
         (!gtk_widget_get_mapped (GTK_WIDGET (window)) ||
          gtk_widget_get_width (gtk_window_get_child (window)) == 0))
    g_main_context_iteration (NULL, TRUE);
  width = gtk_widget_get_width (gtk_window_get_child (window));
  g_test_message ("shortcuts window “%s”: %d pixels wide", gtk_window_get_title (window), width);
  gtk_window_destroy (window);
  return width;
}

/* GTK 4.8's GtkShortcutsWindow warns about one of its own labels ("reported min
 * width -3") when it is first measured: that warning is GTK's, and is dropped
 * here; every other message goes to GLib's writer, fatal as G_DEBUG says. */
static GLogWriterOutput
writer_cb (GLogLevelFlags   level,
           const GLogField *fields,
           gsize            n_fields,
           gpointer         user_data)
{
  for (gsize i = 0; i < n_fields; i++)
    if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 && fields[i].length < 0 &&
        strstr (fields[i].value, "reported min width") != NULL)
      return G_LOG_WRITER_HANDLED;
  return g_log_writer_default (level, fields, n_fields, user_data);
}

static void
test_fits (gconstpointer data)
{
  const char *language = data;

  gml_i18n_set_language (language);
  /* The window's frame and margins come on top of its content. */
  g_assert_cmpint (shortcuts_width (), <=, 1000);
  gml_i18n_set_language ("en");
}

int
main (int    argc,
      char **argv)
{
  g_log_set_writer_func (writer_cb, NULL, NULL);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  gml_i18n_init ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_data_func ("/widgets/shortcuts-window/fits/en", "en", test_fits);
  g_test_add_data_func ("/widgets/shortcuts-window/fits/tr", "tr", test_fits);
  return g_test_run ();
}

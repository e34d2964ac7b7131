/* bare-adw-window.c — a second yardstick for bench/startup: bare-window.c with
 * libadwaita, an AdwApplicationWindow with one label, reporting when it is mapped and
 * when its first frame has been painted. It shows what libadwaita alone adds (adw_init,
 * its style sheet, the window's own frame) to any window built on it, as the lab's is.
 * The target stays the bare GTK 4 window; this one is for information.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <adwaita.h>

static void
after_paint_cb (GdkFrameClock *clock,
                GApplication  *app)
{
  g_print ("first-frame %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  g_signal_handlers_disconnect_by_func (clock, after_paint_cb, app);
  g_application_quit (app);
}

static void
map_cb (GtkWidget *window)
{
  g_print ("bench mapped %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
}

static void
realize_cb (GtkWidget    *window,
            GApplication *app)
{
  g_signal_connect (gtk_widget_get_frame_clock (window), "after-paint", G_CALLBACK (after_paint_cb),
                    app);
}

static void
activate_cb (GtkApplication *app)
{
  GtkWidget *window = adw_application_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1040, 720);
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (window), gtk_label_new ("Hello"));
  g_signal_connect (window, "realize", G_CALLBACK (realize_cb), app);
  g_signal_connect (window, "map", G_CALLBACK (map_cb), NULL);
  gtk_window_present (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(AdwApplication) app = adw_application_new ("org.example.BareAdwWindow",
                                                       G_APPLICATION_NON_UNIQUE);

  g_signal_connect (app, "activate", G_CALLBACK (activate_cb), NULL);
  return g_application_run (G_APPLICATION (app), argc, argv);
}

/* test-icons.c — the app's own symbolic icons come pre-rendered: at the sizes
 * Adwaita ships, GTK finds a .symbolic.png in the application's resources, as it
 * does for Adwaita's icons, and so draws the first frame without loading an SVG
 * renderer; at other sizes it still has the SVG.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <gtk/gtk.h>

static const char * const icons[] = {
  "gml-filter-symbolic",
  "gml-quiz-symbolic",
  "gml-snapshot-symbolic",
  "gml-lab-symbolic",
  "gml-live-symbolic",
};

/* Where GTK takes @name from at @size and @scale. */
static char *
icon_uri (GtkIconTheme *theme,
          const char   *name,
          int           size,
          int           scale)
{
  g_autoptr(GtkIconPaintable) icon = NULL;
  g_autoptr(GFile) file = NULL;

  icon = gtk_icon_theme_lookup_icon (theme, name, NULL, size, scale, GTK_TEXT_DIR_LTR, 0);
  g_assert_nonnull (icon);
  file = gtk_icon_paintable_get_file (icon);
  g_assert_nonnull (file);
  return g_file_get_uri (file);
}

static void
test_pre_rendered (void)
{
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gdk_display_get_default ());
  static const int sizes[] = { 16, 24, 32, 48, 64, 96 };

  for (guint i = 0; i < G_N_ELEMENTS (icons); i++)
    {
      g_assert_true (gtk_icon_theme_has_icon (theme, icons[i]));
      for (guint j = 0; j < G_N_ELEMENTS (sizes); j++)
        {
          g_autofree char *uri = icon_uri (theme, icons[i], sizes[j], 1);
          g_autofree char *expected =
              g_strdup_printf ("resource://" RESOURCE_BASE "/icons/%dx%d/actions/%s.symbolic.png",
                               sizes[j], sizes[j], icons[i]);

          g_assert_cmpstr (uri, ==, expected);
        }
      /* A header bar's icon on a HiDPI screen: the 32 px picture, not the SVG. */
      {
        g_autofree char *uri = icon_uri (theme, icons[i], 16, 2);

        g_assert_true (g_str_has_suffix (uri, ".symbolic.png"));
      }
    }
}

/* The PNG is the SVG drawn: a 16 px icon with ink in it, and a 16 px texture. */
static void
test_drawn (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (icons); i++)
    {
      g_autofree char *path = g_strdup_printf (RESOURCE_BASE "/icons/16x16/actions/%s.symbolic.png",
                                               icons[i]);
      g_autoptr(GdkTexture) texture = gdk_texture_new_from_resource (path);
      g_autofree guchar *pixels = NULL;
      gsize ink = 0;

      g_assert_cmpint (gdk_texture_get_width (texture), ==, 16);
      g_assert_cmpint (gdk_texture_get_height (texture), ==, 16);
      pixels = g_malloc (16 * 16 * 4);
      gdk_texture_download (texture, pixels, 16 * 4);
      for (guint p = 0; p < 16 * 16; p++)
        ink += pixels[p * 4 + 3] > 0;
      g_assert_cmpuint (ink, >, 16);
    }
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  /* What GtkApplication does for the application's resource base path. */
  gtk_icon_theme_add_resource_path (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                    RESOURCE_BASE "/icons");

  g_test_add_func ("/icons/pre-rendered", test_pre_rendered);
  g_test_add_func ("/icons/drawn", test_drawn);
  return g_test_run ();
}

/* test-picture-view.c — GmlPictureView as a widget: given a scenario's picture,
 * switched between views and steps, its description followed, drawn in a real
 * window in light, dark and high contrast (the pixels read back), and finalized.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "gml-device.h"
#include "gml-i18n.h"
#include "gml-picture-view.h"
#include "gml-scenario.h"

typedef struct
{
  GmlDevice   *device;
  GmlScenario *scenario;
  GmlPicture  *picture;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->device = gml_device_sim_new (GML_SCENARIO_SIM_CAPACITY, 0);
  f->scenario = gml_scenario_new ("fragmentation", f->device, &error);
  g_assert_no_error (error);
  g_assert_nonnull (f->scenario);
  f->picture = gml_picture_new (f->scenario);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_pointer (&f->picture, gml_picture_free);
  g_clear_pointer (&f->scenario, gml_scenario_free);
  g_clear_pointer (&f->device, gml_device_destroy);
}

static GmlPictureView *
new_view (void)
{
  return GML_PICTURE_VIEW (g_object_ref_sink (gml_picture_view_new ()));
}

/* The description a screen reader gets is the picture's, for the view and the
 * step shown, and follows each change; without a picture there is none. */
static void
test_describe (Fixture       *f,
               gconstpointer  data)
{
  GmlPictureView *view = new_view ();
  g_autofree char *map = NULL;
  g_autofree char *timeline = NULL;
  g_autofree char *first = NULL;
  guint last = gml_scenario_get_n_steps (f->scenario) - 1;

  g_assert_null (gml_picture_view_get_description (view));

  gml_picture_set_step (f->picture, last);
  gml_picture_view_set_picture (view, f->picture);
  map = gml_picture_describe_full (f->picture, GML_VIEW_MEMORY_MAP);
  g_assert_cmpint (gml_picture_view_get_view (view), ==, GML_VIEW_MEMORY_MAP);
  g_assert_cmpstr (gml_picture_view_get_description (view), ==, map);

  gml_picture_view_set_view (view, GML_VIEW_TIMELINE);
  timeline = gml_picture_describe_full (f->picture, GML_VIEW_TIMELINE);
  g_assert_cmpstr (timeline, !=, map);
  g_assert_cmpstr (gml_picture_view_get_description (view), ==, timeline);

  /* Another step: the old text stays until the view is told, then follows. */
  gml_picture_view_set_view (view, GML_VIEW_MEMORY_MAP);
  gml_picture_set_step (f->picture, 0);
  g_assert_cmpstr (gml_picture_view_get_description (view), ==, map);
  gml_picture_view_changed (view);
  first = gml_picture_describe_full (f->picture, GML_VIEW_MEMORY_MAP);
  g_assert_cmpstr (first, !=, map);
  g_assert_cmpstr (gml_picture_view_get_description (view), ==, first);

  gml_picture_view_set_picture (view, NULL);
  g_assert_null (gml_picture_view_get_description (view));
  g_assert_finalize_object (view);
}

static gboolean
frame_drawn_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       user_data)
{
  guint *frames = user_data;

  (*frames)++;
  return G_SOURCE_CONTINUE;
}

/* The view's own rendering, as GTK would put it on screen, read back as pixels. */
static GdkTexture *
render (GtkWidget *widget)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node == NULL)
    return NULL;
  return gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)),
                                      node,
                                      &GRAPHENE_RECT_INIT (0, 0, width, height));
}

/* Distinct colours in the texture (up to @limit), and the pixel at (x, y). */
static guint
count_colours (GdkTexture *texture,
               guint       limit,
               int         x,
               int         y,
               guint32    *pixel)
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  g_autofree guint32 *data = g_new (guint32, (gsize) width * height);
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  gdk_texture_download (texture, (guchar *) data, (gsize) width * 4);
  *pixel = data[(gsize) y * width + x];
  for (gsize i = 0; i < (gsize) width * height && g_hash_table_size (seen) < limit; i++)
    g_hash_table_add (seen, GUINT_TO_POINTER (data[i]));
  return g_hash_table_size (seen);
}

static gboolean
same_pixels (GdkTexture *a,
             GdkTexture *b)
{
  int width = gdk_texture_get_width (a);
  int height = gdk_texture_get_height (a);
  g_autofree guchar *pa = NULL;
  g_autofree guchar *pb = NULL;

  if (width != gdk_texture_get_width (b) || height != gdk_texture_get_height (b))
    return FALSE;
  pa = g_malloc ((gsize) width * height * 4);
  pb = g_malloc ((gsize) width * height * 4);
  gdk_texture_download (a, pa, (gsize) width * 4);
  gdk_texture_download (b, pb, (gsize) width * 4);
  return memcmp (pa, pb, (gsize) width * height * 4) == 0;
}

/* The palette's background as gdk_texture_download() writes it (B, G, R, A in memory). */
static guint32
argb (const GmlColor *c)
{
  return 0xff000000u | (guint32) (c->red * 255 + 0.5) << 16 | (guint32) (c->green * 255 + 0.5) << 8 |
         (guint32) (c->blue * 255 + 0.5);
}

/* In a window on the display: nothing drawn without a picture; with one, the
 * picture, its ground the style's background in light, dark and high contrast. */
static void
test_draw (Fixture       *f,
           gconstpointer  data)
{
  /* Then high contrast (as the desktop's, which libadwaita 1.2 cannot be told
   * to take, or the preferences'), over the dark scheme and over the light. */
  static const struct { AdwColorScheme scheme; const char *style; GmlTheme theme; } schemes[] = {
    { ADW_COLOR_SCHEME_FORCE_LIGHT, "system", GML_THEME_LIGHT },
    { ADW_COLOR_SCHEME_FORCE_DARK, "system", GML_THEME_DARK },
    { ADW_COLOR_SCHEME_FORCE_DARK, "high-contrast", GML_THEME_HIGH_CONTRAST_DARK },
    { ADW_COLOR_SCHEME_FORCE_LIGHT, "high-contrast", GML_THEME_HIGH_CONTRAST },
  };
  AdwStyleManager *manager = adw_style_manager_get_default ();
  g_autoptr(GSettings) settings = g_settings_new (APPLICATION_ID);
  GdkTexture *textures[G_N_ELEMENTS (schemes)] = { NULL };
  GtkWidget *window = gtk_window_new ();
  GmlPictureView *view = new_view ();
  g_autoptr(GdkTexture) empty = NULL;
  guint frames = 0;

  gtk_window_set_default_size (GTK_WINDOW (window), 640, 420);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_widget_add_tick_callback (GTK_WIDGET (view), frame_drawn_cb, &frames, NULL);
  gtk_window_present (GTK_WINDOW (window));
  while (frames < 2 || gtk_widget_get_width (GTK_WIDGET (view)) < 240)
    g_main_context_iteration (NULL, TRUE);

  empty = render (GTK_WIDGET (view));
  g_assert_null (empty);

  gml_picture_view_set_picture (view, f->picture);
  for (guint i = 0; i < G_N_ELEMENTS (schemes); i++)
    {
      g_autoptr(GdkTexture) texture = NULL;
      GmlRenderStyle style;
      guint32 corner;
      guint colours;

      adw_style_manager_set_color_scheme (manager, schemes[i].scheme);
      g_settings_set_string (settings, "style", schemes[i].style);
      /* Two frames later the view has drawn itself in the new style. */
      for (guint target = frames + 2; frames < target;)
        g_main_context_iteration (NULL, TRUE);
      gml_picture_view_get_style (view, &style);
      g_assert_cmpint (style.theme, ==, schemes[i].theme);
      texture = render (GTK_WIDGET (view));
      g_assert_nonnull (texture);
      colours = count_colours (texture, 64, 1, 1, &corner);
      g_test_message ("theme %d: %u colours, corner %08x", style.theme, colours, corner);
      /* A memory map: the ground, segments, blocks of several categories, text. */
      g_assert_cmpuint (colours, >=, 8);
      g_assert_cmphex (corner, ==, argb (&style.palette.background));
      /* Each style is drawn differently from the others, not only named so. */
      for (guint j = 0; j < i; j++)
        g_assert_false (same_pixels (texture, textures[j]));
      textures[i] = g_object_ref (texture);
    }
  g_settings_reset (settings, "style");
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_DEFAULT);
  for (guint i = 0; i < G_N_ELEMENTS (schemes); i++)
    g_clear_object (&textures[i]);

  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (view);
}

int
main (int    argc,
      char **argv)
{
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  gml_i18n_init ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add ("/widgets/picture-view/describe", Fixture, NULL, fixture_set_up, test_describe,
              fixture_tear_down);
  g_test_add ("/widgets/picture-view/draw", Fixture, NULL, fixture_set_up, test_draw,
              fixture_tear_down);
  return g_test_run ();
}

/* test-look.c — one look for every canvas: the Preferences' forced high contrast
 * reaches the picture beside a question, the snapshot canvas and the statistics
 * chart alike (the chart once missed it), and each change is told once.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "gml-i18n.h"
#include "gml-look.h"
#include "gml-picture-view.h"
#include "gml-snapshot-canvas.h"
#include "gml-stats-view.h"

static void
count_cb (GObject    *object,
          GParamSpec *pspec,
          guint      *count)
{
  (*count)++;
}

static void
assert_every_canvas (GmlPictureView    *picture,
                     GmlSnapshotCanvas *canvas,
                     GmlStatsView      *stats,
                     gboolean           high_contrast)
{
  GmlRenderStyle style;
  GmlStatsStyle stats_style;
  GmlTheme expected = high_contrast ? GML_THEME_HIGH_CONTRAST : GML_THEME_LIGHT;

  gml_picture_view_get_style (picture, &style);
  g_assert_cmpint (style.theme, ==, expected);
  gml_snapshot_canvas_get_style (canvas, &style);
  g_assert_cmpint (style.theme, ==, expected);
  gml_stats_view_get_style (stats, &stats_style);
  g_assert_cmpfloat (stats_style.line_width, ==, high_contrast ? 2 : 1);
}

static void
test_forced_high_contrast (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APPLICATION_ID);
  GmlLook *look = gml_look_get_default ();
  GmlPictureView *picture = GML_PICTURE_VIEW (g_object_ref_sink (gml_picture_view_new ()));
  GmlSnapshotCanvas *canvas = g_object_ref_sink (g_object_new (GML_TYPE_SNAPSHOT_CANVAS, NULL));
  GmlStatsView *stats = GML_STATS_VIEW (g_object_ref_sink (gml_stats_view_new ()));
  guint notified = 0;

  g_settings_set_string (settings, "style", "light");
  g_assert_cmpint (gml_look_get_theme (look), ==, GML_THEME_LIGHT);
  g_signal_connect (look, "notify::theme", G_CALLBACK (count_cb), &notified);
  assert_every_canvas (picture, canvas, stats, FALSE);

  g_settings_set_string (settings, "style", "high-contrast");
  g_assert_cmpuint (notified, ==, 1);
  g_assert_true (gml_look_is_high_contrast (look));
  g_assert_false (gml_look_is_dark (look));
  assert_every_canvas (picture, canvas, stats, TRUE);

  /* The same value again is no change. */
  g_settings_set_string (settings, "style", "high-contrast");
  g_assert_cmpuint (notified, ==, 1);

  g_settings_set_string (settings, "style", "system");
  g_assert_cmpuint (notified, ==, 2);
  assert_every_canvas (picture, canvas, stats, FALSE);

  g_signal_handlers_disconnect_by_func (look, count_cb, &notified);
  g_assert_finalize_object (picture);
  g_assert_finalize_object (canvas);
  g_assert_finalize_object (stats);
}

int
main (int    argc,
      char **argv)
{
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  gml_i18n_init ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/widgets/look/forced-high-contrast", test_forced_high_contrast);
  return g_test_run ();
}

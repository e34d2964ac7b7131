/* gml-stats-view.c — the statistics picture as a widget: a thin wrapper that draws
 * gml_render_stats() and tells screen readers the same numbers in words.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-stats-view"

#include "config.h"

#include "gml-i18n.h"

#include "gml-render-stats.h"
#include "gml-stats-view.h"
#include "gml-look.h"

struct _GmlStatsView
{
  GtkWidget     parent_instance;

  GmlStatsData  data;
  gboolean      has_data;
  char         *description;
};

G_DEFINE_FINAL_TYPE (GmlStatsView, gml_stats_view, GTK_TYPE_WIDGET)

void
gml_stats_view_get_style (GmlStatsView  *self,
                          GmlStatsStyle *style)
{
  GmlLook *look = gml_look_get_default ();

  /* The Preferences' forced high contrast too, as every other picture. */
  gml_stats_style_init (style, gml_look_is_dark (look), gml_look_is_high_contrast (look));
  /* The window's own background, as in the rest of the app. */
  style->paint_background = FALSE;
}

static void
gml_stats_view_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  GmlStatsView *self = GML_STATS_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  GmlStatsStyle style;
  cairo_t *cr;

  if (!self->has_data || width <= 0 || height <= 0)
    return;
  gml_stats_view_get_style (self, &style);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  gml_render_stats (cr, &self->data, &style, width, height);
  cairo_destroy (cr);
}

static void
gml_stats_view_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  GmlStatsView *self = GML_STATS_VIEW (widget);
  GmlStatsStyle style;

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 320;
      *natural = 720;
      return;
    }
  gml_stats_view_get_style (self, &style);
  *minimum = *natural = self->has_data ? (int) gml_stats_height_for (&self->data, &style) : 200;
}

/* Recounts the log: call after every change of the answers. */
void
gml_stats_view_update (GmlStatsView    *self,
                       GmlProgress     *progress,
                       GmlQuestionBank *bank)
{
  g_autoptr(GTimeZone) tz = g_time_zone_new_local ();

  g_return_if_fail (GML_IS_STATS_VIEW (self));

  if (self->has_data)
    gml_stats_data_clear (&self->data);
  gml_stats_data_init (&self->data, progress, bank, tz, g_get_real_time () / G_USEC_PER_SEC);
  self->has_data = TRUE;

  g_free (self->description);
  self->description = gml_describe_stats (&self->data);
  /* Both in the language of the moment: an update follows every language switch. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Statistics of your answers"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, self->description,
                                  -1);
  gtk_widget_queue_resize (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const char *
gml_stats_view_get_description (GmlStatsView *self)
{
  g_return_val_if_fail (GML_IS_STATS_VIEW (self), NULL);
  return self->description;
}

static void
gml_stats_view_finalize (GObject *object)
{
  GmlStatsView *self = GML_STATS_VIEW (object);

  if (self->has_data)
    gml_stats_data_clear (&self->data);
  g_free (self->description);

  G_OBJECT_CLASS (gml_stats_view_parent_class)->finalize (object);
}

static void
gml_stats_view_class_init (GmlStatsViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = gml_stats_view_finalize;
  widget_class->snapshot = gml_stats_view_snapshot;
  widget_class->measure = gml_stats_view_measure;

  gtk_widget_class_set_css_name (widget_class, "statsview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
gml_stats_view_init (GmlStatsView *self)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Statistics of your answers"),
                                  -1);
  gml_look_redraw_on_change (gml_look_get_default (), self);
}

GtkWidget *
gml_stats_view_new (void)
{
  return g_object_new (GML_TYPE_STATS_VIEW, NULL);
}

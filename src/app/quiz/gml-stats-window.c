/* gml-stats-window.c — the Statistics window.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "gml-i18n.h"

#include "gml-language.h"
#include "gml-stats-view.h"
#include "gml-stats-window.h"

struct _GmlStatsWindow
{
  AdwWindow       parent_instance;

  /* Template children */
  GmlStatsView   *view;

  /* Borrowed: the application outlives its windows. */
  GmlApplication *app;
};

G_DEFINE_FINAL_TYPE (GmlStatsWindow, gml_stats_window, ADW_TYPE_WINDOW)

void
gml_stats_window_update (GmlStatsWindow *self)
{
  g_return_if_fail (GML_IS_STATS_WINDOW (self));

  if (self->app != NULL)
    gml_stats_view_update (self->view, gml_application_get_progress (self->app),
                           gml_application_get_bank (self->app));
}

/* The title comes back from the template; the chart's words and figures are drawn
 * again in the new language. */
static void
language_changed_cb (GtkWidget *widget)
{
  gml_stats_window_update (GML_STATS_WINDOW (widget));
}

static void
gml_stats_window_class_init (GmlStatsWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  g_type_ensure (GML_TYPE_STATS_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/gpumemorylab/GpuMemoryLab/"
                                               "gml-stats-window.ui");
  gtk_widget_class_bind_template_child (widget_class, GmlStatsWindow, view);
  /* Escape and Ctrl+W close it, as in every GNOME dialog. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close",
                                       NULL);
}

static void
gml_stats_window_init (GmlStatsWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gml_language_localize_widget (GTK_WIDGET (self), NULL);
}

GtkWindow *
gml_stats_window_new (GtkWindow      *parent,
                      GmlApplication *app)
{
  GmlStatsWindow *self;

  g_return_val_if_fail (GML_IS_APPLICATION (app), NULL);

  self = g_object_new (GML_TYPE_STATS_WINDOW, "transient-for", parent, NULL);
  self->app = app;
  gml_language_follow (GTK_WIDGET (self), language_changed_cb);
  gml_stats_window_update (self);
  return GTK_WINDOW (self);
}

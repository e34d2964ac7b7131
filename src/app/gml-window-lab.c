/* gml-window-lab.c — the Experiment view in the window: its place in the
 * view switcher, its title, and the way questions open a configuration in it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-window"

#include "config.h"

#include "gml-i18n.h"

#include "gml-window-private.h"
#include "gml-lab-presentation.h"

gboolean
_gml_window_showing_lab (GmlWindow *self)
{
  return g_strcmp0 (adw_view_stack_get_visible_child_name (self->view_stack), "lab") == 0;
}

/* F5 in the Experiment view: its result, large, in a window of its own. */
void
_gml_window_present_lab (GmlWindow *self)
{
  GmlLabRun *run = gml_lab_page_get_run (_gml_window_ensure_lab_page (self));
  GtkWindow *window;

  if (run == NULL)
    {
      _gml_window_toast (self, _("The experiment has not run yet: run it first (Ctrl+Enter)."));
      return;
    }
  window = gml_lab_presentation_new (GTK_WINDOW (self), run);
  gtk_window_fullscreen (window);
  gtk_window_present (window);
}

/* A question's "Open in the lab": its configuration, in the Experiment view. */
void
gml_window_open_lab (GmlWindow  *self,
                     const char *args)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (GML_IS_WINDOW (self));

  if (!gml_lab_page_open_config (_gml_window_ensure_lab_page (self), args, &error))
    {
      _gml_window_toast (self, error->message);
      return;
    }
  adw_view_stack_set_visible_child_name (self->view_stack, "lab");
}

static void
win_open_lab_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  gml_window_open_lab (GML_WINDOW (widget), g_variant_get_string (parameter, NULL));
}

/* Into the view, the keyboard focus goes with it: the page's keys (Ctrl+Enter,
 * Ctrl+L …) work from the first moment. */
static void
visible_child_changed_cb (GmlWindow *self)
{
  if (_gml_window_showing_lab (self) &&
      !gtk_widget_is_ancestor (gtk_root_get_focus (GTK_ROOT (self)), GTK_WIDGET (self->lab_page)))
    gtk_widget_child_focus (GTK_WIDGET (self->lab_page), GTK_DIR_TAB_FORWARD);
}

static void
subtitle_changed_cb (GmlWindow *self)
{
  _gml_window_update_title (self);
}

/* The Experiment view, built the first time it is shown or a question opens
 * its configuration in it. */
GmlLabPage *
_gml_window_ensure_lab_page (GmlWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  if (self->lab_page != NULL)
    return self->lab_page;

  self->lab_page = g_object_new (GML_TYPE_LAB_PAGE, NULL);
  if (GML_IS_APPLICATION (app))
    gml_lab_page_set_progress (self->lab_page,
                               gml_application_get_progress (GML_APPLICATION (app)));
  g_signal_connect_object (self->lab_page, "notify::subtitle", G_CALLBACK (subtitle_changed_cb),
                           self,
                           G_CONNECT_SWAPPED);
  _gml_window_adopt_view (self, self->lab_bin, GTK_WIDGET (self->lab_page), "lab");
  return self->lab_page;
}

void
_gml_window_lab_setup (GmlWindow      *self,
                       GmlApplication *app)
{
  g_signal_connect_object (self->view_stack, "notify::visible-child-name",
                           G_CALLBACK (visible_child_changed_cb),
                           self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
}

void
_gml_window_lab_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, lab_bin);
  gtk_widget_class_install_action (widget_class, "win.open-lab", "s", win_open_lab_action);
}

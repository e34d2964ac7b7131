/* gml-window-live.c — how running programs reach the window's Live view:
 * `gpu-memory-lab watch -- COMMAND` (the application hands the command to
 * its first window), Attach… (Ctrl+Shift+A), and the Live view's socket,
 * listened on while the view is shown.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-window"

#include "config.h"

#include "gml-i18n.h"

#include "gml-attach-dialog.h"
#include "gml-window-private.h"

static void
attach_cb (GmlWindow       *self,
           GSocket         *socket,
           GmlProbeMessage *hello,
           GmlAttachDialog *dialog)
{
  adw_view_stack_set_visible_child_name (self->view_stack, "live");
  gml_live_page_attach (_gml_window_ensure_live_page (self), socket, hello);
}

static void
win_attach_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  GmlWindow *self = GML_WINDOW (widget);
  GmlAttachDialog *dialog = gml_attach_dialog_new (GTK_WINDOW (self));

  g_signal_connect_object (dialog, "attach", G_CALLBACK (attach_cb), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
live_message_cb (GmlWindow   *self,
                 const char  *message,
                 GmlLivePage *page)
{
  _gml_window_toast (self, message);
}

static void
live_open_file_cb (GmlWindow   *self,
                   GFile       *file,
                   GmlLivePage *page)
{
  gml_window_open_file (self, file);
}

/* Saved: said in a toast whose button opens the file in the Snapshot view. */
static void
live_saved_cb (GmlWindow   *self,
               GFile       *file,
               GmlLivePage *page)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = path != NULL ? g_filename_display_basename (path)
                                       : g_file_get_basename (file);
  g_autofree char *uri = g_file_get_uri (file);
  /* Translators: %s is a file name. */
  g_autofree char *text = g_strdup_printf (_("Snapshot saved as “%s”."), name);
  AdwToast *toast = adw_toast_new (text);

  adw_toast_set_timeout (toast, 10);
  adw_toast_set_button_label (toast, _("_Open"));
  adw_toast_set_action_name (toast, "win.open-recent");
  adw_toast_set_action_target_value (toast, g_variant_new_string (uri));
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
live_ended_cb (GmlWindow   *self,
               int          status,
               GmlLivePage *page)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  /* `watch` ends with the program's status once the window closes. */
  if (status >= 0 && GML_IS_APPLICATION (app))
    _gml_application_set_watch_status (GML_APPLICATION (app), status);
}

static void
live_title_cb (GmlWindow *self)
{
  _gml_window_update_title (self);
}

void
_gml_window_live_view_changed (GmlWindow *self,
                               gboolean   visible)
{
  /* Programs connect by themselves only while someone can see them (a view
   * never shown listens to nothing). */
  if (self->live_page != NULL)
    gml_live_page_set_listening (self->live_page, visible);
}

void
_gml_window_live_setup (GmlWindow      *self,
                        GmlApplication *app)
{
  g_autofree char *snapshot_dir = NULL;
  double interval = 0.5;
  g_auto(GStrv) command = _gml_application_steal_watch_command (app, &interval, &snapshot_dir);
  g_autoptr(GError) error = NULL;

  if (command == NULL)
    return;
  adw_view_stack_set_visible_child_name (self->view_stack, "live");
  if (!gml_live_page_watch_command (_gml_window_ensure_live_page (self),
                                    (const char * const *) command, interval, snapshot_dir,
                                    &error))
    {
      _gml_window_toast (self, error->message);
      /* Like a shell that cannot run a command. */
      _gml_application_set_watch_status (app, 127);
    }
}

void
_gml_window_live_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, live_bin);
  gtk_widget_class_install_action (widget_class, "win.attach", NULL, win_attach_action);
  /* Its key, Ctrl+Shift+A, is an application accelerator: see the table in
   * gml-application.c. */
}

/* The Live view, built the first time it is shown or a program is watched or
 * attached to. */
GmlLivePage *
_gml_window_ensure_live_page (GmlWindow *self)
{
  if (self->live_page != NULL)
    return self->live_page;

  self->live_page = g_object_new (GML_TYPE_LIVE_PAGE, NULL);
  g_signal_connect_object (self->live_page, "message", G_CALLBACK (live_message_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->live_page, "open-file", G_CALLBACK (live_open_file_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->live_page, "saved", G_CALLBACK (live_saved_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->live_page, "ended", G_CALLBACK (live_ended_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->live_page, "notify::title", G_CALLBACK (live_title_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->live_page, "notify::subtitle", G_CALLBACK (live_title_cb), self,
                           G_CONNECT_SWAPPED);
  _gml_window_adopt_view (self, self->live_bin, GTK_WIDGET (self->live_page), "live");
  return self->live_page;
}

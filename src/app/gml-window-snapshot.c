/* gml-window-snapshot.c — how snapshots reach the window: Open Snapshot…
 * (Ctrl+O), a file dropped on the window, the recent snapshots in the main
 * menu, and the command line (GmlApplication::open calls gml_window_open_file);
 * and the second run of a comparison: Compare With Another Snapshot…, or a
 * file dropped with Ctrl held.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-window"

#include "config.h"

#include "gml-i18n.h"

#include "gml-window-private.h"

#define MAX_RECENT 8
#define PICKLE_MIME_TYPE "application/x-python-pickle"

void
gml_window_open_file (GmlWindow *self,
                      GFile     *file)
{
  g_return_if_fail (GML_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  adw_view_stack_set_visible_child_name (self->view_stack, "snapshot");
  gml_snapshot_page_open (_gml_window_ensure_snapshot_page (self), file);
}

static void
snapshot_message_cb (GmlWindow       *self,
                     const char      *message,
                     GmlSnapshotPage *page)
{
  _gml_window_toast (self, message);
}

static void
snapshot_title_cb (GmlWindow *self)
{
  _gml_window_update_title (self);
}

/* The Snapshot view, built the first time it is shown or a file is opened. */
GmlSnapshotPage *
_gml_window_ensure_snapshot_page (GmlWindow *self)
{
  if (self->snapshot_page != NULL)
    return self->snapshot_page;

  self->snapshot_page = g_object_new (GML_TYPE_SNAPSHOT_PAGE, NULL);
  g_signal_connect_object (self->snapshot_page, "message", G_CALLBACK (snapshot_message_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->snapshot_page, "notify::title", G_CALLBACK (snapshot_title_cb),
                           self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->snapshot_page, "notify::subtitle", G_CALLBACK (snapshot_title_cb),
                           self,
                           G_CONNECT_SWAPPED);
  _gml_window_adopt_view (self, self->snapshot_bin, GTK_WIDGET (self->snapshot_page), "snapshot");
  return self->snapshot_page;
}

/* ------------------------------------------------------------------------- */
/* Open Snapshot…                                                            */

/* What Open and Compare offer: PyTorch's pickles, by name or by type. */
static GtkFileFilter *
new_pickle_filter (void)
{
  GtkFileFilter *pickles = gtk_file_filter_new ();

  gtk_file_filter_set_name (pickles, _("PyTorch memory snapshots"));
  gtk_file_filter_add_pattern (pickles, "*.pickle");
  gtk_file_filter_add_pattern (pickles, "*.pkl");
  gtk_file_filter_add_mime_type (pickles, PICKLE_MIME_TYPE);
  return pickles;
}

static void
win_open_snapshot_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  g_autoptr(GtkFileFilter) pickles = new_pickle_filter ();

  _gml_window_choose_file (GML_WINDOW (widget), &GML_WINDOW (widget)->chooser, _("Open Snapshot"),
                           _("_Open"),
                           pickles, gml_window_open_file);
}

static void
compare_file (GmlWindow *self,
              GFile     *file)
{
  adw_view_stack_set_visible_child_name (self->view_stack, "snapshot");
  gml_snapshot_page_compare (_gml_window_ensure_snapshot_page (self), file);
}

static void
win_compare_snapshot_action (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  g_autoptr(GtkFileFilter) pickles = new_pickle_filter ();

  _gml_window_choose_file (GML_WINDOW (widget), &GML_WINDOW (widget)->compare_chooser,
                           _("Compare With Another Snapshot"), _("_Compare"), pickles,
                           compare_file);
}

static void
win_open_recent_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (parameter, NULL));

  gml_window_open_file (GML_WINDOW (widget), file);
}

static void
win_practise_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  _gml_window_practise_topic (GML_WINDOW (widget), g_variant_get_string (parameter, NULL));
}

/* ------------------------------------------------------------------------- */
/* Drag and drop                                                             */

static gboolean
drop_cb (GmlWindow     *self,
         const GValue  *value,
         double         x,
         double         y,
         GtkDropTarget *target)
{
  GtkEventController *controller = GTK_EVENT_CONTROLLER (target);
  GdkModifierType state = gtk_event_controller_get_current_event_state (controller);
  GFile *file;

  if (!G_VALUE_HOLDS (value, G_TYPE_FILE))
    return FALSE;
  file = g_value_get_object (value);
  if (file == NULL)
    return FALSE;
  /* Ctrl held (a copy, which this target accepts): the run to compare with. */
  if (state & GDK_CONTROL_MASK)
    compare_file (self, file);
  else
    gml_window_open_file (self, file);
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Recent snapshots                                                          */

static int
by_modified_desc (gconstpointer a,
                  gconstpointer b)
{
  GtkRecentInfo *x = *(GtkRecentInfo **) a;
  GtkRecentInfo *y = *(GtkRecentInfo **) b;

  return -g_date_time_compare (gtk_recent_info_get_modified (x), gtk_recent_info_get_modified (y));
}

static void
fill_recent_menu (GmlWindow *self)
{
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  g_autoptr(GPtrArray) ours =
      g_ptr_array_new_with_free_func ((GDestroyNotify) gtk_recent_info_unref);
  const char *app_name = g_get_prgname () != NULL ? g_get_prgname () : "gpu-memory-lab";

  for (GList *l = items; l != NULL; l = l->next)
    {
      GtkRecentInfo *info = l->data;

      if (gtk_recent_info_has_application (info, app_name) &&
          g_strcmp0 (gtk_recent_info_get_mime_type (info), PICKLE_MIME_TYPE) == 0 &&
          (!gtk_recent_info_is_local (info) || gtk_recent_info_exists (info)))
        g_ptr_array_add (ours, gtk_recent_info_ref (info));
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  g_ptr_array_sort (ours, by_modified_desc);

  g_menu_remove_all (self->recent_menu);
  for (guint i = 0; i < ours->len && i < MAX_RECENT; i++)
    {
      GtkRecentInfo *info = g_ptr_array_index (ours, i);
      /* Menu labels take "_" for a mnemonic: "my_run.pickle" must keep its underscores. */
      g_auto(GStrv) parts = g_strsplit (gtk_recent_info_get_display_name (info), "_", -1);
      g_autofree char *label = g_strjoinv ("__", parts);
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target (item, "win.open-recent", "s",
                                         gtk_recent_info_get_uri (info));
      g_menu_append_item (self->recent_menu, item);
    }
}

/* The main menu's first section: "Open Snapshot…", "Compare With Another
 * Snapshot…", then the recent ones when there are any. The language switch
 * replaces the menu with a translated copy (gml-language.c), so the submenu
 * is linked in again after it. */
static void
install_recent_submenu (GmlWindow *self)
{
  GMenuModel *menu = gtk_menu_button_get_menu_model (self->menu_button);
  g_autoptr(GMenuModel) section = NULL;

  if (menu == NULL || g_menu_model_get_n_items (menu) == 0)
    return;
  section = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
  if (!G_IS_MENU (section))
    return;
  /* "Open Snapshot…" and "Compare With Another Snapshot…" stay. */
  while (g_menu_model_get_n_items (section) > 2)
    g_menu_remove (G_MENU (section), 2);
  if (g_menu_model_get_n_items (G_MENU_MODEL (self->recent_menu)) > 0)
    g_menu_append_submenu (G_MENU (section), _("Recent S_napshots"),
                           G_MENU_MODEL (self->recent_menu));
}

static void
recent_changed_cb (GmlWindow *self)
{
  fill_recent_menu (self);
  install_recent_submenu (self);
}

void
_gml_window_snapshot_retranslate (GmlWindow *self)
{
  install_recent_submenu (self);
}

/* ------------------------------------------------------------------------- */

void
_gml_window_snapshot_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, snapshot_bin);
  gtk_widget_class_install_action (widget_class, "win.open-snapshot", NULL,
                                   win_open_snapshot_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", win_open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.compare-snapshot", NULL,
                                   win_compare_snapshot_action);
  gtk_widget_class_install_action (widget_class, "win.practise", "s", win_practise_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK,
                                       "win.open-snapshot", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.compare-snapshot", NULL);
}

void
_gml_window_snapshot_init (GmlWindow *self)
{
  GtkDropTarget *drop = gtk_drop_target_new (G_TYPE_FILE, GDK_ACTION_COPY);

  g_signal_connect_object (drop, "drop", G_CALLBACK (drop_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  /* Filled when the main menu is first made (_gml_window_snapshot_menu_created). */
  self->recent_menu = g_menu_new ();
}

/* The main menu has just been made: the recent snapshots are read now and
 * followed from now on, not before the window's first frame. GtkRecentManager
 * reads the desktop's whole recently-used file, every program's entries, on the
 * main loop: 145 M instructions (40-57 ms here) for a file of 1 000 entries. */
void
_gml_window_snapshot_menu_created (GmlWindow *self)
{
  g_signal_connect_object (gtk_recent_manager_get_default (), "changed",
                           G_CALLBACK (recent_changed_cb), self,
                           G_CONNECT_SWAPPED);
  recent_changed_cb (self);
}

void
_gml_window_snapshot_dispose (GmlWindow *self)
{
  _gml_window_drop_chooser (&self->chooser);
  _gml_window_drop_chooser (&self->compare_chooser);
  g_clear_object (&self->recent_menu);
}

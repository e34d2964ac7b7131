/* gml-attach-dialog.c — Attach…: the programs whose probe waits for the lab.
 *
 * Looking is done in a thread (each waiting probe is asked for its hello, a
 * second at most each); so is connecting to the one chosen. Sockets whose
 * program is gone are removed and counted in a note. A probe another lab
 * already watches is listed, but cannot be chosen.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-attach-dialog"

#include "config.h"

#include "gml-i18n.h"

#include "gml-attach-dialog.h"
#include "gml-probe-socket.h"
#include "gml-weak-ref.h"

struct _GmlAttachDialog
{
  AdwWindow     parent_instance;

  /* Template widgets */
  GtkButton    *refresh_button;
  GtkStack     *stack;
  GtkSpinner   *spinner;
  AdwStatusPage *empty_page;
  GtkListBox   *list;
  GtkLabel     *note_label;

  /* Owned */
  GCancellable *cancellable;
  GPtrArray    *waiting;       /* GmlProbeWaiting */
};

enum {
  ATTACH,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GmlAttachDialog, gml_attach_dialog, ADW_TYPE_WINDOW)

static void look (GmlAttachDialog *self);

static void
set_note (GmlAttachDialog *self,
          const char      *note)
{
  gtk_label_set_label (self->note_label, note != NULL ? note : "");
  gtk_widget_set_visible (GTK_WIDGET (self->note_label), note != NULL);
}

/* ------------------------------------------------------------------------- */
/* Connecting                                                                */

typedef struct
{
  GSocket         *socket;
  GmlProbeMessage *hello;
} Connected;

static void
connected_free (gpointer data)
{
  Connected *c = data;

  g_clear_object (&c->socket);
  g_clear_pointer (&c->hello, gml_probe_message_free);
  g_free (c);
}

static void
connect_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  const char *path = task_data;
  Connected *c = g_new0 (Connected, 1);
  GError *error = NULL;

  c->socket = gml_probe_connect (path, 2000, &c->hello, &error);
  if (c->socket == NULL)
    {
      connected_free (c);
      g_task_return_error (task, error);
      return;
    }
  if (c->hello->watched)
    {
      connected_free (c);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_BUSY, "%s",
                               _("Another window of the lab started watching this program."));
      return;
    }
  g_task_return_pointer (task, c, connected_free);
}

static void
connected_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GmlAttachDialog) self = gml_weak_ref_steal (user_data);
  g_autoptr(GError) error = NULL;
  Connected *c = g_task_propagate_pointer (G_TASK (result), &error);

  /* Closed while connecting: the program is not attached (the socket closes). */
  if (self == NULL)
    {
      g_clear_pointer (&c, connected_free);
      return;
    }
  if (c == NULL)
    {
      g_autofree char *text = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      /* Translators: %s says why. */
      text = g_strdup_printf (_("Could not attach: %s"), error->message);
      set_note (self, text);
      look (self);
      return;
    }
  /* The handler takes both. */
  g_signal_emit (self, signals[ATTACH], 0, g_steal_pointer (&c->socket),
                 g_steal_pointer (&c->hello));
  connected_free (c);
  gtk_window_destroy (GTK_WINDOW (self));
}

static void
attach_clicked_cb (GtkButton       *button,
                   GmlAttachDialog *self)
{
  const char *path = g_object_get_data (G_OBJECT (button), "gml-path");
  /* The dialog is held weakly, so closing it disposes it (and cancels) at once. */
  g_autoptr(GTask) task = g_task_new (NULL, self->cancellable, connected_cb,
                                      gml_weak_ref_new (self));

  gtk_widget_set_sensitive (GTK_WIDGET (self->list), FALSE);
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, connect_thread);
}

/* ------------------------------------------------------------------------- */
/* Looking                                                                   */

static GtkWidget *
row_new (GmlAttachDialog *self,
         GmlProbeWaiting *w)
{
  GtkWidget *row = adw_action_row_new ();
  g_autofree char *command = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *escaped_subtitle = NULL;
  GtkWidget *button;

  if (w->hello != NULL && w->hello->argv != NULL && w->hello->argv[0] != NULL)
    command = g_strjoinv (" ", w->hello->argv);
  else
    /* Translators: %d is a process id. */
    command = g_strdup_printf (_("Process %d"), (int) w->pid);
  escaped = g_markup_escape_text (command, -1);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), escaped);

  if (w->hello == NULL)
    subtitle = g_strdup (w->problem != NULL ? w->problem : "");
  else if (w->hello->watched)
    /* Translators: %d is a process id. */
    subtitle = g_strdup_printf (_("Process %d · another window of the lab watches it"),
                                (int) w->pid);
  else
    /* Translators: a process id, a GPU's name and PyTorch's version. */
    subtitle = g_strdup_printf (_("Process %d · %s · PyTorch %s"), (int) w->pid,
                                w->hello->device_name != NULL ? w->hello->device_name : "?",
                                w->hello->torch_version != NULL ? w->hello->torch_version : "?");
  escaped_subtitle = g_markup_escape_text (subtitle, -1);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), escaped_subtitle);

  button = gtk_button_new_with_mnemonic (_("_Attach"));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_sensitive (button, w->hello != NULL && !w->hello->watched);
  g_object_set_data_full (G_OBJECT (button), "gml-path", g_strdup (w->path), g_free);
  {
    /* Translators: a command line, then a process id. */
    g_autofree char *label = g_strdup_printf (_("Attach to %s (process %d)"), command,
                                              (int) w->pid);

    gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                    -1);
  }
  g_signal_connect_object (button, "clicked", G_CALLBACK (attach_clicked_cb), self, 0);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), button);
  /* The row makes its title label the button's too, and GTK 4.8 would read
   * both, the command twice: the label above already names it. */
  gtk_accessible_reset_relation (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
  return row;
}

static void
list_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  GPtrArray *waiting = gml_probe_list_waiting (cancellable, &error);

  if (waiting == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, waiting, (GDestroyNotify) g_ptr_array_unref);
}

static void
listed_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GmlAttachDialog) self = gml_weak_ref_steal (user_data);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) waiting = g_task_propagate_pointer (G_TASK (result), &error);
  GtkWidget *child;
  guint stale = 0, shown = 0;

  if (self == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  gtk_spinner_stop (self->spinner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->refresh_button), TRUE);
  if (waiting == NULL)
    {
      adw_status_page_set_description (self->empty_page, error->message);
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);
  for (guint i = 0; i < waiting->len; i++)
    {
      GmlProbeWaiting *w = g_ptr_array_index (waiting, i);

      if (w->stale)
        {
          stale++;
          continue;
        }
      gtk_list_box_append (self->list, row_new (self, w));
      shown++;
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->list), TRUE);
  gtk_stack_set_visible_child_name (self->stack, shown > 0 ? "list" : "empty");
  if (stale > 0)
    {
      g_autofree char *note =
          g_strdup_printf (ngettext ("%u program that is no longer running had left its socket "
                                     "behind; it was removed.",
                                     "%u programs that are no longer running had left their "
                                     "sockets behind; they were removed.", stale), stale);

      set_note (self, note);
    }
}

static void
look (GmlAttachDialog *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  gtk_widget_set_sensitive (GTK_WIDGET (self->refresh_button), FALSE);
  gtk_spinner_start (self->spinner);
  if (gtk_widget_get_first_child (GTK_WIDGET (self->list)) == NULL)
    gtk_stack_set_visible_child_name (self->stack, "looking");
  task = g_task_new (NULL, self->cancellable, listed_cb, gml_weak_ref_new (self));
  g_task_run_in_thread (task, list_thread);
}

static void
refresh_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  set_note (GML_ATTACH_DIALOG (widget), NULL);
  look (GML_ATTACH_DIALOG (widget));
}

/* ------------------------------------------------------------------------- */

static void
gml_attach_dialog_dispose (GObject *object)
{
  GmlAttachDialog *self = GML_ATTACH_DIALOG (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_ATTACH_DIALOG);

  G_OBJECT_CLASS (gml_attach_dialog_parent_class)->dispose (object);
}

static void
gml_attach_dialog_class_init (GmlAttachDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = gml_attach_dialog_dispose;

  /**
   * GmlAttachDialog::attach:
   * @socket: (transfer full): connected to the chosen probe
   * @hello: (transfer full): its hello, a GmlProbeMessage *
   */
  signals[ATTACH] = g_signal_new ("attach", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                  NULL, NULL,
                                  G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_POINTER);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_BASE "/gml-attach-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, GmlAttachDialog, refresh_button);
  gtk_widget_class_bind_template_child (widget_class, GmlAttachDialog, stack);
  gtk_widget_class_bind_template_child (widget_class, GmlAttachDialog, spinner);
  gtk_widget_class_bind_template_child (widget_class, GmlAttachDialog, empty_page);
  gtk_widget_class_bind_template_child (widget_class, GmlAttachDialog, list);
  gtk_widget_class_bind_template_child (widget_class, GmlAttachDialog, note_label);

  gtk_widget_class_install_action (widget_class, "attach.refresh", NULL, refresh_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "attach.refresh", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
gml_attach_dialog_init (GmlAttachDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->refresh_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Look again"), -1);
}

GmlAttachDialog *
gml_attach_dialog_new (GtkWindow *parent)
{
  GmlAttachDialog *self = g_object_new (GML_TYPE_ATTACH_DIALOG, "transient-for", parent, NULL);

  look (self);
  return self;
}

/* gml-window-import.c — Import Questions…: a GIFT, Moodle XML or Aiken file as
 * extra topics, from the window, with the checks `gpu-memory-lab import` makes.
 *
 *   win.import-questions    choose a file and import it      Ctrl+Shift+I
 *
 * The import itself (read, check, write, read back) runs in a worker.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-window-import"

#include "config.h"

#include "gml-i18n.h"
#include "gml-moodle.h"
#include "gml-weak-ref.h"
#include "gml-window-private.h"

/* A bank that cannot be imported: why, in a dialog the error can be read in
 * whole (it names the file and the line of the question at fault). */
static void
show_import_error (GmlWindow  *self,
                   const char *message)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self),
                                              _("The Questions Were Not Imported"),
                                              message);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  adw_message_dialog_set_body_use_markup (ADW_MESSAGE_DIALOG (dialog), FALSE);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* What the worker hands back: the file written, its questions (read into a bank
 * of their own, unless they replace an earlier import) and how many there are. */
typedef struct
{
  char            *target;
  GmlQuestionBank *bank;
  guint            n;
  gboolean         replaced;
} Imported;

static void
imported_free (Imported *imported)
{
  g_free (imported->target);
  gml_question_bank_free (imported->bank);
  g_free (imported);
}

/* Reading, checking against every other bank and writing the result can take a
 * while for a big file: all of it runs here, off the main loop. */
static void
import_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  g_autoptr(GError) error = NULL;
  Imported *imported = g_new0 (Imported, 1);

  imported->target = gml_moodle_import_to_user_dir (task_data, &imported->n,
                                                    &imported->replaced, &error);
  if (imported->target != NULL && !imported->replaced)
    {
      g_autoptr(GFile) bank = g_file_new_for_path (imported->target);

      imported->bank = gml_question_bank_new ();
      if (!gml_question_bank_load_file (imported->bank, bank, FALSE, &error))
        g_clear_pointer (&imported->target, g_free);
    }
  if (imported->target == NULL)
    {
      imported_free (imported);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_return_pointer (task, imported, (GDestroyNotify) imported_free);
}

static void
imported_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GmlWindow) self = gml_weak_ref_steal (user_data);
  g_autoptr(GError) error = NULL;
  Imported *imported = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *name = NULL;
  g_autofree char *display = NULL;
  g_autofree char *message = NULL;

  if (source != NULL)
    g_application_release (G_APPLICATION (source));
  /* A window closed meanwhile has nothing to show it in; the file is written and
   * the next start reads it. */
  if (self == NULL)
    {
      g_clear_pointer (&imported, imported_free);
      return;
    }
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.import-questions", TRUE);
  if (imported == NULL)
    {
      show_import_error (self, error->message);
      return;
    }
  name = g_path_get_basename (g_task_get_task_data (G_TASK (result)));
  display = g_filename_display_name (name);
  if (imported->replaced)
    {
      /* The bank in memory has the earlier import's ids: it is read again at the
       * next start, as the banks are. */
      /* Translators: %u is a number of questions, %s a file name. */
      message =
          g_strdup_printf (ngettext ("%u question imported from %s. It replaces the earlier import "
                                     "of that file the next time GPU Memory Lab starts.",
                                     "%u questions imported from %s. They replace the earlier "
                                     "import of that file the next time GPU Memory Lab starts.",
                                     imported->n),
                           imported->n, display);
    }
  else if (!gml_question_bank_take_all (self->bank, imported->bank, &error))
    {
      imported_free (imported);
      show_import_error (self, error->message);
      return;
    }
  else
    {
      _gml_window_refresh_topics (self);
      /* Translators: %u is a number of questions, %s a file name. */
      message =
          g_strdup_printf (ngettext ("%u question imported from %s: its topic is in the topic "
                                     "list.",
                                     "%u questions imported from %s: their topic is in the "
                                     "topic list.", imported->n),
                           imported->n, display);
    }
  imported_free (imported);
  _gml_window_toast (self, message);
}

static void
import_file (GmlWindow *self,
             GFile     *file)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  g_autoptr(GTask) task = NULL;
  char *path = g_file_get_path (file);

  if (path == NULL)
    {
      show_import_error (self, _("The file is not on this computer's file system."));
      return;
    }
  /* One import at a time; the application stays up until the file is written. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.import-questions", FALSE);
  if (app != NULL)
    g_application_hold (G_APPLICATION (app));
  task = g_task_new (app, NULL, imported_cb, gml_weak_ref_new (self));
  g_task_set_source_tag (task, import_file);
  g_task_set_task_data (task, path, g_free);
  g_task_run_in_thread (task, import_thread);
}

static void
win_import_questions_action (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  g_autoptr(GtkFileFilter) banks = gtk_file_filter_new ();

  gtk_file_filter_set_name (banks, _("GIFT, Moodle XML and Aiken files"));
  gtk_file_filter_add_pattern (banks, "*.gift");
  gtk_file_filter_add_pattern (banks, "*.txt");
  gtk_file_filter_add_pattern (banks, "*.xml");
  _gml_window_choose_file (GML_WINDOW (widget), &GML_WINDOW (widget)->import_chooser,
                           _("Import Questions"),
                           _("_Import"), banks, import_file);
}

void
_gml_window_import_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.import-questions", NULL,
                                   win_import_questions_action);
  /* Its key, Ctrl+Shift+I, is an application accelerator: see the table in
   * gml-application.c. */
}

void
_gml_window_import_dispose (GmlWindow *self)
{
  _gml_window_drop_chooser (&self->import_chooser);
}

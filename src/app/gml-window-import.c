/* gml-window-import.c — Import Questions…: a GIFT, Moodle XML or Aiken file as
 * extra topics, from the window, with the checks `gpu-memory-lab import` makes.
 *
 *   win.import-questions    choose a file and import it      Ctrl+Shift+I
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-window-import"

#include "config.h"

#include "gml-i18n.h"
#include "gml-moodle.h"
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

static void
import_file (GmlWindow *self,
             GFile     *file)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *target = NULL;
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *display = g_filename_display_name (name);
  g_autofree char *message = NULL;
  gboolean replaced = FALSE;
  guint n = 0;

  if (path == NULL)
    {
      show_import_error (self, _("The file is not on this computer's file system."));
      return;
    }
  target = gml_moodle_import_to_user_dir (path, &n, &replaced, &error);
  if (target == NULL)
    {
      show_import_error (self, error->message);
      return;
    }
  if (replaced)
    {
      /* The bank in memory has the earlier import's ids: it is read again at the
       * next start, as the banks are. */
      /* Translators: %u is a number of questions, %s a file name. */
      message =
          g_strdup_printf (ngettext ("%u question imported from %s. It replaces the earlier import "
                                     "of that file the next time GPU Memory Lab starts.",
                                     "%u questions imported from %s. They replace the earlier "
                                     "import of that file the next time GPU Memory Lab starts.", n),
                           n, display);
    }
  else
    {
      g_autoptr(GFile) bank = g_file_new_for_path (target);

      if (!gml_question_bank_load_file (self->bank, bank, FALSE, &error))
        {
          show_import_error (self, error->message);
          return;
        }
      _gml_window_refresh_topics (self);
      /* Translators: %u is a number of questions, %s a file name. */
      message =
          g_strdup_printf (ngettext ("%u question imported from %s: its topic is in the topic "
                                     "list.",
                                     "%u questions imported from %s: their topic is in the "
                                     "topic list.", n),
                           n, display);
    }
  _gml_window_toast (self, message);
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
}

void
_gml_window_import_dispose (GmlWindow *self)
{
  _gml_window_drop_chooser (&self->import_chooser);
}

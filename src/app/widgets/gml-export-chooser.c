/* gml-export-chooser.c — Export Picture…: the save dialog the quiz's picture and the
 * Snapshot view share.
 *
 * The format is chosen in the dialog (PNG, SVG, PDF), and the file written is always
 * one the dialog confirmed: a name typed without an extension gets the format's, and
 * when a file of that name exists the dialog opens again with it, so the dialog asks
 * before replacing it, rather than the lab overwriting it unasked.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-export-chooser"

#include "config.h"

#include "gml-i18n.h"

#include "gml-export-chooser.h"
#include "gml-weak-ref.h"

static const struct {
  GmlExportFormat  format;
  const char      *name;
  const char      *pattern;
  const char      *mime_type;
} formats[] = {
  { GML_EXPORT_PNG, N_("PNG Image"), "*.png", "image/png" },
  { GML_EXPORT_SVG, N_("SVG Image"), "*.svg", "image/svg+xml" },
  { GML_EXPORT_PDF, N_("PDF Document"), "*.pdf", "application/pdf" },
};

#define FORMAT_KEY "gml-export-format"

/* A save dialog over @parent's window, in the XDG Pictures folder, offering @stem
 * (without an extension: the format chosen adds it). */
static GtkFileChooserNative *
gml_export_chooser_new (GtkWidget  *parent,
                        const char *stem)
{
  GtkRoot *root = parent != NULL ? gtk_widget_get_root (parent) : NULL;
  const char *pictures = g_get_user_special_dir (G_USER_DIRECTORY_PICTURES);
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (_("Export Picture"),
                                         GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                         GTK_FILE_CHOOSER_ACTION_SAVE,
                                         _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

      gtk_file_filter_set_name (filter, _(formats[i].name));
      gtk_file_filter_add_pattern (filter, formats[i].pattern);
      gtk_file_filter_add_mime_type (filter, formats[i].mime_type);
      /* Plus one: PNG is 0, and no data is NULL. */
      g_object_set_data (G_OBJECT (filter), FORMAT_KEY, GINT_TO_POINTER (formats[i].format + 1));
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
      if (i == 0)
        gtk_file_chooser_set_filter (GTK_FILE_CHOOSER (chooser), filter);
    }
  if (pictures != NULL && g_file_test (pictures, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GFile) folder = g_file_new_for_path (pictures);

      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
    }
  if (stem != NULL)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), stem);
  return chooser;
}

/* After the dialog was accepted: the file to write and its format. When the
 * name needed an extension and a file of that name exists, *confirmed is FALSE
 * and the dialog now offers that name: show it again and wait for its answer. */
static char *
chosen_path (GtkFileChooserNative *chooser,
             GmlExportFormat      *format,
             gboolean             *confirmed)
{
  g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  GtkFileFilter *filter = gtk_file_chooser_get_filter (GTK_FILE_CHOOSER (chooser));
  g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
  GmlExportFormat chosen = GML_EXPORT_PNG;
  char *written;

  *confirmed = FALSE;
  if (path == NULL)
    return NULL;
  if (filter != NULL && g_object_get_data (G_OBJECT (filter), FORMAT_KEY) != NULL)
    chosen = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (filter), FORMAT_KEY)) - 1;
  written = gml_export_path_for_format (path, chosen, format);
  if (g_str_equal (written, path) || !g_file_test (written, G_FILE_TEST_EXISTS))
    {
      *confirmed = TRUE;
      return written;
    }

  /* "name" became "name.png", and name.png exists: the dialog asks. */
  {
    g_autoptr(GFile) folder = g_file_get_parent (file);
    g_autofree char *basename = g_path_get_basename (written);

    if (folder != NULL)
      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), basename);
  }
  return written;
}

typedef struct
{
  GmlExportDrawing   *drawing;
  char               *path;
  GmlExportFormat     format;
} ExportJob;

static void
export_job_free (ExportJob *job)
{
  gml_export_drawing_free (job->drawing);
  g_free (job->path);
  g_free (job);
}

static void
write_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  ExportJob *job = task_data;
  GError *error = NULL;

  if (gml_export_drawing_write (job->drawing, job->path, job->format, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
written_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GtkWidget) owner = gml_weak_ref_steal (user_data);
  g_autoptr(GError) error = NULL;

  if (source != NULL)
    g_application_release (G_APPLICATION (source));
  if (!g_task_propagate_boolean (G_TASK (result), &error) && owner != NULL)
    {
      g_autofree char *message = g_strdup_printf (_("The picture could not be exported: %s"),
                                                  error->message);

      g_signal_emit_by_name (owner, "message", message);
    }
}

/* Writes @drawing (drawn on the main loop, taken) to @path in a worker: PNG
 * compression and a slow disk do not hold the window. The application stays up
 * until the file is written; @owner's ::message says, in a translated sentence,
 * that it could not be, unless @owner has gone by then. */
static void
gml_export_chooser_write (GtkWidget          *owner,
                          GmlExportDrawing   *drawing,
                          const char         *path,
                          GmlExportFormat     format)
{
  GApplication *app = g_application_get_default ();
  ExportJob *job = g_new0 (ExportJob, 1);
  g_autoptr(GTask) task = NULL;

  job->drawing = drawing;
  job->path = g_strdup (path);
  job->format = format;
  if (app != NULL)
    g_application_hold (app);
  task = g_task_new (app, NULL, written_cb, gml_weak_ref_new (owner));
  g_task_set_source_tag (task, gml_export_chooser_write);
  g_task_set_task_data (task, job, (GDestroyNotify) export_job_free);
  g_task_run_in_thread (task, write_thread);
}

/* The dialog's answer: on Export, the owner's picture drawn now by @draw (on the
 * main loop, where the picture lives; slides are a fixed 1280×800, whatever the
 * window's size) and written in a worker. TRUE when the dialog is done with;
 * FALSE when it is shown again, to ask before replacing the file the format's
 * extension named. */
static gboolean
gml_export_chooser_respond (GtkFileChooserNative *chooser,
                            int                   response,
                            GtkWidget            *owner,
                            GmlExportDrawForFunc  draw)
{
  g_autofree char *path = NULL;
  GmlExportDrawing *drawing;
  GmlExportFormat format;
  gboolean confirmed = FALSE;

  if (response != GTK_RESPONSE_ACCEPT)
    return TRUE;
  path = chosen_path (chooser, &format, &confirmed);
  if (path != NULL && !confirmed)
    {
      gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
      return FALSE;
    }
  if (path != NULL && (drawing = draw (owner, 1280, 800)) != NULL)
    gml_export_chooser_write (owner, drawing, path, format);
  return TRUE;
}

typedef struct
{
  GtkWidget             *owner;
  GtkFileChooserNative **chooser;
  GmlExportDrawForFunc   draw;
} OpenDialog;

static void
response_cb (GtkFileChooserNative *chooser,
             int                   response,
             gpointer              user_data)
{
  OpenDialog *open = user_data;

  if (gml_export_chooser_respond (chooser, response, open->owner, open->draw))
    g_clear_object (open->chooser);
}

/* Export Picture… for @owner, which keeps the open dialog in *@chooser (and
 * clears it on dispose) and has a ::message signal, a sentence for a toast.
 * Export draws the owner's picture with @draw. Nothing happens while a dialog
 * is open. */
void
gml_export_chooser_open (GtkWidget             *owner,
                         GtkFileChooserNative **chooser,
                         const char            *stem,
                         GmlExportDrawForFunc   draw)
{
  OpenDialog *open;

  if (*chooser != NULL)
    return;
  open = g_new0 (OpenDialog, 1);
  open->owner = owner;
  open->chooser = chooser;
  open->draw = draw;
  *chooser = gml_export_chooser_new (owner, stem);
  g_signal_connect_data (*chooser, "response", G_CALLBACK (response_cb), open,
                         (GClosureNotify) G_CALLBACK (g_free), 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (*chooser));
}

/* gml-application.c — loads the bank and the answer log once, opens windows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-application"

#include "config.h"

#include <glib/gi18n.h>

#include "gml-application.h"
#include "gml-window.h"

struct _GmlApplication
{
  AdwApplication   parent_instance;

  GSettings       *settings;
  GmlQuestionBank *bank;
  GmlProgress     *progress;
  GPtrArray       *startup_messages;   /* translated sentences for the first window's toasts */
};

G_DEFINE_FINAL_TYPE (GmlApplication, gml_application, ADW_TYPE_APPLICATION)

GmlApplication *
gml_application_new (void)
{
  return g_object_new (GML_TYPE_APPLICATION,
                       "application-id", APPLICATION_ID,
                       "flags", G_APPLICATION_DEFAULT_FLAGS,
                       "resource-base-path", RESOURCE_BASE,
                       NULL);
}

static void
gml_application_about_cb (GSimpleAction *action,
                          GVariant      *parameter,
                          gpointer       user_data)
{
  GmlApplication *self = user_data;
  static const char *developers[] = { "The GPU Memory Lab developers", NULL };
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  adw_show_about_window (window,
                         "application-name", _("GPU Memory Lab"),
                         "application-icon", APPLICATION_ID,
                         "version", PACKAGE_VERSION,
                         "developer-name", _("The GPU Memory Lab developers"),
                         "developers", developers,
                         "comments", _("Learn how GPU memory really behaves: out-of-memory errors, "
                                       "the caching allocator, mixed precision, checkpointing and "
                                       "fragmentation."),
                         "website", "https://github.com/gpumemorylab/gpu-memory-lab",
                         "issue-url", "https://github.com/gpumemorylab/gpu-memory-lab/issues",
                         "license-type", GTK_LICENSE_GPL_3_0,
                         /* Translators: put your names here, one per line. */
                         "translator-credits", _("translator-credits"),
                         NULL);
}

static void
gml_application_quit_cb (GSimpleAction *action,
                         GVariant      *parameter,
                         gpointer       user_data)
{
  GmlApplication *self = user_data;
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (self));

  /* Close windows first so each saves its size. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
  g_application_quit (G_APPLICATION (self));
}

static const GActionEntry app_actions[] = {
  { "about", gml_application_about_cb },
  { "quit", gml_application_quit_cb },
};

static const struct
{
  const char *action;
  const char *accels[3];
} accels[] = {
  { "app.quit", { "<Control>q", NULL } },
  { "window.close", { "<Control>w", NULL } },
  { "win.restart", { "<Control>r", NULL } },
  { "win.show-filter", { "<Control>f", NULL } },
  { "app.shuffle-options", { "<Control><Shift>s", NULL } },
};

static void
gml_application_startup (GApplication *application)
{
  GmlApplication *self = GML_APPLICATION (application);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAction) shuffle = NULL;
  g_autofree char *user_dir = gml_user_questions_dir ();
  g_autofree char *set_aside = NULL;

  G_APPLICATION_CLASS (gml_application_parent_class)->startup (application);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions), self);
  shuffle = g_settings_create_action (self->settings, "shuffle-options");
  g_action_map_add_action (G_ACTION_MAP (self), shuffle);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), accels[i].action, accels[i].accels);

  if (!gml_question_bank_load_builtin (self->bank, &error))
    {
      /* The built-in bank ships inside the binary; this only happens to a broken build. */
      g_ptr_array_add (self->startup_messages, g_strdup (error->message));
      g_clear_error (&error);
    }
  gml_question_bank_load_user_dir (self->bank, user_dir, self->startup_messages);

  if (!gml_progress_load (self->progress, &set_aside, &error))
    {
      g_ptr_array_add (self->startup_messages, g_strdup (error->message));
      g_clear_error (&error);
    }
  else if (set_aside != NULL)
    {
      g_autofree char *base = g_path_get_basename (set_aside);

      g_ptr_array_add (self->startup_messages,
                       g_strdup_printf (_("Your answer log was damaged. It was kept as %s and a new "
                                          "log was started."), base));
    }
}

static void
gml_application_activate (GApplication *application)
{
  GmlApplication *self = GML_APPLICATION (application);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window == NULL)
    window = GTK_WINDOW (gml_window_new (self));
  gtk_window_present (window);
}

static void
gml_application_finalize (GObject *object)
{
  GmlApplication *self = GML_APPLICATION (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->bank, gml_question_bank_free);
  g_clear_pointer (&self->progress, gml_progress_free);
  g_clear_pointer (&self->startup_messages, g_ptr_array_unref);

  G_OBJECT_CLASS (gml_application_parent_class)->finalize (object);
}

static void
gml_application_class_init (GmlApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = gml_application_finalize;
  app_class->startup = gml_application_startup;
  app_class->activate = gml_application_activate;
}

static void
gml_application_init (GmlApplication *self)
{
  self->settings = g_settings_new (APPLICATION_ID);
  self->bank = gml_question_bank_new ();
  self->progress = gml_progress_new (NULL);
  self->startup_messages = g_ptr_array_new_with_free_func (g_free);
}

GmlQuestionBank *
gml_application_get_bank (GmlApplication *self)
{
  g_return_val_if_fail (GML_IS_APPLICATION (self), NULL);
  return self->bank;
}

GmlProgress *
gml_application_get_progress (GmlApplication *self)
{
  g_return_val_if_fail (GML_IS_APPLICATION (self), NULL);
  return self->progress;
}

GSettings *
gml_application_get_settings (GmlApplication *self)
{
  g_return_val_if_fail (GML_IS_APPLICATION (self), NULL);
  return self->settings;
}

/* Messages gathered before any window existed, to be shown once as toasts. */
GPtrArray *
gml_application_steal_startup_messages (GmlApplication *self)
{
  GPtrArray *messages = g_steal_pointer (&self->startup_messages);

  self->startup_messages = g_ptr_array_new_with_free_func (g_free);
  return messages;
}

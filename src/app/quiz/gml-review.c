/* gml-review.c — spaced review, statistics, undo and reset for one window.
 *
 * The window gives this object its quiz page, its "Review due (N)" button and its
 * toast overlay; everything else lives here, behind the "review" action group (the
 * window's class binds the keys, as it inserts the group):
 *   review.start-due   a round of the questions whose Leitner box is due   Ctrl+D
 *   review.undo        remove the last answer from the log                 Ctrl+Z
 *   review.statistics  the statistics window                               Ctrl+I
 *   review.reset       empty the log after a confirmation (a copy is kept)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-review"

#include "config.h"

#include "gml-i18n.h"

#include "gml-leitner.h"
#include "gml-review.h"
#include "gml-stats-window.h"

struct _GmlReview
{
  GObject             parent_instance;

  /* Borrowed: the window owns this object and outlives it. */
  GtkWindow          *window;
  GmlApplication     *app;
  GmlQuizPage        *page;
  GtkButton          *due_button;
  AdwToastOverlay    *toasts;

  /* Owned */
  GSimpleActionGroup *actions;

  /* State */
  GtkWindow          *stats_window;   /* weak */
  guint               n_due;
  guint               due_timeout;    /* the count taken again when the next comes due */
};

G_DEFINE_FINAL_TYPE (GmlReview, gml_review, G_TYPE_OBJECT)

static void
toast (GmlReview  *self,
       const char *message)
{
  AdwToast *t = adw_toast_new (message);

  adw_toast_set_timeout (t, 6);
  adw_toast_overlay_add_toast (self->toasts, t);
}

static GmlLeitner *
current_leitner (GmlReview *self)
{
  g_autoptr(GTimeZone) tz = g_time_zone_new_local ();

  return gml_leitner_new_from_progress (gml_application_get_progress (self->app), tz);
}

static gboolean
due_timeout_cb (gpointer user_data)
{
  GmlReview *self = user_data;

  self->due_timeout = 0;
  gml_review_update (self);
  return G_SOURCE_REMOVE;
}

/* The button's tooltip: what it does, or, with nothing due, when something will be. */
static char *
due_tooltip (guint  n_due,
             gint64 next)
{
  g_autoptr(GDateTime) utc = NULL;
  g_autoptr(GDateTime) local = NULL;
  g_autofree char *date = NULL;

  if (n_due > 0)
    return g_strdup (_("Review the Questions Due Today (Ctrl+D)"));
  if (next == G_MAXINT64)
    return g_strdup (_("Nothing is due for review. Questions you answer come due again after 1, 2, "
                       "4, 8 or 16 days."));
  utc = g_date_time_new_from_unix_utc (next);
  local = utc != NULL ? g_date_time_to_local (utc) : NULL;
  if (local == NULL)
    return g_strdup (_("Nothing is due for review."));
  /* Translators: a date in g_date_time_format() format, in the language's own style
   * ("30 November 2026"; "%d.%m.%Y" in Turkish). */
  date = gml_i18n_format_date (local, _("%-d %B %Y"));
  /* Translators: %s is a date. */
  return g_strdup_printf (_("Nothing is due for review. The next question comes due on %s."), date);
}

/* Recounts what is due and refreshes the button, in the language of the moment. */
static void
update_due (GmlReview *self)
{
  g_autoptr(GmlLeitner) leitner = current_leitner (self);
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  g_autoptr(GArray) due = gml_leitner_due_indexes (leitner, gml_application_get_bank (self->app),
                                                   now);
  gint64 next = gml_leitner_next_due_time (leitner, gml_application_get_bank (self->app), now);
  g_autofree char *count = g_strdup_printf ("%u", due->len);
  g_autofree char *label = NULL;
  g_autofree char *tooltip = due_tooltip (due->len, next);
  GAction *start, *undo;

  /* The main loop's clock stops during suspend: look again at least every ten
   * minutes, and a second after the next question comes due. */
  g_clear_handle_id (&self->due_timeout, g_source_remove);
  self->due_timeout = g_timeout_add_seconds ((guint) CLAMP (next - now + 1, 1, 600), due_timeout_cb,
                                             self);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->due_button), tooltip);

  self->n_due = due->len;
  /* Translators: a button; %s is the number of questions due for review. */
  label = g_strdup_printf (_("Review due (%s)"), count);
  gtk_button_set_label (self->due_button, label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->due_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);

  start = g_action_map_lookup_action (G_ACTION_MAP (self->actions), "start-due");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (start), due->len > 0);
  undo = g_action_map_lookup_action (G_ACTION_MAP (self->actions), "undo");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (undo),
                               gml_progress_get_n_answers (gml_application_get_progress (self->app))
                               > 0);
}

/* Recounts what is due and refreshes the button and the statistics. Call after every
 * change of the answer log; it runs again by itself when the next question comes due,
 * so a window left open over midnight shows the new count. */
void
gml_review_update (GmlReview *self)
{
  update_due (self);
  if (self->stats_window != NULL)
    gml_stats_window_update (GML_STATS_WINDOW (self->stats_window));
}

guint
gml_review_get_n_due (GmlReview *self)
{
  g_return_val_if_fail (GML_IS_REVIEW (self), 0);
  return self->n_due;
}

static void
start_due_cb (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  GmlReview *self = user_data;
  g_autoptr(GmlLeitner) leitner = current_leitner (self);
  g_autoptr(GArray) due = gml_leitner_due_indexes (leitner, gml_application_get_bank (self->app),
                                                   g_get_real_time () / G_USEC_PER_SEC);

  if (due->len == 0)
    {
      toast (self, _("Nothing is due for review. Come back tomorrow!"));
      return;
    }
  gml_quiz_page_start_named_round (self->page, due, N_("Review due"));
}

static void
undo_cb (GSimpleAction *action,
         GVariant      *parameter,
         gpointer       user_data)
{
  GmlReview *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *question = NULL;

  if (!gml_progress_remove_last (gml_application_get_progress (self->app), &question, &error))
    {
      toast (self, error->message);
      return;
    }
  gml_quiz_page_undo_answer (self->page, question);
  toast (self, _("The last answer was undone."));
  gml_review_update (self);
}

static void
reset_response_cb (AdwMessageDialog *dialog,
                   const char       *response,
                   GmlReview        *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *backup = NULL;

  if (!g_str_equal (response, "reset"))
    return;

  if (!gml_progress_reset (gml_application_get_progress (self->app), &backup, &error))
    {
      toast (self, error->message);
      return;
    }
  if (backup != NULL)
    {
      g_autofree char *name = g_path_get_basename (backup);
      g_autofree char *message =
          g_strdup_printf (_("Progress was reset. The old answer log was kept as %s."), name);

      toast (self, message);
    }
  else
    toast (self, _("Progress was reset."));

  /* The round on screen showed answers that are gone now. */
  gtk_widget_activate_action (GTK_WIDGET (self->window), "win.restart-fresh", NULL);
  gml_review_update (self);
}

static void
reset_cb (GSimpleAction *action,
          GVariant      *parameter,
          gpointer       user_data)
{
  GmlReview *self = user_data;
  AdwMessageDialog *dialog;

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (self->window, _("Reset Progress?"),
                                                       _("Every answer and every review box is "
                                                         "removed. A copy of the old answer log is "
                                                         "kept next to it.")));
  adw_message_dialog_add_responses (dialog,
                                    "cancel", _("_Cancel"),
                                    "reset", _("_Reset"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "reset", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (dialog, "cancel");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (reset_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
stats_window_destroyed_cb (GmlReview *self)
{
  self->stats_window = NULL;
}

static void
statistics_cb (GSimpleAction *action,
               GVariant      *parameter,
               gpointer       user_data)
{
  GmlReview *self = user_data;

  if (self->stats_window == NULL)
    {
      self->stats_window = gml_stats_window_new (self->window, self->app);
      g_signal_connect_object (self->stats_window, "destroy",
                               G_CALLBACK (stats_window_destroyed_cb), self, G_CONNECT_SWAPPED);
    }
  gtk_window_present (self->stats_window);
}

static const GActionEntry review_actions[] = {
  { "start-due", start_due_cb },
  { "undo", undo_cb },
  { "reset", reset_cb },
  { "statistics", statistics_cb },
};

/* An answer was added. */
static void
update_cb (GmlReview *self)
{
  gml_review_update (self);
}

/* The due button's text; the Statistics window follows the language itself, and
 * drawing its chart here too drew it twice. */
static void
language_changed_cb (GmlReview *self)
{
  update_due (self);
}

static void
gml_review_dispose (GObject *object)
{
  GmlReview *self = GML_REVIEW (object);

  if (self->stats_window != NULL)
    gtk_window_destroy (self->stats_window);
  g_clear_handle_id (&self->due_timeout, g_source_remove);
  g_clear_object (&self->actions);

  G_OBJECT_CLASS (gml_review_parent_class)->dispose (object);
}

static void
gml_review_class_init (GmlReviewClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = gml_review_dispose;
}

static void
gml_review_init (GmlReview *self)
{
}

GmlReview *
gml_review_new (GtkWindow       *window,
                GmlApplication  *app,
                GmlQuizPage     *page,
                GtkButton       *due_button,
                AdwToastOverlay *toasts)
{
  GmlReview *self = g_object_new (GML_TYPE_REVIEW, NULL);

  self->window = window;
  self->app = app;
  self->page = page;
  self->due_button = due_button;
  self->toasts = toasts;

  self->actions = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), review_actions,
                                   G_N_ELEMENTS (review_actions), self);
  gtk_widget_insert_action_group (GTK_WIDGET (window), "review", G_ACTION_GROUP (self->actions));

  g_signal_connect_object (page, "answered", G_CALLBACK (update_cb), self, G_CONNECT_SWAPPED);
  /* The language can change while the window is open (where the app offers that). */
  if (g_signal_lookup ("language-changed", G_OBJECT_TYPE (app)) != 0)
    g_signal_connect_object (app, "language-changed", G_CALLBACK (language_changed_cb), self,
                             G_CONNECT_SWAPPED);

  gml_review_update (self);
  return self;
}

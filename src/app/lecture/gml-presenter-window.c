/* gml-presenter-window.c — what the lecturer sees while the audience sees the quiz:
 * the right answer and every option's feedback before they are revealed, the
 * explanation, the next question, a clock and the time since the start. A view of
 * the same GmlPresentation as the audience's window: its keys and buttons call the
 * model, and it redraws on the model's notifications.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-presenter-window"

#include "config.h"

#include "gml-accessible.h"
#include "gml-i18n.h"

#include "gml-language.h"
#include "gml-lecture-keys.h"
#include "gml-option-row.h"
#include "gml-presenter-window.h"
#include "gml-audience-server.h"

struct _GmlPresenterWindow
{
  AdwWindow              parent_instance;

  /* Template widgets */
  GtkLabel              *clock_label;
  GtkLabel              *elapsed_label;
  GtkLabel              *position_label;
  GtkLabel              *timer_label;
  GtkLabel              *state_label;
  GtkLabel              *audience_label;
  GtkLabel              *question_label;
  GmlOptionRow          *option_rows[GML_N_OPTIONS];
  GtkLabel              *explanation_label;
  GtkLabel              *next_label;
  GtkButton             *previous_button;
  GtkButton             *reveal_button;
  GtkButton             *next_button;
  GtkButton             *leave_button;

  /* Owned */
  GmlPresentation       *model;

  /* State */
  guint                  clock_id;
  gboolean               closing;
};

G_DEFINE_FINAL_TYPE (GmlPresenterWindow, gml_presenter_window, ADW_TYPE_WINDOW)

static void
update_timer (GmlPresenterWindow *self)
{
  int left = gml_presentation_get_seconds_left (self->model);

  gtk_widget_set_visible (GTK_WIDGET (self->timer_label), left >= 0);
  if (left == 0)
    gtk_label_set_label (self->timer_label, _("Time is up!"));
  else if (left > 0)
    {
      g_autofree char *remaining = g_strdup_printf ("%d:%02d", left / 60, left % 60);
      /* Translators: %s is the time left for the question, e.g. "0:45". */
      g_autofree char *line = g_strdup_printf (_("%s left"), remaining);

      gtk_label_set_label (self->timer_label, line);
    }
}

static void
update_clock (GmlPresenterWindow *self)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *clock = g_date_time_format (now, "%H:%M:%S");
  g_autofree char *elapsed = NULL;
  g_autofree char *elapsed_line = NULL;
  gint64 seconds;

  seconds =
      (g_get_monotonic_time () - gml_presentation_get_started_at (self->model)) / G_USEC_PER_SEC;
  elapsed = g_strdup_printf ("%d:%02d:%02d", (int) (seconds / 3600), (int) (seconds / 60 % 60),
                             (int) (seconds % 60));
  /* Translators: %s is the time since the presentation began, e.g. "0:12:05". */
  elapsed_line = g_strdup_printf (_("Elapsed %s"), elapsed);
  gtk_label_set_label (self->clock_label, clock);
  gtk_label_set_label (self->elapsed_label, elapsed_line);
}

static gboolean
clock_cb (gpointer user_data)
{
  update_clock (user_data);
  return G_SOURCE_CONTINUE;
}

static void
update (GmlPresenterWindow *self)
{
  const GmlSlide *slide;
  const GmlQuestion *q;
  const GmlQuestion *next;
  const GmlSlide *next_slide;
  guint right_pos;
  guint position, n;
  gboolean at_end;
  g_autofree char *text = NULL;
  g_autofree char *explanation = NULL;
  g_autofree char *position_line = NULL;

  position = gml_presentation_get_position (self->model);
  n = gml_presentation_get_n_questions (self->model);
  at_end = gml_presentation_get_at_end (self->model);
  slide = gml_presentation_get_slide (self->model, position);
  q = gml_presentation_get_question (self->model, position);
  if (slide == NULL || q == NULL)
    return;

  /* Translators: the position in the round, e.g. "Question 3 / 6". */
  position_line = g_strdup_printf (_("Question %u / %u"), position + 1, n);
  gtk_label_set_label (self->position_label, position_line);
  if (at_end)
    gtk_label_set_label (self->state_label, _("The audience sees the round’s result"));
  else
    gtk_label_set_label (self->state_label, slide->revealed ? _("The answer is shown")
                                                            : _("The answer is hidden — Space "
                                                                "reveals it"));
  gtk_widget_set_sensitive (GTK_WIDGET (self->reveal_button),
                            !slide->revealed && !at_end);
  gtk_widget_set_sensitive (GTK_WIDGET (self->previous_button),
                            position > 0 || at_end);
  /* After the last question comes the round's result. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->next_button), !at_end);

  text = gml_question_format (q, q->text, slide->order);
  gtk_label_set_label (self->question_label, text);

  right_pos = gml_question_correct_position (q, slide->order);
  for (guint shown = 0; shown < GML_N_OPTIONS; shown++)
    {
      GmlOptionRow *row = self->option_rows[shown];
      const GmlOption *option = &q->options[slide->order[shown]];
      g_autofree char *feedback = gml_question_format (q, option->feedback, slide->order);

      /* The lecturer sees the answer before the audience does. */
      gml_option_row_set_option (row, q, slide->order, shown, FALSE);
      gml_option_row_set_state (row, TRUE, shown == right_pos, FALSE);
      gml_option_row_set_feedback (row, feedback);
      if (shown == right_pos)
        {
          /* Translators: the right option in the presenter view; %s is its text. */
          g_autofree char *line = g_strdup_printf (_("%s — right"), gml_option_row_get_text (row));

          gml_option_row_set_text (row, line);
        }
    }

  explanation = gml_question_format (q, q->explanation, slide->order);
  gtk_label_set_label (self->explanation_label, explanation);

  next = gml_presentation_get_question (self->model, position + 1);
  next_slide = gml_presentation_get_slide (self->model, position + 1);
  if (next != NULL)
    {
      g_autofree char *preview = gml_question_format (next, next->text, next_slide->order);

      gtk_label_set_label (self->next_label, preview);
    }
  else
    gtk_label_set_label (self->next_label,
                         _("This is the last question; the round’s result comes next."));

  update_clock (self);
  update_timer (self);
}

static GmlPresentation *
get_model (GtkWidget *widget)
{
  return GML_PRESENTER_WINDOW (widget)->model;
}

static void
previous_clicked_cb (GmlPresenterWindow *self)
{
  gml_presentation_previous (self->model);
}

static void
reveal_clicked_cb (GmlPresenterWindow *self)
{
  gml_presentation_reveal (self->model);
}

static void
next_clicked_cb (GmlPresenterWindow *self)
{
  gml_presentation_next (self->model);
}

static void
leave_clicked_cb (GmlPresenterWindow *self)
{
  gtk_window_close (GTK_WINDOW (self));
}

static void
language_changed_cb (GtkWidget *widget)
{
  update (GML_PRESENTER_WINDOW (widget));
}

/* The lecture is over (Esc in either window, or the other window closed). */
static void
ended_cb (GmlPresenterWindow *self)
{
  if (!self->closing)
    gtk_window_destroy (GTK_WINDOW (self));
}

/* Closing the presenter's window ends the presentation, as Esc does. */
static gboolean
gml_presenter_window_close_request (GtkWindow *window)
{
  GmlPresenterWindow *self = GML_PRESENTER_WINDOW (window);

  self->closing = TRUE;
  if (self->model != NULL)
    gml_presentation_end (self->model);

  return GTK_WINDOW_CLASS (gml_presenter_window_parent_class)->close_request (window);
}

static void
gml_presenter_window_dispose (GObject *object)
{
  GmlPresenterWindow *self = GML_PRESENTER_WINDOW (object);

  /* Gone, for whatever reason: the lecture is over, and the audience's window goes too. */
  if (self->model != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->model, self);
      gml_presentation_end (self->model);
    }
  g_clear_object (&self->model);
  g_clear_handle_id (&self->clock_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_PRESENTER_WINDOW);

  G_OBJECT_CLASS (gml_presenter_window_parent_class)->dispose (object);
}

static void
gml_presenter_window_class_init (GmlPresenterWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = gml_presenter_window_dispose;
  window_class->close_request = gml_presenter_window_close_request;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE "/gml-presenter-window.ui");
  gml_lecture_keys_install (widget_class, get_model);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, clock_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, elapsed_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, position_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, timer_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, state_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, audience_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, question_label);
  gml_option_row_bind_template_children (widget_class, "option_row_",
                                         G_STRUCT_OFFSET (GmlPresenterWindow, option_rows));
  g_type_ensure (GML_TYPE_OPTION_ROW);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, explanation_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, next_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, previous_button);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, reveal_button);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, next_button);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, leave_button);
}

static void
gml_presenter_window_init (GmlPresenterWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gml_lecture_keys_attach (GTK_WIDGET (self));

  gml_language_localize_widget (GTK_WIDGET (self), NULL);

  gml_accessible_name_buttons (GTK_WIDGET (self));

  g_signal_connect_object (self->previous_button, "clicked", G_CALLBACK (previous_clicked_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->reveal_button, "clicked", G_CALLBACK (reveal_clicked_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->next_button, "clicked", G_CALLBACK (next_clicked_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->leave_button, "clicked", G_CALLBACK (leave_clicked_cb), self,
                           G_CONNECT_SWAPPED);

}

/* Audience mode on: the room's counts and split, live (the lecturer sees how the
 * room is leaning before revealing; the projector shows the split only after). */
static void
update_audience (GmlPresenterWindow *self)
{
  GObject *audience = gml_presentation_get_audience (self->model);
  GmlAudienceServer *server = audience != NULL ? GML_AUDIENCE_SERVER (audience) : NULL;
  GmlAudienceRoom *room;
  GmlAudienceResult result = { 0 };
  g_autofree char *split = NULL;
  g_autofree char *line = NULL;

  if (server == NULL || !gml_audience_server_is_running (server))
    {
      gtk_widget_set_visible (GTK_WIDGET (self->audience_label), FALSE);
      return;
    }
  room = gml_audience_server_get_room (server);
  gml_audience_room_get_result (room, gml_audience_room_get_question (room), &result);
  split = gml_audience_server_describe_split (server);
  /* Translators: the presenter's live line: phones joined, answers, and the split,
   * e.g. "The room: 12 phones, 9 answers — A: 3 answers, B: 5 answers, …". */
  line = g_strdup_printf (_("The room: %u phones, %u answers — %s"),
                          gml_audience_room_get_joined (room),
                          result.answered, split);
  gtk_label_set_label (self->audience_label, line);
  gtk_widget_set_visible (GTK_WIDGET (self->audience_label), TRUE);
}

static void
audience_changed_cb (GmlPresenterWindow *self)
{
  GObject *audience = gml_presentation_get_audience (self->model);

  if (audience != NULL)
    g_signal_connect_object (audience, "changed", G_CALLBACK (update_audience), self,
                             G_CONNECT_SWAPPED);
  update_audience (self);
}

/* A view of model for the lecturer's screen. */
GmlPresenterWindow *
gml_presenter_window_new (GmlApplication  *app,
                          GmlPresentation *model)
{
  GmlPresenterWindow *self;

  g_return_val_if_fail (GML_IS_APPLICATION (app), NULL);
  g_return_val_if_fail (GML_IS_PRESENTATION (model), NULL);

  self = g_object_new (GML_TYPE_PRESENTER_WINDOW, "application", app, NULL);
  self->model = g_object_ref (model);
  g_signal_connect_swapped (model, "notify::position", G_CALLBACK (update), self);
  g_signal_connect_swapped (model, "notify::revealed", G_CALLBACK (update), self);
  g_signal_connect_swapped (model, "notify::at-end", G_CALLBACK (update), self);
  g_signal_connect_swapped (model, "notify::seconds-left", G_CALLBACK (update_timer), self);
  g_signal_connect_swapped (model, "notify::ended", G_CALLBACK (ended_cb), self);
  g_signal_connect_swapped (model, "notify::audience", G_CALLBACK (audience_changed_cb), self);
  gml_language_follow (GTK_WIDGET (self), language_changed_cb);
  self->clock_id = g_timeout_add_seconds (1, clock_cb, self);
  update (self);
  audience_changed_cb (self);
  return self;
}

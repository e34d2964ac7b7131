/* gml-presenter-window.c — what the lecturer sees while the audience sees the quiz:
 * the right answer and every option's feedback before they are revealed, the
 * explanation, the next question, a clock and the time since the start.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-presenter-window"

#include "config.h"

#include "gml-accessible.h"
#include "gml-i18n.h"

#include "gml-language.h"
#include "gml-option-row.h"
#include "gml-presenter-window.h"

struct _GmlPresenterWindow
{
  AdwWindow              parent_instance;

  /* Template widgets */
  GtkLabel              *clock_label;
  GtkLabel              *elapsed_label;
  GtkLabel              *position_label;
  GtkLabel              *timer_label;
  GtkLabel              *state_label;
  GtkLabel              *question_label;
  GmlOptionRow          *option_rows[GML_N_OPTIONS];
  GtkLabel              *explanation_label;
  GtkLabel              *next_label;
  GtkButton             *previous_button;
  GtkButton             *reveal_button;
  GtkButton             *next_button;
  GtkButton             *leave_button;

  /* Weak: the audience window owns the round and destroys this window with it. */
  GmlPresentationWindow *audience;

  guint                  clock_id;
};

G_DEFINE_FINAL_TYPE (GmlPresenterWindow, gml_presenter_window, ADW_TYPE_WINDOW)

static void
update_clock (GmlPresenterWindow *self)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *clock = g_date_time_format (now, "%H:%M:%S");
  g_autofree char *elapsed = NULL;
  g_autofree char *elapsed_line = NULL;
  gint64 seconds;
  int left;

  if (self->audience == NULL)
    return;

  seconds = (g_get_monotonic_time () - gml_presentation_window_get_started_at (self->audience)) / G_USEC_PER_SEC;
  elapsed = g_strdup_printf ("%d:%02d:%02d", (int) (seconds / 3600), (int) (seconds / 60 % 60),
                             (int) (seconds % 60));
  /* Translators: %s is the time since the presentation began, e.g. "0:12:05". */
  elapsed_line = g_strdup_printf (_("Elapsed %s"), elapsed);
  gtk_label_set_label (self->clock_label, clock);
  gtk_label_set_label (self->elapsed_label, elapsed_line);

  left = gml_presentation_window_get_seconds_left (self->audience);
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
  g_autofree char *text = NULL;
  g_autofree char *explanation = NULL;
  g_autofree char *position_line = NULL;

  if (self->audience == NULL)
    return;
  slide = gml_presentation_window_get_slide (self->audience, 0);
  q = gml_presentation_window_get_question (self->audience, 0);
  if (slide == NULL || q == NULL)
    return;

  position = gml_presentation_window_get_position (self->audience);
  n = gml_presentation_window_get_n_slides (self->audience);
  /* Translators: the position in the round, e.g. "Question 3 / 6". */
  position_line = g_strdup_printf (_("Question %u / %u"), position + 1, n);
  gtk_label_set_label (self->position_label, position_line);
  if (gml_presentation_window_is_at_end (self->audience))
    gtk_label_set_label (self->state_label, _("The audience sees the round’s result"));
  else
    gtk_label_set_label (self->state_label, slide->revealed ? _("The answer is shown")
                                                            : _("The answer is hidden — Space reveals it"));
  gtk_widget_set_sensitive (GTK_WIDGET (self->reveal_button),
                            !slide->revealed && !gml_presentation_window_is_at_end (self->audience));
  gtk_widget_set_sensitive (GTK_WIDGET (self->previous_button),
                            position > 0 || gml_presentation_window_is_at_end (self->audience));
  /* After the last question comes the round's result. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->next_button), !gml_presentation_window_is_at_end (self->audience));

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

  next = gml_presentation_window_get_question (self->audience, 1);
  next_slide = gml_presentation_window_get_slide (self->audience, 1);
  if (next != NULL)
    {
      g_autofree char *preview = gml_question_format (next, next->text, next_slide->order);

      gtk_label_set_label (self->next_label, preview);
    }
  else
    gtk_label_set_label (self->next_label, _("This is the last question; the round’s result comes next."));

  update_clock (self);
}

static gboolean
key_pressed_cb (GmlPresenterWindow    *self,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                GtkEventControllerKey *controller)
{
  if (self->audience == NULL)
    return FALSE;
  return gml_presentation_window_handle_key (self->audience, keyval, state);
}

static void
previous_clicked_cb (GmlPresenterWindow *self)
{
  if (self->audience != NULL)
    gml_presentation_window_go (self->audience, -1);
}

static void
reveal_clicked_cb (GmlPresenterWindow *self)
{
  if (self->audience != NULL)
    gml_presentation_window_reveal (self->audience);
}

static void
next_clicked_cb (GmlPresenterWindow *self)
{
  if (self->audience != NULL)
    gml_presentation_window_go (self->audience, 1);
}

static void
leave_clicked_cb (GmlPresenterWindow *self)
{
  gtk_window_close (GTK_WINDOW (self));
}

static void
language_changed_cb (GmlPresenterWindow *self,
                     const char         *previous,
                     GmlApplication     *app)
{
  gml_language_retranslate_widget (GTK_WIDGET (self));
  update (self);
}

/* Closing the presenter's window ends the presentation, as Esc does. */
static gboolean
gml_presenter_window_close_request (GtkWindow *window)
{
  GmlPresenterWindow *self = GML_PRESENTER_WINDOW (window);

  if (self->audience != NULL)
    {
      GtkWindow *audience = GTK_WINDOW (self->audience);

      g_object_remove_weak_pointer (G_OBJECT (audience), (gpointer *) &self->audience);
      self->audience = NULL;
      /* The audience window destroys this one as it closes. */
      gtk_window_close (audience);
      return TRUE;
    }
  return GTK_WINDOW_CLASS (gml_presenter_window_parent_class)->close_request (window);
}

static void
gml_presenter_window_dispose (GObject *object)
{
  GmlPresenterWindow *self = GML_PRESENTER_WINDOW (object);

  if (self->audience != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->audience), (gpointer *) &self->audience);
  self->audience = NULL;
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

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_BASE "/gml-presenter-window.ui");
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, clock_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, elapsed_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, position_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, timer_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresenterWindow, state_label);
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
  GtkEventController *keys;

  gtk_widget_init_template (GTK_WIDGET (self));

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

  /* Capture phase: the lecture keys work wherever the focus is, buttons included. */
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (key_pressed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);

  self->clock_id = g_timeout_add_seconds (1, clock_cb, self);
}

GmlPresenterWindow *
gml_presenter_window_new (GmlPresentationWindow *audience,
                          GmlApplication        *app)
{
  GmlPresenterWindow *self = g_object_new (GML_TYPE_PRESENTER_WINDOW, "application", app, NULL);

  self->audience = audience;
  g_object_add_weak_pointer (G_OBJECT (audience), (gpointer *) &self->audience);
  g_signal_connect_object (audience, "changed", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (app, "language-changed", G_CALLBACK (language_changed_cb), self,
                           G_CONNECT_SWAPPED);
  update (self);
  return self;
}

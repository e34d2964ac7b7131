/* gml-presentation-window.c — the quiz on the projector, for the audience.
 *
 * A view of the presented round, a GmlPresentation: which question is up, whether its
 * answer has been revealed, the countdown and the zoom are the model's. The presenter
 * window (on a second monitor) is another view of the same model, so both windows
 * always agree; neither knows the other.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-presentation-window"

#include "config.h"

#include <math.h>
#include <stdio.h>

#include "gml-accessible.h"
#include "gml-i18n.h"

#include "gml-audience-server.h"
#include "gml-audience-view.h"

#include "gml-language.h"
#include "gml-lecture-keys.h"
#include "gml-option-row.h"
#include "gml-picture-run.h"
#include "gml-picture-view.h"
#include "gml-presentation-window.h"
#include "gml-presenter-window.h"
#include "gml-weak-ref.h"
#include "gml-window.h"

struct _GmlPresentationWindow
{
  AdwWindow        parent_instance;

  /* Template widgets */
  GtkLabel        *position_label;
  GtkLabel        *topic_label;
  GtkLabel        *timer_label;
  GtkLabel        *question_label;
  GtkLabel        *question_other_label;
  GtkLabel        *feedback_other_label;
  GtkLabel        *explanation_other_label;
  GtkBox          *result_box;
  GtkLabel        *verdict_label;
  GtkLabel        *feedback_label;
  GtkLabel        *explanation_label;
  GtkLabel        *hint_label;
  GtkWidget       *picture_box;
  GtkWidget       *picture_holder;
  GmlPictureView  *picture_view;
  GtkLabel        *picture_caption_label;
  GtkWidget       *scroller;
  GtkWidget       *body_box;
  GtkWidget       *end_box;
  GtkLabel        *end_summary_label;
  GtkFlowBox      *end_list_box;
  GtkToggleButton *audience_button;
  GmlAudienceView *audience_view;
  GtkWidget       *end_room_box;

  GmlOptionRow    *option_rows[GML_N_OPTIONS];

  /* Owned */
  GmlPresentation *model;
  GtkCssProvider  *scale_provider;
  GmlScenario     *scenario;        /* the shown question's, run in a worker */
  char            *scenario_key;    /* its picture script's string */
  GmlPictureRun    run;             /* the picture script running in a worker, if any */
  GmlPicture      *picture;
  GmlDevice       *fallback;        /* the simulator, after the GPU failed */
  GmlAudienceServer *audience;      /* audience mode, once asked for */
  char            *audience_error;  /* why it could not start, or NULL */

  /* Borrowed: the application outlives every window. */
  GmlApplication  *app;
  GtkWindow       *main_window;     /* weak */

  /* State */
  guint            shown_position;  /* the slide last shown, to show each change once */
  gboolean         shown_revealed;
  gboolean         shown_at_end;
  gboolean         closing;
  int              scaled_for;      /* the size unit the font sizes were computed for */
  double           picture_scale;   /* how much larger than on the desk the picture is drawn */
  double           fit;             /* < 1 while the slide would not fit at full size */
  guint            fit_tick_id;
  guint            fit_frames;
  guint            scale_idle_id;
};

G_DEFINE_FINAL_TYPE (GmlPresentationWindow, gml_presentation_window, ADW_TYPE_WINDOW)

/* What the lecture test reads of the windows' placement and type scale: logged
 * when G_MESSAGES_DEBUG names this domain. */
static gboolean
debugging (void)
{
  return !g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN);
}

static char *
format_countdown (int seconds)
{
  return g_strdup_printf ("%d:%02d", seconds / 60, seconds % 60);
}

/* The countdown's label, from the model's seconds-left (-1: no countdown). */
static void
update_timer (GmlPresentationWindow *self)
{
  int left = gml_presentation_get_seconds_left (self->model);
  gboolean up = left == 0;

  gtk_widget_set_visible (GTK_WIDGET (self->timer_label), left >= 0);
  if (left < 0)
    return;

  if (up)
    gtk_label_set_label (self->timer_label, _("Time is up!"));
  else
    {
      g_autofree char *text = format_countdown (left);

      gtk_label_set_label (self->timer_label, text);
    }
  if (up)
    gtk_widget_add_css_class (GTK_WIDGET (self->timer_label), "time-up");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->timer_label), "time-up");
}

/* The picture: the same scenario, step and view that the main window's panel points
 * at after an answer, drawn by the same GmlPictureView, without the panel's controls
 * (nobody clicks on a projector), and magnified so that its labels carry to the back
 * of the room. */

static void
drop_picture (GmlPresentationWindow *self)
{
  gml_picture_run_cancel (&self->run);
  if (self->picture_view != NULL)
    gml_picture_view_set_picture (self->picture_view, NULL);
  g_clear_pointer (&self->picture, gml_picture_free);
  g_clear_pointer (&self->scenario, gml_scenario_free);
  g_clear_pointer (&self->scenario_key, g_free);
}

static void refit        (GmlPresentationWindow *self);
static void show_picture (GmlPresentationWindow *self,
                          const GmlQuestion     *q,
                          gboolean               revealed);

static void
run_done_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GmlPresentationWindow) self = gml_weak_ref_steal (user_data);
  g_autofree char *key = NULL;
  g_autofree char *why = NULL;
  g_autoptr(GmlDevice) fallback = NULL;
  g_autoptr(GError) error = NULL;
  GmlScenario *sc = gml_scenario_new_picture_script_finish (result, &fallback, &why, &error);
  guint position;

  /* Another slide, device or language since, or the window is gone. */
  if (self == NULL || self->model == NULL || !gml_picture_run_end (&self->run, result, &key))
    {
      g_clear_pointer (&sc, gml_scenario_free);
      return;
    }

  if (self->fallback == NULL && fallback != NULL)
    {
      /* A CUDA call failing in the middle still gives the class a (simulated) picture. */
      g_message ("Experiment %s on the GPU: %s; simulating it", key, why);
      self->fallback = g_steal_pointer (&fallback);
    }
  if (sc == NULL)
    {
      g_message ("Experiment %s: %s", key, error->message);
      return;
    }
  self->scenario = sc;
  self->scenario_key = g_steal_pointer (&key);

  /* The slide may have been revealed while it ran. */
  position = gml_presentation_get_position (self->model);
  if (!gml_presentation_get_at_end (self->model) &&
      gml_presentation_get_question (self->model, position) != NULL)
    {
      show_picture (self, gml_presentation_get_question (self->model, position),
                    gml_presentation_get_slide (self->model, position)->revealed);
      if (gtk_widget_get_visible (self->picture_box))
        refit (self);
    }
}

/* The scenario of @q, or NULL while it runs in a worker. The run starts when
 * the slide is shown, so that the picture is usually there by the reveal; a
 * long picture script never holds the projector's window still. */
static GmlScenario *
scenario_for (GmlPresentationWindow *self,
              const GmlQuestion     *q)
{
  g_autofree char *key = gml_picture_script_to_string (q->picture_script);
  const char *reason = NULL;
  GmlDevice *device;

  if (self->scenario != NULL && g_strcmp0 (self->scenario_key, key) == 0)
    return self->scenario;
  if (gml_picture_run_is_running (&self->run, key))
    return NULL;

  drop_picture (self);
  device = self->fallback != NULL ? self->fallback
                                  : gml_application_peek_device (self->app, &reason);
  /* Still opening: GmlApplication::device-changed shows the slide again. */
  if (device == NULL)
    return NULL;

  g_debug ("gml-presentation-run %s", key);
  /* Closing the window cancels the run in its dispose (drop_picture()). */
  gml_picture_run_start (&self->run, self, q->picture_script, key, device, self->fallback,
                         run_done_cb);
  return NULL;
}

static void
show_picture (GmlPresentationWindow *self,
              const GmlQuestion     *q,
              gboolean               revealed)
{
  GmlScenario *sc = NULL;
  guint step;

  if (q->picture_script != NULL)
    sc = scenario_for (self, q);
  /* Before the reveal the picture would give the answer away. */
  if (!revealed)
    sc = NULL;
  gtk_widget_set_visible (self->picture_box, sc != NULL);
  if (sc == NULL)
    {
      gml_picture_view_set_picture (self->picture_view, NULL);
      return;
    }

  if (self->picture == NULL)
    {
      self->picture = gml_picture_new (sc);
      gml_picture_set_pointing (self->picture, TRUE);
    }
  step = gml_scenario_get_focus_step (sc);
  gml_picture_set_step (self->picture, step);
  gml_picture_view_set_picture (self->picture_view, self->picture);
  gml_picture_view_set_view (self->picture_view, gml_scenario_get_focus_view (sc));
  gtk_label_set_label (self->picture_caption_label, gml_scenario_get_step (sc, step)->caption);
}

static double
picture_scale_of (GtkWidget *holder)
{
  GtkWidget *window = gtk_widget_get_ancestor (holder, GML_TYPE_PRESENTATION_WINDOW);

  return window != NULL ? MAX (1.0, GML_PRESENTATION_WINDOW (window)->picture_scale) : 1.0;
}

/* The holder lays the picture out smaller and draws it magnified: the render functions
 * size their text for a desk, and a scale transform enlarges text, lines and all alike. */
static void
holder_measure (GtkWidget      *holder,
                GtkOrientation  orientation,
                int             for_size,
                int            *minimum,
                int            *natural,
                int            *minimum_baseline,
                int            *natural_baseline)
{
  GtkWidget *child = gtk_widget_get_first_child (holder);
  double scale = picture_scale_of (holder);
  int min = 0, nat = 0;

  if (child != NULL && gtk_widget_should_layout (child))
    gtk_widget_measure (child, orientation, for_size < 0 ? -1 : (int) floor (for_size / scale),
                        &min, &nat, NULL, NULL);
  *minimum = (int) ceil (min * scale);
  *natural = (int) ceil (nat * scale);
}

static void
holder_allocate (GtkWidget *holder,
                 int        width,
                 int        height,
                 int        baseline)
{
  GtkWidget *child = gtk_widget_get_first_child (holder);
  double scale = picture_scale_of (holder);

  if (child != NULL && gtk_widget_should_layout (child))
    gtk_widget_allocate (child, (int) floor (width / scale), (int) floor (height / scale), -1,
                         gsk_transform_scale (NULL, scale, scale));
}

/* The round's result, after the last question: how long it took, how many answers
 * the class saw, and the right answer of each question discussed, for the summing
 * up (a whole bank is a round too: the others are counted, not listed). */
static int
compare_uint64 (gconstpointer a,
                gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* The round's questions the room answered, hardest first (the lowest share right;
 * the ones every phone got right are not hard): their places in the round, at most
 * five. */
static GArray *
room_hardest (GmlPresentationWindow *self)
{
  GmlAudienceRoom *room = self->audience != NULL ? gml_audience_server_get_room (self->audience)
                                                 : NULL;
  guint n = gml_presentation_get_n_questions (self->model);
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (guint64));
  GArray *indexes = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; room != NULL && i < n; i++)
    {
      const GmlQuestion *q = gml_presentation_get_question (self->model, i);
      GmlAudienceResult result;
      guint share;
      guint64 key;

      if (!gml_audience_room_get_result (room, q->id, &result) || result.answered == 0)
        continue;
      share = result.counts[result.right] * 1000 / result.answered;
      if (share >= 1000)
        continue;
      key = ((guint64) share << 32) | i;
      g_array_append_val (found, key);
    }
  g_array_sort (found, compare_uint64);
  for (guint i = 0; i < found->len && i < 5; i++)
    {
      guint question = (guint) (g_array_index (found, guint64, i) & 0xffffffffu);

      g_array_append_val (indexes, question);
    }
  return indexes;
}

static void
show_end (GmlPresentationWindow *self)
{
  guint n = gml_presentation_get_n_questions (self->model);
  GmlAudienceRoom *room = self->audience != NULL ? gml_audience_server_get_room (self->audience)
                                                 : NULL;
  GmlAudienceResult result;
  guint room_answered = 0, room_right = 0;
  guint revealed = gml_presentation_get_n_revealed (self->model);
  guint seconds = (guint) ((g_get_monotonic_time () - gml_presentation_get_started_at (self->model))
                           / G_USEC_PER_SEC);
  g_autofree char *duration = NULL;
  g_autofree char *questions = NULL;
  g_autofree char *answers = NULL;
  g_autofree char *summary = NULL;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->end_list_box))) != NULL)
    gtk_flow_box_remove (self->end_list_box, child);

  for (guint i = 0; i < n; i++)
    {
      const GmlSlide *slide = gml_presentation_get_slide (self->model, i);
      const GmlQuestion *q = gml_presentation_get_question (self->model, i);
      g_autofree char *line = NULL;
      GtkWidget *label;

      if (slide == NULL || !slide->revealed)
        continue;
      /* Translators: a line of the round's result: the question's number, its topic
       * and the letter of its right option, e.g. "2. Mixed precision — b". */
      line = g_strdup_printf (_("%u. %s — %c"), i + 1, gml_question_translate (q, q->topic),
                              gml_option_letter (gml_question_correct_position (q, slide->order)));
      if (room != NULL && gml_audience_room_get_result (room, q->id, &result) &&
          result.answered > 0)
        {
          guint share = result.counts[result.right] * 100 / result.answered;
          char *with_room;

          /* Translators: a line of the round's result with the room's share of right
           * answers, e.g. "2. Mixed precision — b · 63 % of the room right". */
          with_room = g_strdup_printf (_("%s · %u %% of the room right"), line, share);
          g_free (line);
          line = with_room;
        }
      label = gtk_label_new (line);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_widget_add_css_class (label, "end-item");
      gtk_flow_box_append (self->end_list_box, label);
      /* Text to read, not items to pick: no focus ring on the projector. */
      gtk_widget_set_focusable (gtk_widget_get_parent (label), FALSE);
    }

  /* Translators: a duration in minutes and seconds, e.g. "12 min 05 s". */
  duration = g_strdup_printf (_("%u min %02u s"), seconds / 60, seconds % 60);
  /* Translators: %u is the number of questions, %s a duration such as "12 min 05 s". */
  questions = g_strdup_printf (ngettext ("%u question in %s.", "%u questions in %s.", n),
                               n, duration);
  /* Translators: how many of the round's answers were shown, e.g. "Answers shown: 5 of 6." */
  answers = g_strdup_printf (_("Answers shown: %u of %u."), revealed, n);
  for (guint i = 0; room != NULL && i < gml_audience_room_get_n_asked (room); i++)
    {
      gml_audience_room_get_result_at (room, i, &result);
      room_answered += result.answered;
      room_right += result.counts[result.right];
    }
  if (room_answered > 0)
    {
      g_autoptr(GArray) hardest = room_hardest (self);
      /* Translators: the room's answers over the round, e.g. "The room: 412 answers,
       * 71 % right." */
      g_autofree char *room_line = g_strdup_printf (ngettext ("The room: %u answer, %u %% right.",
                                                              "The room: %u answers, %u %% right.",
                                                              room_answered),
                                                    room_answered,
                                                    room_right * 100 / room_answered);

      GString *numbers = g_string_new (NULL);
      g_autofree char *hardest_line = NULL;

      for (guint i = 0; i < hardest->len; i++)
        g_string_append_printf (numbers, "%s%u", i > 0 ? _(", ") : "",
                                g_array_index (hardest, guint, i) + 1);
      /* Translators: the numbers of the questions the room got right least often. */
      hardest_line = hardest->len > 0 ? g_strdup_printf (_("Hardest for the room: %s."),
                                                         numbers->str)
                                      : g_strdup ("");
      g_string_free (numbers, TRUE);
      summary = g_strjoin (" ", questions, answers, room_line, hardest_line, NULL);
      gtk_widget_set_visible (self->end_room_box, TRUE);
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "lecture.review-hardest", hardest->len > 0);
    }
  else
    {
      summary = g_strconcat (questions, " ", answers, NULL);
      gtk_widget_set_visible (self->end_room_box, FALSE);
    }
  gtk_label_set_label (self->end_summary_label, summary);
  gtk_label_set_label (self->position_label, "");
  gtk_label_set_label (self->topic_label, "");
  gtk_label_set_label (self->hint_label, _("← back to the last question · Esc leaves"));
}

static void update_scale (GmlPresentationWindow *self);

/* Fitting: the slide's type scales with the window, but a long explanation beside its
 * picture can still be taller than a 720 or 768 px high screen. Each frame until it
 * fits, the type shrinks by what the overflow asks for (measured with the style of
 * the frame before, so a few frames at most), never below FIT_MIN; the picture keeps
 * its size, whose labels must carry to the back of the room. Zoomed in by hand, the
 * lecturer's choice wins and the slide scrolls instead. */
#define FIT_MIN 0.55
#define FIT_MAX_FRAMES 30

static gboolean
fit_tick_cb (GtkWidget     *widget,
             GdkFrameClock *clock,
             gpointer       user_data)
{
  GmlPresentationWindow *self = GML_PRESENTATION_WINDOW (widget);
  int width = gtk_widget_get_width (self->scroller);
  int height = gtk_widget_get_height (self->scroller);
  int needed = 0;

  if (self->scale_idle_id != 0 || width <= 0 || height <= 0)
    {
      if (++self->fit_frames < FIT_MAX_FRAMES)
        return G_SOURCE_CONTINUE;
      self->fit_tick_id = 0;
      return G_SOURCE_REMOVE;
    }
  gtk_widget_measure (self->body_box, GTK_ORIENTATION_VERTICAL, width, &needed, NULL, NULL, NULL);
  if (debugging ())
    {
      g_debug ("gml-fit audience %.2f %d %d", self->fit, needed, height);
    }
  if (needed <= height || self->fit <= FIT_MIN || gml_presentation_get_zoom (self->model) > 1.0 ||
      ++self->fit_frames >= FIT_MAX_FRAMES)
    {
      self->fit_tick_id = 0;
      return G_SOURCE_REMOVE;
    }
  /* Wrapped text's height goes roughly with the square of its size. */
  self->fit = MAX (FIT_MIN, self->fit * MIN (0.95, sqrt ((double) height / needed)));
  update_scale (self);
  return G_SOURCE_CONTINUE;
}

/* Starts fitting the shown slide from its full size. */
static void
refit (GmlPresentationWindow *self)
{
  if (self->fit != 1.0)
    {
      self->fit = 1.0;
      update_scale (self);
    }
  self->fit_frames = 0;
  if (self->fit_tick_id == 0 && !gml_presentation_get_at_end (self->model))
    self->fit_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), fit_tick_cb, NULL, NULL);
}

static void
show_current (GmlPresentationWindow *self)
{
  guint position = gml_presentation_get_position (self->model);
  const GmlSlide *slide = gml_presentation_get_slide (self->model, position);
  const GmlQuestion *q = gml_presentation_get_question (self->model, position);
  gboolean bilingual = gml_presentation_get_bilingual (self->model);
  gboolean at_end = gml_presentation_get_at_end (self->model);
  guint right_pos;
  g_autofree char *position_line = NULL;
  g_autofree char *text = NULL;
  g_autofree char *other = NULL;

  if (slide == NULL || q == NULL)
    return;

  self->shown_position = position;
  self->shown_revealed = slide->revealed;
  self->shown_at_end = at_end;
  gtk_widget_set_visible (self->scroller, !at_end);
  gtk_widget_set_visible (self->end_box, at_end);
  if (at_end)
    {
      show_end (self);
      update_timer (self);
      return;
    }

  right_pos = gml_question_correct_position (q, slide->order);

  /* Translators: the position in the round, e.g. "3 / 6". */
  position_line = g_strdup_printf (_("%u / %u"), position + 1,
                                   gml_presentation_get_n_questions (self->model));
  gtk_label_set_label (self->position_label, position_line);
  gtk_label_set_label (self->topic_label, gml_question_translate (q, q->topic));

  text = gml_question_format (q, q->text, slide->order);
  gtk_label_set_label (self->question_label, text);
  other = bilingual ? gml_language_format_other (q, q->text, slide->order) : NULL;
  gml_label_set_other (self->question_other_label, text, other);

  for (guint shown = 0; shown < GML_N_OPTIONS; shown++)
    {
      gml_option_row_set_option (self->option_rows[shown], q, slide->order, shown, bilingual);
      gml_option_row_set_state (self->option_rows[shown], slide->revealed, shown == right_pos,
                                FALSE);
    }

  gtk_widget_set_visible (GTK_WIDGET (self->result_box), slide->revealed);
  /* Revealed, the slide fills the screen so that the picture gets all the height left. */
  gtk_widget_set_valign (gtk_widget_get_parent (GTK_WIDGET (self->result_box)),
                         slide->revealed ? GTK_ALIGN_FILL : GTK_ALIGN_CENTER);
  show_picture (self, q, slide->revealed);
  if (slide->revealed)
    {
      const GmlOption *right = &q->options[slide->order[right_pos]];
      g_autofree char *verdict = NULL;
      g_autofree char *feedback = gml_question_format (q, right->feedback, slide->order);
      g_autofree char *explanation = gml_question_format (q, q->explanation, slide->order);

      /* Translators: %c is the letter of the right option. */
      verdict = g_strdup_printf (_("The right answer is %c."), gml_option_letter (right_pos));
      gtk_label_set_label (self->verdict_label, verdict);
      gtk_label_set_label (self->feedback_label, feedback);
      gtk_label_set_label (self->explanation_label, explanation);
      /* Bilingual mode: the answer's reasons in the other language as well. */
      {
        g_autofree char *feedback_other = bilingual
          ? gml_language_format_other (q, right->feedback, slide->order) : NULL;
        g_autofree char *explanation_other = bilingual
          ? gml_language_format_other (q, q->explanation, slide->order) : NULL;

        gml_label_set_other (self->feedback_other_label, feedback, feedback_other);
        gml_label_set_other (self->explanation_other_label, explanation, explanation_other);
      }
      gtk_label_set_label (self->hint_label, _("→ next question · ← previous · Esc leaves"));
    }
  else
    gtk_label_set_label (self->hint_label,
                         _("Space reveals the answer · ← → change question · Esc leaves"));

  refit (self);
  update_timer (self);
}

/* position, revealed and at-end come together from one move: the slide is shown
 * once, on the first of their notifications. */
static void
slide_changed_cb (GmlPresentationWindow *self)
{
  guint position = gml_presentation_get_position (self->model);
  const GmlSlide *slide = gml_presentation_get_slide (self->model, position);

  if (slide != NULL && self->shown_position == position &&
      self->shown_revealed == slide->revealed &&
      self->shown_at_end == gml_presentation_get_at_end (self->model))
    return;
  show_current (self);
}

/* ---- audience mode ------------------------------------------------------------ */

static void
update_audience (GmlPresentationWindow *self)
{
  gboolean running = self->audience != NULL && gml_audience_server_is_running (self->audience);

  gtk_toggle_button_set_active (self->audience_button, running);
  /* The bars belong to the question's slide, not to the round's end. */
  gml_audience_view_show (self->audience_view, self->audience, self->audience_error,
                          gml_presentation_get_at_end (self->model));
  /* For bench/audience: when the projector learnt of each count (CLOCK_MONOTONIC). */
  if (running && debugging ())
    {
      GmlAudienceRoom *room = gml_audience_server_get_room (self->audience);
      GmlAudienceResult result = { 0 };

      gml_audience_room_get_result (room, gml_audience_room_get_question (room), &result);
      g_debug ("gml-audience joined=%u answered=%u at=%" G_GINT64_FORMAT,
               gml_audience_room_get_joined (room), result.answered, g_get_monotonic_time ());
    }
}

/* For bench/audience: every frame the projector paints while audience mode is on. */
static void
audience_frame_cb (GdkFrameClock         *clock,
                   GmlPresentationWindow *self)
{
  if (self->audience != NULL && gml_audience_server_is_running (self->audience))
    g_debug ("gml-frame at=%" G_GINT64_FORMAT, g_get_monotonic_time ());
}

static void
toggle_audience (GmlPresentationWindow *self)
{
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->audience_error, g_free);
  if (self->audience != NULL && gml_audience_server_is_running (self->audience))
    {
      gml_audience_server_stop (self->audience);
      update_audience (self);
      return;
    }
  if (self->audience == NULL)
    {
      self->audience = gml_audience_server_new (self->model);
      g_signal_connect_object (self->audience, "changed", G_CALLBACK (update_audience), self,
                               G_CONNECT_SWAPPED);
      gml_presentation_set_audience (self->model, G_OBJECT (self->audience));
      if (debugging () && gtk_widget_get_frame_clock (GTK_WIDGET (self)) != NULL)
        g_signal_connect_object (gtk_widget_get_frame_clock (GTK_WIDGET (self)), "after-paint",
                                 G_CALLBACK (audience_frame_cb), self, 0);
    }
  if (!gml_audience_server_start (self->audience, gml_application_get_audience_port (self->app),
                                  &error))
    /* Translators: %s is why, e.g. "Address already in use". */
    self->audience_error = g_strdup_printf (_("Audience mode could not start: %s"), error->message);
  update_audience (self);
}

/* Review These: the questions the room found hardest, as a round in the main window. */
static void
review_hardest_action_cb (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  GmlPresentationWindow *self = GML_PRESENTATION_WINDOW (widget);
  g_autoptr(GArray) hardest = room_hardest (self);

  g_autoptr(GArray) indexes = g_array_new (FALSE, FALSE, sizeof (guint));

  if (hardest->len == 0 || self->main_window == NULL || !GML_IS_WINDOW (self->main_window))
    return;
  for (guint i = 0; i < hardest->len; i++)
    g_array_append_val (indexes,
                        gml_presentation_get_slide (self->model,
                                                    g_array_index (hardest, guint, i))->question);
  gml_window_start_review (GML_WINDOW (self->main_window), indexes,
                           N_("Review: the room’s hardest"));
  gml_presentation_end (self->model);
}

static void
export_response_cb (GtkNativeDialog       *dialog,
                    int                    response,
                    GmlPresentationWindow *self)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;

  if (response == GTK_RESPONSE_ACCEPT && self->audience != NULL &&
      (file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog))) != NULL)
    {
      csv = gml_audience_room_to_csv (gml_audience_server_get_room (self->audience));
      if (!g_file_replace_contents (file, csv, strlen (csv), NULL, FALSE,
                                    G_FILE_CREATE_REPLACE_DESTINATION,
                                    NULL, NULL, &error))
        {
          g_autofree char *message = g_strdup_printf (_("The answers could not be saved: %s"),
                                                      error->message);

          gtk_label_set_label (self->end_summary_label, message);
        }
    }
  g_object_unref (dialog);
}

/* Save Answers…: the round's answers as CSV, one line a phone and question. */
static void
export_answers_action_cb (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  GmlPresentationWindow *self = GML_PRESENTATION_WINDOW (widget);
  GtkFileChooserNative *chooser;

  if (self->audience == NULL)
    return;
  chooser = gtk_file_chooser_native_new (_("Save the Room’s Answers"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "audience-answers.csv");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (export_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
audience_action_cb (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  toggle_audience (GML_PRESENTATION_WINDOW (widget));
}

static GmlPresentation *
get_model (GtkWidget *widget)
{
  return GML_PRESENTATION_WINDOW (widget)->model;
}

/* Type scales with the window: a projector's 1920×1080 gets a 54 px question (5 % of
 * the height), a small test window proportionally less. A narrow window scales by
 * its width instead, so lines do not break into single words. */
static void
update_scale (GmlPresentationWindow *self)
{
  double zoom = gml_presentation_get_zoom (self->model);
  int unit = (int) round (self->scaled_for * zoom * self->fit);
  g_autofree char *css = NULL;

  css = g_strdup_printf ("window.presentation .slide { padding: %dpx %dpx %dpx %dpx; }\n"
                         "window.presentation .meta { font-size: %dpx; }\n"
                         "window.presentation .body { margin-top: %dpx; }\n"
                         "window.presentation .question { font-size: %dpx; }\n"
                         "window.presentation .question-other { font-size: %dpx; }\n"
                         "window.presentation .options { margin-top: %dpx; border-spacing: %dpx; "
                         "}\nwindow.presentation optionrow { padding: %dpx %dpx; border-spacing: "
                         "%dpx; }\nwindow.presentation .option-letter,\n"
                         "window.presentation .option-text { font-size: %dpx; }\n"
                         "window.presentation .option-other { font-size: %dpx; }\n"
                         "window.presentation .result { margin-top: %dpx; padding: %dpx %dpx; "
                         "border-spacing: %dpx; }\nwindow.presentation .result-texts { "
                         "border-spacing: %dpx; }\nwindow.presentation .result-text { font-size: "
                         "%dpx; }\nwindow.presentation .result-picture { border-spacing: %dpx; }\n"
                         "window.presentation .picture-caption { font-size: %dpx; }\n"
                         "window.presentation .hint { font-size: %dpx; }\n"
                         "window.presentation .end { border-spacing: %dpx; }\n"
                         "window.presentation .end-title { font-size: %dpx; font-weight: bold; }\n"
                         "window.presentation .end-summary,\n"
                         "window.presentation .end-item { font-size: %dpx; }\n"
                         "window.presentation .end-list { border-spacing: %dpx; }\n"
                         "window.presentation .audience { font-size: %dpx; margin-top: %dpx; }\n",
                         unit * 3 / 100, unit * 6 / 100, unit * 2 / 100, unit * 6 / 100,
                         unit * 26 / 1000,
                         unit * 2 / 100,
                         unit * 50 / 1000,
                         unit * 30 / 1000,
                         unit * 3 / 100, unit * 12 / 1000,
                         unit * 10 / 1000, unit * 20 / 1000, unit * 20 / 1000,
                         unit * 36 / 1000,
                         unit * 24 / 1000,
                         unit * 25 / 1000, unit * 15 / 1000, unit * 20 / 1000, unit * 30 / 1000,
                         unit * 8 / 1000,
                         unit * 28 / 1000,
                         unit * 8 / 1000,
                         unit * 22 / 1000,
                         unit * 18 / 1000,
                         unit * 3 / 100,
                         unit * 60 / 1000,
                         unit * 34 / 1000,
                         unit * 8 / 1000,
                         unit * 34 / 1000, unit * 8 / 1000);
  gtk_css_provider_load_from_data (self->scale_provider, css, -1);
  /* Big enough to be read from the middle of the room: a fifth of the slide's unit
   * height, 216 px on a 1080p projector. */
  gml_audience_view_set_qr_size (self->audience_view, MAX (120, unit / 5));
  /* 1.5 times the desk size on a 1080 px high projector, so the picture's 12 px labels
   * are 18 px there; fitting shrinks the text, never the picture. */
  self->picture_scale = self->scaled_for * zoom / 720.0;
  gtk_widget_queue_resize (self->picture_holder);
  if (debugging ())
    {
      GmlRenderStyle desk;

      /* The window's height, the question's type and the picture's labels in px. */
      gml_render_style_init (&desk, GML_THEME_LIGHT);
      g_debug ("gml-scale audience %d %d %.0f %.2f", gtk_widget_get_height (GTK_WIDGET (self)),
              unit * 50 / 1000, floor (desk.font_size * MAX (1.0, self->picture_scale)), zoom);
    }
}

static gboolean
update_scale_cb (gpointer user_data)
{
  GmlPresentationWindow *self = user_data;

  self->scale_idle_id = 0;
  update_scale (self);
  return G_SOURCE_REMOVE;
}

/* Ctrl+plus/minus/0, in either window: the type from its full size at the new zoom. */
static void
zoom_changed_cb (GmlPresentationWindow *self)
{
  self->fit = 1.0;
  update_scale (self);
  if (!gml_presentation_get_at_end (self->model))
    refit (self);
}

static void
gml_presentation_window_size_allocate (GtkWidget *widget,
                                       int        width,
                                       int        height,
                                       int        baseline)
{
  GmlPresentationWindow *self = GML_PRESENTATION_WINDOW (widget);
  int unit = MAX (200, MIN (height, width * 9 / 16));

  GTK_WIDGET_CLASS (gml_presentation_window_parent_class)->size_allocate (widget, width, height,
                                                                          baseline);

  /* New font sizes change the size request: set them after this allocation, not
   * during it. */
  if (unit != self->scaled_for)
    {
      self->scaled_for = unit;
      self->fit = 1.0;
      if (self->scale_idle_id == 0)
        self->scale_idle_id = g_idle_add (update_scale_cb, self);
      if (!gml_presentation_get_at_end (self->model))
        refit (self);
    }
}

static void
language_changed_cb (GtkWidget *widget)
{
  GmlPresentationWindow *self = GML_PRESENTATION_WINDOW (widget);

  /* The pictures' labels and captions are translated when the scenario runs. */
  drop_picture (self);
  show_current (self);
}

static void
device_changed_cb (GmlPresentationWindow *self)
{
  drop_picture (self);
  g_clear_pointer (&self->fallback, gml_device_destroy);
  show_current (self);
}

static void
bilingual_changed_cb (GmlPresentationWindow *self)
{
  show_current (self);
}

/* The lecture is over (Esc in either window, or the other window closed). */
static void
ended_cb (GmlPresentationWindow *self)
{
  if (self->main_window != NULL)
    gtk_window_present (self->main_window);
  if (!self->closing)
    gtk_window_destroy (GTK_WINDOW (self));
}

/* Closing the audience's window ends the presentation, as Esc does. */
static gboolean
gml_presentation_window_close_request (GtkWindow *window)
{
  GmlPresentationWindow *self = GML_PRESENTATION_WINDOW (window);

  self->closing = TRUE;
  if (self->model != NULL)
    gml_presentation_end (self->model);

  return GTK_WINDOW_CLASS (gml_presentation_window_parent_class)->close_request (window);
}

static void
gml_presentation_window_dispose (GObject *object)
{
  GmlPresentationWindow *self = GML_PRESENTATION_WINDOW (object);

  /* Gone, for whatever reason: the lecture is over, and the presenter's window goes too. */
  if (self->model != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->model, self);
      gml_presentation_end (self->model);
    }
  if (self->audience != NULL)
    gml_audience_server_stop (self->audience);
  g_clear_object (&self->audience);
  g_clear_pointer (&self->audience_error, g_free);
  g_clear_object (&self->model);
  if (self->main_window != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->main_window), (gpointer *) &self->main_window);
  self->main_window = NULL;
  g_clear_handle_id (&self->scale_idle_id, g_source_remove);
  if (self->fit_tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->fit_tick_id);
  self->fit_tick_id = 0;
  if (self->scale_provider != NULL)
    gtk_style_context_remove_provider_for_display (gtk_widget_get_display (GTK_WIDGET (self)),
                                                   GTK_STYLE_PROVIDER (self->scale_provider));
  g_clear_object (&self->scale_provider);
  drop_picture (self);

  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_PRESENTATION_WINDOW);
  self->picture_view = NULL;

  G_OBJECT_CLASS (gml_presentation_window_parent_class)->dispose (object);
}

static void
gml_presentation_window_finalize (GObject *object)
{
  GmlPresentationWindow *self = GML_PRESENTATION_WINDOW (object);

  g_clear_pointer (&self->picture, gml_picture_free);
  g_clear_pointer (&self->scenario, gml_scenario_free);
  g_clear_pointer (&self->scenario_key, g_free);
  g_clear_pointer (&self->fallback, gml_device_destroy);

  G_OBJECT_CLASS (gml_presentation_window_parent_class)->finalize (object);
}

static void
gml_presentation_window_class_init (GmlPresentationWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = gml_presentation_window_dispose;
  object_class->finalize = gml_presentation_window_finalize;
  widget_class->size_allocate = gml_presentation_window_size_allocate;
  window_class->close_request = gml_presentation_window_close_request;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE "/gml-presentation-window.ui");
  gml_lecture_keys_install (widget_class, get_model);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, position_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, topic_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, timer_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, question_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, question_other_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, feedback_other_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow,
                                        explanation_other_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, result_box);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, verdict_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, feedback_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, explanation_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, hint_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, picture_box);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, picture_holder);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, picture_view);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, picture_caption_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, scroller);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, body_box);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, end_box);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, end_summary_label);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, end_list_box);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, end_room_box);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, audience_button);
  gtk_widget_class_bind_template_child (widget_class, GmlPresentationWindow, audience_view);
  gtk_widget_class_install_action (widget_class, "lecture.audience", NULL, audience_action_cb);
  gtk_widget_class_install_action (widget_class, "lecture.review-hardest", NULL,
                                   review_hardest_action_cb);
  gtk_widget_class_install_action (widget_class, "lecture.export-answers", NULL,
                                   export_answers_action_cb);
  gml_option_row_bind_template_children (widget_class, "option_row_",
                                         G_STRUCT_OFFSET (GmlPresentationWindow, option_rows));

  g_type_ensure (GML_TYPE_PICTURE_VIEW);
  g_type_ensure (GML_TYPE_AUDIENCE_VIEW);
  g_type_ensure (GML_TYPE_OPTION_ROW);
}

static void
gml_presentation_window_init (GmlPresentationWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gml_lecture_keys_attach (GTK_WIDGET (self));

  gml_language_localize_widget (GTK_WIDGET (self), NULL);

  gml_accessible_name_buttons (GTK_WIDGET (self));
  self->picture_scale = 1.0;
  self->fit = 1.0;
  gtk_widget_set_layout_manager (self->picture_holder,
                                 gtk_custom_layout_new (NULL, holder_measure, holder_allocate));

  self->scale_provider = gtk_css_provider_new ();
  gtk_style_context_add_provider_for_display (gtk_widget_get_display (GTK_WIDGET (self)),
                                              GTK_STYLE_PROVIDER (self->scale_provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION + 1);

}

/* A view of model on the projector. */
GmlPresentationWindow *
gml_presentation_window_new (GmlApplication  *app,
                             GmlPresentation *model)
{
  GmlPresentationWindow *self;

  g_return_val_if_fail (GML_IS_APPLICATION (app), NULL);
  g_return_val_if_fail (GML_IS_PRESENTATION (model), NULL);

  self = g_object_new (GML_TYPE_PRESENTATION_WINDOW, "application", app, NULL);
  self->app = app;
  self->model = g_object_ref (model);

  gml_language_follow (GTK_WIDGET (self), language_changed_cb);
  g_signal_connect_object (app, "device-changed", G_CALLBACK (device_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_swapped (model, "notify::position", G_CALLBACK (slide_changed_cb), self);
  g_signal_connect_swapped (model, "notify::revealed", G_CALLBACK (slide_changed_cb), self);
  g_signal_connect_swapped (model, "notify::at-end", G_CALLBACK (slide_changed_cb), self);
  g_signal_connect_swapped (model, "notify::bilingual", G_CALLBACK (bilingual_changed_cb), self);
  g_signal_connect_swapped (model, "notify::seconds-left", G_CALLBACK (update_timer), self);
  g_signal_connect_swapped (model, "notify::zoom", G_CALLBACK (zoom_changed_cb), self);
  g_signal_connect_swapped (model, "notify::ended", G_CALLBACK (ended_cb), self);
  show_current (self);
  return self;
}

static void
print_monitor_cb (GdkSurface *surface,
                  GdkMonitor *monitor,
                  const char *role)
{
  GdkRectangle geometry;

  gdk_monitor_get_geometry (monitor, &geometry);
  g_debug ("gml-monitor %s %d %d %d %d", role, geometry.x, geometry.y, geometry.width,
           geometry.height);
}

static void
print_fullscreen_cb (GtkWindow  *window,
                     GParamSpec *pspec,
                     const char *role)
{
  g_debug ("gml-fullscreen %s %d %d %d", role, gtk_window_is_fullscreen (window),
           gtk_widget_get_width (GTK_WIDGET (window)), gtk_widget_get_height (GTK_WIDGET (window)));
}

static void
watch_realize_cb (GtkWidget  *widget,
                  const char *role)
{
  g_signal_connect (gtk_native_get_surface (GTK_NATIVE (widget)), "enter-monitor",
                    G_CALLBACK (print_monitor_cb), (gpointer) role);
}

/* With G_MESSAGES_DEBUG=gml-presentation-window, logs where the compositor put a
 * presentation window and whether it is fullscreen, so a test can check the
 * placement that no accessibility API reports (Wayland has no global coordinates). */
void
_gml_presentation_debug_watch (GtkWindow  *window,
                               const char *role)
{
  if (!debugging ())
    return;
  g_signal_connect (window, "realize", G_CALLBACK (watch_realize_cb), (gpointer) role);
  g_signal_connect (window, "notify::fullscreened", G_CALLBACK (print_fullscreen_cb),
                    (gpointer) role);
}

/* Starts a presentation of `slides` from `start`: the audience window fullscreen on a
 * monitor other than the main window's and, when there is one more, the presenter
 * window fullscreen on the main window's monitor. With one monitor the audience
 * window takes it and the presenter view is off. */
gboolean
gml_presentation_window_start (GtkWindow      *parent,
                               GmlApplication *app,
                               GArray         *slides,
                               guint           start)
{
  GdkDisplay *display = gtk_widget_get_display (GTK_WIDGET (parent));
  GListModel *monitors = gdk_display_get_monitors (display);
  guint n_monitors = g_list_model_get_n_items (monitors);
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (parent));
  g_autoptr(GdkMonitor) home = NULL;
  g_autoptr(GdkMonitor) audience_monitor = NULL;
  g_autoptr(GdkMonitor) presenter_monitor = NULL;
  g_autoptr(GmlPresentation) model = NULL;
  GSettings *settings = gml_application_get_settings (app);
  GmlPresentationWindow *self;

  if (slides == NULL || slides->len == 0)
    return FALSE;

  if (surface != NULL && gdk_display_get_monitor_at_surface (display, surface) != NULL)
    home = g_object_ref (gdk_display_get_monitor_at_surface (display, surface));

  for (guint i = 0; i < n_monitors && audience_monitor == NULL; i++)
    {
      g_autoptr(GdkMonitor) monitor = g_list_model_get_item (monitors, i);

      if (n_monitors == 1 || monitor != home)
        audience_monitor = g_steal_pointer (&monitor);
    }
  if (n_monitors >= 2)
    {
      if (home != NULL && home != audience_monitor)
        presenter_monitor = g_object_ref (home);
      else
        for (guint i = 0; i < n_monitors && presenter_monitor == NULL; i++)
          {
            g_autoptr(GdkMonitor) monitor = g_list_model_get_item (monitors, i);

            if (monitor != audience_monitor)
              presenter_monitor = g_steal_pointer (&monitor);
          }
    }

  model = gml_presentation_new (gml_application_get_bank (app), slides, start);
  g_settings_bind (settings, "bilingual", model, "bilingual", G_SETTINGS_BIND_GET);
  g_settings_bind (settings, "question-timer", model, "question-timer", G_SETTINGS_BIND_GET);

  self = gml_presentation_window_new (app, model);
  self->main_window = parent;
  g_object_add_weak_pointer (G_OBJECT (parent), (gpointer *) &self->main_window);

  _gml_presentation_debug_watch (GTK_WINDOW (self), "audience");
  if (audience_monitor != NULL)
    gtk_window_fullscreen_on_monitor (GTK_WINDOW (self), audience_monitor);
  else
    gtk_window_fullscreen (GTK_WINDOW (self));
  gtk_window_present (GTK_WINDOW (self));

  if (presenter_monitor != NULL)
    {
      GtkWindow *presenter = GTK_WINDOW (gml_presenter_window_new (app, model));

      _gml_presentation_debug_watch (presenter, "presenter");
      gtk_window_fullscreen_on_monitor (presenter, presenter_monitor);
      gtk_window_present (presenter);
    }
  return TRUE;
}

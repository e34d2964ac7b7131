/* gml-quiz-page.c — one question at a time, then the round's summary.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-quiz-page"

#include "config.h"

#include <string.h>

#include "gml-accessible.h"
#include "gml-i18n.h"

#include "gml-language.h"
#include "gml-option-row.h"
#include "gml-quiz-page.h"
#include "gml-scenario-panel.h"

typedef struct
{
  guint    question;                /* index in the bank */
  guint    order[GML_N_OPTIONS];    /* order[shown] = source option */
  gboolean answered;
  guint    chosen;                  /* shown position of the chosen option */
  gint64   shown_at;                /* monotonic µs when first shown unanswered */
  GmlAnswer prior;                  /* the last answer before this round (question NULL: none) */
} RoundItem;

struct _GmlQuizPage
{
  GtkWidget        parent_instance;

  /* Template widgets */
  GtkStack        *stack;
  GtkLabel        *topic_label;
  GtkLabel        *difficulty_label;
  GtkLabel        *last_result_label;
  GtkLabel        *position_label;
  GtkLabel        *question_label;
  GtkLabel        *question_other_label;    /* bilingual mode: the other language */
  GtkLabel        *chosen_feedback_other_label;
  GtkLabel        *correct_feedback_other_label;
  GtkLabel        *explanation_other_label;
  GtkBox          *result_box;
  GtkLabel        *verdict_label;
  GtkLabel        *chosen_feedback_label;
  GtkLabel        *correct_feedback_label;
  GtkLabel        *explanation_label;
  GtkLabel        *sources_heading;
  GtkBox          *sources_box;
  GtkButton       *open_lab_button;
  GtkLabel        *hint_label;
  GtkButton       *previous_button;
  GtkButton       *next_button;
  /* The end of a round and "No Questions" (gml-quiz-end.ui), built when one is
   * first shown: NULL until then. */
  GtkLabel        *score_label;
  GtkBox          *per_difficulty_box;
  GtkLabel        *wrong_heading;
  GtkBox          *wrong_box;
  GtkButton       *review_button;
  GtkWidget       *paned;            /* the template's root: question | picture */
  GtkScrolledWindow *question_scroller;
  GtkWidget       *scenario_panel;
  const char      *round_name;         /* a static msgid, or NULL for the filter's round */

  GtkWidget       *option_buttons[GML_N_OPTIONS];
  GmlOptionRow    *option_rows[GML_N_OPTIONS];

  /* Borrowed from the application, which outlives every window. */
  GmlQuestionBank *bank;
  GmlProgress     *progress;
  GSettings       *settings;

  /* State */
  GArray          *round;     /* RoundItem */
  guint            current;
  GRand           *rand;
  gboolean         painted;           /* the page has been in a painted frame */
  gboolean         picture_pending;   /* the picture waits for that frame */
  GdkFrameClock   *waiting_clock;     /* borrowed: the clock whose frame it waits for */
  guint            split_idle;
};

enum {
  MESSAGE,
  ANSWERED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum {
  PROP_0,
  PROP_ROUND_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GmlQuizPage, gml_quiz_page, GTK_TYPE_WIDGET)

static RoundItem *
current_item (GmlQuizPage *self)
{
  if (self->round == NULL || self->current >= self->round->len)
    return NULL;
  return &g_array_index (self->round, RoundItem, self->current);
}

static void
update_actions (GmlQuizPage *self)
{
  RoundItem *item = current_item (self);
  gboolean on_question = item != NULL;
  guint n_wrong = 0;

  for (guint i = 0; self->round != NULL && i < self->round->len; i++)
    {
      RoundItem *it = &g_array_index (self->round, RoundItem, i);
      const GmlQuestion *q = gml_question_bank_get (self->bank, it->question);

      if (it->answered && !q->options[it->order[it->chosen]].correct)
        n_wrong++;
    }

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "quiz.choose", on_question && !item->answered);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "quiz.next", on_question && item->answered);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "quiz.previous",
                                 on_question && self->current > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "quiz.review-wrong", n_wrong > 0);
}

static char *
format_last_result (const GmlAnswer *answer)
{
  g_autoptr(GDateTime) utc = NULL;
  g_autoptr(GDateTime) local = NULL;
  g_autofree char *date = NULL;

  if (answer == NULL)
    return g_strdup (_("Not answered before"));

  utc = g_date_time_new_from_unix_utc (answer->time);
  local = g_date_time_to_local (utc);
  /* Translators: the date of the last answer, in g_date_time_format() format, in the
   * language's own style ("30 November 2026"; "%d.%m.%Y" in Turkish); %B is the month
   * in the lab's language, whatever the system's locale. */
  date = gml_i18n_format_date (local, _("%-d %B %Y"));
  return answer->correct
    /* Translators: %s is a date. */
    ? g_strdup_printf (_("Last time: right (%s)"), date)
    : g_strdup_printf (_("Last time: wrong (%s)"), date);
}

static void
ensure_end_pages (GmlQuizPage *self)
{
  g_autoptr(GtkBuilder) builder = NULL;
  GtkWidget *summary, *empty;

  if (self->score_label != NULL)
    return;
  builder = gtk_builder_new_from_resource ("/io/github/gpumemorylab/GpuMemoryLab/gml-quiz-end.ui");
  summary = GTK_WIDGET (gtk_builder_get_object (builder, "summary_page"));
  empty = GTK_WIDGET (gtk_builder_get_object (builder, "empty_page"));
  self->score_label = GTK_LABEL (gtk_builder_get_object (builder, "score_label"));
  self->per_difficulty_box = GTK_BOX (gtk_builder_get_object (builder, "per_difficulty_box"));
  self->wrong_heading = GTK_LABEL (gtk_builder_get_object (builder, "wrong_heading"));
  self->wrong_box = GTK_BOX (gtk_builder_get_object (builder, "wrong_box"));
  self->review_button = GTK_BUTTON (gtk_builder_get_object (builder, "review_button"));
  /* In the language of the moment; a later change reaches them through the window. */
  gml_language_localize_widget (summary, NULL);
  gml_language_localize_widget (empty, NULL);
  gml_accessible_name_buttons (summary);
  gtk_stack_add_named (self->stack, summary, "summary");
  gtk_stack_add_named (self->stack, empty, "empty");
}

static void
show_summary (GmlQuizPage *self)
{
  guint right = 0, answered = 0;
  guint per_right[4] = { 0 }, per_total[4] = { 0 };
  GtkWidget *child;
  g_autofree char *score = NULL;
  gboolean any_wrong = FALSE;

  ensure_end_pages (self);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->per_difficulty_box))) != NULL)
    gtk_box_remove (self->per_difficulty_box, child);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->wrong_box))) != NULL)
    gtk_box_remove (self->wrong_box, child);

  for (guint i = 0; i < self->round->len; i++)
    {
      RoundItem *it = &g_array_index (self->round, RoundItem, i);
      const GmlQuestion *q = gml_question_bank_get (self->bank, it->question);
      gboolean correct = it->answered && q->options[it->order[it->chosen]].correct;

      per_total[q->difficulty]++;
      if (it->answered)
        answered++;
      if (correct)
        {
          right++;
          per_right[q->difficulty]++;
        }
      else if (it->answered)
        {
          g_autofree char *text = gml_question_format (q, q->text, it->order);
          GtkWidget *label = gtk_label_new (text);

          gtk_label_set_wrap (GTK_LABEL (label), TRUE);
          gtk_label_set_xalign (GTK_LABEL (label), 0);
          gtk_widget_add_css_class (label, "wrong-question");
          gtk_box_append (self->wrong_box, label);
          any_wrong = TRUE;
        }
    }

  /* Translators: the score at the end of a round, e.g. "4 of 6 right". */
  score = g_strdup_printf (ngettext ("%u of %u right", "%u of %u right",
                                        self->round->len),
                           right, self->round->len);
  gtk_label_set_label (self->score_label, score);

  for (int d = 1; d <= 3; d++)
    {
      g_autofree char *line = NULL;
      GtkWidget *label;

      if (per_total[d] == 0)
        continue;
      /* Translators: e.g. "Difficulty 2: 3 of 4 right". */
      line = g_strdup_printf (_("Difficulty %d: %u of %u right"), d, per_right[d], per_total[d]);
      label = gtk_label_new (line);
      gtk_box_append (self->per_difficulty_box, label);
    }

  gtk_widget_set_visible (GTK_WIDGET (self->wrong_heading), any_wrong);
  gtk_widget_set_visible (GTK_WIDGET (self->review_button), any_wrong);
  gtk_stack_set_visible_child_name (self->stack, "summary");
  update_actions (self);
  gtk_widget_grab_focus (GTK_WIDGET (any_wrong ? self->review_button : self->next_button));
}

/* The question's picture script beside it; once answered, it points at the answer. */
static void
update_picture (GmlQuizPage *self)
{
  RoundItem *item = current_item (self);
  const GmlQuestion *q;

  if (item == NULL)
    return;
  q = gml_question_bank_get (self->bank, item->question);
  gml_scenario_panel_set_question (GML_SCENARIO_PANEL (self->scenario_panel), q);
  if (item->answered)
    gml_scenario_panel_point (GML_SCENARIO_PANEL (self->scenario_panel));
}

static void
show_uri_done_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GmlQuizPage) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!gtk_show_uri_full_finish (GTK_WINDOW (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* Translators: %s is the reason, e.g. that no web browser is installed. */
      g_autofree char *message = g_strdup_printf (_("The link could not be opened: %s"),
                                                  error->message);

      g_signal_emit (self, signals[MESSAGE], 0, message);
    }
}

/* Opens a source in the browser: through GIO's default handler for https, which is
 * the OpenURI portal inside the Flatpak sandbox. */
static gboolean
source_activate_link_cb (GtkLinkButton *button,
                         GmlQuizPage   *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (button));

  if (!GTK_IS_WINDOW (root))
    return FALSE;
  gtk_show_uri_full (GTK_WINDOW (root), gtk_link_button_get_uri (button), GDK_CURRENT_TIME,
                     NULL, show_uri_done_cb, g_object_ref (self));
  gtk_link_button_set_visited (button, TRUE);
  return TRUE;
}

/* One link per source, its title as the label, its address as the tooltip. */
static void
show_sources (GmlQuizPage       *self,
              const GmlQuestion *q)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->sources_box))) != NULL)
    gtk_box_remove (self->sources_box, child);

  for (guint i = 0; i < q->n_sources; i++)
    {
      g_autofree char *link = gml_source_dup_link (&q->sources[i]);
      GtkWidget *button;
      GtkWidget *label;

      if (link == NULL)
        continue;
      button = gtk_link_button_new_with_label (link, q->sources[i].title);
      gtk_widget_set_halign (button, GTK_ALIGN_START);
      label = gtk_button_get_child (GTK_BUTTON (button));
      if (GTK_IS_LABEL (label))
        {
          gtk_label_set_wrap (GTK_LABEL (label), TRUE);
          gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
          gtk_label_set_xalign (GTK_LABEL (label), 0);
        }
      gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, q->sources[i].title,
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, link,
                                      -1);
      g_signal_connect_object (button, "activate-link", G_CALLBACK (source_activate_link_cb),
                               self, 0);
      gtk_box_append (self->sources_box, button);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->sources_heading),
                          gtk_widget_get_first_child (GTK_WIDGET (self->sources_box)) != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->sources_box),
                          gtk_widget_get_first_child (GTK_WIDGET (self->sources_box)) != NULL);
}

/* A question built from a configuration of the experiment lab offers it once
 * answered: win.open-lab with the knobs as the experiment verb spells them. */
static void
show_open_lab (GmlQuizPage       *self,
               const GmlQuestion *q)
{
  const char *config = gml_picture_script_get_lab_config (q->picture_script);

  gtk_widget_set_visible (GTK_WIDGET (self->open_lab_button), config != NULL);
  /* The target first: the action takes a string, and a button whose target does
   * not match its action's parameter is made insensitive. */
  if (config != NULL)
    {
      gtk_actionable_set_action_target_value (GTK_ACTIONABLE (self->open_lab_button),
                                              g_variant_new_string (config));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (self->open_lab_button), "win.open-lab");
    }
}

/* The page's first frame is on screen: now its picture script runs and its picture is
 * drawn, in the frames that follow. */
static void
first_frame_painted_cb (GmlQuizPage   *self,
                        GdkFrameClock *clock)
{
  g_signal_handlers_disconnect_by_func (clock, first_frame_painted_cb, self);
  self->waiting_clock = NULL;
  self->painted = TRUE;
  if (self->picture_pending)
    {
      self->picture_pending = FALSE;
      update_picture (self);
    }
}

static void
stop_waiting_for_frame (GmlQuizPage *self)
{
  if (self->waiting_clock != NULL)
    g_signal_handlers_disconnect_by_func (self->waiting_clock, first_frame_painted_cb, self);
  self->waiting_clock = NULL;
}

static void
gml_quiz_page_map (GtkWidget *widget)
{
  GmlQuizPage *self = GML_QUIZ_PAGE (widget);

  GTK_WIDGET_CLASS (gml_quiz_page_parent_class)->map (widget);
  if (!self->painted && self->waiting_clock == NULL)
    {
      self->waiting_clock = gtk_widget_get_frame_clock (widget);
      g_signal_connect_object (self->waiting_clock, "after-paint",
                               G_CALLBACK (first_frame_painted_cb),
                               self, G_CONNECT_SWAPPED);
    }
}

static void
gml_quiz_page_unmap (GtkWidget *widget)
{
  stop_waiting_for_frame (GML_QUIZ_PAGE (widget));
  GTK_WIDGET_CLASS (gml_quiz_page_parent_class)->unmap (widget);
}

static void
show_current (GmlQuizPage *self)
{
  RoundItem *item = current_item (self);
  const GmlQuestion *q;
  const GmlOption *right;
  guint right_pos;
  g_autofree char *text = NULL;
  g_autofree char *difficulty = NULL;
  g_autofree char *position = NULL;
  g_autofree char *last = NULL;
  g_autofree char *other = NULL;
  gboolean bilingual;

  if (self->round == NULL || self->round->len == 0)
    {
      ensure_end_pages (self);
      gtk_stack_set_visible_child_name (self->stack, "empty");
      update_actions (self);
      return;
    }
  if (item == NULL)
    {
      show_summary (self);
      return;
    }

  q = gml_question_bank_get (self->bank, item->question);
  if (!item->answered && item->shown_at == 0)
    item->shown_at = g_get_monotonic_time ();

  gtk_label_set_label (self->topic_label, gml_question_translate (q, q->topic));
  difficulty = g_strdup_printf (_("Difficulty %d"), q->difficulty);
  gtk_label_set_label (self->difficulty_label, difficulty);
  /* Translators: the position in the round, e.g. "3 / 6". */
  position = g_strdup_printf (_("%u / %u"), self->current + 1, self->round->len);
  gtk_label_set_label (self->position_label, position);
  /* "Last time" means before this round, not the answer just given. */
  last = format_last_result (item->prior.question != NULL ? &item->prior : NULL);
  gtk_label_set_label (self->last_result_label, last);

  text = gml_question_format (q, q->text, item->order);
  gtk_label_set_label (self->question_label, text);
  bilingual = self->settings != NULL && g_settings_get_boolean (self->settings, "bilingual");
  other = bilingual ? gml_language_format_other (q, q->text, item->order) : NULL;
  gml_label_set_other (self->question_other_label, text, other);

  right_pos = gml_question_correct_position (q, item->order);
  right = &q->options[item->order[right_pos]];

  for (guint shown = 0; shown < GML_N_OPTIONS; shown++)
    {
      gml_option_row_set_option (self->option_rows[shown], q, item->order, shown, bilingual);
      gml_option_row_set_state (self->option_rows[shown], item->answered, shown == right_pos,
                                item->answered && shown == item->chosen);
    }

  gtk_widget_set_visible (GTK_WIDGET (self->result_box), item->answered);
  gtk_widget_set_visible (GTK_WIDGET (self->open_lab_button), FALSE);
  if (item->answered)
    {
      const GmlOption *chosen = &q->options[item->order[item->chosen]];
      g_autofree char *chosen_feedback = gml_question_format (q, chosen->feedback, item->order);
      g_autofree char *right_feedback = gml_question_format (q, right->feedback, item->order);
      g_autofree char *explanation = gml_question_format (q, q->explanation, item->order);
      g_autofree char *chosen_line = NULL;
      g_autofree char *right_line = NULL;

      /* Translators: %c is the option's letter, %s its feedback. */
      chosen_line = g_strdup_printf (_("Your answer (%c): %s"), gml_option_letter (item->chosen),
                                     chosen_feedback);
      /* Translators: %c is the option's letter, %s its feedback. */
      right_line = g_strdup_printf (_("The right answer (%c): %s"), gml_option_letter (right_pos),
                                    right_feedback);

      gtk_label_set_label (self->verdict_label, chosen->correct ? _("Right!") : _("Wrong."));
      gtk_widget_remove_css_class (GTK_WIDGET (self->verdict_label),
                                   chosen->correct ? "error" : "success");
      gtk_widget_add_css_class (GTK_WIDGET (self->verdict_label),
                                chosen->correct ? "success" : "error");
      gtk_label_set_label (self->chosen_feedback_label, chosen_line);
      gtk_label_set_label (self->correct_feedback_label, right_line);
      gtk_widget_set_visible (GTK_WIDGET (self->correct_feedback_label), !chosen->correct);
      gtk_label_set_label (self->explanation_label, explanation);
      /* Bilingual mode: the feedback and the explanation in the other language too. */
      {
        g_autofree char *chosen_other = bilingual
          ? gml_language_format_other (q, chosen->feedback, item->order) : NULL;
        g_autofree char *right_other = bilingual && !chosen->correct
          ? gml_language_format_other (q, right->feedback, item->order) : NULL;
        g_autofree char *explanation_other = bilingual
          ? gml_language_format_other (q, q->explanation, item->order) : NULL;

        gml_label_set_other (self->chosen_feedback_other_label, chosen_feedback, chosen_other);
        gml_label_set_other (self->correct_feedback_other_label, right_feedback, right_other);
        gml_label_set_other (self->explanation_other_label, explanation, explanation_other);
      }
      show_sources (self, q);
      show_open_lab (self, q);
      gtk_label_set_label (self->hint_label, _("Press Enter, Space or → to go on"));
      gtk_button_set_label (self->next_button,
                            self->current + 1 == self->round->len ? _("_Finish") : _("_Next"));
    }
  else
    {
      gtk_label_set_label (self->hint_label, _("Choose with 1–4 or A–D"));
      gtk_button_set_label (self->next_button, _("_Next"));
    }

  /* Nothing of the picture is in the page's first frame: the question appears at
   * once, and its picture script runs and is drawn after that frame (a page built but
   * never shown runs none). */
  if (self->painted)
    update_picture (self);
  else
    self->picture_pending = TRUE;

  gtk_stack_set_visible_child_name (self->stack, "question");
  update_actions (self);

  if (item->answered)
    gtk_widget_grab_focus (GTK_WIDGET (self->next_button));
  else
    gtk_widget_grab_focus (self->option_buttons[0]);
}

static void
choose (GmlQuizPage *self,
        guint        shown)
{
  RoundItem *item = current_item (self);
  const GmlQuestion *q;
  const GmlOption *option;
  g_autoptr(GError) error = NULL;
  double seconds;

  if (item == NULL || item->answered || shown >= GML_N_OPTIONS)
    return;

  q = gml_question_bank_get (self->bank, item->question);
  option = &q->options[item->order[shown]];
  seconds = (g_get_monotonic_time () - item->shown_at) / (double) G_USEC_PER_SEC;

  item->answered = TRUE;
  item->chosen = shown;

  if (!gml_progress_record (self->progress, q->id, option->id, option->correct, seconds,
                            g_get_real_time () / G_USEC_PER_SEC, &error))
    g_signal_emit (self, signals[MESSAGE], 0, error->message);
  g_signal_emit (self, signals[ANSWERED], 0);

  show_current (self);
}

/* Another question starts at its top, not where the last one was scrolled to. */
static void
scroll_to_top (GmlQuizPage *self)
{
  gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (self->question_scroller), 0);
}

static void
go_next (GmlQuizPage *self)
{
  RoundItem *item = current_item (self);

  if (item == NULL || !item->answered)
    return;
  self->current++;
  show_current (self);
  scroll_to_top (self);
}

static void
go_previous (GmlQuizPage *self)
{
  if (current_item (self) == NULL || self->current == 0)
    return;
  self->current--;
  show_current (self);
  scroll_to_top (self);
}

static void
quiz_choose_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  choose (GML_QUIZ_PAGE (widget), (guint) g_variant_get_int32 (parameter));
}

static void
quiz_next_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  go_next (GML_QUIZ_PAGE (widget));
}

static void
quiz_previous_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  go_previous (GML_QUIZ_PAGE (widget));
}

static GArray *
round_indexes (GmlQuizPage *self,
               gboolean     wrong_only)
{
  GArray *indexes = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < self->round->len; i++)
    {
      RoundItem *it = &g_array_index (self->round, RoundItem, i);
      const GmlQuestion *q = gml_question_bank_get (self->bank, it->question);

      if (!wrong_only || (it->answered && !q->options[it->order[it->chosen]].correct))
        g_array_append_val (indexes, it->question);
    }
  return indexes;
}

static void
quiz_review_wrong_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  GmlQuizPage *self = GML_QUIZ_PAGE (widget);
  g_autoptr(GArray) indexes = round_indexes (self, TRUE);

  gml_quiz_page_start_named_round (self, indexes, N_("Review: answered wrong"));
}

static void
quiz_restart_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  GmlQuizPage *self = GML_QUIZ_PAGE (widget);
  g_autoptr(GArray) indexes = NULL;

  if (self->round == NULL)
    return;
  indexes = round_indexes (self, FALSE);
  /* The same round again: a review stays a review. */
  gml_quiz_page_start_named_round (self, indexes, self->round_name);
}

/* A round of the filter's questions (the window's subtitle names the filter). */
void
gml_quiz_page_start_round (GmlQuizPage *self,
                           GArray      *indexes)
{
  gml_quiz_page_start_named_round (self, indexes, NULL);
}

/* A round that is not the filter's, such as a review: @name is a static,
 * untranslated msgid (N_()) the window shows, in the language of the moment, as
 * its subtitle; NULL for the filter's round. */
void
gml_quiz_page_start_named_round (GmlQuizPage *self,
                                 GArray      *indexes,
                                 const char  *name)
{
  gboolean shuffle = self->settings == NULL ||
  g_settings_get_boolean (self->settings, "shuffle-options");

  g_return_if_fail (GML_IS_QUIZ_PAGE (self));

  if (self->round_name != name)
    {
      self->round_name = name;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROUND_NAME]);
    }

  g_clear_pointer (&self->round, g_array_unref);
  self->round = g_array_sized_new (FALSE, TRUE, sizeof (RoundItem), indexes->len);
  for (guint i = 0; i < indexes->len; i++)
    {
      RoundItem item = { .question = g_array_index (indexes, guint, i) };
      const GmlQuestion *q = gml_question_bank_get (self->bank, item.question);
      const GmlAnswer *prior = self->progress != NULL ? gml_progress_last_for (self->progress,
                                                                               q->id) : NULL;

      /* Only the result and date are kept; the strings stay owned by the log. */
      if (prior != NULL)
        item.prior = (GmlAnswer) { .question = (char *) q->id, .time = prior->time,
                                   .correct = prior->correct };

      if (shuffle)
        gml_question_shuffle_order (item.order, self->rand);
      else
        gml_question_identity_order (item.order);
      g_array_append_val (self->round, item);
    }
  self->current = 0;
  show_current (self);
  scroll_to_top (self);
}

/* The untranslated name of a round that is not the filter's, or NULL. */
const char *
gml_quiz_page_get_round_name (GmlQuizPage *self)
{
  g_return_val_if_fail (GML_IS_QUIZ_PAGE (self), NULL);
  return self->round_name;
}

/* Shows the current question again, e.g. after the language changed. */
void
gml_quiz_page_refresh (GmlQuizPage *self)
{
  show_current (self);
}

/* The round as it stands, for presentation mode. */
guint
gml_quiz_page_get_n_items (GmlQuizPage *self)
{
  g_return_val_if_fail (GML_IS_QUIZ_PAGE (self), 0);
  return self->round != NULL ? self->round->len : 0;
}

guint
gml_quiz_page_get_position (GmlQuizPage *self)
{
  g_return_val_if_fail (GML_IS_QUIZ_PAGE (self), 0);
  return self->current;
}

struct _GmlQuizRound
{
  GArray     *items;      /* RoundItem */
  guint       current;
  const char *name;       /* a static msgid, or NULL */
};

/* Whether restarting would lose anything: a question answered, or one moved past. */
gboolean
gml_quiz_page_round_has_progress (GmlQuizPage *self)
{
  g_return_val_if_fail (GML_IS_QUIZ_PAGE (self), FALSE);

  if (self->round == NULL)
    return FALSE;
  if (self->current > 0)
    return TRUE;
  for (guint i = 0; i < self->round->len; i++)
    if (g_array_index (self->round, RoundItem, i).answered)
      return TRUE;
  return FALSE;
}

GmlQuizRound *
gml_quiz_page_save_round (GmlQuizPage *self)
{
  GmlQuizRound *round;

  g_return_val_if_fail (GML_IS_QUIZ_PAGE (self), NULL);

  if (self->round == NULL)
    return NULL;
  round = g_new0 (GmlQuizRound, 1);
  round->items = g_array_copy (self->round);
  round->current = self->current;
  round->name = self->round_name;
  return round;
}

/* Puts @round back as it was saved: its questions, their option order, the
 * answers given in it and the question it was on. */
void
gml_quiz_page_restore_round (GmlQuizPage        *self,
                             const GmlQuizRound *round)
{
  g_return_if_fail (GML_IS_QUIZ_PAGE (self));
  g_return_if_fail (round != NULL);

  if (self->round_name != round->name)
    {
      self->round_name = round->name;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROUND_NAME]);
    }
  g_clear_pointer (&self->round, g_array_unref);
  self->round = g_array_copy (round->items);
  self->current = MIN (round->current, self->round->len);
  show_current (self);
  scroll_to_top (self);
}

void
gml_quiz_round_free (GmlQuizRound *round)
{
  if (round == NULL)
    return;
  g_array_unref (round->items);
  g_free (round);
}

/* Returns the bank index of the question at `position` and fills its option order. */
guint
gml_quiz_page_get_item (GmlQuizPage *self,
                        guint        position,
                        guint        order[GML_N_OPTIONS])
{
  RoundItem *item;

  g_return_val_if_fail (GML_IS_QUIZ_PAGE (self), 0);
  g_return_val_if_fail (self->round != NULL && position < self->round->len, 0);

  item = &g_array_index (self->round, RoundItem, position);
  memcpy (order, item->order, sizeof item->order);
  return item->question;
}

/* The answer to @question was removed from the log ("undo"): the round's item that
 * holds it becomes unanswered again and is shown, the current one if it matches, else
 * the nearest one before it. A question not in this round changes nothing here. */
void
gml_quiz_page_undo_answer (GmlQuizPage *self,
                           const char  *question)
{
  guint n = self->round != NULL ? self->round->len : 0;
  guint start = self->current < n ? self->current : n - 1;
  int found = -1;

  g_return_if_fail (GML_IS_QUIZ_PAGE (self));

  /* From the current item backwards, wrapping round to the later ones last. */
  for (guint i = 0; i < n && found < 0; i++)
    {
      guint at = (start + n - i) % n;
      RoundItem *it = &g_array_index (self->round, RoundItem, at);

      if (it->answered &&
          g_str_equal (gml_question_bank_get (self->bank, it->question)->id, question))
        found = (int) at;
    }
  if (found < 0)
    return;

  g_array_index (self->round, RoundItem, found).answered = FALSE;
  g_array_index (self->round, RoundItem, found).shown_at = 0;
  self->current = (guint) found;
  show_current (self);
}

static void
bilingual_changed_cb (GmlQuizPage *self)
{
  if (self->round != NULL)
    show_current (self);
}

void
gml_quiz_page_set_sources (GmlQuizPage     *self,
                           GmlQuestionBank *bank,
                           GmlProgress     *progress,
                           GSettings       *settings)
{
  g_return_if_fail (GML_IS_QUIZ_PAGE (self));

  self->bank = bank;
  self->progress = progress;
  if (g_set_object (&self->settings, settings) && settings != NULL)
    g_signal_connect_object (settings, "changed::bilingual", G_CALLBACK (bilingual_changed_cb),
                             self,
                             G_CONNECT_SWAPPED);
}

/* The divider between the question and its picture stays where it is from one
 * question to the next: GtkPaned follows its children's natural widths until a
 * position is set, so set one (half and half) once the page has its width. The
 * user can still drag it. */
static gboolean
paned_position_set (GmlQuizPage *self)
{
  gboolean set = FALSE;

  g_object_get (self->paned, "position-set", &set, NULL);
  return set;
}

static gboolean
split_idle_cb (gpointer user_data)
{
  GmlQuizPage *self = user_data;
  int max = 0;

  self->split_idle = 0;
  g_object_get (self->paned, "max-position", &max, NULL);
  if (max > 0 && !paned_position_set (self))
    gtk_paned_set_position (GTK_PANED (self->paned), max / 2);
  return G_SOURCE_REMOVE;
}

static void
paned_max_position_cb (GmlQuizPage *self)
{
  if (self->split_idle == 0 && !paned_position_set (self))
    self->split_idle = g_idle_add (split_idle_cb, self);
}

static void
gml_quiz_page_dispose (GObject *object)
{
  GmlQuizPage *self = GML_QUIZ_PAGE (object);

  stop_waiting_for_frame (self);
  g_clear_handle_id (&self->split_idle, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_QUIZ_PAGE);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (gml_quiz_page_parent_class)->dispose (object);
}

static void
gml_quiz_page_finalize (GObject *object)
{
  GmlQuizPage *self = GML_QUIZ_PAGE (object);

  g_clear_pointer (&self->round, g_array_unref);
  g_clear_pointer (&self->rand, g_rand_free);

  G_OBJECT_CLASS (gml_quiz_page_parent_class)->finalize (object);
}

static const guint next_keys[] = {
  GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_ISO_Enter, GDK_KEY_space, GDK_KEY_KP_Space,
  GDK_KEY_Right, GDK_KEY_KP_Right,
};

static void
gml_quiz_page_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  GmlQuizPage *self = GML_QUIZ_PAGE (object);

  switch (prop_id)
    {
    case PROP_ROUND_NAME:
      g_value_set_string (value, self->round_name);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_quiz_page_class_init (GmlQuizPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = gml_quiz_page_dispose;
  object_class->finalize = gml_quiz_page_finalize;
  object_class->get_property = gml_quiz_page_get_property;
  widget_class->map = gml_quiz_page_map;
  widget_class->unmap = gml_quiz_page_unmap;

  /**
   * GmlQuizPage:round-name:
   *
   * The untranslated name of a round that is not the filter's ("Review due"),
   * or %NULL.
   */
  properties[PROP_ROUND_NAME] =
    g_param_spec_string ("round-name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * GmlQuizPage::message:
   *
   * A translated sentence for the user, such as a failure to save progress.
   */
  signals[MESSAGE] = g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * GmlQuizPage::answered:
   *
   * An answer was added to the answer log (what is due for review changed).
   */
  signals[ANSWERED] = g_signal_new ("answered", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_BASE "/gml-quiz-page.ui");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "quizpage");

  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, stack);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, paned);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, question_scroller);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, scenario_panel);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, topic_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, difficulty_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, last_result_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, position_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, question_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, question_other_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, chosen_feedback_other_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, correct_feedback_other_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, explanation_other_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, result_box);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, verdict_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, chosen_feedback_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, correct_feedback_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, explanation_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, sources_heading);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, sources_box);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, open_lab_button);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, hint_label);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, previous_button);
  gtk_widget_class_bind_template_child (widget_class, GmlQuizPage, next_button);
  gml_option_row_bind_template_children (widget_class, "option_button_",
                                         G_STRUCT_OFFSET (GmlQuizPage, option_buttons));
  gml_option_row_bind_template_children (widget_class, "option_row_",
                                         G_STRUCT_OFFSET (GmlQuizPage, option_rows));

  gtk_widget_class_install_action (widget_class, "quiz.choose", "i", quiz_choose_action);
  gtk_widget_class_install_action (widget_class, "quiz.next", NULL, quiz_next_action);
  gtk_widget_class_install_action (widget_class, "quiz.previous", NULL, quiz_previous_action);
  gtk_widget_class_install_action (widget_class, "quiz.review-wrong", NULL,
                                   quiz_review_wrong_action);
  gtk_widget_class_install_action (widget_class, "quiz.restart", NULL, quiz_restart_action);

  /* Keys as binding actions on the page, as GNOME Text Editor does it: the focused
   * control gets a key first (Enter on Previous goes back, Space on a view tab
   * switches the view, ←/→ on the step slider move the slider), and the page acts on
   * what no control wanted. 1–4 and A–D choose; Enter, Space and → go on once the
   * question is answered; ← goes back. Disabled actions let the key go on. The
   * picture's own keys (Ctrl+←/→, [ ], …) are the picture panel's shortcuts. */
  for (guint shown = 0; shown < GML_N_OPTIONS; shown++)
    {
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1 + shown, 0, "quiz.choose", "i",
                                           shown);
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_1 + shown, 0, "quiz.choose",
                                           "i", shown);
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_a + shown, 0, "quiz.choose", "i",
                                           shown);
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_A + shown, GDK_SHIFT_MASK,
                                           "quiz.choose", "i", shown);
    }
  for (guint i = 0; i < G_N_ELEMENTS (next_keys); i++)
    gtk_widget_class_add_binding_action (widget_class, next_keys[i], 0, "quiz.next", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, 0, "quiz.previous", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Left, 0, "quiz.previous", NULL);

  g_type_ensure (ADW_TYPE_CLAMP);
  g_type_ensure (GML_TYPE_OPTION_ROW);
  g_type_ensure (GML_TYPE_SCENARIO_PANEL);
  g_type_ensure (ADW_TYPE_STATUS_PAGE);
}

/* The picture's messages (an export that failed) go to the window's toasts. */
static void
scenario_panel_message_cb (GmlQuizPage *self,
                           const char  *message)
{
  g_signal_emit (self, signals[MESSAGE], 0, message);
}

static void
gml_quiz_page_init (GmlQuizPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gml_language_localize_widget (GTK_WIDGET (self), NULL);
  gml_accessible_name_buttons (GTK_WIDGET (self));

  self->rand = g_rand_new ();
  g_signal_connect_object (self->paned, "notify::max-position", G_CALLBACK (paned_max_position_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->scenario_panel, "message", G_CALLBACK (scenario_panel_message_cb),
                           self, G_CONNECT_SWAPPED);
}

GtkWidget *
gml_quiz_page_new (void)
{
  return g_object_new (GML_TYPE_QUIZ_PAGE, NULL);
}

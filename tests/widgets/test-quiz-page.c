/* test-quiz-page.c — GmlQuizPage as a widget: built, driven through its actions
 * and finalized, with no application and no window around it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>

#include "gml-i18n.h"
#include "gml-progress.h"
#include "gml-question-bank.h"
#include "gml-quiz-page.h"
#include "gml-test-common.h"

typedef struct
{
  GmlQuestionBank *bank;
  GmlProgress     *progress;
  GSettings       *settings;
  char            *dir;
  GmlQuizPage     *page;
} Fixture;

static GArray *
indexes (guint first,
         guint n)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = first; i < first + n; i++)
    g_array_append_val (out, i);
  return out;
}

static void
fixture_set_up (Fixture      *f,
                gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  f->bank = gml_question_bank_new ();
  g_assert_true (gml_question_bank_load_builtin (f->bank, &error));
  g_assert_no_error (error);
  f->dir = gml_test_make_tmp_dir ("gml-widgets-XXXXXX");
  path = g_build_filename (f->dir, "progress.json", NULL);
  f->progress = gml_progress_new (path);
  f->settings = g_settings_new (APPLICATION_ID);
  g_settings_set_boolean (f->settings, "shuffle-options", FALSE);

  f->page = GML_QUIZ_PAGE (g_object_ref_sink (gml_quiz_page_new ()));
  gml_quiz_page_set_sources (f->page, f->bank, f->progress, f->settings);
}

static void
fixture_tear_down (Fixture      *f,
                   gconstpointer data)
{
  /* Nothing else may hold the page: no leaked reference, no signal left behind. */
  g_assert_finalize_object (f->page);
  g_object_unref (f->settings);
  gml_progress_free (f->progress);
  gml_question_bank_free (f->bank);
  gml_test_remove_tree (f->dir);
  g_free (f->dir);
}

static void
answer (Fixture *f,
        int      shown)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->page), "quiz.choose", "i", shown));
}

/* A round is built, answered and moved through with the page's own actions. */
static void
test_round (Fixture      *f,
            gconstpointer data)
{
  g_autoptr(GArray) round = indexes (0, 3);
  guint order[GML_N_OPTIONS];

  gml_quiz_page_start_round (f->page, round);
  g_assert_cmpuint (gml_quiz_page_get_n_items (f->page), ==, 3);
  g_assert_cmpuint (gml_quiz_page_get_position (f->page), ==, 0);
  g_assert_false (gml_quiz_page_round_has_progress (f->page));
  /* Not shuffled: the options are in the bank's order. */
  g_assert_cmpuint (gml_quiz_page_get_item (f->page, 0, order), ==, 0);
  for (guint i = 0; i < GML_N_OPTIONS; i++)
    g_assert_cmpuint (order[i], ==, i);

  /* Next does nothing before an answer. */
  gtk_widget_activate_action (GTK_WIDGET (f->page), "quiz.next", NULL);
  g_assert_cmpuint (gml_quiz_page_get_position (f->page), ==, 0);

  answer (f, 0);
  g_assert_true (gml_quiz_page_round_has_progress (f->page));
  g_assert_cmpuint (gml_progress_get_n_answers (f->progress), ==, 1);
  gtk_widget_activate_action (GTK_WIDGET (f->page), "quiz.next", NULL);
  g_assert_cmpuint (gml_quiz_page_get_position (f->page), ==, 1);
  gtk_widget_activate_action (GTK_WIDGET (f->page), "quiz.previous", NULL);
  g_assert_cmpuint (gml_quiz_page_get_position (f->page), ==, 0);
}

/* Restarting keeps what Undo needs: the round comes back as it was. */
static void
test_save_restore (Fixture      *f,
                   gconstpointer data)
{
  g_autoptr(GArray) first = indexes (0, 3);
  g_autoptr(GArray) second = indexes (10, 5);
  g_autoptr(GmlQuizRound) saved = NULL;
  guint order[GML_N_OPTIONS];

  gml_quiz_page_start_round (f->page, first);
  answer (f, 1);
  gtk_widget_activate_action (GTK_WIDGET (f->page), "quiz.next", NULL);
  saved = gml_quiz_page_save_round (f->page);
  g_assert_nonnull (saved);

  gml_quiz_page_start_round (f->page, second);
  g_assert_cmpuint (gml_quiz_page_get_n_items (f->page), ==, 5);
  g_assert_cmpuint (gml_quiz_page_get_position (f->page), ==, 0);
  g_assert_false (gml_quiz_page_round_has_progress (f->page));

  gml_quiz_page_restore_round (f->page, saved);
  g_assert_cmpuint (gml_quiz_page_get_n_items (f->page), ==, 3);
  g_assert_cmpuint (gml_quiz_page_get_position (f->page), ==, 1);
  g_assert_cmpuint (gml_quiz_page_get_item (f->page, 2, order), ==, 2);
  g_assert_true (gml_quiz_page_round_has_progress (f->page));
  /* The first question is still answered: back on it, Next goes on at once. */
  gtk_widget_activate_action (GTK_WIDGET (f->page), "quiz.previous", NULL);
  g_assert_cmpuint (gml_quiz_page_get_position (f->page), ==, 0);
  gtk_widget_activate_action (GTK_WIDGET (f->page), "quiz.next", NULL);
  g_assert_cmpuint (gml_quiz_page_get_position (f->page), ==, 1);
  /* The saved round is a copy: restoring it again gives the same round. */
  gml_quiz_page_restore_round (f->page, saved);
  g_assert_cmpuint (gml_quiz_page_get_position (f->page), ==, 1);
}

/* How many labels under @widget show @text, hidden ones too. */
static guint
count_labels (GtkWidget  *widget,
              const char *text)
{
  guint n = GTK_IS_LABEL (widget) &&
  g_strcmp0 (gtk_label_get_label (GTK_LABEL (widget)), text) == 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += count_labels (child, text);
  return n;
}

static GtkStack *
find_stack (GtkWidget *widget)
{
  if (GTK_IS_STACK (widget))
    return GTK_STACK (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkStack *stack = find_stack (child);

      if (stack != NULL)
        return stack;
    }
  return NULL;
}

/* The end of a round and "No Questions" are not built with the page (they are not
 * on the first screen), but when first shown, and then once. */
static void
test_end_pages (Fixture      *f,
                gconstpointer data)
{
  g_autoptr(GArray) round = indexes (0, 2);
  g_autoptr(GArray) none = g_array_new (FALSE, FALSE, sizeof (guint));
  GtkStack *stack = find_stack (GTK_WIDGET (f->page));

  g_assert_nonnull (stack);
  gml_quiz_page_start_round (f->page, round);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "question");
  g_assert_null (gtk_stack_get_child_by_name (stack, "summary"));
  g_assert_null (gtk_stack_get_child_by_name (stack, "empty"));
  g_assert_cmpuint (count_labels (GTK_WIDGET (f->page), "Round Complete"), ==, 0);

  for (int i = 0; i < 2; i++)
    {
      answer (f, 0);
      gtk_widget_activate_action (GTK_WIDGET (f->page), "quiz.next", NULL);
    }
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "summary");
  g_assert_cmpuint (count_labels (GTK_WIDGET (f->page), "Round Complete"), ==, 1);

  gml_quiz_page_start_round (f->page, none);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "empty");
  g_assert_true (ADW_IS_STATUS_PAGE (gtk_stack_get_visible_child (stack)));
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (gtk_stack_get_visible_child (stack))),
                   ==, "No Questions");

  /* A second round's end: the same pages, not new ones. */
  gml_quiz_page_start_round (f->page, round);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "question");
  for (int i = 0; i < 2; i++)
    {
      answer (f, 1);
      gtk_widget_activate_action (GTK_WIDGET (f->page), "quiz.next", NULL);
    }
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "summary");
  g_assert_cmpuint (count_labels (GTK_WIDGET (f->page), "Round Complete"), ==, 1);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add ("/widgets/quiz-page/round", Fixture, NULL, fixture_set_up, test_round,
              fixture_tear_down);
  g_test_add ("/widgets/quiz-page/save-restore", Fixture, NULL, fixture_set_up, test_save_restore,
              fixture_tear_down);
  g_test_add ("/widgets/quiz-page/end-pages", Fixture, NULL, fixture_set_up, test_end_pages,
              fixture_tear_down);
  return g_test_run ();
}

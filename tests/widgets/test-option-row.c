/* test-option-row.c — GmlOptionRow as a widget: built, given an option and its
 * states, read as a screen reader reads it, and finalized.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "gml-i18n.h"
#include "gml-option-row.h"
#include "gml-question-bank.h"

static GmlOptionRow *
new_row (void)
{
  return GML_OPTION_ROW (g_object_ref_sink (gml_option_row_new ()));
}

/* The first label inside @root that has @css_class. */
static GtkLabel *
label_with_class (GtkWidget  *root,
                  const char *css_class)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found;

      if (GTK_IS_LABEL (child) && gtk_widget_has_css_class (child, css_class))
        return GTK_LABEL (child);
      if ((found = label_with_class (child, css_class)) != NULL)
        return found;
    }
  return NULL;
}

/* A bank option: the letter of its place, its text as the bank formats it, and an
 * accessible name that is the visible text (no mnemonic underscore). */
static void
test_option (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *expected_text = NULL;
  g_autofree char *expected_name = NULL;
  const GmlQuestion *q;
  guint order[GML_N_OPTIONS] = { 2, 0, 3, 1 };
  GmlOptionRow *row = new_row ();

  g_assert_true (gml_question_bank_load_builtin (bank, &error));
  g_assert_no_error (error);
  q = gml_question_bank_get (bank, 0);
  expected_text = gml_question_format (q, q->options[3].text, order);

  gml_option_row_set_option (row, q, order, 2, FALSE);
  g_assert_cmpstr (gml_option_row_get_letter (row), ==, "c");
  g_assert_cmpstr (gml_option_row_get_text (row), ==, expected_text);
  g_assert_cmpstr (gtk_label_get_label (label_with_class (GTK_WIDGET (row), "option-letter")), ==,
                   "c");
  g_assert_cmpstr (gtk_label_get_label (label_with_class (GTK_WIDGET (row), "option-text")), ==,
                   expected_text);
  g_assert_false (gtk_label_get_use_underline (label_with_class (GTK_WIDGET (row), "option-text")));

  expected_name = g_strdup_printf ("c. %s", expected_text);
  gtk_test_accessible_assert_role (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       expected_name);
  /* Not bilingual: no second line. */
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (label_with_class (GTK_WIDGET (row),
                                                                        "option-other"))));

  g_assert_finalize_object (row);
}

static void
count_cb (GObject    *object,
          GParamSpec *pspec,
          guint      *count)
{
  /* The row's own properties, not GtkWidget's (css-classes changes with the state). */
  if (pspec->owner_type == GML_TYPE_OPTION_ROW)
    (*count)++;
}

/* The states the quiz page, the presentation and the presenter show, as CSS classes
 * for the colours and as a description for those who do not see them. */
static void
test_states (void)
{
  GmlOptionRow *row = new_row ();
  GtkWidget *widget = GTK_WIDGET (row);
  guint notified = 0;

  g_signal_connect (row, "notify", G_CALLBACK (count_cb), &notified);

  gml_option_row_set_letter (row, "a");
  gml_option_row_set_text (row, "Not yet answered");
  g_assert_cmpuint (notified, ==, 2);
  g_assert_false (gtk_widget_has_css_class (widget, "revealed"));
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "");

  /* The right option, once the answer is known. */
  gml_option_row_set_state (row, TRUE, TRUE, FALSE);
  g_assert_true (gtk_widget_has_css_class (widget, "revealed"));
  g_assert_true (gtk_widget_has_css_class (widget, "correct"));
  g_assert_false (gtk_widget_has_css_class (widget, "not-correct"));
  g_assert_false (gtk_widget_has_css_class (widget, "wrong"));
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "The right answer");

  /* The wrong option the student chose. */
  notified = 0;
  gml_option_row_set_state (row, TRUE, FALSE, TRUE);
  g_assert_cmpuint (notified, ==, 2);
  g_assert_false (gtk_widget_has_css_class (widget, "correct"));
  g_assert_true (gtk_widget_has_css_class (widget, "not-correct"));
  g_assert_true (gtk_widget_has_css_class (widget, "wrong"));
  g_assert_true (gtk_widget_has_css_class (widget, "selected"));
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "Your answer, wrong");

  /* Another wrong option, not chosen: dimmed on the projector, no description. */
  gml_option_row_set_state (row, TRUE, FALSE, FALSE);
  g_assert_true (gtk_widget_has_css_class (widget, "not-correct"));
  g_assert_false (gtk_widget_has_css_class (widget, "wrong"));
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "");

  /* Back to a new question: no state left over. */
  notified = 0;
  gml_option_row_set_state (row, FALSE, FALSE, FALSE);
  g_assert_cmpuint (notified, ==, 1);
  for (guint i = 0; i < 4; i++)
    g_assert_false (gtk_widget_has_css_class (widget, (const char *[]) { "revealed", "correct",
                                                                          "not-correct",
                                                                          "wrong" }[i]));
  /* Setting the same state again says nothing. */
  notified = 0;
  gml_option_row_set_state (row, FALSE, FALSE, FALSE);
  g_object_set (row, "text", "Not yet answered", NULL);
  g_assert_cmpuint (notified, ==, 0);

  g_assert_finalize_object (row);
}

/* Bilingual mode's second line and the presenter's feedback line: shown only when
 * they say something the first line does not. */
static void
test_other_and_feedback (void)
{
  GmlOptionRow *row = new_row ();
  GtkLabel *other = label_with_class (GTK_WIDGET (row), "option-other");
  GtkLabel *feedback = label_with_class (GTK_WIDGET (row), "feedback");

  gml_option_row_set_letter (row, "b");
  gml_option_row_set_text (row, "Fragmentation");
  gml_option_row_set_other (row, "Parçalanma");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (other)));
  g_assert_cmpstr (gtk_label_get_label (other), ==, "Parçalanma");
  /* The same text twice would be noise. */
  gml_option_row_set_other (row, "Fragmentation");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (other)));
  gml_option_row_set_other (row, NULL);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (other)));

  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (feedback)));
  g_object_set (row, "feedback", "Because blocks are split.", NULL);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (feedback)));
  gml_option_row_set_feedback (row, NULL);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (feedback)));

  g_assert_finalize_object (row);
}

/* The letter stands left of the text, the text takes the rest of the width and wraps
 * there, and the two never overlap. The row lays them out on a grid: a box layout asked
 * the text for its width at a given height first, which GTK answers by trying widths
 * one after another (about 16 layouts of each option's text at start-up). */
static void
test_layout (void)
{
  GmlOptionRow *row = new_row ();
  GtkWidget *window = gtk_window_new ();
  GtkWidget *letter = GTK_WIDGET (label_with_class (GTK_WIDGET (row), "option-letter"));
  GtkWidget *text = GTK_WIDGET (label_with_class (GTK_WIDGET (row), "option-text"));
  graphene_rect_t letter_bounds, text_bounds;
  int min, nat, narrow, wide, width;

  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (row));
  gml_option_row_set_letter (row, "a");
  gml_option_row_set_text (row, "The GPU could not allocate the device memory block requested "
                                "for a tensor or operation.");
  gtk_widget_measure (GTK_WIDGET (row), GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  g_assert_cmpint (min, <, nat);
  width = MAX (min, nat / 3);
  gtk_widget_measure (GTK_WIDGET (row), GTK_ORIENTATION_VERTICAL, width, &narrow, NULL, NULL, NULL);
  gtk_widget_measure (GTK_WIDGET (row), GTK_ORIENTATION_VERTICAL, nat, &wide, NULL, NULL, NULL);
  g_assert_cmpint (narrow, >, wide);

  gtk_widget_allocate (GTK_WIDGET (row), width, narrow, -1, NULL);
  g_assert_true (gtk_widget_compute_bounds (letter, GTK_WIDGET (row), &letter_bounds));
  g_assert_true (gtk_widget_compute_bounds (text, GTK_WIDGET (row), &text_bounds));
  g_assert_cmpfloat (letter_bounds.size.width, >, 0);
  g_assert_cmpfloat (letter_bounds.origin.x + letter_bounds.size.width, <=, text_bounds.origin.x);
  g_assert_cmpfloat (text_bounds.origin.x + text_bounds.size.width, <=, width);
  /* The text has the rest: more than half the row, and several lines of it. */
  g_assert_cmpfloat (text_bounds.size.width, >, width / 2);
  g_assert_cmpfloat (text_bounds.size.height, >, 2 * letter_bounds.size.height);

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (row);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/widgets/option-row/option", test_option);
  g_test_add_func ("/widgets/option-row/states", test_states);
  g_test_add_func ("/widgets/option-row/other-and-feedback", test_other_and_feedback);
  g_test_add_func ("/widgets/option-row/layout", test_layout);
  return g_test_run ();
}

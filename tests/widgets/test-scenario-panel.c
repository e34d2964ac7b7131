/* test-scenario-panel.c — the picture beside a question: its experiment runs in a
 * worker, not in the call that shows the question; an answer given before it
 * comes is pointed at once it does; a scenario that has run is shown at once; and
 * a panel closed while its picture runs goes at once.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "gml-device.h"
#include "gml-picture-script.h"
#include "gml-i18n.h"
#include "gml-picture-view.h"
#include "gml-question-bank.h"
#include "gml-scenario-panel.h"

/* The first widget of @type under @root, depth first. */
static GtkWidget *
find_widget (GtkWidget *root,
             GType      type)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type))
        return child;
      if ((found = find_widget (child, type)) != NULL)
        return found;
    }
  return NULL;
}

/* What the picture view must say for @q's experiment: at its setup, or at what
 * the question is about after an answer, computed here on a simulator of the
 * size the panel uses without an application. */
static char *
expected_description (const GmlQuestion *q,
                      gboolean           pointing)
{
  g_autoptr(GmlDevice) device = gml_device_sim_new (GML_SCENARIO_SIM_CAPACITY, 0);
  g_autoptr(GError) error = NULL;
  GmlScenario *sc = gml_scenario_new_picture_script (q->picture_script, device, &error);
  GmlPicture *picture;
  GmlView view;
  char *text;

  g_assert_no_error (error);
  picture = gml_picture_new (sc);
  gml_picture_set_pointing (picture, pointing);
  gml_picture_set_step (picture,
                        pointing ? gml_scenario_get_focus_step (sc)
                                 : gml_scenario_get_setup_step (sc));
  view = pointing ? gml_scenario_get_focus_view (sc) : gml_scenario_get_setup_view (sc);
  if (!gml_picture_offers_view (picture, view))
    view = gml_scenario_get_focus_view (sc);
  text = gml_picture_describe_full (picture, view);
  gml_picture_free (picture);
  gml_scenario_free (sc);
  return text;
}

static void
wait_for_description (GmlPictureView *view)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (gml_picture_view_get_description (view) == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_nonnull (gml_picture_view_get_description (view));
}

static void
test_worker (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *pointed = NULL;
  g_autofree char *setup = NULL;
  g_autofree char *other_setup = NULL;
  GmlScenarioPanel *panel;
  GmlPictureView *view;
  GtkRevealer *controls;
  const GmlQuestion *q = NULL, *other = NULL;

  g_assert_true (gml_question_bank_load_builtin (bank, &error));
  g_assert_no_error (error);
  /* Two questions with experiments of their own (not the lab's, whose run is long). */
  for (guint i = 0; i < gml_question_bank_get_n_questions (bank) && other == NULL; i++)
    {
      const GmlQuestion *candidate = gml_question_bank_get (bank, i);
      g_autofree char *key = gml_picture_script_to_string (candidate->picture_script);

      if (g_str_has_prefix (key, "lab"))
        continue;
      if (q == NULL)
        q = candidate;
      else
        {
          g_autofree char *first = gml_picture_script_to_string (q->picture_script);

          if (!g_str_equal (first, key))
            other = candidate;
        }
    }
  g_assert_nonnull (other);

  panel = GML_SCENARIO_PANEL (g_object_ref_sink (gml_scenario_panel_new ()));
  view = GML_PICTURE_VIEW (find_widget (GTK_WIDGET (panel), GML_TYPE_PICTURE_VIEW));
  g_assert_nonnull (view);
  /* The revealer that holds the steps' slider and buttons. */
  controls = GTK_REVEALER (find_widget (GTK_WIDGET (panel), GTK_TYPE_REVEALER));
  g_assert_nonnull (controls);
  g_assert_true (GTK_IS_SCALE (gtk_widget_get_first_child (gtk_revealer_get_child (controls))));

  /* Shown, and answered at once: nothing has run in these calls. */
  gml_scenario_panel_set_question (panel, q);
  g_assert_null (gml_picture_view_get_description (view));
  gml_scenario_panel_point (panel);
  g_assert_null (gml_picture_view_get_description (view));
  /* No picture, nothing to steer: the steps' controls are not shown (nor drawn in
   * the window's first frame). */
  g_assert_false (gtk_revealer_get_reveal_child (controls));
  g_assert_false (gtk_widget_get_child_visible (gtk_revealer_get_child (controls)));

  /* The worker's scenario comes, pointed at what the question is about, with its controls. */
  wait_for_description (view);
  g_assert_true (gtk_revealer_get_reveal_child (controls));
  pointed = expected_description (q, TRUE);
  g_assert_cmpstr (gml_picture_view_get_description (view), ==, pointed);

  /* Another question runs in its turn; the first, run already, is shown at once. */
  gml_scenario_panel_set_question (panel, other);
  g_assert_null (gml_picture_view_get_description (view));
  /* They keep their place while the next picture comes: nothing jumps. */
  g_assert_true (gtk_revealer_get_reveal_child (controls));
  wait_for_description (view);
  other_setup = expected_description (other, FALSE);
  g_assert_cmpstr (gml_picture_view_get_description (view), ==, other_setup);
  gml_scenario_panel_set_question (panel, q);
  setup = expected_description (q, FALSE);
  g_assert_cmpstr (gml_picture_view_get_description (view), ==, setup);

  /* Before the answer the steps are locked: ], Ctrl+→, ▶ and the slider would show
   * the state the question asks about. */
  g_assert_false (gml_scenario_panel_can_step (panel));
  g_assert_false (gtk_widget_get_sensitive (
      gtk_widget_get_first_child (gtk_revealer_get_child (controls))));
  gml_scenario_panel_step (panel, 1);
  g_assert_cmpstr (gml_picture_view_get_description (view), ==, setup);
  gtk_widget_activate_action (GTK_WIDGET (panel), "scenario.forward", NULL);
  gtk_widget_activate_action (GTK_WIDGET (panel), "scenario.play", NULL);
  g_assert_cmpstr (gml_picture_view_get_description (view), ==, setup);
  /* Answered: they move. */
  gml_scenario_panel_point (panel);
  g_assert_true (gml_scenario_panel_can_step (panel));
  g_assert_true (gtk_widget_get_sensitive (
      gtk_widget_get_first_child (gtk_revealer_get_child (controls))));
  gml_scenario_panel_step (panel, -1);
  g_assert_cmpstr (gml_picture_view_get_description (view), !=, pointed);
  gml_scenario_panel_set_question (panel, q);
  g_assert_false (gml_scenario_panel_can_step (panel));

  /* A question left before its picture came: the late result is not shown. */
  gml_scenario_panel_reload (panel);
  gml_scenario_panel_set_question (panel, other);
  gml_scenario_panel_set_question (panel, q);
  wait_for_description (view);
  g_assert_cmpstr (gml_picture_view_get_description (view), ==, setup);

  /* The tasks' references to the panel are gone once their results came. */
  for (gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
       G_OBJECT (panel)->ref_count > 1 && g_get_monotonic_time () < deadline;)
    g_main_context_iteration (NULL, FALSE);
  g_assert_finalize_object (panel);
}

/* Closed while its picture is still running: the panel goes at once (the run
 * holds it weakly and is cancelled in its dispose), and the run, on its own copy
 * of the experiment, outlives the question bank without touching it. */
static void
test_closed_while_running (void)
{
  GmlQuestionBank *bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;
  const GmlQuestion *q = NULL;
  GmlScenarioPanel *panel;
  GmlPictureView *view;

  g_assert_true (gml_question_bank_load_builtin (bank, &error));
  g_assert_no_error (error);
  /* The lab's questions have the longest runs. */
  for (guint i = 0; i < gml_question_bank_get_n_questions (bank) && q == NULL; i++)
    {
      const GmlQuestion *candidate = gml_question_bank_get (bank, i);
      g_autofree char *key = gml_picture_script_to_string (candidate->picture_script);

      if (g_str_has_prefix (key, "lab"))
        q = candidate;
    }
  if (q == NULL)
    q = gml_question_bank_get (bank, 0);

  panel = GML_SCENARIO_PANEL (g_object_ref_sink (gml_scenario_panel_new ()));
  view = GML_PICTURE_VIEW (find_widget (GTK_WIDGET (panel), GML_TYPE_PICTURE_VIEW));
  gml_scenario_panel_set_question (panel, q);
  g_assert_null (gml_picture_view_get_description (view));
  g_assert_finalize_object (panel);
  gml_question_bank_free (bank);

  /* The run ends, or finds itself cancelled, and its answer comes to nobody. */
  for (gint64 until = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
       g_get_monotonic_time () < until;)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (10000);
    }
}

int
main (int    argc,
      char **argv)
{
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  gml_i18n_init ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/widgets/scenario-panel/worker", test_worker);
  g_test_add_func ("/widgets/scenario-panel/closed-while-running", test_closed_while_running);
  return g_test_run ();
}

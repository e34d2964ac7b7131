/* test-presentation-windows.c — the audience's and the presenter's windows as two
 * views of one GmlPresentation: built on one model, driven through the model and
 * the presenter's buttons, read back from their labels, ended together, and every
 * object finalized.
 *
 * The application is registered (the windows belong to it) but not run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>

#include "gml-application.h"
#include "gml-i18n.h"
#include "gml-picture-view.h"
#include "gml-presentation-window.h"
#include "gml-presenter-window.h"

#define N_SLIDES 3

/* One for the process: an application registers once. */
static GmlApplication *the_app;

typedef struct
{
  GmlApplication  *app;
  GmlPresentation *model;
  GtkWidget       *audience;    /* a reference of the test's, to see it finalized */
  GtkWidget       *presenter;
} Fixture;

/* The first label under root whose text is text (prefix: starts with it). */
static GtkLabel *
find_label (GtkWidget  *root,
            const char *text,
            gboolean    prefix)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found;

      if (GTK_IS_LABEL (child))
        {
          const char *label = gtk_label_get_label (GTK_LABEL (child));

          if (prefix ? g_str_has_prefix (label, text) : g_str_equal (label, text))
            return GTK_LABEL (child);
        }
      if ((found = find_label (child, text, prefix)) != NULL)
        return found;
    }
  return NULL;
}

/* Whether widget and its parents up to root (a window, not presented) are visible. */
static gboolean
visible_in (GtkWidget *widget,
            GtkWidget *root)
{
  for (; widget != NULL && widget != root; widget = gtk_widget_get_parent (widget))
    if (!gtk_widget_get_visible (widget))
      return FALSE;
  return widget == root;
}

/* Whether a label that says text is there and shown. */
static gboolean
shows (GtkWidget  *root,
       const char *text,
       gboolean    prefix)
{
  GtkLabel *label = find_label (root, text, prefix);

  return label != NULL && visible_in (GTK_WIDGET (label), root);
}

static GtkButton *
find_button (GtkWidget  *root,
             const char *label)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkButton *found;

      if (GTK_IS_BUTTON (child) &&
          g_strcmp0 (gtk_button_get_label (GTK_BUTTON (child)), label) == 0)
        return GTK_BUTTON (child);
      if ((found = find_button (child, label)) != NULL)
        return found;
    }
  return NULL;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GArray) slides = g_array_new (FALSE, TRUE, sizeof (GmlSlide));
  GmlQuestionBank *bank;

  f->app = the_app;
  bank = gml_application_get_bank (f->app);
  g_assert_cmpuint (gml_question_bank_get_n_questions (bank), >=, N_SLIDES);

  /* With data: the first questions whose answer comes with a picture. */
  for (guint i = 0; slides->len < N_SLIDES && i < gml_question_bank_get_n_questions (bank); i++)
    {
      GmlSlide slide = { .question = i, .order = { 0, 1, 2, 3 }, .revealed = FALSE };

      if (data != NULL && gml_question_bank_get (bank, i)->picture_script == NULL)
        continue;
      g_array_append_val (slides, slide);
    }
  g_assert_cmpuint (slides->len, ==, N_SLIDES);
  f->model = gml_presentation_new (bank, slides, 0);
  f->audience = g_object_ref (GTK_WIDGET (gml_presentation_window_new (f->app, f->model)));
  f->presenter = g_object_ref (GTK_WIDGET (gml_presenter_window_new (f->app, f->model)));
  gtk_window_present (GTK_WINDOW (f->audience));
  gtk_window_present (GTK_WINDOW (f->presenter));
}

/* Runs the main loop until @done (f) or @seconds have passed. */
static gboolean
wait_for (Fixture  *f,
          gboolean (*done) (Fixture *f),
          guint     seconds)
{
  gint64 end = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;

  while (!done (f) && g_get_monotonic_time () < end)
    {
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
  return done (f);
}

static gboolean
only_the_test_holds_the_audience (Fixture *f)
{
  return G_OBJECT (f->audience)->ref_count == 1;
}

static GtkWidget *
find_picture_view (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (GML_IS_PICTURE_VIEW (child))
        return child;
      if ((found = find_picture_view (child)) != NULL)
        return found;
    }
  return NULL;
}

/* Whether the projector shows a picture, and what it says. */
static gboolean
picture_shown (Fixture *f)
{
  GtkWidget *view = find_picture_view (f->audience);

  return view != NULL && visible_in (view, f->audience) &&
         gml_picture_view_get_description (GML_PICTURE_VIEW (view)) != NULL &&
         *gml_picture_view_get_description (GML_PICTURE_VIEW (view)) != '\0';
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  /* Both windows are gone with the lecture: nothing but the test holds them. */
  g_assert_true (gml_presentation_get_ended (f->model));
  g_assert_null (g_list_find (gtk_application_get_windows (GTK_APPLICATION (f->app)), f->audience));
  g_assert_null (g_list_find (gtk_application_get_windows (GTK_APPLICATION (f->app)),
                              f->presenter));
  /* A picture's run still under way holds the window until it ends: it
   * cannot be stopped in the middle, and its result is dropped. */
  g_assert_true (wait_for (f, only_the_test_holds_the_audience, 30));
  g_assert_finalize_object (f->audience);
  g_assert_finalize_object (f->presenter);
  g_assert_finalize_object (f->model);
}

static gboolean
timeout_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
test_views (Fixture       *f,
            gconstpointer  data)
{
  gboolean timed_out = FALSE;
  guint timeout_id;
  GtkLabel *summary;

  /* The first question, its answer hidden on the projector, known to the lecturer. */
  g_assert_true (shows (f->audience, "1 / 3", FALSE));
  g_assert_false (shows (f->audience, "The right answer is", TRUE));
  g_assert_true (shows (f->presenter, "Question 1 / 3", FALSE));
  g_assert_true (shows (f->presenter, "The answer is hidden — Space reveals it", FALSE));

  /* The presenter's Reveal: the audience sees the answer. */
  g_signal_emit_by_name (find_button (f->presenter, "_Reveal"), "clicked");
  g_assert_true (gml_presentation_get_revealed (f->model));
  g_assert_true (shows (f->audience, "The right answer is", TRUE));
  g_assert_true (shows (f->presenter, "The answer is shown", FALSE));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (find_button (f->presenter, "_Reveal"))));

  /* A lecture key's action, from either window, moves both (the keys themselves are
   * pressed in tests/e2e/test_lecture.py). */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->presenter), "lecture.next", NULL));
  g_assert_true (shows (f->audience, "2 / 3", FALSE));
  g_assert_false (shows (f->audience, "The right answer is", TRUE));
  g_assert_true (shows (f->presenter, "Question 2 / 3", FALSE));
  g_assert_true (shows (f->presenter, "The answer is hidden — Space reveals it", FALSE));

  /* A one-second countdown on both screens, then "Time is up!" on both. */
  g_object_set (f->model, "question-timer", 1, NULL);
  g_assert_true (shows (f->audience, "0:01", FALSE));
  g_assert_true (shows (f->presenter, "0:01 left", FALSE));
  timeout_id = g_timeout_add (5000, timeout_cb, &timed_out);
  while (!timed_out && gml_presentation_get_seconds_left (f->model) != 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (timed_out);
  g_source_remove (timeout_id);
  g_assert_true (shows (f->audience, "Time is up!", FALSE));
  g_assert_true (shows (f->presenter, "Time is up!", FALSE));

  /* Revealed: the countdown is gone from both. */
  gml_presentation_advance (f->model);
  g_assert_false (shows (f->audience, "Time is up!", FALSE));
  g_assert_false (shows (f->presenter, "Time is up!", FALSE));

  /* Past the last question: the round's result. */
  gml_presentation_last (f->model);
  gml_presentation_next (f->model);
  summary = find_label (f->audience, "3 questions in ", TRUE);
  g_assert_nonnull (summary);
  g_assert_true (visible_in (GTK_WIDGET (summary), f->audience));
  g_assert_true (g_str_has_suffix (gtk_label_get_label (summary), " Answers shown: 2 of 3."));
  g_assert_false (shows (f->audience, "3 / 3", FALSE));
  g_assert_true (shows (f->presenter, "The audience sees the round’s result", FALSE));

  /* Esc: the lecture ends, and both windows with it. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->audience), "lecture.end", NULL));
}

/* The picture of a revealed answer comes from a worker: the window goes on
 * while the experiment runs, and shows the picture once it is there, never
 * before the reveal. */
static void
test_pictures (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *first = NULL;

  /* Hidden on a slide not revealed, even once its run had all the time it needs. */
  g_assert_false (picture_shown (f));
  wait_for (f, picture_shown, 2);
  g_assert_false (picture_shown (f));

  /* Revealed, the picture comes; the window did not wait for it. */
  gml_presentation_reveal (f->model);
  g_assert_true (shows (f->audience, "The right answer is", TRUE));
  g_assert_true (wait_for (f, picture_shown, 30));
  first = g_strdup (gml_picture_view_get_description (GML_PICTURE_VIEW (find_picture_view (f->audience))));

  /* The next slide hides it; its own reveal shows its own picture. */
  gml_presentation_next (f->model);
  g_assert_false (picture_shown (f));
  gml_presentation_reveal (f->model);
  /* Not there yet: the run's result comes through the main loop. */
  g_assert_false (picture_shown (f));
  g_assert_true (wait_for (f, picture_shown, 30));
  g_assert_cmpstr (gml_picture_view_get_description (GML_PICTURE_VIEW (find_picture_view (f->audience))),
                   !=, first);

  /* A slide left while its run goes on: the late result is dropped, and the
   * lecture ends with the run still under way (tear_down waits for it). */
  gml_presentation_next (f->model);
  gml_presentation_reveal (f->model);
  gml_presentation_end (f->model);
}

/* Closing the presenter's window (its Leave button) ends the lecture for both. */
static void
test_leave (Fixture       *f,
            gconstpointer  data)
{
  g_signal_emit_by_name (find_button (f->presenter, "_Leave Presentation"), "clicked");
}

/* Closing the audience's window ends it too. */
static void
test_close_audience (Fixture       *f,
                     gconstpointer  data)
{
  gtk_window_close (GTK_WINDOW (f->audience));
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *home = NULL;
  int status;

  /* The application reads its answer log and user questions from here. */
  home = g_dir_make_tmp ("gml-widgets-XXXXXX", NULL);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  g_setenv ("XDG_CONFIG_HOME", home, TRUE);
  gml_i18n_init ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  the_app = gml_application_new ();
  /* No D-Bus name: the test's own instance, never another's. */
  g_application_set_flags (G_APPLICATION (the_app), G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (the_app), NULL, &error));
  g_assert_no_error (error);

  g_test_add ("/presentation/windows/views", Fixture, NULL, fixture_set_up, test_views,
              fixture_tear_down);
  g_test_add ("/presentation/windows/pictures", Fixture, GINT_TO_POINTER (TRUE), fixture_set_up,
              test_pictures, fixture_tear_down);
  g_test_add ("/presentation/windows/leave", Fixture, NULL, fixture_set_up, test_leave,
              fixture_tear_down);
  g_test_add ("/presentation/windows/close-audience", Fixture, NULL, fixture_set_up,
              test_close_audience,
              fixture_tear_down);
  status = g_test_run ();
  g_clear_object (&the_app);
  /* Nothing is written there: a lecture keeps no record. */
  g_rmdir (home);
  return status;
}

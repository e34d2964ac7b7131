/* test-presentation.c — GmlPresentation, the model behind both lecture windows:
 * built on the built-in bank, driven as the lecturer's keys and buttons drive it,
 * each notification counted (one per change, none without one), the countdown run
 * on a main loop, and finalized.
 *
 * No widgets: no display needed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <gdk/gdk.h>

#include "gml-presentation.h"

#define N_SLIDES 3

/* The notifications each property got since the last reset. */
typedef struct
{
  GHashTable *counts;   /* property name (static) → count */
} Notes;

static void
notify_cb (GObject    *object,
           GParamSpec *pspec,
           Notes      *notes)
{
  const char *name = g_param_spec_get_name (pspec);

  g_hash_table_insert (notes->counts, (gpointer) name,
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (notes->counts,
                                                                                name)) + 1));
}

static guint
notes_count (Notes      *notes,
             const char *name)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (notes->counts, name));
}

static guint
notes_total (Notes *notes)
{
  GHashTableIter iter;
  gpointer value;
  guint total = 0;

  g_hash_table_iter_init (&iter, notes->counts);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    total += GPOINTER_TO_UINT (value);
  return total;
}

static void
notes_reset (Notes *notes)
{
  g_hash_table_remove_all (notes->counts);
}

typedef struct
{
  GmlQuestionBank *bank;
  GmlPresentation *model;
  Notes            notes;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) slides = g_array_new (FALSE, TRUE, sizeof (GmlSlide));

  fixture->bank = gml_question_bank_new ();
  g_assert_true (gml_question_bank_load_builtin (fixture->bank, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gml_question_bank_get_n_questions (fixture->bank), >=, N_SLIDES);
  for (guint i = 0; i < N_SLIDES; i++)
    {
      GmlSlide slide = { .question = i, .order = { 3, 2, 1, 0 }, .revealed = FALSE };

      g_array_append_val (slides, slide);
    }
  fixture->model = gml_presentation_new (fixture->bank, slides, 0);
  fixture->notes.counts = g_hash_table_new (g_str_hash, g_str_equal);
  g_signal_connect (fixture->model, "notify", G_CALLBACK (notify_cb), &fixture->notes);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  /* The model holds nothing that keeps it alive: no timer, no cycle. */
  g_assert_finalize_object (fixture->model);
  g_hash_table_unref (fixture->notes.counts);
  gml_question_bank_free (fixture->bank);
}

static void
test_construct (Fixture       *fixture,
                gconstpointer  data)
{
  GmlPresentation *model = fixture->model;
  guint position = 99, n = 0;
  gboolean revealed = TRUE, at_end = TRUE, ended = TRUE;
  int left = 0;

  g_object_get (model, "position", &position, "n-questions", &n, "revealed", &revealed,
                "at-end", &at_end, "ended", &ended, "seconds-left", &left, NULL);
  g_assert_cmpuint (position, ==, 0);
  g_assert_cmpuint (n, ==, N_SLIDES);
  g_assert_false (revealed);
  g_assert_false (at_end);
  g_assert_false (ended);
  g_assert_cmpint (left, ==, -1);
  g_assert_cmpfloat (gml_presentation_get_zoom (model), ==, 1.0);
  g_assert_true (gml_presentation_get_question (model, 1) == gml_question_bank_get (fixture->bank,
                                                                                    1));
  g_assert_cmpuint (gml_presentation_get_slide (model, 2)->order[0], ==, 3);
  g_assert_null (gml_presentation_get_slide (model, N_SLIDES));
  g_assert_null (gml_presentation_get_question (model, N_SLIDES));
  g_assert_cmpuint (notes_total (&fixture->notes), ==, 0);
}

/* A start past the round is its last question. */
static void
test_start_clamped (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) slides = g_array_new (FALSE, TRUE, sizeof (GmlSlide));
  GmlQuestionBank *bank = gml_question_bank_new ();
  GmlSlide slide = { 0 };
  GmlPresentation *model;

  g_assert_true (gml_question_bank_load_builtin (bank, &error));
  g_array_append_val (slides, slide);
  g_array_append_val (slides, slide);
  model = gml_presentation_new (bank, slides, 7);
  g_assert_cmpuint (gml_presentation_get_position (model), ==, 1);
  g_assert_finalize_object (model);
  gml_question_bank_free (bank);
}

/* What a view reads in the first handler of a move: the whole move must already be
 * made (position, at-end and revealed), or a view would show a half-made state. */
typedef struct
{
  gboolean seen;
  guint    position;
  gboolean revealed;
  gboolean at_end;
} FirstSeen;

static void
first_seen_cb (GmlPresentation *model,
               GParamSpec      *pspec,
               FirstSeen       *first)
{
  if (first->seen)
    return;
  first->seen = TRUE;
  first->position = gml_presentation_get_position (model);
  first->revealed = gml_presentation_get_revealed (model);
  first->at_end = gml_presentation_get_at_end (model);
}

static void
check_first_seen (GmlPresentation *model,
                  FirstSeen       *first)
{
  if (first->seen)
    {
      g_assert_cmpuint (first->position, ==, gml_presentation_get_position (model));
      g_assert_cmpint (first->revealed, ==, gml_presentation_get_revealed (model));
      g_assert_cmpint (first->at_end, ==, gml_presentation_get_at_end (model));
    }
  first->seen = FALSE;
}

static void
test_navigate (Fixture       *fixture,
               gconstpointer  data)
{
  GmlPresentation *model = fixture->model;
  Notes *notes = &fixture->notes;
  FirstSeen first = { 0 };

  g_signal_connect (model, "notify::position", G_CALLBACK (first_seen_cb), &first);
  g_signal_connect (model, "notify::revealed", G_CALLBACK (first_seen_cb), &first);
  g_signal_connect (model, "notify::at-end", G_CALLBACK (first_seen_cb), &first);

  /* Reveal: once; again is nothing. */
  gml_presentation_reveal (model);
  g_assert_true (gml_presentation_get_revealed (model));
  g_assert_cmpuint (notes_count (notes, "revealed"), ==, 1);
  g_assert_cmpuint (notes_total (notes), ==, 1);
  gml_presentation_reveal (model);
  g_assert_cmpuint (notes_total (notes), ==, 1);
  check_first_seen (model, &first);
  notes_reset (notes);

  /* Next: a new position, and its answer hidden. */
  gml_presentation_next (model);
  g_assert_cmpuint (gml_presentation_get_position (model), ==, 1);
  g_assert_false (gml_presentation_get_revealed (model));
  g_assert_cmpuint (notes_count (notes, "position"), ==, 1);
  g_assert_cmpuint (notes_count (notes, "revealed"), ==, 1);
  g_assert_cmpuint (notes_total (notes), ==, 2);
  check_first_seen (model, &first);
  notes_reset (notes);

  /* Next from a hidden answer to a hidden one: only the position. */
  gml_presentation_next (model);
  g_assert_cmpuint (notes_count (notes, "position"), ==, 1);
  g_assert_cmpuint (notes_total (notes), ==, 1);
  check_first_seen (model, &first);
  notes_reset (notes);

  /* Back to the first, whose answer stays revealed. */
  gml_presentation_first (model);
  g_assert_cmpuint (gml_presentation_get_position (model), ==, 0);
  g_assert_true (gml_presentation_get_revealed (model));
  g_assert_cmpuint (notes_count (notes, "position"), ==, 1);
  g_assert_cmpuint (notes_count (notes, "revealed"), ==, 1);
  g_assert_cmpuint (notes_total (notes), ==, 2);
  check_first_seen (model, &first);
  notes_reset (notes);

  /* Previous on the first question stays there. */
  gml_presentation_previous (model);
  g_assert_cmpuint (gml_presentation_get_position (model), ==, 0);
  g_assert_cmpuint (notes_total (notes), ==, 0);

  /* End: the last question; past it the round's result, with the position kept. */
  gml_presentation_last (model);
  g_assert_cmpuint (gml_presentation_get_position (model), ==, N_SLIDES - 1);
  g_assert_false (gml_presentation_get_at_end (model));
  check_first_seen (model, &first);
  notes_reset (notes);
  gml_presentation_next (model);
  g_assert_true (gml_presentation_get_at_end (model));
  g_assert_cmpuint (gml_presentation_get_position (model), ==, N_SLIDES - 1);
  g_assert_cmpuint (notes_count (notes, "at-end"), ==, 1);
  g_assert_cmpuint (notes_total (notes), ==, 1);
  check_first_seen (model, &first);
  notes_reset (notes);

  /* At the result: no further, no reveal, End stays. */
  gml_presentation_next (model);
  gml_presentation_reveal (model);
  gml_presentation_advance (model);
  gml_presentation_last (model);
  g_assert_true (gml_presentation_get_at_end (model));
  g_assert_false (gml_presentation_get_revealed (model));
  g_assert_cmpuint (notes_total (notes), ==, 0);

  /* Back from the result: the last question again. */
  gml_presentation_previous (model);
  g_assert_false (gml_presentation_get_at_end (model));
  g_assert_cmpuint (gml_presentation_get_position (model), ==, N_SLIDES - 1);
  g_assert_cmpuint (notes_count (notes, "at-end"), ==, 1);
  g_assert_cmpuint (notes_total (notes), ==, 1);
  check_first_seen (model, &first);
  notes_reset (notes);

  /* Home from the result: the first question. */
  gml_presentation_next (model);
  check_first_seen (model, &first);
  notes_reset (notes);
  gml_presentation_first (model);
  g_assert_false (gml_presentation_get_at_end (model));
  g_assert_cmpuint (gml_presentation_get_position (model), ==, 0);
  g_assert_cmpuint (notes_count (notes, "at-end"), ==, 1);
  g_assert_cmpuint (notes_count (notes, "position"), ==, 1);
  g_assert_cmpuint (notes_count (notes, "revealed"), ==, 1);
  check_first_seen (model, &first);
  notes_reset (notes);

  /* Space: the next question once the answer is out, the answer first otherwise. */
  gml_presentation_advance (model);
  g_assert_cmpuint (gml_presentation_get_position (model), ==, 1);
  check_first_seen (model, &first);
  gml_presentation_advance (model);
  g_assert_cmpuint (gml_presentation_get_position (model), ==, 1);
  g_assert_true (gml_presentation_get_revealed (model));
  g_assert_cmpuint (gml_presentation_get_n_revealed (model), ==, 2);

  /* Leaving: once, and nothing moves after it. */
  check_first_seen (model, &first);
  notes_reset (notes);
  gml_presentation_end (model);
  gml_presentation_end (model);
  g_assert_true (gml_presentation_get_ended (model));
  g_assert_cmpuint (notes_count (notes, "ended"), ==, 1);
  gml_presentation_next (model);
  g_assert_cmpuint (gml_presentation_get_position (model), ==, 1);
  g_assert_cmpuint (notes_total (notes), ==, 1);
}

static void
test_zoom (Fixture       *fixture,
           gconstpointer  data)
{
  GmlPresentation *model = fixture->model;
  Notes *notes = &fixture->notes;

  /* Up in tenths to 2.0, and no further. */
  for (int i = 0; i < 15; i++)
    gml_presentation_zoom (model, 1);
  g_assert_cmpfloat (gml_presentation_get_zoom (model), ==, 2.0);
  g_assert_cmpuint (notes_count (notes, "zoom"), ==, 10);
  notes_reset (notes);

  gml_presentation_zoom (model, 0);
  g_assert_cmpfloat (gml_presentation_get_zoom (model), ==, 1.0);
  gml_presentation_zoom (model, 0);
  g_assert_cmpuint (notes_count (notes, "zoom"), ==, 1);
  notes_reset (notes);

  for (int i = 0; i < 15; i++)
    gml_presentation_zoom (model, -1);
  g_assert_cmpfloat (gml_presentation_get_zoom (model), ==, 0.5);
  g_assert_cmpuint (notes_count (notes, "zoom"), ==, 5);
  g_assert_cmpuint (notes_total (notes), ==, 5);
}

static void
test_bilingual (Fixture       *fixture,
                gconstpointer  data)
{
  GmlPresentation *model = fixture->model;
  Notes *notes = &fixture->notes;

  g_object_set (model, "bilingual", TRUE, NULL);
  g_object_set (model, "bilingual", TRUE, NULL);
  g_assert_true (gml_presentation_get_bilingual (model));
  g_assert_cmpuint (notes_count (notes, "bilingual"), ==, 1);
  gml_presentation_set_bilingual (model, FALSE);
  g_assert_false (gml_presentation_get_bilingual (model));
  g_assert_cmpuint (notes_count (notes, "bilingual"), ==, 2);
  g_assert_cmpuint (notes_total (notes), ==, 2);
}

static gboolean
timeout_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main loop until seconds-left is want, or at most ms. */
static gboolean
run_until_seconds_left (GmlPresentation *model,
                        int              want,
                        guint            ms)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (ms, timeout_cb, &timed_out);

  while (!timed_out && gml_presentation_get_seconds_left (model) != want)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  return gml_presentation_get_seconds_left (model) == want;
}

static void
run_for (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, timeout_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static void
test_countdown (Fixture       *fixture,
                gconstpointer  data)
{
  GmlPresentation *model = fixture->model;
  Notes *notes = &fixture->notes;
  gint64 start;

  /* A one-second limit: 1, then 0 ("Time is up!"), each notified once. */
  start = g_get_monotonic_time ();
  g_object_set (model, "question-timer", 1, NULL);
  g_assert_cmpint (gml_presentation_get_question_timer (model), ==, 1);
  g_assert_cmpint (gml_presentation_get_seconds_left (model), ==, 1);
  g_assert_cmpuint (notes_count (notes, "question-timer"), ==, 1);
  g_assert_cmpuint (notes_count (notes, "seconds-left"), ==, 1);
  g_assert_true (run_until_seconds_left (model, 0, 5000));
  g_assert_cmpint (g_get_monotonic_time () - start, >=, G_USEC_PER_SEC - 1000);
  g_assert_cmpuint (notes_count (notes, "seconds-left"), ==, 2);

  /* Time is up: the countdown stops, nothing more is notified. */
  run_for (700);
  g_assert_cmpint (gml_presentation_get_seconds_left (model), ==, 0);
  g_assert_cmpuint (notes_count (notes, "seconds-left"), ==, 2);
  g_assert_cmpuint (notes_total (notes), ==, 3);
  notes_reset (notes);

  /* Revealed: no countdown. */
  gml_presentation_reveal (model);
  g_assert_cmpint (gml_presentation_get_seconds_left (model), ==, -1);
  g_assert_cmpuint (notes_count (notes, "seconds-left"), ==, 1);
  notes_reset (notes);

  /* A new question: a new countdown, from the limit. */
  gml_presentation_next (model);
  g_assert_cmpint (gml_presentation_get_seconds_left (model), ==, 1);
  g_assert_cmpuint (notes_count (notes, "seconds-left"), ==, 1);
  notes_reset (notes);

  /* A longer limit mid-question: the time spent counts, the slide stays. */
  gml_presentation_set_question_timer (model, 60);
  g_assert_cmpint (gml_presentation_get_seconds_left (model), >=, 59);
  g_assert_cmpuint (gml_presentation_get_position (model), ==, 1);
  g_assert_cmpuint (notes_count (notes, "seconds-left"), ==, 1);
  notes_reset (notes);

  /* No limit: no countdown, and no tick left to notify anything. */
  gml_presentation_set_question_timer (model, 0);
  g_assert_cmpint (gml_presentation_get_seconds_left (model), ==, -1);
  g_assert_cmpuint (notes_count (notes, "seconds-left"), ==, 1);
  run_for (600);
  g_assert_cmpuint (notes_count (notes, "seconds-left"), ==, 1);
  notes_reset (notes);

  /* The round's result and the end have no countdown either. */
  gml_presentation_set_question_timer (model, 30);
  gml_presentation_last (model);
  g_assert_cmpint (gml_presentation_get_seconds_left (model), ==, 30);
  gml_presentation_next (model);
  g_assert_cmpint (gml_presentation_get_seconds_left (model), ==, -1);
  gml_presentation_previous (model);
  g_assert_cmpint (gml_presentation_get_seconds_left (model), ==, 30);
  gml_presentation_end (model);
  g_assert_cmpint (gml_presentation_get_seconds_left (model), ==, -1);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/presentation/model/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("construct", test_construct);
  ADD ("navigate", test_navigate);
  ADD ("zoom", test_zoom);
  ADD ("bilingual", test_bilingual);
  ADD ("countdown", test_countdown);
#undef ADD
  g_test_add_func ("/presentation/model/start-clamped", test_start_clamped);

  return g_test_run ();
}

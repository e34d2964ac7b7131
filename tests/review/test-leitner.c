/* test-leitner.c — Leitner boxes and due times, table-driven with fixed clocks.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>

#include "gml-leitner.h"

#define DAY G_GINT64_CONSTANT (86400)

/* 2025-03-10 00:00:00 UTC, a Monday. */
#define T0 G_GINT64_CONSTANT (1741564800)

typedef struct
{
  const char *name;
  const char *answers;     /* one letter per answer: R right, W wrong; one a day from T0 + 9 h */
  guint       box;         /* expected box after them */
  guint       due_day;     /* expected due: T0 + due_day days (midnight UTC) */
} BoxCase;

static const BoxCase box_cases[] = {
  { "new",               "",        GML_LEITNER_BOX_NEW, 0 },
  { "one-right",         "R",       2, 0 + 2 },
  { "one-wrong",         "W",       1, 0 + 1 },
  { "two-right",         "RR",      3, 1 + 4 },
  { "three-right",       "RRR",     4, 2 + 8 },
  { "four-right-top",    "RRRR",    5, 3 + 16 },
  { "capped-at-five",    "RRRRRRR", 5, 6 + 16 },
  { "wrong-resets",      "RRRW",    1, 3 + 1 },
  { "wrong-then-right",  "RRRWR",   2, 4 + 2 },
  { "wrong-twice",       "WW",      1, 1 + 1 },
  { "wrong-from-top",    "RRRRRW",  1, 5 + 1 },
};

static void
test_boxes (void)
{
  g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();

  for (guint c = 0; c < G_N_ELEMENTS (box_cases); c++)
    {
      const BoxCase *bc = &box_cases[c];
      g_autoptr(GmlLeitner) leitner = gml_leitner_new (utc);
      guint n = strlen (bc->answers);

      for (guint i = 0; i < n; i++)
        gml_leitner_apply (leitner, "q", bc->answers[i] == 'R', T0 + i * DAY + 9 * 3600);

      g_test_message ("case %s", bc->name);
      g_assert_cmpuint (gml_leitner_get_box (leitner, "q"), ==, bc->box);
      if (bc->box == GML_LEITNER_BOX_NEW)
        {
          g_assert_cmpint (gml_leitner_get_due_time (leitner, "q"), ==, G_MAXINT64);
          g_assert_false (gml_leitner_is_due (leitner, "q", T0 + 1000 * DAY));
          continue;
        }
      g_assert_cmpint (gml_leitner_get_due_time (leitner, "q"), ==, T0 + bc->due_day * DAY);
      g_assert_false (gml_leitner_is_due (leitner, "q", T0 + bc->due_day * DAY - 1));
      g_assert_true (gml_leitner_is_due (leitner, "q", T0 + bc->due_day * DAY));
      g_assert_true (gml_leitner_is_due (leitner, "q", T0 + (bc->due_day + 30) * DAY));
    }
}

static void
test_intervals (void)
{
  static const guint expected[] = { 1, 2, 4, 8, 16 };

  for (guint box = 1; box <= GML_LEITNER_N_BOXES; box++)
    g_assert_cmpuint (gml_leitner_interval_days (box), ==, expected[box - 1]);
}

/* Due is counted in calendar days of the given time zone: answered at 23:30 local
 * time in box 1, the question is due from local midnight, 30 minutes later. */
typedef struct
{
  const char *tz;
  gint64      answered;
  gint64      due;
} ZoneCase;

static const ZoneCase zone_cases[] = {
  /* 2025-03-10 23:30 UTC → due 2025-03-12 00:00 UTC (box 2 after one right answer). */
  { "UTC",    T0 + 23 * 3600 + 1800, T0 + 2 * DAY },
  /* Istanbul is UTC+3: 2025-03-10 21:30 UTC is 2025-03-11 00:30 local → due 2025-03-13
   * 00:00 local = 2025-03-12 21:00 UTC. */
  { "+03:00", T0 + 21 * 3600 + 1800, T0 + 2 * DAY + 21 * 3600 },
  /* 2025-03-10 20:30 UTC is 23:30 local → due 2025-03-12 00:00 local. */
  { "+03:00", T0 + 20 * 3600 + 1800, T0 + DAY + 21 * 3600 },
};

static void
test_time_zones (void)
{
  for (guint c = 0; c < G_N_ELEMENTS (zone_cases); c++)
    {
      g_autoptr(GTimeZone) tz = g_time_zone_new_identifier (zone_cases[c].tz);
      g_autoptr(GmlLeitner) leitner = NULL;

      g_assert_nonnull (tz);
      leitner = gml_leitner_new (tz);
      gml_leitner_apply (leitner, "q", TRUE, zone_cases[c].answered);
      g_assert_cmpint (gml_leitner_get_due_time (leitner, "q"), ==, zone_cases[c].due);
    }
}

static const char bank_json[] =
  "{\"questions\": ["
#define Q(ID) \
  "{\"id\": \"" ID "\", \"topic\": \"T\", \"difficulty\": 1, \"scenario\": \"oom\"," \
  " \"text\": \"Text\", \"explanation\": \"Because.\", \"options\": [" \
  "{\"id\": \"a\", \"text\": \"A\", \"feedback\": \"f\", \"correct\": true}," \
  "{\"id\": \"b\", \"text\": \"B\", \"feedback\": \"f\", \"correct\": false}," \
  "{\"id\": \"c\", \"text\": \"C\", \"feedback\": \"f\", \"correct\": false}," \
  "{\"id\": \"d\", \"text\": \"D\", \"feedback\": \"f\", \"correct\": false}]}"
  Q ("q1") "," Q ("q2") "," Q ("q3") "," Q ("q4") "," Q ("q5")
  "]}";

typedef struct
{
  guint       day;          /* the clock: T0 + day days + 12 h */
  const char *due;          /* expected due ids, space-separated, in order */
} DueCase;

/* The log below: q1 right on day 0 and day 2 (box 3, due day 6); q2 wrong on day 1
 * (box 1, due day 2); q3 right on day 0 (box 2, due day 2); q4 wrong on day 0 then
 * right on day 3 (box 2, due day 5); q5 never answered (new, never due). */
static const DueCase due_cases[] = {
  { 0,  "" },
  { 1,  "" },
  { 2,  "q2 q3" },       /* both due at day 2 00:00: bank order among equals */
  { 4,  "q2 q3" },
  { 5,  "q2 q3 q4" },
  { 6,  "q2 q3 q4 q1" },
  { 60, "q2 q3 q4 q1" },
};

static void
test_due_list (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gml-leitner-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "progress.json", NULL);
  g_autoptr(GmlProgress) progress = gml_progress_new (path);
  g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();
  g_autoptr(GmlLeitner) leitner = NULL;

  g_assert_true (gml_question_bank_load_data (bank, bank_json, strlen (bank_json), "test", FALSE,
                                              &error));
  g_assert_no_error (error);

  gml_progress_record (progress, "q1", "a", TRUE, 1, T0 + 3600, NULL);
  gml_progress_record (progress, "q3", "a", TRUE, 1, T0 + 7200, NULL);
  gml_progress_record (progress, "q4", "b", FALSE, 1, T0 + 9000, NULL);
  gml_progress_record (progress, "q2", "b", FALSE, 1, T0 + DAY + 3600, NULL);
  gml_progress_record (progress, "q1", "a", TRUE, 1, T0 + 2 * DAY + 3600, NULL);
  gml_progress_record (progress, "q4", "a", TRUE, 1, T0 + 3 * DAY + 3600, NULL);
  /* An answer to a question no longer in the bank is ignored. */
  gml_progress_record (progress, "gone", "a", FALSE, 1, T0, NULL);

  leitner = gml_leitner_new_from_progress (progress, utc);
  g_assert_cmpuint (gml_leitner_get_box (leitner, "q1"), ==, 3);
  g_assert_cmpuint (gml_leitner_get_box (leitner, "q2"), ==, 1);
  g_assert_cmpuint (gml_leitner_get_box (leitner, "q3"), ==, 2);
  g_assert_cmpuint (gml_leitner_get_box (leitner, "q4"), ==, 2);
  g_assert_cmpuint (gml_leitner_get_box (leitner, "q5"), ==, GML_LEITNER_BOX_NEW);

  for (guint c = 0; c < G_N_ELEMENTS (due_cases); c++)
    {
      gint64 now = T0 + due_cases[c].day * DAY + 12 * 3600;
      g_autoptr(GPtrArray) ids = gml_leitner_dup_due_ids (leitner, bank, now);
      g_autoptr(GArray) indexes = gml_leitner_due_indexes (leitner, bank, now);
      g_autofree char *joined = NULL;

      g_ptr_array_add (ids, NULL);
      joined = g_strjoinv (" ", (char **) ids->pdata);
      g_test_message ("day %u", due_cases[c].day);
      g_assert_cmpstr (joined, ==, due_cases[c].due);
      g_assert_cmpuint (indexes->len, ==, ids->len - 1);
      for (guint i = 0; i < indexes->len; i++)
        g_assert_cmpstr (gml_question_bank_get (bank, g_array_index (indexes, guint, i))->id, ==,
                         g_ptr_array_index (ids, i));
    }

  /* What comes due next: day 2 (q2, q3), then day 5 (q4), day 6 (q1), then nothing. */
  g_assert_cmpint (gml_leitner_next_due_time (leitner, bank, T0 + 12 * 3600), ==, T0 + 2 * DAY);
  g_assert_cmpint (gml_leitner_next_due_time (leitner, bank, T0 + 2 * DAY), ==, T0 + 5 * DAY);
  g_assert_cmpint (gml_leitner_next_due_time (leitner, bank, T0 + 5 * DAY + 1), ==, T0 + 6 * DAY);
  g_assert_cmpint (gml_leitner_next_due_time (leitner, bank, T0 + 6 * DAY), ==, G_MAXINT64);
  {
    g_autoptr(GmlLeitner) empty = gml_leitner_new (utc);

    g_assert_cmpint (gml_leitner_next_due_time (empty, bank, T0), ==, G_MAXINT64);
  }

  g_remove (path);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/review/leitner/boxes", test_boxes);
  g_test_add_func ("/review/leitner/intervals", test_intervals);
  g_test_add_func ("/review/leitner/time-zones", test_time_zones);
  g_test_add_func ("/review/leitner/due-list", test_due_list);

  return g_test_run ();
}

/* gml-leitner.c — Leitner boxes computed from the answer log.
 *
 * The boxes are not stored anywhere: they are replayed from the answer log, in log
 * order, every time they are needed. So undoing an answer (removing it from the log)
 * or resetting progress needs nothing else, and a later scheduler can be trained on
 * the same log.
 *
 * Rules: a right answer moves a question up one box (at most box 5); a wrong answer
 * sends it back to box 1. The first answer puts a new question in box 2 when right,
 * box 1 when wrong. Box n is due 1, 2, 4, 8 or 16 calendar days after the day of its
 * last answer, at the start of that day in the time zone given to gml_leitner_new():
 * a question answered in box 1 on Monday evening is due from Tuesday 00:00, so a
 * student who studies at a slightly earlier hour the next day still finds it due.
 *
 * Questions never answered are "new" (box 0) and are NOT due: "Review due" is for
 * what the student has already met; the ordinary round brings the new ones.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-leitner"

#include "config.h"

#include "gml-leitner.h"

typedef struct
{
  guint  box;
  gint64 last;   /* unix seconds of the last answer */
} Card;

struct _GmlLeitner
{
  GTimeZone  *tz;
  GHashTable *cards;   /* question id (owned) -> Card* (owned) */
};

static const guint intervals[GML_LEITNER_N_BOXES] = { 1, 2, 4, 8, 16 };

guint
gml_leitner_interval_days (guint box)
{
  g_return_val_if_fail (box >= 1 && box <= GML_LEITNER_N_BOXES, 0);
  return intervals[box - 1];
}

GmlLeitner *
gml_leitner_new (GTimeZone *tz)
{
  GmlLeitner *self = g_new0 (GmlLeitner, 1);

  self->tz = tz != NULL ? g_time_zone_ref (tz) : g_time_zone_new_local ();
  self->cards = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

GmlLeitner *
gml_leitner_new_from_progress (GmlProgress *progress,
                               GTimeZone   *tz)
{
  GmlLeitner *self = gml_leitner_new (tz);

  for (guint i = 0; i < gml_progress_get_n_answers (progress); i++)
    {
      const GmlAnswer *answer = gml_progress_get_answer (progress, i);

      gml_leitner_apply (self, answer->question, answer->correct, answer->time);
    }
  return self;
}

void
gml_leitner_free (GmlLeitner *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->cards);
  g_time_zone_unref (self->tz);
  g_free (self);
}

void
gml_leitner_apply (GmlLeitner *self,
                   const char *question,
                   gboolean    correct,
                   gint64      time)
{
  Card *card = g_hash_table_lookup (self->cards, question);

  if (card == NULL)
    {
      card = g_new0 (Card, 1);
      card->box = 1;
      g_hash_table_insert (self->cards, g_strdup (question), card);
      /* A new question starts in box 1; the answer then moves it like any other. */
    }
  card->box = correct ? MIN (card->box + 1, GML_LEITNER_N_BOXES) : 1;
  card->last = time;
}

guint
gml_leitner_get_box (GmlLeitner *self,
                     const char *question)
{
  Card *card = g_hash_table_lookup (self->cards, question);

  return card != NULL ? card->box : GML_LEITNER_BOX_NEW;
}

/* When the question becomes due (unix seconds), or G_MAXINT64 for a new question,
 * which is never due for review. */
gint64
gml_leitner_get_due_time (GmlLeitner *self,
                          const char *question)
{
  Card *card = g_hash_table_lookup (self->cards, question);
  g_autoptr(GDateTime) last = NULL;
  g_autoptr(GDateTime) day = NULL;
  g_autoptr(GDateTime) due = NULL;

  if (card == NULL)
    return G_MAXINT64;

  last = g_date_time_new_from_unix_utc (card->last);
  if (last == NULL)
    return G_MAXINT64;
  {
    g_autoptr(GDateTime) local = g_date_time_to_timezone (last, self->tz);

    day = g_date_time_new (self->tz, g_date_time_get_year (local), g_date_time_get_month (local),
                           g_date_time_get_day_of_month (local), 0, 0, 0);
  }
  if (day == NULL)
    return G_MAXINT64;
  /* Calendar days, not multiples of 86400 s: a daylight-saving change does not move
   * the due time away from midnight. */
  due = g_date_time_add_days (day, (int) gml_leitner_interval_days (card->box));
  return due != NULL ? g_date_time_to_unix (due) : G_MAXINT64;
}

gboolean
gml_leitner_is_due (GmlLeitner *self,
                    const char *question,
                    gint64      now)
{
  return gml_leitner_get_due_time (self, question) <= now;
}

typedef struct
{
  guint  index;
  gint64 due;
} DueEntry;

static int
compare_due (gconstpointer a,
             gconstpointer b)
{
  const DueEntry *x = a, *y = b;

  if (x->due != y->due)
    return x->due < y->due ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Bank indexes (guint) of the questions due at @now, the longest overdue first and
 * bank order among equals. Answers to questions the bank does not have (a bank that
 * was removed) are ignored. */
GArray *
gml_leitner_due_indexes (GmlLeitner      *self,
                         GmlQuestionBank *bank,
                         gint64           now)
{
  g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (DueEntry));
  GArray *indexes = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < gml_question_bank_get_n_questions (bank); i++)
    {
      const GmlQuestion *q = gml_question_bank_get (bank, i);
      DueEntry entry = { i, gml_leitner_get_due_time (self, q->id) };

      if (entry.due <= now)
        g_array_append_val (entries, entry);
    }
  g_array_sort (entries, compare_due);
  for (guint i = 0; i < entries->len; i++)
    g_array_append_val (indexes, g_array_index (entries, DueEntry, i).index);
  return indexes;
}

/* When the next of the bank's answered questions comes due after @now (Unix time),
 * or G_MAXINT64 when none will: what "Review due (0)" can promise, and when the
 * count must be taken again. */
gint64
gml_leitner_next_due_time (GmlLeitner      *self,
                           GmlQuestionBank *bank,
                           gint64           now)
{
  gint64 next = G_MAXINT64;

  for (guint i = 0; i < gml_question_bank_get_n_questions (bank); i++)
    {
      gint64 due = gml_leitner_get_due_time (self, gml_question_bank_get (bank, i)->id);

      if (due > now && due < next)
        next = due;
    }
  return next;
}

GPtrArray *
gml_leitner_dup_due_ids (GmlLeitner      *self,
                         GmlQuestionBank *bank,
                         gint64           now)
{
  g_autoptr(GArray) indexes = gml_leitner_due_indexes (self, bank, now);
  GPtrArray *ids = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < indexes->len; i++)
    g_ptr_array_add (ids,
                     g_strdup (gml_question_bank_get (bank,
                                                      g_array_index (indexes, guint, i))->id));
  return ids;
}

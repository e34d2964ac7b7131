/* fuzz-bank.c — the question bank reader (gml_question_bank_load_data) on any bytes.
 *
 * What a loaded bank must then allow: every question looked up by its id, every
 * string formatted with its placeholders resolved, in any option order.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "gml-question-bank.h"

FUZZ_DEFINE_QUIET_INITIALIZE ()

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;
  guint order[GML_N_OPTIONS] = { 3, 1, 0, 2 };

  if (!gml_question_bank_load_data (bank, (const char *) data, size, "fuzz.json", FALSE, &error))
    {
      /* A refusal must say why. */
      if (error == NULL || error->message == NULL || *error->message == '\0')
        abort ();
      return 0;
    }
  if (error != NULL)
    abort ();

  for (guint i = 0; i < gml_question_bank_get_n_questions (bank); i++)
    {
      const GmlQuestion *q = gml_question_bank_get (bank, i);
      g_autofree char *text = gml_question_format (q, q->text, order);
      g_autofree char *explanation = gml_question_format (q, q->explanation, order);

      if (gml_question_bank_lookup (bank, q->id) != q)
        abort ();
      if (gml_question_correct_position (q, order) >= GML_N_OPTIONS)
        abort ();
      for (guint j = 0; j < GML_N_OPTIONS; j++)
        {
          g_autofree char *feedback = gml_question_format (q, q->options[j].feedback, order);

          if (!g_utf8_validate (feedback, -1, NULL))
            abort ();
        }
      if (!g_utf8_validate (text, -1, NULL) || !g_utf8_validate (explanation, -1, NULL))
        abort ();
    }
  {
    g_autoptr(GPtrArray) topics = gml_question_bank_dup_topics (bank);

    if (topics->len > gml_question_bank_get_n_questions (bank))
      abort ();
  }
  return 0;
}

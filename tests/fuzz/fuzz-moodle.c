/* fuzz-moodle.c — the GIFT, Moodle XML and Aiken readers (gml_moodle_import) on any
 * bytes; built once per format with FUZZ_FORMAT set.
 *
 * What an import returns is a bank JSON document that must itself load.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "gml-moodle.h"
#include "gml-question-bank.h"

#ifndef FUZZ_FORMAT
#error "FUZZ_FORMAT must name a GmlMoodleFormat"
#endif

FUZZ_DEFINE_QUIET_INITIALIZE ()

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  guint n_questions = 0;

  json = gml_moodle_import ((const char *) data, size, FUZZ_FORMAT, "fuzz", "Imported",
                            &n_questions, &error);
  if (json == NULL)
    {
      if (error == NULL || *error->message == '\0')
        abort ();
      return 0;
    }
  if (error != NULL)
    abort ();

  {
    g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();

    if (!gml_question_bank_load_data (bank, json, strlen (json), "import.json", FALSE, &error))
      {
        g_printerr ("an import does not load: %s\n", error->message);
        abort ();
      }
    if (gml_question_bank_get_n_questions (bank) != n_questions)
      abort ();
  }
  /* Detection must cope with anything too. */
  gml_moodle_detect_format ("fuzz.txt", (const char *) data, size);
  return 0;
}

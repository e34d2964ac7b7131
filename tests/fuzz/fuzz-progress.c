/* fuzz-progress.c — the answer log reader (gml_progress_parse) on any bytes.
 *
 * A log that loads must survive a round trip: written out and read back, it holds
 * the same answers. Anything else would lose answers at the next save.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "gml-progress.h"

FUZZ_DEFINE_QUIET_INITIALIZE ()

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* Never saved: the path is only a name. */
  g_autoptr(GmlProgress) progress = gml_progress_new ("/nonexistent/fuzz-progress.json");
  g_autoptr(GmlProgress) again = gml_progress_new ("/nonexistent/fuzz-progress.json");
  g_autoptr(GError) error = NULL;
  g_autofree char *serialized = NULL;
  gsize length = 0;

  if (!gml_progress_parse (progress, (const char *) data, size, &error))
    {
      if (error == NULL || *error->message == '\0' || gml_progress_get_n_answers (progress) != 0)
        abort ();
      return 0;
    }

  serialized = gml_progress_serialize (progress, &length);
  if (!gml_progress_parse (again, serialized, length, &error))
    {
      g_printerr ("a log that loaded does not load after saving: %s\n", error->message);
      abort ();
    }
  if (gml_progress_get_n_answers (again) != gml_progress_get_n_answers (progress))
    abort ();
  for (guint i = 0; i < gml_progress_get_n_answers (progress); i++)
    {
      const GmlAnswer *a = gml_progress_get_answer (progress, i);
      const GmlAnswer *b = gml_progress_get_answer (again, i);

      if (strcmp (a->question, b->question) != 0 || strcmp (a->chosen, b->chosen) != 0 ||
          a->time != b->time || a->correct != b->correct)
        abort ();
      if (gml_progress_last_for (progress, a->question) == NULL)
        abort ();
    }
  return 0;
}

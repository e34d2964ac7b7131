/* crash-helper.c — records answers through GmlProgress as the app does, one save
 * per answer, and says "ack N" on stdout once answer N is saved. The crash-safety
 * test kills it with SIGKILL at random moments and starts it again.
 *
 *   crash-helper LOG TOTAL     answer until the log holds TOTAL answers
 *   crash-helper --background LOG TOTAL
 *                              the same with the app's background saves: answers
 *                              come in bursts of one to three, saved coalesced in
 *                              the worker, and "ack N" once the burst is on disk
 *   crash-helper --check LOG   print how many answers LOG holds (exit 1 if it does
 *                              not load as a whole)
 *
 * Answer N is for question "q-N" with option "a".."d" by N, so the test can check
 * that the log is exactly answers 1..K in order.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "gml-progress.h"

static void
save_failed_cb (GmlProgress  *progress,
                const GError *error,
                gpointer      user_data)
{
  fprintf (stderr, "a background save failed: %s\n", error->message);
  exit (1);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GmlProgress) progress = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *set_aside = NULL;
  guint64 total = 0;
  gboolean background = FALSE;

  if (argc == 3 && g_str_equal (argv[1], "--check"))
    {
      g_autofree char *contents = NULL;
      gsize length = 0;

      progress = gml_progress_new (argv[2]);
      if (!g_file_get_contents (argv[2], &contents, &length, &error) ||
          !gml_progress_parse (progress, contents, length, &error))
        {
          fprintf (stderr, "%s\n", error->message);
          return 1;
        }
      for (guint i = 0; i < gml_progress_get_n_answers (progress); i++)
        {
          const GmlAnswer *answer = gml_progress_get_answer (progress, i);
          g_autofree char *question = g_strdup_printf ("q-%u", i + 1);

          if (!g_str_equal (answer->question, question))
            {
              fprintf (stderr, "answer %u is for %s, not %s\n", i + 1, answer->question, question);
              return 1;
            }
        }
      printf ("%u\n", gml_progress_get_n_answers (progress));
      return 0;
    }

  if (argc == 4 && g_str_equal (argv[1], "--background"))
    {
      background = TRUE;
      argv++;
      argc--;
    }
  if (argc != 3 || !g_ascii_string_to_unsigned (argv[2], 10, 1, G_MAXUINT, &total, NULL))
    {
      fprintf (stderr, "usage: crash-helper [--background] LOG TOTAL | crash-helper --check LOG\n");
      return 2;
    }

  progress = gml_progress_new (argv[1]);
  if (!gml_progress_load (progress, &set_aside, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  if (set_aside != NULL)
    {
      /* The log was damaged: exactly what must never happen. */
      fprintf (stderr, "the log was damaged and set aside as %s\n", set_aside);
      return 1;
    }
  setvbuf (stdout, NULL, _IOLBF, 0);
  printf ("start %u\n", gml_progress_get_n_answers (progress));
  if (background)
    gml_progress_set_background_saves (progress, TRUE, save_failed_cb, NULL);

  for (guint n = gml_progress_get_n_answers (progress) + 1; n <= total; n++)
    {
      g_autofree char *question = g_strdup_printf ("q-%u", n);
      char chosen[2] = { 'a' + n % 4, '\0' };

      if (!gml_progress_record (progress, question, chosen, n % 4 == 0, 1.5, 1800000000 + n,
                                &error))
        {
          fprintf (stderr, "%s\n", error->message);
          return 1;
        }
      if (!background)
        printf ("ack %u\n", n);
      else if (n % 3 == 0 || n % 7 == 1 || n == total)
        {
          /* The end of a burst: the worker's coalesced save, then the ack. */
          while (gml_progress_has_pending_save (progress))
            g_main_context_iteration (NULL, TRUE);
          printf ("ack %u\n", n);
        }
    }
  return 0;
}

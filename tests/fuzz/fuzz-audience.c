/* fuzz-audience.c — what a phone sends in audience mode (gml_audience_answer_parse),
 * on any bytes, and the room that takes it.
 *
 * The input is a stream of lines, as many phones' bodies in a row. Each line is
 * parsed; what parses is answered in a room whose question is the one the line
 * names every third line (so some answers are taken, some refused as not now), and
 * whose vote closes and reopens as lines come. A refused line must carry a message
 * and a status the page can get; the counts must always add up to the answers
 * kept, and no count may exceed the phones that joined.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "gml-audience-room.h"

FUZZ_DEFINE_QUIET_INITIALIZE ()

static void
check_counts (GmlAudienceRoom *room)
{
  for (guint q = 0; q < gml_audience_room_get_n_asked (room); q++)
    {
      GmlAudienceResult result;
      guint sum = 0;

      gml_audience_room_get_result_at (room, q, &result);
      for (guint o = 0; o < GML_AUDIENCE_N_OPTIONS; o++)
        sum += result.counts[o];
      if (sum != result.answered || result.answered > gml_audience_room_get_joined (room))
        abort ();
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GmlAudienceRoom) room = gml_audience_room_new ("4821");
  const char *p = (const char *) data;
  const char *end = p + size;
  guint line = 0;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', (size_t) (end - p));
      gsize length = (gsize) ((nl != NULL ? nl : end) - p);
      g_autoptr(GError) error = NULL;
      GmlAudienceAnswer answer;

      if (gml_audience_answer_parse (p, length, &answer, &error))
        {
          if (error != NULL)
            abort ();
          if (line % 3 == 0)
            gml_audience_room_ask (room, answer.question, answer.option);
          if (line % 5 == 4)
            gml_audience_room_close_vote (room);
          if (!gml_audience_room_answer (room, &answer, (gint64) line * 1000, &error))
            {
              guint status = gml_audience_error_status (error);

              if (error == NULL || error->message[0] == '\0' ||
                  (status != 403 && status != 409 && status != 429))
                abort ();
            }
          else if (gml_audience_room_answer_of (room, answer.client,
                                                answer.question) != (gint) answer.option)
            abort ();
          gml_audience_answer_clear (&answer);
        }
      else
        {
          guint status = gml_audience_error_status (error);

          if (error == NULL || error->message[0] == '\0' || (status != 400 && status != 413) ||
              answer.client != NULL)
            abort ();
        }
      check_counts (room);
      line++;
      p += length + 1;
    }
  {
    g_autofree char *csv = gml_audience_room_to_csv (room);

    if (csv == NULL || !g_str_has_prefix (csv, "question,client,option,right\n"))
      abort ();
  }
  return 0;
}

/* test-audience-room.c — audience mode's room: what phones send, good and hostile,
 * and the answers it keeps.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "gml-audience-room.h"
#include "gml-i18n.h"

#define SECOND G_USEC_PER_SEC

static GmlAudienceAnswer
answer_of (const char *room,
           const char *client,
           const char *question,
           char        option)
{
  g_autofree char *body = g_strdup_printf ("{\"room\":\"%s\",\"client\":\"%s\",\"question\":\"%s\","
                                           "\"option\":\"%c\"}", room, client, question, option);
  g_autoptr(GError) error = NULL;
  GmlAudienceAnswer answer;

  g_assert_true (gml_audience_answer_parse (body, strlen (body), &answer, &error));
  g_assert_no_error (error);
  return answer;
}

static guint
refused (const char *body,
         gsize       length)
{
  g_autoptr(GError) error = NULL;
  GmlAudienceAnswer answer;

  g_assert_false (gml_audience_answer_parse (body, length, &answer, &error));
  g_assert_nonnull (error);
  g_assert_cmpuint (strlen (error->message), >, 0);
  g_assert_null (answer.client);
  return gml_audience_error_status (error);
}

static void
test_parse (void)
{
  static const char body[] =
      "{\"option\":\"c\",\"question\":\"oom-basics\",\"client\":\"k3-Xq_9zz\","
                             "\"room\":\"0042\"}";
  GmlAudienceAnswer answer;
  g_autoptr(GError) error = NULL;

  g_assert_true (gml_audience_answer_parse (body, strlen (body), &answer, &error));
  g_assert_cmpstr (answer.room, ==, "0042");
  g_assert_cmpstr (answer.client, ==, "k3-Xq_9zz");
  g_assert_cmpstr (answer.question, ==, "oom-basics");
  g_assert_cmpuint (answer.option, ==, 2);
  gml_audience_answer_clear (&answer);
  g_assert_null (answer.client);
}

static const struct { const char *body; guint status; } hostile[] = {
  { "", 400 },
  { "not json", 400 },
  { "[\"room\"]", 400 },
  { "\"a\"", 400 },
  { "{}", 400 },
  { "{\"room\":\"4821\",\"client\":\"abcdefgh\",\"question\":\"q1\"}", 400 },
  { "{\"room\":\"4821\",\"client\":\"abcdefgh\",\"question\":\"q1\",\"option\":\"e\"}", 400 },
  { "{\"room\":\"4821\",\"client\":\"abcdefgh\",\"question\":\"q1\",\"option\":\"ab\"}", 400 },
  { "{\"room\":\"4821\",\"client\":\"abcdefgh\",\"question\":\"q1\",\"option\":1}", 400 },
  { "{\"room\":4821,\"client\":\"abcdefgh\",\"question\":\"q1\",\"option\":\"a\"}", 400 },
  { "{\"room\":\"482\",\"client\":\"abcdefgh\",\"question\":\"q1\",\"option\":\"a\"}", 400 },
  { "{\"room\":\"48a1\",\"client\":\"abcdefgh\",\"question\":\"q1\",\"option\":\"a\"}", 400 },
  { "{\"room\":\"4821\",\"client\":\"short\",\"question\":\"q1\",\"option\":\"a\"}", 400 },
  { "{\"room\":\"4821\",\"client\":\"abc defgh\",\"question\":\"q1\",\"option\":\"a\"}", 400 },
  { "{\"room\":\"4821\",\"client\":\"abcdefgh\",\"question\":\"../etc\",\"option\":\"a\"}", 400 },
  { "{\"room\":\"4821\",\"client\":\"abcdefgh\",\"question\":\"\",\"option\":\"a\"}", 400 },
  { "{\"room\":\"4821\",\"client\":\"abcdefgh\",\"question\":\"q1\",\"option\":\"a\",\"reveal\":true}", 400 },
  { "{\"room\":\"4821\",\"client\":\"abcdefgh\",\"question\":\"q1\",\"option\":null}", 400 },
  { "{\"room\":\"4821\",\"client\":{\"a\":1},\"question\":\"q1\",\"option\":\"a\"}", 400 },
};

static void
test_hostile (void)
{
  g_autofree char *huge = NULL;
  g_autofree char *deep = NULL;
  g_autofree char *long_client = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      guint status = refused (hostile[i].body, strlen (hostile[i].body));

      if (status != hostile[i].status)
        g_error ("%s: status %u, not %u", hostile[i].body, status, hostile[i].status);
    }
  g_assert_cmpuint (refused ("{\"room\":\"\xff\"}", 11), ==, 400);
  g_assert_cmpuint (refused ("{\"room\":\"4821\"\0}", 16), ==, 400);
  g_assert_cmpuint (refused (NULL, 0), ==, 400);

  /* Larger than the limit: refused before it is read. */
  huge = g_strnfill (GML_AUDIENCE_MAX_BODY + 1, ' ');
  g_assert_cmpuint (refused (huge, GML_AUDIENCE_MAX_BODY + 1), ==, 413);
  /* As deep as the limit lets it be. */
  deep = g_strnfill (GML_AUDIENCE_MAX_BODY, '[');
  g_assert_cmpuint (refused (deep, GML_AUDIENCE_MAX_BODY), ==, 400);
  long_client = g_strnfill (GML_AUDIENCE_MAX_CLIENT_ID + 1, 'x');
  {
    g_autofree char *body =
        g_strdup_printf ("{\"room\":\"4821\",\"client\":\"%s\",\"question\":\"q1\","
                         "\"option\":\"a\"}", long_client);

    g_assert_cmpuint (refused (body, strlen (body)), ==, 400);
  }
}

static void
test_turkish (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      g_autoptr(GError) english = NULL;
      g_autoptr(GError) turkish = NULL;
      GmlAudienceAnswer answer;

      gml_i18n_set_language ("en");
      g_assert_false (gml_audience_answer_parse (hostile[i].body, strlen (hostile[i].body), &answer,
                                                 &english));
      gml_i18n_set_language ("tr");
      g_assert_false (gml_audience_answer_parse (hostile[i].body, strlen (hostile[i].body), &answer,
                                                 &turkish));
      if (g_str_equal (english->message, turkish->message))
        g_error ("“%s” is not translated", english->message);
    }
  gml_i18n_set_language ("en");
}

static void
test_room (void)
{
  g_autoptr(GmlAudienceRoom) room = gml_audience_room_new ("4821");
  g_autoptr(GError) error = NULL;
  GmlAudienceAnswer a = answer_of ("4821", "phone-one", "q1", 'a');
  GmlAudienceAnswer b = answer_of ("4821", "phone-two", "q1", 'b');
  GmlAudienceAnswer a_changes = answer_of ("4821", "phone-one", "q1", 'b');
  GmlAudienceAnswer wrong_room = answer_of ("1111", "phone-one", "q1", 'a');
  GmlAudienceAnswer other = answer_of ("4821", "phone-one", "q2", 'a');
  GmlAudienceResult result;

  g_assert_cmpstr (gml_audience_room_get_code (room), ==, "4821");
  g_assert_null (gml_audience_room_get_question (room));
  g_assert_false (gml_audience_room_is_open (room));

  /* Nothing asked yet. */
  g_assert_false (gml_audience_room_answer (room, &a, 0, &error));
  g_assert_cmpuint (gml_audience_error_status (error), ==, 409);
  g_clear_error (&error);

  g_assert_true (gml_audience_room_ask (room, "q1", 1));
  g_assert_true (gml_audience_room_is_open (room));
  g_assert_true (gml_audience_room_join (room, "phone-three", NULL));
  g_assert_true (gml_audience_room_answer (room, &a, 0, NULL));
  g_assert_true (gml_audience_room_answer (room, &b, 0, NULL));
  g_assert_cmpuint (gml_audience_room_get_joined (room), ==, 3);
  g_assert_true (gml_audience_room_get_result (room, "q1", &result));
  g_assert_cmpuint (result.counts[0], ==, 1);
  g_assert_cmpuint (result.counts[1], ==, 1);
  g_assert_cmpuint (result.answered, ==, 2);

  /* A phone changes its mind: the last answer counts, once. */
  g_assert_true (gml_audience_room_answer (room, &a_changes, SECOND, NULL));
  g_assert_true (gml_audience_room_get_result (room, "q1", &result));
  g_assert_cmpuint (result.counts[0], ==, 0);
  g_assert_cmpuint (result.counts[1], ==, 2);
  g_assert_cmpuint (result.answered, ==, 2);
  g_assert_cmpint (gml_audience_room_answer_of (room, "phone-one", "q1"), ==, 1);
  g_assert_cmpint (gml_audience_room_answer_of (room, "phone-three", "q1"), ==, -1);

  g_assert_false (gml_audience_room_answer (room, &wrong_room, SECOND, &error));
  g_assert_cmpuint (gml_audience_error_status (error), ==, 403);
  g_clear_error (&error);
  g_assert_false (gml_audience_room_answer (room, &other, SECOND, &error));
  g_assert_cmpuint (gml_audience_error_status (error), ==, 409);
  g_clear_error (&error);

  /* Closed: no more answers, none changed. */
  gml_audience_room_close_vote (room);
  g_assert_false (gml_audience_room_answer (room, &a, 2 * SECOND, &error));
  g_assert_cmpuint (gml_audience_error_status (error), ==, 409);
  g_clear_error (&error);
  g_assert_false (gml_audience_room_is_revealed (room));
  gml_audience_room_reveal (room);
  g_assert_true (gml_audience_room_is_revealed (room));
  g_assert_true (gml_audience_room_get_result (room, "q1", &result));
  g_assert_cmpuint (result.counts[1], ==, 2);
  g_assert_cmpuint (result.right, ==, 1);

  /* The next question; the first keeps its answers. */
  g_assert_true (gml_audience_room_ask (room, "q2", 3));
  g_assert_true (gml_audience_room_answer (room, &other, 3 * SECOND, NULL));
  g_assert_cmpuint (gml_audience_room_get_n_asked (room), ==, 2);
  gml_audience_room_get_result_at (room, 0, &result);
  g_assert_cmpstr (result.id, ==, "q1");
  g_assert_cmpuint (result.answered, ==, 2);
  gml_audience_room_get_result_at (room, 1, &result);
  g_assert_cmpstr (result.id, ==, "q2");
  g_assert_cmpuint (result.counts[0], ==, 1);
  g_assert_false (gml_audience_room_get_result (room, "q3", &result));

  {
    g_autofree char *csv = gml_audience_room_to_csv (room);

    g_assert_cmpstr (csv, ==,
                     "question,client,option,right\n"
                     "q1,phone-one,b,1\n"
                     "q1,phone-two,b,1\n"
                     "q2,phone-one,a,0\n");
  }

  gml_audience_answer_clear (&a);
  gml_audience_answer_clear (&b);
  gml_audience_answer_clear (&a_changes);
  gml_audience_answer_clear (&wrong_room);
  gml_audience_answer_clear (&other);
}

static void
test_codes (void)
{
  for (guint i = 0; i < 50; i++)
    {
      g_autoptr(GmlAudienceRoom) room = gml_audience_room_new (NULL);

      g_assert_true (gml_audience_is_room_code (gml_audience_room_get_code (room)));
    }
  {
    g_autoptr(GmlAudienceRoom) room = gml_audience_room_new ("12x4");

    g_assert_true (gml_audience_is_room_code (gml_audience_room_get_code (room)));
    g_assert_false (gml_audience_room_ask (room, "no spaces", 0));
    g_assert_null (gml_audience_room_get_question (room));
  }
}

/* Every answer of many phones counted exactly once, whatever they change. */
static void
test_many (void)
{
  g_autoptr(GmlAudienceRoom) room = gml_audience_room_new ("0001");
  guint expected[GML_AUDIENCE_N_OPTIONS] = { 0 };
  GmlAudienceResult result;

  g_assert_true (gml_audience_room_ask (room, "q1", 0));
  for (guint i = 0; i < GML_AUDIENCE_MAX_CLIENTS; i++)
    {
      g_autofree char *client = g_strdup_printf ("phone-%04u", i);
      GmlAudienceAnswer first = answer_of ("0001", client, "q1", 'a' + (i % 4));
      GmlAudienceAnswer last = answer_of ("0001", client, "q1", 'a' + (i * 7 % 4));

      g_assert_true (gml_audience_room_answer (room, &first, 0, NULL));
      g_assert_true (gml_audience_room_answer (room, &last, 0, NULL));
      expected[i * 7 % 4]++;
      gml_audience_answer_clear (&first);
      gml_audience_answer_clear (&last);
    }
  g_assert_true (gml_audience_room_get_result (room, "q1", &result));
  for (guint o = 0; o < GML_AUDIENCE_N_OPTIONS; o++)
    g_assert_cmpuint (result.counts[o], ==, expected[o]);
  g_assert_cmpuint (result.answered, ==, GML_AUDIENCE_MAX_CLIENTS);

  /* The room is full: a new phone is refused, the others go on. */
  {
    g_autoptr(GError) error = NULL;
    GmlAudienceAnswer late = answer_of ("0001", "phone-late", "q1", 'a');
    GmlAudienceAnswer known = answer_of ("0001", "phone-0000", "q1", 'd');

    g_assert_false (gml_audience_room_answer (room, &late, 0, &error));
    g_assert_cmpuint (gml_audience_error_status (error), ==, 429);
    g_assert_false (gml_audience_room_join (room, "phone-late2", NULL));
    g_assert_true (gml_audience_room_answer (room, &known, 0, NULL));
    g_assert_cmpuint (gml_audience_room_get_joined (room), ==, GML_AUDIENCE_MAX_CLIENTS);
    gml_audience_answer_clear (&late);
    gml_audience_answer_clear (&known);
  }
}

static void
test_flood (void)
{
  g_autoptr(GmlAudienceRoom) room = gml_audience_room_new ("0002");
  GmlAudienceAnswer flood = answer_of ("0002", "flooding-phone", "q1", 'a');
  GmlAudienceAnswer calm = answer_of ("0002", "calm-phone", "q1", 'b');
  g_autoptr(GError) error = NULL;
  guint taken = 0;

  g_assert_true (gml_audience_room_ask (room, "q1", 0));
  for (guint i = 0; i < 1000; i++)
    if (gml_audience_room_answer (room, &flood, i * 1000, NULL))
      taken++;
  g_assert_cmpuint (taken, ==, GML_AUDIENCE_FLOOD_ANSWERS);
  g_assert_false (gml_audience_room_answer (room, &flood, 2 * SECOND, &error));
  g_assert_cmpuint (gml_audience_error_status (error), ==, 429);
  /* The others are served. */
  g_assert_true (gml_audience_room_answer (room, &calm, 2 * SECOND, NULL));
  /* After the window, the flooding phone may answer again. */
  g_assert_true (gml_audience_room_answer (room, &flood, GML_AUDIENCE_FLOOD_WINDOW_US + 1, NULL));
  gml_audience_answer_clear (&flood);
  gml_audience_answer_clear (&calm);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/audience/parse", test_parse);
  g_test_add_func ("/core/audience/hostile", test_hostile);
  g_test_add_func ("/core/audience/turkish", test_turkish);
  g_test_add_func ("/core/audience/room", test_room);
  g_test_add_func ("/core/audience/codes", test_codes);
  g_test_add_func ("/core/audience/many", test_many);
  g_test_add_func ("/core/audience/flood", test_flood);
  return g_test_run ();
}

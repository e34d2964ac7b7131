/* test-replay-parse.c — the two readers of a trace line agree.
 *
 * `replay` reads the lines the lab writes with a fast reader of its own and
 * leaves every other line to json-glib. Whatever the fast reader accepts,
 * json-glib must read the same way: the same operation, id, size, stream,
 * label and category. Lines the fast reader declines must come back unchanged,
 * for json-glib to read and, when they are bad, to explain.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "gml-test-locale.h"

#include <string.h>

#include "gml-input.h"
#include "gml-replay-private.h"

static JsonParser *parser;

static void
assert_lines_equal (const GmlReplayLine *a,
                    const GmlReplayLine *b)
{
  g_assert_cmpint (a->op, ==, b->op);
  g_assert_cmpstr (a->id, ==, b->id);
  g_assert_cmpuint (a->size, ==, b->size);
  g_assert_cmpuint (a->stream, ==, b->stream);
  g_assert_cmpstr (a->label, ==, b->label);
  g_assert_cmpint (a->category, ==, b->category);
}

/* Runs both readers on @text. Returns whether the fast one accepted it; when it
 * did, json-glib must have read the same. */
static gboolean
check_agree (const char *text)
{
  g_autofree char *fast_copy = g_strdup (text);
  g_autofree char *message = NULL;
  GmlReplayLine fast = { 0 }, full = { 0 };
  gboolean accepted, parsed;

  accepted = gml_replay_parse_line_fast (fast_copy, strlen (fast_copy), &fast);
  if (!accepted)
    {
      /* Declined lines go to json-glib as they were. */
      g_assert_cmpstr (fast_copy, ==, text);
      return FALSE;
    }

  parsed = gml_replay_parse_line (parser, text, &full, &message);
  if (!parsed)
    g_test_message ("json-glib refuses what the fast reader took: %s: %s", text, message);
  g_assert_true (parsed);
  assert_lines_equal (&fast, &full);
  return TRUE;
}

static void
test_accepted (void)
{
  static const struct
  {
    const char    *text;
    GmlReplayLine  want;
  } rows[] = {
    { "{\"op\":\"empty_cache\"}", { GML_REPLAY_EMPTY_CACHE } },
    { "{\"op\":\"free\",\"id\":\"x1\"}", { GML_REPLAY_FREE, "x1" } },
    { "{\"op\":\"free\",\"id\":\"\"}", { GML_REPLAY_FREE, "" } },
    { "{\"op\":\"alloc\",\"id\":\"x1\",\"size\":3000000,\"stream\":0}",
      { GML_REPLAY_ALLOC, "x1", 3000000, 0 } },
    { "{\"op\":\"alloc\",\"id\":\"x1\",\"size\":0}", { GML_REPLAY_ALLOC, "x1", 0 } },
    { "{\"op\":\"alloc\",\"id\":\"b\",\"size\":1000,\"label\":\"bias\",\"category\":\"weights\"}",
      { GML_REPLAY_ALLOC, "b", 1000, 0, "bias", GML_CATEGORY_WEIGHTS } },
    { "{\"op\":\"alloc\",\"id\":\"d\",\"size\":12582912,\"category\":\"optimizer-state\"}",
      { GML_REPLAY_ALLOC, "d", 12582912, 0, NULL, GML_CATEGORY_OPTIMIZER_STATE } },
    { "{\"op\":\"alloc\",\"id\":\"d\",\"size\":1,\"category\":\"optimizer_state\"}",
      { GML_REPLAY_ALLOC, "d", 1, 0, NULL, GML_CATEGORY_OPTIMIZER_STATE } },
    { "{\"op\":\"alloc\",\"id\":\"t9\",\"size\":999999999999999999,\"stream\":4294967295,"
      "\"label\":\"\",\"category\":\"temporary\"}",
      { GML_REPLAY_ALLOC, "t9", G_GUINT64_CONSTANT (999999999999999999), G_MAXUINT32, "",
        GML_CATEGORY_TEMPORARY } },
    /* Any UTF-8 text in strings, quotes of other kinds and JSON-looking text too. */
    { "{\"op\":\"alloc\",\"id\":\"ağırlık/ç{}[],:'\xf0\x9f\x98\x80\",\"size\":7,"
      "\"label\":\"q.weight 'x' /*y*/\"}",
      { GML_REPLAY_ALLOC, "ağırlık/ç{}[],:'\xf0\x9f\x98\x80", 7, 0, "q.weight 'x' /*y*/" } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *copy = g_strdup (rows[i].text);
      GmlReplayLine line;

      g_test_message ("%s", rows[i].text);
      g_assert_true (gml_replay_parse_line_fast (copy, strlen (copy), &line));
      assert_lines_equal (&line, &rows[i].want);
      g_assert_true (check_agree (rows[i].text));
    }
}

/* Everything else is json-glib's, valid or not. */
static void
test_declined (void)
{
  static const char * const rows[] = {
    /* Whitespace, other member orders, extra or repeated members. */
    "{ \"op\":\"empty_cache\"}",
    "{\"op\": \"free\",\"id\":\"x\"}",
    "{\"op\":\"free\", \"id\":\"x\"}",
    "{\"op\":\"free\",\"id\":\"x\" }",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1 }",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":\t1}",
    "{\"id\":\"x\",\"op\":\"free\"}",
    "{\"op\":\"alloc\",\"size\":1,\"id\":\"x\"}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"label\":\"l\",\"stream\":1}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"category\":\"weights\",\"label\":\"l\"}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"extra\":1}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"size\":2}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"stream\":0,\"stream\":1}",
    "{\"op\":\"free\",\"id\":\"x\",\"id\":\"y\"}",
    "{\"op\":\"empty_cache\",\"id\":\"x\"}",
    "{\"op\":\"free\",\"id\":\"x\",\"size\":1}",
    /* Escapes and control characters in strings. */
    "{\"op\":\"free\",\"id\":\"\\u0078\"}",
    "{\"op\":\"free\",\"id\":\"a\\\"b\"}",
    "{\"op\":\"free\",\"id\":\"a\\\\\"}",
    "{\"op\":\"free\",\"id\":\"a\\u0000b\"}",
    "{\"op\":\"free\",\"id\":\"a\tb\"}",
    "{\"op\":\"free\",\"id\":\"a\x01\"}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"label\":\"a\\nb\"}",
    "{\"op\":\"\\u0066ree\",\"id\":\"x\"}",
    /* Numbers json-glib reads its own way, or refuses. */
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":-1}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":-0}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":+1}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":01}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":00}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1.5}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1.0}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1e3}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1E3}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":\"1\"}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":true}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":null}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1000000000000000000}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":9223372036854775807}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":9223372036854775808}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":18446744073709551621}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1180591620717411303424}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"stream\":4294967296}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"stream\":-1}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"stream\":01}",
    /* Members of the wrong type, unknown values, missing parts. */
    "{\"op\":\"alloc\",\"id\":7,\"size\":1}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"label\":5}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"label\":null}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"category\":\"cats\"}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"category\":\"Weights\"}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"category\":\"\"}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,\"category\":5}",
    "{\"op\":\"alloc\",\"id\":\"x\"}",
    "{\"op\":\"alloc\",\"size\":1}",
    "{\"op\":\"free\"}",
    "{\"op\":\"realloc\",\"id\":\"x\"}",
    "{\"op\":\"Free\",\"id\":\"x\"}",
    "{\"op\":\"empty_cache\"",
    "{\"op\":\"free\",\"id\":\"x",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1",
    "{}",
    "[1,2,3]",
    "",
    /* What follows the object, or comes before it. */
    "{\"op\":\"empty_cache\"}x",
    "{\"op\":\"empty_cache\"},",
    "{\"op\":\"free\",\"id\":\"x\"}}",
    "{\"op\":\"free\",\"id\":\"x\"} {\"op\":\"free\",\"id\":\"y\"}",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1}/*c*/",
    "{\"op\":\"alloc\",\"id\":\"x\",\"size\":1,}",
    "\xef\xbb\xbf{\"op\":\"empty_cache\"}",
    "{'op':'empty_cache'}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *copy = g_strdup (rows[i]);
      GmlReplayLine line;

      g_test_message ("%s", rows[i]);
      g_assert_false (gml_replay_parse_line_fast (copy, strlen (copy), &line));
      g_assert_cmpstr (copy, ==, rows[i]);
    }
}

/* A line of the canonical shape with random contents. */
static char *
random_canonical_line (GRand *rand)
{
  static const char * const pieces[] = {
    "a", "t", "7", "ç", "ğ", "\xf0\x9f\x98\x80", " ", "'", "/", ":", ",", "{", "}", "[", "]",
    "\xc2\x80", "\x7f",
  };
  static const char * const categories[] = {
    "weights", "activations", "gradients", "optimizer-state", "optimizer_state", "temporary",
  };
  g_autoptr(GString) id = g_string_new (NULL);
  GString *line = g_string_new (NULL);
  guint n = g_rand_int_range (rand, 0, 8);

  for (guint i = 0; i < n; i++)
    g_string_append (id, pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);

  switch (g_rand_int_range (rand, 0, 8))
    {
    case 0:
      g_string_append (line, "{\"op\":\"empty_cache\"}");
      break;
    case 1:
    case 2:
    case 3:
      g_string_append_printf (line, "{\"op\":\"free\",\"id\":\"%s\"}", id->str);
      break;
    default:
      g_string_append_printf (line, "{\"op\":\"alloc\",\"id\":\"%s\",\"size\":%" G_GUINT64_FORMAT,
                              id->str, g_rand_boolean (rand)
                                       ? (guint64) g_rand_int (rand)
                                       : ((guint64) g_rand_int (rand) << 26) + g_rand_int (rand));
      if (g_rand_boolean (rand))
        g_string_append_printf (line, ",\"stream\":%u",
                                g_rand_int (rand) >> g_rand_int_range (rand, 0, 32));
      if (g_rand_boolean (rand))
        g_string_append_printf (line, ",\"label\":\"%s\"", id->str);
      if (g_rand_boolean (rand))
        g_string_append_printf (line, ",\"category\":\"%s\"",
                                categories[g_rand_int_range (rand, 0, G_N_ELEMENTS (categories))]);
      g_string_append_c (line, '}');
      break;
    }
  return g_string_free (line, FALSE);
}

/* Canonical lines, then each with a few random edits from the characters
 * JSON is made of: whatever the fast reader still accepts, json-glib must
 * read the same way. Both outcomes must be common, or the test proves little. */
static void
test_random_edits (void)
{
  static const char alphabet[] = "{}[]\",:0123456789-+.eE \t\\u/'a\x01\x7f";
  g_autoptr(GRand) rand = g_rand_new_with_seed (15);
  guint n_lines = g_test_slow () ? 1000000 : 50000;
  guint accepted = 0, declined = 0, canonical_accepted = 0;

  for (guint i = 0; i < n_lines; i++)
    {
      g_autofree char *text = random_canonical_line (rand);
      GString *edited;
      guint n_edits = g_rand_int_range (rand, 0, 4);

      if (check_agree (text))
        canonical_accepted++;

      edited = g_string_new (text);
      for (guint e = 0; e < n_edits; e++)
        {
          gsize at = g_rand_int_range (rand, 0, edited->len + 1);
          char c = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];

          switch (g_rand_int_range (rand, 0, 3))
            {
            case 0:
              g_string_insert_c (edited, at, c);
              break;
            case 1:
              if (at < edited->len)
                g_string_erase (edited, at, 1);
              break;
            default:
              if (at < edited->len)
                edited->str[at] = c;
              break;
            }
        }

      /* The reader's input is valid UTF-8 without NUL or surrounding blanks:
       * the file was checked and the line trimmed before. */
      if (g_utf8_validate (edited->str, edited->len, NULL))
        {
          g_strstrip (edited->str);
          if (check_agree (edited->str))
            accepted++;
          else
            declined++;
        }
      g_string_free (edited, TRUE);
    }

  g_test_message ("%u canonical lines accepted of %u; edited lines: %u accepted, %u declined",
                  canonical_accepted, n_lines, accepted, declined);
  g_assert_cmpuint (canonical_accepted, ==, n_lines);
  g_assert_cmpuint (accepted, >, n_lines / 10);
  g_assert_cmpuint (declined, >, n_lines / 10);
}

/* The piecewise UTF-8 check says what g_utf8_validate_len() says of the
 * whole text, wherever the text is cut. */
static void
test_utf8_pieces (void)
{
  static const struct
  {
    const char *text;
    gssize      length;   /* -1: up to the NUL */
  } texts[] = {
    { "", -1 }, { "plain ASCII, long enough for a few words of eight bytes", -1 },
    { "ç", -1 }, { "ağırlık ve \xf0\x9f\x98\x80 ve \xe2\x82\xac", -1 }, { "\xc3", -1 },
    { "\xc3\x28", -1 }, { "\xe2\x82", -1 }, { "\xe2\x82\x28", -1 }, { "\xe0\x80\x80", -1 },
    { "\xed\xa0\x80", -1 }, { "\xf4\x90\x80\x80", -1 }, { "\xf0\x9f\x98", -1 },
    { "\xc0\x80", -1 }, { "\xff", -1 }, { "\x80", -1 }, { "abc\x80", -1 },
    { "abcdefgh\xc3\xa7ijklmnop", -1 }, { "\xef\xbb\xbf{}", -1 },
    { "\xf0\x9f\x98\x80\xf0\x9f\x98", -1 },
    /* A NUL byte is no UTF-8 text either, inside a word of eight or not. */
    { "a\0b", 3 }, { "abcdefg\0", 8 }, { "abcdefghijklmno\0", 16 },
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (8);

  for (guint t = 0; t < G_N_ELEMENTS (texts) + 2000; t++)
    {
      char random_text[40];
      const char *text;
      gsize length;
      gboolean want;

      if (t < G_N_ELEMENTS (texts))
        {
          text = texts[t].text;
          length = texts[t].length < 0 ? strlen (text) : (gsize) texts[t].length;
        }
      else
        {
          /* The bytes of a few characters in any order: cut and misplaced
           * characters are common, whole ones too. */
          length = g_rand_int_range (rand, 0, sizeof random_text);
          for (gsize i = 0; i < length; i++)
            random_text[i] = "a\xc3\xa7\xe2\x82\xac\xf0\x9f\x98\x80"[g_rand_int_range (rand, 0,
                                                                                       10)];
          text = random_text;
        }
      want = g_utf8_validate_len (text, length, NULL);

      /* Every way of cutting it into two and three pieces. */
      for (gsize a = 0; a <= length; a++)
        for (gsize b = a; b <= length; b++)
          {
            GmlUtf8Check check;
            gboolean got;

            gml_utf8_check_init (&check);
            got = gml_utf8_check_feed (&check, text, a) &&
                  gml_utf8_check_feed (&check, text + a, b - a) &&
                  gml_utf8_check_feed (&check, text + b, length - b) &&
                  gml_utf8_check_finish (&check);
            if (got != want)
              g_test_message ("text %u cut at %" G_GSIZE_FORMAT " and %" G_GSIZE_FORMAT, t, a, b);
            g_assert_cmpint (got, ==, want);
          }
    }
}

int
main (int   argc,
      char *argv[])
{
  const char *missing_locale = gml_test_set_locale (&argc, &argv);
  int status;

  g_test_init (&argc, &argv, NULL);
  gml_test_report_locale (missing_locale);

  parser = json_parser_new_immutable ();

  g_test_add_func ("/engine/replay-parse/accepted", test_accepted);
  g_test_add_func ("/engine/replay-parse/declined", test_declined);
  g_test_add_func ("/engine/replay-parse/random-edits", test_random_edits);
  g_test_add_func ("/engine/replay-parse/utf8-pieces", test_utf8_pieces);

  status = g_test_run ();
  g_object_unref (parser);
  return status;
}

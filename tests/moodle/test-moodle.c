/* test-moodle.c — GIFT, Moodle XML and Aiken: parsers on good and bad files, and a
 * round trip of the whole built-in bank in both languages.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>

#include "gml-i18n.h"
#include "gml-moodle.h"
#include "gml-question-bank.h"
#include "gml-test-common.h"

static GmlQuestionBank *
import_ok (const char      *data,
           GmlMoodleFormat  format,
           guint            expected)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  GmlQuestionBank *bank = gml_question_bank_new ();
  guint n = 0;

  json = gml_moodle_import (data, strlen (data), format, "teacher.txt", "Teacher", &n, &error);
  g_assert_no_error (error);
  g_assert_nonnull (json);
  g_assert_cmpuint (n, ==, expected);
  g_assert_true (gml_question_bank_load_data (bank, json, strlen (json), "imported", FALSE,
                                              &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gml_question_bank_get_n_questions (bank), ==, expected);
  return bank;
}

/* The error names the file and the line: "bad.gift:LINE: …". */
static void
import_fails (const char      *data,
              GmlMoodleFormat  format,
              guint            line)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *prefix = g_strdup_printf ("bad.gift:%u: ", line);

  json = gml_moodle_import (data, strlen (data), format, "bad.gift", "Teacher", NULL, &error);
  g_assert_null (json);
  g_assert_nonnull (error);
  g_assert_true (error->domain == GML_MOODLE_ERROR);
  g_test_message ("error: %s", error->message);
  if (!g_str_has_prefix (error->message, prefix))
    g_error ("expected “%s…”, got “%s”", prefix, error->message);
}

static const char good_gift[] =
  "// A teacher's bank, as Moodle writes it.\n"
  "$CATEGORY: $course$/top/GPU//CUDA basics\n"
  "\n"
  "// [id:kv-cache] [tag:difficulty-3] [tag:scenario-fragmentation] [tag:week-4]\n"
  "::kv-cache::What does the KV cache hold\n"
  "during inference \\{decoding\\}?{\n"
  "  =Keys and values of past tokens #Right\\: they are reused.\n"
  "  ~Gradients #No\\: inference has none.\n"
  "  ~%0%Optimizer state #No.\n"
  "  ~The weights \\= parameters #They are separate\\nfrom the cache.\n"
  "  ####Each step appends one token's keys and values \\~ a growing cache.\n"
  "}\n"
  "\n"
  "\n"
  "::no-tags::[html]<p>Is <b>1 &lt; 2</b>?</p>{\n"
  "~No\n"
  "~Maybe\n"
  "=%100%Yes\n"
  "~Never\n"
  "}\n";

static void
test_gift_good (void)
{
  g_autoptr(GmlQuestionBank) bank = import_ok (good_gift, GML_MOODLE_FORMAT_GIFT, 2);
  const GmlQuestion *q = gml_question_bank_get (bank, 0);
  const GmlQuestion *p = gml_question_bank_get (bank, 1);

  g_assert_cmpstr (q->id, ==, "kv-cache");
  g_assert_cmpstr (q->topic, ==, "GPU/CUDA basics");
  g_assert_cmpint (q->difficulty, ==, 3);
  g_assert_cmpstr (q->scenario, ==, "fragmentation");
  /* Multi-line text keeps its line break; escaped braces are braces. */
  g_assert_cmpstr (q->text, ==, "What does the KV cache hold\nduring inference {decoding}?");
  g_assert_cmpstr (q->options[0].text, ==, "Keys and values of past tokens");
  g_assert_true (q->options[0].correct);
  g_assert_cmpstr (q->options[0].feedback, ==, "Right: they are reused.");
  g_assert_false (q->options[2].correct);
  g_assert_cmpstr (q->options[2].text, ==, "Optimizer state");
  g_assert_cmpstr (q->options[3].text, ==, "The weights = parameters");
  g_assert_cmpstr (q->options[3].feedback, ==, "They are separate\nfrom the cache.");
  g_assert_cmpstr (q->explanation, ==,
                   "Each step appends one token's keys and values ~ a growing cache.");

  /* No category after a blank-line-separated block still keeps the last one; no tags
   * give the documented defaults; missing feedback and explanation are filled in. */
  g_assert_cmpstr (p->id, ==, "no-tags");
  g_assert_cmpstr (p->topic, ==, "GPU/CUDA basics");
  g_assert_cmpint (p->difficulty, ==, GML_MOODLE_DEFAULT_DIFFICULTY);
  g_assert_cmpstr (p->scenario, ==, GML_MOODLE_DEFAULT_SCENARIO);
  g_assert_cmpstr (p->text, ==, "Is 1 < 2?");
  g_assert_true (p->options[2].correct);
  g_assert_cmpstr (p->options[2].text, ==, "Yes");
  g_assert_true (*p->options[0].feedback != '\0');
  g_assert_nonnull (strstr (p->explanation, "Yes"));
}

static void
test_gift_bad (void)
{
  /* No right answer. */
  import_fails ("\n::q::Text{\n~a\n~b\n~c\n~d\n}\n", GML_MOODLE_FORMAT_GIFT, 2);
  /* Two right answers. */
  import_fails ("::q::Text{\n=a\n~b\n=c\n~d\n}\n", GML_MOODLE_FORMAT_GIFT, 1);
  /* Unterminated brace: the blank line ends the question; the line is the "{". */
  import_fails ("::q1::One{=a ~b ~c ~d}\n\n::q2::Two\nstill two {\n=a\n~b\n\n~c\n}\n",
                GML_MOODLE_FORMAT_GIFT, 4);
  /* Three options. */
  import_fails ("// c\n\n\n::q::Text{=a ~b ~c}\n", GML_MOODLE_FORMAT_GIFT, 4);
  /* Partial credit. */
  import_fails ("::q::T{\n=a\n~%50%b\n~c\n~d}\n", GML_MOODLE_FORMAT_GIFT, 3);
  /* Not multiple choice: true/false, short answer, essay. */
  import_fails ("::q::The sky is blue.{T}\n", GML_MOODLE_FORMAT_GIFT, 1);
  import_fails ("::q::Two plus two?{=four =4}\n", GML_MOODLE_FORMAT_GIFT, 1);
  import_fails ("::q::Write.{}\n", GML_MOODLE_FORMAT_GIFT, 1);
  /* No braces at all. */
  import_fails ("::q::Just text\n", GML_MOODLE_FORMAT_GIFT, 1);
  /* Unclosed title. */
  import_fails ("::q:Text{=a ~b ~c ~d}\n", GML_MOODLE_FORMAT_GIFT, 1);
  /* A difficulty tag out of range, and an unknown scenario (found by the bank's own
   * validation, still with the line). */
  import_fails ("\n// [tag:difficulty-7]\n::q::T{=a ~b ~c ~d}\n", GML_MOODLE_FORMAT_GIFT, 3);
  import_fails ("\n\n// [tag:scenario-nowhere]\n::q::T{=a ~b ~c ~d}\n", GML_MOODLE_FORMAT_GIFT, 4);
  /* The same id twice. */
  import_fails ("::q::T{=a ~b ~c ~d}\n\n::q::U{=a ~b ~c ~d}\n", GML_MOODLE_FORMAT_GIFT, 3);
  /* A file with no questions. */
  import_fails ("// only a comment\n", GML_MOODLE_FORMAT_GIFT, 1);
}

static void
test_gift_unknown_tags (void)
{
  g_autoptr(GmlQuestionBank) bank =
    import_ok ("// [tag:chapter-2] [tag:exam] [tag:Difficulty-1]\n::q::T{=a ~b ~c ~d}\n",
               GML_MOODLE_FORMAT_GIFT, 1);
  const GmlQuestion *q = gml_question_bank_get (bank, 0);

  g_assert_cmpint (q->difficulty, ==, 1);
  /* No category: the topic given by the caller (the file's name in the CLI). */
  g_assert_cmpstr (q->topic, ==, "Teacher");
}

static const char good_xml[] =
  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
  "<quiz>\n"
  "<!-- question: 0 -->\n"
  "  <question type=\"category\">\n"
  "    <category><text>$course$/top/Allocator</text></category>\n"
  "    <info format=\"html\"><text></text></info>\n"
  "  </question>\n"
  "  <question type=\"multichoice\">\n"
  "    <name><text>Caching allocator 1</text></name>\n"
  "    <questiontext format=\"html\">\n"
  "      <text><![CDATA[<p>What does <code>empty_cache()</code> return?<br>Pick one &amp; "
  "go.</p>]]></text>\n    </questiontext>\n"
  "    <generalfeedback format=\"html\"><text>Only &amp;lt;unused&amp;gt; cached "
  "&lt;b&gt;blocks&lt;/b&gt; go back.</text></generalfeedback>\n    "
  "<defaultgrade>1.0000000</defaultgrade>\n    "
  "<unknownelement><nested>ignored</nested></unknownelement>\n    "
  "<idnumber>empty-cache-x</idnumber>\n    <single>true</single>\n"
  "    <answer fraction=\"-33.33333\" format=\"html\"><text>Everything</text>"
  "<feedback format=\"html\"><text>No.</text></feedback></answer>\n"
  "    <answer fraction=\"100\" format=\"html\"><text><![CDATA[<p>Unused cached "
  "blocks</p>]]></text><feedback format=\"html\"><text><![CDATA[Right: <i>live</i> blocks "
  "stay.]]></text></feedback></answer>\n    <answer "
  "fraction=\"0\"><text>Nothing</text><feedback><text>It does return "
  "some.</text></feedback></answer>\n    <answer fraction=\"0\" format=\"plain_text\"><text>a &lt; "
  "b</text></answer>\n    "
  "<tags><tag><text>difficulty-1</text></tag><tag><text>unknown-tag</text></tag><tag><text>scenario-empty-cache</text></tag></tags>\n"
  "  </question>\n"
  "</quiz>\n";

static void
test_xml_good (void)
{
  g_autoptr(GmlQuestionBank) bank = import_ok (good_xml, GML_MOODLE_FORMAT_XML, 1);
  const GmlQuestion *q = gml_question_bank_get (bank, 0);

  g_assert_cmpstr (q->id, ==, "empty-cache-x");
  g_assert_cmpstr (q->topic, ==, "Allocator");
  g_assert_cmpint (q->difficulty, ==, 1);
  g_assert_cmpstr (q->scenario, ==, "empty-cache");
  g_assert_cmpstr (q->text, ==, "What does empty_cache() return?\nPick one & go.");
  g_assert_cmpstr (q->explanation, ==, "Only <unused> cached blocks go back.");
  g_assert_false (q->options[0].correct);
  g_assert_true (q->options[1].correct);
  g_assert_cmpstr (q->options[1].text, ==, "Unused cached blocks");
  g_assert_cmpstr (q->options[1].feedback, ==, "Right: live blocks stay.");
  g_assert_cmpstr (q->options[2].feedback, ==, "It does return some.");
  g_assert_cmpstr (q->options[3].text, ==, "a < b");
  /* No feedback in the file: filled in. */
  g_assert_true (*q->options[3].feedback != '\0');
}

#define XML_Q(ANSWERS) \
  "<quiz>\n<question type=\"multichoice\">\n<name><text>q</text></name>\n" \
  "<questiontext format=\"html\"><text>T</text></questiontext>\n" ANSWERS "</question>\n</quiz>\n"
#define A(F, T) "<answer fraction=\"" F "\"><text>" T "</text></answer>\n"

static void
test_xml_bad (void)
{
  /* Not well-formed: the line of the mismatched tag. */
  import_fails ("<quiz>\n<question type=\"multichoice\">\n<name><text>x</name>\n</quiz>\n",
                GML_MOODLE_FORMAT_XML, 3);
  /* Another question type. */
  import_fails ("<quiz>\n\n<question type=\"truefalse\">\n</question></quiz>",
                GML_MOODLE_FORMAT_XML, 3);
  /* No right answer; two right answers; partial credit; three options. */
  import_fails (XML_Q (A ("0", "a") A ("0", "b") A ("0", "c") A ("0", "d")), GML_MOODLE_FORMAT_XML,
                2);
  import_fails (XML_Q (A ("100", "a") A ("100", "b") A ("0", "c") A ("0", "d")),
                GML_MOODLE_FORMAT_XML, 2);
  import_fails (XML_Q (A ("100", "a") A ("50", "b") A ("0", "c") A ("0", "d")),
                GML_MOODLE_FORMAT_XML, 6);
  import_fails (XML_Q (A ("100", "a") A ("0", "b") A ("0", "c")), GML_MOODLE_FORMAT_XML, 2);
  /* An empty option text, caught by the bank's validation. */
  import_fails (XML_Q (A ("100", "a") A ("0", " ") A ("0", "c") A ("0", "d")),
                GML_MOODLE_FORMAT_XML, 2);
  /* No quiz at all. */
  import_fails ("<html><body/></html>", GML_MOODLE_FORMAT_XML, 1);
}

static const char good_aiken[] =
  "What is the default page size the lab's simulated GPU counts in?\n"
  "A) 4 KiB\n"
  "B) 2 MiB\n"
  "C. 1 GiB\n"
  "D. 512 bytes\n"
  "ANSWER: B\n"
  "\n"
  "Which call frees cached blocks?\n"
  "A. torch.cuda.empty_cache()\n"
  "B. del x\n"
  "C. gc.collect()\n"
  "D. torch.cuda.synchronize()\n"
  "ANSWER: A\n";

static void
test_aiken (void)
{
  g_autoptr(GmlQuestionBank) bank = import_ok (good_aiken, GML_MOODLE_FORMAT_AIKEN, 2);
  const GmlQuestion *q = gml_question_bank_get (bank, 0);

  g_assert_cmpstr (q->text, ==, "What is the default page size the lab's simulated GPU counts in?");
  g_assert_cmpstr (q->options[1].text, ==, "2 MiB");
  g_assert_true (q->options[1].correct);
  g_assert_false (q->options[0].correct);
  g_assert_cmpstr (q->topic, ==, "Teacher");
  g_assert_cmpstr (q->id, ==, "teacher-1");
  g_assert_true (gml_question_bank_get (bank, 1)->options[0].correct);

  import_fails ("Q?\nA) a\nB) b\nC) c\nD) d\nANSWER: E\n", GML_MOODLE_FORMAT_AIKEN, 6);
  import_fails ("Q?\nA) a\nB) b\nC) c\nD) d\n\nNext?\nA) a\n", GML_MOODLE_FORMAT_AIKEN, 1);
  import_fails ("Q?\nA) a\nB) b\nANSWER: A\n", GML_MOODLE_FORMAT_AIKEN, 1);
}

/* A block of "- TITLE: URL" lines after a heading and a blank line, at the end of the
 * general feedback, becomes the sources; anything else stays in the explanation. */
static const char sources_gift[] =
  "::s1::Q1?{\n=a #r\n~b #w\n~c #w\n~d #w\n"
  "####Because.\\n\\nKaynaklar\\:\\n- ZeRO\\: paper\\: arXiv\\:1910.02054\\n"
  "- CUDA semantics\\: https\\://docs.pytorch.org/docs/stable/notes/cuda.html\\#cuda-streams\n}\n"
  "\n"
  "::s2::Q2?{\n=a #r\n~b #w\n~c #w\n~d #w\n"
  "####Because.\\nSources\\:\\n- Not after a blank line\\: https\\://example.org/x\n}\n"
  "\n"
  "::s3::Q3?{\n=a #r\n~b #w\n~c #w\n~d #w\n"
  "####Because.\\n\\nSources\\:\\n- Plain http\\: http\\://example.org/x\n}\n";

static void
test_sources_block (void)
{
  g_autoptr(GmlQuestionBank) bank = import_ok (sources_gift, GML_MOODLE_FORMAT_GIFT, 3);
  const GmlQuestion *q1 = gml_question_bank_get (bank, 0);
  const GmlQuestion *q2 = gml_question_bank_get (bank, 1);
  const GmlQuestion *q3 = gml_question_bank_get (bank, 2);

  g_assert_cmpstr (q1->explanation, ==, "Because.");
  g_assert_cmpuint (q1->n_sources, ==, 2);
  g_assert_cmpstr (q1->sources[0].title, ==, "ZeRO: paper");
  g_assert_cmpstr (q1->sources[0].url, ==, "arXiv:1910.02054");
  g_assert_cmpstr (q1->sources[1].url, ==,
                   "https://docs.pytorch.org/docs/stable/notes/cuda.html#cuda-streams");

  /* No blank line before the heading, or an address the bank would refuse: not sources. */
  g_assert_cmpuint (q2->n_sources, ==, 0);
  g_assert_nonnull (strstr (q2->explanation, "https://example.org/x"));
  g_assert_cmpuint (q3->n_sources, ==, 0);
  g_assert_nonnull (strstr (q3->explanation, "http://example.org/x"));
}

static void
test_detect (void)
{
  g_assert_cmpint (gml_moodle_detect_format ("x.gift", "", 0), ==, GML_MOODLE_FORMAT_GIFT);
  g_assert_cmpint (gml_moodle_detect_format ("x.XML", "", 0), ==, GML_MOODLE_FORMAT_XML);
  g_assert_cmpint (gml_moodle_detect_format ("x.txt", good_aiken, strlen (good_aiken)), ==,
                   GML_MOODLE_FORMAT_AIKEN);
  g_assert_cmpint (gml_moodle_detect_format ("x.txt", good_gift, strlen (good_gift)), ==,
                   GML_MOODLE_FORMAT_GIFT);
  g_assert_cmpint (gml_moodle_detect_format (NULL, good_xml, strlen (good_xml)), ==,
                   GML_MOODLE_FORMAT_XML);
  g_assert_cmpint (gml_moodle_detect_format ("x.txt", "hello", 5), ==, GML_MOODLE_FORMAT_UNKNOWN);
  g_assert_cmpint (gml_moodle_format_from_name ("moodle-xml"), ==, GML_MOODLE_FORMAT_XML);
  g_assert_cmpint (gml_moodle_format_from_name ("GIFT"), ==, GML_MOODLE_FORMAT_UNKNOWN);
}

/* Export the whole built-in bank and import it back: every question comes back with
 * the text, options, right answer, feedback, explanation, topic, difficulty and
 * scenario the app shows in that language (options in source order). */
static void
test_round_trip (gconstpointer data)
{
  const char *lang = data;
  g_autoptr(GmlQuestionBank) bank = gml_test_load_bank_file ();
  g_autoptr(GError) error = NULL;
  guint order[GML_N_OPTIONS];

  gml_question_identity_order (order);
  gml_i18n_set_language (lang);

  for (GmlMoodleFormat format = GML_MOODLE_FORMAT_GIFT; format <= GML_MOODLE_FORMAT_XML; format++)
    {
      g_autoptr(GmlQuestionBank) back = gml_question_bank_new ();
      g_autofree char *exported = NULL;
      g_autofree char *json = NULL;
      gsize length = 0;
      guint n = 0;

      exported = gml_moodle_export (bank, format, &length);
      json = gml_moodle_import (exported, length, format, "round-trip", "none", &n, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (n, ==, gml_question_bank_get_n_questions (bank));
      g_assert_true (gml_question_bank_load_data (back, json, strlen (json), "back", FALSE,
                                                  &error));
      g_assert_no_error (error);

      for (guint i = 0; i < n; i++)
        {
          const GmlQuestion *q = gml_question_bank_get (bank, i);
          const GmlQuestion *r = gml_question_bank_get (back, i);
          g_autofree char *text = gml_question_format (q, q->text, order);
          g_autofree char *explanation = gml_question_format (q, q->explanation, order);

          g_test_message ("%s %d %s", lang, format, q->id);
          g_assert_cmpstr (r->id, ==, q->id);
          g_assert_cmpstr (r->topic, ==, gml_question_translate (q, q->topic));
          g_assert_cmpint (r->difficulty, ==, q->difficulty);
          g_assert_cmpstr (r->scenario, ==, q->scenario);
          g_assert_cmpstr (r->text, ==, text);
          g_assert_cmpstr (r->explanation, ==, explanation);
          /* The sources travel in the general feedback and come back as sources. */
          g_assert_cmpuint (r->n_sources, ==, q->n_sources);
          for (guint s = 0; s < q->n_sources; s++)
            {
              g_autofree char *link = gml_source_dup_link (&q->sources[s]);

              g_assert_cmpstr (r->sources[s].title, ==, q->sources[s].title);
              g_assert_cmpstr (r->sources[s].url, ==, link);
            }
          for (guint o = 0; o < GML_N_OPTIONS; o++)
            {
              g_autofree char *option = gml_question_format (q, q->options[o].text, order);
              g_autofree char *feedback = gml_question_format (q, q->options[o].feedback, order);

              g_assert_cmpstr (r->options[o].text, ==, option);
              g_assert_cmpstr (r->options[o].feedback, ==, feedback);
              g_assert_cmpint (r->options[o].correct, ==, q->options[o].correct);
            }
        }
    }

  /* The Turkish export really is Turkish (the catalogue was found). */
  if (g_str_equal (lang, "tr"))
    {
      g_autofree char *gift = gml_moodle_export (bank, GML_MOODLE_FORMAT_GIFT, NULL);

      g_assert_nonnull (strstr (gift, "GPU Bellek Laboratuvarı"));
    }
  gml_i18n_set_language (NULL);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/moodle/gift/good", test_gift_good);
  g_test_add_func ("/moodle/gift/bad", test_gift_bad);
  g_test_add_func ("/moodle/gift/unknown-tags", test_gift_unknown_tags);
  g_test_add_func ("/moodle/xml/good", test_xml_good);
  g_test_add_func ("/moodle/xml/bad", test_xml_bad);
  g_test_add_func ("/moodle/aiken", test_aiken);
  g_test_add_func ("/moodle/detect", test_detect);
  g_test_add_func ("/moodle/gift/sources", test_sources_block);
  g_test_add_data_func ("/moodle/round-trip/en", "en", test_round_trip);
  g_test_add_data_func ("/moodle/round-trip/tr", "tr", test_round_trip);

  return g_test_run ();
}

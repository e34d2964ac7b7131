/* test-question-bank.c — loading, validation, shuffling and placeholders.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>

#include "gml-i18n.h"
#include "gml-question-bank.h"
#include "gml-test-common.h"

#define OPTION(id, correct) \
  "{\"id\":\"" id "\",\"text\":\"Option " id "\",\"feedback\":\"Feedback " id "\",\"correct\":" correct "}"

#define QUESTION(id, extra) \
  "{\"id\":\"" id "\",\"topic\":\"Topic\",\"difficulty\":2,\"scenario\":\"oom\"," \
  "\"text\":\"Which one?\",\"explanation\":\"({b}) is right, ({a}) and ({d}) are not.\"," \
  "\"options\":[" OPTION ("a", "false") "," OPTION ("b", "true") "," OPTION ("c", "false") "," \
  OPTION ("d", "false") "]" extra "}"

#define SOURCE(url) "{\"title\":\"A document\",\"url\":\"" url "\"}"

static const char *good_bank = "{\"questions\":[" QUESTION ("q1", "") "," QUESTION ("q2", "") "]}";

static void
test_load_builtin_file (void)
{
  g_autofree char *path = gml_test_source_path ("data", "questions", "gpu-memory.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (gml_question_bank_load_file (bank, file, TRUE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gml_question_bank_get_n_questions (bank), >=, 6);

  for (guint i = 0; i < gml_question_bank_get_n_questions (bank); i++)
    {
      const GmlQuestion *q = gml_question_bank_get (bank, i);
      guint n_correct = 0;

      g_assert_true (gml_scenario_is_known (q->scenario));
      for (guint j = 0; j < GML_N_OPTIONS; j++)
        n_correct += q->options[j].correct;
      g_assert_cmpuint (n_correct, ==, 1);
    }
  g_assert_cmpstr (gml_question_bank_get (bank, 0)->id, ==, "oom-meaning");
}

static void
test_load_good (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;
  const GmlQuestion *q;

  g_assert_true (gml_question_bank_load_data (bank, good_bank, strlen (good_bank), "good.json",
                                              FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gml_question_bank_get_n_questions (bank), ==, 2);
  q = gml_question_bank_lookup (bank, "q2");
  g_assert_nonnull (q);
  g_assert_cmpint (q->difficulty, ==, 2);
  g_assert_true (q->options[1].correct);
  g_assert_cmpint (gml_question_bank_index_of (bank, "q2"), ==, 1);
  g_assert_null (gml_question_bank_lookup (bank, "nope"));
}

/* An import read in a worker joins the window's bank: every question moves, or,
 * when one id is taken, none does and both banks stay whole. */
static void
test_take_all (void)
{
  static const char *more = "{\"questions\":[" QUESTION ("q3", "") "," QUESTION ("q4", "") "]}";
  static const char *clash = "{\"questions\":[" QUESTION ("q5", "") "," QUESTION ("q1", "") "]}";
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GmlQuestionBank) imported = gml_question_bank_new ();
  g_autoptr(GmlQuestionBank) clashing = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (gml_question_bank_load_data (bank, good_bank, strlen (good_bank), "good.json",
                                              FALSE, &error));
  g_assert_true (gml_question_bank_load_data (imported, more, strlen (more), "more.json", FALSE,
                                              &error));
  g_assert_true (gml_question_bank_load_data (clashing, clash, strlen (clash), "clash.json",
                                              FALSE, &error));
  g_assert_no_error (error);

  g_assert_true (gml_question_bank_take_all (bank, imported, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gml_question_bank_get_n_questions (bank), ==, 4);
  g_assert_cmpuint (gml_question_bank_get_n_questions (imported), ==, 0);
  g_assert_null (gml_question_bank_lookup (imported, "q3"));
  g_assert_cmpint (gml_question_bank_index_of (bank, "q4"), ==, 3);
  g_assert_cmpstr (gml_question_bank_lookup (bank, "q3")->origin, ==, "more.json");

  g_assert_false (gml_question_bank_take_all (bank, clashing, &error));
  g_assert_error (error, GML_BANK_ERROR, GML_BANK_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "clash.json"));
  g_assert_nonnull (strstr (error->message, "q1"));
  g_assert_cmpuint (gml_question_bank_get_n_questions (bank), ==, 4);
  g_assert_null (gml_question_bank_lookup (bank, "q5"));
  g_assert_cmpuint (gml_question_bank_get_n_questions (clashing), ==, 2);
  g_assert_nonnull (gml_question_bank_lookup (clashing, "q5"));
}

typedef struct
{
  const char *name;
  const char *json;
  const char *expected[4];   /* substrings the message must contain */
} InvalidCase;

static const InvalidCase invalid_cases[] = {
  { "empty", "", { "bad.json", NULL } },
  { "not-json", "{\"questions\": [", { "bad.json", NULL } },
  { "no-list", "{\"items\": []}", { "bad.json", "questions", NULL } },
  { "three-options",
    "{\"questions\":[{\"id\":\"q3\",\"topic\":\"T\",\"difficulty\":1,\"scenario\":\"oom\",\"text\":\"x\","
    "\"explanation\":\"y\",\"options\":[" OPTION ("a", "true") "," OPTION ("b", "false") ","
    OPTION ("c", "false") "]}]}",
    { "bad.json", "q3", "options", "three" } },
  { "two-correct",
    "{\"questions\":[{\"id\":\"q4\",\"topic\":\"T\",\"difficulty\":1,\"scenario\":\"oom\",\"text\":\"x\","
    "\"explanation\":\"y\",\"options\":[" OPTION ("a", "true") "," OPTION ("b", "true") ","
    OPTION ("c", "false") "," OPTION ("d", "false") "]}]}",
    { "bad.json", "q4", "options", "2" } },
  { "no-correct",
    "{\"questions\":[{\"id\":\"q5\",\"topic\":\"T\",\"difficulty\":1,\"scenario\":\"oom\",\"text\":\"x\","
    "\"explanation\":\"y\",\"options\":[" OPTION ("a", "false") "," OPTION ("b", "false") ","
    OPTION ("c", "false") "," OPTION ("d", "false") "]}]}",
    { "q5", "options", "0", NULL } },
  { "difficulty-4", "{\"questions\":[" QUESTION ("q6", ",\"difficulty\":4") "]}",
    { "q6", "difficulty", NULL } },
  { "difficulty-string", "{\"questions\":[" QUESTION ("q6b", ",\"difficulty\":\"2\"") "]}",
    { "q6b", "difficulty", NULL } },
  { "unknown-scenario", "{\"questions\":[" QUESTION ("q7", ",\"scenario\":\"lasers\"") "]}",
    { "q7", "scenario", "lasers", NULL } },
  { "empty-text", "{\"questions\":[" QUESTION ("q8", ",\"text\":\"   \"") "]}",
    { "q8", "text", NULL } },
  { "missing-explanation", "{\"questions\":[" QUESTION ("q9", ",\"explanation\":null") "]}",
    { "q9", "explanation", NULL } },
  { "duplicate-id", "{\"questions\":[" QUESTION ("dup", "") "," QUESTION ("dup", "") "]}",
    { "dup", "id", NULL } },
  { "bad-placeholder", "{\"questions\":[" QUESTION ("q10", ",\"explanation\":\"see ({e})\"") "]}",
    { "q10", "explanation", "e", NULL } },
  { "bad-id", "{\"questions\":[" QUESTION ("has space", "") "]}", { "#1", "id", NULL } },
  { "option-not-object",
    "{\"questions\":[{\"id\":\"q11\",\"topic\":\"T\",\"difficulty\":1,\"scenario\":\"oom\",\"text\":\"x\","
    "\"explanation\":\"y\",\"options\":[1,2,3,4]}]}",
    { "q11", "options[0]", NULL } },
  { "sources-not-list", "{\"questions\":[" QUESTION ("q20", ",\"sources\":\"see the docs\"") "]}",
    { "q20", "sources", NULL } },
  { "sources-empty", "{\"questions\":[" QUESTION ("q21", ",\"sources\":[]") "]}",
    { "q21", "sources", NULL } },
  { "source-not-object", "{\"questions\":[" QUESTION ("q22", ",\"sources\":[1]") "]}",
    { "q22", "sources[0]", NULL } },
  { "source-no-title",
    "{\"questions\":[" QUESTION ("q23",
                                 ",\"sources\":[{\"url\":\"https://docs.pytorch.org/\"}]") "]}",
    { "q23", "sources[0].title", NULL } },
  { "source-http",
    "{\"questions\":[" QUESTION ("q24", ",\"sources\":[" SOURCE ("http://example.org/") "]") "]}",
    { "q24", "sources[0].url", "http://example.org/", NULL } },
  { "source-javascript", "{\"questions\":[" QUESTION ("q25", ",\"sources\":[" SOURCE ("https://docs.pytorch.org/") "," SOURCE ("javascript:alert(1)") "]") "]}",
    { "q25", "sources[1].url", "javascript", NULL } },
  { "source-bad-arxiv",
    "{\"questions\":[" QUESTION ("q26", ",\"sources\":[" SOURCE ("arXiv:19.1") "]") "]}",
    { "q26", "sources[0].url", NULL } },
  { "source-dot-dot", "{\"questions\":[" QUESTION ("q27", ",\"sources\":[" SOURCE ("pytorch/pytorch/../../etc/passwd") "]") "]}",
    { "q27", "sources[0].url", NULL } },
  { "source-user",
    "{\"questions\":[" QUESTION ("q28",
                                 ",\"sources\":[" SOURCE ("https://user@example.org/") "]") "]}",
    { "q28", "sources[0].url", NULL } },
  { "source-space",
    "{\"questions\":[" QUESTION ("q29",
                                 ",\"sources\":[" SOURCE ("https://example.org/a b") "]") "]}",
    { "q29", "sources[0].url", NULL } },
  { "source-no-host",
    "{\"questions\":[" QUESTION ("q30", ",\"sources\":[" SOURCE ("https:///etc/passwd") "]") "]}",
    { "q30", "sources[0].url", NULL } },
  { "empty-feedback",
    "{\"questions\":[{\"id\":\"q12\",\"topic\":\"T\",\"difficulty\":1,\"scenario\":\"oom\",\"text\":\"x\","
    "\"explanation\":\"y\",\"options\":[" OPTION ("a", "true") "," OPTION ("b", "false") ","
    OPTION ("c", "false") ",{\"id\":\"d\",\"text\":\"t\",\"feedback\":\"\",\"correct\":false}]}]}",
    { "q12", "options[3].feedback", NULL } },
  /* The experiment beside a question: its kind and every parameter are checked. */
  { "experiment-not-object",
    "{\"questions\":[" QUESTION ("e1", ",\"experiment\":\"rounding\"") "]}",
    { "bad.json", "e1", "experiment", NULL } },
  { "experiment-bad-kind",
    "{\"questions\":[" QUESTION ("e2", ",\"experiment\":{\"kind\":\"lasers\"}") "]}",
    { "e2", "experiment.kind", "lasers", "segment-size" } },
  { "experiment-no-kind",
    "{\"questions\":[" QUESTION ("e3", ",\"experiment\":{\"request\":\"3 MiB\"}") "]}",
    { "e3", "experiment.kind", NULL } },
  { "experiment-missing-parameter",
    "{\"questions\":[" QUESTION ("e4", ",\"experiment\":{\"kind\":\"rounding\"}") "]}",
    { "e4", "experiment.request", NULL } },
  { "experiment-size-wrong-type",
    "{\"questions\":[" QUESTION ("e5",
                                 ",\"experiment\":{\"kind\":\"rounding\",\"request\":true}") "]}",
    { "e5", "experiment.request", "3 MiB", NULL } },
  { "experiment-size-bad-unit",
    "{\"questions\":[" QUESTION ("e6",
                                 ",\"experiment\":{\"kind\":\"rounding\",\"request\":\"3 "
                                 "parsecs\"}") "]}",
    { "e6", "experiment.request", NULL } },
  { "experiment-size-negative",
    "{\"questions\":[" QUESTION ("e7",
                                 ",\"experiment\":{\"kind\":\"segment-size\",\"request\":\"-3 "
                                 "MiB\"}") "]}",
    { "e7", "experiment.request", NULL } },
  { "experiment-size-too-large",
    "{\"questions\":[" QUESTION ("e8", ",\"experiment\":{\"kind\":\"rounding\",\"request\":\"900 GiB\"}") "]}",
    { "e8", "experiment.request", "256 MiB", NULL } },
  { "experiment-count-not-whole",
    "{\"questions\":[" QUESTION ("e9",
                                 ",\"experiment\":{\"kind\":\"batch-size\",\"from\":\"32\"}") "]}",
    { "e9", "experiment.from", NULL } },
  { "experiment-count-out-of-range",
    "{\"questions\":[" QUESTION ("e10", ",\"experiment\":{\"kind\":\"zero\",\"gpus\":1}") "]}",
    { "e10", "experiment.gpus", "2", "64" } },
  { "experiment-bad-choice",
    "{\"questions\":[" QUESTION ("e11", ",\"experiment\":{\"kind\":\"streams\",\"point\":\"sideways\"}") "]}",
    { "e11", "experiment.point", "sideways", "free-too-early" } },
  { "experiment-unknown-parameter",
    "{\"questions\":[" QUESTION ("e12", ",\"experiment\":{\"kind\":\"rounding\",\"request\":512,\"reqest\":1}") "]}",
    { "e12", "experiment.reqest", "request", NULL } },
  { "experiment-bool-wrong-type",
    "{\"questions\":[" QUESTION ("e13", ",\"experiment\":{\"kind\":\"max-split\",\"compare\":\"yes\"}") "]}",
    { "e13", "experiment.compare", NULL } },
  { "experiment-rule-between-parameters",
    "{\"questions\":[" QUESTION ("e14",
                                 ",\"experiment\":{\"kind\":\"new-segment\",\"first\":\"9 "
                                 "MiB\",\"second\":\"12 MiB\"}") "]}",
    { "e14", "experiment.second", NULL } },
  { "experiment-max-split-not-whole-mib",
    "{\"questions\":[" QUESTION ("e15",
                                 ",\"experiment\":{\"kind\":\"max-split\",\"max_split\":\"64.5 "
                                 "MiB\"}") "]}",
    { "e15", "experiment.max_split", NULL } },
};

/* A question without an experiment gets its scenario's; one with an experiment keeps
 * its own numbers, whatever way they are written. */
static void
test_experiment_field (void)
{
  static const char *bank_json =
    "{\"questions\":["
    QUESTION ("plain", ",\"scenario\":\"fragmentation\"") ","
    QUESTION ("sized", ",\"experiment\":{\"kind\":\"rounding\",\"request\":\"11 MiB\"}") ","
    QUESTION ("bytes", ",\"experiment\":{\"kind\":\"rounding\",\"request\":1000}") ","
    QUESTION ("decimal", ",\"experiment\":{\"kind\":\"oom-message\",\"allocated\":\"30.00 GiB\","
                          "\"unallocated\":\"6 GB\",\"point\":\"unallocated\"}") "]}";
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *plain = NULL;
  g_autofree char *sized = NULL;
  g_autofree char *bytes = NULL;
  g_autofree char *decimal = NULL;

  g_assert_true (gml_question_bank_load_data (bank, bank_json, strlen (bank_json), "e.json", FALSE,
                                              &error));
  g_assert_no_error (error);
  plain = gml_picture_script_to_string (gml_question_bank_lookup (bank, "plain")->picture_script);
  sized = gml_picture_script_to_string (gml_question_bank_lookup (bank, "sized")->picture_script);
  bytes = gml_picture_script_to_string (gml_question_bank_lookup (bank, "bytes")->picture_script);
  decimal = gml_picture_script_to_string (gml_question_bank_lookup (bank, "decimal")->picture_script);
  g_assert_cmpstr (plain, ==, "fragmentation point=meaning");
  g_assert_cmpstr (sized, ==, "rounding request=11534336");
  g_assert_cmpstr (bytes, ==, "rounding request=1000");
  g_assert_true (g_str_has_prefix (decimal, "oom-message point=unallocated allocated=32212254720 "
                                            "unallocated=6000000000 "));
  g_assert_true (g_str_has_suffix (decimal, " units=decimal"));
}

static void
test_parse_size (void)
{
  static const struct { const char *text; guint64 bytes; gboolean ok; gboolean decimal; } cases[] =
      {
    { "3 MiB", 3145728, TRUE, FALSE }, { "20.00 MiB", 20971520, TRUE, FALSE },
    { "1.5 GiB", 1610612736, TRUE, FALSE }, { "6 GB", 6000000000, TRUE, TRUE },
    { "1000", 1000, TRUE, FALSE }, { "1000 B", 1000, TRUE, FALSE }, { " 512 bytes ", 512, TRUE, FALSE },
    { "10.40 GiB", 11166914970, TRUE, FALSE },
    { "", 0, FALSE, FALSE }, { "MiB", 0, FALSE, FALSE }, { "-3 MiB", 0, FALSE, FALSE },
    { "3 mib", 0, FALSE, FALSE }, { "1e9", 0, FALSE, FALSE }, { "2.5", 0, FALSE, FALSE },
    { "inf GiB", 0, FALSE, FALSE }, { "99999999999 TiB", 0, FALSE, FALSE }, { ".5 MiB", 0, FALSE, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint64 bytes = 0;
      gboolean decimal = FALSE;

      g_assert_cmpint (gml_parse_size (cases[i].text, GML_SIZE_UNITS, &bytes, &decimal), ==,
                       cases[i].ok);
      if (cases[i].ok)
        {
          g_assert_cmpuint (bytes, ==, cases[i].bytes);
          g_assert_cmpint (decimal, ==, cases[i].decimal);
        }
    }
}

static void
test_invalid (gconstpointer data)
{
  const InvalidCase *c = data;
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;

  g_assert_false (gml_question_bank_load_data (bank, c->json, strlen (c->json), "bad.json", FALSE,
                                               &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == GML_BANK_ERROR);
  for (guint i = 0; i < G_N_ELEMENTS (c->expected) && c->expected[i] != NULL; i++)
    {
      /* "three" stands for the count, which is printed as a number. */
      const char *want = g_str_equal (c->expected[i], "three") ? "3" : c->expected[i];

      if (strstr (error->message, want) == NULL)
        g_error ("“%s” does not mention “%s”", error->message, want);
    }
  /* Nothing of a broken file is kept. */
  g_assert_cmpuint (gml_question_bank_get_n_questions (bank), ==, 0);
}

/* Sources in the three forms, as written and as the links a browser opens; the free-text
 * "source" of earlier banks is still accepted. */
static void
test_sources (void)
{
  static const char *json =
    "{\"questions\":[" QUESTION ("s1", ",\"source\":\"notes, chapter 2\",\"sources\":["
                                  SOURCE ("https://docs.pytorch.org/docs/stable/notes/cuda.html#cuda-streams") ","
                                  SOURCE ("arXiv:1910.02054") "," SOURCE ("arXiv:cs/0112017v2") ","
                                  SOURCE ("pytorch/pytorch/c10/cuda/CUDACachingAllocator.cpp") "]")
    "," QUESTION ("s2", "") "]}";
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;
  const GmlQuestion *q;
  const char *links[] = {
    "https://docs.pytorch.org/docs/stable/notes/cuda.html#cuda-streams",
    "https://arxiv.org/abs/1910.02054",
    "https://arxiv.org/abs/cs/0112017v2",
    "https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDACachingAllocator.cpp",
  };

  g_assert_true (gml_question_bank_load_data (bank, json, strlen (json), "user.json", FALSE,
                                              &error));
  g_assert_no_error (error);
  q = gml_question_bank_lookup (bank, "s1");
  g_assert_cmpuint (q->n_sources, ==, G_N_ELEMENTS (links));
  for (guint i = 0; i < q->n_sources; i++)
    {
      g_autofree char *link = gml_source_dup_link (&q->sources[i]);

      g_assert_cmpstr (q->sources[i].title, ==, "A document");
      g_assert_cmpstr (link, ==, links[i]);
    }
  /* A user's bank may name no source. */
  g_assert_cmpuint (gml_question_bank_lookup (bank, "s2")->n_sources, ==, 0);

  g_assert_false (gml_source_url_is_valid ("pytorch/pytorch/"));
  g_assert_false (gml_source_url_is_valid ("pytorch/pytorch/a//b"));
  g_assert_false (gml_source_url_is_valid ("pytorch/pytorch/./a"));
  g_assert_true (gml_source_url_is_valid ("pytorch/pytorch/.github/workflows/lint.yml"));
  g_assert_false (gml_source_url_is_valid ("arXiv:1910.02"));
  g_assert_false (gml_source_url_is_valid ("https://example"));
  g_assert_false (gml_source_url_is_valid ("https://example.org:8080/"));
  g_assert_false (gml_source_url_is_valid ("file:///etc/passwd"));
  g_assert_false (gml_source_url_is_valid (""));
}

/* The built-in bank must name a source for every question. */
static void
test_builtin_needs_sources (void)
{
  static const char *json = "{\"questions\":[" QUESTION ("b1", "") "]}";
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;

  g_assert_false (gml_question_bank_load_data (bank, json, strlen (json), "builtin.json", TRUE,
                                               &error));
  g_assert_error (error, GML_BANK_ERROR, GML_BANK_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "b1"));
  g_assert_nonnull (strstr (error->message, "sources"));
}

static void
test_invalid_utf8 (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;
  const char data[] = "{\"questions\":[\"\xff\xfe\"]}";

  g_assert_false (gml_question_bank_load_data (bank, data, sizeof data - 1, "bad.json", FALSE,
                                               &error));
  g_assert_error (error, GML_BANK_ERROR, GML_BANK_ERROR_PARSE);
}

static void
test_user_dir (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gml-bank-XXXXXX", NULL);
  g_autofree char *good = g_build_filename (dir, "a-good.json", NULL);
  g_autofree char *bad = g_build_filename (dir, "b-bad.json", NULL);
  g_autofree char *other = g_build_filename (dir, "notes.txt", NULL);
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);

  g_assert_true (g_file_set_contents (good, good_bank, -1, NULL));
  g_assert_true (g_file_set_contents (bad, "{\"questions\": 3}", -1, NULL));
  g_assert_true (g_file_set_contents (other, "not a bank", -1, NULL));

  g_assert_cmpuint (gml_question_bank_load_user_dir (bank, dir, errors), ==, 2);
  g_assert_cmpuint (errors->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (errors, 0), "b-bad.json"));
  g_assert_false (gml_question_bank_get (bank, 0)->builtin);

  g_unlink (good);
  g_unlink (bad);
  g_unlink (other);
  g_rmdir (dir);
}

static void
test_shuffle_is_permutation (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  guint seen_first[GML_N_OPTIONS] = { 0 };

  for (guint round = 0; round < 400; round++)
    {
      guint order[GML_N_OPTIONS];
      guint used = 0;

      gml_question_shuffle_order (order, rand);
      for (guint i = 0; i < GML_N_OPTIONS; i++)
        {
          g_assert_cmpuint (order[i], <, GML_N_OPTIONS);
          used |= 1u << order[i];
        }
      g_assert_cmpuint (used, ==, 0xf);
      seen_first[order[0]]++;
    }
  /* Every option comes first sometimes: the shuffle really moves them. */
  for (guint i = 0; i < GML_N_OPTIONS; i++)
    g_assert_cmpuint (seen_first[i], >, 50);
}

static void
test_placeholders_follow_letters (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  const GmlQuestion *q;
  guint identity[GML_N_OPTIONS];
  /* Shown: c, a, d, b — so source b is shown as "d", a as "b", d as "c". */
  const guint order[GML_N_OPTIONS] = { 2, 0, 3, 1 };
  g_autofree char *plain = NULL;
  g_autofree char *shuffled = NULL;

  g_assert_true (gml_question_bank_load_data (bank, good_bank, strlen (good_bank), "good.json",
                                              FALSE, NULL));
  q = gml_question_bank_get (bank, 0);

  gml_question_identity_order (identity);
  plain = gml_question_format (q, q->explanation, identity);
  g_assert_cmpstr (plain, ==, "(b) is right, (a) and (d) are not.");

  shuffled = gml_question_format (q, q->explanation, order);
  g_assert_cmpstr (shuffled, ==, "(d) is right, (b) and (c) are not.");
  g_assert_cmpuint (gml_question_correct_position (q, order), ==, 3);
  g_assert_cmpuint (gml_question_correct_position (q, identity), ==, 1);
}

static void
test_filter (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_test_load_bank_file ();
  g_autoptr(GArray) all = NULL;
  g_autoptr(GArray) hard = NULL;
  g_autoptr(GArray) topic = NULL;
  g_autoptr(GPtrArray) topics = NULL;

  all = gml_question_bank_filter (bank, NULL, 0);
  g_assert_cmpuint (all->len, ==, gml_question_bank_get_n_questions (bank));

  hard = gml_question_bank_filter (bank, NULL, 2);
  for (guint i = 0; i < hard->len; i++)
    g_assert_cmpint (gml_question_bank_get (bank, g_array_index (hard, guint, i))->difficulty, ==,
                     2);
  g_assert_cmpuint (hard->len, <, all->len);

  topics = gml_question_bank_dup_topics (bank);
  g_assert_cmpuint (topics->len, >=, 6);
  topic = gml_question_bank_filter (bank, g_ptr_array_index (topics, 0), 0);
  g_assert_cmpuint (topic->len, >=, 1);
  for (guint i = 0; i < topic->len; i++)
    g_assert_cmpstr (gml_question_bank_get (bank, g_array_index (topic, guint, i))->topic, ==,
                     g_ptr_array_index (topics, 0));
}

/* The built-in bank in Turkish, without shuffling, is the seed's text. */
static void
test_turkish_translation (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_test_load_bank_file ();
  const GmlQuestion *q;
  guint identity[GML_N_OPTIONS];
  g_autofree char *explanation = NULL;

  gml_question_identity_order (identity);
  q = gml_question_bank_get (bank, 0);

  gml_i18n_set_language ("tr");
  g_assert_cmpstr (gml_i18n_get_language (), ==, "tr");
  g_assert_cmpstr (gml_question_translate (q, q->options[2].text), ==,
                   "CUDA sürücü sürümü, kurulu PyTorch derlemesiyle uyumsuzdur.");
  explanation = gml_question_format (q, q->explanation, identity);
  g_assert_nonnull (strstr (explanation, "(a) host-RAM hatasını anlatır"));

  gml_i18n_set_language ("en");
  g_assert_cmpstr (gml_i18n_get_language (), ==, "en");
  g_assert_cmpstr (gml_question_translate (q, q->options[2].text), ==, q->options[2].text);
  gml_i18n_set_language (NULL);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/bank/load-builtin-file", test_load_builtin_file);
  g_test_add_func ("/core/bank/load-good", test_load_good);
  g_test_add_func ("/core/bank/take-all", test_take_all);
  for (guint i = 0; i < G_N_ELEMENTS (invalid_cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/core/bank/invalid/%s", invalid_cases[i].name);

      g_test_add_data_func (name, &invalid_cases[i], test_invalid);
    }
  g_test_add_func ("/core/bank/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/core/bank/sources", test_sources);
  g_test_add_func ("/core/bank/builtin-needs-sources", test_builtin_needs_sources);
  g_test_add_func ("/core/bank/experiment", test_experiment_field);
  g_test_add_func ("/core/bank/parse-size", test_parse_size);
  g_test_add_func ("/core/bank/user-dir", test_user_dir);
  g_test_add_func ("/core/bank/shuffle", test_shuffle_is_permutation);
  g_test_add_func ("/core/bank/placeholders", test_placeholders_follow_letters);
  g_test_add_func ("/core/bank/filter", test_filter);
  g_test_add_func ("/core/bank/turkish", test_turkish_translation);

  return g_test_run ();
}

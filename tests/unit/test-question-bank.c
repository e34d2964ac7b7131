/* test-question-bank.c — loading, validation, shuffling and placeholders.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>

#include "gml-i18n.h"
#include "gml-question-bank.h"

#define OPTION(id, correct) \
  "{\"id\":\"" id "\",\"text\":\"Option " id "\",\"feedback\":\"Feedback " id "\",\"correct\":" correct "}"

#define QUESTION(id, extra) \
  "{\"id\":\"" id "\",\"topic\":\"Topic\",\"difficulty\":2,\"scenario\":\"oom\"," \
  "\"text\":\"Which one?\",\"explanation\":\"({b}) is right, ({a}) and ({d}) are not.\"," \
  "\"options\":[" OPTION ("a", "false") "," OPTION ("b", "true") "," OPTION ("c", "false") "," \
  OPTION ("d", "false") "]" extra "}"

static const char *good_bank = "{\"questions\":[" QUESTION ("q1", "") "," QUESTION ("q2", "") "]}";

static char *
source_path (const char *relative)
{
  return g_build_filename (g_getenv ("GML_SOURCE_ROOT"), relative, NULL);
}

static void
test_load_builtin_file (void)
{
  g_autofree char *path = source_path ("data/questions/gpu-memory.json");
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

  g_assert_true (gml_question_bank_load_data (bank, good_bank, strlen (good_bank), "good.json", FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gml_question_bank_get_n_questions (bank), ==, 2);
  q = gml_question_bank_lookup (bank, "q2");
  g_assert_nonnull (q);
  g_assert_cmpint (q->difficulty, ==, 2);
  g_assert_true (q->options[1].correct);
  g_assert_cmpint (gml_question_bank_index_of (bank, "q2"), ==, 1);
  g_assert_null (gml_question_bank_lookup (bank, "nope"));
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
  { "difficulty-4", "{\"questions\":[" QUESTION ("q6", ",\"difficulty\":4") "]}", { "q6", "difficulty", NULL } },
  { "difficulty-string", "{\"questions\":[" QUESTION ("q6b", ",\"difficulty\":\"2\"") "]}", { "q6b", "difficulty", NULL } },
  { "unknown-scenario", "{\"questions\":[" QUESTION ("q7", ",\"scenario\":\"lasers\"") "]}",
    { "q7", "scenario", "lasers", NULL } },
  { "empty-text", "{\"questions\":[" QUESTION ("q8", ",\"text\":\"   \"") "]}", { "q8", "text", NULL } },
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
  { "empty-feedback",
    "{\"questions\":[{\"id\":\"q12\",\"topic\":\"T\",\"difficulty\":1,\"scenario\":\"oom\",\"text\":\"x\","
    "\"explanation\":\"y\",\"options\":[" OPTION ("a", "true") "," OPTION ("b", "false") ","
    OPTION ("c", "false") ",{\"id\":\"d\",\"text\":\"t\",\"feedback\":\"\",\"correct\":false}]}]}",
    { "q12", "options[3].feedback", NULL } },
  /* The experiment beside a question: its kind and every parameter are checked. */
  { "experiment-not-object", "{\"questions\":[" QUESTION ("e1", ",\"experiment\":\"rounding\"") "]}",
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
    "{\"questions\":[" QUESTION ("e5", ",\"experiment\":{\"kind\":\"rounding\",\"request\":true}") "]}",
    { "e5", "experiment.request", "3 MiB", NULL } },
  { "experiment-size-bad-unit",
    "{\"questions\":[" QUESTION ("e6", ",\"experiment\":{\"kind\":\"rounding\",\"request\":\"3 parsecs\"}") "]}",
    { "e6", "experiment.request", NULL } },
  { "experiment-size-negative",
    "{\"questions\":[" QUESTION ("e7", ",\"experiment\":{\"kind\":\"segment-size\",\"request\":\"-3 MiB\"}") "]}",
    { "e7", "experiment.request", NULL } },
  { "experiment-size-too-large",
    "{\"questions\":[" QUESTION ("e8", ",\"experiment\":{\"kind\":\"rounding\",\"request\":\"900 GiB\"}") "]}",
    { "e8", "experiment.request", "256 MiB", NULL } },
  { "experiment-count-not-whole",
    "{\"questions\":[" QUESTION ("e9", ",\"experiment\":{\"kind\":\"batch-size\",\"from\":\"32\"}") "]}",
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
    "{\"questions\":[" QUESTION ("e14", ",\"experiment\":{\"kind\":\"new-segment\",\"first\":\"9 MiB\",\"second\":\"12 MiB\"}") "]}",
    { "e14", "experiment.second", NULL } },
  { "experiment-max-split-not-whole-mib",
    "{\"questions\":[" QUESTION ("e15", ",\"experiment\":{\"kind\":\"max-split\",\"max_split\":\"64.5 MiB\"}") "]}",
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

  g_assert_true (gml_question_bank_load_data (bank, bank_json, strlen (bank_json), "e.json", FALSE, &error));
  g_assert_no_error (error);
  plain = gml_experiment_to_string (gml_question_bank_lookup (bank, "plain")->experiment);
  sized = gml_experiment_to_string (gml_question_bank_lookup (bank, "sized")->experiment);
  bytes = gml_experiment_to_string (gml_question_bank_lookup (bank, "bytes")->experiment);
  decimal = gml_experiment_to_string (gml_question_bank_lookup (bank, "decimal")->experiment);
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
  static const struct { const char *text; guint64 bytes; gboolean ok; gboolean decimal; } cases[] = {
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

      g_assert_cmpint (gml_parse_size (cases[i].text, &bytes, &decimal), ==, cases[i].ok);
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

  g_assert_false (gml_question_bank_load_data (bank, c->json, strlen (c->json), "bad.json", FALSE, &error));
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

static void
test_invalid_utf8 (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;
  const char data[] = "{\"questions\":[\"\xff\xfe\"]}";

  g_assert_false (gml_question_bank_load_data (bank, data, sizeof data - 1, "bad.json", FALSE, &error));
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

  g_assert_true (gml_question_bank_load_data (bank, good_bank, strlen (good_bank), "good.json", FALSE, NULL));
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
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autofree char *path = source_path ("data/questions/gpu-memory.json");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GArray) all = NULL;
  g_autoptr(GArray) hard = NULL;
  g_autoptr(GArray) topic = NULL;
  g_autoptr(GPtrArray) topics = NULL;

  g_assert_true (gml_question_bank_load_file (bank, file, TRUE, NULL));
  all = gml_question_bank_filter (bank, NULL, 0);
  g_assert_cmpuint (all->len, ==, gml_question_bank_get_n_questions (bank));

  hard = gml_question_bank_filter (bank, NULL, 2);
  for (guint i = 0; i < hard->len; i++)
    g_assert_cmpint (gml_question_bank_get (bank, g_array_index (hard, guint, i))->difficulty, ==, 2);
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
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autofree char *path = source_path ("data/questions/gpu-memory.json");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  const GmlQuestion *q;
  guint identity[GML_N_OPTIONS];
  g_autofree char *explanation = NULL;

  g_assert_true (gml_question_bank_load_file (bank, file, TRUE, NULL));
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
  for (guint i = 0; i < G_N_ELEMENTS (invalid_cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/core/bank/invalid/%s", invalid_cases[i].name);

      g_test_add_data_func (name, &invalid_cases[i], test_invalid);
    }
  g_test_add_func ("/core/bank/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/core/bank/experiment", test_experiment_field);
  g_test_add_func ("/core/bank/parse-size", test_parse_size);
  g_test_add_func ("/core/bank/user-dir", test_user_dir);
  g_test_add_func ("/core/bank/shuffle", test_shuffle_is_permutation);
  g_test_add_func ("/core/bank/placeholders", test_placeholders_follow_letters);
  g_test_add_func ("/core/bank/filter", test_filter);
  g_test_add_func ("/core/bank/turkish", test_turkish_translation);

  return g_test_run ();
}

/* test-render-stats.c — the statistics picture on an image surface, and its words.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>

#include "gml-i18n.h"
#include "gml-render.h"
#include "gml-render-stats.h"

/* 2025-03-10 12:00 UTC. */
#define NOW G_GINT64_CONSTANT (1741608000)
#define DAY G_GINT64_CONSTANT (86400)

static const char bank_json[] =
  "{\"questions\": ["
#define Q(ID, TOPIC, D) \
  "{\"id\": \"" ID "\", \"topic\": \"" TOPIC "\", \"difficulty\": " D ", \"scenario\": \"oom\"," \
  " \"text\": \"Text\", \"explanation\": \"Because.\", \"options\": [" \
  "{\"id\": \"a\", \"text\": \"A\", \"feedback\": \"f\", \"correct\": true}," \
  "{\"id\": \"b\", \"text\": \"B\", \"feedback\": \"f\", \"correct\": false}," \
  "{\"id\": \"c\", \"text\": \"C\", \"feedback\": \"f\", \"correct\": false}," \
  "{\"id\": \"d\", \"text\": \"D\", \"feedback\": \"f\", \"correct\": false}]}"
  Q ("q1", "Alpha", "1") "," Q ("q2", "Alpha", "2") "," Q ("q3", "Beta", "3")
  "]}";

static gboolean
has_colour (cairo_surface_t *surface,
            const double     rgb[3])
{
  int w = cairo_image_surface_get_width (surface);
  int h = cairo_image_surface_get_height (surface);
  int stride = cairo_image_surface_get_stride (surface);
  const guint8 *data = cairo_image_surface_get_data (surface);
  guint8 r = (guint8) (rgb[0] * 255 + 0.5), g = (guint8) (rgb[1] * 255 + 0.5), b = (guint8) (rgb[2] * 255 + 0.5);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        guint32 px = *(const guint32 *) (data + y * stride + 4 * x);

        /* Cairo's conversion from double may round either way. */
        if (ABS ((int) ((px >> 16) & 0xff) - r) <= 1 && ABS ((int) ((px >> 8) & 0xff) - g) <= 1 &&
            ABS ((int) (px & 0xff) - b) <= 1)
          return TRUE;
      }
  return FALSE;
}

/* The longest horizontal run of pixels of exactly that colour, anywhere. */
static int
longest_run (cairo_surface_t *surface,
             const double     rgb[3])
{
  int w = cairo_image_surface_get_width (surface);
  int h = cairo_image_surface_get_height (surface);
  int stride = cairo_image_surface_get_stride (surface);
  const guint8 *data = cairo_image_surface_get_data (surface);
  guint8 r = (guint8) (rgb[0] * 255 + 0.5), g = (guint8) (rgb[1] * 255 + 0.5), b = (guint8) (rgb[2] * 255 + 0.5);
  int best = 0;

  for (int y = 0; y < h; y++)
    {
      int run = 0;

      for (int x = 0; x < w; x++)
        {
          guint32 px = *(const guint32 *) (data + y * stride + 4 * x);

          if (ABS ((int) ((px >> 16) & 0xff) - r) <= 1 && ABS ((int) ((px >> 8) & 0xff) - g) <= 1 &&
              ABS ((int) (px & 0xff) - b) <= 1)
            best = MAX (best, ++run);
          else
            run = 0;
        }
    }
  return best;
}

static void
test_stats (void)
{
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autofree char *dir = g_dir_make_tmp ("gml-stats-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "progress.json", NULL);
  g_autoptr(GmlProgress) progress = gml_progress_new (path);
  g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();
  g_autofree char *description = NULL;
  GmlStatsData data;
  GmlStatsStyle style;
  cairo_surface_t *surface;
  cairo_t *cr;
  int height;

  g_assert_true (gml_question_bank_load_data (bank, bank_json, strlen (bank_json), "t", FALSE,
                                              NULL));
  gml_progress_record (progress, "q1", "a", TRUE, 1, NOW - 3600, NULL);
  gml_progress_record (progress, "q2", "b", FALSE, 1, NOW - 3600, NULL);
  gml_progress_record (progress, "q3", "a", TRUE, 1, NOW - 2 * DAY, NULL);
  gml_progress_record (progress, "q1", "a", TRUE, 1, NOW - 30 * DAY, NULL);   /* out of the 14 days
                                                                               */
  gml_progress_record (progress, "gone", "a", FALSE, 1, NOW, NULL);           /* a removed bank */

  gml_stats_data_init (&data, progress, bank, utc, NOW);
  g_assert_cmpuint (data.answered, ==, 5);
  g_assert_cmpuint (data.right, ==, 3);
  g_assert_cmpuint (data.days->len, ==, GML_STATS_N_DAYS);
  g_assert_cmpuint (g_array_index (data.days, GmlStatsBar, GML_STATS_N_DAYS - 1).answered, ==, 3);
  g_assert_cmpuint (g_array_index (data.days, GmlStatsBar, GML_STATS_N_DAYS - 1).right, ==, 1);
  g_assert_cmpuint (g_array_index (data.days, GmlStatsBar, GML_STATS_N_DAYS - 3).answered, ==, 1);
  g_assert_cmpuint (data.topics->len, ==, 2);
  g_assert_cmpstr (g_array_index (data.topics, GmlStatsBar, 0).label, ==, "Alpha");
  g_assert_cmpuint (g_array_index (data.topics, GmlStatsBar, 0).answered, ==, 3);
  g_assert_cmpuint (g_array_index (data.topics, GmlStatsBar, 0).right, ==, 2);
  g_assert_cmpuint (g_array_index (data.difficulties, GmlStatsBar, 0).answered, ==, 2);
  g_assert_cmpuint (g_array_index (data.difficulties, GmlStatsBar, 1).right, ==, 0);
  g_assert_cmpuint (g_array_index (data.difficulties, GmlStatsBar, 2).right, ==, 1);

  description = gml_describe_stats (&data);
  g_test_message ("%s", description);
  g_assert_nonnull (strstr (description, "5 answers, 3 right (60%)"));
  g_assert_nonnull (strstr (description, "Alpha: 3 answers, 2 right (67%)"));
  g_assert_nonnull (strstr (description, "Beta: 1 answer, 1 right (100%)"));
  g_assert_nonnull (strstr (description, "Difficulty 2: 1 answer, 0 right (0%)"));

  gml_stats_style_init (&style, FALSE, FALSE);
  height = (int) gml_stats_height_for (&data, &style);
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 720, height);
  cr = cairo_create (surface);
  gml_render_stats (cr, &data, &style, 720, height);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  /* Both the right and the wrong share are drawn. */
  g_assert_true (has_colour (surface, style.right));
  g_assert_true (has_colour (surface, style.wrong));
  /* And told apart by pattern too: right is solid (long runs of its colour), wrong
   * hatched (its colour only in the stripes' short runs). */
  g_assert_cmpint (longest_run (surface, style.right), >=, 20);
  g_assert_cmpint (longest_run (surface, style.wrong), >, 0);
  g_assert_cmpint (longest_run (surface, style.wrong), <=, 5);
  if (g_getenv ("GML_STATS_PNG") != NULL)
    cairo_surface_write_to_png (surface, g_getenv ("GML_STATS_PNG"));
  cairo_surface_destroy (surface);

  /* In the window the app's own background shows through. */
  {
    static const double marker[3] = { 1.0, 0.0, 1.0 };

    style.paint_background = FALSE;
    surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 720, height);
    cr = cairo_create (surface);
    cairo_set_source_rgb (cr, marker[0], marker[1], marker[2]);
    cairo_paint (cr);
    gml_render_stats (cr, &data, &style, 720, height);
    cairo_destroy (cr);
    cairo_surface_flush (surface);
    g_assert_cmphex (*(const guint32 *) cairo_image_surface_get_data (surface) & 0xffffff, ==,
                     0xff00ff);
    g_assert_true (has_colour (surface, style.right));
    cairo_surface_destroy (surface);
  }

  gml_stats_data_clear (&data);
  g_remove (path);
  g_rmdir (dir);
}

/* A topic's whole name is shown, even a long Turkish one in a narrow window: the
 * label has a line of its own above its bar (it was cut at 30 % of the width). */
static void
test_long_topics (void)
{
  static const char * const topics[] = {
    "Gradyan checkpointing ve aktivasyonların yeniden hesaplanması",
    "Önbelleğe alan allocator ve empty_cache() ile parçalanma",
    "Mixed precision: autocast ve ZeRO düzeni",
  };
  GmlStatsData data = { 0 };
  GmlStatsStyle style;
  g_autoptr(GArray) log = gml_label_log_new ();
  cairo_surface_t *surface;
  cairo_t *cr;
  int height;
  guint found = 0;

  data.days = g_array_new (FALSE, TRUE, sizeof (GmlStatsBar));
  data.topics = g_array_new (FALSE, TRUE, sizeof (GmlStatsBar));
  data.difficulties = g_array_new (FALSE, TRUE, sizeof (GmlStatsBar));
  for (guint i = 0; i < GML_STATS_N_DAYS; i++)
    {
      GmlStatsBar day = { g_strdup ("1 Ara"), i, i / 2 };

      g_array_append_val (data.days, day);
    }
  for (guint i = 0; i < G_N_ELEMENTS (topics); i++)
    {
      GmlStatsBar bar = { g_strdup (topics[i]), 10 + i, 5 };

      g_array_append_val (data.topics, bar);
    }
  for (guint i = 0; i < 3; i++)
    {
      GmlStatsBar bar = { g_strdup_printf ("Zorluk %u", i + 1), 3, 1 };

      g_array_append_val (data.difficulties, bar);
    }
  data.answered = 33;
  data.right = 15;

  gml_stats_style_init (&style, FALSE, FALSE);
  style.label_log = log;
  height = (int) gml_stats_height_for (&data, &style);
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 560, height);
  cr = cairo_create (surface);
  gml_render_stats (cr, &data, &style, 560, height);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);

  for (guint i = 0; i < log->len; i++)
    {
      const GmlLabel *label = &g_array_index (log, GmlLabel, i);

      for (guint t = 0; t < G_N_ELEMENTS (topics); t++)
        if (g_str_equal (label->text, topics[t]))
          {
            found++;
            g_assert_false (label->ellipsized);
            g_assert_cmpfloat (label->ink.x + label->ink.width, <=, 560);
          }
      g_assert_cmpfloat (label->ink.y + label->ink.height, <=, height);
    }
  g_assert_cmpuint (found, ==, G_N_ELEMENTS (topics));
  gml_stats_data_clear (&data);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  /* The numbers and labels are checked in English. */
  gml_i18n_set_language ("en");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/review/render-stats", test_stats);
  g_test_add_func ("/review/render-stats/long-topics", test_long_topics);

  return g_test_run ();
}

/* gml-render-stats.c — the statistics picture: answers per day, per topic and per
 * difficulty, and the share right. Pure Cairo + Pango, no widgets: the view draws it,
 * and the same words are given to screen readers by gml_describe_stats().
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-render-stats"

#include "config.h"

#include <math.h>

#include "gml-i18n.h"
#include <pango/pangocairo.h>

#include "gml-render.h"
#include "gml-render-stats.h"

#define MARGIN 16.0
#define BAR_HEIGHT 22.0
#define DAY_CHART_HEIGHT 120.0

static void
clear_bar (GmlStatsBar *bar)
{
  g_clear_pointer (&bar->label, g_free);
}

static GArray *
bars_new (void)
{
  GArray *bars = g_array_new (FALSE, TRUE, sizeof (GmlStatsBar));

  g_array_set_clear_func (bars, (GDestroyNotify) clear_bar);
  return bars;
}

static guint
percent (guint right,
         guint answered)
{
  return answered == 0 ? 0 : (right * 100 + answered / 2) / answered;
}

/* Counts the whole log; days are calendar days in @tz ending with the day of @now. */
void
gml_stats_data_init (GmlStatsData    *data,
                     GmlProgress     *progress,
                     GmlQuestionBank *bank,
                     GTimeZone       *tz,
                     gint64           now)
{
  g_autoptr(GDateTime) now_utc = g_date_time_new_from_unix_utc (now);
  g_autoptr(GDateTime) now_local = g_date_time_to_timezone (now_utc, tz);
  g_autoptr(GDateTime) today = g_date_time_new (tz, g_date_time_get_year (now_local),
                                                g_date_time_get_month (now_local),
                                                g_date_time_get_day_of_month (now_local), 0, 0, 0);
  g_autoptr(GPtrArray) topics = gml_question_bank_dup_topics (bank);
  g_autofree GmlStatsBar *per_topic = g_new0 (GmlStatsBar, topics->len);
  gint64 day_start[GML_STATS_N_DAYS + 1];

  memset (data, 0, sizeof *data);
  data->days = bars_new ();
  data->topics = bars_new ();
  data->difficulties = bars_new ();

  for (int i = 0; i <= GML_STATS_N_DAYS; i++)
    {
      g_autoptr(GDateTime) day = g_date_time_add_days (today, i - (GML_STATS_N_DAYS - 1));

      day_start[i] = g_date_time_to_unix (day);
      if (i < GML_STATS_N_DAYS)
        {
          /* Translators: a day on the statistics chart, in g_date_time_format() format:
           * "%-d %b" gives "8 Mar"; %b is the month's abbreviation from this catalogue. */
          GmlStatsBar bar = { gml_i18n_format_date (day, _("%-d %b")), 0, 0 };

          g_array_append_val (data->days, bar);
        }
    }
  for (int d = 1; d <= 3; d++)
    {
      GmlStatsBar bar = { g_strdup_printf (_("Difficulty %d"), d), 0, 0 };

      g_array_append_val (data->difficulties, bar);
    }

  for (guint i = 0; i < gml_progress_get_n_answers (progress); i++)
    {
      const GmlAnswer *answer = gml_progress_get_answer (progress, i);
      const GmlQuestion *q = gml_question_bank_lookup (bank, answer->question);
      guint topic = 0;

      data->answered++;
      data->right += answer->correct;

      for (int d = 0; d < GML_STATS_N_DAYS; d++)
        if (answer->time >= day_start[d] && answer->time < day_start[d + 1])
          {
            GmlStatsBar *bar = &g_array_index (data->days, GmlStatsBar, d);

            bar->answered++;
            bar->right += answer->correct;
          }

      /* An answer to a question of a bank that is gone counts only in the totals. */
      if (q == NULL)
        continue;
      {
        GmlStatsBar *bar = &g_array_index (data->difficulties, GmlStatsBar, q->difficulty - 1);

        bar->answered++;
        bar->right += answer->correct;
      }
      if (g_ptr_array_find_with_equal_func (topics, q->topic, g_str_equal, &topic))
        {
          per_topic[topic].answered++;
          per_topic[topic].right += answer->correct;
        }
    }

  for (guint t = 0; t < topics->len; t++)
    if (per_topic[t].answered > 0)
      {
        const char *topic = g_ptr_array_index (topics, t);
        const GmlQuestion *any = NULL;
        GmlStatsBar bar = per_topic[t];

        /* Translate through a question of the topic: built-in topics are in the
         * catalogue, a teacher's are shown as written. */
        for (guint i = 0; i < gml_question_bank_get_n_questions (bank) && any == NULL; i++)
          if (g_str_equal (gml_question_bank_get (bank, i)->topic, topic))
            any = gml_question_bank_get (bank, i);
        bar.label = g_strdup (any != NULL ? gml_question_translate (any, topic) : topic);
        g_array_append_val (data->topics, bar);
      }
}

void
gml_stats_data_clear (GmlStatsData *data)
{
  g_clear_pointer (&data->days, g_array_unref);
  g_clear_pointer (&data->topics, g_array_unref);
  g_clear_pointer (&data->difficulties, g_array_unref);
}

static void
set_rgb (double       target[3],
         double       r,
         double       g,
         double       b)
{
  target[0] = r;
  target[1] = g;
  target[2] = b;
}

/* GNOME's palette: green 4 / red 3 on light, lighter ones on dark; pure colours with
 * thicker lines in high contrast. */
void
gml_stats_style_init (GmlStatsStyle *style,
                      gboolean       dark,
                      gboolean       high_contrast)
{
  memset (style, 0, sizeof *style);
  style->font_size = 13;
  style->paint_background = TRUE;
  style->line_width = high_contrast ? 2 : 1;
  if (dark)
    {
      set_rgb (style->background, 0.14, 0.14, 0.14);
      set_rgb (style->foreground, 1, 1, 1);
      set_rgb (style->dim, 0.75, 0.75, 0.75);
      set_rgb (style->right, 0.34, 0.89, 0.54);
      set_rgb (style->wrong, 1.0, 0.48, 0.39);
    }
  else
    {
      set_rgb (style->background, 1, 1, 1);
      set_rgb (style->foreground, 0.0, 0.0, 0.0);
      set_rgb (style->dim, 0.35, 0.35, 0.35);
      set_rgb (style->right, 0.15, 0.64, 0.41);
      set_rgb (style->wrong, 0.88, 0.11, 0.14);
    }
  if (high_contrast)
    {
      set_rgb (style->dim, style->foreground[0], style->foreground[1], style->foreground[2]);
      if (dark)
        set_rgb (style->right, 0.0, 1.0, 0.4);
      else
        set_rgb (style->right, 0.0, 0.45, 0.15);
    }
}

/* A bar's row: its label on a line of its own, at the picture's width, then the
 * bar and its numbers, so that no topic's name is cut. */
#define ROW_HEIGHT (2 * BAR_HEIGHT + 6)

static double
section_height (guint n_bars)
{
  return 2 * BAR_HEIGHT + n_bars * ROW_HEIGHT;
}

/* The height the picture needs at its style's font size; it draws in any size. */
double
gml_stats_height_for (const GmlStatsData  *data,
                      const GmlStatsStyle *style)
{
  return MARGIN + 3 * BAR_HEIGHT + 10 + DAY_CHART_HEIGHT + 3 * BAR_HEIGHT +
         section_height (MAX (data->topics->len, 1)) + section_height (3) + MARGIN;
}

static void
text_at (cairo_t             *cr,
         const GmlStatsStyle *style,
         const char          *text,
         double               x,
         double               y,
         double               max_width,
         double               align,     /* 0 left, 0.5 centre, 1 right */
         gboolean             bold,
         const double         color[3])
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_new ();
  int w, h;

  pango_font_description_set_family (font, "Sans");
  pango_font_description_set_absolute_size (font, style->font_size * PANGO_SCALE);
  if (bold)
    pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  if (max_width > 0)
    {
      pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
      pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
    }
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_set_source_rgb (cr, color[0], color[1], color[2]);
  cairo_move_to (cr, x - align * w, y);
  pango_cairo_show_layout (cr, layout);
  if (style->label_log != NULL)
    {
      GmlLabel label = { 0 };

      label.text = g_strdup (text);
      label.ink = (GmlRect) { x - align * w, y, w, h };
      label.ellipsized = pango_layout_is_ellipsized (layout);
      g_array_append_val (style->label_log, label);
    }
  pango_font_description_free (font);
  g_object_unref (layout);
}

static char *
bar_summary (const GmlStatsBar *bar)
{
  g_autofree char *answered = g_strdup_printf ("%u", bar->answered);
  g_autofree char *right = g_strdup_printf ("%u", bar->right);
  g_autofree char *share = g_strdup_printf ("%u", percent (bar->right, bar->answered));

  /* Translators: %1$s answers, %2$s of them right, %3$s percent right, e.g.
   * "12 answers, 9 right (75%)". */
  return g_strdup_printf (ngettext ("%1$s answer, %2$s right (%3$s%%)",
                                       "%1$s answers, %2$s right (%3$s%%)", bar->answered),
                          answered, right, share);
}

/* One share of a bar. The right share is solid; the wrong share a light wash of
 * its colour under diagonal stripes of it, so that right and wrong differ by
 * pattern as well as by colour (and in grey print). */
static void
fill_share (cairo_t             *cr,
            const GmlStatsStyle *style,
            gboolean             right,
            double               x,
            double               y,
            double               w,
            double               h)
{
  if (w <= 0 || h <= 0)
    return;
  if (right)
    {
      cairo_set_source_rgb (cr, style->right[0], style->right[1], style->right[2]);
      cairo_rectangle (cr, x, y, w, h);
      cairo_fill (cr);
      return;
    }
  cairo_save (cr);
  cairo_rectangle (cr, x, y, w, h);
  cairo_clip (cr);
  cairo_set_source_rgba (cr, style->wrong[0], style->wrong[1], style->wrong[2], 0.3);
  cairo_paint (cr);
  cairo_set_source_rgb (cr, style->wrong[0], style->wrong[1], style->wrong[2]);
  cairo_set_line_width (cr, 2.0);
  /* Stripes every 6 px, anchored to the picture, so neighbouring bars line up. */
  for (double d = floor ((x - h) / 6) * 6; d < x + w; d += 6)
    {
      cairo_move_to (cr, d, y + h);
      cairo_line_to (cr, d + h, y);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* Horizontal bars: the label above, then right (solid) and wrong (hatched) parts,
 * then the numbers. */
static double
draw_bars (cairo_t             *cr,
           const GmlStatsStyle *style,
           const char          *title,
           GArray              *bars,
           double               y,
           double               width)
{
  double numbers_width = MIN (230, width * 0.35);
  double bar_x = MARGIN;
  double bar_width = MAX (10, width - bar_x - numbers_width - MARGIN - 8);
  guint most = 1;

  text_at (cr, style, title, MARGIN, y, width - 2 * MARGIN, 0, TRUE, style->foreground);
  y += BAR_HEIGHT + 4;

  for (guint i = 0; i < bars->len; i++)
    most = MAX (most, g_array_index (bars, GmlStatsBar, i).answered);

  if (bars->len == 0)
    text_at (cr, style, _("No answers yet"), MARGIN, y, width - 2 * MARGIN, 0, FALSE, style->dim);

  for (guint i = 0; i < bars->len; i++)
    {
      const GmlStatsBar *bar = &g_array_index (bars, GmlStatsBar, i);
      g_autofree char *summary = bar_summary (bar);
      double full = bar_width * bar->answered / most;
      double right = bar->answered == 0 ? 0 : full * bar->right / bar->answered;

      text_at (cr, style, bar->label, MARGIN, y, width - 2 * MARGIN, 0, FALSE, style->foreground);
      y += BAR_HEIGHT;
      fill_share (cr, style, TRUE, bar_x, y + 2, right, BAR_HEIGHT - 6);
      fill_share (cr, style, FALSE, bar_x + right, y + 2, full - right, BAR_HEIGHT - 6);
      text_at (cr, style, summary, bar_x + bar_width + 8, y, numbers_width, 0, FALSE, style->dim);
      y += BAR_HEIGHT + 6;
    }
  return y + BAR_HEIGHT;
}

void
gml_render_stats (cairo_t             *cr,
                  const GmlStatsData  *data,
                  const GmlStatsStyle *style,
                  int                  width,
                  int                  height)
{
  GmlStatsBar total = { NULL, data->answered, data->right };
  g_autofree char *summary = bar_summary (&total);
  double y = MARGIN;
  double chart_width = width - 2 * MARGIN;
  double slot = chart_width / GML_STATS_N_DAYS;
  guint most = 1;

  cairo_save (cr);
  if (style->paint_background)
    {
      cairo_set_source_rgb (cr, style->background[0], style->background[1], style->background[2]);
      cairo_paint (cr);
    }
  cairo_set_line_width (cr, style->line_width);

  /* Totals with the share right, large enough to read from the back of a room. */
  text_at (cr, style, summary, MARGIN, y, chart_width, 0, TRUE, style->foreground);
  y += BAR_HEIGHT + 4;

  /* The key: which fill is which, in words. */
  fill_share (cr, style, TRUE, MARGIN, y + 3, 24, BAR_HEIGHT - 8);
  text_at (cr, style, _("Right"), MARGIN + 30, y, 0, 0, FALSE, style->foreground);
  fill_share (cr, style, FALSE, MARGIN + 140, y + 3, 24, BAR_HEIGHT - 8);
  text_at (cr, style, _("Wrong"), MARGIN + 170, y, 0, 0, FALSE, style->foreground);
  y += 2 * BAR_HEIGHT + 6;

  /* Answers per day: stacked columns, right at the bottom. */
  text_at (cr, style, _("Answers per day"), MARGIN, y - BAR_HEIGHT * 0.8, chart_width, 0, TRUE,
           style->foreground);
  for (guint i = 0; i < data->days->len; i++)
    most = MAX (most, g_array_index (data->days, GmlStatsBar, i).answered);
  for (guint i = 0; i < data->days->len; i++)
    {
      const GmlStatsBar *bar = &g_array_index (data->days, GmlStatsBar, i);
      double x = MARGIN + i * slot + slot * 0.15;
      double w = slot * 0.7;
      double full = (DAY_CHART_HEIGHT - BAR_HEIGHT) * bar->answered / most;
      double right = bar->answered == 0 ? 0 : full * bar->right / bar->answered;
      double base = y + DAY_CHART_HEIGHT;
      g_autofree char *count = g_strdup_printf ("%u", bar->answered);

      fill_share (cr, style, TRUE, x, base - right, w, right);
      fill_share (cr, style, FALSE, x, base - full, w, full - right);
      if (bar->answered > 0)
        text_at (cr, style, count, x + w / 2, base - full - BAR_HEIGHT, slot, 0.5, FALSE,
                 style->foreground);
      /* Every other day's date, so the labels do not collide on narrow windows. */
      if (i % 2 == (data->days->len - 1) % 2)
        text_at (cr, style, bar->label, x + w / 2, base + 4, 2 * slot, 0.5, FALSE, style->dim);
    }
  cairo_set_source_rgb (cr, style->dim[0], style->dim[1], style->dim[2]);
  cairo_move_to (cr, MARGIN, y + DAY_CHART_HEIGHT + 0.5);
  cairo_line_to (cr, MARGIN + chart_width, y + DAY_CHART_HEIGHT + 0.5);
  cairo_stroke (cr);
  y += DAY_CHART_HEIGHT + 3 * BAR_HEIGHT;

  y = draw_bars (cr, style, _("Per topic"), data->topics, y, width);
  draw_bars (cr, style, _("Per difficulty"), data->difficulties, y, width);

  cairo_restore (cr);
}

/* The picture in words for screen readers (and tests): every number drawn. */
char *
gml_describe_stats (const GmlStatsData *data)
{
  GmlStatsBar total = { NULL, data->answered, data->right };
  g_autofree char *summary = bar_summary (&total);
  g_autoptr(GString) out = g_string_new (NULL);
  struct { const char *title; GArray *bars; } sections[] = {
    { _("Answers per day"), data->days },
    { _("Per topic"), data->topics },
    { _("Per difficulty"), data->difficulties },
  };

  /* Translators: the start of the statistics' description, %s is e.g.
   * "12 answers, 9 right (75%)". */
  g_string_append_printf (out, _("Statistics: %s."), summary);
  for (guint s = 0; s < G_N_ELEMENTS (sections); s++)
    {
      g_autoptr(GString) items = g_string_new (NULL);

      for (guint i = 0; i < sections[s].bars->len; i++)
        {
          const GmlStatsBar *bar = &g_array_index (sections[s].bars, GmlStatsBar, i);
          g_autofree char *line = NULL;

          /* Days and levels without answers would only be noise when read aloud. */
          if (bar->answered == 0)
            continue;
          line = bar_summary (bar);
          g_string_append_printf (items, "%s%s: %s", items->len > 0 ? "; " : "", bar->label, line);
        }
      /* Translators: "none" stands for an empty list of statistics. */
      g_string_append_printf (out, " %s: %s.", sections[s].title,
                              items->len > 0 ? items->str : _("none"));
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

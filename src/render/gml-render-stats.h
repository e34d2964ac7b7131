/* gml-render-stats.h — the statistics picture: answers per day, per topic and per
 * difficulty, and the share right. Pure Cairo + Pango, no widgets.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <glib.h>

#include "gml-progress.h"
#include "gml-question-bank.h"

G_BEGIN_DECLS

#define GML_STATS_N_DAYS 14

typedef struct
{
  char  *label;      /* translated, as shown */
  guint  answered;
  guint  right;
} GmlStatsBar;

typedef struct
{
  GArray *days;           /* GmlStatsBar, the last GML_STATS_N_DAYS days, oldest first */
  GArray *topics;         /* GmlStatsBar, topics with answers, bank order */
  GArray *difficulties;   /* GmlStatsBar, difficulty 1..3 */
  guint   answered;
  guint   right;
} GmlStatsData;

typedef struct
{
  double background[3];
  double foreground[3];
  double dim[3];
  double right[3];
  double wrong[3];
  double line_width;
  double font_size;       /* pixels */
  gboolean paint_background;  /* FALSE in the window: the app's own background shows */
  /* When not NULL, every text drawn is appended as a GmlLabel (gml_label_log_new()),
   * its ink and whether it was cut short: tests read it. NULL normally. */
  GArray  *label_log;
} GmlStatsStyle;

void   gml_stats_data_init    (GmlStatsData     *data,
                               GmlProgress      *progress,
                               GmlQuestionBank  *bank,
                               GTimeZone        *tz,
                               gint64            now);
void   gml_stats_data_clear   (GmlStatsData     *data);
void   gml_stats_style_init   (GmlStatsStyle    *style,
                               gboolean          dark,
                               gboolean          high_contrast);
double gml_stats_height_for   (const GmlStatsData  *data,
                               const GmlStatsStyle *style);
void   gml_render_stats       (cairo_t             *cr,
                               const GmlStatsData  *data,
                               const GmlStatsStyle *style,
                               int                  width,
                               int                  height);
char  *gml_describe_stats     (const GmlStatsData  *data);

G_END_DECLS

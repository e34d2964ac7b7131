/* gml-stats-view.h — the statistics picture as a widget.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-progress.h"
#include "gml-question-bank.h"
#include "gml-render-stats.h"

G_BEGIN_DECLS

#define GML_TYPE_STATS_VIEW (gml_stats_view_get_type ())

G_DECLARE_FINAL_TYPE (GmlStatsView, gml_stats_view, GML, STATS_VIEW, GtkWidget)

GtkWidget  *gml_stats_view_new          (void);
void        gml_stats_view_update       (GmlStatsView    *self,
                                         GmlProgress     *progress,
                                         GmlQuestionBank *bank);
const char *gml_stats_view_get_description (GmlStatsView *self);
/* The palette it draws with now: the app's look (gml-look.h). */
void        gml_stats_view_get_style    (GmlStatsView    *self,
                                         GmlStatsStyle   *style);

G_END_DECLS

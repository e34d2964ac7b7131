/* gml-audience-view.h — audience mode on the projector: the address and its QR
 * code, how many joined and answered, and the room's split once revealed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-audience-server.h"

G_BEGIN_DECLS

#define GML_TYPE_AUDIENCE_VIEW (gml_audience_view_get_type ())

G_DECLARE_FINAL_TYPE (GmlAudienceView, gml_audience_view, GML, AUDIENCE_VIEW, GtkWidget)

void gml_audience_view_show         (GmlAudienceView   *self,
                                     GmlAudienceServer *server,
                                     const char        *error,
                                     gboolean           hide_split);
void gml_audience_view_set_qr_size  (GmlAudienceView   *self,
                                     int                size);

G_END_DECLS

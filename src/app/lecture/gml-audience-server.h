/* gml-audience-server.h — audience mode: the room answers from its phones.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "gml-audience-room.h"
#include "gml-presentation.h"

G_BEGIN_DECLS

#define GML_AUDIENCE_DEFAULT_PORT 8731

#define GML_TYPE_AUDIENCE_SERVER (gml_audience_server_get_type ())

G_DECLARE_FINAL_TYPE (GmlAudienceServer, gml_audience_server, GML, AUDIENCE_SERVER, GObject)

GmlAudienceServer *gml_audience_server_new           (GmlPresentation   *presentation);
gboolean           gml_audience_server_start         (GmlAudienceServer *self,
                                                      guint              port,
                                                      GError           **error);
void               gml_audience_server_stop          (GmlAudienceServer *self);
gboolean           gml_audience_server_is_running    (GmlAudienceServer *self);
const char        *gml_audience_server_get_url       (GmlAudienceServer *self);
GmlAudienceRoom   *gml_audience_server_get_room      (GmlAudienceServer *self);
char              *gml_audience_server_describe_split (GmlAudienceServer *self);

G_END_DECLS

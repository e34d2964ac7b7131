/* gml-live-page.h — the Live view: a running PyTorch program's GPU memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-live-session.h"

G_BEGIN_DECLS

#define GML_TYPE_LIVE_PAGE (gml_live_page_get_type ())

G_DECLARE_FINAL_TYPE (GmlLivePage, gml_live_page, GML, LIVE_PAGE, GtkWidget)

/* Runs @argv with the probe and shows it; FALSE and @error when it cannot start. */
gboolean        gml_live_page_watch_command (GmlLivePage        *self,
                                             const char * const *argv,
                                             double              interval,
                                             const char         *snapshot_dir,
                                             GError            **error);
/* Shows the probe at the other end of @socket, which sent @hello (both taken). */
void            gml_live_page_attach        (GmlLivePage        *self,
                                             GSocket            *socket,
                                             GmlProbeMessage    *hello);
/* Listens on the Live view's socket, where gml_probe.start() connects. */
void            gml_live_page_set_listening (GmlLivePage        *self,
                                             gboolean            listening);
GmlLiveSession *gml_live_page_get_session   (GmlLivePage        *self);
/* The program's command, and where it runs, or NULL when nothing is watched. */
const char     *gml_live_page_get_title     (GmlLivePage        *self);
const char     *gml_live_page_get_subtitle  (GmlLivePage        *self);

G_END_DECLS

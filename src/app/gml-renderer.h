/* gml-renderer.h — draw with Cairo where OpenGL is only a software rasterizer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

gboolean    gml_renderer_is_software_gl (const char  *gl_renderer);
const char *gml_renderer_choose         (GdkDisplay  *display,
                                         char       **gl_renderer);
gboolean    gml_renderer_x11_without_direct_rendering (void);
gboolean    gml_renderer_can_leave_out_gl (void);
void        gml_renderer_choose_cairo   (GdkDisplay  *display);

G_END_DECLS

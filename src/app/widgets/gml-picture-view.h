/* gml-picture-view.h — a thin widget over the render functions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-render.h"

G_BEGIN_DECLS

#define GML_TYPE_PICTURE_VIEW (gml_picture_view_get_type ())

G_DECLARE_FINAL_TYPE (GmlPictureView, gml_picture_view, GML, PICTURE_VIEW, GtkWidget)

GtkWidget  *gml_picture_view_new          (void);
/* @picture is borrowed; call gml_picture_view_changed() after changing it. */
void        gml_picture_view_set_picture  (GmlPictureView *self,
                                           GmlPicture     *picture);
void        gml_picture_view_set_view     (GmlPictureView *self,
                                           GmlView         view);
GmlView     gml_picture_view_get_view     (GmlPictureView *self);
void        gml_picture_view_changed      (GmlPictureView *self);
/* The style the picture is drawn in now (follows dark and high-contrast). */
void        gml_picture_view_get_style    (GmlPictureView *self,
                                           GmlRenderStyle *style);
const char *gml_picture_view_get_description (GmlPictureView *self);

G_END_DECLS

/* gml-render-private.h — helpers shared by the render functions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-render.h"

G_BEGIN_DECLS

#define GML_TEXT_BOLD 0x1

void    _gml_set_color      (cairo_t              *cr,
                             const GmlColor       *color);
void    _gml_set_color_alpha (cairo_t             *cr,
                              const GmlColor      *color,
                              double               alpha);
/* Draws @text with its top at @y; @align 0 = left of x, 0.5 = centred, 1 = right.
 * Returns the width drawn. */
double  _gml_text           (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             const char           *text,
                             double                x,
                             double                y,
                             double                scale,
                             guint                 flags,
                             const GmlColor       *color,
                             double                align);
void    _gml_text_size      (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             const char           *text,
                             double                scale,
                             guint                 flags,
                             double               *width,
                             double               *height);
/* Fills the current path with diagonal hatching over @fill. */
void    _gml_fill_hatched   (cairo_t              *cr,
                             const GmlColor       *fill,
                             const GmlColor       *hatch,
                             double                line_width);
void    _gml_background     (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             int                   width,
                             int                   height);

G_END_DECLS

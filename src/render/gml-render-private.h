/* gml-render-private.h — helpers shared by the render functions.
 *
 * Text: every label is drawn whole (never clipped, never cut inside a word) and
 * against a box it belongs in. _gml_label() draws where it is told; a layout
 * that cannot make room drops the label instead (_gml_label_try() says whether
 * a label fits its box and misses every label drawn so far). Every line drawn
 * is logged when the style carries a label log.
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
/* Black or white, whichever reads better on @fill. */
const GmlColor *_gml_ink_on (const GmlRenderStyle *style,
                             const GmlColor       *fill);
double  _gml_line_height    (const GmlRenderStyle *style);

/* Draws @text with its top at @y; @align 0 = left of x, 0.5 = centred, 1 = right.
 * Its owner is the whole canvas. Returns the width drawn. */
double  _gml_text           (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             const char           *text,
                             double                x,
                             double                y,
                             double                scale,
                             guint                 flags,
                             const GmlColor       *color,
                             double                align);
/* The same, placed in @owner (NULL: the canvas). */
double  _gml_label          (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             const char           *text,
                             double                x,
                             double                y,
                             double                scale,
                             guint                 flags,
                             const GmlColor       *color,
                             double                align,
                             const GmlRect        *owner);
/* Draws the label only if its ink stays inside @owner and off every label
 * drawn on this cairo_t so far; returns whether it was drawn. */
gboolean _gml_label_try     (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             const char           *text,
                             double                x,
                             double                y,
                             double                scale,
                             guint                 flags,
                             const GmlColor       *color,
                             double                align,
                             const GmlRect        *owner);
/* The time of value @value on an axis, in microseconds (a snapshot's time_us). */
typedef gint64 (*GmlAxisTimeFunc) (gsize         value,
                                   gconstpointer user_data);
/* The height _gml_axis_ticks() takes under a plot: a row of numbers, and a row
 * of seconds under it when @with_times. */
double  _gml_axis_ticks_height (const GmlRenderStyle *style,
                                gboolean              with_times);
/* Ticks under @plot for the values 0 … @n_values - 1, value v at
 * x = @plot->x + (v + @offset) * @px_per_value: at multiples of 1, 2 or 5 times
 * a power of ten, far enough apart for their numbers; under each number, when
 * @time_at is not NULL, the seconds since value 0. Numbers that would overlap
 * another label are left out. */
void    _gml_axis_ticks     (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             const GmlRect        *plot,
                             gsize                 n_values,
                             double                offset,
                             double                px_per_value,
                             GmlAxisTimeFunc       time_at,
                             gconstpointer         user_data);
void    _gml_text_size      (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             const char           *text,
                             double                scale,
                             guint                 flags,
                             double               *width,
                             double               *height);
/* @text wrapped at word boundaries into @width; drawn when @color is not NULL.
 * Returns its height; *@used_width gets the widest line. */
double  _gml_paragraph      (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             const char           *text,
                             double                x,
                             double                y,
                             double                width,
                             double                scale,
                             guint                 flags,
                             const GmlColor       *color,
                             const GmlRect        *owner,
                             double               *used_width);

/* A legend: items flow in lines, each a swatch and its words. */
typedef void (*GmlSwatchFunc) (cairo_t              *cr,
                               const GmlRenderStyle *style,
                               const GmlRect        *box,
                               gconstpointer         data);
typedef struct
{
  const char    *text;
  GmlSwatchFunc  swatch;
  gconstpointer  data;
} GmlLegendItem;

/* Lays out (and draws, when @draw) the items in @area's width from its top;
 * returns the height they take. */
double  _gml_legend         (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             const GmlLegendItem  *items,
                             guint                 n_items,
                             const GmlRect        *area,
                             gboolean              draw);
/* Swatch of a GmlMemoryKind given as GINT_TO_POINTER (kind). */
void    _gml_swatch_kind    (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             const GmlRect        *box,
                             gconstpointer         data);
/* Swatch of the question's mark: the outline drawn around what it is about. */
void    _gml_swatch_mark    (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             const GmlRect        *box,
                             gconstpointer         data);
/* Strokes the question's mark inside @rect. */
void    _gml_draw_mark      (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             const GmlRect        *rect);
/* The words of the mark's legend entry. */
const char *_gml_mark_text  (void);

/* Sets the source to @kind's colour or pattern. */
void    _gml_kind_source    (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             GmlMemoryKind         kind);
const GmlColor *_gml_kind_color (const GmlRenderStyle *style,
                                 GmlMemoryKind         kind);
/* Fills the current path with diagonal hatching over @fill. */
void    _gml_fill_hatched   (cairo_t              *cr,
                             const GmlColor       *fill,
                             const GmlColor       *hatch,
                             double                line_width);
/* Paints the background and starts a picture of @width × @height: labels
 * drawn from here on are checked against each other. */
void    _gml_background     (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             int                   width,
                             int                   height);
/* A cairo_t on a tiny image surface, to measure text for a layout that is
 * computed without the one it will be drawn on. */
cairo_t *_gml_scratch_cr    (void);

gboolean _gml_rect_contains (const GmlRect        *outer,
                             const GmlRect        *inner,
                             double                slack);
gboolean _gml_rects_overlap (const GmlRect        *a,
                             const GmlRect        *b,
                             double                slack);

/* Exporting a picture: @draw draws it at the file's size. */
typedef void (*GmlExportDrawFunc) (cairo_t       *cr,
                                   gconstpointer  data,
                                   int            width,
                                   int            height);
GmlExportDrawing *_gml_export_drawing_new (GmlExportDrawFunc  draw,
                                           gconstpointer      data,
                                           int                width,
                                           int                height);

G_END_DECLS

/* gml-render-style.c — palettes (light, dark, high contrast) and Pango text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-render"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>
#include <pango/pangocairo.h>

#include "gml-render-private.h"

static GmlColor
hex (guint32 rgb)
{
  GmlColor c = { ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0, (rgb & 0xff) / 255.0, 1.0 };
  return c;
}

void
gml_render_style_init (GmlRenderStyle *style,
                       GmlTheme        theme)
{
  GmlPalette *p = &style->palette;

  style->theme = theme;
  style->font_family = "Cantarell, Noto Sans, DejaVu Sans, Sans";
  style->font_size = 12.0;
  style->line_width = theme == GML_THEME_HIGH_CONTRAST ? 2.0 : 1.0;

  /* GNOME's palette, so the pictures sit well beside libadwaita's widgets. */
  switch (theme)
    {
    case GML_THEME_DARK:
      p->background = hex (0x242424);
      p->foreground = hex (0xffffff);
      p->dim = hex (0xc0bfbc);
      p->grid = hex (0x3d3846);
      p->segment_border = hex (0x9a9996);
      p->free_fill = hex (0x303030);
      p->hatch = hex (0x77767b);
      p->inactive = hex (0xffa348);
      p->waste = hex (0xdeddda);
      p->category[GML_CATEGORY_NONE] = hex (0x9a9996);
      p->category[GML_CATEGORY_WEIGHTS] = hex (0x62a0ea);
      p->category[GML_CATEGORY_ACTIVATIONS] = hex (0x57e389);
      p->category[GML_CATEGORY_GRADIENTS] = hex (0xc061cb);
      p->category[GML_CATEGORY_OPTIMIZER_STATE] = hex (0xf8e45c);
      p->category[GML_CATEGORY_TEMPORARY] = hex (0xcdab8f);
      p->other_processes = hex (0x5e5c64);
      p->allocated = hex (0x99c1f1);
      p->reserved = hex (0xffa348);
      p->oom = hex (0xff7b63);
      p->empty_cache = hex (0x8ff0a4);
      p->cursor = hex (0xffffff);
      p->highlight = hex (0xff7800);
      break;

    case GML_THEME_HIGH_CONTRAST:
      p->background = hex (0xffffff);
      p->foreground = hex (0x000000);
      p->dim = hex (0x000000);
      p->grid = hex (0x767676);
      p->segment_border = hex (0x000000);
      p->free_fill = hex (0xffffff);
      p->hatch = hex (0x000000);
      p->inactive = hex (0xd40000);
      p->waste = hex (0xffff00);
      p->category[GML_CATEGORY_NONE] = hex (0x555555);
      p->category[GML_CATEGORY_WEIGHTS] = hex (0x0033cc);
      p->category[GML_CATEGORY_ACTIVATIONS] = hex (0x006b00);
      p->category[GML_CATEGORY_GRADIENTS] = hex (0x8800aa);
      p->category[GML_CATEGORY_OPTIMIZER_STATE] = hex (0xb35900);
      p->category[GML_CATEGORY_TEMPORARY] = hex (0x00707a);
      p->other_processes = hex (0x404040);
      p->allocated = hex (0x0033cc);
      p->reserved = hex (0xb35900);
      p->oom = hex (0xd40000);
      p->empty_cache = hex (0x006b00);
      p->cursor = hex (0x000000);
      p->highlight = hex (0xd40000);
      break;

    case GML_THEME_LIGHT:
    default:
      p->background = hex (0xffffff);
      p->foreground = hex (0x241f31);
      p->dim = hex (0x5e5c64);
      p->grid = hex (0xdeddda);
      p->segment_border = hex (0x77767b);
      p->free_fill = hex (0xf6f5f4);
      p->hatch = hex (0x9a9996);
      p->inactive = hex (0xe66100);
      p->waste = hex (0xf9f06b);
      p->category[GML_CATEGORY_NONE] = hex (0x9a9996);
      p->category[GML_CATEGORY_WEIGHTS] = hex (0x3584e4);
      p->category[GML_CATEGORY_ACTIVATIONS] = hex (0x2ec27e);
      p->category[GML_CATEGORY_GRADIENTS] = hex (0x9141ac);
      p->category[GML_CATEGORY_OPTIMIZER_STATE] = hex (0xe5a50a);
      p->category[GML_CATEGORY_TEMPORARY] = hex (0x865e3c);
      p->other_processes = hex (0x5e5c64);
      p->allocated = hex (0x1c71d8);
      p->reserved = hex (0xe66100);
      p->oom = hex (0xc01c28);
      p->empty_cache = hex (0x26a269);
      p->cursor = hex (0x241f31);
      p->highlight = hex (0xc01c28);
      break;
    }
}

gboolean
gml_theme_from_string (const char *str,
                       GmlTheme   *theme)
{
  static const char *names[GML_N_THEMES] = { "light", "dark", "high-contrast" };

  for (guint i = 0; i < GML_N_THEMES; i++)
    if (g_strcmp0 (str, names[i]) == 0)
      {
        *theme = i;
        return TRUE;
      }
  return FALSE;
}

const char *
gml_category_display_name (GmlCategory category)
{
  switch (category)
    {
    case GML_CATEGORY_WEIGHTS: return _("Weights");
    case GML_CATEGORY_ACTIVATIONS: return _("Activations");
    case GML_CATEGORY_GRADIENTS: return _("Gradients");
    case GML_CATEGORY_OPTIMIZER_STATE: return _("Optimizer state");
    case GML_CATEGORY_TEMPORARY: return _("Temporary");
    case GML_CATEGORY_NONE:
    case GML_N_CATEGORIES:
    default: return _("Other");
    }
}

void
_gml_set_color (cairo_t        *cr,
                const GmlColor *color)
{
  cairo_set_source_rgba (cr, color->red, color->green, color->blue, color->alpha);
}

void
_gml_set_color_alpha (cairo_t        *cr,
                      const GmlColor *color,
                      double          alpha)
{
  cairo_set_source_rgba (cr, color->red, color->green, color->blue, color->alpha * alpha);
}

static PangoLayout *
make_layout (cairo_t              *cr,
             const GmlRenderStyle *style,
             const char           *text,
             double                scale,
             guint                 flags)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (style->font_family);

  pango_font_description_set_absolute_size (font, style->font_size * scale * PANGO_SCALE);
  if (flags & GML_TEXT_BOLD)
    pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_font_description_free (font);
  return layout;
}

void
_gml_text_size (cairo_t              *cr,
                const GmlRenderStyle *style,
                const char           *text,
                double                scale,
                guint                 flags,
                double               *width,
                double               *height)
{
  PangoLayout *layout = make_layout (cr, style, text, scale, flags);
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  if (width)
    *width = w;
  if (height)
    *height = h;
  g_object_unref (layout);
}

double
_gml_text (cairo_t              *cr,
           const GmlRenderStyle *style,
           const char           *text,
           double                x,
           double                y,
           double                scale,
           guint                 flags,
           const GmlColor       *color,
           double                align)
{
  PangoLayout *layout = make_layout (cr, style, text, scale, flags);
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  _gml_set_color (cr, color);
  cairo_move_to (cr, x - align * w, y);
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
  return w;
}

void
_gml_fill_hatched (cairo_t        *cr,
                   const GmlColor *fill,
                   const GmlColor *hatch,
                   double          line_width)
{
  double x1, y1, x2, y2;

  cairo_save (cr);
  cairo_clip_preserve (cr);
  _gml_set_color (cr, fill);
  cairo_fill_preserve (cr);
  cairo_path_extents (cr, &x1, &y1, &x2, &y2);
  cairo_new_path (cr);
  /* Lines at 45° every 6 px, anchored to the page so neighbouring blocks line up. */
  for (double d = floor ((x1 - (y2 - y1)) / 6.0) * 6.0; d < x2; d += 6.0)
    {
      cairo_move_to (cr, d, y2);
      cairo_line_to (cr, d + (y2 - y1), y1);
    }
  _gml_set_color (cr, hatch);
  cairo_set_line_width (cr, MAX (line_width, 1.5));
  cairo_stroke (cr);
  cairo_restore (cr);
  cairo_new_path (cr);
}

void
_gml_background (cairo_t              *cr,
                 const GmlRenderStyle *style,
                 int                   width,
                 int                   height)
{
  _gml_set_color (cr, &style->palette.background);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
}

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

/* One layout and a few patterns per cairo_t, kept in its user data: creating a
 * PangoLayout or stroking hatch lines per block would dominate a frame. */
typedef struct
{
  PangoLayout          *layout;
  PangoFontDescription *base;
  struct
  {
    GmlColor         fill;
    GmlColor         hatch;
    double           width;
    cairo_pattern_t *pattern;
  } hatches[8];
  guint                 n_hatches;
} DrawCache;

static cairo_user_data_key_t cache_key;

static void
draw_cache_free (gpointer data)
{
  DrawCache *c = data;

  g_clear_object (&c->layout);
  pango_font_description_free (c->base);
  for (guint i = 0; i < c->n_hatches; i++)
    cairo_pattern_destroy (c->hatches[i].pattern);
  g_free (c);
}

static DrawCache *
get_cache (cairo_t              *cr,
           const GmlRenderStyle *style)
{
  DrawCache *c = cairo_get_user_data (cr, &cache_key);

  if (c == NULL)
    {
      c = g_new0 (DrawCache, 1);
      c->layout = pango_cairo_create_layout (cr);
      c->base = pango_font_description_from_string (style->font_family);
      cairo_set_user_data (cr, &cache_key, c, draw_cache_free);
    }
  return c;
}

static PangoLayout *
make_layout (cairo_t              *cr,
             const GmlRenderStyle *style,
             const char           *text,
             double                scale,
             guint                 flags)
{
  DrawCache *c = get_cache (cr, style);
  PangoFontDescription *font = pango_font_description_copy_static (c->base);

  pango_font_description_set_absolute_size (font, style->font_size * scale * PANGO_SCALE);
  pango_font_description_set_weight (font, (flags & GML_TEXT_BOLD) ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
  pango_layout_set_font_description (c->layout, font);
  pango_layout_set_text (c->layout, text, -1);
  pango_font_description_free (font);
  return g_object_ref (c->layout);
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

static gboolean
same_color (const GmlColor *a,
            const GmlColor *b)
{
  return a->red == b->red && a->green == b->green && a->blue == b->blue && a->alpha == b->alpha;
}

/* A 6×6 tile with one 45° line, repeated: the same hatching in PNG, SVG and PDF. */
static cairo_pattern_t *
hatch_pattern (cairo_t        *cr,
               const GmlColor *fill,
               const GmlColor *hatch,
               double          line_width)
{
  DrawCache *c = cairo_get_user_data (cr, &cache_key);
  cairo_surface_t *tile;
  cairo_t *tcr;
  cairo_pattern_t *pattern;

  for (guint i = 0; c != NULL && i < c->n_hatches; i++)
    if (same_color (&c->hatches[i].fill, fill) && same_color (&c->hatches[i].hatch, hatch) &&
        c->hatches[i].width == line_width)
      return c->hatches[i].pattern;

  tile = cairo_surface_create_similar_image (cairo_get_target (cr), CAIRO_FORMAT_ARGB32, 6, 6);
  tcr = cairo_create (tile);
  _gml_set_color (tcr, fill);
  cairo_paint (tcr);
  _gml_set_color (tcr, hatch);
  cairo_set_line_width (tcr, MAX (line_width, 1.5));
  for (int k = -1; k <= 1; k++)
    {
      cairo_move_to (tcr, k * 6 - 1, 7);
      cairo_line_to (tcr, k * 6 + 7, -1);
    }
  cairo_stroke (tcr);
  cairo_destroy (tcr);
  pattern = cairo_pattern_create_for_surface (tile);
  cairo_surface_destroy (tile);
  cairo_pattern_set_extend (pattern, CAIRO_EXTEND_REPEAT);
  cairo_pattern_set_filter (pattern, CAIRO_FILTER_NEAREST);

  if (c != NULL && c->n_hatches < G_N_ELEMENTS (c->hatches))
    {
      c->hatches[c->n_hatches].fill = *fill;
      c->hatches[c->n_hatches].hatch = *hatch;
      c->hatches[c->n_hatches].width = line_width;
      c->hatches[c->n_hatches].pattern = pattern;
      c->n_hatches++;
      return pattern;
    }
  /* No cache: hand out a pattern that dies with the cairo_t's next source. */
  cairo_set_source (cr, pattern);
  cairo_pattern_destroy (pattern);
  return cairo_get_source (cr);
}

void
_gml_fill_hatched (cairo_t        *cr,
                   const GmlColor *fill,
                   const GmlColor *hatch,
                   double          line_width)
{
  cairo_set_source (cr, hatch_pattern (cr, fill, hatch, line_width));
  cairo_fill (cr);
}

void
_gml_background (cairo_t              *cr,
                 const GmlRenderStyle *style,
                 int                   width,
                 int                   height)
{
  get_cache (cr, style);
  _gml_set_color (cr, &style->palette.background);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
}

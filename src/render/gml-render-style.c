/* gml-render-style.c — palettes (light, dark, high contrast) and Pango text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-render"

#include "config.h"

#include <math.h>
#include "gml-format.h"
#include "gml-i18n.h"
#include "gml-lab.h"
#include <pango/pangocairo.h>

#include "gml-render-private.h"

static GmlColor
hex (guint32 rgb)
{
  GmlColor c = { ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0, (rgb & 0xff) / 255.0,
                 1.0 };
  return c;
}

/* The neutrals are GNOME's, so the pictures sit well beside libadwaita's
 * widgets. The seven category colours were chosen to stay apart under
 * simulated deuteranopia, protanopia and tritanopia (Machado, Oliveira and
 * Fernandes 2009) as well as in normal vision; tests/render/test-palette.c
 * measures it. Black or white text is chosen per fill (_gml_ink_on). The
 * question's mark is the foreground colour, never the colour of failure.
 *
 * One row a colour; the columns are the themes in GmlTheme's order: light,
 * dark, high contrast, high contrast dark. High contrast dark is white on
 * black, as libadwaita's own under a dark scheme: the neutrals at their
 * extremes, the categories lighter than the dark style's so that each stands
 * off the black ground. Every member of GmlPalette has its row (checked
 * below). */
#define C(field) G_STRUCT_OFFSET (GmlPalette, field)

static const struct
{
  gsize   offset;
  guint32 rgb[GML_N_THEMES];
} colours[] = {
  { C (background),                             { 0xffffff, 0x242424, 0xffffff, 0x000000 } },
  { C (foreground),                             { 0x241f31, 0xffffff, 0x000000, 0xffffff } },
  { C (dim),                                    { 0x5e5c64, 0xc0bfbc, 0x000000, 0xffffff } },
  { C (grid),                                   { 0xdeddda, 0x4a4a4a, 0x767676, 0x8a8a8a } },
  { C (segment_border),                         { 0x77767b, 0x9a9996, 0x000000, 0xffffff } },
  { C (free_fill),                              { 0xf6f5f4, 0x303030, 0xffffff, 0x000000 } },
  { C (hatch),                                  { 0x9a9996, 0x8a8a8a, 0x555555, 0xb0b0b0 } },
  { C (inactive),                               { 0x3d3846, 0xdeddda, 0x000000, 0xffffff } },
  { C (waste),                                  { 0xf0e442, 0xe5d94a, 0xfff000, 0xfff000 } },
  { C (category[GML_CATEGORY_NONE]),            { 0xb6b6b6, 0xc0c0c0, 0xc4c4c4, 0xc4c4c4 } },
  { C (category[GML_CATEGORY_WEIGHTS]),         { 0x3552c1, 0x5570dd, 0x2a44a8, 0x6f8cff } },
  { C (category[GML_CATEGORY_ACTIVATIONS]),     { 0x009270, 0x1aa882, 0x00664e, 0x19b38a } },
  { C (category[GML_CATEGORY_GRADIENTS]),       { 0x9980a4, 0xb38ab5, 0xa58bb0, 0xb38ab5 } },
  { C (category[GML_CATEGORY_OPTIMIZER_STATE]), { 0xdf7f0e, 0xe58a1f, 0xe8891a, 0xf0962a } },
  { C (category[GML_CATEGORY_TEMPORARY]),       { 0x7ecafd, 0x9ad8ff, 0x8fd3ff, 0x9ad8ff } },
  { C (category[GML_CATEGORY_KV_CACHE]),        { 0x996fff, 0x934b0c, 0x729378, 0xb07a3a } },
  { C (other_processes),                        { 0x5e5c64, 0x5e5c64, 0x404040, 0x9a9996 } },
  { C (allocated),                              { 0xbbaa77, 0xffdd99, 0x330044, 0x114499 } },
  { C (reserved),                               { 0x241f31, 0xffffff, 0x000000, 0xffffff } },
  { C (oom),                                    { 0xc01c28, 0xfe426e, 0xb00000, 0xff5c7a } },
  { C (empty_cache),                            { 0x26a269, 0x8ff0a4, 0x006b00, 0x8ff0a4 } },
  { C (device_free),                            { 0x665566, 0x776688, 0x776688, 0x664433 } },
  { C (pinned),                                 { 0x331100, 0x667755, 0x444455, 0x666677 } },
  { C (cursor),                                 { 0x241f31, 0xffffff, 0x000000, 0xffffff } },
  { C (highlight),                              { 0x241f31, 0xffffff, 0x000000, 0xffffff } },
};

#undef C

G_STATIC_ASSERT (G_N_ELEMENTS (colours) * sizeof (GmlColor) == sizeof (GmlPalette));

void
gml_render_style_init (GmlRenderStyle *style,
                       GmlTheme        theme)
{
  GmlPalette *p = &style->palette;

  style->theme = theme;
  style->font_family = "Cantarell, Noto Sans, DejaVu Sans, Sans";
  style->font_size = 12.0;
  style->line_width = theme == GML_THEME_HIGH_CONTRAST ||
                      theme == GML_THEME_HIGH_CONTRAST_DARK ? 2.0 : 1.0;
  style->label_log = NULL;

  if ((guint) theme >= GML_N_THEMES)
    theme = GML_THEME_LIGHT;
  for (guint i = 0; i < G_N_ELEMENTS (colours); i++)
    *(GmlColor *) ((char *) p + colours[i].offset) = hex (colours[i].rgb[theme]);
}

GmlTheme
gml_theme_for (gboolean dark,
               gboolean high_contrast)
{
  if (high_contrast)
    return dark ? GML_THEME_HIGH_CONTRAST_DARK : GML_THEME_HIGH_CONTRAST;
  return dark ? GML_THEME_DARK : GML_THEME_LIGHT;
}

gboolean
gml_theme_from_string (const char *str,
                       GmlTheme   *theme)
{
  static const char *names[GML_N_THEMES] = { "light", "dark", "high-contrast",
                                             "high-contrast-dark" };

  for (guint i = 0; i < GML_N_THEMES; i++)
    if (g_strcmp0 (str, names[i]) == 0)
      {
        *theme = i;
        return TRUE;
      }
  return FALSE;
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


double
_gml_line_height (const GmlRenderStyle *style)
{
  return ceil (style->font_size * 1.45);
}

static double
luminance (const GmlColor *c)
{
  double v[3] = { c->red, c->green, c->blue };

  for (int i = 0; i < 3; i++)
    v[i] = v[i] <= 0.04045 ? v[i] / 12.92 : pow ((v[i] + 0.055) / 1.055, 2.4);
  return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
}

const GmlColor *
_gml_ink_on (const GmlRenderStyle *style,
             const GmlColor       *fill)
{
  static const GmlColor black = { 0.08, 0.07, 0.1, 1 };
  static const GmlColor white = { 1, 1, 1, 1 };
  double l = luminance (fill);

  /* WCAG contrast of each against the fill: (L1 + 0.05) / (L2 + 0.05). */
  return (1.05 / (l + 0.05)) >= ((l + 0.05) / (luminance (&black) + 0.05)) ? &white : &black;
}

/* ------------------------------------------------------------------------- */
/* Per-picture cache: one PangoLayout, the patterns, and the labels drawn.   */

typedef enum
{
  PATTERN_DIAGONAL,        /* "/" : free, cached */
  PATTERN_CROSS,           /* "×" : inactive split */
  PATTERN_BACK_DIAGONAL,   /* "\" dense: rounding waste */
  PATTERN_DOTS,            /* pending free */
  PATTERN_HORIZONTAL,      /* other processes */
} PatternKind;

/* One layout and a few patterns per cairo_t, kept in its user data: creating a
 * PangoLayout or stroking hatch lines per block would dominate a frame. */
typedef struct
{
  PangoLayout          *layout;
  PangoFontDescription *base;
  struct
  {
    PatternKind      kind;
    GmlColor         fill;
    GmlColor         ink;
    double           width;
    cairo_pattern_t *pattern;
  } patterns[12];
  guint                 n_patterns;
  GmlRect               canvas;
  GArray               *placed;     /* GmlRect of every label's ink, device space */
  GHashTable           *sizes;      /* "size|scale|flags|text" → measured size: sizes repeat */
} DrawCache;

static cairo_user_data_key_t cache_key;

static void
draw_cache_free (gpointer data)
{
  DrawCache *c = data;

  g_clear_object (&c->layout);
  pango_font_description_free (c->base);
  for (guint i = 0; i < c->n_patterns; i++)
    cairo_pattern_destroy (c->patterns[i].pattern);
  g_array_unref (c->placed);
  g_hash_table_unref (c->sizes);
  g_free (c);
}

static DrawCache *
get_cache (cairo_t              *cr,
           const GmlRenderStyle *style)
{
  DrawCache *c = cairo_get_user_data (cr, &cache_key);

  if (c == NULL)
    {
      cairo_font_options_t *options = cairo_font_options_create ();
      PangoContext *context;

      c = g_new0 (DrawCache, 1);
      c->layout = pango_cairo_create_layout (cr);
      /* Unhinted metrics: text measures the same on every surface, so a
       * layout computed on a scratch surface (hit tests, tests) is the one
       * drawn in the window, in a PNG and in a PDF. */
      context = pango_layout_get_context (c->layout);
      cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
      pango_cairo_context_set_font_options (context, options);
      pango_layout_context_changed (c->layout);
      cairo_font_options_destroy (options);
      c->base = pango_font_description_from_string (style->font_family);
      c->placed = g_array_new (FALSE, FALSE, sizeof (GmlRect));
      c->sizes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      c->canvas = (GmlRect) { 0, 0, 0, 0 };
      cairo_set_user_data (cr, &cache_key, c, draw_cache_free);
    }
  return c;
}

cairo_t *
_gml_scratch_cr (void)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);

  cairo_surface_destroy (surface);
  return cr;
}

static PangoLayout *
make_layout (cairo_t              *cr,
             const GmlRenderStyle *style,
             const char           *text,
             double                scale,
             guint                 flags,
             double                wrap_width)
{
  DrawCache *c = get_cache (cr, style);
  PangoFontDescription *font = pango_font_description_copy_static (c->base);

  pango_font_description_set_absolute_size (font, style->font_size * scale * PANGO_SCALE);
  pango_font_description_set_weight (font,
                                     (flags & GML_TEXT_BOLD) ? PANGO_WEIGHT_BOLD
                                                             : PANGO_WEIGHT_NORMAL);
  pango_layout_set_font_description (c->layout, font);
  if (wrap_width > 0)
    {
      pango_layout_set_width (c->layout, (int) floor (wrap_width * PANGO_SCALE));
      /* Whole words only: a word longer than the line sticks out, and the
       * label log reports it, rather than being cut. */
      pango_layout_set_wrap (c->layout, PANGO_WRAP_WORD);
    }
  else
    pango_layout_set_width (c->layout, -1);
  pango_layout_set_text (c->layout, text, -1);
  pango_font_description_free (font);
  return g_object_ref (c->layout);
}

static void
user_rect_to_device (cairo_t       *cr,
                     const GmlRect *in,
                     GmlRect       *out)
{
  double x0 = in->x, y0 = in->y, x1 = in->x + in->width, y1 = in->y + in->height;

  cairo_user_to_device (cr, &x0, &y0);
  cairo_user_to_device (cr, &x1, &y1);
  *out = (GmlRect) { MIN (x0, x1), MIN (y0, y1), fabs (x1 - x0), fabs (y1 - y0) };
}

gboolean
_gml_rect_contains (const GmlRect *outer,
                    const GmlRect *inner,
                    double         slack)
{
  return inner->x >= outer->x - slack && inner->y >= outer->y - slack &&
         inner->x + inner->width <= outer->x + outer->width + slack &&
         inner->y + inner->height <= outer->y + outer->height + slack;
}

gboolean
_gml_rects_overlap (const GmlRect *a,
                    const GmlRect *b,
                    double         slack)
{
  return a->x + a->width > b->x + slack && b->x + b->width > a->x + slack &&
         a->y + a->height > b->y + slack && b->y + b->height > a->y + slack;
}

static gboolean
is_word_char (gunichar c)
{
  return g_unichar_isalnum (c) || c == '_';
}

/* The ink of each line of @layout drawn at (@x, @y), in device space. */
static void
for_each_line (cairo_t              *cr,
               DrawCache            *c,
               GArray               *log,
               PangoLayout          *layout,
               double                x,
               double                y,
               const GmlRect        *owner,
               GArray               *inks)
{
  PangoLayoutIter *iter = pango_layout_get_iter (layout);
  const char *text = pango_layout_get_text (layout);
  GmlRect owner_dev, clip_dev, canvas_dev;
  double cx0, cy0, cx1, cy1;

  if (log != NULL)
    {
      user_rect_to_device (cr, owner != NULL ? owner : &c->canvas, &owner_dev);
      user_rect_to_device (cr, &c->canvas, &canvas_dev);
      cairo_clip_extents (cr, &cx0, &cy0, &cx1, &cy1);
      user_rect_to_device (cr, &(GmlRect) { cx0, cy0, cx1 - cx0, cy1 - cy0 }, &clip_dev);
    }

  do
    {
      PangoLayoutLine *line = pango_layout_iter_get_line_readonly (iter);
      PangoRectangle ink;
      GmlRect rect;

      pango_layout_iter_get_line_extents (iter, &ink, NULL);
      pango_extents_to_pixels (&ink, NULL);
      if (ink.width <= 0 || ink.height <= 0)
        continue;
      user_rect_to_device (cr, &(GmlRect) { x + ink.x, y + ink.y, ink.width, ink.height }, &rect);
      if (inks != NULL)
        g_array_append_val (inks, rect);
      if (log != NULL)
        {
          GmlLabel label = { 0 };
          int end = line->start_index + line->length;

          label.text = g_strndup (text + line->start_index, line->length);
          label.ink = rect;
          label.owner = owner_dev;
          label.clip = clip_dev;
          label.canvas = canvas_dev;
          /* A break between two letters of one word: a word was cut. */
          if (text[end] != '\0' && end > 0)
            {
              const char *prev = g_utf8_find_prev_char (text, text + end);

              label.split_word = prev != NULL && is_word_char (g_utf8_get_char (prev)) &&
                                 is_word_char (g_utf8_get_char (text + end));
            }
          g_array_append_val (log, label);
        }
    }
  while (pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);
}

/* The logical size, made taller where glyphs reach below it (a cedilla, a
 * comma): a box of this height holds the ink too. */
static void
layout_size (PangoLayout *layout,
             int         *width,
             int         *height)
{
  PangoRectangle ink, logical;

  pango_layout_get_pixel_extents (layout, &ink, &logical);
  *width = logical.width;
  *height = MAX (logical.y + logical.height, ink.y + ink.height) - MIN (logical.y, 0);
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
  DrawCache *c = get_cache (cr, style);
  g_autofree char *key = g_strdup_printf ("%g|%g|%u|%s", style->font_size, scale, flags, text);
  int *size = g_hash_table_lookup (c->sizes, key);

  if (size == NULL)
    {
      PangoLayout *layout = make_layout (cr, style, text, scale, flags, -1);

      size = g_new (int, 2);
      layout_size (layout, &size[0], &size[1]);
      g_object_unref (layout);
      g_hash_table_insert (c->sizes, g_steal_pointer (&key), size);
    }
  if (width)
    *width = size[0];
  if (height)
    *height = size[1];
}

static double
draw_label (cairo_t              *cr,
            const GmlRenderStyle *style,
            const char           *text,
            double                x,
            double                y,
            double                scale,
            guint                 flags,
            const GmlColor       *color,
            double                align,
            const GmlRect        *owner,
            gboolean              only_if_free,
            gboolean             *drawn)
{
  DrawCache *c = get_cache (cr, style);
  PangoLayout *layout = make_layout (cr, style, text, scale, flags, -1);
  g_autoptr(GArray) inks = g_array_new (FALSE, FALSE, sizeof (GmlRect));
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  x -= align * w;
  if (only_if_free)
    {
      GmlRect owner_dev;

      /* Measure first, without logging. */
      for_each_line (cr, c, NULL, layout, x, y, owner, inks);
      user_rect_to_device (cr, owner != NULL ? owner : &c->canvas, &owner_dev);
      for (guint i = 0; i < inks->len; i++)
        {
          const GmlRect *r = &g_array_index (inks, GmlRect, i);

          if (!_gml_rect_contains (&owner_dev, r, 0))
            goto refuse;
          for (guint j = 0; j < c->placed->len; j++)
            if (_gml_rects_overlap (r, &g_array_index (c->placed, GmlRect, j), 0))
              goto refuse;
        }
      g_array_set_size (inks, 0);
    }

  _gml_set_color (cr, color);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
  for_each_line (cr, c, style->label_log, layout, x, y, owner, inks);
  g_array_append_vals (c->placed, inks->data, inks->len);
  g_object_unref (layout);
  if (drawn)
    *drawn = TRUE;
  return w;

refuse:
  g_object_unref (layout);
  if (drawn)
    *drawn = FALSE;
  return 0;
}

double
_gml_label (cairo_t              *cr,
            const GmlRenderStyle *style,
            const char           *text,
            double                x,
            double                y,
            double                scale,
            guint                 flags,
            const GmlColor       *color,
            double                align,
            const GmlRect        *owner)
{
  return draw_label (cr, style, text, x, y, scale, flags, color, align, owner, FALSE, NULL);
}

gboolean
_gml_label_try (cairo_t              *cr,
                const GmlRenderStyle *style,
                const char           *text,
                double                x,
                double                y,
                double                scale,
                guint                 flags,
                const GmlColor       *color,
                double                align,
                const GmlRect        *owner)
{
  gboolean drawn = FALSE;

  draw_label (cr, style, text, x, y, scale, flags, color, align, owner, TRUE, &drawn);
  return drawn;
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
  return draw_label (cr, style, text, x, y, scale, flags, color, align, NULL, FALSE, NULL);
}

double
_gml_paragraph (cairo_t              *cr,
                const GmlRenderStyle *style,
                const char           *text,
                double                x,
                double                y,
                double                width,
                double                scale,
                guint                 flags,
                const GmlColor       *color,
                const GmlRect        *owner,
                double               *used_width)
{
  DrawCache *c = get_cache (cr, style);
  PangoLayout *layout = make_layout (cr, style, text, scale, flags, MAX (width, 1));
  int w, h;

  layout_size (layout, &w, &h);
  if (used_width)
    *used_width = w;
  if (color != NULL)
    {
      g_autoptr(GArray) inks = g_array_new (FALSE, FALSE, sizeof (GmlRect));

      _gml_set_color (cr, color);
      cairo_move_to (cr, x, y);
      pango_cairo_show_layout (cr, layout);
      for_each_line (cr, c, style->label_log, layout, x, y, owner, inks);
      g_array_append_vals (c->placed, inks->data, inks->len);
    }
  pango_layout_set_width (layout, -1);
  g_object_unref (layout);
  return h;
}

static void
label_clear (gpointer data)
{
  GmlLabel *label = data;

  g_clear_pointer (&label->text, g_free);
}

GArray *
gml_label_log_new (void)
{
  GArray *log = g_array_new (FALSE, TRUE, sizeof (GmlLabel));

  g_array_set_clear_func (log, label_clear);
  return log;
}

/* ------------------------------------------------------------------------- */
/* Patterns and kinds of memory                                              */

static gboolean
same_color (const GmlColor *a,
            const GmlColor *b)
{
  return a->red == b->red && a->green == b->green && a->blue == b->blue && a->alpha == b->alpha;
}

/* A small tile repeated: the same pattern in PNG, SVG and PDF. */
static cairo_pattern_t *
make_pattern (cairo_t        *cr,
              PatternKind     kind,
              const GmlColor *fill,
              const GmlColor *ink,
              double          line_width)
{
  DrawCache *c = cairo_get_user_data (cr, &cache_key);
  int size = kind == PATTERN_CROSS ? 8 : kind == PATTERN_BACK_DIAGONAL ? 5
                                                                       : kind == PATTERN_DOTS ? 5
             : kind == PATTERN_HORIZONTAL ? 4 : 6;
  double lw = kind == PATTERN_CROSS ? MIN (MAX (line_width, 1.0), 1.5) : MAX (line_width, 1.5);
  cairo_surface_t *tile;
  cairo_t *tcr;
  cairo_pattern_t *pattern;

  for (guint i = 0; c != NULL && i < c->n_patterns; i++)
    if (c->patterns[i].kind == kind && same_color (&c->patterns[i].fill, fill) &&
        same_color (&c->patterns[i].ink, ink) && c->patterns[i].width == line_width)
      return c->patterns[i].pattern;

  tile = cairo_surface_create_similar_image (cairo_get_target (cr), CAIRO_FORMAT_ARGB32, size,
                                             size);
  tcr = cairo_create (tile);
  _gml_set_color (tcr, fill);
  cairo_paint (tcr);
  _gml_set_color (tcr, ink);
  cairo_set_line_width (tcr, lw);
  switch (kind)
    {
    case PATTERN_CROSS:
      for (int k = -1; k <= 1; k++)
        {
          cairo_move_to (tcr, k * size - 1, size + 1);
          cairo_line_to (tcr, k * size + size + 1, -1);
          cairo_move_to (tcr, k * size - 1, -1);
          cairo_line_to (tcr, k * size + size + 1, size + 1);
        }
      cairo_stroke (tcr);
      break;
    case PATTERN_BACK_DIAGONAL:
      for (int k = -1; k <= 1; k++)
        {
          cairo_move_to (tcr, k * size - 1, -1);
          cairo_line_to (tcr, k * size + size + 1, size + 1);
        }
      cairo_stroke (tcr);
      break;
    case PATTERN_DOTS:
      cairo_arc (tcr, size / 2.0, size / 2.0, 1.1 * MAX (line_width, 1.0), 0, 2 * G_PI);
      cairo_fill (tcr);
      break;
    case PATTERN_HORIZONTAL:
      cairo_rectangle (tcr, 0, 0, size, MAX (line_width, 1.0));
      cairo_fill (tcr);
      break;
    case PATTERN_DIAGONAL:
    default:
      for (int k = -1; k <= 1; k++)
        {
          cairo_move_to (tcr, k * size - 1, size + 1);
          cairo_line_to (tcr, k * size + size + 1, -1);
        }
      cairo_stroke (tcr);
      break;
    }
  cairo_destroy (tcr);
  pattern = cairo_pattern_create_for_surface (tile);
  cairo_surface_destroy (tile);
  cairo_pattern_set_extend (pattern, CAIRO_EXTEND_REPEAT);
  cairo_pattern_set_filter (pattern, CAIRO_FILTER_NEAREST);

  if (c != NULL && c->n_patterns < G_N_ELEMENTS (c->patterns))
    {
      c->patterns[c->n_patterns].kind = kind;
      c->patterns[c->n_patterns].fill = *fill;
      c->patterns[c->n_patterns].ink = *ink;
      c->patterns[c->n_patterns].width = line_width;
      c->patterns[c->n_patterns].pattern = pattern;
      c->n_patterns++;
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
  cairo_set_source (cr, make_pattern (cr, PATTERN_DIAGONAL, fill, hatch, line_width));
  cairo_fill (cr);
}

/* Stripes of rounding waste are dark on its yellow ground in every theme. */
static const GmlColor waste_ink = { 0.14, 0.12, 0.19, 1 };

const GmlColor *
_gml_kind_color (const GmlRenderStyle *style,
                 GmlMemoryKind         kind)
{
  const GmlPalette *p = &style->palette;

  switch (kind)
    {
    case GML_MEMORY_KIND_FREE_CACHED: return &p->hatch;
    case GML_MEMORY_KIND_INACTIVE_SPLIT: return &p->inactive;
    case GML_MEMORY_KIND_PENDING_FREE: return &p->dim;
    case GML_MEMORY_KIND_ROUNDING_WASTE: return &p->waste;
    case GML_MEMORY_KIND_NOT_RESERVED: return &p->background;
    case GML_MEMORY_KIND_OTHER_PROCESSES: return &p->other_processes;
    case GML_N_MEMORY_KINDS: return &p->foreground;
    default: return &p->category[MIN ((guint) kind, GML_N_CATEGORIES - 1)];
    }
}

void
_gml_kind_source (cairo_t              *cr,
                  const GmlRenderStyle *style,
                  GmlMemoryKind         kind)
{
  const GmlPalette *p = &style->palette;
  double lw = style->line_width;

  get_cache (cr, style);
  switch (kind)
    {
    case GML_MEMORY_KIND_FREE_CACHED:
      cairo_set_source (cr, make_pattern (cr, PATTERN_DIAGONAL, &p->free_fill, &p->hatch, lw));
      break;
    case GML_MEMORY_KIND_INACTIVE_SPLIT:
      cairo_set_source (cr, make_pattern (cr, PATTERN_CROSS, &p->free_fill, &p->inactive, lw));
      break;
    case GML_MEMORY_KIND_PENDING_FREE:
      cairo_set_source (cr, make_pattern (cr, PATTERN_DOTS, &p->free_fill, &p->dim, lw));
      break;
    case GML_MEMORY_KIND_ROUNDING_WASTE:
      cairo_set_source (cr, make_pattern (cr, PATTERN_BACK_DIAGONAL, &p->waste, &waste_ink, lw));
      break;
    case GML_MEMORY_KIND_OTHER_PROCESSES:
      cairo_set_source (cr,
                        make_pattern (cr, PATTERN_HORIZONTAL, &p->other_processes, &p->background,
                                      lw));
      break;
    case GML_MEMORY_KIND_NOT_RESERVED:
    case GML_N_MEMORY_KINDS:
    default:
      _gml_set_color (cr, _gml_kind_color (style, kind));
      break;
    }
}

void
gml_render_memory_kind_fill (cairo_t              *cr,
                             const GmlRenderStyle *style,
                             GmlMemoryKind         kind)
{
  _gml_kind_source (cr, style, kind);
  cairo_fill (cr);
}

const char *
gml_memory_kind_name (GmlMemoryKind kind)
{
  switch (kind)
    {
    case GML_MEMORY_KIND_FREE_CACHED: return _("Free, cached");
    case GML_MEMORY_KIND_INACTIVE_SPLIT: return _("Inactive split");
    case GML_MEMORY_KIND_PENDING_FREE: return _("Pending free");
    case GML_MEMORY_KIND_ROUNDING_WASTE: return _("Rounding waste");
    case GML_MEMORY_KIND_NOT_RESERVED: return _("Not reserved");
    case GML_MEMORY_KIND_OTHER_PROCESSES: return _("Other processes");
    case GML_N_MEMORY_KINDS: return "";
    default: return gml_lab_category_name ((GmlCategory) kind);
    }
}

GmlMemoryKind
gml_memory_state_block_kind (const GmlMemState *state,
                             guint              block)
{
  const GmlBlock *b = gml_mem_state_get_block (state, block);
  const GmlSegment *seg;
  gboolean active = FALSE;

  if (b == NULL)
    return GML_MEMORY_KIND_FREE_CACHED;
  if (b->state == GML_BLOCK_ALLOCATED)
    return (GmlMemoryKind) MIN (b->category, GML_N_CATEGORIES - 1);
  if (b->state == GML_BLOCK_PENDING_FREE)
    return GML_MEMORY_KIND_PENDING_FREE;
  seg = gml_mem_state_get_segment (state, b->segment);
  for (gint32 i = seg != NULL ? seg->first_block : -1; i >= 0 && !active;
       i = gml_mem_state_get_block (state, i)->next)
    {
      const GmlBlock *o = gml_mem_state_get_block (state, i);

      active = o->state == GML_BLOCK_ALLOCATED || o->state == GML_BLOCK_PENDING_FREE;
    }
  /* PyTorch's "inactive split": free, but its segment cannot be given back. */
  return active ? GML_MEMORY_KIND_INACTIVE_SPLIT : GML_MEMORY_KIND_FREE_CACHED;
}

/* ------------------------------------------------------------------------- */
/* The question's mark and legends                                           */

const char *
_gml_mark_text (void)
{
  /* Translators: legend of the outline drawn around what the question is about. */
  return _("Outlined: what the question is about");
}

void
_gml_draw_mark (cairo_t              *cr,
                const GmlRenderStyle *style,
                const GmlRect        *rect)
{
  double w = MAX (rect->width - 3, 1), h = MAX (rect->height - 3, 1);

  /* A thick line of the foreground colour with a thin one of the background
   * inside it, so it shows on every fill; never the colour of failure. */
  cairo_save (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_rectangle (cr, rect->x + 1.5, rect->y + 1.5, w, h);
  _gml_set_color (cr, &style->palette.highlight);
  cairo_set_line_width (cr, 3.0);
  cairo_stroke (cr);
  if (rect->width > 8 && rect->height > 8)
    {
      cairo_rectangle (cr, rect->x + 3.5, rect->y + 3.5, rect->width - 7, rect->height - 7);
      _gml_set_color (cr, &style->palette.background);
      cairo_set_line_width (cr, 1.0);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

void
_gml_swatch_kind (cairo_t              *cr,
                  const GmlRenderStyle *style,
                  const GmlRect        *box,
                  gconstpointer         data)
{
  cairo_rectangle (cr, box->x, box->y, box->width, box->height);
  gml_render_memory_kind_fill (cr, style, GPOINTER_TO_INT (data));
  cairo_rectangle (cr, box->x + 0.5, box->y + 0.5, box->width - 1, box->height - 1);
  _gml_set_color_alpha (cr, &style->palette.segment_border, 0.8);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
}

void
_gml_swatch_mark (cairo_t              *cr,
                  const GmlRenderStyle *style,
                  const GmlRect        *box,
                  gconstpointer         data)
{
  cairo_rectangle (cr, box->x, box->y, box->width, box->height);
  _gml_set_color (cr, &style->palette.free_fill);
  cairo_fill (cr);
  _gml_draw_mark (cr, style, box);
}

double
_gml_legend (cairo_t              *cr,
             const GmlRenderStyle *style,
             const GmlLegendItem  *items,
             guint                 n_items,
             const GmlRect        *area,
             gboolean              draw)
{
  double lh = _gml_line_height (style);
  double sw = round (style->font_size);
  double x = area->x, y = area->y, bottom = area->y;
  double scale = 0.9;
  /* The words belong in the legend's box: the caller measures it first
   * (draw FALSE) and gives its height when drawing. */
  const GmlRect *owner = area;

  for (guint i = 0; i < n_items; i++)
    {
      double tw, th, item_w, text_h;
      double text_w_max = area->width - sw - 5;

      _gml_text_size (cr, style, items[i].text, scale, 0, &tw, &th);
      item_w = sw + 5 + tw;
      if (x > area->x && x + item_w > area->x + area->width)
        {
          x = area->x;
          y = bottom;
        }
      if (tw <= text_w_max)
        {
          text_h = lh;
          if (draw)
            {
              if (items[i].swatch != NULL)
                items[i].swatch (cr, style, &(GmlRect) { x, y + (lh - sw) / 2, sw, sw },
                                 items[i].data);
              _gml_label (cr, style, items[i].text, x + sw + 5, y + (lh - th) / 2, scale, 0,
                          &style->palette.foreground, 0, owner);
            }
          x += item_w + 14;
        }
      else
        {
          /* Longer than a whole line: its words wrap beside the swatch. */
          text_h = MAX (_gml_paragraph (cr, style, items[i].text, x + sw + 5, y + (lh - th) / 2,
                                        text_w_max, scale, 0,
                                        draw ? &style->palette.foreground : NULL,
                                        owner, &tw) + (lh - th), lh);
          if (draw && items[i].swatch != NULL)
            items[i].swatch (cr, style, &(GmlRect) { x, y + (lh - sw) / 2, sw, sw }, items[i].data);
          x = area->x + area->width;   /* nothing beside it */
        }
      bottom = MAX (bottom, y + text_h);
    }
  return bottom - area->y;
}

void
_gml_background (cairo_t              *cr,
                 const GmlRenderStyle *style,
                 int                   width,
                 int                   height)
{
  DrawCache *c = get_cache (cr, style);

  c->canvas = (GmlRect) { 0, 0, width, height };
  g_array_set_size (c->placed, 0);
  _gml_set_color (cr, &style->palette.background);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
}

/* ------------------------------------------------------------------------- */
/* Axis ticks                                                                */

#define AXIS_TICK_LENGTH 4.0
#define AXIS_TICK_SCALE 0.8

/* 1, 2 or 5 times a power of ten: the smallest that is at least @at_least. */
static guint64
nice_step (double at_least)
{
  guint64 power = 1;

  while (power < G_MAXUINT64 / 10)
    {
      if ((double) power >= at_least)
        return power;
      if (2.0 * power >= at_least)
        return 2 * power;
      if (5.0 * power >= at_least)
        return 5 * power;
      power *= 10;
    }
  return power;
}

double
_gml_axis_ticks_height (const GmlRenderStyle *style,
                        gboolean              with_times)
{
  double row = ceil (_gml_line_height (style) * AXIS_TICK_SCALE);

  return AXIS_TICK_LENGTH + row * (with_times ? 2 : 1);
}

void
_gml_axis_ticks (cairo_t              *cr,
                 const GmlRenderStyle *style,
                 const GmlRect        *plot,
                 gsize                 n_values,
                 double                offset,
                 double                px_per_value,
                 GmlAxisTimeFunc       time_at,
                 gconstpointer         user_data)
{
  const GmlPalette *pal = &style->palette;
  double row = ceil (_gml_line_height (style) * AXIS_TICK_SCALE);
  double bottom = plot->y + plot->height;
  g_autofree char *widest = NULL;
  double widest_w;
  guint64 step;
  gint64 t0 = 0, span = 0;
  guint decimals = 0;

  if (n_values == 0 || px_per_value <= 0)
    return;
  widest = gml_format_grouped (n_values - 1);
  _gml_text_size (cr, style, widest, AXIS_TICK_SCALE, 0, &widest_w, NULL);
  /* Room for the widest number and two characters' space between neighbours. */
  step = nice_step ((widest_w + 2 * style->font_size) / px_per_value);
  if (time_at != NULL)
    {
      t0 = time_at (0, user_data);
      span = time_at (n_values - 1, user_data) - t0;
      if (span <= 0)
        time_at = NULL;
      /* Enough decimals that neighbouring ticks read differently. */
      decimals = span >= 100000000 ? 0 : span >= 10000000 ? 1 : span >= 1000000 ? 2 : 3;
    }

  cairo_save (cr);
  _gml_set_color (cr, &pal->grid);
  cairo_set_line_width (cr, 1);
  for (guint64 v = 0; v < n_values; v += step)
    {
      double x = round (plot->x + (v + offset) * px_per_value) + 0.5;

      cairo_move_to (cr, x, bottom);
      cairo_line_to (cr, x, bottom + AXIS_TICK_LENGTH);
    }
  cairo_stroke (cr);
  cairo_restore (cr);

  for (guint64 v = 0; v < n_values; v += step)
    {
      double x = plot->x + (v + offset) * px_per_value;
      g_autofree char *number = gml_format_grouped (v);

      if (!_gml_label_try (cr, style, number, x, bottom + AXIS_TICK_LENGTH, AXIS_TICK_SCALE, 0,
                           &pal->dim, 0.5, NULL) || time_at == NULL)
        continue;
      {
        double seconds = (double) (time_at ((gsize) v, user_data) - t0) / G_USEC_PER_SEC;
        g_autofree char *value = gml_format_number (seconds, decimals);
        /* Translators: a time on a snapshot's timeline axis, in seconds since its
         * first trace entry: "0.25 s". */
        g_autofree char *text = g_strdup_printf (_("%s s"), value);

        _gml_label_try (cr, style, text, x, bottom + AXIS_TICK_LENGTH + row, AXIS_TICK_SCALE, 0,
                        &pal->dim, 0.5, NULL);
      }
    }
}

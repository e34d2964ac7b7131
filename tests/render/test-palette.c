/* test-palette.c — the pictures' colours, as people with colour vision
 * deficiencies see them, and one look per kind of memory.
 *
 * Colours are simulated with the matrices of Machado, Oliveira and Fernandes,
 * "A Physiologically-based Model for Simulation of Color Vision Deficiency",
 * IEEE TVCG 15(6), 2009 (severity 1.0: deuteranopia, protanopia, tritanopia),
 * applied to linear RGB, and compared in CIELAB with CIEDE2000 (Sharma, Wu and
 * Dalal, "The CIEDE2000 Color-Difference Formula", 2005).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "gml-render.h"

typedef struct
{
  const char *name;
  double      m[3][3];
} Vision;

static const Vision visions[] = {
  { "normal vision", { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } },
  { "deuteranopia", { { 0.367322, 0.860646, -0.227968 },
                      { 0.280085, 0.672501, 0.047413 },
                      { -0.011820, 0.042940, 0.968881 } } },
  { "protanopia", { { 0.152286, 1.052583, -0.204868 },
                    { 0.114503, 0.786281, 0.099216 },
                    { -0.003882, -0.048116, 1.051998 } } },
  { "tritanopia", { { 1.255528, -0.076749, -0.178779 },
                    { -0.078411, 0.930809, 0.147602 },
                    { 0.004733, 0.691367, 0.303900 } } },
};

static double
to_linear (double c)
{
  return c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

static double
lab_f (double t)
{
  return t > 216.0 / 24389.0 ? cbrt (t) : (24389.0 / 27.0 * t + 16) / 116;
}

/* sRGB → simulated linear RGB → CIELAB (D65). */
static void
to_lab (const GmlColor *c,
        const Vision   *v,
        double          lab[3])
{
  double rgb[3] = { to_linear (c->red), to_linear (c->green), to_linear (c->blue) };
  double s[3], x, y, z;

  for (int i = 0; i < 3; i++)
    s[i] = CLAMP (v->m[i][0] * rgb[0] + v->m[i][1] * rgb[1] + v->m[i][2] * rgb[2], 0, 1);
  x = (0.4124564 * s[0] + 0.3575761 * s[1] + 0.1804375 * s[2]) / 0.95047;
  y = 0.2126729 * s[0] + 0.7151522 * s[1] + 0.0721750 * s[2];
  z = (0.0193339 * s[0] + 0.1191920 * s[1] + 0.9503041 * s[2]) / 1.08883;
  lab[0] = 116 * lab_f (y) - 16;
  lab[1] = 500 * (lab_f (x) - lab_f (y));
  lab[2] = 200 * (lab_f (y) - lab_f (z));
}

static double
deg (double rad)
{
  return rad * 180 / G_PI;
}

static double
rad (double d)
{
  return d * G_PI / 180;
}

static double
ciede2000 (const double l1[3],
           const double l2[3])
{
  double c1 = hypot (l1[1], l1[2]), c2 = hypot (l2[1], l2[2]), cb = (c1 + c2) / 2;
  double g = 0.5 * (1 - sqrt (pow (cb, 7) / (pow (cb, 7) + pow (25, 7))));
  double a1 = (1 + g) * l1[1], a2 = (1 + g) * l2[1];
  double c1p = hypot (a1, l1[2]), c2p = hypot (a2, l2[2]);
  double h1 = fmod (deg (atan2 (l1[2], a1)) + 360, 360), h2 = fmod (deg (atan2 (l2[2], a2)) + 360, 360);
  double dl = l2[0] - l1[0], dc = c2p - c1p, dh = 0, lb, cbp, hb, t, dth, rc, sl, sc, sh, rt;

  if (c1p * c2p != 0)
    {
      dh = h2 - h1;
      if (dh > 180)
        dh -= 360;
      else if (dh < -180)
        dh += 360;
    }
  dh = 2 * sqrt (c1p * c2p) * sin (rad (dh / 2));
  lb = (l1[0] + l2[0]) / 2;
  cbp = (c1p + c2p) / 2;
  if (c1p * c2p == 0)
    hb = h1 + h2;
  else if (fabs (h1 - h2) > 180)
    hb = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
  else
    hb = (h1 + h2) / 2;
  t = 1 - 0.17 * cos (rad (hb - 30)) + 0.24 * cos (rad (2 * hb)) + 0.32 * cos (rad (3 * hb + 6))
      - 0.20 * cos (rad (4 * hb - 63));
  dth = 30 * exp (-pow ((hb - 275) / 25, 2));
  rc = 2 * sqrt (pow (cbp, 7) / (pow (cbp, 7) + pow (25, 7)));
  sl = 1 + 0.015 * pow (lb - 50, 2) / sqrt (20 + pow (lb - 50, 2));
  sc = 1 + 0.045 * cbp;
  sh = 1 + 0.015 * cbp * t;
  rt = -sin (rad (2 * dth)) * rc;
  return sqrt (pow (dl / sl, 2) + pow (dc / sc, 2) + pow (dh / sh, 2) + rt * (dc / sc) * (dh / sh));
}

static void
test_ciede2000_reference (void)
{
  /* Pairs 1, 7 and 17 of Sharma, Wu and Dalal's test data. */
  static const double pairs[][7] = {
    { 50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425 },
    { 50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669 },
    { 50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    g_assert_cmpfloat_with_epsilon (ciede2000 (pairs[i], pairs[i] + 3), pairs[i][6], 1e-4);
}

/* The seven colours of allocated memory (one per category, "Other" too) stay
 * apart in every vision, in every style: the smallest CIEDE2000 difference
 * between any two is printed and must be at least 12 (about three times
 * what people notice side by side). */
static void
test_categories_apart (void)
{
  double worst_all = G_MAXDOUBLE;

  for (GmlTheme theme = 0; theme < GML_N_THEMES; theme++)
    {
      GmlRenderStyle style;

      gml_render_style_init (&style, theme);
      for (guint v = 0; v < G_N_ELEMENTS (visions); v++)
        {
          double worst = G_MAXDOUBLE;
          int wa = 0, wb = 0;

          for (int a = 0; a < GML_N_CATEGORIES; a++)
            for (int b = a + 1; b < GML_N_CATEGORIES; b++)
              {
                double la[3], lb[3], d;

                to_lab (&style.palette.category[a], &visions[v], la);
                to_lab (&style.palette.category[b], &visions[v], lb);
                d = ciede2000 (la, lb);
                if (d < worst)
                  {
                    worst = d;
                    wa = a;
                    wb = b;
                  }
              }
          g_test_message ("theme %d, %s: smallest difference %.1f (%s / %s)", theme,
                          visions[v].name,
                          worst, gml_memory_kind_name (wa), gml_memory_kind_name (wb));
          worst_all = MIN (worst_all, worst);
          g_assert_cmpfloat (worst, >=, 12.0);
        }
    }
  g_test_message ("smallest CIEDE2000 difference between categories, all styles and visions: %.1f",
                  worst_all);
}

/* The question's mark is not the colour of failure, in any vision; and
 * failure (always drawn with its words: "Failed request", "Out of memory")
 * stays apart from the categories too. */
static void
test_mark_is_not_failure (void)
{
  double worst = G_MAXDOUBLE;

  for (GmlTheme theme = 0; theme < GML_N_THEMES; theme++)
    {
      GmlRenderStyle style;

      gml_render_style_init (&style, theme);
      for (guint v = 0; v < G_N_ELEMENTS (visions); v++)
        {
          double lm[3], lo[3];

          to_lab (&style.palette.highlight, &visions[v], lm);
          to_lab (&style.palette.oom, &visions[v], lo);
          g_assert_cmpfloat (ciede2000 (lm, lo), >=, 20.0);
          for (int c = 0; c < GML_N_CATEGORIES; c++)
            {
              double lc[3];

              to_lab (&style.palette.category[c], &visions[v], lc);
              worst = MIN (worst, ciede2000 (lo, lc));
            }
        }
    }
  g_test_message ("smallest difference between failure and a category: %.1f", worst);
  g_assert_cmpfloat (worst, >=, 10.0);
}

/* One colour per kind everywhere: the colour that stands for "allocated by
 * PyTorch, whatever the tensors are" (timelines, comparison bars) is none of
 * the categories' (it is not the weights' blue); "free on the GPU" is not the
 * activations' green; pinned host memory is not the segments' ink. */
static void
test_aggregates_apart (void)
{
  double worst = G_MAXDOUBLE;

  for (GmlTheme theme = 0; theme < GML_N_THEMES; theme++)
    {
      GmlRenderStyle style;

      gml_render_style_init (&style, theme);
      for (guint v = 0; v < G_N_ELEMENTS (visions); v++)
        {
          double la[3], lf[3], lp[3], lr[3];

          to_lab (&style.palette.allocated, &visions[v], la);
          to_lab (&style.palette.device_free, &visions[v], lf);
          to_lab (&style.palette.pinned, &visions[v], lp);
          to_lab (&style.palette.reserved, &visions[v], lr);
          for (int c = 0; c < GML_N_CATEGORIES; c++)
            {
              double lc[3], d1, d2;

              to_lab (&style.palette.category[c], &visions[v], lc);
              d1 = ciede2000 (la, lc);
              d2 = ciede2000 (lf, lc);
              if (MIN (d1, d2) < 10.0)
                g_test_message ("theme %d, %s: %s %.1f from %s", theme, visions[v].name,
                                d1 < d2 ? "allocated" : "free on the GPU", MIN (d1, d2),
                                gml_memory_kind_name (c));
              worst = MIN (worst, MIN (d1, d2));
            }
          if (ciede2000 (lp, lr) < 10.0)
            g_test_message ("theme %d, %s: pinned %.1f from segment", theme, visions[v].name,
                            ciede2000 (lp, lr));
          worst = MIN (worst, ciede2000 (lp, lr));
        }
    }
  g_test_message ("smallest difference of an aggregate colour: %.1f", worst);
  g_assert_cmpfloat (worst, >=, 10.0);
}

/* Each kind of memory drawn as a swatch: no two kinds look alike, even to a
 * deuteranope, because every kind that is not a category colour has a
 * pattern of its own. Pixels are compared after simulation. */
static cairo_surface_t *
swatch (const GmlRenderStyle *style,
        GmlMemoryKind         kind)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 24, 24);
  cairo_t *cr = cairo_create (surface);

  cairo_rectangle (cr, 0, 0, 24, 24);
  gml_render_memory_kind_fill (cr, style, kind);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

static double
image_difference (cairo_surface_t *a,
                  cairo_surface_t *b,
                  const Vision    *v)
{
  const guint8 *da = cairo_image_surface_get_data (a), *db = cairo_image_surface_get_data (b);
  int stride = cairo_image_surface_get_stride (a);
  double sum = 0;

  for (int y = 0; y < 24; y++)
    for (int x = 0; x < 24; x++)
      {
        guint32 pa = *(const guint32 *) (da + y * stride + 4 * x);
        guint32 pb = *(const guint32 *) (db + y * stride + 4 * x);
        GmlColor ca = { ((pa >> 16) & 0xff) / 255.0, ((pa >> 8) & 0xff) / 255.0,
                        (pa & 0xff) / 255.0, 1 };
        GmlColor cb = { ((pb >> 16) & 0xff) / 255.0, ((pb >> 8) & 0xff) / 255.0,
                        (pb & 0xff) / 255.0, 1 };
        double la[3], lb[3];

        to_lab (&ca, v, la);
        to_lab (&cb, v, lb);
        sum += ciede2000 (la, lb);
      }
  return sum / (24 * 24);
}

static void
test_kinds_distinct (void)
{
  for (GmlTheme theme = 0; theme < GML_N_THEMES; theme++)
    {
      GmlRenderStyle style;
      cairo_surface_t *images[GML_N_MEMORY_KINDS];

      gml_render_style_init (&style, theme);
      for (int k = 0; k < GML_N_MEMORY_KINDS; k++)
        images[k] = swatch (&style, k);
      for (guint v = 0; v < G_N_ELEMENTS (visions); v++)
        for (int a = 0; a < GML_N_MEMORY_KINDS; a++)
          for (int b = a + 1; b < GML_N_MEMORY_KINDS; b++)
            {
              double d = image_difference (images[a], images[b], &visions[v]);

              if (d < 8.0)
                g_error ("theme %d, %s: “%s” and “%s” look alike (mean difference %.1f)", theme,
                         visions[v].name, gml_memory_kind_name (a), gml_memory_kind_name (b), d);
            }
      for (int k = 0; k < GML_N_MEMORY_KINDS; k++)
        cairo_surface_destroy (images[k]);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/render/palette/ciede2000", test_ciede2000_reference);
  g_test_add_func ("/render/palette/categories-apart", test_categories_apart);
  g_test_add_func ("/render/palette/mark-is-not-failure", test_mark_is_not_failure);
  g_test_add_func ("/render/palette/kinds-distinct", test_kinds_distinct);
  g_test_add_func ("/render/palette/aggregates-apart", test_aggregates_apart);
  return g_test_run ();
}

/* gml-qr.c — a QR code of the audience page's address, for the projected slide.
 *
 * Written from the structure ISO/IEC 18004 gives a symbol: the data as codewords
 * (mode, count, bytes, terminator, pad bytes), Reed–Solomon error correction per
 * block over GF(256) (x^8 + x^4 + x^3 + x^2 + 1), the blocks interleaved, placed in
 * two-module columns from the bottom right around the finder, timing and alignment
 * patterns, masked, and the format information (BCH-coded, in two copies).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "gml-qr.h"

/* Level M, versions 1 to 6: error correction codewords per block, the number of
 * blocks and the data codewords of each (all blocks are the same size here). */
static const struct
{
  guint ec;
  guint blocks;
  guint data;
} level_m[] = {
  { 0, 0, 0 },
  { 10, 1, 16 },
  { 16, 1, 28 },
  { 26, 1, 44 },
  { 18, 2, 32 },
  { 24, 2, 43 },
  { 16, 4, 27 },
};

typedef struct
{
  guint   size;
  guint8 *dark;
  guint8 *function;   /* finder, timing, alignment and format modules: never data */
} Symbol;

static guint8
gf_multiply (guint8 a,
             guint8 b)
{
  guint product = 0;

  for (int bit = 7; bit >= 0; bit--)
    {
      product = (product << 1) ^ ((product >> 7) * 0x11d);
      if ((b >> bit) & 1)
        product ^= a;
    }
  return (guint8) product;
}

/* The coefficients of (x − α^0)(x − α^1)…(x − α^(degree−1)), highest first, without
 * the leading 1. */
static void
rs_generator (guint   degree,
              guint8 *generator)
{
  guint8 root = 1;

  memset (generator, 0, degree);
  generator[degree - 1] = 1;
  for (guint i = 0; i < degree; i++)
    {
      for (guint j = 0; j < degree; j++)
        {
          generator[j] = gf_multiply (generator[j], root);
          if (j + 1 < degree)
            generator[j] ^= generator[j + 1];
        }
      root = gf_multiply (root, 2);
    }
}

static void
rs_remainder (const guint8 *data,
              guint         n,
              const guint8 *generator,
              guint         degree,
              guint8       *out)
{
  memset (out, 0, degree);
  for (guint i = 0; i < n; i++)
    {
      guint8 factor = data[i] ^ out[0];

      memmove (out, out + 1, degree - 1);
      out[degree - 1] = 0;
      for (guint j = 0; j < degree; j++)
        out[j] ^= gf_multiply (generator[j], factor);
    }
}

static void
set_function (Symbol  *s,
              guint    x,
              guint    y,
              gboolean dark)
{
  s->dark[y * s->size + x] = dark ? 1 : 0;
  s->function[y * s->size + x] = 1;
}

/* A finder pattern with its light separator, centred at (cx, cy). */
static void
draw_finder (Symbol *s,
             int     cx,
             int     cy)
{
  for (int dy = -4; dy <= 4; dy++)
    for (int dx = -4; dx <= 4; dx++)
      {
        int x = cx + dx, y = cy + dy;
        int d = MAX (ABS (dx), ABS (dy));

        if (x >= 0 && y >= 0 && x < (int) s->size && y < (int) s->size)
          set_function (s, (guint) x, (guint) y, d != 2 && d != 4);
      }
}

static void
draw_alignment (Symbol *s,
                guint   cx,
                guint   cy)
{
  for (int dy = -2; dy <= 2; dy++)
    for (int dx = -2; dx <= 2; dx++)
      set_function (s, cx + dx, cy + dy, MAX (ABS (dx), ABS (dy)) != 1);
}

static void
draw_format (Symbol *s,
             guint   mask)
{
  guint data = (0u << 3) | mask;   /* level M is 00 */
  guint rem = data;
  guint bits;
  guint n = s->size;

  for (guint i = 0; i < 10; i++)
    rem = (rem << 1) ^ ((rem >> 9) * 0x537);
  bits = ((data << 10) | rem) ^ 0x5412;
#define BIT(i) (((bits) >> (i)) & 1)
  for (guint i = 0; i <= 5; i++)
    set_function (s, 8, i, BIT (i));
  set_function (s, 8, 7, BIT (6));
  set_function (s, 8, 8, BIT (7));
  set_function (s, 7, 8, BIT (8));
  for (guint i = 9; i < 15; i++)
    set_function (s, 14 - i, 8, BIT (i));
  for (guint i = 0; i < 8; i++)
    set_function (s, n - 1 - i, 8, BIT (i));
  for (guint i = 8; i < 15; i++)
    set_function (s, 8, n - 15 + i, BIT (i));
#undef BIT
  set_function (s, 8, n - 8, TRUE);   /* the dark module */
}

static void
draw_functions (Symbol *s,
                guint   version)
{
  guint n = s->size;

  for (guint i = 0; i < n; i++)
    {
      set_function (s, 6, i, i % 2 == 0);
      set_function (s, i, 6, i % 2 == 0);
    }
  draw_finder (s, 3, 3);
  draw_finder (s, (int) n - 4, 3);
  draw_finder (s, 3, (int) n - 4);
  if (version >= 2)
    draw_alignment (s, n - 7, n - 7);
  draw_format (s, 0);   /* reserves the format modules; drawn again with the mask */
}

static gboolean
masked (guint mask,
        guint x,
        guint y)
{
  switch (mask)
    {
    case 0: return (x + y) % 2 == 0;
    case 1: return y % 2 == 0;
    case 2: return x % 3 == 0;
    case 3: return (x + y) % 3 == 0;
    case 4: return (x / 3 + y / 2) % 2 == 0;
    case 5: return x * y % 2 + x * y % 3 == 0;
    case 6: return (x * y % 2 + x * y % 3) % 2 == 0;
    default: return ((x + y) % 2 + x * y % 3) % 2 == 0;
    }
}

static void
apply_mask (Symbol *s,
            guint   mask)
{
  for (guint y = 0; y < s->size; y++)
    for (guint x = 0; x < s->size; x++)
      if (!s->function[y * s->size + x] && masked (mask, x, y))
        s->dark[y * s->size + x] ^= 1;
}

static guint8
module (const Symbol *s,
        int           x,
        int           y)
{
  if (x < 0 || y < 0 || x >= (int) s->size || y >= (int) s->size)
    return 0;
  return s->dark[y * s->size + x];
}

/* The four penalty rules of the standard; the mask with the lowest wins. */
static guint
penalty (const Symbol *s)
{
  static const guint8 finder_like[] = { 1, 0, 1, 1, 1, 0, 1 };
  int n = (int) s->size;
  guint total = 0, dark = 0;

  for (int pass = 0; pass < 2; pass++)
    for (int a = 0; a < n; a++)
      {
        int run = 0;
        guint8 last = 2;

        for (int b = 0; b < n; b++)
          {
            guint8 m = pass == 0 ? module (s, b, a) : module (s, a, b);

            run = m == last ? run + 1 : 1;
            last = m;
            if (run == 5)
              total += 3;
            else if (run > 5)
              total += 1;
          }
        /* 1:1:3:1:1 with four light modules on one side. */
        for (int b = -4; b < n; b++)
          {
            gboolean match = TRUE;

            for (int k = 0; k < 7 && match; k++)
              match = (pass == 0 ? module (s, b + k, a) : module (s, a, b + k)) == finder_like[k];
            if (!match)
              continue;
            for (int side = 0; side < 2; side++)
              {
                gboolean light = TRUE;

                for (int k = 1; k <= 4 && light; k++)
                  {
                    int at = side == 0 ? b - k : b + 6 + k;

                    light = (pass == 0 ? module (s, at, a) : module (s, a, at)) == 0;
                  }
                if (light)
                  total += 40;
              }
          }
      }
  for (int y = 0; y + 1 < n; y++)
    for (int x = 0; x + 1 < n; x++)
      {
        guint8 m = module (s, x, y);

        if (m == module (s, x + 1, y) && m == module (s, x, y + 1) && m == module (s, x + 1, y + 1))
          total += 3;
      }
  for (int i = 0; i < n * n; i++)
    dark += s->dark[i];
  {
    guint percent = dark * 100 / (guint) (n * n);
    guint off = percent > 50 ? percent - 50 : 50 - percent;

    total += off / 5 * 10;
  }
  return total;
}

guint8 *
gml_qr_encode (const char *text,
               gsize       length,
               guint      *size)
{
  guint version = 0;
  guint n_data, n_total, ec, blocks, per_block;
  g_autofree guint8 *data = NULL;
  g_autofree guint8 *codewords = NULL;
  g_autofree guint8 *generator = NULL;
  g_autofree guint8 *ecc = NULL;
  g_autofree guint8 *best = NULL;
  guint best_penalty = G_MAXUINT;
  Symbol s;
  guint bit = 0;

  g_return_val_if_fail (size != NULL, NULL);
  *size = 0;
  if (text == NULL)
    return NULL;
  for (guint v = 1; v < G_N_ELEMENTS (level_m) && version == 0; v++)
    if (length <= (level_m[v].blocks * level_m[v].data * 8 - 12) / 8)
      version = v;
  if (version == 0)
    return NULL;
  ec = level_m[version].ec;
  blocks = level_m[version].blocks;
  per_block = level_m[version].data;
  n_data = blocks * per_block;
  n_total = n_data + blocks * ec;

  /* The data codewords: mode 0100 (bytes), an 8-bit count, the bytes, a terminator
   * of up to four zero bits, then 0xEC and 0x11 in turn. */
  data = g_malloc0 (n_data);
#define PUT(value, bits)                                                  \
  G_STMT_START {                                                          \
    for (int k = (bits) - 1; k >= 0; k--, bit++)                          \
      if ((((value) >> k) & 1) != 0)                                      \
        data[bit / 8] |= (guint8) (0x80 >> (bit % 8));                    \
  } G_STMT_END
  PUT (0x4u, 4);
  PUT ((guint) length, 8);
  for (gsize i = 0; i < length; i++)
    PUT ((guint8) text[i], 8);
#undef PUT
  bit += MIN (4u, n_data * 8 - bit);
  for (guint i = (bit + 7) / 8, pad = 0; i < n_data; i++, pad++)
    data[i] = pad % 2 == 0 ? 0xec : 0x11;

  /* Each block's error correction, then data and correction interleaved. */
  generator = g_malloc (ec);
  ecc = g_malloc (blocks * ec);
  rs_generator (ec, generator);
  for (guint b = 0; b < blocks; b++)
    rs_remainder (data + b * per_block, per_block, generator, ec, ecc + b * ec);
  codewords = g_malloc (n_total);
  {
    guint k = 0;

    for (guint i = 0; i < per_block; i++)
      for (guint b = 0; b < blocks; b++)
        codewords[k++] = data[b * per_block + i];
    for (guint i = 0; i < ec; i++)
      for (guint b = 0; b < blocks; b++)
        codewords[k++] = ecc[b * ec + i];
  }

  s.size = 17 + 4 * version;
  s.dark = g_malloc0 (s.size * s.size);
  s.function = g_malloc0 (s.size * s.size);
  draw_functions (&s, version);

  /* Two-module columns from the right, up and down in turn, skipping the vertical
   * timing pattern; the remainder bits stay light. */
  {
    guint i = 0;

    for (int right = (int) s.size - 1; right >= 1; right -= 2)
      {
        if (right == 6)
          right = 5;
        for (guint vert = 0; vert < s.size; vert++)
          for (int j = 0; j < 2; j++)
            {
              guint x = (guint) (right - j);
              gboolean upward = ((right + 1) & 2) == 0;
              guint y = upward ? s.size - 1 - vert : vert;

              if (!s.function[y * s.size + x] && i < n_total * 8)
                {
                  s.dark[y * s.size + x] = (codewords[i / 8] >> (7 - i % 8)) & 1;
                  i++;
                }
            }
      }
  }

  for (guint mask = 0; mask < 8; mask++)
    {
      guint p;

      apply_mask (&s, mask);
      draw_format (&s, mask);
      p = penalty (&s);
      if (p < best_penalty)
        {
          best_penalty = p;
          g_free (best);
          best = g_memdup2 (s.dark, s.size * s.size);
        }
      apply_mask (&s, mask);   /* undone: XOR twice */
    }
  g_free (s.function);
  g_free (s.dark);
  *size = s.size;
  return g_steal_pointer (&best);
}

/* gml-format.c — sizes and numbers as the lab writes and reads them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-format"

#include "config.h"

#include <math.h>
#include <string.h>

#include "gml-format.h"
#include "gml-i18n.h"

/* c10's format_size(): "N bytes" up to 1024, then two decimals. Uses
 * g_ascii_formatd so that a Turkish locale does not print a decimal comma. */
char *
gml_format_size (guint64 size)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (size <= 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " bytes", size);
  if (size <= GML_MiB)
    return g_strconcat (g_ascii_formatd (buf, sizeof buf, "%.2f", (double) size / 1024.0),
                        " KiB", NULL);
  if (size <= GML_GiB)
    return g_strconcat (g_ascii_formatd (buf, sizeof buf, "%.2f", (double) size / 1048576.0),
                        " MiB", NULL);
  return g_strconcat (g_ascii_formatd (buf, sizeof buf, "%.2f", (double) size / 1073741824.0),
                      " GiB", NULL);
}

char *
gml_format_localise_point (char *buf)
{
  if (g_strcmp0 (gml_i18n_get_language (), "tr") == 0 && strchr (buf, '.') != NULL)
    *strchr (buf, '.') = ',';
  return buf;
}

char *
gml_format_number (double value,
                   guint  decimals)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char format[8];

  g_snprintf (format, sizeof format, "%%.%uf", MIN (decimals, 9));
  g_ascii_formatd (buf, sizeof buf, format, value);
  return g_strdup (gml_format_localise_point (buf));
}

/* 64.00 → 64, 1.50 → 1.5; and a decimal comma in Turkish ("1,5"), as Turkish
 * prose writes numbers. PyTorch's own message (gml_format_size) keeps its style. */
static char *
drop_trailing_zeros (char *buf)
{
  if (strchr (buf, '.') != NULL)
    {
      char *end = buf + strlen (buf) - 1;

      while (*end == '0')
        *end-- = '\0';
      if (*end == '.')
        *end = '\0';
    }
  return gml_format_localise_point (buf);
}

char *
gml_format_grouped (guint64 n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  /* Translators: the separator of thousands in a long number ("124,439,808"). */
  const char *sep = C_("thousands separator", ",");
  GString *out = g_string_new (NULL);
  gsize len = strlen (digits);

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append (out, sep);
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

/* Divides @size by @base until it is below it, and prints it with @units. */
static char *
format_scaled (guint64             size,
               double              base,
               const char * const *units)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  double value = size;
  int unit = -1;

  if (size < base)
    return g_strdup_printf ("%u B", (guint) size);
  while (value >= base && unit < 3)
    {
      value /= base;
      unit++;
    }
  g_ascii_formatd (buf, sizeof buf, "%.2f", value);
  drop_trailing_zeros (buf);
  return g_strdup_printf ("%s %s", buf, units[unit]);
}

char *
gml_format_size_short (guint64 size)
{
  static const char * const units[] = { "KiB", "MiB", "GiB", "TiB" };

  return format_scaled (size, 1024.0, units);
}

char *
gml_format_size_decimal (guint64 size)
{
  static const char * const units[] = { "kB", "MB", "GB", "TB" };

  return format_scaled (size, 1000.0, units);
}

/* The unit after a command line's letter: nothing, "B" or "iB", all binary. */
static gboolean
command_line_unit (const char *unit,
                   double     *factor)
{
  static const char letters[] = "KMGT";
  const char *letter = strchr (letters, g_ascii_toupper (unit[0]));

  if (unit[0] == '\0' || letter == NULL)
    return FALSE;
  if (unit[1] != '\0' && !g_str_equal (unit + 1, "B") && !g_str_equal (unit + 1, "iB"))
    return FALSE;
  *factor = ldexp (1.0, 10 * (int) (letter - letters + 1));
  return TRUE;
}

gboolean
gml_parse_size (const char   *text,
                GmlSizeFlags  flags,
                guint64      *bytes,
                gboolean     *decimal)
{
  static const struct { const char *unit; double factor; gboolean decimal; } units[] = {
    { "B", 1, FALSE }, { "bytes", 1, FALSE }, { "byte", 1, FALSE },
    { "KiB", 1024.0, FALSE }, { "MiB", 1048576.0, FALSE },
    { "GiB", 1073741824.0, FALSE }, { "TiB", 1099511627776.0, FALSE },
    { "kB", 1e3, TRUE }, { "KB", 1e3, TRUE }, { "MB", 1e6, TRUE }, { "GB", 1e9, TRUE },
    { "TB", 1e12, TRUE },
  };
  gboolean command_line = (flags & GML_SIZE_COMMAND_LINE) != 0;
  g_autofree char *copy = NULL;
  char *end = NULL;
  const char *p;
  double number;
  double factor = 0;
  gboolean is_decimal = FALSE;
  double value;

  if (text == NULL)
    return FALSE;
  copy = g_strstrip (g_strdup (text));
  /* Digits and one point only: no signs, exponents, "inf" or "nan". */
  for (p = copy; g_ascii_isdigit (*p) || *p == '.'; p++)
    ;
  if (p == copy || *copy == '.')
    return FALSE;
  number = g_ascii_strtod (copy, &end);
  if (end != p || !isfinite (number) || number < 0)
    return FALSE;
  while (*p == ' ')
    p++;
  if (*p == '\0')
    {
      if (strchr (copy, '.') != NULL || number > 9.0e18)
        return FALSE;
      factor = 1;
    }
  else if (command_line)
    {
      if (!command_line_unit (p, &factor) && !g_str_equal (p, "B"))
        return FALSE;
      if (factor == 0)
        factor = 1;
    }
  else
    {
      for (guint i = 0; i < G_N_ELEMENTS (units) && factor == 0; i++)
        if (g_str_equal (p, units[i].unit))
          {
            factor = units[i].factor;
            is_decimal = units[i].decimal;
          }
      if (factor == 0)
        return FALSE;
    }
  value = number * factor;
  if (value > 9.0e18 || (command_line && llround (value) == 0))
    return FALSE;
  *bytes = (guint64) llround (value);
  if (decimal)
    *decimal = is_decimal;
  return TRUE;
}

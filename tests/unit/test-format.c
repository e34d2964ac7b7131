/* test-format.c — the one size parser and the size formatters every layer uses.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "gml-format.h"
#include "gml-i18n.h"

/* A command line's sizes are binary, letters and all: an "80 GB" A100 has 80 GiB. */
static void
test_command_line (void)
{
  static const struct { const char *text; guint64 bytes; gboolean ok; } cases[] = {
    { "80G", G_GUINT64_CONSTANT (85899345920), TRUE },
    { "80GiB", G_GUINT64_CONSTANT (85899345920), TRUE },
    { "80GB", G_GUINT64_CONSTANT (85899345920), TRUE },
    { "24 GiB", G_GUINT64_CONSTANT (25769803776), TRUE },
    { "512M", G_GUINT64_CONSTANT (536870912), TRUE },
    { "512m", G_GUINT64_CONSTANT (536870912), TRUE },
    { "1.5G", G_GUINT64_CONSTANT (1610612736), TRUE },
    { "2T", G_GUINT64_CONSTANT (2199023255552), TRUE },
    { "85899345920", G_GUINT64_CONSTANT (85899345920), TRUE },
    { "4096 B", 4096, TRUE },
    { "0", 0, FALSE }, { "0G", 0, FALSE }, { "", 0, FALSE }, { "G", 0, FALSE },
    { "-1G", 0, FALSE }, { "80X", 0, FALSE }, { "80 GiBs", 0, FALSE }, { "1e9", 0, FALSE },
    { "9000000T", 0, FALSE }, { "80Gb", 0, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint64 bytes = 0;
      gboolean decimal = TRUE;

      g_test_message ("%s", cases[i].text);
      g_assert_cmpint (gml_parse_size (cases[i].text, GML_SIZE_COMMAND_LINE, &bytes, &decimal),
                       ==, cases[i].ok);
      if (cases[i].ok)
        {
          g_assert_cmpuint (bytes, ==, cases[i].bytes);
          g_assert_false (decimal);
        }
    }
}

/* A bank's "6 GB" is decimal and its "80G" is no size at all. */
static void
test_units_differ (void)
{
  guint64 bytes = 0;
  gboolean decimal = FALSE;

  g_assert_true (gml_parse_size ("6 GB", GML_SIZE_UNITS, &bytes, &decimal));
  g_assert_cmpuint (bytes, ==, G_GUINT64_CONSTANT (6000000000));
  g_assert_true (decimal);
  g_assert_false (gml_parse_size ("80G", GML_SIZE_UNITS, &bytes, NULL));
  g_assert_true (gml_parse_size ("0", GML_SIZE_UNITS, &bytes, NULL));
  g_assert_cmpuint (bytes, ==, 0);
}

static void
test_formatters (void)
{
  static const struct { guint64 size; const char *torch, *shrt, *decimal; } cases[] = {
    { 1000, "1000 bytes", "1000 B", "1 kB" },
    { 1024, "1024 bytes", "1 KiB", "1.02 kB" },
    { 3145728, "3.00 MiB", "3 MiB", "3.15 MB" },
    { 1610612736, "1.50 GiB", "1.5 GiB", "1.61 GB" },
    { G_GUINT64_CONSTANT (112000000000), "104.31 GiB", "104.31 GiB", "112 GB" },
  };

  gml_i18n_set_language ("en");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *torch = gml_format_size (cases[i].size);
      g_autofree char *shrt = gml_format_size_short (cases[i].size);
      g_autofree char *decimal = gml_format_size_decimal (cases[i].size);

      g_assert_cmpstr (torch, ==, cases[i].torch);
      g_assert_cmpstr (shrt, ==, cases[i].shrt);
      g_assert_cmpstr (decimal, ==, cases[i].decimal);
    }
  gml_i18n_set_language (NULL);
}

/* Turkish prose writes a decimal comma; PyTorch's own message never does. */
static void
test_turkish (void)
{
  g_autofree char *torch = NULL;
  g_autofree char *shrt = NULL;
  g_autofree char *grouped = NULL;

  gml_i18n_set_language ("tr");
  torch = gml_format_size (1610612736);
  shrt = gml_format_size_short (1610612736);
  grouped = gml_format_grouped (124439808);
  g_assert_cmpstr (torch, ==, "1.50 GiB");
  g_assert_cmpstr (shrt, ==, "1,5 GiB");
  g_assert_cmpstr (grouped, ==, "124.439.808");
  gml_i18n_set_language (NULL);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gml_i18n_init ();
  g_test_add_func ("/core/format/command-line", test_command_line);
  g_test_add_func ("/core/format/units-differ", test_units_differ);
  g_test_add_func ("/core/format/formatters", test_formatters);
  g_test_add_func ("/core/format/turkish", test_turkish);
  return g_test_run ();
}

/* gml-format.h — sizes and numbers as the lab writes and reads them.
 *
 * One place for every size the lab prints (PyTorch's own style, captions,
 * decimal units) and for every size it reads (question banks, the command
 * line), so that the same text means the same bytes everywhere.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define GML_KiB G_GUINT64_CONSTANT (1024)
#define GML_MiB G_GUINT64_CONSTANT (1048576)
#define GML_GiB G_GUINT64_CONSTANT (1073741824)

/* c10's format_size(): "1000 bytes", "3.00 MiB", as PyTorch's messages print
 * sizes, with a decimal point in every language. */
char      *gml_format_size           (guint64     size);
/* "64 MiB", "1.25 MiB": PyTorch's units without trailing zeros, with a decimal
 * comma in Turkish ("1,25 MiB"). */
char      *gml_format_size_short     (guint64     size);
/* "124,439,808" in English, "124.439.808" in Turkish. */
char      *gml_format_grouped        (guint64     n);
/* "112 GB", "38.5 GB": decimal units (10⁹ bytes), as the ZeRO paper counts. */
char      *gml_format_size_decimal   (guint64     size);
/* @value with @decimals decimals in the lab's language ("1.5", Turkish "1,5"),
 * whatever the system's locale: printf's %f follows LC_NUMERIC instead. */
char      *gml_format_number         (double      value,
                                      guint       decimals);
/* Turns the decimal point of @buf (a number g_ascii_formatd wrote) into the
 * language's own: a comma in Turkish. Returns @buf. */
char      *gml_format_localise_point (char       *buf);

typedef enum
{
  /* A bank's sizes: "3 MiB", "20.00 MiB", "6 GB" (decimal), "1000 B", "1000". */
  GML_SIZE_UNITS        = 0,
  /* A command line's: "80G", "80GiB", "80 GB", "512M", "85899345920" — every
   * letter binary, as GPUs are sold ("an 80 GB A100" has 80 GiB); never 0. */
  GML_SIZE_COMMAND_LINE = 1 << 0,
} GmlSizeFlags;

/* Parses @text into *@bytes; *@decimal (may be NULL) says whether the unit
 * was decimal (kB, MB, GB, TB). Refuses signs, exponents, "inf", "nan" and
 * anything above 9 × 10¹⁸ bytes. */
gboolean   gml_parse_size            (const char  *text,
                                      GmlSizeFlags flags,
                                      guint64     *bytes,
                                      gboolean    *decimal);

G_END_DECLS

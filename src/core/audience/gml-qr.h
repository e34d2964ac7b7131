/* gml-qr.h — a QR code of the audience page's address, for the projected slide.
 *
 * The symbol of ISO/IEC 18004: byte mode, error correction level M, the smallest of
 * versions 1 to 6 that holds the text (up to 106 bytes: an address with an IPv4 host,
 * a port and a room code needs about 40), the mask with the lowest penalty.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define GML_QR_MAX_BYTES 106

/* SIZE × SIZE modules, row after row, 1 for dark; NULL when TEXT is longer than
 * GML_QR_MAX_BYTES.  Draw it with a light margin of four modules around it. */
guint8 *gml_qr_encode (const char *text,
                       gsize       length,
                       guint      *size);

G_END_DECLS

/* gml-allocator-private.h — bit arithmetic the allocator's size rules and the
 * alloc-conf parser share. Not installed, not for the app.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

static inline gboolean
is_power_of_2 (guint64 v)
{
  return v != 0 && (v & (v - 1)) == 0;
}

/* @v must not be 0. */
static inline guint
log2_floor (guint64 v)
{
  return 63 - __builtin_clzll (v);
}

G_END_DECLS

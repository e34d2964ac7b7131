/* gml-weak-ref.h — a weak reference to hand an asynchronous call as its user data.
 *
 * A page that passes itself (a strong reference) to the call it starts lives until
 * the call ends, so closing it does not dispose it, and its dispose, which cancels
 * the call, comes too late. Passing this instead lets the page go at once; the
 * callback asks for it back and finds NULL when it is gone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* A weak reference to @object, for one callback. */
gpointer gml_weak_ref_new   (gpointer object);
/* A strong reference to the object (NULL when it is gone); frees @weak. */
gpointer gml_weak_ref_steal (gpointer weak);

G_END_DECLS

/* gml-weak-ref.c — a weak reference to hand an asynchronous call as its user data.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "gml-weak-ref.h"

gpointer
gml_weak_ref_new (gpointer object)
{
  GWeakRef *weak = g_new0 (GWeakRef, 1);

  g_return_val_if_fail (G_IS_OBJECT (object), NULL);

  g_weak_ref_init (weak, object);
  return weak;
}

gpointer
gml_weak_ref_steal (gpointer weak)
{
  gpointer object;

  g_return_val_if_fail (weak != NULL, NULL);

  object = g_weak_ref_get (weak);
  g_weak_ref_clear (weak);
  g_free (weak);
  return object;
}

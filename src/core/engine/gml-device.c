/* gml-device.c — the generic side of the device interface.
 *
 * The wrappers only dispatch: each backend keeps its own in_use and n_live
 * counters (only it knows the size behind an address when freeing), and its
 * destroy() frees its state, the name and the struct itself.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-device"

#include "config.h"

#include "gml-i18n.h"

#include "gml-device.h"

G_DEFINE_QUARK (gml-device-error-quark, gml_device_error)

/* Statically allocated: needs no initialisation. */
static GRecMutex device_runs;

void
gml_device_begin_run (void)
{
  g_rec_mutex_lock (&device_runs);
}

void
gml_device_end_run (void)
{
  g_rec_mutex_unlock (&device_runs);
}

const char *
gml_device_get_id (GmlDevice *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->klass->id;
}

const char *
gml_device_get_name (GmlDevice *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  /* In the language of the moment: it can change while the device lives. */
  return self->name_is_msgid ? _(self->name) : self->name;
}

guint64
gml_device_get_budget (GmlDevice *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->budget;
}

gboolean
gml_device_alloc (GmlDevice  *self,
                  guint64     size,
                  guint64    *address,
                  GError    **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (address != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (size == 0)
    {
      g_set_error_literal (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INVALID,
                           _("Cannot allocate 0 bytes on the device."));
      return FALSE;
    }

  if (!self->klass->alloc (self, size, address, error))
    return FALSE;
  self->peak_in_use = MAX (self->peak_in_use, self->in_use);
  return TRUE;
}

gboolean
gml_device_free (GmlDevice  *self,
                 guint64     address,
                 GError    **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return self->klass->free (self, address, error);
}

gboolean
gml_device_mem_get_info (GmlDevice  *self,
                         guint64    *free_bytes,
                         guint64    *total_bytes,
                         GError    **error)
{
  guint64 free_local = 0, total_local = 0;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!self->klass->mem_get_info (self, &free_local, &total_local, error))
    return FALSE;

  if (free_bytes)
    *free_bytes = free_local;
  if (total_bytes)
    *total_bytes = total_local;
  return TRUE;
}

gboolean
gml_device_can_map (GmlDevice *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->klass->reserve != NULL && self->klass->map != NULL;
}

gboolean
gml_device_reserve (GmlDevice  *self,
                    guint64    *size,
                    guint64    *address,
                    GError    **error)
{
  g_return_val_if_fail (self != NULL && size != NULL && address != NULL, FALSE);

  if (self->klass->reserve == NULL)
    {
      g_set_error_literal (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_FAILED,
                           _("This device cannot map memory into reserved address space "
                             "(expandable segments)."));
      return FALSE;
    }
  return self->klass->reserve (self, size, address, error);
}

void
gml_device_unreserve (GmlDevice *self,
                      guint64    address)
{
  g_return_if_fail (self != NULL);
  if (self->klass->unreserve != NULL)
    self->klass->unreserve (self, address);
}

gboolean
gml_device_map (GmlDevice  *self,
                guint64     address,
                guint64     size,
                GError    **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->klass->map == NULL)
    {
      g_set_error_literal (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_FAILED,
                           _("This device cannot map memory into reserved address space "
                             "(expandable segments)."));
      return FALSE;
    }
  if (!self->klass->map (self, address, size, error))
    return FALSE;
  self->peak_in_use = MAX (self->peak_in_use, self->in_use);
  return TRUE;
}

void
gml_device_unmap (GmlDevice *self,
                  guint64    address,
                  guint64    size)
{
  g_return_if_fail (self != NULL);
  if (self->klass->unmap != NULL)
    self->klass->unmap (self, address, size);
}

GmlDevice *
gml_device_ref (GmlDevice *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/* The last reference gives every live allocation back and frees the device. */
void
gml_device_unref (GmlDevice *self)
{
  if (self == NULL)
    return;
  if (g_atomic_ref_count_dec (&self->ref_count))
    self->klass->destroy (self);
}

void
gml_device_destroy (GmlDevice *self)
{
  gml_device_unref (self);
}

gboolean
gml_backend_kind_from_string (const char     *str,
                              GmlBackendKind *kind)
{
  g_return_val_if_fail (kind != NULL, FALSE);

  if (str == NULL)
    return FALSE;

  /* Identifiers: compared byte for byte, never through the locale. */
  if (g_str_equal (str, "auto"))
    *kind = GML_BACKEND_AUTO;
  else if (g_str_equal (str, "sim"))
    *kind = GML_BACKEND_SIM;
  else if (g_str_equal (str, "cuda"))
    *kind = GML_BACKEND_CUDA;
  else
    return FALSE;

  return TRUE;
}

GmlDevice *
gml_device_open (GmlBackendKind   kind,
                 guint64          sim_capacity,
                 guint64          cuda_budget,
                 char           **reason,
                 GError         **error)
{
  g_autoptr(GError) cuda_error = NULL;
  GmlDevice *device;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (reason)
    *reason = NULL;

  switch (kind)
    {
    case GML_BACKEND_SIM:
      return gml_device_sim_new (sim_capacity, 0);

    case GML_BACKEND_CUDA:
      return gml_device_cuda_new (cuda_budget, error);

    case GML_BACKEND_AUTO:
    default:
      device = gml_device_cuda_new (cuda_budget, &cuda_error);
      if (device != NULL)
        return device;

      /* The CUDA backend's messages are already translated sentences. */
      if (reason)
        *reason = g_strdup (cuda_error->message);
      return gml_device_sim_new (sim_capacity, 0);
    }
}

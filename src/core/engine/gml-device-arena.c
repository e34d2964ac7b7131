/* gml-device-arena.c — a smaller GPU inside the device the lab has.
 *
 * A question's experiment often needs a GPU of its own size: a 608 MiB device
 * of which 24 MiB are free, a CUDA context that holds 410 MiB, eight GPUs for
 * ZeRO. An arena is that device: every allocation really goes to the device
 * underneath (live CUDA memory or the simulator), but the arena refuses what
 * would exceed its own capacity and reports its own total and free memory, with
 * memory "outside this process's allocator" (a CUDA context, other programs)
 * counted as other_in_use. Its id is the base device's, so a picture on a live
 * GPU still says it is live.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-device"

#include "config.h"

#include "gml-i18n.h"

#include "gml-device.h"

typedef struct
{
  GmlDevice   parent;
  GmlDevice  *base;        /* a reference: the base outlives its arenas */
  guint64     capacity;
  GHashTable *sizes;       /* address -> bytes the base device counted for it */
} GmlDeviceArena;

static gboolean
arena_alloc (GmlDevice  *device,
             guint64     size,
             guint64    *address,
             GError    **error)
{
  GmlDeviceArena *self = (GmlDeviceArena *) device;
  guint64 used = device->in_use + device->other_in_use;
  guint64 before = self->base->in_use;
  guint64 counted;

  if (used > self->capacity || size > self->capacity - used)
    {
      g_autofree char *want = g_format_size_full (size, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *have = g_format_size_full (used, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *total = g_format_size_full (self->capacity, G_FORMAT_SIZE_IEC_UNITS);

      /* Translators: the experiment's own GPU is full; sizes as "3 MiB". */
      g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY,
                   _("The picture’s GPU has no room for %s more (%s of %s in use)."),
                   want, have, total);
      return FALSE;
    }
  if (!gml_device_alloc (self->base, size, address, error))
    return FALSE;

  /* Count what the base counted (the simulator counts whole 2 MiB pages). */
  counted = MAX (self->base->in_use - before, size);
  g_hash_table_insert (self->sizes, g_memdup2 (address, sizeof *address),
                       g_memdup2 (&counted, sizeof counted));
  device->in_use += counted;
  device->n_live++;
  return TRUE;
}

static gboolean
arena_free (GmlDevice  *device,
            guint64     address,
            GError    **error)
{
  GmlDeviceArena *self = (GmlDeviceArena *) device;
  guint64 *size = g_hash_table_lookup (self->sizes, &address);

  if (size == NULL)
    {
      g_autofree char *where = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", address);

      g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INVALID,
                   _("No device allocation starts at address %s."), where);
      return FALSE;
    }
  if (!gml_device_free (self->base, address, error))
    return FALSE;
  device->in_use -= MIN (*size, device->in_use);
  device->n_live--;
  g_hash_table_remove (self->sizes, &address);
  return TRUE;
}

static gboolean
arena_mem_get_info (GmlDevice  *device,
                    guint64    *free_bytes,
                    guint64    *total_bytes,
                    GError    **error)
{
  GmlDeviceArena *self = (GmlDeviceArena *) device;
  guint64 used = device->in_use + device->other_in_use;

  *total_bytes = self->capacity;
  *free_bytes = used >= self->capacity ? 0 : self->capacity - used;
  return TRUE;
}

static void
arena_destroy (GmlDevice *device)
{
  GmlDeviceArena *self = (GmlDeviceArena *) device;
  GHashTableIter iter;
  gpointer key;

  /* Whatever is still allocated goes back to the device underneath. */
  g_hash_table_iter_init (&iter, self->sizes);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    gml_device_free (self->base, *(guint64 *) key, NULL);
  g_hash_table_unref (self->sizes);
  gml_device_unref (self->base);
  g_free (device->name);
  g_free (self);
}

static const GmlDeviceClass arena_sim_class = {
  .id = "sim",
  .destroy = arena_destroy,
  .alloc = arena_alloc,
  .free = arena_free,
  .mem_get_info = arena_mem_get_info,
};

static const GmlDeviceClass arena_cuda_class = {
  .id = "cuda",
  .destroy = arena_destroy,
  .alloc = arena_alloc,
  .free = arena_free,
  .mem_get_info = arena_mem_get_info,
};

/* The memory an arena on @base may have: what the base could still give, within
 * the lab's budget. */
guint64
gml_device_available (GmlDevice *base)
{
  guint64 free_bytes = 0, total = 0;
  guint64 budget = gml_device_get_budget (base);

  if (!gml_device_mem_get_info (base, &free_bytes, &total, NULL))
    return 0;
  if (budget > 0)
    free_bytes = MIN (free_bytes, budget > base->in_use ? budget - base->in_use : 0);
  return free_bytes;
}

GmlDevice *
gml_device_arena_new (GmlDevice *base,
                      guint64    capacity,
                      guint64    other_in_use)
{
  GmlDeviceArena *self;

  g_return_val_if_fail (base != NULL, NULL);

  self = g_new0 (GmlDeviceArena, 1);
  self->parent.klass = g_str_equal (gml_device_get_id (base), "cuda") ? &arena_cuda_class
                                                                       : &arena_sim_class;
  self->parent.name = g_strdup (base->name);
  self->parent.name_is_msgid = base->name_is_msgid;
  self->parent.other_in_use = other_in_use;
  g_atomic_ref_count_init (&self->parent.ref_count);
  self->base = gml_device_ref (base);
  self->capacity = capacity;
  self->sizes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  return &self->parent;
}

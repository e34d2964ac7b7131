/* gml-device-sim.c — a simulated GPU.
 *
 * Memory is counted in 2 MiB pages, as the CUDA driver hands it out, and
 * addresses come from a first-fit address space so that the same program
 * always sees the same addresses (pictures and tests depend on that).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-device-sim"

#include "config.h"

#include <string.h>

#include "gml-i18n.h"

#include "gml-device.h"

#define PAGE_SIZE        G_GUINT64_CONSTANT (2097152)
#define BASE_ADDRESS     G_GUINT64_CONSTANT (0x7f0000000000)
#define DEFAULT_CAPACITY (G_GUINT64_CONSTANT (8) << 30)

typedef struct
{
  guint64 address;
  guint64 size;     /* whole pages */
} Range;

/* Expandable segments: address space is reserved far above the ranges handed
 * out by alloc(), one reservation after the other; mapped pages count
 * against the capacity like any allocation. */
#define RESERVE_BASE     G_GUINT64_CONSTANT (0x7f8000000000)

typedef struct
{
  GmlDevice  parent;
  guint64    capacity;
  GArray    *ranges;  /* Range, sorted by address */
  guint64    next_reserve;
} GmlDeviceSim;

static guint
find_range (GmlDeviceSim *self,
            guint64       address)
{
  guint lo = 0, hi = self->ranges->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (self->ranges, Range, mid).address < address)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Whether @bytes more fit beside what this process and the others use; the
 * error says how much is asked and how much is in use otherwise. */
static gboolean
has_room (GmlDeviceSim  *self,
          guint64        bytes,
          GError       **error)
{
  guint64 used = self->parent.in_use + self->parent.other_in_use;
  g_autofree char *want = NULL;
  g_autofree char *have = NULL;
  g_autofree char *total = NULL;

  if (used <= self->capacity && bytes <= self->capacity - used)
    return TRUE;
  want = g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
  have = g_format_size_full (used, G_FORMAT_SIZE_IEC_UNITS);
  total = g_format_size_full (self->capacity, G_FORMAT_SIZE_IEC_UNITS);
  /* Sizes go in as strings: a 64-bit printf format cannot be in a msgid. */
  g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY,
               _("The simulated GPU has no room for %s more (%s of %s in use)."),
               want, have, total);
  return FALSE;
}

static gboolean
sim_alloc (GmlDevice  *device,
           guint64     size,
           guint64    *address,
           GError    **error)
{
  GmlDeviceSim *self = (GmlDeviceSim *) device;
  guint64 pages, cursor = BASE_ADDRESS;
  Range range;
  guint pos;

  if (size > G_MAXUINT64 - PAGE_SIZE)
    pages = G_MAXUINT64;
  else
    pages = (size + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;

  if (!has_room (self, pages, error))
    return FALSE;

  /* First fit: the lowest gap between live ranges that holds the pages. */
  for (pos = 0; pos < self->ranges->len; pos++)
    {
      const Range *r = &g_array_index (self->ranges, Range, pos);

      if (r->address - cursor >= pages)
        break;
      cursor = r->address + r->size;
    }

  range.address = cursor;
  range.size = pages;
  g_array_insert_val (self->ranges, pos, range);

  device->in_use += pages;
  device->n_live++;
  *address = cursor;
  return TRUE;
}

static gboolean
sim_free (GmlDevice  *device,
          guint64     address,
          GError    **error)
{
  GmlDeviceSim *self = (GmlDeviceSim *) device;
  guint pos = find_range (self, address);
  const Range *r;

  if (pos >= self->ranges->len ||
      (r = &g_array_index (self->ranges, Range, pos))->address != address)
    {
      g_autofree char *where = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", address);

      g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INVALID,
                   _("No device allocation starts at address %s."), where);
      return FALSE;
    }

  device->in_use -= r->size;
  device->n_live--;
  g_array_remove_index (self->ranges, pos);
  return TRUE;
}

static gboolean
sim_mem_get_info (GmlDevice  *device,
                  guint64    *free_bytes,
                  guint64    *total_bytes,
                  GError    **error)
{
  GmlDeviceSim *self = (GmlDeviceSim *) device;
  guint64 used = device->in_use + device->other_in_use;

  *total_bytes = self->capacity;
  *free_bytes = used >= self->capacity ? 0 : self->capacity - used;
  return TRUE;
}

static gboolean
sim_reserve (GmlDevice  *device,
             guint64    *size_inout,
             guint64    *address,
             GError    **error)
{
  GmlDeviceSim *self = (GmlDeviceSim *) device;
  guint64 size = *size_inout;

  if (self->next_reserve == 0)
    self->next_reserve = RESERVE_BASE;
  *address = self->next_reserve;
  /* The next reservation starts a page past this one's end: address spaces
   * reserved one by one are never one range. */
  self->next_reserve += (size + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE + PAGE_SIZE;
  return TRUE;
}

static void
sim_unreserve (GmlDevice *device,
               guint64    address)
{
}

static gboolean
sim_map (GmlDevice  *device,
         guint64     address,
         guint64     size,
         GError    **error)
{
  if (!has_room ((GmlDeviceSim *) device, size, error))
    return FALSE;
  device->in_use += size;
  return TRUE;
}

static void
sim_unmap (GmlDevice *device,
           guint64    address,
           guint64    size)
{
  device->in_use -= MIN (size, device->in_use);
}

static void
sim_destroy (GmlDevice *device)
{
  GmlDeviceSim *self = (GmlDeviceSim *) device;

  g_array_unref (self->ranges);
  g_free (device->name);
  g_free (self);
}

static const GmlDeviceClass sim_class = {
  .id = "sim",
  .destroy = sim_destroy,
  .alloc = sim_alloc,
  .free = sim_free,
  .mem_get_info = sim_mem_get_info,
  .reserve = sim_reserve,
  .unreserve = sim_unreserve,
  .map = sim_map,
  .unmap = sim_unmap,
};

/* @capacity 0 means the default 8 GiB; @other_in_use is memory "other
 * processes" hold, which this process cannot get. */
GmlDevice *
gml_device_sim_new (guint64 capacity,
                    guint64 other_in_use)
{
  GmlDeviceSim *self = g_new0 (GmlDeviceSim, 1);

  self->parent.klass = &sim_class;
  g_atomic_ref_count_init (&self->parent.ref_count);
  self->parent.name = g_strdup (N_("Simulated GPU"));
  self->parent.name_is_msgid = TRUE;
  self->parent.other_in_use = other_in_use;
  self->capacity = capacity > 0 ? capacity : DEFAULT_CAPACITY;
  self->ranges = g_array_new (FALSE, FALSE, sizeof (Range));

  return &self->parent;
}

/* gml-device.h — the small interface every GPU memory backend implements.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define GML_DEVICE_ERROR (gml_device_error_quark ())

typedef enum
{
  GML_DEVICE_ERROR_FAILED,
  GML_DEVICE_ERROR_OUT_OF_MEMORY,   /* the device (or the lab's budget) has no room */
  GML_DEVICE_ERROR_NO_DRIVER,       /* libcuda.so.1 could not be opened */
  GML_DEVICE_ERROR_NO_DEVICE,       /* a driver, but no usable device */
  GML_DEVICE_ERROR_INIT_FAILED,     /* cuInit or context creation failed */
  GML_DEVICE_ERROR_INVALID,         /* bad argument (size 0, unknown address) */
} GmlDeviceError;

typedef enum
{
  GML_BACKEND_AUTO,
  GML_BACKEND_SIM,
  GML_BACKEND_CUDA,
} GmlBackendKind;

typedef struct _GmlDevice      GmlDevice;
typedef struct _GmlDeviceClass GmlDeviceClass;

/* A backend is a vtable plus its own private state that starts with GmlDevice.
 * The generic gml_device_* wrappers only dispatch: alloc() and free() keep the
 * in_use and n_live counters up to date themselves (only the backend knows the
 * size behind an address), and destroy() frees the live allocations, the name
 * and the struct itself. A device is reference-counted: whoever uses it (an
 * allocator, an arena, a scenario) holds a reference, and destroy() runs when the
 * last one is dropped. */
struct _GmlDeviceClass
{
  const char *id;                               /* "sim" or "cuda" */
  void     (*destroy)      (GmlDevice  *self);  /* frees every live device allocation */
  gboolean (*alloc)        (GmlDevice  *self,
                            guint64     size,
                            guint64    *address,
                            GError    **error);
  gboolean (*free)         (GmlDevice  *self,
                            guint64     address,
                            GError    **error);
  gboolean (*mem_get_info) (GmlDevice  *self,
                            guint64    *free_bytes,
                            guint64    *total_bytes,
                            GError    **error);
  /* Expandable segments (optional; NULL when the backend has none): address
   * space without memory (cuMemAddressReserve), pages of memory behind part
   * of it (cuMemCreate + cuMemMap), and back (cuMemUnmap + cuMemRelease). */
  /* *size: in, what the allocator wants; out, what the device reserved (a
   * replay gives what the recorded run's reservation can have been). */
  gboolean (*reserve)      (GmlDevice  *self,
                            guint64    *size,
                            guint64    *address,
                            GError    **error);
  void     (*unreserve)    (GmlDevice  *self,
                            guint64     address);
  gboolean (*map)          (GmlDevice  *self,
                            guint64     address,
                            guint64     size,
                            GError    **error);
  void     (*unmap)        (GmlDevice  *self,
                            guint64     address,
                            guint64     size);
};

struct _GmlDevice
{
  const GmlDeviceClass *klass;
  gatomicrefcount       ref_count;     /* set to 1 by the backend's constructor */
  char                 *name;          /* "Simulated GPU", "NVIDIA H200" */
  gboolean              name_is_msgid; /* name is a source string, looked up on each get */
  guint64               budget;        /* bytes the lab may hold on the device; 0 = no limit */
  guint64               in_use;        /* bytes currently held through this device */
  guint64               peak_in_use;   /* the most in_use has been (kept by the wrappers) */
  guint64               other_in_use;  /* memory used by others (other processes, context) */
  guint                 n_live;        /* live device allocations */
};

GQuark          gml_device_error_quark   (void);

const char     *gml_device_get_id        (GmlDevice       *self);
const char     *gml_device_get_name      (GmlDevice       *self);
guint64         gml_device_get_budget    (GmlDevice       *self);
gboolean        gml_device_alloc         (GmlDevice       *self,
                                          guint64          size,
                                          guint64         *address,
                                          GError         **error);
gboolean        gml_device_free          (GmlDevice       *self,
                                          guint64          address,
                                          GError         **error);
gboolean        gml_device_mem_get_info  (GmlDevice       *self,
                                          guint64         *free_bytes,
                                          guint64         *total_bytes,
                                          GError         **error);
GmlDevice      *gml_device_ref           (GmlDevice       *self);
void            gml_device_unref         (GmlDevice       *self);
/* The same as gml_device_unref(): frees the device, with all its memory, once
 * nobody else holds it. */
void            gml_device_destroy       (GmlDevice       *self);
/* Expandable segments: whether the backend can, and the operations. */
gboolean        gml_device_can_map       (GmlDevice       *self);
gboolean        gml_device_reserve       (GmlDevice       *self,
                                          guint64         *size,
                                          guint64         *address,
                                          GError         **error);
void            gml_device_unreserve     (GmlDevice       *self,
                                          guint64          address);
gboolean        gml_device_map           (GmlDevice       *self,
                                          guint64          address,
                                          guint64          size,
                                          GError         **error);
void            gml_device_unmap         (GmlDevice       *self,
                                          guint64          address,
                                          guint64          size);

/* A run (a scenario, a live lab step) has the device to itself from its first
 * allocation to its last free: its figures, the device's free memory among
 * them, are its own. Runs on the application's device come from a worker
 * thread and from the main loop, so whoever runs one holds this lock for the
 * whole run. It is recursive (a run may start another) and one for all
 * devices: runs are short, and two at once would slow both. */
void            gml_device_begin_run     (void);
void            gml_device_end_run       (void);

/* Backends. */
GmlDevice      *gml_device_sim_new       (guint64          capacity,
                                          guint64          other_in_use);
GmlDevice      *gml_device_cuda_new      (guint64          budget,
                                          GError         **error);
/* A smaller device of @capacity bytes inside @base (which it holds a reference to):
 * allocations go to @base, the arena refuses what exceeds its capacity, and
 * @other_in_use of it is held by someone else (a CUDA context, other programs). */
GmlDevice      *gml_device_arena_new     (GmlDevice       *base,
                                          guint64          capacity,
                                          guint64          other_in_use);
/* What @base could still give, within the lab's budget. */
guint64         gml_device_available     (GmlDevice       *base);

/* Opens the backend asked for. For GML_BACKEND_AUTO it tries CUDA and falls back
 * to the simulator; *reason (may be NULL) then receives a translated sentence
 * saying why ("No NVIDIA driver found (libcuda.so.1 could not be opened)."). */
GmlDevice      *gml_device_open          (GmlBackendKind   kind,
                                          guint64          sim_capacity,
                                          guint64          cuda_budget,
                                          char           **reason,
                                          GError         **error);

gboolean        gml_backend_kind_from_string (const char     *str,
                                              GmlBackendKind *kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlDevice, gml_device_destroy)

G_END_DECLS

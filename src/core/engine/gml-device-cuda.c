/* gml-device-cuda.c — the CUDA backend: real device memory through the CUDA Driver API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Nothing links against libcuda: the driver is opened with GModule at run time, so
 * the same binary (and the Flatpak) starts on machines that have no NVIDIA driver
 * and falls back to the simulator there.  cuda.h (or, without the toolkit, our own
 * gml-cuda-types.h) is only used for its types and for the compiler to check the
 * function pointer types against the real prototypes.
 *
 * A GmlDeviceCuda is not thread-safe; the allocator above serialises calls.
 */

#define G_LOG_DOMAIN "gml-device-cuda"

#include "config.h"

#include "gml-device.h"

#include "gml-i18n.h"
#include <gmodule.h>

#if HAVE_CUDA_H
# include "gml-cuda-types.h"  /* the toolkit's cuda.h, or our own declarations */
#endif

#if HAVE_CUDA_H

#define GML_DEFAULT_LIBCUDA     "libcuda.so.1"
#define GML_DEFAULT_BUDGET_MAX  ((guint64) 1 << 30)  /* 1 GiB */

/* Function pointer types spelled out from cuda.h's prototypes.  We ask dlsym for
 * the versioned names ourselves because cuda.h's #define cuMemAlloc cuMemAlloc_v2
 * only works at link time. */
typedef CUresult (CUDAAPI *CuInitFunc)                   (unsigned int Flags);
typedef CUresult (CUDAAPI *CuDriverGetVersionFunc)       (int *driverVersion);
typedef CUresult (CUDAAPI *CuDeviceGetCountFunc)         (int *count);
typedef CUresult (CUDAAPI *CuDeviceGetFunc)              (CUdevice *device, int ordinal);
typedef CUresult (CUDAAPI *CuDeviceGetNameFunc)          (char *name, int len, CUdevice dev);
typedef CUresult (CUDAAPI *CuDeviceTotalMemFunc)         (size_t *bytes, CUdevice dev);
typedef CUresult (CUDAAPI *CuDevicePrimaryCtxRetainFunc) (CUcontext *pctx, CUdevice dev);
typedef CUresult (CUDAAPI *CuDevicePrimaryCtxReleaseFunc)(CUdevice dev);
typedef CUresult (CUDAAPI *CuCtxSetCurrentFunc)          (CUcontext ctx);
typedef CUresult (CUDAAPI *CuMemGetInfoFunc)             (size_t *free, size_t *total);
typedef CUresult (CUDAAPI *CuMemAllocFunc)               (CUdeviceptr *dptr, size_t bytesize);
typedef CUresult (CUDAAPI *CuMemFreeFunc)                (CUdeviceptr dptr);
typedef CUresult (CUDAAPI *CuMemsetD8Func)               (CUdeviceptr dstDevice,
                                                          unsigned char uc,
                                                          size_t N);
typedef CUresult (CUDAAPI *CuGetErrorStringFunc)         (CUresult error, const char **pStr);

typedef struct
{
  CuInitFunc                    Init;
  CuDriverGetVersionFunc        DriverGetVersion;
  CuDeviceGetCountFunc          DeviceGetCount;
  CuDeviceGetFunc               DeviceGet;
  CuDeviceGetNameFunc           DeviceGetName;
  CuDeviceTotalMemFunc          DeviceTotalMem;
  CuDevicePrimaryCtxRetainFunc  DevicePrimaryCtxRetain;
  CuDevicePrimaryCtxReleaseFunc DevicePrimaryCtxRelease;
  CuCtxSetCurrentFunc           CtxSetCurrent;
  CuMemGetInfoFunc              MemGetInfo;
  CuMemAllocFunc                MemAlloc;
  CuMemFreeFunc                 MemFree;
  CuMemsetD8Func                MemsetD8;
  CuGetErrorStringFunc          GetErrorString;  /* optional */
  CuGetErrorStringFunc          GetErrorName;    /* optional */
} CudaApi;

static const struct
{
  const char *symbol;
  gsize       offset;
  gboolean    required;
} cuda_symbols[] = {
  { "cuInit",                       G_STRUCT_OFFSET (CudaApi, Init),                    TRUE },
  { "cuDriverGetVersion",           G_STRUCT_OFFSET (CudaApi, DriverGetVersion),        TRUE },
  { "cuDeviceGetCount",             G_STRUCT_OFFSET (CudaApi, DeviceGetCount),          TRUE },
  { "cuDeviceGet",                  G_STRUCT_OFFSET (CudaApi, DeviceGet),               TRUE },
  { "cuDeviceGetName",              G_STRUCT_OFFSET (CudaApi, DeviceGetName),           TRUE },
  { "cuDeviceTotalMem_v2",          G_STRUCT_OFFSET (CudaApi, DeviceTotalMem),          TRUE },
  { "cuDevicePrimaryCtxRetain",     G_STRUCT_OFFSET (CudaApi, DevicePrimaryCtxRetain),  TRUE },
  { "cuDevicePrimaryCtxRelease_v2", G_STRUCT_OFFSET (CudaApi, DevicePrimaryCtxRelease), TRUE },
  { "cuCtxSetCurrent",              G_STRUCT_OFFSET (CudaApi, CtxSetCurrent),           TRUE },
  { "cuMemGetInfo_v2",              G_STRUCT_OFFSET (CudaApi, MemGetInfo),              TRUE },
  { "cuMemAlloc_v2",                G_STRUCT_OFFSET (CudaApi, MemAlloc),                TRUE },
  { "cuMemFree_v2",                 G_STRUCT_OFFSET (CudaApi, MemFree),                 TRUE },
  { "cuMemsetD8_v2",                G_STRUCT_OFFSET (CudaApi, MemsetD8),                TRUE },
  { "cuGetErrorString",             G_STRUCT_OFFSET (CudaApi, GetErrorString),          FALSE },
  { "cuGetErrorName",               G_STRUCT_OFFSET (CudaApi, GetErrorName),            FALSE },
};

typedef struct
{
  GmlDevice   parent;

  GModule    *module;
  CudaApi     cu;

  CUdevice    device;
  CUcontext   context;      /* the device's primary context; NULL until retained */
  int         driver_version;
  guint64     total_bytes;  /* from cuDeviceTotalMem */

  /* Live allocations: CUdeviceptr -> size, both as guint64 so the table works for any
   * pointer width the driver reports. */
  GHashTable *live;
} GmlDeviceCuda;

/* The driver's own names and strings for the results we are likely to meet, for a
 * driver without cuGetErrorString/cuGetErrorName (or one that does not know the code).
 * They stay in English on purpose: they are what the driver itself would say, and
 * what people search for. */
static const struct
{
  CUresult    result;
  const char *name;
  const char *text;
} cuda_result_table[] = {
  { 0,   "CUDA_SUCCESS",                             "no error" },
  { 1,   "CUDA_ERROR_INVALID_VALUE",                 "invalid argument" },
  { 2,   "CUDA_ERROR_OUT_OF_MEMORY",                 "out of memory" },
  { 3,   "CUDA_ERROR_NOT_INITIALIZED",               "initialization error" },
  { 4,   "CUDA_ERROR_DEINITIALIZED",                 "driver shutting down" },
  { 46,  "CUDA_ERROR_DEVICE_UNAVAILABLE",
    "CUDA-capable device(s) is/are busy or unavailable" },
  { 100, "CUDA_ERROR_NO_DEVICE",                     "no CUDA-capable device is detected" },
  { 101, "CUDA_ERROR_INVALID_DEVICE",                "invalid device ordinal" },
  { 201, "CUDA_ERROR_INVALID_CONTEXT",               "invalid device context" },
  { 700, "CUDA_ERROR_ILLEGAL_ADDRESS",               "an illegal memory access was encountered" },
  { 801, "CUDA_ERROR_NOT_SUPPORTED",                 "operation not supported" },
  { 802, "CUDA_ERROR_SYSTEM_NOT_READY",              "system not yet initialized" },
  { 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
    "system has unsupported display driver / cuda driver combination" },
  { 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
    "forward compatibility was attempted on non supported HW" },
  { 999, "CUDA_ERROR_UNKNOWN",                       "unknown error" },
};

static void
describe_result (GmlDeviceCuda  *self,
                 CUresult        result,
                 const char    **name,
                 const char    **text)
{
  *name = NULL;
  *text = NULL;

  if (self->cu.GetErrorName != NULL && self->cu.GetErrorName (result, name) != CUDA_SUCCESS)
    *name = NULL;
  if (self->cu.GetErrorString != NULL && self->cu.GetErrorString (result, text) != CUDA_SUCCESS)
    *text = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cuda_result_table) && (*name == NULL || *text == NULL); i++)
    {
      if (cuda_result_table[i].result != result)
        continue;
      if (*name == NULL)
        *name = cuda_result_table[i].name;
      if (*text == NULL)
        *text = cuda_result_table[i].text;
    }

  if (*name == NULL)
    *name = "CUresult";
  if (*text == NULL)
    *text = _("unrecognized error code");
}

/* Sets @error to "WHAT: CUDA_ERROR_NAME (code): driver's text" plus an optional hint
 * on its own sentence.  @what is already translated. */
static void
set_result_error (GmlDeviceCuda   *self,
                  GError         **error,
                  GmlDeviceError   code,
                  CUresult         result,
                  const char      *what,
                  const char      *hint)
{
  const char *name;
  const char *text;

  describe_result (self, result, &name, &text);

  if (hint != NULL)
    g_set_error (error, GML_DEVICE_ERROR, code, "%s: %s (%d): %s. %s",
                 what, name, (int) result, text, hint);
  else
    g_set_error (error, GML_DEVICE_ERROR, code, "%s: %s (%d): %s",
                 what, name, (int) result, text);
}

static void
set_call_error (GmlDeviceCuda   *self,
                GError         **error,
                GmlDeviceError   code,
                CUresult         result,
                const char      *function)
{
  /* Translators: %s is the name of a CUDA Driver API function, e.g. cuInit. The
   * driver's own error name, code and text follow after a colon. */
  g_autofree char *what = g_strdup_printf (_("%s failed"), function);

  set_result_error (self, error, code, result, what, NULL);
}

/* A context is current per thread; making it current before each call costs little and
 * keeps the backend working if the allocator is driven from another thread. */
static gboolean
make_current (GmlDeviceCuda  *self,
              GError        **error)
{
  CUresult res = self->cu.CtxSetCurrent (self->context);

  if (res != CUDA_SUCCESS)
    {
      set_call_error (self, error, GML_DEVICE_ERROR_FAILED, res, "cuCtxSetCurrent");
      return FALSE;
    }

  return TRUE;
}

static void
gml_device_cuda_destroy (GmlDevice *device)
{
  GmlDeviceCuda *self = (GmlDeviceCuda *) device;

  if (self->live != NULL && g_hash_table_size (self->live) > 0)
    {
      GHashTableIter iter;
      gpointer key;

      /* Every byte the lab took is given back, even if the allocator above leaked. */
      if (self->context != NULL)
        self->cu.CtxSetCurrent (self->context);

      g_hash_table_iter_init (&iter, self->live);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        {
          guint64 address = *(guint64 *) key;
          CUresult res = self->cu.MemFree ((CUdeviceptr) address);

          if (res != CUDA_SUCCESS)
            g_warning ("cuMemFree_v2 (0x%" G_GINT64_MODIFIER "x) failed with %d while "
                       "shutting down the CUDA backend", address, (int) res);
        }
    }
  g_clear_pointer (&self->live, g_hash_table_unref);

  if (self->context != NULL)
    {
      CUresult res = self->cu.DevicePrimaryCtxRelease (self->device);

      if (res != CUDA_SUCCESS)
        g_warning ("cuDevicePrimaryCtxRelease_v2 failed with %d", (int) res);
      self->context = NULL;
    }

  /* The module is never closed: libcuda is not safe to unload once cuInit ran (its
   * threads and atexit handlers stay behind), and g_module_make_resident made sure. */
  self->module = NULL;

  g_clear_pointer (&self->parent.name, g_free);
  g_free (self);
}

static gboolean
gml_device_cuda_mem_get_info (GmlDevice  *device,
                              guint64    *free_bytes,
                              guint64    *total_bytes,
                              GError    **error)
{
  GmlDeviceCuda *self = (GmlDeviceCuda *) device;
  size_t free_sz = 0;
  size_t total_sz = 0;
  CUresult res;

  if (!make_current (self, error))
    return FALSE;

  res = self->cu.MemGetInfo (&free_sz, &total_sz);
  if (res != CUDA_SUCCESS)
    {
      set_call_error (self, error, GML_DEVICE_ERROR_FAILED, res, "cuMemGetInfo");
      return FALSE;
    }

  /* Whatever is neither free nor ours belongs to others: other processes, this
   * process's CUDA context, other libraries. */
  if ((guint64) total_sz >= (guint64) free_sz + self->parent.in_use)
    self->parent.other_in_use = (guint64) total_sz - free_sz - self->parent.in_use;
  else
    self->parent.other_in_use = 0;

  if (free_bytes != NULL)
    *free_bytes = free_sz;
  if (total_bytes != NULL)
    *total_bytes = total_sz;

  return TRUE;
}

static gboolean
gml_device_cuda_alloc (GmlDevice  *device,
                       guint64     size,
                       guint64    *address,
                       GError    **error)
{
  GmlDeviceCuda *self = (GmlDeviceCuda *) device;
  CUdeviceptr ptr = 0;
  guint64 *key;
  CUresult res;

  if (size == 0 || size > G_MAXSIZE)
    {
      /* The number is formatted first: xgettext cannot follow G_GUINT64_FORMAT. */
      g_autofree char *size_str = g_strdup_printf ("%" G_GUINT64_FORMAT, size);

      g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INVALID,
                   /* Translators: %s is a number of bytes. */
                   _("Cannot allocate %s bytes on the GPU."), size_str);
      return FALSE;
    }

  /* The budget is checked before the driver is asked, so the lab never holds more
   * than the user allowed; the allocator reports this like PyTorch's
   * set_per_process_memory_fraction ("X allowed;"). */
  if (self->parent.budget > 0 && size > self->parent.budget - MIN (self->parent.budget,
                                                                   self->parent.in_use))
    {
      g_autofree char *size_str = g_format_size_full (size, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *used_str = g_format_size_full (self->parent.in_use,
                                                      G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *budget_str = g_format_size_full (self->parent.budget,
                                                        G_FORMAT_SIZE_IEC_UNITS);

      g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY,
                   /* Translators: the first %s is a size ("20.0 MiB"), the second the
                    * bytes the lab already holds, the third the budget set by the user. */
                   _("Allocating %s would exceed the lab’s GPU memory budget (%s in use, %s "
                     "allowed)."),
                   size_str, used_str, budget_str);
      return FALSE;
    }

  if (!make_current (self, error))
    return FALSE;

  res = self->cu.MemAlloc (&ptr, (size_t) size);
  if (res != CUDA_SUCCESS)
    {
      g_autofree char *size_str = g_format_size_full (size, G_FORMAT_SIZE_IEC_UNITS);
      /* Translators: %s is a size, e.g. "20.0 MiB". The driver's error follows. */
      g_autofree char *what = g_strdup_printf (_("cuMemAlloc of %s failed"), size_str);

      set_result_error (self, error,
                        res == CUDA_ERROR_OUT_OF_MEMORY ? GML_DEVICE_ERROR_OUT_OF_MEMORY
                                                        : GML_DEVICE_ERROR_FAILED,
                        res, what, NULL);
      return FALSE;
    }

  /* cuMemAlloc only reserves; writing every byte makes the driver back the range with
   * physical pages, so nvidia-smi and nvtop show what the lab says it holds. */
  res = self->cu.MemsetD8 (ptr, 0, (size_t) size);
  if (res != CUDA_SUCCESS)
    {
      g_autofree char *size_str = g_format_size_full (size, G_FORMAT_SIZE_IEC_UNITS);
      /* Translators: %s is a size, e.g. "20.0 MiB". The driver's error follows. */
      g_autofree char *what = g_strdup_printf (_("cuMemsetD8 of %s failed"), size_str);

      set_result_error (self, error, GML_DEVICE_ERROR_FAILED, res, what, NULL);
      self->cu.MemFree (ptr);
      return FALSE;
    }

  key = g_new (guint64, 2);
  key[0] = (guint64) ptr;
  key[1] = size;
  g_hash_table_add (self->live, key);

  self->parent.in_use += size;
  self->parent.n_live++;

  if (address != NULL)
    *address = (guint64) ptr;

  return TRUE;
}

static gboolean
gml_device_cuda_free (GmlDevice  *device,
                      guint64     address,
                      GError    **error)
{
  GmlDeviceCuda *self = (GmlDeviceCuda *) device;
  guint64 *key;
  CUresult res;

  key = g_hash_table_lookup (self->live, &address);
  if (key == NULL)
    {
      g_autofree char *address_str = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", address);

      g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INVALID,
                   /* Translators: %s is a device address such as 0x7f0000000000. */
                   _("Address %s is not a live GPU allocation of the lab."), address_str);
      return FALSE;
    }

  if (!make_current (self, error))
    return FALSE;

  res = self->cu.MemFree ((CUdeviceptr) address);
  if (res != CUDA_SUCCESS)
    {
      /* Keep tracking it: destroy tries again rather than forgetting device memory. */
      set_call_error (self, error, GML_DEVICE_ERROR_FAILED, res, "cuMemFree");
      return FALSE;
    }

  self->parent.in_use -= key[1];
  self->parent.n_live--;
  g_hash_table_remove (self->live, &address);

  return TRUE;
}

static const GmlDeviceClass gml_device_cuda_class = {
  .id           = "cuda",
  .destroy      = gml_device_cuda_destroy,
  .alloc        = gml_device_cuda_alloc,
  .free         = gml_device_cuda_free,
  .mem_get_info = gml_device_cuda_mem_get_info,
};

static gboolean
open_driver (GmlDeviceCuda  *self,
             GError        **error)
{
  const char *path = g_getenv ("GML_LIBCUDA");

  /* GML_LIBCUDA lets the tests substitute a fake driver; an empty value means unset. */
  if (path == NULL || *path == '\0')
    path = GML_DEFAULT_LIBCUDA;

  self->module = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (self->module == NULL)
    {
      g_debug ("Could not open %s: %s", path, g_module_error ());

      /* A file that exists but does not load (wrong architecture, missing
       * dependency) is worth telling apart from no driver at all. */
      if (g_path_is_absolute (path) && g_file_test (path, G_FILE_TEST_EXISTS))
        g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_NO_DRIVER,
                     /* Translators: the first %s is a file name, the second the
                      * dynamic loader's error message. */
                     _("The NVIDIA driver %s could not be loaded: %s"),
                     path, g_module_error ());
      else
        g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_NO_DRIVER,
                     /* Translators: %s is a file name, normally libcuda.so.1. */
                     _("No NVIDIA driver found (%s could not be opened)."), path);
      return FALSE;
    }

  for (guint i = 0; i < G_N_ELEMENTS (cuda_symbols); i++)
    {
      gpointer *slot = G_STRUCT_MEMBER_P (&self->cu, cuda_symbols[i].offset);

      if (!g_module_symbol (self->module, cuda_symbols[i].symbol, slot) || *slot == NULL)
        {
          *slot = NULL;
          if (!cuda_symbols[i].required)
            continue;

          g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INIT_FAILED,
                       /* Translators: the first %s is a function name (cuMemAlloc_v2),
                        * the second the driver's file name. */
                       _("The NVIDIA driver is too old or incomplete: %s is missing from %s."),
                       cuda_symbols[i].symbol, path);

          /* Nothing has been called yet, so closing the module is still safe. */
          g_clear_pointer (&self->module, g_module_close);
          return FALSE;
        }
    }

  g_module_make_resident (self->module);

  return TRUE;
}

static gboolean
init_driver (GmlDeviceCuda  *self,
             guint64         budget,
             GError        **error)
{
  char name[256] = { 0 };
  size_t free_sz = 0;
  size_t total_sz = 0;
  int count = 0;
  CUresult res;

  res = self->cu.Init (0);
  if (res != CUDA_SUCCESS)
    {
      const char *hint = NULL;
      GmlDeviceError code = GML_DEVICE_ERROR_INIT_FAILED;

      if (res == CUDA_ERROR_NO_DEVICE)
        code = GML_DEVICE_ERROR_NO_DEVICE;
      else if (res == CUDA_ERROR_UNKNOWN)
        /* What cuInit says when /dev/nvidia-uvm cannot be opened; in a Flatpak or a
         * container that is by far the most common cause. */
        hint = _("Inside a sandbox such as Flatpak this usually means that the host’s "
                 "nvidia_uvm kernel module or its device nodes (/dev/nvidia-uvm) are missing.");
      else if (res == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
        hint = _("The NVIDIA user-space driver does not match the kernel module; in a Flatpak, "
                 "install the org.freedesktop.Platform.GL.nvidia extension that matches the "
                 "host’s driver version.");

      {
        /* Translators: %s is the name of a CUDA Driver API function, e.g. cuInit. The
         * driver's own error name, code and text follow after a colon. */
        g_autofree char *what = g_strdup_printf (_("%s failed"), "cuInit");

        set_result_error (self, error, code, res, what, hint);
      }
      return FALSE;
    }

  res = self->cu.DriverGetVersion (&self->driver_version);
  if (res != CUDA_SUCCESS)
    {
      set_call_error (self, error, GML_DEVICE_ERROR_INIT_FAILED, res, "cuDriverGetVersion");
      return FALSE;
    }
  g_debug ("CUDA driver API version %d.%d", self->driver_version / 1000,
           (self->driver_version % 1000) / 10);

  res = self->cu.DeviceGetCount (&count);
  if (res != CUDA_SUCCESS)
    {
      set_call_error (self, error,
                      res == CUDA_ERROR_NO_DEVICE ? GML_DEVICE_ERROR_NO_DEVICE
                                                  : GML_DEVICE_ERROR_INIT_FAILED,
                      res, "cuDeviceGetCount");
      return FALSE;
    }
  if (count < 1)
    {
      g_set_error_literal (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_NO_DEVICE,
                   _("The NVIDIA driver reports no CUDA device."));
      return FALSE;
    }

  res = self->cu.DeviceGet (&self->device, 0);
  if (res != CUDA_SUCCESS)
    {
      set_call_error (self, error,
                      res == CUDA_ERROR_NO_DEVICE || res == CUDA_ERROR_INVALID_DEVICE
                        ? GML_DEVICE_ERROR_NO_DEVICE : GML_DEVICE_ERROR_INIT_FAILED,
                      res, "cuDeviceGet");
      return FALSE;
    }

  res = self->cu.DeviceGetName (name, sizeof name - 1, self->device);
  if (res != CUDA_SUCCESS)
    {
      set_call_error (self, error, GML_DEVICE_ERROR_INIT_FAILED, res, "cuDeviceGetName");
      return FALSE;
    }
  self->parent.name = g_utf8_make_valid (name, -1);

  res = self->cu.DeviceTotalMem (&total_sz, self->device);
  if (res != CUDA_SUCCESS)
    {
      set_call_error (self, error, GML_DEVICE_ERROR_INIT_FAILED, res, "cuDeviceTotalMem");
      return FALSE;
    }
  self->total_bytes = total_sz;

  /* The primary context is the one the Runtime API (and so PyTorch) uses, and it
   * avoids cuCtxCreate, whose signature changed in CUDA 13. */
  res = self->cu.DevicePrimaryCtxRetain (&self->context, self->device);
  if (res != CUDA_SUCCESS)
    {
      self->context = NULL;
      set_call_error (self, error, GML_DEVICE_ERROR_INIT_FAILED, res,
                      "cuDevicePrimaryCtxRetain");
      return FALSE;
    }

  res = self->cu.CtxSetCurrent (self->context);
  if (res != CUDA_SUCCESS)
    {
      set_call_error (self, error, GML_DEVICE_ERROR_INIT_FAILED, res, "cuCtxSetCurrent");
      return FALSE;
    }

  res = self->cu.MemGetInfo (&free_sz, &total_sz);
  if (res != CUDA_SUCCESS)
    {
      set_call_error (self, error, GML_DEVICE_ERROR_INIT_FAILED, res, "cuMemGetInfo");
      return FALSE;
    }
  self->parent.other_in_use = total_sz >= free_sz ? (guint64) total_sz - free_sz : 0;

  /* The lab shares the GPU with whatever else runs there, so by default it takes no
   * more than a quarter of what is free, and never more than 1 GiB. */
  if (budget == 0)
    budget = MIN (GML_DEFAULT_BUDGET_MAX, (guint64) free_sz / 4);
  self->parent.budget = budget;

  g_debug ("%s: %" G_GUINT64_FORMAT " bytes total, %" G_GUINT64_FORMAT " free, "
           "budget %" G_GUINT64_FORMAT, self->parent.name, (guint64) total_sz,
           (guint64) free_sz, budget);

  return TRUE;
}

GmlDevice *
gml_device_cuda_new (guint64   budget,
                     GError  **error)
{
  GmlDeviceCuda *self;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_new0 (GmlDeviceCuda, 1);
  self->parent.klass = &gml_device_cuda_class;
  g_atomic_ref_count_init (&self->parent.ref_count);
  self->live = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  if (!open_driver (self, error) || !init_driver (self, budget, error))
    {
      /* destroy releases the primary context if it was retained. */
      gml_device_cuda_destroy ((GmlDevice *) self);
      return NULL;
    }

  return (GmlDevice *) self;
}

#else /* !HAVE_CUDA_H */

GmlDevice *
gml_device_cuda_new (guint64   budget,
                     GError  **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_set_error_literal (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_NO_DRIVER,
                       _("This copy of GPU Memory Lab was built without CUDA support."));
  return NULL;
}

#endif /* HAVE_CUDA_H */

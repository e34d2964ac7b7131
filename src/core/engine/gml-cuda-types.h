/* gml-cuda-types.h — the few CUDA Driver API types and entry points the backend uses.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CUDA backend never links against libcuda; it only needs the driver API's types
 * to call the functions it looks up with dlsym.  With the CUDA Toolkit installed
 * (GML_CUDA_OWN_TYPES is 0 in config.h) this header simply includes the toolkit's
 * cuda.h.  Without it — the GNOME Flatpak SDK has no cuda.h, and NVIDIA's header
 * archive cannot be fetched and checked on our build machines — it declares the
 * handful of types, result codes and prototypes below, written from the documented
 * driver API (CUDA Driver API reference, "Data types used by CUDA driver" and the
 * functions' pages).  They are the ABI of libcuda.so.1, which NVIDIA keeps stable;
 * tests/flatpak/check-cuda-types.c compiles these declarations against the toolkit's
 * cuda.h wherever that exists, so a difference is a build error, not a crash.
 *
 * Only what gml-device-cuda.c and the fake driver in tests/cuda use is here: adding
 * a driver call means adding its prototype (and any result code) here too.
 */

#pragma once

#if !GML_CUDA_OWN_TYPES

# include <cuda.h>

#else /* GML_CUDA_OWN_TYPES */

# include <stddef.h>

/* The result codes we name, with the driver's values (cudaError_enum in cuda.h).  A
 * list so the check against cuda.h can compare every value. */
# define GML_CUDA_RESULTS(X) \
  X (CUDA_SUCCESS,                                0) \
  X (CUDA_ERROR_INVALID_VALUE,                    1) \
  X (CUDA_ERROR_OUT_OF_MEMORY,                    2) \
  X (CUDA_ERROR_NOT_INITIALIZED,                  3) \
  X (CUDA_ERROR_DEINITIALIZED,                    4) \
  X (CUDA_ERROR_DEVICE_UNAVAILABLE,              46) \
  X (CUDA_ERROR_NO_DEVICE,                      100) \
  X (CUDA_ERROR_INVALID_DEVICE,                 101) \
  X (CUDA_ERROR_INVALID_CONTEXT,                201) \
  X (CUDA_ERROR_ILLEGAL_ADDRESS,                700) \
  X (CUDA_ERROR_NOT_SUPPORTED,                  801) \
  X (CUDA_ERROR_SYSTEM_NOT_READY,               802) \
  X (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,         803) \
  X (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804) \
  X (CUDA_ERROR_UNKNOWN,                        999)

/* The underlying C types, named once so the check can compare them with cuda.h's. */
# define GML_CU_DEVICE_C_TYPE int
# if defined(_WIN64) || defined(__LP64__)
#  define GML_CU_DEVICEPTR_C_TYPE unsigned long long
# else
#  define GML_CU_DEVICEPTR_C_TYPE unsigned int
# endif

/* When cuda.h came first (only in the check), its types stand and only the
 * prototypes below are compared with its own. */
# ifndef __cuda_cuda_h__

#  ifdef _WIN32
#   define CUDAAPI __stdcall
#  else
#   define CUDAAPI
#  endif

#  define GML_CUDA_ENUMERATOR(name, value) name = value,
typedef enum cudaError_enum
{
  GML_CUDA_RESULTS (GML_CUDA_ENUMERATOR)
} CUresult;
#  undef GML_CUDA_ENUMERATOR

typedef GML_CU_DEVICE_C_TYPE    CUdevice;     /* a device ordinal's handle */
typedef GML_CU_DEVICEPTR_C_TYPE CUdeviceptr;  /* a device address, pointer-sized */
typedef struct CUctx_st        *CUcontext;    /* opaque context handle */

# endif /* __cuda_cuda_h__ */

/* The entry points under the symbol names libcuda.so.1 exports.  cuda.h maps
 * cuDeviceTotalMem, cuDevicePrimaryCtxRelease, cuMemGetInfo, cuMemAlloc, cuMemFree and
 * cuMemsetD8 to these _v2 symbols with macros; the backend asks dlsym for the _v2
 * names, so they are declared by those names here. */
CUresult CUDAAPI cuGetErrorString             (CUresult error, const char **pStr);
CUresult CUDAAPI cuGetErrorName               (CUresult error, const char **pStr);
CUresult CUDAAPI cuInit                       (unsigned int Flags);
CUresult CUDAAPI cuDriverGetVersion           (int *driverVersion);
CUresult CUDAAPI cuDeviceGet                  (CUdevice *device, int ordinal);
CUresult CUDAAPI cuDeviceGetCount             (int *count);
CUresult CUDAAPI cuDeviceGetName              (char *name, int len, CUdevice dev);
CUresult CUDAAPI cuDeviceTotalMem_v2          (size_t *bytes, CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxRetain     (CUcontext *pctx, CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2 (CUdevice dev);
CUresult CUDAAPI cuCtxSetCurrent              (CUcontext ctx);
CUresult CUDAAPI cuMemGetInfo_v2              (size_t *free, size_t *total);
CUresult CUDAAPI cuMemAlloc_v2                (CUdeviceptr *dptr, size_t bytesize);
CUresult CUDAAPI cuMemFree_v2                 (CUdeviceptr dptr);
CUresult CUDAAPI cuMemsetD8_v2                (CUdeviceptr dstDevice, unsigned char uc, size_t N);

#endif /* GML_CUDA_OWN_TYPES */

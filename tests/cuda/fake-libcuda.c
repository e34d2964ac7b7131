/* fake-libcuda.c — a stand-in libcuda.so.1 so the CUDA backend's loading, success and
 * error paths run where there is no GPU (CI, this machine).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * It exports the driver entry points the backend resolves, with the real prototypes
 * from cuda.h (the compiler checks them), and only the versioned names where cuda.h
 * maps a short name to a _v2 symbol: a backend that asked dlsym for "cuMemAlloc"
 * would fail here just as it would misbehave with a real driver.
 *
 * Behaviour is read from the environment when cuInit runs (and again when a test
 * calls fake_cuda_reload_env()):
 *
 *   FAKE_CUDA_INIT_RESULT=N          cuInit returns N (default 0); every later call
 *                                     then returns N as well, like the real driver
 *   FAKE_CUDA_DRIVER_VERSION=N       cuDriverGetVersion (default 13000)
 *   FAKE_CUDA_DEVICE_COUNT=N         cuDeviceGetCount (default 1)
 *   FAKE_CUDA_NAME=STR               cuDeviceGetName (default "Fake NVIDIA GPU")
 *   FAKE_CUDA_TOTAL=BYTES            device memory (default 8 GiB)
 *   FAKE_CUDA_FREE=BYTES             free memory before this process allocates
 *                                     (default TOTAL - 512 MiB); each allocation
 *                                     lowers it by its size rounded up to 2 MiB
 *   FAKE_CUDA_RETAIN_RESULT=N        cuDevicePrimaryCtxRetain returns N
 *   FAKE_CUDA_INIT_DELAY_MS=N        cuInit takes N ms, as a real driver's can
 *   FAKE_CUDA_ALLOC_DELAY_MS=N       each cuMemAlloc_v2 takes N ms (a long run on a GPU)
 *   FAKE_CUDA_ALLOC_FAIL_AFTER=N     after N successful cuMemAlloc_v2 calls, the next
 *                                     ones fail (unset: never fail, except when the
 *                                     request does not fit the free memory: 2)
 *   FAKE_CUDA_ALLOC_FAIL_RESULT=N    what they fail with (default 2, out of memory)
 *   FAKE_CUDA_MEMGETINFO_RESULT=N    cuMemGetInfo_v2 fails with N ...
 *   FAKE_CUDA_MEMGETINFO_FAIL_AFTER=N  ... after N successful calls (default 0)
 *   FAKE_CUDA_MEMSET_RESULT=N        cuMemsetD8_v2 returns N
 *   FAKE_CUDA_FREE_RESULT=N          cuMemFree_v2 returns N (and frees nothing)
 *   FAKE_CUDA_NO_ERROR_STRING=1      cuGetErrorString/cuGetErrorName fail (read at
 *                                     each call: they work before cuInit too)
 *
 * Like the real driver, memory calls need cuInit and a current context (per thread),
 * allocations are 2 MiB aligned and size 0 is CUDA_ERROR_INVALID_VALUE.  Unlike the
 * real driver, releasing the primary context does NOT free its allocations here: the
 * fake keeps counting them so a test sees what the backend forgot to free.
 *
 * The test reaches the fake_cuda_* query functions at the end by opening this same
 * module with GModule.
 *
 * Built with -DFAKE_CUDA_WITHOUT_MEMSET it lacks cuMemsetD8_v2, to test a driver
 * with a missing symbol.
 */

#include "config.h"

#include "gml-cuda-types.h"  /* the toolkit's cuda.h, or our own declarations */

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAKE_EXPORT __attribute__ ((visibility ("default")))

#define MIB        (1024ULL * 1024ULL)
#define PAGE_SIZE  (2ULL * MIB)
#define BASE_ADDR  0x7f0000000000ULL

typedef struct
{
  CUdeviceptr address;
  size_t      size;
} FakeAllocation;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Configuration, from the environment. */
static CUresult           init_result;
static int                driver_version = 13000;
static int                device_count = 1;
static char               device_name[256] = "Fake NVIDIA GPU";
static unsigned long long total_bytes = 8192ULL * MIB;
static unsigned long long free_bytes_at_start = 7680ULL * MIB;
static CUresult           retain_result;
static long long          alloc_fail_after = -1;
static CUresult           alloc_fail_result = CUDA_ERROR_OUT_OF_MEMORY;
static CUresult           memgetinfo_result;
static long long          memgetinfo_fail_after;
static CUresult           memset_result;
static CUresult           free_result;

/* State. */
static int                initialized;        /* cuInit called and succeeded */
static int                init_called;
static int                ctx_refcount;       /* primary context retains - releases */
static struct CUctx_st   *primary_ctx = (struct CUctx_st *) (uintptr_t) 0xc0de0000;
/* The context current on each thread, as the driver keeps it. A pthread key, not
 * __thread: the sanitizers of Debian 12's clang 14 crash at exit (LeakSanitizer's
 * "Tracer caught signal 11") reading the dynamic TLS of a dlopen'd module under
 * glibc 2.36, which made the ASan run of a test fail with no leak in it. */
static pthread_key_t      current_ctx_key;
static pthread_once_t     current_ctx_once = PTHREAD_ONCE_INIT;

static void
current_ctx_key_create (void)
{
  pthread_key_create (&current_ctx_key, NULL);
}

static CUcontext
get_current_ctx (void)
{
  pthread_once (&current_ctx_once, current_ctx_key_create);
  return pthread_getspecific (current_ctx_key);
}

static void
set_current_ctx (CUcontext ctx)
{
  pthread_once (&current_ctx_once, current_ctx_key_create);
  pthread_setspecific (current_ctx_key, ctx);
}

static FakeAllocation    *allocs;
static unsigned           n_allocs;
static unsigned           allocs_capacity;
static unsigned long long live_bytes;
static unsigned long long live_pages_bytes;   /* live bytes rounded to 2 MiB each */
static unsigned long long next_address = BASE_ADDR;
static unsigned long long memset_bytes;
static unsigned           alloc_calls;
static unsigned           alloc_successes;
static unsigned           memgetinfo_calls;

static long long
env_ll (const char *name,
        long long   fallback)
{
  const char *value = getenv (name);

  if (value == NULL || *value == '\0')
    return fallback;
  return strtoll (value, NULL, 0);
}

static unsigned long long
env_ull (const char         *name,
         unsigned long long  fallback)
{
  const char *value = getenv (name);

  if (value == NULL || *value == '\0')
    return fallback;
  return strtoull (value, NULL, 0);
}

static void
read_env_locked (void)
{
  const char *name = getenv ("FAKE_CUDA_NAME");

  init_result = (CUresult) env_ll ("FAKE_CUDA_INIT_RESULT", 0);
  driver_version = (int) env_ll ("FAKE_CUDA_DRIVER_VERSION", 13000);
  device_count = (int) env_ll ("FAKE_CUDA_DEVICE_COUNT", 1);
  if (name != NULL)
    {
      strncpy (device_name, name, sizeof device_name - 1);
      device_name[sizeof device_name - 1] = '\0';
    }
  total_bytes = env_ull ("FAKE_CUDA_TOTAL", 8192ULL * MIB);
  free_bytes_at_start = env_ull ("FAKE_CUDA_FREE",
                                 total_bytes > 512 * MIB ? total_bytes - 512 * MIB : total_bytes);
  retain_result = (CUresult) env_ll ("FAKE_CUDA_RETAIN_RESULT", 0);
  alloc_fail_after = env_ll ("FAKE_CUDA_ALLOC_FAIL_AFTER", -1);
  alloc_fail_result = (CUresult) env_ll ("FAKE_CUDA_ALLOC_FAIL_RESULT", CUDA_ERROR_OUT_OF_MEMORY);
  memgetinfo_result = (CUresult) env_ll ("FAKE_CUDA_MEMGETINFO_RESULT", 0);
  memgetinfo_fail_after = env_ll ("FAKE_CUDA_MEMGETINFO_FAIL_AFTER", 0);
  memset_result = (CUresult) env_ll ("FAKE_CUDA_MEMSET_RESULT", 0);
  free_result = (CUresult) env_ll ("FAKE_CUDA_FREE_RESULT", 0);
}

/* What every call but cuInit, cuDriverGetVersion and cuGetError* checks first. */
static CUresult
check_init_locked (void)
{
  if (!init_called)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!initialized)
    return init_result;
  return CUDA_SUCCESS;
}

static CUresult
check_context_locked (void)
{
  CUresult res = check_init_locked ();

  if (res != CUDA_SUCCESS)
    return res;
  if (get_current_ctx () == NULL || get_current_ctx () != primary_ctx || ctx_refcount <= 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  return CUDA_SUCCESS;
}

static unsigned long long
round_page (unsigned long long size)
{
  return (size + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;
}

static long
find_alloc_locked (CUdeviceptr address)
{
  for (unsigned i = 0; i < n_allocs; i++)
    if (allocs[i].address == address)
      return (long) i;
  return -1;
}

/* The driver's own names and texts. */
static const struct
{
  CUresult    result;
  const char *name;
  const char *text;
} results[] = {
  { 0,   "CUDA_SUCCESS",                      "no error" },
  { 1,   "CUDA_ERROR_INVALID_VALUE",          "invalid argument" },
  { 2,   "CUDA_ERROR_OUT_OF_MEMORY",          "out of memory" },
  { 3,   "CUDA_ERROR_NOT_INITIALIZED",        "initialization error" },
  { 4,   "CUDA_ERROR_DEINITIALIZED",          "driver shutting down" },
  { 100, "CUDA_ERROR_NO_DEVICE",              "no CUDA-capable device is detected" },
  { 101, "CUDA_ERROR_INVALID_DEVICE",         "invalid device ordinal" },
  { 201, "CUDA_ERROR_INVALID_CONTEXT",        "invalid device context" },
  { 700, "CUDA_ERROR_ILLEGAL_ADDRESS",        "an illegal memory access was encountered" },
  { 801, "CUDA_ERROR_NOT_SUPPORTED",          "operation not supported" },
  { 802, "CUDA_ERROR_SYSTEM_NOT_READY",       "system not yet initialized" },
  { 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
    "system has unsupported display driver / cuda driver combination" },
  { 999, "CUDA_ERROR_UNKNOWN",                "unknown error" },
};

static CUresult
lookup_result (CUresult     error,
               int          want_name,
               const char **out)
{
  const char *no = getenv ("FAKE_CUDA_NO_ERROR_STRING");

  if (out == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  *out = NULL;
  if (no != NULL && strcmp (no, "1") == 0)
    return CUDA_ERROR_INVALID_VALUE;

  for (unsigned i = 0; i < sizeof results / sizeof results[0]; i++)
    if (results[i].result == error)
      {
        *out = want_name ? results[i].name : results[i].text;
        return CUDA_SUCCESS;
      }
  return CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult CUDAAPI
cuGetErrorString (CUresult     error,
                  const char **pStr)
{
  return lookup_result (error, 0, pStr);
}

FAKE_EXPORT CUresult CUDAAPI
cuGetErrorName (CUresult     error,
                const char **pStr)
{
  return lookup_result (error, 1, pStr);
}

FAKE_EXPORT CUresult CUDAAPI
cuInit (unsigned int Flags)
{
  CUresult res;

  if (Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;

  if (env_ll ("FAKE_CUDA_INIT_DELAY_MS", 0) > 0)
    usleep ((useconds_t) env_ll ("FAKE_CUDA_INIT_DELAY_MS", 0) * 1000);

  pthread_mutex_lock (&lock);
  if (!init_called)
    {
      read_env_locked ();
      init_called = 1;
      initialized = init_result == CUDA_SUCCESS;
    }
  res = initialized ? CUDA_SUCCESS : init_result;
  pthread_mutex_unlock (&lock);

  return res;
}

FAKE_EXPORT CUresult CUDAAPI
cuDriverGetVersion (int *driverVersion)
{
  if (driverVersion == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = driver_version;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI
cuDeviceGetCount (int *count)
{
  CUresult res;

  if (count == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  res = check_init_locked ();
  *count = res == CUDA_SUCCESS ? device_count : 0;
  pthread_mutex_unlock (&lock);
  return res;
}

FAKE_EXPORT CUresult CUDAAPI
cuDeviceGet (CUdevice *device,
             int       ordinal)
{
  CUresult res;

  if (device == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  res = check_init_locked ();
  if (res == CUDA_SUCCESS && (ordinal < 0 || ordinal >= device_count))
    res = CUDA_ERROR_INVALID_DEVICE;
  if (res == CUDA_SUCCESS)
    *device = ordinal;
  pthread_mutex_unlock (&lock);
  return res;
}

FAKE_EXPORT CUresult CUDAAPI
cuDeviceGetName (char     *name,
                 int       len,
                 CUdevice  dev)
{
  CUresult res;

  if (name == NULL || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  res = check_init_locked ();
  if (res == CUDA_SUCCESS && (dev < 0 || dev >= device_count))
    res = CUDA_ERROR_INVALID_DEVICE;
  if (res == CUDA_SUCCESS)
    {
      strncpy (name, device_name, (size_t) len - 1);
      name[len - 1] = '\0';
    }
  pthread_mutex_unlock (&lock);
  return res;
}

FAKE_EXPORT CUresult CUDAAPI
cuDeviceTotalMem_v2 (size_t   *bytes,
                     CUdevice  dev)
{
  CUresult res;

  if (bytes == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  res = check_init_locked ();
  if (res == CUDA_SUCCESS && (dev < 0 || dev >= device_count))
    res = CUDA_ERROR_INVALID_DEVICE;
  if (res == CUDA_SUCCESS)
    *bytes = (size_t) total_bytes;
  pthread_mutex_unlock (&lock);
  return res;
}

FAKE_EXPORT CUresult CUDAAPI
cuDevicePrimaryCtxRetain (CUcontext *pctx,
                          CUdevice   dev)
{
  CUresult res;

  if (pctx == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  res = check_init_locked ();
  if (res == CUDA_SUCCESS && (dev < 0 || dev >= device_count))
    res = CUDA_ERROR_INVALID_DEVICE;
  if (res == CUDA_SUCCESS)
    res = retain_result;
  if (res == CUDA_SUCCESS)
    {
      ctx_refcount++;
      *pctx = primary_ctx;
    }
  pthread_mutex_unlock (&lock);
  return res;
}

FAKE_EXPORT CUresult CUDAAPI
cuDevicePrimaryCtxRelease_v2 (CUdevice dev)
{
  CUresult res;

  pthread_mutex_lock (&lock);
  res = check_init_locked ();
  if (res == CUDA_SUCCESS && (dev < 0 || dev >= device_count))
    res = CUDA_ERROR_INVALID_DEVICE;
  if (res == CUDA_SUCCESS && ctx_refcount <= 0)
    res = CUDA_ERROR_INVALID_CONTEXT;
  if (res == CUDA_SUCCESS)
    ctx_refcount--;
  pthread_mutex_unlock (&lock);
  return res;
}

FAKE_EXPORT CUresult CUDAAPI
cuCtxSetCurrent (CUcontext ctx)
{
  CUresult res;

  pthread_mutex_lock (&lock);
  res = check_init_locked ();
  if (res == CUDA_SUCCESS && ctx != NULL && (ctx != primary_ctx || ctx_refcount <= 0))
    res = CUDA_ERROR_INVALID_CONTEXT;
  if (res == CUDA_SUCCESS)
    set_current_ctx (ctx);
  pthread_mutex_unlock (&lock);
  return res;
}

FAKE_EXPORT CUresult CUDAAPI
cuMemGetInfo_v2 (size_t *free,
                 size_t *total)
{
  CUresult res;

  if (free == NULL || total == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  res = check_context_locked ();
  if (res == CUDA_SUCCESS && memgetinfo_result != CUDA_SUCCESS
      && (long long) memgetinfo_calls >= memgetinfo_fail_after)
    res = memgetinfo_result;
  if (res == CUDA_SUCCESS)
    {
      memgetinfo_calls++;
      *total = (size_t) total_bytes;
      *free = (size_t) (free_bytes_at_start > live_pages_bytes
                        ? free_bytes_at_start - live_pages_bytes : 0);
    }
  pthread_mutex_unlock (&lock);
  return res;
}

FAKE_EXPORT CUresult CUDAAPI
cuMemAlloc_v2 (CUdeviceptr *dptr,
               size_t       bytesize)
{
  CUresult res;

  if (dptr == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (env_ll ("FAKE_CUDA_ALLOC_DELAY_MS", 0) > 0)
    usleep ((useconds_t) env_ll ("FAKE_CUDA_ALLOC_DELAY_MS", 0) * 1000);
  pthread_mutex_lock (&lock);
  alloc_calls++;
  res = check_context_locked ();
  if (res == CUDA_SUCCESS && bytesize == 0)
    res = CUDA_ERROR_INVALID_VALUE;
  if (res == CUDA_SUCCESS && alloc_fail_after >= 0
      && (long long) alloc_successes >= alloc_fail_after)
    res = alloc_fail_result;
  if (res == CUDA_SUCCESS
      && live_pages_bytes + round_page (bytesize) > free_bytes_at_start)
    res = CUDA_ERROR_OUT_OF_MEMORY;
  if (res == CUDA_SUCCESS && n_allocs == allocs_capacity)
    {
      unsigned capacity = allocs_capacity ? allocs_capacity * 2 : 64;
      FakeAllocation *grown = realloc (allocs, capacity * sizeof *allocs);

      if (grown == NULL)
        res = CUDA_ERROR_OUT_OF_MEMORY;
      else
        {
          allocs = grown;
          allocs_capacity = capacity;
        }
    }
  if (res == CUDA_SUCCESS)
    {
      allocs[n_allocs].address = (CUdeviceptr) next_address;
      allocs[n_allocs].size = bytesize;
      n_allocs++;
      *dptr = (CUdeviceptr) next_address;
      /* Never reuse an address, so a stale pointer is caught rather than aliased. */
      next_address += round_page (bytesize);
      live_bytes += bytesize;
      live_pages_bytes += round_page (bytesize);
      alloc_successes++;
    }
  pthread_mutex_unlock (&lock);
  return res;
}

FAKE_EXPORT CUresult CUDAAPI
cuMemFree_v2 (CUdeviceptr dptr)
{
  CUresult res;
  long i;

  pthread_mutex_lock (&lock);
  res = check_context_locked ();
  if (res == CUDA_SUCCESS)
    res = free_result;
  i = find_alloc_locked (dptr);
  if (res == CUDA_SUCCESS && i < 0)
    res = CUDA_ERROR_INVALID_VALUE;
  if (res == CUDA_SUCCESS)
    {
      live_bytes -= allocs[i].size;
      live_pages_bytes -= round_page (allocs[i].size);
      allocs[i] = allocs[n_allocs - 1];
      n_allocs--;
    }
  pthread_mutex_unlock (&lock);
  return res;
}

#ifndef FAKE_CUDA_WITHOUT_MEMSET
FAKE_EXPORT CUresult CUDAAPI
cuMemsetD8_v2 (CUdeviceptr   dstDevice,
               unsigned char uc,
               size_t        N)
{
  CUresult res;

  pthread_mutex_lock (&lock);
  res = check_context_locked ();
  if (res == CUDA_SUCCESS)
    res = memset_result;
  if (res == CUDA_SUCCESS)
    {
      /* The range must lie inside one live allocation, as on the device. */
      res = CUDA_ERROR_INVALID_VALUE;
      for (unsigned i = 0; i < n_allocs; i++)
        if (dstDevice >= allocs[i].address
            && dstDevice + N <= allocs[i].address + allocs[i].size)
          {
            res = CUDA_SUCCESS;
            break;
          }
    }
  if (res == CUDA_SUCCESS)
    memset_bytes += N;
  pthread_mutex_unlock (&lock);
  return res;
}
#endif

/* Queries for the tests. */

FAKE_EXPORT unsigned
fake_cuda_live_allocations (void)
{
  unsigned n;

  pthread_mutex_lock (&lock);
  n = n_allocs;
  pthread_mutex_unlock (&lock);
  return n;
}

FAKE_EXPORT unsigned long long
fake_cuda_live_bytes (void)
{
  unsigned long long n;

  pthread_mutex_lock (&lock);
  n = live_bytes;
  pthread_mutex_unlock (&lock);
  return n;
}

FAKE_EXPORT unsigned long long
fake_cuda_memset_bytes (void)
{
  unsigned long long n;

  pthread_mutex_lock (&lock);
  n = memset_bytes;
  pthread_mutex_unlock (&lock);
  return n;
}

/* How often cuMemAlloc_v2 was called, successful or not. */
FAKE_EXPORT unsigned
fake_cuda_alloc_calls (void)
{
  unsigned n;

  pthread_mutex_lock (&lock);
  n = alloc_calls;
  pthread_mutex_unlock (&lock);
  return n;
}

FAKE_EXPORT int
fake_cuda_primary_ctx_refcount (void)
{
  int n;

  pthread_mutex_lock (&lock);
  n = ctx_refcount;
  pthread_mutex_unlock (&lock);
  return n;
}

FAKE_EXPORT int
fake_cuda_initialized (void)
{
  int n;

  pthread_mutex_lock (&lock);
  n = initialized;
  pthread_mutex_unlock (&lock);
  return n;
}

/* Reads the FAKE_CUDA_* variables again, keeping allocations and counters, so a test
 * can make the driver start failing in the middle of a session. */
FAKE_EXPORT void
fake_cuda_reload_env (void)
{
  pthread_mutex_lock (&lock);
  read_env_locked ();
  initialized = init_called && init_result == CUDA_SUCCESS;
  pthread_mutex_unlock (&lock);
}

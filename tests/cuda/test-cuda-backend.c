/* test-cuda-backend.c — the CUDA backend against the fake libcuda.so.1.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GML_LIBCUDA points at tests/cuda/libcuda.so.1 from the build directory (meson sets it).
 * The fake reads its FAKE_CUDA_* variables once, at cuInit, and a driver is never
 * unloaded, so every case runs in its own subprocess and sets its variables there
 * before the backend opens the driver.
 */

#define G_LOG_DOMAIN "test-cuda-backend"

#include "config.h"

#include <locale.h>
#include <string.h>

#include <gmodule.h>

#include "gml-device.h"
#include "gml-picture-script.h"
#include "gml-lab.h"
#include "gml-question-bank.h"
#include "gml-test-subprocess.h"

#define MIB (G_GUINT64_CONSTANT (1024) * 1024)
#define GIB (MIB * 1024)

#if HAVE_CUDA_H

typedef struct
{
  GModule            *module;
  unsigned          (*live_allocations)  (void);
  unsigned long long (*live_bytes)       (void);
  unsigned long long (*memset_bytes)     (void);
  unsigned          (*alloc_calls)       (void);
  int               (*ctx_refcount)      (void);
  int               (*initialized)       (void);
  void              (*reload_env)        (void);
} Fake;

static Fake fake;

/* Opens the same module the backend will open, so the test can read the fake's
 * counters; it also keeps it loaded, so the counters survive the backend's destroy. */
static void
open_fake (void)
{
  const char *path = g_getenv ("GML_LIBCUDA");

  g_assert_nonnull (path);
  fake.module = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  g_assert_nonnull (fake.module);

#define RESOLVE(field, symbol) \
  g_assert_true (g_module_symbol (fake.module, symbol, (gpointer *) &fake.field))
  RESOLVE (live_allocations, "fake_cuda_live_allocations");
  RESOLVE (live_bytes, "fake_cuda_live_bytes");
  RESOLVE (memset_bytes, "fake_cuda_memset_bytes");
  RESOLVE (alloc_calls, "fake_cuda_alloc_calls");
  RESOLVE (ctx_refcount, "fake_cuda_primary_ctx_refcount");
  RESOLVE (initialized, "fake_cuda_initialized");
  RESOLVE (reload_env, "fake_cuda_reload_env");
#undef RESOLVE
}

static void
setenv_u64 (const char *name,
            guint64     value)
{
  g_autofree char *str = g_strdup_printf ("%" G_GUINT64_FORMAT, value);

  g_setenv (name, str, TRUE);
}

static void
test_success (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;
  guint64 free_bytes = 0;
  guint64 total_bytes = 0;
  guint64 a = 0;
  guint64 b = 0;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_NAME", "NVIDIA H200 (fake)", TRUE);
  setenv_u64 ("FAKE_CUDA_TOTAL", 80 * GIB);
  setenv_u64 ("FAKE_CUDA_FREE", 79 * GIB);
  open_fake ();

  device = gml_device_cuda_new (0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (device);

  g_assert_cmpstr (gml_device_get_id (device), ==, "cuda");
  g_assert_cmpstr (gml_device_get_name (device), ==, "NVIDIA H200 (fake)");
  /* min (1 GiB, 79 GiB / 4) */
  g_assert_cmpuint (gml_device_get_budget (device), ==, 1 * GIB);
  g_assert_cmpint (fake.ctx_refcount (), ==, 1);

  g_assert_true (gml_device_mem_get_info (device, &free_bytes, &total_bytes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (total_bytes, ==, 80 * GIB);
  g_assert_cmpuint (free_bytes, ==, 79 * GIB);
  g_assert_cmpuint (device->other_in_use, ==, 1 * GIB);

  g_assert_true (gml_device_alloc (device, 3 * MIB, &a, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (a, !=, 0);
  g_assert_cmpuint (a % 256, ==, 0);
  g_assert_cmpuint (device->in_use, ==, 3 * MIB);
  g_assert_cmpuint (device->n_live, ==, 1);
  g_assert_cmpuint (fake.live_allocations (), ==, 1);
  g_assert_cmpuint (fake.live_bytes (), ==, 3 * MIB);
  /* Every byte was touched, so the driver had to back it with memory. */
  g_assert_cmpuint (fake.memset_bytes (), ==, 3 * MIB);

  g_assert_true (gml_device_alloc (device, 20 * MIB, &b, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (b, !=, a);
  g_assert_cmpuint (device->in_use, ==, 23 * MIB);
  g_assert_cmpuint (device->n_live, ==, 2);
  g_assert_cmpuint (fake.memset_bytes (), ==, 23 * MIB);

  /* The fake counts physical 2 MiB pages: 3 MiB takes 4 MiB. Memory the lab does not
   * hold through the device (here the 1 MiB of page rounding) counts as others'. */
  g_assert_true (gml_device_mem_get_info (device, &free_bytes, &total_bytes, &error));
  g_assert_cmpuint (free_bytes, ==, 79 * GIB - 24 * MIB);
  g_assert_cmpuint (device->other_in_use, ==, 1 * GIB + 1 * MIB);

  g_assert_true (gml_device_free (device, a, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (device->in_use, ==, 20 * MIB);
  g_assert_cmpuint (device->n_live, ==, 1);
  g_assert_cmpuint (fake.live_allocations (), ==, 1);
  g_assert_cmpuint (fake.live_bytes (), ==, 20 * MIB);

  /* Freeing it twice, or an address never handed out, is refused before the driver. */
  g_assert_false (gml_device_free (device, a, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpuint (device->n_live, ==, 1);

  g_assert_false (gml_device_alloc (device, 0, &a, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INVALID);
  g_clear_error (&error);

  g_assert_true (gml_device_free (device, b, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (device->in_use, ==, 0);
  g_assert_cmpuint (device->n_live, ==, 0);
  g_assert_cmpuint (fake.live_allocations (), ==, 0);

  gml_device_destroy (device);
  g_assert_cmpint (fake.ctx_refcount (), ==, 0);
}

static void
test_default_budget_quarter_of_free (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  setenv_u64 ("FAKE_CUDA_TOTAL", 4 * GIB);
  setenv_u64 ("FAKE_CUDA_FREE", 2 * GIB);
  open_fake ();

  device = gml_device_cuda_new (0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gml_device_get_budget (device), ==, 512 * MIB);
  g_assert_cmpuint (device->other_in_use, ==, 2 * GIB);
  gml_device_destroy (device);
}

static void
test_no_driver (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("GML_LIBCUDA", "/nonexistent/gml-test/libcuda.so.1", TRUE);

  device = gml_device_cuda_new (0, &error);
  g_assert_null (device);
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_NO_DRIVER);
  g_assert_cmpstr (error->message, ==,
                   "No NVIDIA driver found (/nonexistent/gml-test/libcuda.so.1 could not be "
                   "opened).");
}

/* auto falls back to the simulator and says why; cuda alone fails with the reason. */
static void
test_no_driver_auto_falls_back (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("GML_LIBCUDA", "/nonexistent/gml-test/libcuda.so.1", TRUE);

  device = gml_device_open (GML_BACKEND_AUTO, 8 * GIB, 0, &reason, &error);
  g_assert_no_error (error);
  g_assert_nonnull (device);
  g_assert_cmpstr (gml_device_get_id (device), ==, "sim");
  g_assert_nonnull (reason);
  g_assert_nonnull (strstr (reason, "No NVIDIA driver found"));
  gml_device_destroy (device);

  device = gml_device_open (GML_BACKEND_CUDA, 8 * GIB, 0, NULL, &error);
  g_assert_null (device);
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_NO_DRIVER);
}

static void
test_init_no_device (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_INIT_RESULT", "100", TRUE);
  open_fake ();

  device = gml_device_cuda_new (0, &error);
  g_assert_null (device);
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_NO_DEVICE);
  g_assert_cmpstr (error->message, ==,
                   "cuInit failed: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected");
  g_assert_cmpint (fake.ctx_refcount (), ==, 0);
}

/* Without cuGetErrorString/cuGetErrorName the backend's own table says the same. */
static void
test_init_no_device_without_error_strings (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_INIT_RESULT", "100", TRUE);
  g_setenv ("FAKE_CUDA_NO_ERROR_STRING", "1", TRUE);

  device = gml_device_cuda_new (0, &error);
  g_assert_null (device);
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_NO_DEVICE);
  g_assert_cmpstr (error->message, ==,
                   "cuInit failed: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected");
}

static void
test_init_unknown_error (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_INIT_RESULT", "999", TRUE);

  device = gml_device_cuda_new (0, &error);
  g_assert_null (device);
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INIT_FAILED);
  g_assert_true (g_str_has_prefix (error->message,
                                   "cuInit failed: CUDA_ERROR_UNKNOWN (999): unknown error. "));
  /* The hint that names the usual cause in a Flatpak. */
  g_assert_nonnull (strstr (error->message, "sandbox"));
  g_assert_nonnull (strstr (error->message, "nvidia_uvm"));
}

static void
test_init_other_error (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_INIT_RESULT", "803", TRUE);

  device = gml_device_cuda_new (0, &error);
  g_assert_null (device);
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INIT_FAILED);
  g_assert_true (g_str_has_prefix (error->message,
                                   "cuInit failed: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803): "));
  g_assert_null (strstr (error->message, "nvidia_uvm"));
}

static void
test_zero_devices (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_DEVICE_COUNT", "0", TRUE);
  open_fake ();

  device = gml_device_cuda_new (0, &error);
  g_assert_null (device);
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_NO_DEVICE);
  g_assert_cmpint (fake.ctx_refcount (), ==, 0);
}

/* A failure after the primary context was retained gives the context back. */
static void
test_init_mem_get_info_fails (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_MEMGETINFO_RESULT", "201", TRUE);
  open_fake ();

  device = gml_device_cuda_new (0, &error);
  g_assert_null (device);
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INIT_FAILED);
  g_assert_cmpstr (error->message, ==,
                   "cuMemGetInfo failed: CUDA_ERROR_INVALID_CONTEXT (201): invalid device context");
  g_assert_cmpint (fake.ctx_refcount (), ==, 0);
}

static void
test_mem_get_info_fails_mid_session (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;
  guint64 free_bytes = 0;

  if (!gml_test_in_subprocess ())
    return;

  open_fake ();
  device = gml_device_cuda_new (0, &error);
  g_assert_no_error (error);

  g_setenv ("FAKE_CUDA_MEMGETINFO_RESULT", "999", TRUE);
  fake.reload_env ();

  g_assert_false (gml_device_mem_get_info (device, &free_bytes, NULL, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==,
                   "cuMemGetInfo failed: CUDA_ERROR_UNKNOWN (999): unknown error");
  gml_device_destroy (device);
}

static void
test_missing_symbol (void)
{
  g_autoptr(GError) error = NULL;
  const char *incomplete = g_getenv ("GML_TEST_INCOMPLETE_LIBCUDA");
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  g_assert_nonnull (incomplete);
  g_setenv ("GML_LIBCUDA", incomplete, TRUE);

  device = gml_device_cuda_new (0, &error);
  g_assert_null (device);
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INIT_FAILED);
  g_assert_nonnull (strstr (error->message, "cuMemsetD8_v2"));
}

static void
test_alloc_out_of_memory (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;
  guint64 a = 0;
  guint64 b = 0;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_ALLOC_FAIL_AFTER", "1", TRUE);
  open_fake ();

  device = gml_device_cuda_new (0, &error);
  g_assert_no_error (error);

  g_assert_true (gml_device_alloc (device, 2 * MIB, &a, &error));
  g_assert_no_error (error);

  g_assert_false (gml_device_alloc (device, 20 * MIB, &b, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "cuMemAlloc"));
  g_assert_true (g_str_has_suffix (error->message,
                                   ": CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"));
  g_clear_error (&error);

  /* The failed request left no trace. */
  g_assert_cmpuint (device->in_use, ==, 2 * MIB);
  g_assert_cmpuint (device->n_live, ==, 1);
  g_assert_cmpuint (fake.live_allocations (), ==, 1);

  gml_device_destroy (device);
  g_assert_cmpuint (fake.live_allocations (), ==, 0);
}

/* A driver failure that is not out of memory is not reported as one. */
static void
test_alloc_other_failure (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;
  guint64 a = 0;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_ALLOC_FAIL_AFTER", "0", TRUE);
  g_setenv ("FAKE_CUDA_ALLOC_FAIL_RESULT", "700", TRUE);

  device = gml_device_cuda_new (0, &error);
  g_assert_no_error (error);

  g_assert_false (gml_device_alloc (device, 2 * MIB, &a, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_FAILED);
  g_assert_true (g_str_has_suffix (error->message,
                                   ": CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access "
                                   "was encountered"));
  g_assert_cmpuint (device->n_live, ==, 0);
  gml_device_destroy (device);
}

/* When the memory cannot be touched, it is given back and the alloc fails. */
static void
test_memset_failure_frees (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;
  guint64 a = 0;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_MEMSET_RESULT", "999", TRUE);
  open_fake ();

  device = gml_device_cuda_new (0, &error);
  g_assert_no_error (error);

  g_assert_false (gml_device_alloc (device, 2 * MIB, &a, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "cuMemsetD8"));
  g_assert_cmpuint (device->in_use, ==, 0);
  g_assert_cmpuint (device->n_live, ==, 0);
  g_assert_cmpuint (fake.alloc_calls (), ==, 1);
  g_assert_cmpuint (fake.live_allocations (), ==, 0);
  gml_device_destroy (device);
}

static void
test_budget_enforced (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;
  guint64 a = 0;
  guint64 b = 0;
  guint calls;

  if (!gml_test_in_subprocess ())
    return;

  open_fake ();

  device = gml_device_cuda_new (10 * MIB, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gml_device_get_budget (device), ==, 10 * MIB);

  g_assert_true (gml_device_alloc (device, 6 * MIB, &a, &error));
  g_assert_no_error (error);
  calls = fake.alloc_calls ();

  /* 6 + 6 > 10: refused without asking the driver, which has gigabytes free. */
  g_assert_false (gml_device_alloc (device, 6 * MIB, &b, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "allowed"));
  g_clear_error (&error);
  g_assert_cmpuint (fake.alloc_calls (), ==, calls);
  g_assert_cmpuint (fake.live_allocations (), ==, 1);
  g_assert_cmpuint (device->in_use, ==, 6 * MIB);
  g_assert_cmpuint (device->n_live, ==, 1);

  /* Exactly up to the budget is allowed. */
  g_assert_true (gml_device_alloc (device, 4 * MIB, &b, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (device->in_use, ==, 10 * MIB);

  g_assert_false (gml_device_alloc (device, 1, &b, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);

  /* Freeing makes room again. */
  g_assert_true (gml_device_free (device, a, &error));
  g_assert_true (gml_device_alloc (device, 6 * MIB, &a, &error));
  g_assert_no_error (error);

  gml_device_destroy (device);
}

/* destroy frees whatever is still live and gives the primary context back. */
static void
test_destroy_frees_everything (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  open_fake ();

  device = gml_device_cuda_new (256 * MIB, &error);
  g_assert_no_error (error);

  for (guint i = 1; i <= 12; i++)
    {
      guint64 address = 0;

      g_assert_true (gml_device_alloc (device, i * MIB + 512, &address, &error));
      g_assert_no_error (error);
    }
  g_assert_cmpuint (device->n_live, ==, 12);
  g_assert_cmpuint (fake.live_allocations (), ==, 12);
  g_assert_cmpint (fake.ctx_refcount (), ==, 1);

  gml_device_destroy (device);

  g_assert_cmpuint (fake.live_allocations (), ==, 0);
  g_assert_cmpuint (fake.live_bytes (), ==, 0);
  g_assert_cmpint (fake.ctx_refcount (), ==, 0);
}

/* Switching backends back and forth (a new device each time) leaks nothing. */
static void
test_reopen (void)
{
  g_autoptr(GError) error = NULL;

  if (!gml_test_in_subprocess ())
    return;

  open_fake ();

  for (guint round = 0; round < 3; round++)
    {
      GmlDevice *device = gml_device_cuda_new (64 * MIB, &error);
      guint64 address = 0;

      g_assert_no_error (error);
      g_assert_true (gml_device_alloc (device, 8 * MIB, &address, &error));
      g_assert_no_error (error);
      gml_device_destroy (device);
      g_assert_cmpuint (fake.live_allocations (), ==, 0);
      g_assert_cmpint (fake.ctx_refcount (), ==, 0);
    }
}

/* Every question's experiment on the (fake) GPU: real device allocations within the
 * budget, every one given back, and the same figures as on the simulator. */
static void
test_experiments (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("GML_SOURCE_ROOT"), "data", "questions",
                                            "gpu-memory.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GmlQuestionBank) bank = gml_question_bank_new ();
  g_autoptr(GmlDevice) sim = gml_device_sim_new (GML_SCENARIO_SIM_CAPACITY, 0);
  g_autoptr(GError) error = NULL;
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  setenv_u64 ("FAKE_CUDA_TOTAL", 80 * GIB);
  setenv_u64 ("FAKE_CUDA_FREE", 79 * GIB);
  open_fake ();
  g_assert_true (gml_question_bank_load_file (bank, file, TRUE, &error));
  g_assert_no_error (error);

  device = gml_device_cuda_new (GML_SCENARIO_SIM_CAPACITY, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < gml_question_bank_get_n_questions (bank); i++)
    {
      const GmlQuestion *q = gml_question_bank_get (bank, i);
      g_autofree char *key = gml_picture_script_to_string (q->picture_script);
      g_autoptr(GmlScenario) live = NULL;
      g_autoptr(GmlScenario) simulated = NULL;

      /* Under the sanitizers and valgrind (GML_TEST_EXPERIMENT_SAMPLE, set by
       * build-aux/run-hardening.sh) a sample: every fourth question's experiment, not
       * the lab's configurations, whose millions of allocations take minutes there.
       * The plain run of this test goes through every one. */
      if (g_getenv ("GML_TEST_EXPERIMENT_SAMPLE") != NULL &&
          (i % 4 != 0 || g_str_has_prefix (key, "lab ") || g_str_equal (key, "lab")))
        continue;
      g_test_message ("%s", q->id);
      live = gml_scenario_new_picture_script (q->picture_script, device, &error);
      g_assert_no_error (error);
      g_assert_nonnull (live);
      g_assert_cmpuint (fake.live_allocations (), ==, 0);
      g_assert_cmpuint (device->in_use, ==, 0);
      simulated = gml_scenario_new_picture_script (q->picture_script, sim, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (gml_scenario_get_n_keys (live), ==, gml_scenario_get_n_keys (simulated));
      for (guint k = 0; k < gml_scenario_get_n_keys (live); k++)
        if (gml_scenario_get_key (live, k)->bytes != gml_scenario_get_key (simulated, k)->bytes &&
            !g_str_has_prefix (gml_scenario_get_key (live, k)->name, "device_free"))
          g_error ("%s: %s is %" G_GUINT64_FORMAT " live, %" G_GUINT64_FORMAT " simulated", q->id,
                   gml_scenario_get_key (live, k)->name, gml_scenario_get_key (live, k)->bytes,
                   gml_scenario_get_key (simulated, k)->bytes);
    }
  gml_device_destroy (device);
  g_assert_cmpuint (fake.live_allocations (), ==, 0);
}

/* The lab's live run: gpt2's training step for an 80 GiB GPU, scaled down into a
 * 1 GiB budget, its segments real cuMemAlloc calls; the simulator at the same scale
 * and the driver's own count agree with the engine. */
static void
test_lab_live (void)
{
  g_autoptr(GError) error = NULL;
  GmlLabConfig config;
  GmlLabLive live;
  GmlDevice *device;
  guint calls_before;

  if (!gml_test_in_subprocess ())
    return;

  setenv_u64 ("FAKE_CUDA_TOTAL", 8 * GIB);
  open_fake ();
  gml_lab_config_init (&config);
  g_assert_true (gml_lab_config_set (&config, "model", "gpt2", &error));
  g_assert_true (gml_lab_config_set (&config, "gpu-memory", "80G", &error));
  g_assert_true (gml_lab_config_set (&config, "batch", "8", &error));
  g_assert_no_error (error);

  device = gml_device_cuda_new (1 * GIB, &error);
  g_assert_no_error (error);
  calls_before = fake.alloc_calls ();
  g_assert_true (gml_lab_run_live (&config, device, &live, &error));
  g_assert_no_error (error);
  g_test_message ("scale 1/%" G_GUINT64_FORMAT ", share %" G_GUINT64_FORMAT ", peaks "
                                                                            "%" G_GUINT64_FORMAT
                  " / %" G_GUINT64_FORMAT ", driver %" G_GUINT64_FORMAT ", %u cuMemAlloc calls",
                  live.scale, live.capacity, live.peak_allocated, live.peak_reserved,
                  live.driver_peak,
                  fake.alloc_calls () - calls_before);
  /* 80 GiB / 64 is 1.25 GiB, more than the budget; / 128 is 640 MiB. */
  g_assert_cmpuint (live.scale, ==, 128);
  g_assert_cmpuint (live.capacity, ==, 640 * MIB);
  g_assert_cmpstr (live.device_name, ==, "Fake NVIDIA GPU");
  g_assert_true (live.fits);
  g_assert_true (live.sim_fits);
  g_assert_cmpuint (live.peak_allocated, >, 0);
  g_assert_cmpuint (live.peak_allocated, ==, live.sim_peak_allocated);
  g_assert_cmpuint (live.peak_reserved, ==, live.sim_peak_reserved);
  g_assert_cmpuint (live.driver_peak, ==, live.peak_reserved);
  g_assert_true (live.agrees);
  g_assert_cmpuint (fake.alloc_calls () - calls_before, >, 1);
  /* Everything went back to the driver. */
  g_assert_cmpuint (fake.live_allocations (), ==, 0);
  g_assert_cmpuint (device->in_use, ==, 0);
  gml_lab_live_clear (&live);

  /* Too little room for even the largest scale. */
  gml_device_destroy (device);
  device = gml_device_cuda_new (16 * MIB, &error);
  g_assert_no_error (error);
  g_assert_false (gml_lab_run_live (&config, device, &live, &error));
  g_assert_error (error, GML_LAB_ERROR, GML_LAB_ERROR_NOT_LIVE);
  g_clear_error (&error);
  g_assert_null (live.device_name);
  gml_device_destroy (device);
  gml_lab_config_clear (&config);
  g_assert_cmpuint (fake.live_allocations (), ==, 0);
}

/* A GPU that refuses memory the simulator would give: the live run ends in the
 * out of memory PyTorch would print, and says that it does not agree. */
static void
test_lab_live_refused (void)
{
  g_autoptr(GError) error = NULL;
  GmlLabConfig config;
  GmlLabLive live;
  GmlDevice *device;

  if (!gml_test_in_subprocess ())
    return;

  setenv_u64 ("FAKE_CUDA_TOTAL", 8 * GIB);
  g_setenv ("FAKE_CUDA_ALLOC_FAIL_AFTER", "2", TRUE);
  open_fake ();
  gml_lab_config_init (&config);
  g_assert_true (gml_lab_config_set (&config, "model", "gpt2", &error));
  g_assert_no_error (error);

  device = gml_device_cuda_new (1 * GIB, &error);
  g_assert_no_error (error);
  g_assert_true (gml_lab_run_live (&config, device, &live, &error));
  g_assert_no_error (error);
  g_assert_false (live.fits);
  g_assert_true (live.sim_fits);
  g_assert_false (live.agrees);
  g_assert_nonnull (live.oom_message);
  g_assert_nonnull (strstr (live.oom_message, "CUDA out of memory"));
  gml_lab_live_clear (&live);
  gml_device_destroy (device);
  gml_lab_config_clear (&config);
  g_assert_cmpuint (fake.live_allocations (), ==, 0);
}

/* Only with GML_TEST_REAL_CUDA=1 and GML_LIBCUDA unset, on a machine with an NVIDIA GPU
 * (tests/device/run-device-checks.sh): the same backend against the real driver. */
static void
test_real_driver (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;
  GmlDevice *unlimited;
  guint64 free1 = 0;
  guint64 free2 = 0;
  guint64 free3 = 0;
  guint64 total = 0;
  guint64 a = 0;
  guint64 b = 0;

  device = gml_device_cuda_new (0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (device);
  g_assert_cmpstr (gml_device_get_id (device), ==, "cuda");
  g_assert_cmpstr (gml_device_get_name (device), !=, "");
  g_assert_true (g_utf8_validate (gml_device_get_name (device), -1, NULL));

  g_assert_true (gml_device_mem_get_info (device, &free1, &total, &error));
  g_assert_no_error (error);
  g_test_message ("device: %s, total %" G_GUINT64_FORMAT ", free %" G_GUINT64_FORMAT
                  ", budget %" G_GUINT64_FORMAT ", others %" G_GUINT64_FORMAT,
                  gml_device_get_name (device), total, free1,
                  gml_device_get_budget (device), device->other_in_use);
  g_assert_cmpuint (total, >, 0);
  g_assert_cmpuint (free1, <=, total);
  /* The budget was computed from the free memory at open, a moment earlier. */
  g_assert_cmpuint (gml_device_get_budget (device), <=, 1 * GIB);
  g_assert_cmpuint (gml_device_get_budget (device), >, 0);
  g_assert_cmpuint (device->other_in_use, ==, total - free1);

  /* 64 MiB, touched with cuMemsetD8, really leaves the free memory. */
  g_assert_true (gml_device_alloc (device, 64 * MIB, &a, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (a % 256, ==, 0);
  g_assert_cmpuint (device->in_use, ==, 64 * MIB);
  g_assert_true (gml_device_mem_get_info (device, &free2, NULL, &error));
  g_assert_no_error (error);
  g_test_message ("free after 64 MiB: %" G_GUINT64_FORMAT " (%" G_GINT64_FORMAT " less)",
                  free2, (gint64) (free1 - free2));
  g_assert_cmpuint (free1 - free2, >=, 64 * MIB);

  /* Past the budget: refused by the lab, not the driver. */
  g_assert_false (gml_device_alloc (device, gml_device_get_budget (device), &b, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY);
  g_test_message ("budget: %s", error->message);
  g_clear_error (&error);

  /* Past the device: the driver's own CUDA_ERROR_OUT_OF_MEMORY, mapped. */
  unlimited = gml_device_cuda_new (G_MAXUINT64, &error);
  g_assert_no_error (error);
  g_assert_false (gml_device_alloc (unlimited, total + 1 * GIB, &b, &error));
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY);
  g_test_message ("driver: %s", error->message);
  g_assert_nonnull (strstr (error->message, "(2)"));
  g_clear_error (&error);
  g_assert_cmpuint (unlimited->n_live, ==, 0);

  /* destroy gives the memory back (the primary context stays with the other device). */
  gml_device_destroy (device);
  g_assert_true (gml_device_mem_get_info (unlimited, &free3, NULL, &error));
  g_assert_no_error (error);
  g_test_message ("free after destroy: %" G_GUINT64_FORMAT, free3);
  g_assert_cmpuint (free3, >=, free2 + 64 * MIB);
  gml_device_destroy (unlimited);
}

#else /* !HAVE_CUDA_H */

/* A build without cuda.h still has the function, and it says why it cannot work. */
static void
test_built_without_cuda (void)
{
  g_autoptr(GError) error = NULL;
  GmlDevice *device;

  device = gml_device_cuda_new (0, &error);
  g_assert_null (device);
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_NO_DRIVER);
  g_assert_nonnull (strstr (error->message, "built without CUDA support"));
}

#endif /* HAVE_CUDA_H */

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  /* The messages are compared in English; translations are not loaded by this test. */
  setlocale (LC_MESSAGES, "C");

#if HAVE_CUDA_H
  /* On a machine with a GPU the same binary checks the real driver instead of the fake. */
  if (g_strcmp0 (g_getenv ("GML_TEST_REAL_CUDA"), "1") == 0)
    {
      g_test_add_func ("/cuda/real-driver", test_real_driver);
      return g_test_run ();
    }

  g_test_add_func ("/cuda/success", test_success);
  g_test_add_func ("/cuda/default-budget", test_default_budget_quarter_of_free);
  g_test_add_func ("/cuda/no-driver", test_no_driver);
  g_test_add_func ("/cuda/no-driver/auto-falls-back", test_no_driver_auto_falls_back);
  g_test_add_func ("/cuda/init/no-device", test_init_no_device);
  g_test_add_func ("/cuda/init/no-device-without-error-strings",
                   test_init_no_device_without_error_strings);
  g_test_add_func ("/cuda/init/unknown-error", test_init_unknown_error);
  g_test_add_func ("/cuda/init/driver-mismatch", test_init_other_error);
  g_test_add_func ("/cuda/init/zero-devices", test_zero_devices);
  g_test_add_func ("/cuda/init/mem-get-info-fails", test_init_mem_get_info_fails);
  g_test_add_func ("/cuda/init/missing-symbol", test_missing_symbol);
  g_test_add_func ("/cuda/mem-get-info-fails-mid-session", test_mem_get_info_fails_mid_session);
  g_test_add_func ("/cuda/alloc/out-of-memory", test_alloc_out_of_memory);
  g_test_add_func ("/cuda/alloc/other-failure", test_alloc_other_failure);
  g_test_add_func ("/cuda/alloc/memset-failure-frees", test_memset_failure_frees);
  g_test_add_func ("/cuda/budget", test_budget_enforced);
  g_test_add_func ("/cuda/destroy-frees-everything", test_destroy_frees_everything);
  g_test_add_func ("/cuda/reopen", test_reopen);
  g_test_add_func ("/cuda/experiments", test_experiments);
  g_test_add_func ("/cuda/lab-live", test_lab_live);
  g_test_add_func ("/cuda/lab-live-refused", test_lab_live_refused);
#else
  g_test_add_func ("/cuda/built-without-cuda", test_built_without_cuda);
#endif

  return g_test_run ();
}

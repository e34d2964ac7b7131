/* test-cuda-faults.c — a CUDA driver that starts failing in the middle of a session.
 *
 * The fake libcuda.so.1 (tests/cuda) fails cuMemAlloc with 999 (CUDA_ERROR_UNKNOWN)
 * or 2 (out of memory) after N calls, or cuMemGetInfo after N calls. Whatever
 * fails, the replay engine on the CUDA backend, the allocator and the scenarios must say so in
 * words, and give every byte of device memory back: the fake's count of live
 * allocations returns to 0.
 *
 * The fake reads its FAKE_CUDA_* variables at cuInit and a driver is never
 * unloaded, so every case runs in its own subprocess.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "test-cuda-faults"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <gmodule.h>

#include "gml-allocator.h"
#include "gml-device.h"
#include "gml-i18n.h"
#include "gml-replay.h"
#include "gml-test-subprocess.h"
#ifdef HAVE_GML_SCENARIO
#include "gml-picture-script.h"
#include "gml-scenario.h"
#endif

#define MIB (G_GUINT64_CONSTANT (1024) * 1024)

static unsigned (*fake_live_allocations) (void);
static unsigned (*fake_alloc_calls) (void);

static void
open_fake (void)
{
  const char *path = g_getenv ("GML_LIBCUDA");
  GModule *module;

  g_assert_nonnull (path);
  /* Kept open for good: the counters must outlive the backend. */
  module = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  g_assert_nonnull (module);
  g_assert_true (g_module_symbol (module, "fake_cuda_live_allocations",
                                  (gpointer *) &fake_live_allocations));
  g_assert_true (g_module_symbol (module, "fake_cuda_alloc_calls",
                                  (gpointer *) &fake_alloc_calls));
}

/* What one replay on the CUDA backend left behind. */
typedef struct
{
  GError *error;
  gint64  num_ooms;
  char   *last_oom_message;
} ReplayResult;

static void
replay_result_clear (ReplayResult *result)
{
  g_clear_error (&result->error);
  g_clear_pointer (&result->last_oom_message, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ReplayResult, replay_result_clear)

/* Runs @trace through the replay engine on the CUDA backend in this process,
 * as `gpu-memory-lab replay --backend cuda` does, so the fake's counters can
 * be read after it returns. The allocator and the device are gone by then. */
static gboolean
replay_cuda (const char   *trace,
             ReplayResult *result)
{
  g_autofree char *dir = g_dir_make_tmp ("gml-cuda-faults-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "trace.jsonl", NULL);
  g_autofree char *reason = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlDevice) device = NULL;
  GmlAllocator *allocator;
  GmlAllocConf conf;
  gboolean ok;

  g_assert_true (g_file_set_contents (path, trace, -1, NULL));
  device = gml_device_open (GML_BACKEND_CUDA, 0, 0, &reason, &error);
  g_assert_no_error (error);
  g_assert_null (reason);
  gml_alloc_conf_init (&conf);
  allocator = gml_allocator_new (device, &conf);
  gml_allocator_set_keep_trace (allocator, FALSE);

  ok = gml_replay_file (path, allocator, NULL, &result->error);
  gml_stats_lookup (gml_allocator_get_stats (allocator), "num_ooms", &result->num_ooms);
  result->last_oom_message = g_strdup (gml_allocator_get_last_oom_message (allocator));
  g_test_message ("replayed: %s; %s", ok ? "yes" : "no",
                  result->error ? result->error->message : "no error");
  gml_allocator_destroy (allocator);

  g_remove (path);
  g_rmdir (dir);
  return ok;
}

/* Five allocations of 30 MB: each needs a segment of its own from the device. */
static const char five_large[] =
  "{\"op\":\"alloc\",\"id\":\"a\",\"size\":30000000}\n"
  "{\"op\":\"alloc\",\"id\":\"b\",\"size\":30000000}\n"
  "{\"op\":\"alloc\",\"id\":\"c\",\"size\":30000000}\n"
  "{\"op\":\"alloc\",\"id\":\"d\",\"size\":30000000}\n"
  "{\"op\":\"alloc\",\"id\":\"e\",\"size\":30000000}\n"
  "{\"op\":\"free\",\"id\":\"a\"}\n";

static void
test_replay_alloc_fails_999 (void)
{
  g_auto(ReplayResult) result = { 0 };

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_ALLOC_FAIL_AFTER", "2", TRUE);
  g_setenv ("FAKE_CUDA_ALLOC_FAIL_RESULT", "999", TRUE);
  open_fake ();

  g_assert_false (replay_cuda (five_large, &result));
  /* The line, the call and the driver's own words. */
  g_assert_error (result.error, GML_REPLAY_ERROR, GML_REPLAY_ERROR_LINE);
  g_assert_nonnull (strstr (result.error->message, "trace.jsonl:3:"));
  g_assert_nonnull (strstr (result.error->message, "cuMemAlloc"));
  g_assert_nonnull (strstr (result.error->message, "CUDA_ERROR_UNKNOWN"));
  g_assert_cmpuint (fake_alloc_calls (), ==, 3);
  g_assert_cmpuint (fake_live_allocations (), ==, 0);
}

static void
test_replay_alloc_fails_out_of_memory (void)
{
  g_auto(ReplayResult) result = { 0 };

  if (!gml_test_in_subprocess ())
    return;

  /* Out of memory from the driver is part of the experiment: counted, and the
   * replay goes on, as PyTorch's would. */
  g_setenv ("FAKE_CUDA_ALLOC_FAIL_AFTER", "2", TRUE);
  g_setenv ("FAKE_CUDA_ALLOC_FAIL_RESULT", "2", TRUE);
  open_fake ();

  g_assert_true (replay_cuda (five_large, &result));
  g_assert_no_error (result.error);
  g_assert_cmpint (result.num_ooms, ==, 3);
  g_assert_nonnull (strstr (result.last_oom_message, "CUDA out of memory"));
  g_assert_cmpuint (fake_live_allocations (), ==, 0);
}

static void
test_replay_mem_get_info_fails (void)
{
  g_auto(ReplayResult) result = { 0 };

  if (!gml_test_in_subprocess ())
    return;

  /* cuMemGetInfo answers at start-up (the budget), then fails: the out-of-memory
   * message, which quotes the device's free memory, must still be written. */
  g_setenv ("FAKE_CUDA_ALLOC_FAIL_AFTER", "1", TRUE);
  g_setenv ("FAKE_CUDA_MEMGETINFO_FAIL_AFTER", "1", TRUE);
  g_setenv ("FAKE_CUDA_MEMGETINFO_RESULT", "999", TRUE);
  open_fake ();

  g_assert_true (replay_cuda (five_large, &result));
  g_assert_no_error (result.error);
  g_assert_nonnull (result.last_oom_message);
  g_assert_nonnull (strstr (result.last_oom_message, "CUDA out of memory"));
  g_assert_cmpuint (fake_live_allocations (), ==, 0);
}

static void
test_allocator_alloc_fails_999 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlDevice) device = NULL;
  GmlAllocator *allocator;
  gint32 blocks[8];
  guint n = 0;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_ALLOC_FAIL_AFTER", "3", TRUE);
  g_setenv ("FAKE_CUDA_ALLOC_FAIL_RESULT", "999", TRUE);
  open_fake ();

  device = gml_device_cuda_new (512 * MIB, &error);
  g_assert_no_error (error);
  allocator = gml_allocator_new (device, NULL);

  while (n < G_N_ELEMENTS (blocks) &&
         gml_allocator_malloc (allocator, 30000000, 0, NULL, GML_CATEGORY_NONE, &blocks[n], &error))
    n++;

  /* Three segments, then the driver's failure: not an out-of-memory (PyTorch's
   * message would be a lie), but the driver's error, in words. */
  g_assert_cmpuint (n, ==, 3);
  g_assert_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_FAILED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "CUDA_ERROR_UNKNOWN"));
  g_assert_cmpint (gml_allocator_get_stats (allocator)->num_ooms, ==, 0);
  g_assert_cmpuint (fake_live_allocations (), ==, 3);

  /* The allocator still works with what it has. */
  g_clear_error (&error);
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (gml_allocator_free (allocator, blocks[i], &error));
      g_assert_no_error (error);
    }
  g_assert_true (gml_allocator_malloc (allocator, 1000, 0, NULL, GML_CATEGORY_NONE,
                                       &blocks[0], &error) || error != NULL);
  g_clear_error (&error);

  gml_allocator_destroy (allocator);
  g_clear_pointer (&device, gml_device_destroy);
  g_assert_cmpuint (fake_live_allocations (), ==, 0);
}

#ifdef HAVE_GML_SCENARIO
static void
test_scenarios_device_fails (void)
{
  const char * const *names;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_ALLOC_FAIL_AFTER", "1", TRUE);
  g_setenv ("FAKE_CUDA_ALLOC_FAIL_RESULT", "999", TRUE);
  open_fake ();

  names = gml_scenario_names ();
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GmlDevice) device = gml_device_cuda_new (0, &error);
      g_autoptr(GmlDevice) sim = NULL;
      g_autoptr(GmlScenario) scenario = NULL;

      g_assert_no_error (error);
      scenario = gml_scenario_new (names[i], device, &error);
      if (scenario == NULL)
        {
          /* The failure is the device's, and says so. */
          g_assert_error (error, GML_SCENARIO_ERROR, GML_SCENARIO_ERROR_DEVICE);
          g_assert_nonnull (strstr (error->message, "CUDA_ERROR_UNKNOWN"));
          g_test_message ("%s on CUDA: %s", names[i], error->message);
        }
      /* Whether it failed or ran, a scenario holds no device memory. */
      g_assert_cmpuint (fake_live_allocations (), ==, 0);
      g_clear_pointer (&scenario, gml_scenario_free);
      g_clear_pointer (&device, gml_device_destroy);
      g_assert_cmpuint (fake_live_allocations (), ==, 0);

      /* What the app falls back to: the same scenario on the simulator. */
      g_clear_error (&error);
      sim = gml_device_sim_new (GML_SCENARIO_SIM_CAPACITY, 0);
      scenario = gml_scenario_new (names[i], sim, &error);
      g_assert_no_error (error);
      g_assert_nonnull (scenario);
      g_assert_cmpuint (gml_scenario_get_n_steps (scenario), >, 0);
    }
}

/* The quiz's picture and the presentation's: a question's experiment that fails on
 * the GPU runs on a simulator, which then serves the next ones without the GPU. */
static void
test_experiment_falls_back (void)
{
  g_autoptr(GmlPictureScript) experiment = gml_picture_script_new_default ("oom");
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlDevice) device = NULL;
  g_autofree char *why = NULL;
  GmlDevice *fallback = NULL;
  GmlScenario *first, *second;
  guint calls;

  if (!gml_test_in_subprocess ())
    return;

  g_setenv ("FAKE_CUDA_ALLOC_FAIL_AFTER", "1", TRUE);
  g_setenv ("FAKE_CUDA_ALLOC_FAIL_RESULT", "999", TRUE);
  open_fake ();
  device = gml_device_cuda_new (0, &error);
  g_assert_no_error (error);

  first = gml_scenario_new_picture_script_or_simulate (experiment, device, &fallback, &why, &error);
  g_assert_no_error (error);
  g_assert_nonnull (first);
  g_assert_nonnull (fallback);
  g_assert_cmpstr (gml_device_get_id (fallback), ==, "sim");
  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, "CUDA_ERROR_UNKNOWN"));
  g_assert_cmpuint (fake_live_allocations (), ==, 0);

  calls = fake_alloc_calls ();
  second = gml_scenario_new_picture_script_or_simulate (experiment, device, &fallback, &why, &error);
  g_assert_no_error (error);
  g_assert_nonnull (second);
  g_assert_cmpuint (fake_alloc_calls (), ==, calls);   /* the GPU is not asked again */

  gml_scenario_free (first);
  gml_scenario_free (second);
  gml_device_unref (fallback);
}
#endif

int
main (int    argc,
      char **argv)
{
  g_setenv ("LANGUAGE", "en", TRUE);
  gml_i18n_init ();
  g_test_init (&argc, &argv, NULL);

#if HAVE_CUDA_H
  if (g_getenv ("GML_LIBCUDA") == NULL)
    {
      g_test_skip ("GML_LIBCUDA is not set (no fake driver in this build)");
      return g_test_run ();
    }
  g_test_add_func ("/cuda-faults/replay/alloc-fails-999", test_replay_alloc_fails_999);
  g_test_add_func ("/cuda-faults/replay/alloc-fails-out-of-memory",
                   test_replay_alloc_fails_out_of_memory);
  g_test_add_func ("/cuda-faults/replay/mem-get-info-fails", test_replay_mem_get_info_fails);
  g_test_add_func ("/cuda-faults/allocator/alloc-fails-999", test_allocator_alloc_fails_999);
#ifdef HAVE_GML_SCENARIO
  g_test_add_func ("/cuda-faults/scenarios/device-fails", test_scenarios_device_fails);
  g_test_add_func ("/cuda-faults/scenarios/experiment-falls-back", test_experiment_falls_back);
#endif
#endif

  return g_test_run ();
}

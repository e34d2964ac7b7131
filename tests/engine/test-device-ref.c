/* test-device-ref.c — a device lives as long as anyone uses it.
 *
 * The application lets go of its device when the backend settings change; a
 * scenario or an allocator still running on it must keep it, segments and all,
 * and the last of them frees it with its memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "gml-allocator.h"
#include "gml-device.h"
#include "gml-scenario.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)

/* An allocator with live segments on an arena: dropping the arena's own
 * reference (as the application does) leaves it working; the allocator's end
 * frees the arena, which gives every byte back to the device underneath. */
static void
test_allocator_keeps_device (void)
{
  GmlDevice *base = gml_device_sim_new (4096 * MiB, 0);
  GmlDevice *arena = gml_device_arena_new (base, 1024 * MiB, 0);
  GmlAllocator *allocator = gml_allocator_new (arena, NULL);
  g_autoptr(GError) error = NULL;
  gint32 first = -1, second = -1;

  g_assert_true (gml_allocator_malloc (allocator, 100 * MiB, 0, "first", GML_CATEGORY_NONE, &first,
                                       &error));
  g_assert_no_error (error);
  g_assert_cmpuint (base->n_live, ==, 1);

  /* The application side lets go. */
  gml_device_unref (arena);
  g_assert_cmpuint (base->n_live, ==, 1);
  g_assert_cmpuint (base->in_use, >=, 100 * MiB);

  /* The allocator still runs on it (under ASan, a freed arena would show here). */
  g_assert_true (gml_allocator_malloc (allocator, 300 * MiB, 0, "second", GML_CATEGORY_NONE,
                                       &second,
                                       &error));
  g_assert_no_error (error);
  g_assert_cmpuint (base->n_live, ==, 2);
  g_assert_cmpstr (gml_device_get_id (gml_allocator_get_device (allocator)), ==, "sim");
  g_assert_true (gml_allocator_free (allocator, first, &error));
  g_assert_no_error (error);

  /* The last reference: the arena and every segment on it go. */
  gml_allocator_destroy (allocator);
  g_assert_cmpuint (base->n_live, ==, 0);
  g_assert_cmpuint (base->in_use, ==, 0);
  g_assert_true (g_atomic_ref_count_compare (&base->ref_count, 1));
  gml_device_unref (base);
}

/* A scenario holds the device it ran on until it is freed. */
static void
test_scenario_keeps_device (void)
{
  GmlDevice *base = gml_device_sim_new (8192 * MiB, 0);
  GmlDevice *arena = gml_device_arena_new (base, 8192 * MiB, 0);
  g_autoptr(GError) error = NULL;
  GmlScenario *scenario = gml_scenario_new ("oom", arena, &error);

  g_assert_no_error (error);
  g_assert_nonnull (scenario);

  /* The arena holds the base; the scenario (and its runs) hold the arena. */
  g_assert_true (g_atomic_ref_count_compare (&base->ref_count, 2));
  gml_device_unref (arena);
  g_assert_true (g_atomic_ref_count_compare (&base->ref_count, 2));
  g_assert_cmpuint (gml_scenario_get_n_steps (scenario), >, 0);

  gml_scenario_free (scenario);
  /* The arena went with the scenario, and its reference to the base with it. */
  g_assert_true (g_atomic_ref_count_compare (&base->ref_count, 1));
  g_assert_cmpuint (base->n_live, ==, 0);
  g_assert_cmpuint (base->in_use, ==, 0);
  gml_device_unref (base);
}

/* gml_device_destroy() is the unref other code always called: it frees a device
 * nobody else holds, with its live allocations. */
static void
test_destroy_is_unref (void)
{
  GmlDevice *device = gml_device_sim_new (1024 * MiB, 0);
  guint64 address = 0;

  g_assert_true (gml_device_alloc (device, 10 * MiB, &address, NULL));
  gml_device_ref (device);
  gml_device_destroy (device);
  g_assert_cmpuint (device->n_live, ==, 1);
  gml_device_destroy (device);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/device/ref/allocator-keeps-device", test_allocator_keeps_device);
  g_test_add_func ("/core/device/ref/scenario-keeps-device", test_scenario_keeps_device);
  g_test_add_func ("/core/device/ref/destroy-is-unref", test_destroy_is_unref);
  return g_test_run ();
}

/* test-device-settings.c — the backend settings rebuild the device once they
 * settle, not once per change (each click on the budget's spin button is one).
 *
 * The application is built but not run: no window, no display needed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "gml-application.h"
#include "gml-device.h"

typedef struct
{
  GmlApplication *app;
  guint           n_changed;
} Counter;

/* As the scenario panels do: drop what ran on the old device and ask again. */
static void
device_changed_cb (GmlApplication *app,
                   Counter        *counter)
{
  counter->n_changed++;
  g_assert_nonnull (gml_application_get_device (app, NULL));
}

static gboolean
quit_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
run_for (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, quit_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static guint64
total_of (GmlDevice *device)
{
  guint64 free_bytes = 0, total = 0;

  g_assert_true (gml_device_mem_get_info (device, &free_bytes, &total, NULL));
  return total;
}

static void
test_debounced (void)
{
  GmlApplication *app = gml_application_new ();
  GSettings *settings = gml_application_get_settings (app);
  Counter counter = { app, 0 };
  GmlDevice *device;

  g_settings_set_string (settings, "backend", "sim");
  g_settings_set_int (settings, "sim-capacity-mib", 1024);
  device = gml_application_get_device (app, NULL);
  g_assert_cmpuint (total_of (device), ==, G_GUINT64_CONSTANT (1024) << 20);
  g_signal_connect (app, "device-changed", G_CALLBACK (device_changed_cb), &counter);

  /* Five quick clicks, a few milliseconds apart. */
  for (int i = 1; i <= 5; i++)
    {
      g_settings_set_int (settings, "sim-capacity-mib", 1024 + 256 * i);
      run_for (20);
    }
  g_assert_cmpuint (counter.n_changed, ==, 0);
  run_for (GML_DEVICE_SETTLE_MS + 200);
  g_assert_cmpuint (counter.n_changed, ==, 1);
  /* The device opened is the last setting's. */
  g_assert_cmpuint (total_of (gml_application_get_device (app, NULL)), ==,
                    G_GUINT64_CONSTANT (2304) << 20);

  /* Settled: a later change is a change of its own. */
  g_settings_set_int (settings, "sim-capacity-mib", 512);
  run_for (GML_DEVICE_SETTLE_MS + 200);
  g_assert_cmpuint (counter.n_changed, ==, 2);
  g_assert_cmpuint (total_of (gml_application_get_device (app, NULL)), ==,
                    G_GUINT64_CONSTANT (512) << 20);

  g_assert_finalize_object (app);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/app/device/settings-debounced", test_debounced);
  return g_test_run ();
}

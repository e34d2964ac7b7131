/* gml-lab-live.c — the lab's step run on the real GPU, at a scale that fits
 * the lab's share of it, beside the same scaled step on the simulator: the
 * engine checked against the driver.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-lab"

#include "config.h"

#include <string.h>

#include "gml-i18n.h"

#include "gml-lab-private.h"
#include "gml-scenario-private.h"

/* Past this, a live run would be more rounding than step. */
#define MAX_LIVE_SCALE 1024

guint64
gml_lab_live_scale (guint64 gpu_memory,
                    guint64 available)
{
  if (gpu_memory == 0 || available == 0)
    return 0;
  for (guint64 scale = 1; scale <= MAX_LIVE_SCALE; scale *= 2)
    if ((gpu_memory - 1) / scale + 1 <= available)
      return scale;
  return 0;
}

gboolean
gml_lab_run_live (const GmlLabConfig *config,
                  GmlDevice          *device,
                  GmlLabLive         *live,
                  GError            **error)
{
  g_autoptr(GmlDevice) arena = NULL;
  g_autoptr(GmlDevice) sim = NULL;
  g_autoptr(GError) local = NULL;
  GmlLabResult res = { 0 }, sim_res = { 0 };
  GmlScenario *sc;
  gboolean ran;

  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (device != NULL, FALSE);
  g_return_val_if_fail (live != NULL, FALSE);

  memset (live, 0, sizeof *live);
  if (!gml_lab_config_check (config, error))
    return FALSE;
  if (!g_str_equal (gml_device_get_id (device), "cuda"))
    {
      g_set_error_literal (error, GML_LAB_ERROR, GML_LAB_ERROR_NOT_LIVE,
                           _("A live run needs an NVIDIA GPU; this computer’s GPU is simulated."));
      return FALSE;
    }

  /* The lab's share of the GPU is an arena of whole allocations: it cannot map
   * pages into reserved address space, so the allocator would quietly use
   * ordinary segments where the simulator uses expandable ones. */
  if (config->conf.expandable_segments)
    {
      g_set_error_literal (error, GML_LAB_ERROR, GML_LAB_ERROR_NOT_LIVE,
                           _("A live run cannot use expandable segments yet: run it without "
                             "expandable_segments:True."));
      return FALSE;
    }

  /* The device to this run alone from here on, its free memory included: a
   * picture's experiment running meanwhile would leave the run less room than
   * it has once that experiment has given its segments back. */
  gml_device_begin_run ();
  live->device_name = g_strdup (gml_device_get_name (device));
  live->available = gml_device_available (device);
  live->scale = gml_lab_live_scale (config->gpu_memory, live->available);
  if (live->scale == 0)
    {
      gml_device_end_run ();
      g_autofree char *free_text = gml_format_size_short (live->available);
      g_autofree char *need_text =
          gml_format_size_short ((config->gpu_memory - 1) / MAX_LIVE_SCALE + 1);

      /* Translators: sizes; the lab's share is set in Preferences (GPU memory budget). */
      g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_NOT_LIVE,
                   _("The GPU has too little free memory for a live run: %s within the lab’s "
                     "budget, at least %s needed."), free_text, need_text);
      gml_lab_live_clear (live);
      return FALSE;
    }
  live->capacity = (config->gpu_memory - 1) / live->scale + 1;

  /* On the GPU: a share of it, so what does not fit there is the scaled
   * step's out of memory, as on a GPU of that size. */
  arena = gml_device_arena_new (device, live->capacity, 0);
  sc = _gml_lab_run_step (config, arena, TRUE, live->scale, NULL, NULL, &res, &local);
  ran = sc != NULL;
  g_clear_pointer (&sc, gml_scenario_free);
  gml_device_end_run ();
  if (!ran)
    {
      /* Translators: %s says why (the driver's error). */
      g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_DEVICE, _("The live run failed: %s"),
                   local->message);
      _gml_lab_result_clear (&res);
      gml_lab_live_clear (live);
      return FALSE;
    }
  live->fits = res.fits;
  live->peak_allocated = res.peak_allocated;
  live->peak_reserved = res.peak_reserved;
  live->driver_peak = arena->peak_in_use;
  live->oom_message = g_steal_pointer (&res.oom_message);
  _gml_lab_result_clear (&res);

  /* The same scaled step on the simulator. */
  sim = gml_device_sim_new (live->capacity, 0);
  sc = _gml_lab_run_step (config, sim, TRUE, live->scale, NULL, NULL, &sim_res, &local);
  if (sc == NULL)
    {
      g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_DEVICE, "%s", local->message);
      _gml_lab_result_clear (&sim_res);
      gml_lab_live_clear (live);
      return FALSE;
    }
  gml_scenario_free (sc);
  live->sim_fits = sim_res.fits;
  live->sim_peak_allocated = sim_res.peak_allocated;
  live->sim_peak_reserved = sim_res.peak_reserved;
  _gml_lab_result_clear (&sim_res);

  live->agrees = live->fits == live->sim_fits &&
                 live->peak_allocated == live->sim_peak_allocated &&
                 live->peak_reserved == live->sim_peak_reserved &&
                 live->driver_peak == live->peak_reserved;
  return TRUE;
}

void
gml_lab_live_clear (GmlLabLive *live)
{
  g_clear_pointer (&live->device_name, g_free);
  g_clear_pointer (&live->oom_message, g_free);
}

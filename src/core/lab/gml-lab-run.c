/* gml-lab-run.c — a lab run as the window and the command line get it: the
 * step through the engine (gml-lab-step.c), what it would need when it does
 * not fit, and the first step said against the steady one; immutable once
 * made, and reference-counted.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-lab"

#include "config.h"

#include <string.h>

#include "gml-i18n.h"

#include "gml-lab-private.h"
#include "gml-scenario-private.h"

struct _GmlLabRun
{
  gatomicrefcount ref_count;
  GmlLabConfig  config;
  GmlDevice    *device;
  GmlScenario  *scenario;
  GmlLabResult  result;
};

/* One sentence: how the first step's peak differs from the steady step's. */
static char *
describe_first_step (const GmlLabConfig *c,
                     const GmlLabResult *first,
                     const GmlLabResult *steady)
{
  g_autofree char *f = gml_format_size_short (first->peak_allocated);
  g_autofree char *s = gml_format_size_short (steady->peak_allocated);
  g_autofree char *state =
      gml_format_size_short (steady->by_category[GML_CATEGORY_OPTIMIZER_STATE]);
  g_autofree char *diff = NULL;

  if (!first->fits)
    return g_strdup (_("The first step already runs out of memory, before any optimizer state "
                       "exists."));
  if (!steady->fits)
    /* Translators: a size. */
    return g_strdup_printf (_("The first step fits with a peak of %s, but the steady step runs out "
                              "of memory: the optimizer’s state created at the first "
                              "optimizer.step() stays for every later step."), f);
  if (c->optimizer == GML_LAB_SGD)
    /* Translators: a size, then where ("in step 1, during the backward pass of layer 3 of 12"). */
    return g_strdup_printf (_("Plain SGD keeps no optimizer state, so the first step peaks as the "
                              "steady step does: %s allocated, %s."), f, first->peak_at);
  if (first->peak_allocated < steady->peak_allocated)
    {
      diff = gml_format_size_short (steady->peak_allocated - first->peak_allocated);
      /* Translators: sizes, then where ("in step 1, during the backward pass of layer 3 of 12"). */
      return g_strdup_printf (_("The first step peaks at %s allocated, %s; that is %s less than "
                                "the steady step’s %s, because the optimizer’s state (%s) is only "
                                "created at the first optimizer.step() and is not there yet during "
                                "the first forward and backward passes."), f, first->peak_at, diff,
                              s, state);
    }
  if (first->peak_allocated == steady->peak_allocated)
    /* Translators: a size, then where ("in step 1, during optimizer.step()"), then a size. */
    return g_strdup_printf (_("The first step peaks as high as the steady step, %s allocated, %s: "
                              "its optimizer.step() creates the optimizer’s state (%s) while the "
                              "gradients still exist, which is what every later step holds too."),
                            f, first->peak_at, state);
  diff = gml_format_size_short (first->peak_allocated - steady->peak_allocated);
  /* Translators: sizes, then where ("in step 1, during optimizer.step()"). */
  return g_strdup_printf (_("The first step peaks at %s allocated, %s; that is %s more than the "
                            "steady step’s %s."), f, first->peak_at, diff, s);
}

/* The same knobs on a simulated GPU of @gpu_memory at @step, quickly (no
 * pictures kept): fills @res and says whether the step ran at all. */
static gboolean
run_variant (const GmlLabConfig *config,
             guint64             gpu_memory,
             GmlLabStep          step,
             GCancellable       *cancellable,
             gint               *progress,
             GmlLabResult       *res)
{
  GmlLabConfig variant;
  g_autoptr(GmlDevice) device = NULL;
  GmlScenario *sc;

  memset (&variant, 0, sizeof variant);
  gml_lab_config_copy (&variant, config);
  variant.gpu_memory = gpu_memory;
  variant.step = step;
  device = gml_device_sim_new (variant.gpu_memory, 0);
  sc = _gml_lab_run_step (&variant, device, TRUE, 1, cancellable, progress, res, NULL);
  gml_lab_config_clear (&variant);
  if (sc == NULL)
    return FALSE;
  gml_scenario_free (sc);
  return TRUE;
}

GmlLabRun *
gml_lab_run_new (const GmlLabConfig *config,
                 GmlLabRunFlags      flags,
                 GError            **error)
{
  return gml_lab_run_new_cancellable (config, flags, NULL, error);
}

GmlLabRun *
gml_lab_run_new_cancellable (const GmlLabConfig *config,
                             GmlLabRunFlags      flags,
                             GCancellable       *cancellable,
                             GError            **error)
{
  return gml_lab_run_new_full (config, flags, cancellable, NULL, error);
}

GmlLabRun *
gml_lab_run_new_full (const GmlLabConfig *config,
                      GmlLabRunFlags      flags,
                      GCancellable       *cancellable,
                      gint               *progress,
                      GError            **error)
{
  g_autoptr(GmlLabRun) self = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (config != NULL, NULL);

  if (!gml_lab_config_check (config, error))
    return NULL;

  self = g_new0 (GmlLabRun, 1);
  g_atomic_ref_count_init (&self->ref_count);
  gml_lab_config_copy (&self->config, config);
  self->device = gml_device_sim_new (config->gpu_memory, 0);
  self->scenario = _gml_lab_run_step (&self->config, self->device,
                                      (flags & GML_LAB_RUN_QUICK) != 0, 1, cancellable,
                                      progress, &self->result, &local);
  if (self->scenario == NULL)
    {
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, g_steal_pointer (&local));
      else
        g_set_error (error, GML_LAB_ERROR, GML_LAB_ERROR_DEVICE, "%s", local->message);
      return NULL;
    }

  /* What it would need: the same step on a GPU as large as the lab simulates. */
  if (!self->result.fits && (flags & GML_LAB_RUN_QUICK) == 0)
    {
      GmlLabResult res = { 0 };

      if (run_variant (config, GML_LAB_UNBOUNDED_MEMORY, config->step, cancellable, progress,
                       &res) &&
          res.fits)
        {
          self->result.needed_allocated = res.peak_allocated;
          self->result.needed_reserved = res.peak_reserved;
        }
      _gml_lab_result_clear (&res);
    }

  /* The first step, said against the steady step of the same knobs. */
  if (config->mode == GML_LAB_TRAIN && config->step == GML_LAB_STEP_FIRST &&
      (flags & GML_LAB_RUN_QUICK) == 0)
    {
      GmlLabResult res = { 0 };

      if (run_variant (config, config->gpu_memory, GML_LAB_STEP_STEADY, cancellable, progress,
                       &res))
        {
          self->result.steady_fits = res.fits;
          self->result.steady_peak_allocated = res.peak_allocated;
          self->result.steady_peak_reserved = res.peak_reserved;
          self->result.step_difference = describe_first_step (config, &self->result, &res);
        }
      _gml_lab_result_clear (&res);
    }
  return g_steal_pointer (&self);
}

void
gml_lab_run_free (GmlLabRun *self)
{
  if (self == NULL || !g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_clear_pointer (&self->scenario, gml_scenario_free);
  g_clear_pointer (&self->device, gml_device_destroy);
  _gml_lab_result_clear (&self->result);
  gml_lab_config_clear (&self->config);
  g_free (self);
}

GmlLabRun *
gml_lab_run_ref (GmlLabRun *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

const GmlLabResult *
gml_lab_run_get_result (GmlLabRun *self)
{
  return &self->result;
}

GmlScenario *
gml_lab_run_get_scenario (GmlLabRun *self)
{
  return self->scenario;
}

const GmlLabConfig *
gml_lab_run_get_config (GmlLabRun *self)
{
  return &self->config;
}

GmlScenario *
_gml_lab_scenario_new (const char  *args,
                       GError     **error)
{
  GmlLabConfig config;
  GmlLabRun *run;
  GmlScenario *sc;

  gml_lab_config_init (&config);
  if (!gml_lab_config_parse_args (&config, args, error))
    {
      gml_lab_config_clear (&config);
      return NULL;
    }
  run = gml_lab_run_new (&config, GML_LAB_RUN_DEFAULT, error);
  gml_lab_config_clear (&config);
  if (run == NULL)
    return NULL;
  /* The scenario takes the run's GPU with it. */
  sc = g_steal_pointer (&run->scenario);
  sc->owned_device = g_steal_pointer (&run->device);
  gml_lab_run_free (run);
  return sc;
}

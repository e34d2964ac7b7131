/* gml-lab-cli.c — `gpu-memory-lab experiment`: set the knobs of one training
 * or inference step, run it through the caching allocator, print the result.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-lab-cli"

#include "config.h"

#include <string.h>

#include "gml-i18n.h"
#include <json-glib/json-glib.h>

#include "gml-lab-cli.h"

static const char * const category_keys[GML_N_CATEGORIES] = {
  NULL, "weights", "activations", "gradients", "optimizer_state", "temporaries", "kv_cache",
};

static void
add_int (JsonBuilder *b,
         const char  *name,
         guint64      value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, (gint64) value);
}

char *
gml_lab_result_to_json (GmlLabRun        *run,
                        gboolean          with_max_batch,
                        guint             max_batch,
                        const GmlLabLive *live)
{
  const GmlLabConfig *c = gml_lab_run_get_config (run);
  const GmlLabResult *r = gml_lab_run_get_result (run);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GPtrArray) notes = gml_lab_run_dup_notes (run);
  g_autofree char *ckpt = gml_lab_checkpointing_to_string (c);
  g_autofree char *args = gml_lab_config_to_args (c);

  json_builder_begin_object (b);
  add_int (b, "peak_allocated_bytes", r->peak_allocated);
  add_int (b, "peak_reserved_bytes", r->peak_reserved);
  json_builder_set_member_name (b, "by_category");
  json_builder_begin_object (b);
  for (guint i = 0; i < GML_N_CATEGORIES; i++)
    if (category_keys[i] != NULL)
      add_int (b, category_keys[i], r->by_category[i]);
  json_builder_end_object (b);
  add_int (b, "parameters", r->parameters);
  json_builder_set_member_name (b, "fits");
  json_builder_add_boolean_value (b, r->fits);
  json_builder_set_member_name (b, "oom_message");
  if (r->oom_message != NULL)
    json_builder_add_string_value (b, r->oom_message);
  else
    json_builder_add_null_value (b);
  if (with_max_batch)
    add_int (b, "max_batch_that_fits", max_batch);

  /* More, after the keys the issue fixed. */
  json_builder_set_member_name (b, "config");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, c->model);
  add_int (b, "layers", c->layers);
  add_int (b, "hidden", c->hidden);
  add_int (b, "heads", c->heads);
  add_int (b, "kv_heads", c->kv_heads);
  add_int (b, "ffn", c->ffn);
  add_int (b, "seq", c->seq);
  add_int (b, "vocab", c->vocab);
  add_int (b, "batch", c->batch);
  json_builder_set_member_name (b, "mode");
  json_builder_add_string_value (b, c->mode == GML_LAB_TRAIN ? "train" : "inference");
  if (c->mode == GML_LAB_INFERENCE)
    add_int (b, "tokens", c->tokens);
  json_builder_set_member_name (b, "precision");
  json_builder_add_string_value (b, gml_lab_precision_to_string (c->precision));
  if (c->mode == GML_LAB_TRAIN)
    {
      json_builder_set_member_name (b, "optimizer");
      json_builder_add_string_value (b, gml_lab_optimizer_to_string (c->optimizer));
      /* Only the first step adds keys: the steady step's JSON stays as it was. */
      if (c->step == GML_LAB_STEP_FIRST)
        {
          json_builder_set_member_name (b, "step");
          json_builder_add_string_value (b, gml_lab_step_to_string (c->step));
        }
      json_builder_set_member_name (b, "checkpointing");
      json_builder_add_string_value (b, ckpt);
      add_int (b, "accumulation", c->accumulation);
      add_int (b, "zero", c->zero);
    }
  add_int (b, "gpus", c->gpus);
  add_int (b, "gpu_memory_bytes", c->gpu_memory);
  json_builder_set_member_name (b, "alloc_conf");
  if (c->alloc_conf != NULL)
    json_builder_add_string_value (b, c->alloc_conf);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "args");
  json_builder_add_string_value (b, args);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "formula");
  json_builder_begin_object (b);
  add_int (b, "weights", r->formula.weights);
  add_int (b, "gradients", r->formula.gradients);
  add_int (b, "optimizer_state", r->formula.optimizer_state);
  add_int (b, "activations", r->formula.activations);
  add_int (b, "activations_per_layer", r->formula.activations_per_layer);
  add_int (b, "korthikanti_per_layer", r->formula.korthikanti_per_layer);
  add_int (b, "kv_cache", r->formula.kv_cache);
  json_builder_end_object (b);

  add_int (b, "allocated_at_peak_bytes", r->allocated_at_peak);
  add_int (b, "requested_at_peak_bytes", r->requested_at_peak);
  add_int (b, "reserved_at_peak_bytes", r->reserved_at_peak);
  add_int (b, "inactive_split_at_peak_bytes", r->inactive_split_at_peak);
  add_int (b, "largest_free_block_at_peak_bytes", r->largest_free_at_peak);
  add_int (b, "segments_at_peak", r->segments_at_peak);
  if (!r->fits)
    {
      add_int (b, "needed_allocated_bytes", r->needed_allocated);
      add_int (b, "needed_reserved_bytes", r->needed_reserved);
    }
  json_builder_set_member_name (b, "peak_at");
  json_builder_add_string_value (b, r->peak_at != NULL ? r->peak_at : "");
  json_builder_set_member_name (b, "extra_compute");
  json_builder_add_double_value (b, r->extra_compute);
  add_int (b, "trace_events", r->n_events);
  if (r->step_difference != NULL)
    {
      json_builder_set_member_name (b, "steady_step");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "fits");
      json_builder_add_boolean_value (b, r->steady_fits);
      add_int (b, "peak_allocated_bytes", r->steady_peak_allocated);
      add_int (b, "peak_reserved_bytes", r->steady_peak_reserved);
      json_builder_set_member_name (b, "difference");
      json_builder_add_string_value (b, r->step_difference);
      json_builder_end_object (b);
    }
  if (live != NULL)
    {
      json_builder_set_member_name (b, "live");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "device");
      json_builder_add_string_value (b, live->device_name);
      add_int (b, "scale", live->scale);
      add_int (b, "gpu_share_bytes", live->capacity);
      add_int (b, "available_bytes", live->available);
      json_builder_set_member_name (b, "fits");
      json_builder_add_boolean_value (b, live->fits);
      add_int (b, "peak_allocated_bytes", live->peak_allocated);
      add_int (b, "peak_reserved_bytes", live->peak_reserved);
      add_int (b, "driver_peak_bytes", live->driver_peak);
      json_builder_set_member_name (b, "oom_message");
      if (live->oom_message != NULL)
        json_builder_add_string_value (b, live->oom_message);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "simulated");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "fits");
      json_builder_add_boolean_value (b, live->sim_fits);
      add_int (b, "peak_allocated_bytes", live->sim_peak_allocated);
      add_int (b, "peak_reserved_bytes", live->sim_peak_reserved);
      json_builder_end_object (b);
      json_builder_set_member_name (b, "agrees");
      json_builder_add_boolean_value (b, live->agrees);
      json_builder_end_object (b);
    }
  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (guint i = 0; i < notes->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (notes, i));
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  return json_generator_to_data (generator, NULL);
}

static void
print_text (GmlLabRun        *run,
            gboolean          with_max_batch,
            guint             max_batch,
            const GmlLabLive *live)
{
  const GmlLabConfig *c = gml_lab_run_get_config (run);
  const GmlLabResult *r = gml_lab_run_get_result (run);
  g_autoptr(GPtrArray) notes = gml_lab_run_dup_notes (run);
  g_autofree char *args = gml_lab_config_to_args (c);
  g_autofree char *peak = gml_format_size (r->peak_allocated);
  g_autofree char *reserved = gml_format_size (r->peak_reserved);
  g_autofree char *gpu = gml_format_size (c->gpu_memory);
  g_autofree char *params = g_strdup_printf ("%" G_GUINT64_FORMAT, r->parameters);

  g_print ("%s\n", args);
  /* Translators: a number of parameters. */
  g_print (_("Parameters: %s\n"), params);
  g_print (_("Peak allocated: %s\n"), peak);
  g_print (_("Peak reserved: %s\n"), reserved);
  g_print ("%s\n", _("At the peak:"));
  for (guint i = 1; i < GML_N_CATEGORIES; i++)
    {
      g_autofree char *size = gml_format_size (r->by_category[i]);

      g_print ("  %-18s %s\n", gml_lab_category_name (i), size);
    }
  if (r->fits)
    /* Translators: a GPU size. */
    g_print (_("It fits in %s.\n"), gpu);
  else
    g_print (_("It does not fit in %s:\n  %s\n"), gpu, r->oom_message);
  if (with_max_batch)
    g_print (_("Largest batch that fits: %u\n"), max_batch);
  if (r->step_difference != NULL)
    g_print ("%s\n", r->step_difference);
  for (guint i = 0; i < notes->len; i++)
    g_print ("- %s\n", (const char *) g_ptr_array_index (notes, i));
  if (live != NULL)
    {
      g_autofree char *text = gml_lab_live_describe (live);

      g_print ("%s\n", text);
    }
}

int
gml_lab_main (int    argc,
              char **argv)
{
  /* The knobs, applied in this order (the model first, then what changes it). */
  static const char * const knobs[] = {
    "model", "layers", "hidden", "heads", "ffn", "seq", "vocab", "batch", "mode", "tokens",
    "precision", "optimizer", "step", "checkpointing", "accumulation", "zero", "gpus", "gpu-memory",
    "alloc-conf",
  };
  char *values[G_N_ELEMENTS (knobs)] = { NULL };
  g_autofree char *lang = NULL;
  gboolean json = FALSE, find_max = FALSE, live_run = FALSE;
  g_autofree char *budget_text = NULL;
  g_auto(GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_STRING, &values[0], N_("gpt2, llama-3.2-1b, llama-2-7b or mlp"),
      "MODEL" },
    { "layers", 0, 0, G_OPTION_ARG_STRING, &values[1], N_("Number of layers (a shape of your own)"),
      "N" },
    { "hidden", 0, 0, G_OPTION_ARG_STRING, &values[2], N_("Hidden size"), "H" },
    { "heads", 0, 0, G_OPTION_ARG_STRING, &values[3], N_("Attention heads"), "A" },
    { "ffn", 0, 0, G_OPTION_ARG_STRING, &values[4], N_("Width of the MLP"), "F" },
    { "seq", 0, 0, G_OPTION_ARG_STRING, &values[5], N_("Sequence length (inference: the prompt)"),
      "S" },
    { "vocab", 0, 0, G_OPTION_ARG_STRING, &values[6], N_("Vocabulary (the MLP: classes)"), "V" },
    { "batch", 0, 0, G_OPTION_ARG_STRING, &values[7], N_("Batch size per GPU and micro-step"),
      "B" },
    { "mode", 0, 0, G_OPTION_ARG_STRING, &values[8], N_("train or inference"), "MODE" },
    { "tokens", 0, 0, G_OPTION_ARG_STRING, &values[9],
      N_("Inference: tokens generated after the prompt"), "T" },
    { "precision", 0, 0, G_OPTION_ARG_STRING, &values[10],
      N_("fp32, amp-fp16, amp-bf16 (the ZeRO layout), bf16, autocast-fp16 or autocast-bf16 "
         "(torch.autocast)"), "P" },
    { "optimizer", 0, 0, G_OPTION_ARG_STRING, &values[11], N_("sgd, momentum, adam or adamw"),
      "OPT" },
    { "step", 0, 0, G_OPTION_ARG_STRING, &values[12],
      N_("Training: steady (the step after the first) or first"), "STEP" },
    { "checkpointing", 0, 0, G_OPTION_ARG_STRING, &values[13], N_("none, every-K or sqrt"), "C" },
    { "accumulation", 0, 0, G_OPTION_ARG_STRING, &values[14], N_("Micro-steps per optimizer step"),
      "K" },
    { "zero", 0, 0, G_OPTION_ARG_STRING, &values[15], N_("ZeRO stage: 0, 1, 2 or 3"), "STAGE" },
    { "gpus", 0, 0, G_OPTION_ARG_STRING, &values[16], N_("Number of GPUs (data parallel)"), "N" },
    { "gpu-memory", 0, 0, G_OPTION_ARG_STRING, &values[17],
      N_("The GPU’s memory: 8G, 12G, 16G, 24G, 40G, 48G, 80G, 141G or bytes"), "SIZE" },
    { "alloc-conf", 0, 0, G_OPTION_ARG_STRING, &values[18],
      N_("Allocator settings, as PYTORCH_CUDA_ALLOC_CONF"), "STRING" },
    { "find-max-batch", 0, 0, G_OPTION_ARG_NONE, &find_max,
      N_("Also search for the largest batch that fits"), NULL },
    { "live", 0, 0, G_OPTION_ARG_NONE, &live_run,
      N_("Also run the step on the NVIDIA GPU, scaled down to fit the lab’s share of it"), NULL },
    { "budget", 0, 0, G_OPTION_ARG_STRING, &budget_text,
      N_("With --live: the lab’s share of the GPU (default: 1 GiB or a quarter of its free memory, "
         "whichever is smaller)"), "SIZE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    { "lang", 0, 0, G_OPTION_ARG_STRING, &lang, N_("Language of the text: tr or en"), "LANG" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlLabRun) run = NULL;
  GmlLabConfig config;
  GmlLabLive live = { 0 };
  gboolean have_live = FALSE;
  guint64 budget = 0;
  guint max_batch = 0;
  int status = 0;

  g_option_context_set_summary (context,
                                _("Run one training or inference step through PyTorch’s caching "
                                  "allocator and print its peak memory."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translate_func (context, (GTranslateFunc) gml_i18n_translate_func, NULL,
                                       NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("gpu-memory-lab experiment: %s\n", error->message);
      status = 2;
      goto out;
    }
  if (lang != NULL)
    {
      if (!gml_i18n_is_known_language (lang))
        {
          g_printerr (_("gpu-memory-lab %s: unknown language “%s” (use tr or en)\n"), "experiment",
                      lang);
          status = 2;
          goto out;
        }
      gml_i18n_set_language (lang);
    }
  if (rest != NULL && rest[0] != NULL)
    {
      /* Translators: %s is what was typed. */
      g_printerr (_("gpu-memory-lab experiment: unexpected “%s” (knobs are written --name "
                    "value)\n"), rest[0]);
      status = 2;
      goto out;
    }

  if (budget_text != NULL &&
      (!gml_parse_size (budget_text, GML_SIZE_COMMAND_LINE, &budget, NULL) || budget == 0))
    {
      /* Translators: %s is what was typed. */
      g_printerr (_("gpu-memory-lab experiment: --budget “%s” is not a size (write 2G, 512M or "
                    "bytes)\n"),
                  budget_text);
      status = 2;
      goto out;
    }

  gml_lab_config_init (&config);
  for (guint i = 0; i < G_N_ELEMENTS (knobs); i++)
    if (values[i] != NULL && !gml_lab_config_set (&config, knobs[i], values[i], &error))
      {
        g_printerr ("gpu-memory-lab experiment: %s\n", error->message);
        status = 2;
        goto done;
      }
  if (!gml_lab_config_check (&config, &error))
    {
      g_printerr ("gpu-memory-lab experiment: %s\n", error->message);
      status = 2;
      goto done;
    }

  run = gml_lab_run_new (&config, GML_LAB_RUN_DEFAULT, &error);
  if (run == NULL)
    {
      g_printerr ("gpu-memory-lab experiment: %s\n", error->message);
      status = 1;
      goto done;
    }
  if (find_max &&
      !gml_lab_find_max_batch (&config, GML_LAB_MAX_BATCH_SEARCH, &max_batch, NULL, NULL, &error))
    {
      g_printerr ("gpu-memory-lab experiment: %s\n", error->message);
      status = 1;
      goto done;
    }

  if (live_run)
    {
      g_autoptr(GmlDevice) device = gml_device_open (GML_BACKEND_CUDA, 0, budget, NULL, &error);

      if (device == NULL || !gml_lab_run_live (&config, device, &live, &error))
        {
          g_printerr ("gpu-memory-lab experiment: %s\n", error->message);
          status = 1;
          goto done;
        }
      have_live = TRUE;
    }

  if (json)
    {
      g_autofree char *text = gml_lab_result_to_json (run, find_max, max_batch,
                                                      have_live ? &live : NULL);

      g_print ("%s\n", text);
    }
  else
    print_text (run, find_max, max_batch, have_live ? &live : NULL);
  if (have_live && !live.agrees)
    status = 3;

done:
  gml_lab_live_clear (&live);
  gml_lab_config_clear (&config);
out:
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    g_free (values[i]);
  return status;
}

/* gml-replay-cli.c — `gpu-memory-lab replay TRACE.jsonl`: runs a trace through
 * the caching allocator (gml_replay_file) and prints torch.cuda.memory_stats()-
 * named figures.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-replay-cli"

#include "config.h"

#include "gml-allocator.h"
#include "gml-device.h"
#include "gml-i18n.h"
#include "gml-replay.h"
#include "gml-replay-cli.h"

int
gml_replay_main (int    argc,
                 char **argv)
{
  g_autofree char *capacity_str = NULL;
  g_autofree char *backend_str = NULL;
  g_autofree char *alloc_conf_str = NULL;
  g_autofree char *fraction_str = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *json = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) device_error = NULL;
  g_autoptr(GmlDevice) device = NULL;
  g_autoptr(GmlAllocator) allocator = NULL;
  g_auto(GStrv) args = NULL;
  GmlBackendKind kind = GML_BACKEND_SIM;
  GmlAllocConf conf;
  guint64 capacity = 0;
  double fraction = -1.0;
  const GOptionEntry entries[] = {
    { "capacity", 0, 0, G_OPTION_ARG_STRING, &capacity_str,
      N_("Size of the simulated GPU in bytes (default: 8 GiB, all of it available)"),
      N_("BYTES") },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend_str,
      N_("Device: sim, cuda or auto (default: sim)"), N_("BACKEND") },
    { "alloc-conf", 0, 0, G_OPTION_ARG_STRING, &alloc_conf_str,
      N_("Allocator settings in PYTORCH_CUDA_ALLOC_CONF syntax, "
         "e.g. max_split_size_mb:128,roundup_power2_divisions:4"),
      N_("STRING") },
    { "memory-fraction", 0, 0, G_OPTION_ARG_STRING, &fraction_str,
      N_("Limit the allocator to this fraction (0 to 1) of the device’s memory from the start, "
         "as torch.cuda.set_per_process_memory_fraction() does"),
      N_("FRACTION") },
    { NULL }
  };

  context = g_option_context_new (_("TRACE.jsonl — run a trace through the caching allocator"));
  g_option_context_set_summary (context,
                                _("Each line of the trace is one JSON object: "
                                  "{\"op\":\"alloc\",\"id\":\"x1\",\"size\":3000000,\"stream\":0}, "
                                  "{\"op\":\"free\",\"id\":\"x1\"}, {\"op\":\"empty_cache\"}, "
                                  "{\"op\":\"record_stream\",\"id\":\"x1\",\"stream\":1}, "
                                  "{\"op\":\"synchronize\"} or "
                                  "{\"op\":\"set_memory_fraction\",\"fraction\":0.5}. "
                                  "The statistics are printed as JSON, under the names "
                                  "torch.cuda.memory_stats() uses."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);

  /* GOptionContext edits its argument vector; work on a copy of the caller's. */
  args = g_new0 (char *, argc + 1);
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);
  if (!g_option_context_parse_strv (context, &args, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }

  if (g_strv_length (args) != 2)
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

      g_printerr ("%s\n\n%s", _("Give exactly one trace file."), help);
      return 2;
    }

  if (capacity_str &&
      /* The statistics are gint64, as torch's: a bigger device would overflow them. */
      !g_ascii_string_to_unsigned (capacity_str, 10, 1, G_MAXINT64, &capacity, NULL))
    {
      g_printerr (_("Invalid capacity “%s”: expected a number of bytes."), capacity_str);
      g_printerr ("\n");
      return 2;
    }

  if (backend_str && !gml_backend_kind_from_string (backend_str, &kind))
    {
      g_printerr (_("Unknown backend “%s”: expected sim, cuda or auto."), backend_str);
      g_printerr ("\n");
      return 2;
    }

  if (fraction_str != NULL)
    {
      char *end = NULL;

      fraction = g_ascii_strtod (fraction_str, &end);
      if (*fraction_str == '\0' || *end != '\0' || !(fraction >= 0.0 && fraction <= 1.0))
        {
          g_printerr (_("Invalid --memory-fraction “%s”: expected a number from 0 to 1."),
                      fraction_str);
          g_printerr ("\n");
          return 2;
        }
    }

  gml_alloc_conf_init (&conf);
  if (alloc_conf_str && !gml_alloc_conf_parse (&conf, alloc_conf_str, &error))
    {
      g_printerr (_("Invalid --alloc-conf: %s"), error->message);
      g_printerr ("\n");
      return 2;
    }

  /* The CUDA backend picks its own budget (0 asks for its default). A failure
   * is reported after the file has been read, as a bad line is. */
  device = gml_device_open (kind, capacity, 0, &reason, &device_error);
  if (device != NULL)
    {
      allocator = gml_allocator_new (device, &conf);
      /* Only the final figures are wanted: no event log, no state copies. */
      gml_allocator_set_keep_trace (allocator, FALSE);
      if (fraction >= 0.0 && !gml_allocator_set_memory_fraction (allocator, fraction, &error))
        {
          g_printerr ("%s\n", error->message);
          return 1;
        }
    }

  if (!gml_replay_file (args[1], allocator, NULL, &error) &&
      g_error_matches (error, GML_REPLAY_ERROR, GML_REPLAY_ERROR_READ))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }

  if (device == NULL)
    {
      g_printerr (_("Could not open the device: %s"), device_error->message);
      g_printerr ("\n");
      return 1;
    }
  if (reason)
    {
      g_printerr (_("Using the simulated GPU: %s"), reason);
      g_printerr ("\n");
    }

  if (error != NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }

  json = gml_replay_stats_to_json (allocator);
  g_print ("%s\n", json);

  /* The allocator gives its segments back before the device goes. */
  g_clear_pointer (&allocator, gml_allocator_destroy);
  return 0;
}

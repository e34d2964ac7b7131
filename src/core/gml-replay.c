/* gml-replay.c — `gpu-memory-lab replay TRACE.jsonl`: runs a trace through the
 * caching allocator and prints torch.cuda.memory_stats()-named figures.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-replay"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "gml-allocator.h"
#include "gml-device.h"
#include "gml-input.h"
#include "gml-replay.h"
#include "gml-trace.h"

/* The keys of the output, in order, under their torch.cuda.memory_stats() names. */
static const char * const stat_keys[] = {
  "allocated_bytes.all.current",
  "allocated_bytes.all.peak",
  "reserved_bytes.all.current",
  "reserved_bytes.all.peak",
  "active_bytes.all.current",
  "requested_bytes.all.current",
  "inactive_split_bytes.all.current",
  "segment.all.current",
  "segment.small_pool.current",
  "segment.large_pool.current",
  "allocation.all.current",
  "num_alloc_retries",
  "num_ooms",
  "num_device_alloc",
  "num_device_free",
};

typedef struct
{
  const char   *path;
  guint         line;
  GmlAllocator *allocator;
  GHashTable   *live;       /* id → GINT_TO_POINTER (block id), or one of: */
#define NO_BLOCK   (-1)     /* a 0-byte allocation: live, but holds no block */
#define FAILED     (-2)     /* an allocation that ran out of memory */
} Replay;

/* Prints "FILE:LINE: message", the form compilers use, which editors and
 * terminals recognise. */
G_GNUC_PRINTF (2, 3)
static void
line_error (Replay     *replay,
            const char *format,
            ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_printerr ("%s:%u: %s\n", replay->path, replay->line, message);
}

static gboolean
get_unsigned_member (JsonObject *object,
                     const char *name,
                     guint64     max,
                     guint64    *value,
                     gboolean   *present)
{
  JsonNode *node = json_object_get_member (object, name);
  gint64 v;

  *present = node != NULL;
  if (node == NULL)
    return TRUE;

  /* Only an integer literal will do: 3e6, 3000000.0 and "3000000" are refused
   * rather than guessed at. json-glib keeps integers as gint64, so anything
   * from 2^63 on arrives negative and is refused too. */
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;

  v = json_node_get_int (node);
  if (v < 0 || (guint64) v > max)
    return FALSE;

  *value = (guint64) v;
  return TRUE;
}

static const char *
get_string_member (JsonObject *object,
                   const char *name,
                   gboolean   *valid)
{
  JsonNode *node = json_object_get_member (object, name);

  *valid = TRUE;
  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      *valid = FALSE;
      return NULL;
    }
  return json_node_get_string (node);
}

/* Looks for an integer literal that json-glib may have wrapped: it reads
 * numbers as unsigned 64-bit and stores them as gint64, so 2^64 + 5 would come
 * back as 5. Such a literal has more than 19 digits. */
static gboolean
line_has_huge_integer (const char *line)
{
  guint digits = 0;
  gboolean in_string = FALSE;

  for (const char *p = line; *p; p++)
    {
      if (in_string)
        {
          if (*p == '\\' && p[1] != '\0')
            p++;
          else if (*p == '"')
            in_string = FALSE;
          continue;
        }
      if (*p == '"')
        {
          in_string = TRUE;
          digits = 0;
        }
      else if (g_ascii_isdigit (*p))
        {
          if (++digits > 19)
            return TRUE;
        }
      else
        {
          digits = 0;
        }
    }
  return FALSE;
}

static gboolean
replay_line (Replay     *replay,
             JsonParser *parser,
             const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *root;
  JsonObject *object;
  const char *op, *id;
  gboolean valid;

  if (!gml_input_check_json_depth (text, -1, GML_MAX_JSON_DEPTH, &error) ||
      !json_parser_load_from_data (parser, text, -1, &error))
    {
      line_error (replay, _("not valid JSON: %s"), error->message);
      return FALSE;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      line_error (replay, "%s", _("each line must be one JSON object"));
      return FALSE;
    }
  object = json_node_get_object (root);

  op = get_string_member (object, "op", &valid);
  if (op == NULL)
    {
      line_error (replay, "%s", _("the “op” member is missing or is not a string"));
      return FALSE;
    }

  if (g_str_equal (op, "empty_cache"))
    {
      gml_allocator_empty_cache (replay->allocator);
      return TRUE;
    }

  if (!g_str_equal (op, "alloc") && !g_str_equal (op, "free"))
    {
      line_error (replay, _("unknown op “%s” (expected alloc, free or empty_cache)"), op);
      return FALSE;
    }

  id = get_string_member (object, "id", &valid);
  if (id == NULL)
    {
      line_error (replay, "%s", _("the “id” member is missing or is not a string"));
      return FALSE;
    }

  if (g_str_equal (op, "alloc"))
    {
      guint64 size = 0, stream = 0;
      gboolean present;
      const char *label, *category_name;
      GmlCategory category = GML_CATEGORY_NONE;
      gint32 block_id = NO_BLOCK;
      gpointer previous;

      if (!get_unsigned_member (object, "size", G_MAXINT64, &size, &present) || !present ||
          line_has_huge_integer (text))
        {
          line_error (replay, "%s",
                      _("“size” must be a whole number of bytes from 0 to 9223372036854775807"));
          return FALSE;
        }
      if (!get_unsigned_member (object, "stream", G_MAXUINT32, &stream, &present))
        {
          line_error (replay, "%s", _("“stream” must be a whole number from 0 to 4294967295"));
          return FALSE;
        }
      label = get_string_member (object, "label", &valid);
      if (!valid)
        {
          line_error (replay, "%s", _("“label” must be a string"));
          return FALSE;
        }
      category_name = get_string_member (object, "category", &valid);
      if (!valid || (category_name && !gml_category_from_string (category_name, &category)))
        {
          line_error (replay,
                      _("unknown category “%s” (expected weights, activations, gradients, "
                        "optimizer-state, temporary or kv-cache)"),
                      category_name ? category_name : "");
          return FALSE;
        }
      if (g_hash_table_lookup_extended (replay->live, id, NULL, &previous) &&
          GPOINTER_TO_INT (previous) != FAILED)
        {
          line_error (replay, _("id “%s” is already allocated"), id);
          return FALSE;
        }

      if (!gml_allocator_malloc (replay->allocator, size, stream, label, category,
                                 &block_id, &error))
        {
          /* Out of memory is part of the experiment: it is counted and the
           * replay goes on, as a training script catching it would. The id
           * is remembered so that the trace's later free of it (written on a
           * bigger GPU, say) or a retry under the same id is no error. */
          if (g_error_matches (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY))
            {
              g_hash_table_insert (replay->live, g_strdup (id), GINT_TO_POINTER (FAILED));
              return TRUE;
            }
          line_error (replay, "%s", error->message);
          return FALSE;
        }

      g_hash_table_insert (replay->live, g_strdup (id), GINT_TO_POINTER (block_id));
      return TRUE;
    }
  else
    {
      gpointer value;

      if (!g_hash_table_lookup_extended (replay->live, id, NULL, &value))
        {
          line_error (replay, _("free of id “%s”, which is not allocated"), id);
          return FALSE;
        }
      if (GPOINTER_TO_INT (value) >= 0 &&
          !gml_allocator_free (replay->allocator, GPOINTER_TO_INT (value), &error))
        {
          line_error (replay, "%s", error->message);
          return FALSE;
        }
      g_hash_table_remove (replay->live, id);
      return TRUE;
    }
}

static char *
stats_to_json (GmlAllocator *allocator)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  const GmlStats *stats = gml_allocator_get_stats (allocator);
  const char *oom = gml_allocator_get_last_oom_message (allocator);

  json_builder_begin_object (builder);
  for (guint i = 0; i < G_N_ELEMENTS (stat_keys); i++)
    {
      gint64 value = 0;

      if (!gml_stats_lookup (stats, stat_keys[i], &value))
        g_assert_not_reached ();
      json_builder_set_member_name (builder, stat_keys[i]);
      json_builder_add_int_value (builder, value);
    }
  json_builder_set_member_name (builder, "largest_free_block_bytes");
  json_builder_add_int_value (builder,
                              gml_mem_state_get_largest_free_block (gml_allocator_get_state (allocator)));
  json_builder_set_member_name (builder, "last_oom_message");
  if (oom)
    json_builder_add_string_value (builder, oom);
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  return json_generator_to_data (generator, NULL);
}

int
gml_replay_main (int    argc,
                 char **argv)
{
  g_autofree char *capacity_str = NULL;
  g_autofree char *backend_str = NULL;
  g_autofree char *alloc_conf_str = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *json = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlDevice) device = NULL;
  g_autoptr(GmlAllocator) allocator = NULL;
  g_autoptr(GHashTable) live = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_auto(GStrv) args = NULL;
  GmlBackendKind kind = GML_BACKEND_SIM;
  GmlAllocConf conf;
  guint64 capacity = 0;
  gsize length = 0;
  guint n_operations = 0;
  Replay replay = { 0 };
  char *line, *next;
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
    { NULL }
  };

  context = g_option_context_new (_("TRACE.jsonl — run a trace through the caching allocator"));
  g_option_context_set_summary (context,
                                _("Each line of the trace is one JSON object: "
                                  "{\"op\":\"alloc\",\"id\":\"x1\",\"size\":3000000,\"stream\":0}, "
                                  "{\"op\":\"free\",\"id\":\"x1\"} or {\"op\":\"empty_cache\"}. "
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

  gml_alloc_conf_init (&conf);
  if (alloc_conf_str && !gml_alloc_conf_parse (&conf, alloc_conf_str, &error))
    {
      g_printerr (_("Invalid --alloc-conf: %s"), error->message);
      g_printerr ("\n");
      return 2;
    }

  if (!gml_input_read_file (args[1], GML_MAX_TRACE_SIZE, &contents, &length, &error))
    {
      g_prefix_error (&error, "%s: ", args[1]);
      g_printerr (_("Cannot read the trace: %s"), error->message);
      g_printerr ("\n");
      return 1;
    }
  if (strlen (contents) != length)
    {
      g_printerr (_("Cannot read the trace: %s contains a NUL byte."), args[1]);
      g_printerr ("\n");
      return 1;
    }
  if (!g_utf8_validate_len (contents, length, NULL))
    {
      g_printerr (_("Cannot read the trace: %s is not UTF-8 text."), args[1]);
      g_printerr ("\n");
      return 1;
    }

  /* The CUDA backend picks its own budget (0 asks for its default). */
  device = gml_device_open (kind, capacity, 0, &reason, &error);
  if (device == NULL)
    {
      g_printerr (_("Could not open the device: %s"), error->message);
      g_printerr ("\n");
      return 1;
    }
  if (reason)
    {
      g_printerr (_("Using the simulated GPU: %s"), reason);
      g_printerr ("\n");
    }

  allocator = gml_allocator_new (device, &conf);
  live = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  parser = json_parser_new_immutable ();

  replay.path = args[1];
  replay.allocator = allocator;
  replay.live = live;

  for (line = contents; line != NULL; line = next)
    {
      char *end = strchr (line, '\n');

      next = end ? end + 1 : NULL;
      if (end)
        *end = '\0';
      if (end && end > line && end[-1] == '\r')
        end[-1] = '\0';
      replay.line++;

      g_strstrip (line);
      if (*line == '\0')
        continue;

      if (!replay_line (&replay, parser, line))
        return 1;
      n_operations++;
    }

  /* An empty trace is almost always the wrong file (or a truncated one). */
  if (n_operations == 0)
    {
      g_printerr (_("Cannot replay the trace: %s is empty (it has no operations)."), args[1]);
      g_printerr ("\n");
      return 1;
    }

  json = stats_to_json (allocator);
  g_print ("%s\n", json);

  /* The allocator gives its segments back before the device goes. */
  g_clear_pointer (&allocator, gml_allocator_destroy);
  return 0;
}

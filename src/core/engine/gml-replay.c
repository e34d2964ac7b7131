/* gml-replay.c — runs a trace file through the caching allocator, a line at a
 * time, for `gpu-memory-lab replay` (src/cli) and the tests.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-replay"

#include "config.h"

#include <string.h>

#include "gml-i18n.h"
#include <json-glib/json-glib.h>

#include "gml-allocator.h"
#include "gml-input.h"
#include "gml-replay.h"
#include "gml-replay-private.h"
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

/* The most read at a time. A line may be cut by the end of a piece, so the
 * buffer grows, when a long line needs it, to hold one whole line besides (up
 * to GML_MAX_TRACE_LINE bytes and a '\r') and a NUL after it. It starts small:
 * most traces are short, and a big buffer is slow to get under ASan. */
#define READ_SIZE ((gsize) 64 << 10)
#define MAX_BUFFER_SIZE (GML_MAX_TRACE_LINE + 1 + READ_SIZE + 1)

/* The ids of the live allocations. A GHashTable of strings cost a quarter of
 * the replay; this table keeps each id's hash beside it, probes linearly and
 * deletes by moving later entries back, so it needs no tombstones. The hash
 * is seeded at random, so that no trace can be written to make ids collide. */
typedef struct
{
  char    *id;              /* owned; NULL for an empty slot */
  guint64  hash;
  gint32   value;           /* the block id, or one of: */
#define NO_BLOCK   (-1)     /* a 0-byte allocation: live, but holds no block */
#define FAILED     (-2)     /* an allocation that ran out of memory */
} LiveEntry;

typedef struct
{
  LiveEntry *entries;
  gsize      mask;          /* the number of slots, a power of two, less one */
  gsize      n_entries;
  guint64    seed;
} LiveTable;

typedef struct
{
  const char   *path;
  guint         line;
  GmlAllocator *allocator;
  JsonParser   *parser;
  LiveTable    *live;
  guint         n_operations;
  char         *error;      /* "FILE:LINE: message" of the first bad line */
} Replay;

static void
live_table_init (LiveTable *table)
{
  table->mask = 63;
  table->entries = g_new0 (LiveEntry, table->mask + 1);
  table->n_entries = 0;
  table->seed = ((guint64) g_random_int () << 32) | g_random_int ();
}

static void
live_table_clear (LiveTable *table)
{
  if (table->entries == NULL)
    return;
  for (gsize i = 0; i <= table->mask; i++)
    g_free (table->entries[i].id);
  g_clear_pointer (&table->entries, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (LiveTable, live_table_clear)

#define MIX G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)

/* Eight bytes at a time, each word multiplied in; the last one finished off
 * so that every bit of the id reaches the low bits the table uses. */
static inline guint64
live_table_hash (const LiveTable *table,
                 const char      *id,
                 gsize            length)
{
  guint64 h = table->seed ^ (length * MIX);
  guint64 word;

  for (; length >= 8; id += 8, length -= 8)
    {
      memcpy (&word, id, 8);
      h = (h ^ word) * MIX;
      h ^= h >> 32;
    }
  word = 0;
  memcpy (&word, id, length);
  h = (h ^ word) * MIX;
  h ^= h >> 29;
  h *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  h ^= h >> 32;
  return h;
}

/* The entry of @id, or the empty slot where it would go. */
static inline LiveEntry *
live_table_find (LiveTable  *table,
                 const char *id,
                 guint64     hash)
{
  gsize i = hash & table->mask;

  while (table->entries[i].id != NULL &&
         (table->entries[i].hash != hash || strcmp (table->entries[i].id, id) != 0))
    i = (i + 1) & table->mask;
  return &table->entries[i];
}

static void
live_table_grow (LiveTable *table)
{
  LiveEntry *old = table->entries;
  gsize old_mask = table->mask;

  table->mask = table->mask * 2 + 1;
  table->entries = g_new0 (LiveEntry, table->mask + 1);
  for (gsize i = 0; i <= old_mask; i++)
    if (old[i].id != NULL)
      {
        gsize j = old[i].hash & table->mask;

        while (table->entries[j].id != NULL)
          j = (j + 1) & table->mask;
        table->entries[j] = old[i];
      }
  g_free (old);
}

/* Fills the empty slot live_table_find() gave for @id. */
static void
live_table_fill (LiveTable  *table,
                 LiveEntry  *slot,
                 const char *id,
                 gsize       length,
                 guint64     hash,
                 gint32      value)
{
  slot->id = g_strndup (id, length);
  slot->hash = hash;
  slot->value = value;
  /* At most half full, so that probes stay short. */
  if (++table->n_entries * 2 > table->mask + 1)
    live_table_grow (table);
}

/* Empties @slot, moving back each later entry of the run that may not stay
 * after the gap (its home slot is not between the gap and where it is). */
static void
live_table_remove (LiveTable *table,
                   LiveEntry *slot)
{
  gsize gap = slot - table->entries, j = gap;

  g_free (slot->id);
  for (;;)
    {
      gsize home;

      j = (j + 1) & table->mask;
      if (table->entries[j].id == NULL)
        break;
      home = table->entries[j].hash & table->mask;
      /* Stays when home lies cyclically in (gap, j]. */
      if (gap <= j ? (gap < home && home <= j) : (gap < home || home <= j))
        continue;
      table->entries[gap] = table->entries[j];
      gap = j;
    }
  table->entries[gap].id = NULL;
  table->n_entries--;
}

/* Keeps "FILE:LINE: message", the form compilers use, which editors and
 * terminals recognise. It is printed once the whole file has been read: a NUL
 * byte or invalid UTF-8 anywhere in the file is reported before any line. */
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

  g_free (replay->error);
  replay->error = g_strdup_printf ("%s:%u: %s", replay->path, replay->line, message);
}

/* ------------------------------------------------------------------------- */
/* The full reader: json-glib                                                */

G_GNUC_PRINTF (2, 3)
static gboolean
parse_error (char       **message,
             const char  *format,
             ...)
{
  va_list args;

  va_start (args, format);
  *message = g_strdup_vprintf (format, args);
  va_end (args);
  return FALSE;
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

gboolean
gml_replay_parse_line (JsonParser     *parser,
                       const char     *text,
                       GmlReplayLine  *line,
                       char          **message)
{
  g_autoptr(GError) error = NULL;
  JsonNode *root;
  JsonObject *object;
  const char *op, *category_name;
  guint64 size = 0, stream = 0;
  gboolean valid, present;

  memset (line, 0, sizeof *line);

  if (!gml_input_check_json_depth (text, -1, GML_MAX_JSON_DEPTH, &error) ||
      !json_parser_load_from_data (parser, text, -1, &error))
    return parse_error (message, _("not valid JSON: %s"), error->message);

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return parse_error (message, "%s", _("each line must be one JSON object"));
  object = json_node_get_object (root);

  op = get_string_member (object, "op", &valid);
  if (op == NULL)
    return parse_error (message, "%s", _("the “op” member is missing or is not a string"));

  if (g_str_equal (op, "empty_cache"))
    {
      line->op = GML_REPLAY_EMPTY_CACHE;
      return TRUE;
    }

  if (g_str_equal (op, "synchronize"))
    {
      line->op = GML_REPLAY_SYNCHRONIZE;
      if (!get_unsigned_member (object, "stream", G_MAXUINT32, &stream, &line->has_stream))
        return parse_error (message, "%s",
                            _("“stream” must be a whole number from 0 to 4294967295"));
      line->stream = (guint32) stream;
      return TRUE;
    }

  if (g_str_equal (op, "set_memory_fraction"))
    {
      JsonNode *node = json_object_get_member (object, "fraction");
      GType type = node && JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node)
                                                         : G_TYPE_INVALID;

      line->op = GML_REPLAY_SET_MEMORY_FRACTION;
      /* set_per_process_memory_fraction(): "Allowed range: 0~1". */
      if (type == G_TYPE_DOUBLE)
        line->fraction = json_node_get_double (node);
      else if (type == G_TYPE_INT64)
        line->fraction = (double) json_node_get_int (node);
      if ((type != G_TYPE_DOUBLE && type != G_TYPE_INT64) ||
          !(line->fraction >= 0.0 && line->fraction <= 1.0))
        return parse_error (message, "%s", _("“fraction” must be a number from 0 to 1"));
      return TRUE;
    }

  if (!g_str_equal (op, "alloc") && !g_str_equal (op, "free") &&
      !g_str_equal (op, "record_stream"))
    return parse_error (message,
                        _("unknown op “%s” (expected alloc, free, empty_cache, record_stream, "
                          "synchronize or set_memory_fraction)"), op);

  line->id = get_string_member (object, "id", &valid);
  if (line->id == NULL)
    return parse_error (message, "%s", _("the “id” member is missing or is not a string"));

  if (g_str_equal (op, "free"))
    {
      line->op = GML_REPLAY_FREE;
      return TRUE;
    }

  if (g_str_equal (op, "record_stream"))
    {
      line->op = GML_REPLAY_RECORD_STREAM;
      if (!get_unsigned_member (object, "stream", G_MAXUINT32, &stream, &present) || !present)
        return parse_error (message, "%s",
                            _("“stream” must be a whole number from 0 to 4294967295"));
      line->stream = (guint32) stream;
      return TRUE;
    }

  line->op = GML_REPLAY_ALLOC;
  if (!get_unsigned_member (object, "size", G_MAXINT64, &size, &present) || !present ||
      line_has_huge_integer (text))
    return parse_error (message, "%s",
                        _("“size” must be a whole number of bytes from 0 to 9223372036854775807"));
  line->size = size;

  if (!get_unsigned_member (object, "stream", G_MAXUINT32, &stream, &present))
    return parse_error (message, "%s", _("“stream” must be a whole number from 0 to 4294967295"));
  line->stream = (guint32) stream;

  line->label = get_string_member (object, "label", &valid);
  if (!valid)
    return parse_error (message, "%s", _("“label” must be a string"));

  category_name = get_string_member (object, "category", &valid);
  if (!valid || (category_name && !gml_category_from_string (category_name, &line->category)))
    return parse_error (message,
                        _("unknown category “%s” (expected weights, activations, gradients, "
                          "optimizer-state, temporary or kv-cache)"),
                        category_name ? category_name : "");
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* The fast reader: the format as the lab writes it, nothing else            */

#define EAT(p, end, literal) eat (&(p), (end), (literal), sizeof (literal) - 1)

static inline gboolean
eat (char       **p,
     const char  *end,
     const char  *literal,
     gsize        length)
{
  if ((gsize) (end - *p) < length || memcmp (*p, literal, length) != 0)
    return FALSE;
  *p += length;
  return TRUE;
}

/* The bytes that end the fast reader's view of a string: the closing quote,
 * an escape, a control character. */
static const guint8 string_stops[256] = {
  [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1,
  [0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1,
  [0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
  [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1,
  [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, ['"'] = 1, ['\\'] = 1,
};

/* The closing quote of a string whose contents start at @p, or NULL when an
 * escape or a control character comes first (json-glib decides those). */
static inline char *
string_end (char       *p,
            const char *end)
{
  while (p < end && !string_stops[(guchar) *p])
    p++;
  return p < end && *p == '"' ? p : NULL;
}

/* The end of a number of 1 to 18 digits, with no leading zero, or NULL.
 * Eighteen digits stay below 2^63, so no check for wrapping is needed. */
static inline char *
number_end (char       *p,
            const char *end,
            guint64    *value)
{
  char *start = p;
  guint64 v = 0;

  while (p < end && g_ascii_isdigit (*p) && p - start < 19)
    v = v * 10 + (guint64) (*p++ - '0');

  if (p == start || p - start > 18 || (p - start > 1 && *start == '0'))
    return NULL;
  *value = v;
  return p;
}

gboolean
gml_replay_parse_line_fast (char          *text,
                            gsize          length,
                            GmlReplayLine *line)
{
  const char *end = text + length;
  char *p = text, *id, *id_end, *label = NULL, *label_end = NULL;
  char *category = NULL, *category_end = NULL;
  guint64 size, stream = 0;
  GmlCategory category_value = GML_CATEGORY_NONE;

  if (!EAT (p, end, "{\"op\":\""))
    return FALSE;

  if (EAT (p, end, "empty_cache\"}"))
    {
      if (p != end)
        return FALSE;
      memset (line, 0, sizeof *line);
      line->op = GML_REPLAY_EMPTY_CACHE;
      return TRUE;
    }

  if (EAT (p, end, "free\",\"id\":\""))
    {
      id = p;
      id_end = string_end (p, end);
      if (id_end == NULL || end - id_end != 2 || id_end[1] != '}')
        return FALSE;
      *id_end = '\0';
      memset (line, 0, sizeof *line);
      line->op = GML_REPLAY_FREE;
      line->id = id;
      return TRUE;
    }

  if (!EAT (p, end, "alloc\",\"id\":\""))
    return FALSE;
  id = p;
  id_end = string_end (p, end);
  if (id_end == NULL)
    return FALSE;
  p = id_end + 1;

  if (!EAT (p, end, ",\"size\":") || (p = number_end (p, end, &size)) == NULL)
    return FALSE;

  if (EAT (p, end, ",\"stream\":"))
    {
      if ((p = number_end (p, end, &stream)) == NULL || stream > G_MAXUINT32)
        return FALSE;
    }

  if (EAT (p, end, ",\"label\":\""))
    {
      label = p;
      if ((label_end = string_end (p, end)) == NULL)
        return FALSE;
      p = label_end + 1;
    }

  if (EAT (p, end, ",\"category\":\""))
    {
      category = p;
      if ((category_end = string_end (p, end)) == NULL)
        return FALSE;
      p = category_end + 1;
    }

  if (end - p != 1 || *p != '}')
    return FALSE;

  /* An unknown category is the full reader's to report. */
  if (category != NULL)
    {
      gboolean known;

      *category_end = '\0';
      known = gml_category_from_string (category, &category_value);
      *category_end = '"';
      if (!known)
        return FALSE;
    }

  /* Accepted: only now is the line changed. */
  *id_end = '\0';
  if (label != NULL)
    *label_end = '\0';

  memset (line, 0, sizeof *line);
  line->op = GML_REPLAY_ALLOC;
  line->id = id;
  line->size = size;
  line->stream = (guint32) stream;
  line->label = label;
  line->category = category_value;
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Running the trace                                                         */

static gboolean
replay_apply (Replay              *replay,
              const GmlReplayLine *line)
{
  g_autoptr(GError) error = NULL;
  gsize id_length;
  guint64 hash;
  LiveEntry *entry;

  switch (line->op)
    {
    case GML_REPLAY_EMPTY_CACHE:
      gml_allocator_empty_cache (replay->allocator);
      if (!gml_allocator_check (replay->allocator, &error))
        {
          line_error (replay, "%s", error->message);
          return FALSE;
        }
      return TRUE;

    case GML_REPLAY_SYNCHRONIZE:
      gml_allocator_synchronize (replay->allocator, !line->has_stream, line->stream);
      return TRUE;

    case GML_REPLAY_SET_MEMORY_FRACTION:
      if (!gml_allocator_set_memory_fraction (replay->allocator, line->fraction, &error))
        {
          line_error (replay, "%s", error->message);
          return FALSE;
        }
      return TRUE;

    case GML_REPLAY_ALLOC:
    case GML_REPLAY_FREE:
    case GML_REPLAY_RECORD_STREAM:
    default:
      break;
    }

  id_length = strlen (line->id);
  hash = live_table_hash (replay->live, line->id, id_length);
  entry = live_table_find (replay->live, line->id, hash);

  if (line->op == GML_REPLAY_RECORD_STREAM)
    {
      if (entry->id == NULL)
        {
          line_error (replay, _("record_stream of id “%s”, which is not allocated"), line->id);
          return FALSE;
        }
      /* recordStream() of a null pointer (0 bytes, or a failed request) does nothing. */
      if (entry->value >= 0 &&
          !gml_allocator_record_stream (replay->allocator, entry->value, line->stream, &error))
        {
          line_error (replay, "%s", error->message);
          return FALSE;
        }
      return TRUE;
    }

  if (line->op == GML_REPLAY_ALLOC)
    {
      gint32 block_id = NO_BLOCK;

      if (entry->id != NULL && entry->value != FAILED)
        {
          line_error (replay, _("id “%s” is already allocated"), line->id);
          return FALSE;
        }

      if (!gml_allocator_malloc (replay->allocator, line->size, line->stream, line->label,
                                 line->category, &block_id, &error))
        {
          /* Out of memory is part of the experiment: it is counted and the
           * replay goes on, as a training script catching it would. The id
           * is remembered so that the trace's later free of it (written on a
           * bigger GPU, say) or a retry under the same id is no error. */
          if (!g_error_matches (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY))
            {
              line_error (replay, "%s", error->message);
              return FALSE;
            }
          block_id = FAILED;
        }

      /* A retry of an id that ran out of memory takes its entry over. */
      if (entry->id != NULL)
        entry->value = block_id;
      else
        live_table_fill (replay->live, entry, line->id, id_length, hash, block_id);
      return TRUE;
    }
  else
    {
      gint32 block_id;

      if (entry->id == NULL)
        {
          line_error (replay, _("free of id “%s”, which is not allocated"), line->id);
          return FALSE;
        }
      block_id = entry->value;
      live_table_remove (replay->live, entry);
      if (block_id >= 0 && !gml_allocator_free (replay->allocator, block_id, &error))
        {
          line_error (replay, "%s", error->message);
          return FALSE;
        }
      return TRUE;
    }
}

/* One line, without its '\n'; @text[@length] may be overwritten. */
static gboolean
replay_line (Replay *replay,
             char   *text,
             gsize   length)
{
  char *end = text + length;
  g_autofree char *message = NULL;
  GmlReplayLine line;

  replay->line++;
  /* The limit is on what the line says: its line ending does not count. */
  if (length - (length > 0 && text[length - 1] == '\r') > GML_MAX_TRACE_LINE)
    {
      g_autofree char *limit = g_format_size_full (GML_MAX_TRACE_LINE, G_FORMAT_SIZE_IEC_UNITS);

      /* Translators: %s is the limit, e.g. "1.0 MiB". */
      line_error (replay, _("the line is longer than the limit of %s"), limit);
      return FALSE;
    }

  /* What g_strstrip() would leave, '\r' of a CRLF line included. */
  while (text < end && g_ascii_isspace (*text))
    text++;
  while (end > text && g_ascii_isspace (end[-1]))
    end--;
  if (text == end)
    return TRUE;
  *end = '\0';

  replay->n_operations++;
  if (gml_replay_parse_line_fast (text, end - text, &line))
    return replay_apply (replay, &line);

  if (!gml_replay_parse_line (replay->parser, text, &line, &message))
    {
      line_error (replay, "%s", message);
      return FALSE;
    }
  return replay_apply (replay, &line);
}

char *
gml_replay_stats_to_json (GmlAllocator *allocator)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  const GmlStats *stats = gml_allocator_get_stats (allocator);
  const char *oom = gml_allocator_get_last_oom_message (allocator);
  const GmlMemState *state = gml_allocator_get_state (allocator);

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
  json_builder_add_int_value (builder, gml_mem_state_get_largest_free_block (state));
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

G_DEFINE_QUARK (gml-replay-error-quark, gml_replay_error)

gboolean
gml_replay_file (const char    *path,
                 GmlAllocator  *allocator,
                 guint         *n_operations,
                 GError       **error)
{
  g_autofree char *buffer = NULL;
  g_autofree char *bad_line = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GmlInputReader) reader = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_auto(LiveTable) live = { 0 };
  GmlUtf8Check utf8;
  gboolean has_nul = FALSE, bad_utf8 = FALSE, replaying;
  gsize buffer_size;
  gsize held = 0;   /* bytes of a line not yet ended, at the start of buffer */
  Replay replay = { 0 };

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (n_operations)
    *n_operations = 0;

  reader = gml_input_reader_open (path, GML_MAX_TRACE_SIZE, &local_error);
  if (reader == NULL)
    {
      g_prefix_error (&local_error, "%s: ", path);
      g_set_error (error, GML_REPLAY_ERROR, GML_REPLAY_ERROR_READ,
                   _("Cannot read the trace: %s"), local_error->message);
      return FALSE;
    }

  parser = json_parser_new_immutable ();
  replay.path = path;
  replay.allocator = allocator;
  replay.parser = parser;
  live_table_init (&live);
  replay.live = &live;

  /* The trace is read a piece at a time and each whole line replayed as it
   * comes, so memory stays the same for any length of file. The whole file is
   * still read when a line is bad: a NUL byte or invalid UTF-8 anywhere, or a
   * file over the limit, is what is reported then, as when the file was read
   * whole before any line. Without an allocator the file is only read. */
  buffer_size = READ_SIZE + 1;
  buffer = g_malloc (buffer_size);
  gml_utf8_check_init (&utf8);
  replaying = allocator != NULL;
  for (;;)
    {
      char *piece, *start, *newline;
      gsize room = buffer_size - held - 1;
      gssize n;

      /* A long line held: room for at least half a piece more. At the
       * largest size there is room for a whole piece, as held is at most
       * GML_MAX_TRACE_LINE + 1. */
      if (room < READ_SIZE / 2 && buffer_size < MAX_BUFFER_SIZE)
        {
          buffer_size = MIN (MAX (buffer_size * 2, held + READ_SIZE + 1), MAX_BUFFER_SIZE);
          buffer = g_realloc (buffer, buffer_size);
          room = buffer_size - held - 1;
        }

      piece = buffer + held;
      start = buffer;
      n = gml_input_reader_read (reader, piece, MIN (room, READ_SIZE), &local_error);

      if (n < 0)
        {
          /* As when the file was read whole: before any bad line. */
          g_clear_pointer (&replay.error, g_free);
          g_prefix_error (&local_error, "%s: ", path);
          g_set_error (error, GML_REPLAY_ERROR, GML_REPLAY_ERROR_READ,
                       _("Cannot read the trace: %s"), local_error->message);
          return FALSE;
        }
      if (n == 0)
        break;

      if (!has_nul && memchr (piece, '\0', n) != NULL)
        has_nul = TRUE;
      if (!has_nul && !bad_utf8 && !gml_utf8_check_feed (&utf8, piece, n))
        bad_utf8 = TRUE;
      if (has_nul || bad_utf8)
        replaying = FALSE;
      if (!replaying)
        {
          held = 0;
          continue;
        }

      /* The held part has no '\n': look in the new piece only. */
      while ((newline = memchr (piece, '\n', buffer + held + n - piece)) != NULL)
        {
          if (!replay_line (&replay, start, newline - start))
            {
              replaying = FALSE;
              break;
            }
          start = piece = newline + 1;
        }
      if (!replaying)
        {
          held = 0;
          continue;
        }

      held = buffer + held + n - start;
      if (held > GML_MAX_TRACE_LINE + 1)
        {
          /* Too long whatever follows: replay_line() says so. */
          replay_line (&replay, start, held);
          replaying = FALSE;
          held = 0;
          continue;
        }
      memmove (buffer, start, held);
    }

  if (!has_nul && !bad_utf8 && !gml_utf8_check_finish (&utf8))
    bad_utf8 = TRUE;
  /* The last line, when the file does not end in '\n'. */
  if (replaying && !bad_utf8 && held > 0)
    replay_line (&replay, buffer, held);
  bad_line = g_steal_pointer (&replay.error);

  if (has_nul)
    {
      g_set_error (error, GML_REPLAY_ERROR, GML_REPLAY_ERROR_READ,
                   _("Cannot read the trace: %s contains a NUL byte."), path);
      return FALSE;
    }
  if (bad_utf8)
    {
      g_set_error (error, GML_REPLAY_ERROR, GML_REPLAY_ERROR_READ,
                   _("Cannot read the trace: %s is not UTF-8 text."), path);
      return FALSE;
    }
  if (allocator == NULL)
    return TRUE;

  if (n_operations)
    *n_operations = replay.n_operations;

  if (bad_line != NULL)
    {
      g_set_error_literal (error, GML_REPLAY_ERROR, GML_REPLAY_ERROR_LINE, bad_line);
      return FALSE;
    }

  /* An empty trace is almost always the wrong file (or a truncated one). */
  if (replay.n_operations == 0)
    {
      g_set_error (error, GML_REPLAY_ERROR, GML_REPLAY_ERROR_EMPTY,
                   _("Cannot replay the trace: %s is empty (it has no operations)."), path);
      return FALSE;
    }

  return TRUE;
}

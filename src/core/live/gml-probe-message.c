/* gml-probe-message.c — reading the live probe's messages.
 *
 * Every line is checked before json-glib sees it (UTF-8, nesting), and every
 * member after: the kind of value, its range, the number of entries and
 * blocks. A state must also make sense as memory: segments in address order,
 * not overlapping, their blocks tiling them exactly. Nothing in a message is
 * trusted to be within any limit the code relies on later.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-probe-message"

#include "config.h"

#include <math.h>
#include <string.h>

#include "gml-i18n.h"
#include <json-glib/json-glib.h>

#include "gml-input.h"
#include "gml-probe-message.h"
#include "gml-snapshot.h"

/* A message nests at most five levels (state → segments → segment → blocks → block). */
#define MAX_DEPTH 8
#define MAX_ACTION_NAME 64

G_DEFINE_QUARK (gml-probe-error-quark, gml_probe_error)

static const char * const type_names[] = {
  "hello", "update", "entries", "state", "oom", "error", "bye", "dump-begin", "dump-data",
  "dump-end", "dump-failed",
};

const char *
gml_probe_message_type_to_string (GmlProbeMessageType type)
{
  return (guint) type < G_N_ELEMENTS (type_names) ? type_names[type] : "";
}

void
gml_probe_message_free (GmlProbeMessage *message)
{
  if (message == NULL)
    return;
  g_free (message->torch_version);
  g_free (message->device_name);
  g_strfreev (message->argv);
  g_clear_pointer (&message->entries, g_array_unref);
  g_clear_pointer (&message->state_segments, g_array_unref);
  g_clear_pointer (&message->state_blocks, g_array_unref);
  g_free (message->snapshot);
  g_free (message->message);
  g_clear_pointer (&message->data, g_bytes_unref);
  g_free (message);
}

/* ------------------------------------------------------------------------- */
/* Members                                                                   */

static gboolean
node_uint (JsonNode *node,
           guint64  *value)
{
  gint64 v;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  v = json_node_get_int (node);
  if (v < 0)
    return FALSE;
  *value = (guint64) v;
  return TRUE;
}

static gboolean
node_int (JsonNode *node,
          gint64   *value)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  *value = json_node_get_int (node);
  return TRUE;
}

static const char *
node_string (JsonNode *node,
             gsize     max_length)
{
  const char *s;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  s = json_node_get_string (node);
  if (s == NULL || strlen (s) > max_length)
    return NULL;
  return s;
}

static gboolean
node_bool (JsonNode *node,
           gboolean *value)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return FALSE;
  *value = json_node_get_boolean (node);
  return TRUE;
}

static gboolean
wrong_member (GError     **error,
              const char  *name,
              const char  *what)
{
  g_set_error (error, GML_PROBE_ERROR, GML_PROBE_ERROR_MEMBER, what, name);
  return FALSE;
}

static gboolean
need_uint (JsonObject  *object,
           const char  *name,
           guint64     *value,
           GError     **error)
{
  if (node_uint (json_object_get_member (object, name), value))
    return TRUE;
  return wrong_member (error, name, _("“%s” should be a whole number of 0 or more."));
}

static gboolean
need_number (JsonObject  *object,
             const char  *name,
             double      *value,
             GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);
  GType type;

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node))
    {
      type = json_node_get_value_type (node);
      if (type == G_TYPE_INT64)
        *value = (double) json_node_get_int (node);
      else if (type == G_TYPE_DOUBLE)
        *value = json_node_get_double (node);
      else
        type = G_TYPE_INVALID;
      if (type != G_TYPE_INVALID && isfinite (*value))
        return TRUE;
    }
  return wrong_member (error, name, _("“%s” should be a number."));
}

/* Optional members: absent is fine, present must be right. */
static gboolean
maybe_uint (JsonObject  *object,
            const char  *name,
            guint64     *value,
            GError     **error)
{
  if (!json_object_has_member (object, name))
    return TRUE;
  return need_uint (object, name, value, error);
}

static gboolean
maybe_bool (JsonObject  *object,
            const char  *name,
            gboolean    *value,
            GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node) || node_bool (node, value))
    return TRUE;
  return wrong_member (error, name, _("“%s” should be true or false."));
}

/* A string member: NULL when absent or null (and @nullable). */
static gboolean
maybe_string (JsonObject  *object,
              const char  *name,
              gsize        max_length,
              char       **value,
              GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);
  const char *s;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  s = node_string (node, max_length);
  if (s == NULL)
    return wrong_member (error, name, _("“%s” should be a string of reasonable length."));
  g_free (*value);
  *value = g_strdup (s);
  return TRUE;
}

static gboolean
need_device (JsonObject       *object,
             GmlProbeMessage  *m,
             GError          **error)
{
  guint64 device = 0;

  if (!need_uint (object, "device", &device, error))
    return FALSE;
  if (device >= GML_PROBE_MAX_DEVICES)
    return wrong_member (error, "device", _("“%s” is not a device number PyTorch would give."));
  m->device = (guint) device;
  return TRUE;
}

static gboolean
too_large (GError     **error,
           const char  *name,
           guint        limit)
{
  /* Translators: %s is a member of a message ("entries", "segments"), %u its limit. */
  g_set_error (error, GML_PROBE_ERROR, GML_PROBE_ERROR_TOO_LARGE,
               _("“%s” has more than %u items, more than the probe ever sends."), name, limit);
  return FALSE;
}

/* ------------------------------------------------------------------------- */
/* Message types                                                             */

static gboolean
parse_hello (JsonObject       *object,
             GmlProbeMessage  *m,
             GError          **error)
{
  guint64 value = 0;
  JsonNode *argv;

  m->pid = -1;
  if (json_object_has_member (object, "pid"))
    {
      if (!node_uint (json_object_get_member (object, "pid"), &value) || value > G_MAXINT32)
        return wrong_member (error, "pid", _("“%s” should be a whole number of 0 or more."));
      m->pid = (gint64) value;
    }
  if (json_object_has_member (object, "device") && !need_device (object, m, error))
    return FALSE;
  value = 0;
  if (!maybe_uint (object, "devices", &value, error))
    return FALSE;
  if (value > GML_PROBE_MAX_DEVICES)
    return wrong_member (error, "devices", _("“%s” is not a device number PyTorch would give."));
  m->n_devices = (guint) value;
  if (!maybe_uint (object, "total_bytes", &m->total_bytes, error) ||
      !maybe_string (object, "torch", GML_PROBE_MAX_STRING, &m->torch_version, error) ||
      !maybe_string (object, "device_name", GML_PROBE_MAX_STRING, &m->device_name, error) ||
      !maybe_bool (object, "watched", &m->watched, error))
    return FALSE;

  argv = json_object_get_member (object, "argv");
  if (argv != NULL && !JSON_NODE_HOLDS_NULL (argv))
    {
      JsonArray *array;
      GPtrArray *out;

      if (!JSON_NODE_HOLDS_ARRAY (argv))
        return wrong_member (error, "argv", _("“%s” should be a list of strings."));
      array = json_node_get_array (argv);
      if (json_array_get_length (array) > GML_PROBE_MAX_ARGV)
        return too_large (error, "argv", GML_PROBE_MAX_ARGV);
      out = g_ptr_array_new ();
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          const char *s = node_string (json_array_get_element (array, i), GML_PROBE_MAX_STRING);

          if (s == NULL)
            {
              g_ptr_array_free (out, TRUE);
              return wrong_member (error, "argv", _("“%s” should be a list of strings."));
            }
          g_ptr_array_add (out, g_strdup (s));
        }
      g_ptr_array_add (out, NULL);
      m->argv = (char **) g_ptr_array_free (out, FALSE);
    }
  return TRUE;
}

static const char * const action_names[GML_N_SNAP_ACTIONS] = {
  "alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
  "segment_map", "segment_unmap", "snapshot", "oom", "other",
};

static gboolean
parse_entries (JsonObject       *object,
               GmlProbeMessage  *m,
               GError          **error)
{
  JsonNode *node = json_object_get_member (object, "entries");
  JsonArray *array;
  guint n;

  m->entries = g_array_new (FALSE, FALSE, sizeof (GmlProbeEntry));
  if (node == NULL && m->type == GML_PROBE_UPDATE)
    return TRUE;
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return wrong_member (error, "entries", _("“%s” should be a list of trace entries."));
  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n > GML_PROBE_MAX_ENTRIES)
    return too_large (error, "entries", GML_PROBE_MAX_ENTRIES);
  g_array_set_size (m->entries, n);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      GmlProbeEntry *e = &g_array_index (m->entries, GmlProbeEntry, i);
      JsonArray *fields;
      const char *action;
      guint a;

      if (item == NULL || !JSON_NODE_HOLDS_ARRAY (item) ||
          json_array_get_length (fields = json_node_get_array (item)) != 5 ||
          (action = node_string (json_array_get_element (fields, 0), MAX_ACTION_NAME)) == NULL ||
          !node_uint (json_array_get_element (fields, 1), &e->addr) ||
          !node_uint (json_array_get_element (fields, 2), &e->size) ||
          !node_uint (json_array_get_element (fields, 3), &e->stream) ||
          !node_int (json_array_get_element (fields, 4), &e->time_us))
        {
          /* Translators: %u counts from 1; the format of an entry is shown as the probe sends it.
           */
          g_set_error (error, GML_PROBE_ERROR, GML_PROBE_ERROR_MEMBER,
                       _("trace entry %u is not [action, addr, size, stream, time_us]."), i + 1);
          return FALSE;
        }
      for (a = 0; a < GML_SNAP_OTHER; a++)
        if (g_str_equal (action, action_names[a]))
          break;
      e->action = (guint8) a;
    }
  return TRUE;
}

static gboolean
parse_update (JsonObject       *object,
              GmlProbeMessage  *m,
              GError          **error)
{
  if (!need_device (object, m, error) ||
      !need_uint (object, "allocated_bytes", &m->allocated_bytes, error) ||
      !need_uint (object, "reserved_bytes", &m->reserved_bytes, error) ||
      !need_uint (object, "active_bytes", &m->active_bytes, error) ||
      !need_uint (object, "segments", &m->segments, error) ||
      !need_uint (object, "allocations", &m->allocations, error) ||
      !need_uint (object, "trace_entries", &m->trace_entries, error) ||
      !need_number (object, "time", &m->time, error) ||
      !maybe_bool (object, "gap", &m->gap, error))
    return FALSE;
  return parse_entries (object, m, error);
}

static gboolean
bad_state (GError     **error,
           const char  *message)
{
  g_set_error_literal (error, GML_PROBE_ERROR, GML_PROBE_ERROR_MEMBER, message);
  return FALSE;
}

static gboolean
parse_block (JsonNode      *node,
             GmlProbeBlock *b)
{
  JsonArray *fields;
  const char *state;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node) ||
      json_array_get_length (fields = json_node_get_array (node)) != 3 ||
      !node_uint (json_array_get_element (fields, 0), &b->size) ||
      !node_uint (json_array_get_element (fields, 1), &b->requested_size) ||
      (state = node_string (json_array_get_element (fields, 2), 1)) == NULL || b->size == 0)
    return FALSE;
  if (g_str_equal (state, "a"))
    b->state = GML_SNAP_BLOCK_ALLOCATED;
  else if (g_str_equal (state, "i"))
    b->state = GML_SNAP_BLOCK_INACTIVE;
  else if (g_str_equal (state, "p"))
    b->state = GML_SNAP_BLOCK_PENDING_FREE;
  else
    return FALSE;
  return TRUE;
}

static gboolean
parse_state (JsonObject       *object,
             GmlProbeMessage  *m,
             GError          **error)
{
  JsonNode *node;
  JsonArray *segments;
  guint n;
  guint64 end = 0;

  if (!need_device (object, m, error) ||
      !need_uint (object, "trace_entries", &m->trace_entries, error) ||
      !maybe_bool (object, "omitted", &m->omitted, error))
    return FALSE;
  if (json_object_has_member (object, "time") && !need_number (object, "time", &m->time, error))
    return FALSE;
  m->state_segments = g_array_new (FALSE, FALSE, sizeof (GmlProbeSegment));
  m->state_blocks = g_array_new (FALSE, FALSE, sizeof (GmlProbeBlock));
  if (m->omitted)
    return TRUE;

  node = json_object_get_member (object, "segments");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return wrong_member (error, "segments", _("“%s” should be a list of segments."));
  segments = json_node_get_array (node);
  n = json_array_get_length (segments);
  if (n > GML_PROBE_MAX_SEGMENTS)
    return too_large (error, "segments", GML_PROBE_MAX_SEGMENTS);
  for (guint s = 0; s < n; s++)
    {
      JsonNode *item = json_array_get_element (segments, s);
      JsonArray *fields, *blocks;
      GmlProbeSegment seg = { 0 };
      const char *kind;
      gboolean expandable = FALSE;
      guint64 sum = 0;
      JsonNode *blocks_node;

      if (item == NULL || !JSON_NODE_HOLDS_ARRAY (item) ||
          json_array_get_length (fields = json_node_get_array (item)) != 6 ||
          !node_uint (json_array_get_element (fields, 0), &seg.address) ||
          !node_uint (json_array_get_element (fields, 1), &seg.total_size) ||
          !node_uint (json_array_get_element (fields, 2), &seg.stream) ||
          (kind = node_string (json_array_get_element (fields, 3), 8)) == NULL ||
          !(g_str_equal (kind, "small") || g_str_equal (kind, "large")) ||
          !node_bool (json_array_get_element (fields, 4), &expandable) ||
          (blocks_node = json_array_get_element (fields, 5)) == NULL ||
          !JSON_NODE_HOLDS_ARRAY (blocks_node))
        return bad_state (error,
                          _("a segment is not [address, total_size, stream, \"small\" or "
                            "\"large\", expandable, blocks]."));
      if (seg.total_size == 0 || seg.address > G_MAXUINT64 - seg.total_size)
        return bad_state (error,
                          _("a segment has no size, or runs past the end of the address space."));
      if (s > 0 && seg.address < end)
        return bad_state (error, _("the segments are not in address order, or they overlap."));
      end = seg.address + seg.total_size;
      seg.small = g_str_equal (kind, "small");
      seg.expandable = expandable;
      blocks = json_node_get_array (blocks_node);
      if (json_array_get_length (blocks) > GML_PROBE_MAX_BLOCKS - m->state_blocks->len)
        return too_large (error, "blocks", GML_PROBE_MAX_BLOCKS);
      seg.first_block = m->state_blocks->len;
      seg.n_blocks = json_array_get_length (blocks);
      if (seg.n_blocks == 0)
        return bad_state (error, _("a segment has no blocks."));
      for (guint i = 0; i < seg.n_blocks; i++)
        {
          GmlProbeBlock b = { 0 };

          if (!parse_block (json_array_get_element (blocks, i), &b))
            return bad_state (error,
                              _("a block is not [size, requested_size, \"a\", \"i\" or \"p\"]."));
          if (b.size > seg.total_size - sum)
            return bad_state (error, _("a segment’s blocks do not add up to its size."));
          sum += b.size;
          g_array_append_val (m->state_blocks, b);
        }
      if (sum != seg.total_size)
        return bad_state (error, _("a segment’s blocks do not add up to its size."));
      g_array_append_val (m->state_segments, seg);
    }
  return TRUE;
}

static gboolean
parse_oom (JsonObject       *object,
           GmlProbeMessage  *m,
           GError          **error)
{
  guint64 device = 0;

  if (!node_uint (json_object_get_member (object, "device"), &device) ||
      device >= GML_PROBE_MAX_DEVICES ||
      !node_uint (json_object_get_member (object, "size"), &m->size) ||
      !node_uint (json_object_get_member (object, "device_free"), &m->device_free) ||
      !node_uint (json_object_get_member (object, "device_total"), &m->device_total) ||
      !node_uint (json_object_get_member (object, "allocated_bytes"), &m->allocated_bytes) ||
      !node_uint (json_object_get_member (object, "reserved_bytes"), &m->reserved_bytes) ||
      !need_number (object, "time", &m->time, NULL))
    {
      g_set_error_literal (error, GML_PROBE_ERROR, GML_PROBE_ERROR_MEMBER,
                           _("an out-of-memory message without its figures."));
      return FALSE;
    }
  m->device = (guint) device;
  return maybe_string (object, "snapshot", GML_PROBE_MAX_MESSAGE_TEXT, &m->snapshot, error);
}

static gboolean
parse_dump (JsonObject       *object,
            GmlProbeMessage  *m,
            GError          **error)
{
  if (!need_uint (object, "id", &m->id, error))
    return FALSE;
  switch (m->type)
    {
    case GML_PROBE_DUMP_BEGIN:
      if (!need_uint (object, "bytes", &m->bytes, error))
        return FALSE;
      if (m->bytes > GML_PROBE_MAX_DUMP_BYTES)
        {
          g_autofree char *limit = g_format_size_full (GML_PROBE_MAX_DUMP_BYTES,
                                                       G_FORMAT_SIZE_IEC_UNITS);

          /* Translators: %s is a size. */
          g_set_error (error, GML_PROBE_ERROR, GML_PROBE_ERROR_TOO_LARGE,
                       _("a snapshot larger than %s was announced."), limit);
          return FALSE;
        }
      return TRUE;
    case GML_PROBE_DUMP_DATA:
      {
        const char *text = node_string (json_object_get_member (object, "data"),
                                        (GML_PROBE_MAX_DUMP_CHUNK + 2) / 3 * 4);
        gsize n = 0;
        guchar *decoded;

        if (text == NULL)
          return wrong_member (error, "data", _("“%s” should be base64 text of at most 1 MiB."));
        for (const char *p = text; *p; p++)
          if (!g_ascii_isalnum (*p) && *p != '+' && *p != '/' && *p != '=')
            return wrong_member (error, "data", _("“%s” should be base64 text of at most 1 MiB."));
        decoded = g_base64_decode (text, &n);
        m->data = g_bytes_new_take (decoded, n);
        return TRUE;
      }
    case GML_PROBE_DUMP_FAILED:
      return maybe_string (object, "message", GML_PROBE_MAX_MESSAGE_TEXT, &m->message, error);
    case GML_PROBE_DUMP_END:
    default:
      return TRUE;
    }
}

/* ------------------------------------------------------------------------- */

GmlProbeMessage *
gml_probe_message_parse (const char  *line,
                         gsize        length,
                         GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GmlProbeMessage) m = NULL;
  g_autoptr(GError) local = NULL;
  JsonObject *object;
  JsonNode *root;
  guint64 version = 0;
  const char *type;
  guint t;
  gboolean ok;

  g_return_val_if_fail (line != NULL || length == 0, NULL);

  if (length > GML_PROBE_MAX_LINE)
    {
      g_set_error_literal (error, GML_PROBE_ERROR, GML_PROBE_ERROR_TOO_LARGE,
                           _("a message longer than any the probe sends; the connection is "
                             "closed."));
      return NULL;
    }
  if (!g_utf8_validate_len (line, length, NULL) || memchr (line, '\0', length) != NULL)
    {
      g_set_error_literal (error, GML_PROBE_ERROR, GML_PROBE_ERROR_ENCODING, _("not UTF-8 text."));
      return NULL;
    }
  parser = json_parser_new_immutable ();
  if (!gml_input_check_json_depth (line, (gssize) length, MAX_DEPTH, &local) ||
      !json_parser_load_from_data (parser, line, (gssize) length, &local))
    {
      g_set_error (error, GML_PROBE_ERROR, GML_PROBE_ERROR_SYNTAX, _("not valid JSON: %s"),
                   local->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, GML_PROBE_ERROR, GML_PROBE_ERROR_SYNTAX,
                           _("each message must be one JSON object."));
      return NULL;
    }
  object = json_node_get_object (root);
  if (!node_uint (json_object_get_member (object, "v"), &version) || version != GML_PROBE_PROTOCOL)
    {
      g_set_error (error, GML_PROBE_ERROR, GML_PROBE_ERROR_VERSION,
                   _("protocol version %u expected."),
                   GML_PROBE_PROTOCOL);
      return NULL;
    }
  type = node_string (json_object_get_member (object, "type"), MAX_ACTION_NAME);
  if (type == NULL)
    {
      g_set_error_literal (error, GML_PROBE_ERROR, GML_PROBE_ERROR_TYPE,
                           _("the “type” member is missing."));
      return NULL;
    }
  for (t = 0; t < G_N_ELEMENTS (type_names); t++)
    if (g_str_equal (type, type_names[t]))
      break;
  if (t == G_N_ELEMENTS (type_names))
    {
      g_set_error (error, GML_PROBE_ERROR, GML_PROBE_ERROR_TYPE, _("unknown message type “%s”."),
                   type);
      return NULL;
    }

  m = g_new0 (GmlProbeMessage, 1);
  m->type = t;
  switch (m->type)
    {
    case GML_PROBE_HELLO:
      ok = parse_hello (object, m, error);
      break;
    case GML_PROBE_UPDATE:
      ok = parse_update (object, m, error);
      break;
    case GML_PROBE_ENTRIES:
      ok = parse_entries (object, m, error);
      break;
    case GML_PROBE_STATE:
      ok = parse_state (object, m, error);
      break;
    case GML_PROBE_OOM:
      ok = parse_oom (object, m, error);
      break;
    case GML_PROBE_ERROR_MESSAGE:
      ok = maybe_string (object, "message", GML_PROBE_MAX_MESSAGE_TEXT, &m->message, error);
      break;
    case GML_PROBE_DUMP_BEGIN:
    case GML_PROBE_DUMP_DATA:
    case GML_PROBE_DUMP_END:
    case GML_PROBE_DUMP_FAILED:
      ok = parse_dump (object, m, error);
      break;
    case GML_PROBE_BYE:
    default:
      ok = TRUE;
      break;
    }
  if (!ok)
    return NULL;
  return g_steal_pointer (&m);
}

char *
gml_probe_request_watch (gboolean state,
                         gboolean oom_snapshot)
{
  return g_strdup_printf ("{\"v\":%d,\"type\":\"watch\",\"state\":%s,\"oom_snapshot\":%s}\n",
                          GML_PROBE_PROTOCOL, state ? "true" : "false",
                          oom_snapshot ? "true" : "false");
}

char *
gml_probe_request_dump (guint64 id)
{
  return g_strdup_printf ("{\"v\":%d,\"type\":\"dump\",\"id\":%" G_GUINT64_FORMAT "}\n",
                          GML_PROBE_PROTOCOL, id);
}

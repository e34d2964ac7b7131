/* test-probe-message.c — the live probe's messages, good and hostile, and the
 * live record that turns them into a snapshot.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "gml-i18n.h"
#include "gml-live-record.h"
#include "gml-probe-message.h"
#include "gml-snapshot-state.h"

static GmlProbeMessage *
parse_ok (const char *line)
{
  g_autoptr(GError) error = NULL;
  GmlProbeMessage *m = gml_probe_message_parse (line, strlen (line), &error);

  g_assert_no_error (error);
  g_assert_nonnull (m);
  return m;
}

static GError *
parse_bad (const char *line,
           gsize       length)
{
  GError *error = NULL;
  GmlProbeMessage *m = gml_probe_message_parse (line, length, &error);

  g_assert_null (m);
  g_assert_nonnull (error);
  g_assert_true (error->domain == GML_PROBE_ERROR);
  g_assert_cmpstr (error->message, !=, "");
  return error;
}

static void
test_hello (void)
{
  g_autoptr(GmlProbeMessage) m =
      parse_ok ("{\"v\":1,\"type\":\"hello\",\"pid\":4242,\"torch\":\"2.5.1+cu124\","
                "\"device\":1,\"devices\":2,\"device_name\":\"NVIDIA H100\","
                "\"total_bytes\":85899345920,\"argv\":[\"train.py\",\"--batch\",\"64\"],"
                "\"watched\":true}");

  g_assert_cmpint (m->type, ==, GML_PROBE_HELLO);
  g_assert_cmpint (m->pid, ==, 4242);
  g_assert_cmpstr (m->torch_version, ==, "2.5.1+cu124");
  g_assert_cmpuint (m->device, ==, 1);
  g_assert_cmpuint (m->n_devices, ==, 2);
  g_assert_cmpstr (m->device_name, ==, "NVIDIA H100");
  g_assert_cmpuint (m->total_bytes, ==, G_GUINT64_CONSTANT (85899345920));
  g_assert_cmpuint (g_strv_length (m->argv), ==, 3);
  g_assert_cmpstr (m->argv[2], ==, "64");
  g_assert_true (m->watched);
}

static void
test_update (void)
{
  g_autoptr(GmlProbeMessage) m = parse_ok ("{\"v\":1,\"type\":\"update\",\"time\":1.5,\"device\":0,"
                                           "\"allocated_bytes\":3146240,\"reserved_bytes\":20971520,"
                                           "\"active_bytes\":3146240,\"segments\":1,\"allocations\":1,"
                                           "\"trace_entries\":3,\"gap\":true,\"entries\":["
                                           "[\"segment_alloc\",139637976727552,20971520,0,1700000000000000],"
                                           "[\"alloc\",139637976727552,3145728,0,1700000000000001],"
                                           "[\"annotate\",0,0,94000000000000,1700000000000002]]}");
  const GmlProbeEntry *e;

  g_assert_cmpint (m->type, ==, GML_PROBE_UPDATE);
  g_assert_cmpfloat (m->time, ==, 1.5);
  g_assert_cmpuint (m->allocated_bytes, ==, 3146240);
  g_assert_cmpuint (m->reserved_bytes, ==, 20971520);
  g_assert_cmpuint (m->trace_entries, ==, 3);
  g_assert_true (m->gap);
  g_assert_cmpuint (m->entries->len, ==, 3);
  e = &g_array_index (m->entries, GmlProbeEntry, 0);
  g_assert_cmpint (e->action, ==, GML_SNAP_SEGMENT_ALLOC);
  g_assert_cmpuint (e->size, ==, 20971520);
  e = &g_array_index (m->entries, GmlProbeEntry, 1);
  g_assert_cmpint (e->action, ==, GML_SNAP_ALLOC);
  g_assert_cmpuint (e->addr, ==, G_GUINT64_CONSTANT (139637976727552));
  g_assert_cmpint (e->time_us, ==, G_GINT64_CONSTANT (1700000000000001));
  /* An action this lab does not know is kept, as "other". */
  e = &g_array_index (m->entries, GmlProbeEntry, 2);
  g_assert_cmpint (e->action, ==, GML_SNAP_OTHER);
  g_assert_cmpuint (e->stream, ==, G_GUINT64_CONSTANT (94000000000000));
}

static void
test_update_without_entries (void)
{
  /* What `watch --json` has always accepted. */
  g_autoptr(GmlProbeMessage) m = parse_ok ("{\"v\":1,\"type\":\"update\",\"time\":0,\"device\":0,"
                                           "\"allocated_bytes\":0,\"reserved_bytes\":0,\"active_bytes\":0,"
                                           "\"segments\":0,\"allocations\":0,\"trace_entries\":0}");

  g_assert_cmpuint (m->entries->len, ==, 0);
  g_assert_false (m->gap);
}

static void
test_state (void)
{
  g_autoptr(GmlProbeMessage) m = parse_ok ("{\"v\":1,\"type\":\"state\",\"time\":2.0,\"device\":0,"
                                           "\"trace_entries\":7,\"segments\":["
                                           "[1048576,2097152,0,\"small\",false,[[512,100,\"a\"],[2096640,0,\"i\"]]],"
                                           "[4194304,20971520,7,\"large\",true,[[1048576,1000000,\"p\"],"
                                           "[19922944,0,\"i\"]]]]}");
  const GmlProbeSegment *s;

  g_assert_cmpint (m->type, ==, GML_PROBE_STATE);
  g_assert_cmpuint (m->trace_entries, ==, 7);
  g_assert_false (m->omitted);
  g_assert_cmpuint (m->state_segments->len, ==, 2);
  g_assert_cmpuint (m->state_blocks->len, ==, 4);
  s = &g_array_index (m->state_segments, GmlProbeSegment, 0);
  g_assert_true (s->small);
  g_assert_cmpuint (s->n_blocks, ==, 2);
  s = &g_array_index (m->state_segments, GmlProbeSegment, 1);
  g_assert_false (s->small);
  g_assert_true (s->expandable);
  g_assert_cmpuint (s->stream, ==, 7);
  g_assert_cmpuint (s->first_block, ==, 2);
  g_assert_cmpint (g_array_index (m->state_blocks, GmlProbeBlock, 0).state, ==,
                   GML_SNAP_BLOCK_ALLOCATED);
  g_assert_cmpint (g_array_index (m->state_blocks, GmlProbeBlock, 2).state, ==,
                   GML_SNAP_BLOCK_PENDING_FREE);
  g_assert_cmpint (g_array_index (m->state_blocks, GmlProbeBlock, 3).state, ==,
                   GML_SNAP_BLOCK_INACTIVE);

  {
    g_autoptr(GmlProbeMessage) omitted =
        parse_ok ("{\"v\":1,\"type\":\"state\",\"device\":0,\"trace_entries\":9,"
                  "\"omitted\":true}");

    g_assert_true (omitted->omitted);
    g_assert_cmpuint (omitted->state_segments->len, ==, 0);
  }
}

static void
test_other_types (void)
{
  g_autoptr(GmlProbeMessage) oom = parse_ok ("{\"v\":1,\"type\":\"oom\",\"time\":3.0,\"device\":0,"
                                             "\"size\":103079215104,\"device_free\":84825604096,"
                                             "\"device_total\":85899345920,\"allocated_bytes\":3145728,"
                                             "\"reserved_bytes\":1073741824,\"snapshot\":null}");
  g_autoptr(GmlProbeMessage) error =
      parse_ok ("{\"v\":1,\"type\":\"error\",\"message\":\"RuntimeError: x\"}");
  g_autoptr(GmlProbeMessage) bye = parse_ok ("{\"v\":1,\"type\":\"bye\"}");
  g_autoptr(GmlProbeMessage) begin =
      parse_ok ("{\"v\":1,\"type\":\"dump-begin\",\"id\":3,\"bytes\":5}");
  g_autoptr(GmlProbeMessage) data =
      parse_ok ("{\"v\":1,\"type\":\"dump-data\",\"id\":3,\"data\":\"aGVsbG8=\"}");
  g_autoptr(GmlProbeMessage) end = parse_ok ("{\"v\":1,\"type\":\"dump-end\",\"id\":3}");
  g_autoptr(GmlProbeMessage) failed =
      parse_ok ("{\"v\":1,\"type\":\"dump-failed\",\"id\":3,\"message\":\"no\"}");

  g_assert_cmpint (oom->type, ==, GML_PROBE_OOM);
  g_assert_cmpuint (oom->size, ==, G_GUINT64_CONSTANT (103079215104));
  g_assert_null (oom->snapshot);
  g_assert_cmpstr (error->message, ==, "RuntimeError: x");
  g_assert_cmpint (bye->type, ==, GML_PROBE_BYE);
  g_assert_cmpuint (begin->bytes, ==, 5);
  g_assert_cmpuint (g_bytes_get_size (data->data), ==, 5);
  g_assert_cmpmem (g_bytes_get_data (data->data, NULL), 5, "hello", 5);
  g_assert_cmpint (end->type, ==, GML_PROBE_DUMP_END);
  g_assert_cmpstr (failed->message, ==, "no");
}

typedef struct
{
  const char *line;
  int         code;
  const char *words;     /* in the English message */
} Hostile;

static const Hostile hostile[] = {
  { "not json", GML_PROBE_ERROR_SYNTAX, "not valid JSON" },
  { "[1, 2, 3]", GML_PROBE_ERROR_SYNTAX, "one JSON object" },
  { "{\"v\": 2, \"type\": \"update\"}", GML_PROBE_ERROR_VERSION, "protocol version 1" },
  { "{\"v\": \"1\", \"type\": \"bye\"}", GML_PROBE_ERROR_VERSION, "protocol version 1" },
  { "{\"v\": 1}", GML_PROBE_ERROR_TYPE, "“type”" },
  { "{\"v\": 1, \"type\": 7}", GML_PROBE_ERROR_TYPE, "“type”" },
  { "{\"v\": 1, \"type\": \"martian\"}", GML_PROBE_ERROR_TYPE, "martian" },
  { "{\"v\": 1, \"type\": \"update\", \"allocated_bytes\": \"x\"}", GML_PROBE_ERROR_MEMBER,
    "whole number" },
  { "{\"v\":1,\"type\":\"update\",\"time\":0,\"device\":0,\"allocated_bytes\":-1,\"reserved_bytes\":0,"
    "\"active_bytes\":0,\"segments\":0,\"allocations\":0,\"trace_entries\":0}", GML_PROBE_ERROR_MEMBER,
    "allocated_bytes" },
  { "{\"v\":1,\"type\":\"update\",\"time\":0,\"device\":0,\"allocated_bytes\":1.5,\"reserved_bytes\":0,"
    "\"active_bytes\":0,\"segments\":0,\"allocations\":0,\"trace_entries\":0}", GML_PROBE_ERROR_MEMBER,
    "allocated_bytes" },
  { "{\"v\":1,\"type\":\"update\",\"time\":\"now\",\"device\":0,\"allocated_bytes\":0,\"reserved_bytes\":0,"
    "\"active_bytes\":0,\"segments\":0,\"allocations\":0,\"trace_entries\":0}",
    GML_PROBE_ERROR_MEMBER, "time" },
  { "{\"v\":1,\"type\":\"update\",\"time\":0,\"device\":99999,\"allocated_bytes\":0,\"reserved_bytes\":0,"
    "\"active_bytes\":0,\"segments\":0,\"allocations\":0,\"trace_entries\":0}",
    GML_PROBE_ERROR_MEMBER, "device" },
  { "{\"v\":1,\"type\":\"update\",\"time\":0,\"device\":0,\"allocated_bytes\":0,\"reserved_bytes\":0,"
    "\"active_bytes\":0,\"segments\":0,\"allocations\":0,\"trace_entries\":0,\"entries\":[[\"alloc\",1,2,3]]}",
    GML_PROBE_ERROR_MEMBER, "trace entry 1" },
  { "{\"v\":1,\"type\":\"update\",\"time\":0,\"device\":0,\"allocated_bytes\":0,\"reserved_bytes\":0,"
    "\"active_bytes\":0,\"segments\":0,\"allocations\":0,\"trace_entries\":0,\"entries\":[[\"alloc\",-1,2,3,4]]}",
    GML_PROBE_ERROR_MEMBER, "trace entry 1" },
  { "{\"v\":1,\"type\":\"update\",\"time\":0,\"device\":0,\"allocated_bytes\":0,\"reserved_bytes\":0,"
    "\"active_bytes\":0,\"segments\":0,\"allocations\":0,\"trace_entries\":0,\"entries\":{}}",
    GML_PROBE_ERROR_MEMBER, "entries" },
  { "{\"v\":1,\"type\":\"entries\"}", GML_PROBE_ERROR_MEMBER, "entries" },
  { "{\"v\":1,\"type\":\"state\",\"device\":0,\"trace_entries\":1,\"segments\":"
    "[[0,4096,0,\"small\",false,[[2048,0,\"a\"]]]]}", GML_PROBE_ERROR_MEMBER, "add up" },
  { "{\"v\":1,\"type\":\"state\",\"device\":0,\"trace_entries\":1,\"segments\":"
    "[[0,4096,0,\"small\",false,[[4096,0,\"a\"],[1,0,\"i\"]]]]}", GML_PROBE_ERROR_MEMBER,
    "add up" },
  { "{\"v\":1,\"type\":\"state\",\"device\":0,\"trace_entries\":1,\"segments\":"
    "[[8192,4096,0,\"small\",false,[[4096,0,\"a\"]]],[4096,8192,0,\"small\",false,[[8192,0,\"a\"]]]]}",
    GML_PROBE_ERROR_MEMBER, "overlap" },
  { "{\"v\":1,\"type\":\"state\",\"device\":0,\"trace_entries\":1,\"segments\":"
    "[[18446744073709551000,4096,0,\"small\",false,[[4096,0,\"a\"]]]]}", GML_PROBE_ERROR_MEMBER,
    "segment" },
  { "{\"v\":1,\"type\":\"state\",\"device\":0,\"trace_entries\":1,\"segments\":"
    "[[0,0,0,\"small\",false,[[0,0,\"a\"]]]]}", GML_PROBE_ERROR_MEMBER, "no size" },
  { "{\"v\":1,\"type\":\"state\",\"device\":0,\"trace_entries\":1,\"segments\":"
    "[[0,4096,0,\"small\",false,[[4096,0,\"x\"]]]]}", GML_PROBE_ERROR_MEMBER, "block" },
  { "{\"v\":1,\"type\":\"state\",\"device\":0,\"trace_entries\":1,\"segments\":"
    "[[0,4096,0,\"medium\",false,[[4096,0,\"a\"]]]]}", GML_PROBE_ERROR_MEMBER, "segment" },
  { "{\"v\":1,\"type\":\"state\",\"device\":0,\"trace_entries\":1,\"segments\":"
    "[[0,4096,0,\"small\",false,[]]]}", GML_PROBE_ERROR_MEMBER, "no blocks" },
  { "{\"v\":1,\"type\":\"oom\",\"device\":0}", GML_PROBE_ERROR_MEMBER, "out-of-memory" },
  { "{\"v\":1,\"type\":\"dump-begin\",\"id\":1,\"bytes\":99999999999999}",
    GML_PROBE_ERROR_TOO_LARGE, "larger" },
  { "{\"v\":1,\"type\":\"dump-data\",\"id\":1,\"data\":\"<script>\"}", GML_PROBE_ERROR_MEMBER,
    "base64" },
  { "{\"v\":1,\"type\":\"dump-data\",\"id\":1,\"data\":7}", GML_PROBE_ERROR_MEMBER, "base64" },
  { "{\"v\":1,\"type\":\"dump-end\"}", GML_PROBE_ERROR_MEMBER, "“id”" },
  { "{\"v\":1,\"type\":\"hello\",\"argv\":\"train.py\"}", GML_PROBE_ERROR_MEMBER, "argv" },
  { "{\"v\":1,\"type\":\"hello\",\"argv\":[1]}", GML_PROBE_ERROR_MEMBER, "argv" },
  { "{\"v\":1,\"type\":\"hello\",\"watched\":\"yes\"}", GML_PROBE_ERROR_MEMBER, "watched" },
  { "{\"v\":1,\"type\":\"hello\",\"pid\":-5}", GML_PROBE_ERROR_MEMBER, "pid" },
  { "{\"v\":1,\"type\":\"error\",\"message\":[\"x\"]}", GML_PROBE_ERROR_MEMBER, "message" },
};

static void
test_hostile (void)
{
  gml_i18n_set_language ("en");
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      g_autoptr(GError) error = parse_bad (hostile[i].line, strlen (hostile[i].line));

      if (error->code != hostile[i].code || strstr (error->message, hostile[i].words) == NULL)
        g_error ("%s: error %d “%s”, expected %d with “%s”", hostile[i].line, error->code,
                 error->message,
                 hostile[i].code, hostile[i].words);
    }
  gml_i18n_set_language (NULL);
}

static void
test_hostile_sizes (void)
{
  /* Invalid UTF-8, a NUL inside, nesting 100 000 deep, a line over the limit. */
  {
    g_autoptr(GError) error = parse_bad ("\xff\xfe{}", 4);

    g_assert_cmpint (error->code, ==, GML_PROBE_ERROR_ENCODING);
  }
  {
    static const char with_nul[] = "{\"v\":1,\0\"type\":\"bye\"}";
    g_autoptr(GError) error = parse_bad (with_nul, sizeof with_nul - 1);

    g_assert_cmpint (error->code, ==, GML_PROBE_ERROR_ENCODING);
  }
  {
    gsize n = 100000;
    g_autofree char *deep = g_malloc (2 * n);
    g_autoptr(GError) error = NULL;

    memset (deep, '[', n);
    memset (deep + n, ']', n);
    error = parse_bad (deep, 2 * n);
    g_assert_cmpint (error->code, ==, GML_PROBE_ERROR_SYNTAX);
  }
  {
    gsize n = GML_PROBE_MAX_LINE + 1;
    g_autofree char *long_line = g_malloc (n);
    g_autoptr(GError) error = NULL;

    memset (long_line, ' ', n);
    error = parse_bad (long_line, n);
    g_assert_cmpint (error->code, ==, GML_PROBE_ERROR_TOO_LARGE);
  }
  /* More entries than a message may carry. */
  {
    GString *line = g_string_new ("{\"v\":1,\"type\":\"entries\",\"entries\":[");
    g_autoptr(GError) error = NULL;

    for (guint i = 0; i <= GML_PROBE_MAX_ENTRIES; i++)
      g_string_append (line, i == 0 ? "[\"alloc\",0,0,0,0]" : ",[\"alloc\",0,0,0,0]");
    g_string_append (line, "]}");
    error = parse_bad (line->str, line->len);
    g_assert_cmpint (error->code, ==, GML_PROBE_ERROR_TOO_LARGE);
    g_string_free (line, TRUE);
  }
  /* A string longer than any name. */
  {
    g_autofree char *name = g_strnfill (GML_PROBE_MAX_STRING + 1, 'x');
    g_autofree char *line = g_strdup_printf ("{\"v\":1,\"type\":\"hello\",\"device_name\":\"%s\"}",
                                             name);
    g_autoptr(GError) error = parse_bad (line, strlen (line));

    g_assert_cmpint (error->code, ==, GML_PROBE_ERROR_MEMBER);
  }
}

/* The refusals are in the user's language: every one differs in Turkish. */
static void
test_turkish (void)
{
  static const char *state = "{\"v\":1,\"type\":\"state\",\"device\":0,\"trace_entries\":1,"
                             "\"segments\":[[0,4096,0,\"small\",false,[[2048,0,\"a\"]]]]}";

  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      g_autoptr(GError) english = NULL;
      g_autoptr(GError) turkish = NULL;

      gml_i18n_set_language ("en");
      english = parse_bad (hostile[i].line, strlen (hostile[i].line));
      gml_i18n_set_language ("tr");
      turkish = parse_bad (hostile[i].line, strlen (hostile[i].line));
      if (g_str_equal (english->message, turkish->message))
        g_error ("“%s” is not translated", english->message);
    }
  {
    g_autoptr(GError) error = parse_bad ("\xff", 1);

    g_assert_cmpstr (error->message, ==, "UTF-8 metin değil.");
  }
  {
    g_autoptr(GError) error = parse_bad (state, strlen (state));

    g_assert_cmpstr (error->message, ==, "bir segmentin blokları segmentin boyutunu tutmuyor.");
  }
  gml_i18n_set_language ("en");
  {
    g_autoptr(GError) error = parse_bad ("\xff", 1);

    g_assert_cmpstr (error->message, ==, "not UTF-8 text.");
  }
  gml_i18n_set_language (NULL);
}

static void
test_requests (void)
{
  g_autofree char *watch = gml_probe_request_watch (TRUE, FALSE);
  g_autofree char *dump = gml_probe_request_dump (12);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o;

  g_assert_true (g_str_has_suffix (watch, "}\n"));
  g_assert_true (json_parser_load_from_data (parser, watch, -1, NULL));
  o = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (o, "v"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (o, "type"), ==, "watch");
  g_assert_true (json_object_get_boolean_member (o, "state"));
  g_assert_false (json_object_get_boolean_member (o, "oom_snapshot"));
  g_assert_true (json_parser_load_from_data (parser, dump, -1, NULL));
  o = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (o, "type"), ==, "dump");
  g_assert_cmpint (json_object_get_int_member (o, "id"), ==, 12);
}

/* ------------------------------------------------------------------------- */
/* The live record                                                           */

#define SEG  G_GUINT64_CONSTANT (0x7f1000000000)

static void
add (GmlLiveRecord *record,
     const char    *line,
     gboolean       expect_state)
{
  g_autoptr(GmlProbeMessage) m = parse_ok (line);

  g_assert_cmpint (gml_live_record_add (record, m), ==, expect_state);
}

static char *
update_line (guint64     total,
             const char *entries,
             gboolean    gap)
{
  return g_strdup_printf ("{\"v\":1,\"type\":\"update\",\"time\":1,\"device\":0,\"allocated_bytes\":0,"
                          "\"reserved_bytes\":0,\"active_bytes\":0,\"segments\":0,\"allocations\":0,"
                          "\"trace_entries\":%" G_GUINT64_FORMAT ",%s\"entries\":[%s]}",
                          total, gap ? "\"gap\":true," : "", entries);
}

/* What the fake torch does: a 1 GiB segment, two allocations, one freed. */
static void
test_record_snapshot (void)
{
  g_autoptr(GmlLiveRecord) record = gml_live_record_new (1000);
  g_autofree char *entries = g_strdup_printf ("[\"alloc\",%" G_GUINT64_FORMAT ",3145728,0,10],"
                                              "[\"alloc\",%" G_GUINT64_FORMAT ",1000,0,11],"
                                              "[\"free_requested\",%" G_GUINT64_FORMAT ",1000,0,12],"
                                              "[\"free_completed\",%" G_GUINT64_FORMAT ",1000,0,13]",
                                              SEG, SEG + 3145728, SEG + 3145728, SEG + 3145728);
  g_autofree char *update = update_line (4, entries, TRUE);
  g_autofree char *state =
      g_strdup_printf ("{\"v\":1,\"type\":\"state\",\"device\":0,\"trace_entries\":4,"
                       "\"segments\":[[%" G_GUINT64_FORMAT ",1073741824,0,\"large\",false,"
                       "[[3145728,3145728,\"a\"],[1070596096,0,\"i\"]]]]}", SEG);
  g_autoptr(GmlSnapshot) snapshot = NULL;
  g_autoptr(GmlSnapshotTimeline) timeline = NULL;
  g_autoptr(GError) error = NULL;
  GmlSnapshotStats end, before_free, start;

  g_assert_null (gml_live_record_build_snapshot (record));
  add (record, update, FALSE);
  g_assert_false (gml_live_record_has_state (record));
  add (record, state, TRUE);
  g_assert_cmpuint (gml_live_record_get_n_entries (record), ==, 4);
  g_assert_cmpuint (gml_live_record_get_state_at (record), ==, 4);

  snapshot = gml_live_record_build_snapshot (record);
  timeline = gml_snapshot_timeline_new (snapshot, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gml_snapshot_timeline_get_n_entries (timeline), ==, 4);
  g_assert_cmpuint (gml_snapshot_timeline_get_n_inconsistencies (timeline), ==, 0);
  gml_snapshot_timeline_stats_at (timeline, 4, &end);
  g_assert_cmpuint (end.segments, ==, 1);
  g_assert_cmpuint (end.reserved_bytes, ==, 1073741824);
  g_assert_cmpuint (end.allocated_bytes, ==, 3145728);
  g_assert_cmpuint (end.allocations, ==, 1);
  /* Walked back from the exact end: the second allocation lived before its free. */
  gml_snapshot_timeline_stats_at (timeline, 2, &before_free);
  g_assert_cmpuint (before_free.allocations, ==, 2);
  g_assert_cmpuint (before_free.allocated_bytes, ==, 3145728 + 1024);
  gml_snapshot_timeline_stats_at (timeline, 0, &start);
  g_assert_cmpuint (start.allocations, ==, 0);
}

static void
test_record_alignment (void)
{
  g_autoptr(GmlLiveRecord) record = gml_live_record_new (1000);
  g_autofree char *u1 = update_line (2, "[\"alloc\",4096,512,0,1],[\"alloc\",4608,512,0,2]", TRUE);
  g_autofree char *u2 = update_line (3, "[\"free_requested\",4096,512,0,3]", FALSE);
  const char *state_at_2 =
      "{\"v\":1,\"type\":\"state\",\"device\":0,\"trace_entries\":2,\"segments\":"
                           "[[4096,2097152,0,\"small\",false,[[512,512,\"a\"],[512,512,\"a\"],[2096128,0,\"i\"]]]]}";

  add (record, u1, FALSE);
  add (record, state_at_2, TRUE);
  g_assert_cmpuint (gml_live_record_get_state_at (record), ==, 2);
  /* An update without its state yet: the picture stays at the state. */
  add (record, u2, FALSE);
  g_assert_cmpuint (gml_live_record_get_n_entries (record), ==, 3);
  g_assert_cmpuint (gml_live_record_get_state_at (record), ==, 2);
  /* A state that does not belong to the latest update: the trace restarts there. */
  add (record, state_at_2, TRUE);
  g_assert_cmpuint (gml_live_record_get_n_entries (record), ==, 0);
  g_assert_cmpuint (gml_live_record_get_dropped (record), ==, 3);
  {
    g_autoptr(GmlSnapshot) snapshot = gml_live_record_build_snapshot (record);
    gsize n = 99;

    gml_snapshot_get_entries (snapshot, 0, &n);
    g_assert_cmpuint (n, ==, 0);
  }
}

static void
test_record_bounds (void)
{
  g_autoptr(GmlLiveRecord) record = gml_live_record_new (8);
  GString *entries = g_string_new (NULL);
  g_autofree char *update = NULL;
  g_autofree char *gap = NULL;

  for (guint i = 0; i < 20; i++)
    g_string_append_printf (entries, "%s[\"alloc\",%u,512,0,%u]", i ? "," : "", 4096 + 512 * i, i);
  update = update_line (20, entries->str, FALSE);
  add (record, update, FALSE);
  /* The newest are kept, like PyTorch's ring buffer. */
  g_assert_cmpuint (gml_live_record_get_n_entries (record), <=, 8);
  g_assert_cmpuint (gml_live_record_get_dropped (record) + gml_live_record_get_n_entries (record),
                    ==, 20);
  /* A gap: what came before is let go. */
  gap = update_line (21, "[\"alloc\",999424,512,0,99]", TRUE);
  add (record, gap, FALSE);
  g_assert_cmpuint (gml_live_record_get_n_entries (record), ==, 1);
  g_assert_cmpuint (gml_live_record_get_dropped (record), ==, 20);
  g_string_free (entries, TRUE);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/probe-message/hello", test_hello);
  g_test_add_func ("/core/probe-message/update", test_update);
  g_test_add_func ("/core/probe-message/update-without-entries", test_update_without_entries);
  g_test_add_func ("/core/probe-message/state", test_state);
  g_test_add_func ("/core/probe-message/other-types", test_other_types);
  g_test_add_func ("/core/probe-message/hostile", test_hostile);
  g_test_add_func ("/core/probe-message/hostile-sizes", test_hostile_sizes);
  g_test_add_func ("/core/probe-message/turkish", test_turkish);
  g_test_add_func ("/core/probe-message/requests", test_requests);
  g_test_add_func ("/core/live-record/snapshot", test_record_snapshot);
  g_test_add_func ("/core/live-record/alignment", test_record_alignment);
  g_test_add_func ("/core/live-record/bounds", test_record_bounds);

  return g_test_run ();
}

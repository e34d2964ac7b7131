/* test-snapshot-reader.c — the pickle reader on hostile and broken input.
 *
 * Instructions that would run Python code are refused with their name and
 * offset; truncation at every byte, garbage, wrong types, memo references out
 * of range, absurd lengths and deep nesting end in a clear error, never a
 * crash; and valid pickles in every protocol read the same.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <string.h>
#include <time.h>

#include "gml-i18n.h"

#include "gml-test-locale.h"
#include "gml-i18n.h"
#include "gml-snapshot-state.h"
#include "gml-snapshot.h"
#include "gml-test-common.h"

/* {'segments': [], 'device_traces': [[{'action': 'alloc', 'addr': A, 'size': 512,
 *  'stream': 0}]]} written by hand in protocol 2, with A = 2^63 + 4096 as a
 * nine-byte LONG1 (PyTorch writes big device pointers that way). */
static const guint8 small_snapshot[] = {
  0x80, 0x02,                                     /* PROTO 2 */
  '}', 'q', 0x00,                                 /* EMPTY_DICT, BINPUT 0 */
  '(',                                            /* MARK */
  'X', 8, 0, 0, 0, 's', 'e', 'g', 'm', 'e', 'n', 't', 's',
  ']', 'q', 0x01,                                 /* [] */
  'X', 13, 0, 0, 0, 'd', 'e', 'v', 'i', 'c', 'e', '_', 't', 'r', 'a', 'c', 'e', 's',
  ']', 'q', 0x02,                                 /* device_traces = [ */
  ']', 'q', 0x03,                                 /*   [ */
  '}', 'q', 0x04, '(',                            /*     { */
  'X', 6, 0, 0, 0, 'a', 'c', 't', 'i', 'o', 'n', 'X', 5, 0, 0, 0, 'a', 'l', 'l', 'o', 'c',
  'X', 4, 0, 0, 0, 'a', 'd', 'd', 'r',
  0x8a, 9, 0x00, 0x10, 0, 0, 0, 0, 0, 0x80, 0x00, /*       LONG1 2^63 + 4096 */
  'X', 4, 0, 0, 0, 's', 'i', 'z', 'e', 'M', 0x00, 0x02,
  'X', 6, 0, 0, 0, 's', 't', 'r', 'e', 'a', 'm', 'K', 0x00,
  'u',                                            /*     SETITEMS } */
  'a',                                            /*   APPEND ] */
  'a',                                            /* APPEND ] */
  'u',                                            /* SETITEMS */
  '.',                                            /* STOP */
};

static GmlSnapshot *
load (const guint8 *data,
      gsize         len,
      GError      **error)
{
  return gml_snapshot_load_data (data, len, error);
}

static void
test_small (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshot) snap = load (small_snapshot, sizeof small_snapshot, &error);
  const GmlSnapshotEntry *entries;
  gsize n;

  g_assert_no_error (error);
  g_assert_nonnull (snap);
  g_assert_cmpuint (gml_snapshot_get_protocol (snap), ==, 2);
  entries = gml_snapshot_get_entries (snap, 0, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (entries[0].action, ==, GML_SNAP_ALLOC);
  g_assert_cmpuint (entries[0].addr, ==, (G_GUINT64_CONSTANT (1) << 63) + 4096);
  g_assert_cmpuint (entries[0].size, ==, 512);
}

/* Every prefix of a valid file is refused with a message, never read as a
 * snapshot, never a crash. */
static void
test_truncated_everywhere (void)
{
  for (gsize len = 0; len < sizeof small_snapshot; len++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GmlSnapshot) snap = load (small_snapshot, len, &error);

      g_assert_null (snap);
      g_assert_nonnull (error);
      g_assert_true (error->domain == GML_SNAPSHOT_ERROR);
      g_assert_cmpuint (strlen (error->message), >, 10);
      if (len > 0)
        g_assert_nonnull (strstr (error->message, "Byte "));
    }
}

static void
expect_error (const guint8 *data,
              gsize         len,
              int           code,
              const char   *contains)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshot) snap = load (data, len, &error);

  g_assert_null (snap);
  g_assert_error (error, GML_SNAPSHOT_ERROR, code);
  if (contains != NULL && strstr (error->message, contains) == NULL)
    g_error ("“%s” not in “%s”", contains, error->message);
}

/* What Python writes for objects: refused at the instruction, nothing run. */
static void
test_python_objects (void)
{
  /* pickle.dumps(collections.OrderedDict(), 2): GLOBAL then REDUCE. */
  static const guint8 global[] = "\x80\x02" "ccollections\nOrderedDict\nq\x00)Rq\x01.";
  /* Protocol 4: STACK_GLOBAL. */
  static const guint8 stack_global[] = "\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00"
                                       "\x8c\x02os\x94\x8c\x06system\x94\x93\x94.";
  /* The classic exploit shape: os.system("…") through REDUCE. */
  static const guint8 reduce[] = "\x80\x02" "cposix\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85R.";
  static const guint8 build[] = "\x80\x02}b.";
  static const guint8 inst[] = "(ios\nsystem\n.";
  static const guint8 obj[] = "\x80\x02(o.";
  static const guint8 newobj[] = "\x80\x02)\x81.";
  static const guint8 persid[] = "\x80\x02Q.";
  static const guint8 ext1[] = "\x80\x02\x82\x01.";

  expect_error (global, sizeof global - 1, GML_SNAPSHOT_ERROR_PYTHON_OBJECTS, "GLOBAL");
  expect_error (stack_global, sizeof stack_global - 1, GML_SNAPSHOT_ERROR_PYTHON_OBJECTS,
                "STACK_GLOBAL");
  expect_error (reduce, sizeof reduce - 1, GML_SNAPSHOT_ERROR_PYTHON_OBJECTS, "GLOBAL");
  expect_error (build, sizeof build - 1, GML_SNAPSHOT_ERROR_PYTHON_OBJECTS, "BUILD");
  expect_error (inst, sizeof inst - 1, GML_SNAPSHOT_ERROR_PYTHON_OBJECTS, "INST");
  expect_error (obj, sizeof obj - 1, GML_SNAPSHOT_ERROR_PYTHON_OBJECTS, "OBJ");
  expect_error (newobj, sizeof newobj - 1, GML_SNAPSHOT_ERROR_PYTHON_OBJECTS, "NEWOBJ");
  expect_error (persid, sizeof persid - 1, GML_SNAPSHOT_ERROR_PYTHON_OBJECTS, "BINPERSID");
  expect_error (ext1, sizeof ext1 - 1, GML_SNAPSHOT_ERROR_PYTHON_OBJECTS, "EXT1");
  /* The message says nothing was run. */
  {
    g_autoptr(GError) error = NULL;

    g_assert_null (load (global, sizeof global - 1, &error));
    g_assert_nonnull (strstr (error->message, "nothing in it was executed"));
    g_assert_nonnull (strstr (error->message, "Byte 2"));
  }
}

static void
test_not_pickles (void)
{
  static const guint8 zip[] = "PK\x03\x04\x14\x00\x00\x00\x08\x00";
  static const guint8 text[] = "hello, world\n";
  static const guint8 json[] = "{\"segments\": []}";

  expect_error (zip, sizeof zip - 1, GML_SNAPSHOT_ERROR_NOT_PICKLE, "torch.save");
  expect_error (text, sizeof text - 1, GML_SNAPSHOT_ERROR_NOT_PICKLE, NULL);
  expect_error (json, sizeof json - 1, GML_SNAPSHOT_ERROR_NOT_PICKLE, NULL);
  expect_error ((const guint8 *) "", 0, GML_SNAPSHOT_ERROR_TRUNCATED, NULL);
}

static void
test_malformed (void)
{
  /* A memo reference to nothing. */
  static const guint8 bad_memo[] = "\x80\x02h\x05.";
  static const guint8 bad_long_memo[] = "\x80\x02j\xff\xff\xff\x7f.";
  /* Absurd lengths: past the end of the file, no allocation of them. */
  static const guint8 huge_unicode8[] = "\x80\x04\x8d\x00\x00\x00\x00\x00\x00\x00\x10xyz.";
  static const guint8 huge_bytes[] = "\x80\x04\x8e\xff\xff\xff\xff\xff\xff\xff\xffxyz.";
  static const guint8 huge_unicode[] = "\x80\x02X\xff\xff\xff\x7f" "abc.";
  static const guint8 huge_long4[] = "\x80\x02\x8b\xff\xff\xff\x7f.";
  /* Stack underflow, marks missing, STOP with two values. */
  static const guint8 underflow[] = "\x80\x02s.";
  static const guint8 no_mark[] = "\x80\x02]e.";
  static const guint8 two_values[] = "\x80\x02]].";
  /* A valid pickle of something else. */
  static const guint8 an_int[] = "\x80\x02K\x05.";
  static const guint8 other_dict[] = "\x80\x02}q\x00(X\x01\x00\x00\x00" "aK\x01u.";
  /* Wrong types where the layout needs a dict, a list, an integer. */
  static const guint8 segments_int[] = "\x80\x02}(X\x08\x00\x00\x00segmentsK\x01u.";
  static const guint8 segment_str[] = "\x80\x02}(X\x08\x00\x00\x00segments](X\x01\x00\x00\x00xeu.";
  static const guint8 addr_str[] =
    "\x80\x02}(X\x08\x00\x00\x00segments]X\x0d\x00\x00\x00" "device_traces]]}(X\x06\x00\x00\x00" "action"
    "X\x05\x00\x00\x00" "allocX\x04\x00\x00\x00" "addrX\x01\x00\x00\x00xuaau.";
  static const guint8 negative_size[] =
    "\x80\x02}(X\x08\x00\x00\x00segments]X\x0d\x00\x00\x00" "device_traces]]}(X\x06\x00\x00\x00" "action"
    "X\x05\x00\x00\x00" "allocX\x04\x00\x00\x00sizeJ\xff\xff\xff\xffuaau.";
  static const guint8 no_action[] =
    "\x80\x02}(X\x08\x00\x00\x00segments]X\x0d\x00\x00\x00" "device_traces]]}(X\x04\x00\x00\x00sizeK\x01uaau.";
  static const guint8 bad_utf8[] = "\x80\x02X\x02\x00\x00\x00\xc3\x28.";
  static const guint8 protocol_9[] = "\x80\x09}.";
  static const guint8 unknown_op[] = "\x80\x02\xfe.";
  static const guint8 next_buffer[] = "\x80\x05\x97.";

  expect_error (bad_memo, sizeof bad_memo - 1, GML_SNAPSHOT_ERROR_CORRUPT, "memo");
  expect_error (bad_long_memo, sizeof bad_long_memo - 1, GML_SNAPSHOT_ERROR_CORRUPT, "memo");
  expect_error (huge_unicode8, sizeof huge_unicode8 - 1, GML_SNAPSHOT_ERROR_TRUNCATED, NULL);
  expect_error (huge_bytes, sizeof huge_bytes - 1, GML_SNAPSHOT_ERROR_TRUNCATED, NULL);
  expect_error (huge_unicode, sizeof huge_unicode - 1, GML_SNAPSHOT_ERROR_TRUNCATED, NULL);
  expect_error (huge_long4, sizeof huge_long4 - 1, GML_SNAPSHOT_ERROR_TRUNCATED, NULL);
  expect_error (underflow, sizeof underflow - 1, GML_SNAPSHOT_ERROR_CORRUPT, NULL);
  expect_error (no_mark, sizeof no_mark - 1, GML_SNAPSHOT_ERROR_CORRUPT, "MARK");
  expect_error (two_values, sizeof two_values - 1, GML_SNAPSHOT_ERROR_CORRUPT, NULL);
  expect_error (an_int, sizeof an_int - 1, GML_SNAPSHOT_ERROR_NOT_SNAPSHOT, NULL);
  expect_error (other_dict, sizeof other_dict - 1, GML_SNAPSHOT_ERROR_NOT_SNAPSHOT, NULL);
  expect_error (segments_int, sizeof segments_int - 1, GML_SNAPSHOT_ERROR_WRONG_TYPE, "segments");
  expect_error (segment_str, sizeof segment_str - 1, GML_SNAPSHOT_ERROR_WRONG_TYPE, "segment");
  expect_error (addr_str, sizeof addr_str - 1, GML_SNAPSHOT_ERROR_WRONG_TYPE, "addr");
  expect_error (negative_size, sizeof negative_size - 1, GML_SNAPSHOT_ERROR_WRONG_TYPE, "size");
  expect_error (no_action, sizeof no_action - 1, GML_SNAPSHOT_ERROR_WRONG_TYPE, "action");
  expect_error (bad_utf8, sizeof bad_utf8 - 1, GML_SNAPSHOT_ERROR_CORRUPT, "UTF-8");
  expect_error (protocol_9, sizeof protocol_9 - 1, GML_SNAPSHOT_ERROR_UNSUPPORTED, NULL);
  expect_error (unknown_op, sizeof unknown_op - 1, GML_SNAPSHOT_ERROR_CORRUPT, NULL);
  expect_error (next_buffer, sizeof next_buffer - 1, GML_SNAPSHOT_ERROR_UNSUPPORTED, NULL);
}

/* Containers that hold themselves, as pickle.dumps() writes them for Python
 * objects that refer to themselves: a snapshot never does, and reading one
 * must not take a list apart while it is being filled (found by
 * fuzz-snapshot-check). */
static void
test_self_reference (void)
{
  /* blocks = []; blocks.append ({"size": 512, "state": "inactive", "frames": blocks}) */
  static const guint8 frames_are_blocks[] =
    "\x80\x02}q\x00X\x08\x00\x00\x00segmentsq\x01]q\x02}q\x03(X\x07\x00\x00\x00" "addressq\x04J\x00\x00\x10\x00"
    "X\x0a\x00\x00\x00total_sizeq\x05M\x00\x02X\x06\x00\x00\x00streamq\x06K\x00X\x0c\x00\x00\x00segment_typeq\x07"
    "X\x05\x00\x00\x00largeq\x08X\x06\x00\x00\x00" "blocksq\x09]q\x0a}q\x0b(X\x04\x00\x00\x00sizeq\x0cM\x00\x02"
    "X\x05\x00\x00\x00stateq\x0dX\x08\x00\x00\x00inactiveq\x0eX\x06\x00\x00\x00" "framesq\x0fh\x0auauas.";
  /* d = {}; d["segments"] = [d] */
  static const guint8 root_in_segments[] =
      "\x80\x02}q\x00X\x08\x00\x00\x00segmentsq\x01]q\x02h\x00" "as.";
  /* A segment whose "blocks" holds the segment. */
  static const guint8 segment_in_blocks[] =
    "\x80\x02}q\x00X\x08\x00\x00\x00segmentsq\x01]q\x02}q\x03(X\x07\x00\x00\x00" "addressq\x04J\x00\x00\x10\x00"
    "X\x0a\x00\x00\x00total_sizeq\x05M\x00\x02X\x06\x00\x00\x00streamq\x06K\x00X\x0c\x00\x00\x00segment_typeq\x07"
    "X\x05\x00\x00\x00largeq\x08X\x06\x00\x00\x00" "blocksq\x09]q\x0ah\x03" "auas.";

  expect_error (frames_are_blocks, sizeof frames_are_blocks - 1, GML_SNAPSHOT_ERROR_CORRUPT, NULL);
  expect_error (root_in_segments, sizeof root_in_segments - 1, GML_SNAPSHOT_ERROR_CORRUPT, NULL);
  expect_error (segment_in_blocks, sizeof segment_in_blocks - 1, GML_SNAPSHOT_ERROR_CORRUPT, NULL);
}

/* 100 000 nested lists, then 100 000 MARKs: no recursion, a clear error. */
static void
test_deep_nesting (void)
{
  const guint n = 100000;
  g_autoptr(GByteArray) data = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshot) snap = NULL;

  g_byte_array_append (data, (const guint8 *) "\x80\x04", 2);
  for (guint i = 0; i < n; i++)
    g_byte_array_append (data, (const guint8 *) "](", 2);
  for (guint i = 0; i < n; i++)
    g_byte_array_append (data, (const guint8 *) "e", 1);
  g_byte_array_append (data, (const guint8 *) ".", 1);
  snap = load (data->data, data->len, &error);
  g_assert_null (snap);
  g_assert_error (error, GML_SNAPSHOT_ERROR, GML_SNAPSHOT_ERROR_WRONG_TYPE);

  g_clear_error (&error);
  g_byte_array_set_size (data, 2);
  for (guint i = 0; i < n; i++)
    g_byte_array_append (data, (const guint8 *) "(", 1);
  snap = load (data->data, data->len, &error);
  g_assert_null (snap);
  g_assert_nonnull (error);
}

/* A file can only claim as much as it holds: a million-entry memo index in a
 * tiny file is refused, not allocated. */
static void
test_memory_bounded (void)
{
  static const guint8 far_put[] = "\x80\x02Nr\x00\x00\x00\x10.";

  expect_error (far_put, sizeof far_put - 1, GML_SNAPSHOT_ERROR_TOO_LARGE, "memo");
}

/* Shared and unshared frames, resolved to the user's own. */
static void
test_frames (void)
{
  g_autofree char *path = gml_test_require_fixture ("magma27_memory_snapshot.pickle");
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshot) snap = gml_snapshot_load (path, NULL, NULL, NULL, &error);
  const GmlSnapshotEntry *entries;
  gsize n;
  g_autofree char *where = NULL;
  g_autofree char *stack = NULL;

  g_assert_no_error (error);
  entries = gml_snapshot_get_entries (snap, 0, &n);
  g_assert_cmpuint (n, ==, 5163);
  /* The first entry: allocated in forward, model.py:54, called through torch's module.py. */
  where = gml_snapshot_describe_frames (snap, entries[0].frames);
  g_assert_cmpstr (where, ==, "model.py:54 forward");
  /* The user's frames, innermost first; torch's four only counted. */
  stack = gml_snapshot_format_stack (snap, entries[0].frames, 3);
  g_assert_cmpstr (stack, ==, "model.py:54 forward\nmodel.py:245 forward\n"
                              "benchmarking_script.py:65 <module>\n"
                              "… and 4 frames inside PyTorch (C++ and Python)");
}

static void
append_text (GByteArray *data,
             const char *text)
{
  guint8 head[5] = { 'X', (guint8) strlen (text), 0, 0, 0 };

  g_byte_array_append (data, head, sizeof head);
  g_byte_array_append (data, (const guint8 *) text, strlen (text));
}

/* Two trace entries whose frame lists are filled in turns, one frame each,
 * through the memo. PyTorch never writes that; a hostile file may, and it
 * once cost memory and time in the square of the lists' length (20 000
 * turns: 1.5 GB and 9 s). */
static void
test_frames_in_turns (void)
{
  const guint n = 20000;
  g_autoptr(GByteArray) data = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshot) snap = NULL;
  const GmlSnapshotEntry *entries;
  const guint32 *ids;
  gsize n_entries;
  guint n_frames;
  clock_t start;

  g_byte_array_append (data, (const guint8 *) "\x80\x02}q\x00(", 6);
  append_text (data, "device_traces");
  g_byte_array_append (data, (const guint8 *) "]q\x01]q\x02}q\x03", 9);      /* [[{ */
  append_text (data, "action");
  append_text (data, "alloc");
  g_byte_array_append (data, (const guint8 *) "s", 1);
  append_text (data, "frames");
  g_byte_array_append (data, (const guint8 *) "]q\x04}q\x05(", 7);          /* list 4, a frame */
  append_text (data, "filename");
  append_text (data, "model.py");
  append_text (data, "line");
  g_byte_array_append (data, (const guint8 *) "K\x07", 2);
  append_text (data, "name");
  append_text (data, "forward");
  g_byte_array_append (data, (const guint8 *) "ua", 2);                      /* frame 5 into list 4
                                                                              */
  g_byte_array_append (data, (const guint8 *) "h\x02}q\x06", 5);            /* a second entry */
  append_text (data, "action");
  append_text (data, "alloc");
  g_byte_array_append (data, (const guint8 *) "s", 1);
  append_text (data, "frames");
  g_byte_array_append (data, (const guint8 *) "]q\x07h\x05" "a", 6);         /* list 7 */
  for (guint i = 0; i < n; i++)
    g_byte_array_append (data, (const guint8 *) "h\x04h\x05" "a0h\x07h\x05" "a0", 12);
  g_byte_array_append (data, (const guint8 *) "sa0saau.", 8);

  start = clock ();
  snap = load (data->data, data->len, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat ((double) (clock () - start) / CLOCKS_PER_SEC, <, 1.0);
  entries = gml_snapshot_get_entries (snap, 0, &n_entries);
  g_assert_cmpuint (n_entries, ==, 2);
  for (guint e = 0; e < 2; e++)
    {
      ids = gml_snapshot_get_frame_list (snap, entries[e].frames, &n_frames);
      g_assert_cmpuint (n_frames, ==, n + 1);
      for (guint i = 0; i < n_frames; i++)
        g_assert_cmpuint (ids[i], ==, ids[0]);
      g_assert_cmpint (gml_snapshot_get_frame (snap, ids[0])->line, ==, 7);
    }
}

/* Cancelling a load stops it with its own error. */
static void
test_cancel (void)
{
  g_autofree char *dir = gml_test_make_tmp_dir ("gml-reader-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "small.pickle", NULL);
  /* pickle.dumps({'segments': [], 'device_traces': [[]]}, protocol=2) */
  static const char small[] = "\x80\x02}q\x00(X\x08\x00\x00\x00" "segmentsq\x01]q\x02"
                              "X\x0d\x00\x00\x00" "device_tracesq\x03]q\x04]q\x05" "au.";
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshot) snap = NULL;

  g_assert_true (g_file_set_contents (path, small, sizeof small - 1, NULL));
  /* The file is good: only the cancellable stops it. */
  snap = gml_snapshot_load (path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (snap);
  g_cancellable_cancel (cancellable);
  g_assert_null (gml_snapshot_load (path, NULL, NULL, cancellable, &error));
  g_assert_error (error, GML_SNAPSHOT_ERROR, GML_SNAPSHOT_ERROR_CANCELLED);
  gml_test_remove_tree (dir);
}

/* The messages are translated. */
static void
test_turkish (void)
{
  static const guint8 global[] = "\x80\x02" "cos\nsystem\n.";
  g_autoptr(GError) error = NULL;
  const char *saved = gml_i18n_push_language ("tr");

  g_assert_null (load (global, sizeof global - 1, &error));
  gml_i18n_pop_language (saved);
  g_assert_nonnull (error);
  /* Not the English sentence: the Turkish catalogue answered. */
  g_assert_null (strstr (error->message, "this file holds Python objects"));
  g_assert_nonnull (strstr (error->message, "GLOBAL"));
}

int
main (int    argc,
      char **argv)
{
  gml_test_set_locale (&argc, &argv);
  gml_i18n_init ();
  /* Messages are compared in English; the Turkish run checks that nothing
   * else depends on the locale, and test_turkish() the translations. */
  gml_i18n_set_language ("en");
  g_test_init (&argc, &argv, NULL);

  /* The real snapshot is its own meson test, skipped where the fixtures are not. */
  if (argc == 2 && g_str_equal (argv[1], "--real"))
    {
      g_test_add_func ("/snapshot/reader/frames", test_frames);
      return g_test_run ();
    }
  g_test_add_func ("/snapshot/reader/small", test_small);
  g_test_add_func ("/snapshot/reader/truncated-everywhere", test_truncated_everywhere);
  g_test_add_func ("/snapshot/reader/python-objects", test_python_objects);
  g_test_add_func ("/snapshot/reader/not-pickles", test_not_pickles);
  g_test_add_func ("/snapshot/reader/malformed", test_malformed);
  g_test_add_func ("/snapshot/reader/self-reference", test_self_reference);
  g_test_add_func ("/snapshot/reader/deep-nesting", test_deep_nesting);
  g_test_add_func ("/snapshot/reader/memory-bounded", test_memory_bounded);
  g_test_add_func ("/snapshot/reader/frames-in-turns", test_frames_in_turns);
  g_test_add_func ("/snapshot/reader/cancel", test_cancel);
  g_test_add_func ("/snapshot/reader/turkish", test_turkish);
  return g_test_run ();
}

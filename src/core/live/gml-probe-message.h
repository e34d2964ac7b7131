/* gml-probe-message.h — the messages of the live probe (data/python/gml_probe.py).
 *
 * The probe runs inside a PyTorch program and talks to the lab over a Unix
 * socket, one JSON object a line, each with "v" (the protocol version) and
 * "type". What arrives is untrusted, like any file: every line is bounded,
 * nested no deeper than a message can be, checked member by member, and a
 * malformed one is refused with a sentence that says what is wrong. Both
 * `gpu-memory-lab watch` and the app's Live view read messages through
 * gml_probe_message_parse().
 *
 * Protocol version 1, probe → lab:
 *
 *   hello    pid, torch, device, devices, device_name, total_bytes, argv,
 *            watched (another lab already watches this probe)
 *   update   time, device, allocated_bytes, reserved_bytes, active_bytes,
 *            segments, allocations, trace_entries (the count so far), gap
 *            (entries were lost before these), entries: [[action, addr, size,
 *            stream, time_us], …] (the trace entries new since the last update)
 *   entries  entries: more new trace entries, sent before the update they belong to
 *   state    time, device, trace_entries (that of the update it follows),
 *            segments: [[address, total_size, stream, "small"|"large",
 *            expandable, [[size, requested_size, "a"|"i"|"p"], …]], …] or
 *            omitted: true (too many blocks to send)
 *   oom      time, device, size, device_free, device_total, allocated_bytes,
 *            reserved_bytes, snapshot (the saved file's path, or null)
 *   error    message
 *   bye
 *   dump-begin id, bytes     a snapshot pickle follows, in dump-data pieces
 *   dump-data  id, data      base64, at most GML_PROBE_MAX_DUMP_CHUNK bytes decoded
 *   dump-end   id
 *   dump-failed id, message
 *
 * lab → probe (gml_probe_request_*): watch (start sending; "state": true asks
 * for state messages, "oom_snapshot": true for the bytes of the snapshot saved
 * at an out-of-memory error, sent as dump 0 right after the oom message), dump
 * (id ≥ 1: a pickle of torch.cuda.memory._snapshot() now).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define GML_PROBE_PROTOCOL          1

/* The longest line the lab reads: a state of 200 000 blocks is about 5 MB. */
#define GML_PROBE_MAX_LINE          ((gsize) 16 << 20)
#define GML_PROBE_MAX_ENTRIES       50000      /* per update or entries message */
#define GML_PROBE_MAX_SEGMENTS      100000
#define GML_PROBE_MAX_BLOCKS        500000     /* in one state */
#define GML_PROBE_MAX_DUMP_CHUNK    ((gsize) 1 << 20)
#define GML_PROBE_MAX_DUMP_BYTES    ((guint64) 16 << 30)
#define GML_PROBE_MAX_STRING        4096       /* names, versions, one argument */
#define GML_PROBE_MAX_MESSAGE_TEXT  65536      /* an error's text, a file's path */
#define GML_PROBE_MAX_ARGV          64
#define GML_PROBE_MAX_DEVICES       1024
/* A program that sends more refused lines than this is not a probe. */
#define GML_PROBE_MAX_BAD_LINES     100

#define GML_PROBE_ERROR (gml_probe_error_quark ())

typedef enum
{
  GML_PROBE_ERROR_ENCODING,    /* not UTF-8 */
  GML_PROBE_ERROR_SYNTAX,      /* not JSON, or nested too deep */
  GML_PROBE_ERROR_VERSION,
  GML_PROBE_ERROR_TYPE,        /* no type, or one this lab does not know */
  GML_PROBE_ERROR_MEMBER,      /* a member missing or of the wrong kind */
  GML_PROBE_ERROR_TOO_LARGE,   /* more entries, blocks or bytes than the limits */
} GmlProbeError;

typedef enum
{
  GML_PROBE_HELLO,
  GML_PROBE_UPDATE,
  GML_PROBE_ENTRIES,
  GML_PROBE_STATE,
  GML_PROBE_OOM,
  GML_PROBE_ERROR_MESSAGE,
  GML_PROBE_BYE,
  GML_PROBE_DUMP_BEGIN,
  GML_PROBE_DUMP_DATA,
  GML_PROBE_DUMP_END,
  GML_PROBE_DUMP_FAILED,
} GmlProbeMessageType;

/* A trace entry as the probe sends it; action is a GmlSnapshotAction. */
typedef struct
{
  guint64 addr;               /* oom: the device's free bytes */
  guint64 size;
  guint64 stream;             /* the raw cudaStream_t */
  gint64  time_us;
  guint8  action;
} GmlProbeEntry;

typedef struct
{
  guint64 size;
  guint64 requested_size;
  guint8  state;              /* GmlSnapshotBlockState */
} GmlProbeBlock;

typedef struct
{
  guint64 address;
  guint64 total_size;
  guint64 stream;
  guint32 first_block;        /* into the message's blocks */
  guint32 n_blocks;
  guint8  small;
  guint8  expandable;
} GmlProbeSegment;

typedef struct
{
  GmlProbeMessageType type;
  double    time;             /* seconds since the probe started; 0 when absent */
  guint     device;

  /* hello */
  gint64    pid;
  char     *torch_version;
  guint     n_devices;
  char     *device_name;
  guint64   total_bytes;
  char    **argv;
  gboolean  watched;

  /* update (the figures of torch.cuda.memory_stats()) */
  guint64   allocated_bytes;
  guint64   reserved_bytes;
  guint64   active_bytes;
  guint64   segments;
  guint64   allocations;
  guint64   trace_entries;
  gboolean  gap;
  GArray   *entries;          /* GmlProbeEntry: update, entries */

  /* state */
  gboolean  omitted;
  GArray   *state_segments;   /* GmlProbeSegment, address order */
  GArray   *state_blocks;     /* GmlProbeBlock, segment by segment, each segment's from its address
                               */

  /* oom (allocated_bytes and reserved_bytes above) */
  guint64   size;
  guint64   device_free;
  guint64   device_total;
  char     *snapshot;         /* may be NULL */

  /* error, dump-failed */
  char     *message;

  /* dump-* */
  guint64   id;
  guint64   bytes;            /* dump-begin */
  GBytes   *data;             /* dump-data, decoded */
} GmlProbeMessage;

GQuark           gml_probe_error_quark       (void);

/* One line, without its newline. NULL and @error when it is refused; an empty
 * line is refused too (the caller may skip those before). */
GmlProbeMessage *gml_probe_message_parse     (const char      *line,
                                              gsize            length,
                                              GError         **error);
void             gml_probe_message_free      (GmlProbeMessage *message);
const char      *gml_probe_message_type_to_string (GmlProbeMessageType type);

/* Requests to the probe, each one line with its newline. */
char            *gml_probe_request_watch     (gboolean         state,
                                              gboolean         oom_snapshot);
char            *gml_probe_request_dump      (guint64          id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlProbeMessage, gml_probe_message_free)

G_END_DECLS

/* gml-snapshot.h — PyTorch memory snapshots, read without running anything.
 *
 * A snapshot is what torch.cuda.memory._dump_snapshot() writes: a pickle of a
 * dict with the allocator's segments at the moment of the dump and, per
 * device, the ring buffer of trace entries that led there. The reader
 * understands the small part of the pickle format such a file uses and
 * refuses every instruction that would build a Python object, so a foreign
 * pickle (a model checkpoint opened by mistake) is reported, never run.
 *
 * The file is streamed into compact arrays as it is read: trace entries
 * become fixed-size records, strings are interned, frames and frame lists
 * are stored once however often the file shares them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define GML_SNAPSHOT_ERROR (gml_snapshot_error_quark ())

typedef enum
{
  GML_SNAPSHOT_ERROR_NOT_PICKLE,      /* not a pickle at all (or a ZIP archive) */
  GML_SNAPSHOT_ERROR_PYTHON_OBJECTS,  /* GLOBAL, REDUCE, …: refused, nothing was run */
  GML_SNAPSHOT_ERROR_TRUNCATED,       /* the file ends inside the pickle */
  GML_SNAPSHOT_ERROR_CORRUPT,         /* a malformed instruction or stack */
  GML_SNAPSHOT_ERROR_UNSUPPORTED,     /* a valid instruction a snapshot never uses */
  GML_SNAPSHOT_ERROR_WRONG_TYPE,      /* a value of the wrong type where the layout needs one */
  GML_SNAPSHOT_ERROR_TOO_LARGE,       /* a length or count beyond what the file can hold */
  GML_SNAPSHOT_ERROR_NOT_SNAPSHOT,    /* a valid pickle of something else */
  GML_SNAPSHOT_ERROR_IO,              /* the file could not be read */
  GML_SNAPSHOT_ERROR_CANCELLED,
} GmlSnapshotError;

typedef enum
{
  GML_SNAP_ALLOC,
  GML_SNAP_FREE_REQUESTED,
  GML_SNAP_FREE_COMPLETED,
  GML_SNAP_SEGMENT_ALLOC,
  GML_SNAP_SEGMENT_FREE,
  GML_SNAP_SEGMENT_MAP,       /* expandable segments: pages mapped */
  GML_SNAP_SEGMENT_UNMAP,
  GML_SNAP_SNAPSHOT,          /* a snapshot was taken (no change) */
  GML_SNAP_OOM,               /* addr holds the device's free bytes */
  GML_SNAP_OTHER,             /* an action this reader does not know ("annotate", …) */
  GML_N_SNAP_ACTIONS
} GmlSnapshotAction;

typedef enum
{
  GML_SNAP_BLOCK_INACTIVE,        /* free, cached */
  GML_SNAP_BLOCK_ALLOCATED,       /* "active_allocated" */
  GML_SNAP_BLOCK_PENDING_FREE,    /* "active_pending_free" / "active_awaiting_free" */
  GML_SNAP_BLOCK_UNKNOWN,         /* a state string this reader does not know */
} GmlSnapshotBlockState;

/* One trace entry: 40 bytes, so four million of them take 160 MB. */
#define GML_SNAPSHOT_MAX_STREAMS 65536

typedef struct
{
  guint64 addr;               /* oom: device_free */
  guint64 size;               /* alloc/free: the requested size; segments: the segment size */
  gint64  time_us;            /* 0 when the file has none (PyTorch 2.0, 2.1) */
  guint32 frames;             /* frame list id, 0 = no stack recorded */
  union
  {
    guint32 compile_context;  /* string id, 0 = absent */
    guint32 name;             /* GML_SNAP_OTHER: the action's name instead (string id) */
  };
  guint32 user_metadata;      /* string id, 0 = absent */
  guint16 stream;             /* index into the stream table (0, 1, 2… in order of appearance) */
  guint8  action;             /* GmlSnapshotAction */
} GmlSnapshotEntry;

typedef struct
{
  guint64 address;
  guint64 size;
  guint64 requested_size;
  guint32 frames;             /* frame list id, 0 = none */
  guint8  state;              /* GmlSnapshotBlockState */
} GmlSnapshotBlock;

typedef struct
{
  guint64 address;
  guint64 total_size;
  guint64 allocated_size;
  guint64 active_size;
  guint64 requested_size;
  gint64  pool_id[2];         /* segment_pool_id; (0, 0) = the default pool */
  guint32 stream;             /* index into the stream table */
  guint32 frames;
  guint32 first_block;        /* index into the device's block array */
  guint32 n_blocks;
  gint32  device;
  guint8  small;              /* segment_type "small" */
  guint8  expandable;         /* is_expandable */
} GmlSnapshotSegment;

typedef struct
{
  guint32 filename;           /* string ids */
  guint32 name;
  gint32  line;
} GmlSnapshotFrame;

typedef struct
{
  guint32 name;               /* string id */
  guint32 stage;              /* string id: "START" / "END" */
  gint32  device;
  gint64  time_us;
} GmlSnapshotAnnotation;

/* allocator_settings, where the file has them (PyTorch 2.3 and later). */
typedef struct
{
  gboolean present;
  char    *alloc_conf;                    /* PYTORCH_CUDA_ALLOC_CONF, or NULL */
  gint64   max_split_size;                /* -1 = unlimited */
  double   garbage_collection_threshold;
  gboolean expandable_segments;
  guint64  roundup_power2_divisions[16];  /* by power of two of the key: "1" … "32768" */
  gboolean has_roundup;
} GmlSnapshotSettings;

/* Which keys were seen: what tells the PyTorch version a file came from. */
typedef enum
{
  GML_SNAP_SEEN_TIME_US          = 1 << 0,   /* trace entries: 2.2+ */
  GML_SNAP_SEEN_COMPILE_CONTEXT  = 1 << 1,   /* 2.8+ */
  GML_SNAP_SEEN_USER_METADATA    = 1 << 2,   /* 2.10+ */
  GML_SNAP_SEEN_SETTINGS         = 1 << 3,   /* 2.3+ */
  GML_SNAP_SEEN_ANNOTATIONS      = 1 << 4,   /* 2.5+ */
  GML_SNAP_SEEN_SEGMENT_FRAMES   = 1 << 5,   /* segments with frames / is_expandable: 2.1+ */
  GML_SNAP_SEEN_BLOCK_HISTORY    = 1 << 6,   /* 2.0 layout: history on blocks */
  GML_SNAP_SEEN_BARE_LIST        = 1 << 7,   /* the file is a bare list of segments */
  GML_SNAP_SEEN_BLOCK_ADDRESS    = 1 << 8,   /* blocks carry their address: 2.1+ */
} GmlSnapshotSeen;

typedef struct _GmlSnapshot GmlSnapshot;

/* Called now and then while a file is read: bytes read so far and in all. */
typedef void (*GmlSnapshotProgressFunc) (guint64  done,
                                         guint64  total,
                                         gpointer user_data);

GQuark              gml_snapshot_error_quark        (void);

GmlSnapshot        *gml_snapshot_load               (const char              *path,
                                                     GmlSnapshotProgressFunc  progress,
                                                     gpointer                 user_data,
                                                     GCancellable            *cancellable,
                                                     GError                 **error);
GmlSnapshot        *gml_snapshot_load_data          (const guint8            *data,
                                                     gsize                    length,
                                                     GError                 **error);
void                gml_snapshot_free               (GmlSnapshot             *self);

guint               gml_snapshot_get_protocol       (GmlSnapshot             *self);
guint               gml_snapshot_get_seen           (GmlSnapshot             *self);
/* Devices: the larger of the number of trace lists and the highest segment
 * device + 1. The default: the device of the first out-of-memory error, else
 * the one with the most trace entries, else the first with segments. */
guint               gml_snapshot_get_n_devices      (GmlSnapshot             *self);
guint               gml_snapshot_get_default_device (GmlSnapshot             *self);
/* The oom entries in @device's trace. */
guint               gml_snapshot_get_n_device_ooms  (GmlSnapshot             *self,
                                                     guint                    device);

const GmlSnapshotEntry   *gml_snapshot_get_entries  (GmlSnapshot             *self,
                                                     guint                    device,
                                                     gsize                   *n_entries);
/* The segments of @device at the end, in address order, and their blocks. */
const GmlSnapshotSegment *gml_snapshot_get_segments (GmlSnapshot             *self,
                                                     guint                    device,
                                                     gsize                   *n_segments);
const GmlSnapshotBlock   *gml_snapshot_get_blocks   (GmlSnapshot             *self,
                                                     guint                    device,
                                                     gsize                   *n_blocks);
const GmlSnapshotAnnotation *gml_snapshot_get_annotations (GmlSnapshot       *self,
                                                           gsize             *n);
const GmlSnapshotSettings *gml_snapshot_get_settings (GmlSnapshot            *self);

/* Strings and frames; id 0 is "none" (NULL, or a frame list of length 0). */
const char         *gml_snapshot_get_string         (GmlSnapshot             *self,
                                                     guint32                  id);
/* A frame list's frame ids, innermost call first. */
const guint32      *gml_snapshot_get_frame_list     (GmlSnapshot             *self,
                                                     guint32                  id,
                                                     guint                   *n_frames);
const GmlSnapshotFrame *gml_snapshot_get_frame      (GmlSnapshot             *self,
                                                     guint32                  frame_id);
guint64             gml_snapshot_get_stream         (GmlSnapshot             *self,
                                                     guint32                  index);
guint               gml_snapshot_get_n_streams      (GmlSnapshot             *self);

const char         *gml_snapshot_action_to_string   (GmlSnapshotAction        action);
const char         *gml_snapshot_block_state_to_string (GmlSnapshotBlockState state);
/* The entry's action name, also for actions this reader does not know. */
const char         *gml_snapshot_entry_action_name  (GmlSnapshot             *self,
                                                     const GmlSnapshotEntry  *entry);

/* Whose code a frame is: the user's own, an installed library's (or
 * Python's standard library), or PyTorch's and C++ (the interpreter's too). */
typedef enum
{
  GML_SNAP_FRAME_GROUP_USER,
  GML_SNAP_FRAME_GROUP_LIBRARY,
  GML_SNAP_FRAME_GROUP_INTERNAL,
} GmlSnapshotFrameGroup;

GmlSnapshotFrameGroup gml_snapshot_get_frame_group (GmlSnapshot           *self,
                                                    guint32                frame_id);
/* "model.py:54 forward" for Python, the name without its parameters for C++
 * ("MeanBackward0::apply"); NULL for no frame. Not translated. */
char               *gml_snapshot_format_frame       (GmlSnapshot             *self,
                                                     guint32                  frame_id);
/* The frame of a frame list that names the user's line: the innermost Python
 * frame outside torch and installed libraries, else outside torch, else any
 * Python frame, else an autograd node, else the first C++ frame past
 * PyTorch's stack capture (see gml-snapshot-frames.c); 0 without frames. */
guint32             gml_snapshot_get_where_frame    (GmlSnapshot             *self,
                                                     guint32                  frames);
/* That frame in words ("model.py:54 forward"); NULL without frames. */
char               *gml_snapshot_describe_frames    (GmlSnapshot             *self,
                                                     guint32                  frames);
/* The user's frames, then the libraries' (innermost first, at most
 * @max_frames in all), one a line; PyTorch's frames are counted, not listed. */
char               *gml_snapshot_format_stack       (GmlSnapshot             *self,
                                                     guint32                  frames,
                                                     guint                    max_frames);
/* A sentence naming the PyTorch versions whose snapshots look like this one
 * (from the keys the file has), untranslated, for JSON and logs. */
/* English, for JSON; describe_version() is its translation. */
const char         *gml_snapshot_get_version_text   (GmlSnapshot             *self);
char               *gml_snapshot_describe_version   (GmlSnapshot             *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlSnapshot, gml_snapshot_free)

G_END_DECLS

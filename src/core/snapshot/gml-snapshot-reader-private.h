/* gml-snapshot-reader-private.h — what the snapshot reader's two files share.
 *
 * gml-snapshot-reader.c is the pickle machine: its input, stack, memo and
 * generic containers, and the streaming that sends each appended item where
 * the snapshot's layout says it goes. gml-snapshot-reader-records.c turns the
 * snapshot's dicts (segments, blocks, trace entries, frames, settings, the
 * root) into records. Both see the machine's state through the types here;
 * nothing outside the reader includes this file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-i18n.h"
#include "gml-snapshot-private.h"

G_BEGIN_DECLS

/* ------------------------------------------------------------------------- */
/* Values                                                                    */

typedef enum
{
  VT_INVALID,     /* an empty memo slot */
  VT_NONE,
  VT_BOOL,
  VT_INT,
  VT_FLOAT,
  VT_STR,         /* h: string id */
  VT_BYTES,
  VT_OBJ,         /* h: object index, v.o.gen: its generation, v.o.memo: memo slot + 1 */
  VT_FRAME,       /* a frame dict already read: h = frame id */
  VT_FRAMES,      /* a frame list already read: h = frame list id */
  VT_CONSUMED,    /* a container already turned into records */
} ValueType;

#define INT_U64 1   /* v.u holds a value of 2^63 or more */
#define INT_BIG 2   /* the value does not fit in 64 bits */

typedef struct
{
  guint8  type;
  guint8  flags;
  guint32 h;
  union
  {
    gint64  i;
    guint64 u;
    double  f;
    struct
    {
      guint32 gen;
      guint32 memo;   /* the memo slot this reference was stored in, + 1; 0 = none */
    } o;
  } v;
} Value;

typedef enum
{
  KIND_LIST,
  KIND_DICT,
  KIND_TUPLE,
  KIND_SET,
  KIND_FORWARD,   /* read into records: stands for its typed value (fwd_*) */
} ObjKind;

/* Where a container sits in a snapshot. */
typedef enum
{
  CTX_UNKNOWN,
  CTX_ROOT,
  CTX_SEGMENTS,
  CTX_SEGMENT,
  CTX_BLOCKS,
  CTX_BLOCK,
  CTX_HISTORY,
  CTX_HISTORY_ITEM,
  CTX_FRAMES,
  CTX_FRAME,
  CTX_DEVICE_TRACES,
  CTX_TRACE,
  CTX_ENTRY,
  CTX_SETTINGS,
  CTX_ANNOTATIONS,
  CTX_ANNOTATION,
} Ctx;

typedef struct
{
  Value   *items;
  gpointer typed;       /* records already taken out of its items (by ctx) */
  guint64  offset;      /* where the instruction that made it starts */
  guint32  len;
  guint32  cap;
  guint32  gen;
  guint32  memo;        /* the last memo slot that holds it, G_MAXUINT32 = none */
  guint32  fwd_id;      /* KIND_FORWARD: the frame or frame list it became */
  guint32  frames_first; /* a frame list: its frame ids so far, in the snapshot's frame_items */
  guint32  frames_count;
  GArray  *frames_own;  /* … or here, once another list was read after it (guint32) */
  guint8   fwd_type;
  guint8   kind;
  guint8   ctx;
  guint8   live;
  guint8   busy;        /* being read or filled: cannot be taken apart now */
} Obj;

/* A block read from a segment before its segment is complete. */
typedef struct
{
  GmlSnapshotBlock block;
  gboolean         has_address;
} PendingBlock;

/* One entry of a PyTorch 2.0 block's history. */
typedef struct
{
  guint64 addr;
  guint64 real_size;
  guint32 frames;
} HistoryItem;

typedef struct
{
  GmlSnapshotSegment segment;
  GArray            *blocks;   /* PendingBlock */
} PendingSegment;

/* ------------------------------------------------------------------------- */
/* The reader                                                                */

#define N_ITEM_CLASSES 5      /* free lists of item arrays of 4, 8, 16, 32, 64 values */
#define ITEM_POOL_SIZE 4096   /* arrays kept per class */
#define READ_CHUNK     ((gsize) 4 << 20)
#define MEMO_CHUNK_BITS 19
#define MEMO_CHUNK     ((gsize) 1 << MEMO_CHUNK_BITS)   /* 2 MiB of cells */

/* The memo holds one 32-bit cell per slot: most of what a snapshot memoizes
 * is a string, a frame, a frame list, a list or dict being read or a trace
 * entry already read, and a cell says which in its low three bits and gives
 * its id above them. A container's cell names the object; it still holds it
 * while the object is live and was last memoized there (o->memo), which is
 * what the generation in a value says. Any other value (a number a foreign
 * pickle memoized) lives in the overflow, a slot the cell points to, given
 * back when the cell is written again: a 4 million-entry trace memoizes some
 * 12 million things, and 16-byte slots were 190 MB of pages to touch. */
enum
{
  CELL_INVALID,       /* never stored */
  CELL_STR,
  CELL_FRAME,
  CELL_FRAMES,
  CELL_CONSUMED,
  CELL_NONE,
  CELL_OVERFLOW,      /* payload: an index into memo_overflow */
  CELL_OBJ,           /* payload: an index into objs */
};
#define CELL_BITS        3
#define CELL_MASK        ((1u << CELL_BITS) - 1)
#define CELL_MAX_PAYLOAD ((guint32) (G_MAXUINT32 >> CELL_BITS))
#define HUGE_FILE      ((guint64) 32 << 20)   /* from here, big arrays ask for huge pages */
#define PROGRESS_EVERY ((guint64) 4 << 20)

typedef enum
{
  K_SEGMENTS, K_DEVICE_TRACES, K_ALLOCATOR_SETTINGS, K_EXTERNAL_ANNOTATIONS,
  K_DEVICE, K_ADDRESS, K_TOTAL_SIZE, K_ALLOCATED_SIZE, K_ACTIVE_SIZE, K_REQUESTED_SIZE,
  K_STREAM, K_SEGMENT_TYPE, K_SEGMENT_POOL_ID, K_IS_EXPANDABLE, K_FRAMES, K_BLOCKS,
  K_SIZE, K_STATE, K_HISTORY, K_ADDR, K_REAL_SIZE, K_ACTION, K_TIME_US, K_COMPILE_CONTEXT,
  K_USER_METADATA, K_DEVICE_FREE, K_FILENAME, K_LINE, K_NAME, K_STAGE,
  K_CONF, K_MAX_SPLIT_SIZE, K_GC_THRESHOLD, K_EXPANDABLE_SEGMENTS, K_ROUNDUP,
  K_SMALL, K_LARGE,
  K_ACTIVE_ALLOCATED, K_INACTIVE, K_ACTIVE_PENDING_FREE, K_ACTIVE_AWAITING_FREE,
  K_A_ALLOC, K_A_FREE_REQUESTED, K_A_FREE_COMPLETED, K_A_SEGMENT_ALLOC, K_A_SEGMENT_FREE,
  K_A_SEGMENT_MAP, K_A_SEGMENT_UNMAP, K_A_SNAPSHOT, K_A_OOM,
  K_CONF_NEW,
  N_KEYS
} Key;


typedef struct
{
  GmlSnapshot  *snap;

  /* Input: a window on the file (or the whole buffer given). */
  int           fd;
  guint8       *buf;
  gsize         buf_size;
  gsize         len;          /* valid bytes in buf */
  gsize         pos;          /* next byte in buf */
  guint64       base;         /* file offset of buf[0] */
  guint64       total;        /* file size */
  gboolean      owns_buf;
  guint64       op_offset;    /* where the current instruction starts */

  GmlSnapshotProgressFunc progress;
  gpointer      progress_data;
  GCancellable *cancellable;
  guint64       next_progress;

  /* The machine. */
  Value        *stack;
  gsize         sp;
  gsize         stack_cap;
  gsize        *marks;
  gsize         n_marks;
  gsize         marks_cap;
  guint32     **memo_chunks;  /* the memo, MEMO_CHUNK cells a chunk: it never moves */
  gsize         n_memo_chunks;
  gsize         memo_len;
  GArray       *memo_overflow;     /* Value: what a cell cannot hold */
  guint32      *overflow_free;     /* overflow slots given back */
  gsize         n_overflow_free;
  gsize         overflow_free_cap;

  GArray       *objs;         /* Obj */
  guint32      *free_objs;    /* indices of objs given back */
  gsize         n_free_objs;
  gsize         free_objs_cap;
  Value       **item_pool[N_ITEM_CLASSES];   /* ITEM_POOL_SIZE each */
  guint         n_pooled[N_ITEM_CLASSES];
  gsize         n_items;      /* live generic values, for the cap */

  /* Caps, from the file's size. */
  gsize         max_stack;
  gsize         max_memo;
  gsize         max_items;
  gsize         max_objs;

  guint32       keys[N_KEYS];
  guint8        key_by_id[N_KEYS + 1];   /* string id → Key (the keys are interned first) */
  guint32       n_key_ids;
  gboolean      stopped;
  gboolean      trace_reserved;   /* a trace's records were reserved room */
  Value         result;
} Reader;

extern const char * const _gml_reader_key_names[N_KEYS];

/* gml-snapshot-reader.c */
void _gml_reader_obj_release (Reader *r, Obj *o, const Value *replacement);
void _gml_reader_obj_forward (Reader *r, Obj *o, const Value *replacement);
gboolean _gml_reader_obj_claim (Reader *r, Obj *o, GError **error);
void _gml_reader_clear_pending_segment (gpointer data);
void _gml_reader_clear_array_pointer (gpointer data);
GArray *_gml_reader_records_new (gsize record_size, GDestroyNotify clear);
gboolean _gml_reader_obj_append_slow (Reader *r, Obj *o, const Value *v, GError **error);
gboolean _gml_reader_push_slow (Reader *r, const Value *v, GError **error);

/* gml-snapshot-reader-records.c */
gboolean _gml_reader_read_frame (Reader *r, const Value *v, guint32 *frame_id, GError **error);
gboolean _gml_reader_frames_from_value (Reader *r, const Value *v, guint32 *id, GError **error);
gboolean _gml_reader_read_history_item (Reader *r, const Value *v, GArray *out, GError **error);
gboolean _gml_reader_read_block (Reader *r, const Value *v, GArray *out, GError **error);
gboolean _gml_reader_read_segment (Reader *r, const Value *v, GArray *out, GError **error);
gboolean _gml_reader_read_entry (Reader *r, const Value *v, GArray *out, GError **error);
gboolean _gml_reader_read_trace (Reader *r, const Value *v, GArray *out, GError **error);
gboolean _gml_reader_read_annotation (Reader *r, const Value *v, GArray *out, GError **error);
gboolean _gml_reader_read_root (Reader *r, const Value *v, GError **error);

static inline guint32 *
memo_cell (Reader *r,
           gsize   index)
{
  return &r->memo_chunks[index >> MEMO_CHUNK_BITS][index & (MEMO_CHUNK - 1)];
}

static const guint8 cell_types[] = {
  [CELL_INVALID] = VT_INVALID, [CELL_STR] = VT_STR, [CELL_FRAME] = VT_FRAME,
  [CELL_FRAMES] = VT_FRAMES, [CELL_CONSUMED] = VT_CONSUMED, [CELL_NONE] = VT_NONE,
  [CELL_OBJ] = VT_OBJ,
};

/* The value in memo slot @index (below memo_len). */
static inline void
memo_load (Reader *r,
           gsize   index,
           Value  *out)
{
  guint32 cell = *memo_cell (r, index);
  guint32 h = cell >> CELL_BITS;

  switch (cell & CELL_MASK)
    {
    case CELL_OVERFLOW:
      *out = g_array_index (r->memo_overflow, Value, h);
      return;
    case CELL_OBJ:
      {
        const Obj *o = &g_array_index (r->objs, Obj, h);

        /* Another generation than the object's, once it is not held here. */
        *out = (Value) { VT_OBJ, 0, h, { 0 } };
        out->v.o.gen = o->live && o->memo == index ? o->gen : o->gen + 1;
        out->v.o.memo = (guint32) MIN (index + 1, G_MAXUINT32);
      }
      return;
    default:
      *out = (Value) { cell_types[cell & CELL_MASK], 0, h, { 0 } };
      return;
    }
}

static inline guint8
memo_type (Reader *r,
           gsize   index)
{
  guint32 cell = *memo_cell (r, index);

  if ((cell & CELL_MASK) == CELL_OVERFLOW)
    return g_array_index (r->memo_overflow, Value, cell >> CELL_BITS).type;
  return cell_types[cell & CELL_MASK];
}

static const Value consumed_value = { VT_CONSUMED, 0, 0, { 0 } };

static inline Obj *
obj_at (Reader *r,
        guint32 index)
{
  return &g_array_index (r->objs, Obj, index);
}

/* The live object a value refers to, or NULL. */
static inline Obj *
obj_get (Reader      *r,
         const Value *v)
{
  Obj *o;

  if (v->type != VT_OBJ || v->h >= r->objs->len)
    return NULL;
  o = obj_at (r, v->h);
  if (!o->live || o->gen != v->v.o.gen)
    return NULL;
  return o;
}

/* A value with containers already read replaced by what they became: a
 * forwarded container by its typed value, a recycled one by what its memo
 * slot now holds (every reference to a container made after it was
 * memoized knows the slot). */
static inline const Value *
resolve (Reader      *r,
         const Value *v,
         Value       *tmp)
{
  Obj *o;

  if (v->type != VT_OBJ)
    return v;
  o = obj_get (r, v);
  if (o != NULL)
    {
      if (o->kind != KIND_FORWARD)
        return v;
      *tmp = (Value) { o->fwd_type, 0, o->fwd_id, { 0 } };
      return tmp;
    }
  if (v->v.o.memo > 0 && v->v.o.memo - 1 < r->memo_len && memo_type (r, v->v.o.memo - 1) != VT_OBJ)
    {
      memo_load (r, v->v.o.memo - 1, tmp);
      return tmp;
    }
  return &consumed_value;
}

static inline gboolean
obj_append (Reader      *r,
            Obj         *o,
            const Value *v,
            GError     **error)
{
  if (G_LIKELY (o->len < o->cap && r->n_items < r->max_items))
    {
      o->items[o->len++] = *v;
      r->n_items++;
      return TRUE;
    }
  return _gml_reader_obj_append_slow (r, o, v, error);
}

static inline gboolean
push (Reader      *r,
      const Value *v,
      GError     **error)
{
  if (G_LIKELY (r->sp < r->stack_cap))
    {
      r->stack[r->sp++] = *v;
      return TRUE;
    }
  return _gml_reader_push_slow (r, v, error);
}

/* Appends @frame to the frame list being read into @o. Its ids stay
 * together at the end of the snapshot's frame_items while no other list is
 * read in between (always, in files PyTorch writes); a list that another one
 * followed moves, once, into an array of its own, so that lists read in
 * turns cost no more than lists read one after the other. */
static inline void
frames_append (Reader *r,
               Obj    *o,
               guint32 frame)
{
  GmlSnapshot *snap = r->snap;

  if (G_UNLIKELY (o->frames_own != NULL))
    g_array_append_val (o->frames_own, frame);
  else if (o->frames_count == 0)
    {
      o->frames_first = (guint32) snap->n_frame_items;
      gml_snapshot_append_frame_item (snap, frame);
    }
  else if (G_LIKELY ((gsize) o->frames_first + o->frames_count == snap->n_frame_items))
    gml_snapshot_append_frame_item (snap, frame);
  else
    {
      o->frames_own = g_array_sized_new (FALSE, FALSE, sizeof (guint32), o->frames_count * 2);
      g_array_append_vals (o->frames_own, &snap->frame_items[o->frames_first], o->frames_count);
      g_array_append_val (o->frames_own, frame);
    }
  o->frames_count++;
}

static inline const char *
describe_ctx (Ctx ctx)
{
  switch (ctx)
    {
    case CTX_SEGMENTS:      return "segments";
    case CTX_SEGMENT:       return _("a segment");
    case CTX_BLOCKS:        return "blocks";
    case CTX_BLOCK:         return _("a block");
    case CTX_HISTORY:       return "history";
    case CTX_HISTORY_ITEM:  return _("a block’s history");
    case CTX_FRAMES:        return "frames";
    case CTX_FRAME:         return _("a stack frame");
    case CTX_DEVICE_TRACES: return "device_traces";
    case CTX_TRACE:         return _("a device’s trace");
    case CTX_ENTRY:         return _("a trace entry");
    case CTX_SETTINGS:      return "allocator_settings";
    case CTX_ANNOTATIONS:   return "external_annotations";
    case CTX_ANNOTATION:    return _("an annotation");
    case CTX_ROOT:          return _("the snapshot");
    case CTX_UNKNOWN:
    default:                return _("a value");
    }
}

G_GNUC_PRINTF (4, 5)
static inline gboolean
fail_at (GError    **error,
         int         code,
         guint64     offset,
         const char *format,
         ...)
{
  g_autofree char *message = NULL;
  char where[32];
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_snprintf (where, sizeof where, "%" G_GUINT64_FORMAT, offset);
  /* Translators: the first %s is a byte offset in the file, the second says what is wrong there. */
  g_set_error (error, GML_SNAPSHOT_ERROR, code, _("Byte %s: %s"), where, message);
  return FALSE;
}

G_END_DECLS

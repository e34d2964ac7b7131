/* gml-snapshot-reader.c — a pickle reader for PyTorch memory snapshots that
 * never executes anything.
 *
 * The pickle format is a small stack machine (Python's Lib/pickletools.py
 * documents every instruction). A snapshot needs only its data instructions:
 * dicts, lists, tuples, strings, numbers, the memo. The instructions that
 * import or call Python code (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ,
 * NEWOBJ, NEWOBJ_EX, EXT*, PERSID, BINPERSID) are refused where they stand:
 * the reader builds plain values only, so a foreign pickle can at worst be
 * reported as not a snapshot.
 *
 * Streaming. A snapshot of four million trace entries would be tens of
 * millions of Python objects; the reader never builds them. When a list or
 * dict is created, the values below it on the stack say where it is going
 * (the list it will be appended to, or the key it will be stored under), so
 * it knows at once that it is, say, a trace entry of device 0. When items are
 * appended to such a list, each is turned into its compact record
 * (GmlSnapshotEntry, GmlSnapshotBlock, a frame id…) and the generic
 * container is recycled. Lists and dicts whose place the reader cannot tell
 * (built with the protocol 0 LIST/DICT instructions, say) stay generic and
 * are converted the same way when the whole object is complete.
 *
 * Memory stays proportional to the file: every instruction creates at most a
 * constant number of values, and the memo, the stack and the generic values
 * are capped in proportion to the file's size.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "gml-i18n.h"
#include <glib/gstdio.h>

#include "gml-snapshot-private.h"

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

static const char * const key_names[N_KEYS] = {
  "segments", "device_traces", "allocator_settings", "external_annotations",
  "device", "address", "total_size", "allocated_size", "active_size", "requested_size",
  "stream", "segment_type", "segment_pool_id", "is_expandable", "frames", "blocks",
  "size", "state", "history", "addr", "real_size", "action", "time_us", "compile_context",
  "user_metadata", "device_free", "filename", "line", "name", "stage",
  "PYTORCH_CUDA_ALLOC_CONF", "max_split_size", "garbage_collection_threshold",
  "expandable_segments", "roundup_power2_divisions",
  "small", "large",
  "active_allocated", "inactive", "active_pending_free", "active_awaiting_free",
  "alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
  "segment_map", "segment_unmap", "snapshot", "oom",
  /* The settings' newer name, in case a newer PyTorch writes it there too. */
  "PYTORCH_ALLOC_CONF",
};

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

/* Stores @v in memo slot @index (below memo_len). FALSE only when the
 * overflow would need more slots than a cell can name, which a file within
 * the memo's cap never reaches; a slot the cell held before is reused. */
static gboolean
memo_store (Reader      *r,
            gsize        index,
            const Value *v)
{
  guint32 *cell = memo_cell (r, index);
  guint code;
  guint32 slot;

  if ((*cell & CELL_MASK) == CELL_OVERFLOW)
    {
      /* Never more free than made: overflow->len. */
      if (G_UNLIKELY (r->n_overflow_free == r->overflow_free_cap))
        {
          r->overflow_free_cap = MAX (r->overflow_free_cap * 2, 64);
          r->overflow_free = g_renew (guint32, r->overflow_free, r->overflow_free_cap);
        }
      r->overflow_free[r->n_overflow_free++] = *cell >> CELL_BITS;
    }
  switch (v->type)
    {
    case VT_INVALID:  code = CELL_INVALID; break;
    case VT_STR:      code = CELL_STR; break;
    case VT_FRAME:    code = CELL_FRAME; break;
    case VT_FRAMES:   code = CELL_FRAMES; break;
    case VT_CONSUMED: code = CELL_CONSUMED; break;
    case VT_NONE:     code = CELL_NONE; break;
    default:          code = CELL_OVERFLOW; break;
    }
  if (code != CELL_OVERFLOW && v->flags == 0 && v->v.u == 0 && v->h <= CELL_MAX_PAYLOAD)
    {
      *cell = (v->h << CELL_BITS) | code;
      return TRUE;
    }
  /* A container memoized as memo_put() does: the cell names the object. */
  if (v->type == VT_OBJ && v->flags == 0 && v->h <= CELL_MAX_PAYLOAD && v->h < r->objs->len &&
      v->v.o.memo == MIN (index + 1, G_MAXUINT32) &&
      g_array_index (r->objs, Obj, v->h).memo == index &&
      g_array_index (r->objs, Obj, v->h).gen == v->v.o.gen)
    {
      *cell = (v->h << CELL_BITS) | CELL_OBJ;
      return TRUE;
    }
  if (r->n_overflow_free > 0)
    slot = r->overflow_free[--r->n_overflow_free];
  else
    {
      if (r->memo_overflow->len > CELL_MAX_PAYLOAD)
        {
          *cell = CELL_INVALID;
          return FALSE;
        }
      slot = r->memo_overflow->len;
      g_array_set_size (r->memo_overflow, slot + 1);
    }
  g_array_index (r->memo_overflow, Value, slot) = *v;
  *cell = (slot << CELL_BITS) | CELL_OVERFLOW;
  return TRUE;
}

static const char *
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
static gboolean
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

/* ------------------------------------------------------------------------- */
/* Input                                                                     */

static gboolean
fill (Reader  *r,
      gsize    need,
      GError **error)
{
  gsize have = r->len - r->pos;

  if (have >= need)
    return TRUE;
  if (r->fd < 0 || r->base + r->len >= r->total)
    return fail_at (error, GML_SNAPSHOT_ERROR_TRUNCATED, r->op_offset,
                    _("the file ends in the middle of the pickle (it is cut short)."));
  if (need > r->total - (r->base + r->pos))
    return fail_at (error, GML_SNAPSHOT_ERROR_TRUNCATED, r->op_offset,
                    _("the file ends in the middle of the pickle (it is cut short)."));

  /* Keep the unread bytes, make room for @need of them, read on. */
  memmove (r->buf, r->buf + r->pos, have);
  r->base += r->pos;
  r->pos = 0;
  r->len = have;
  if (need > r->buf_size)
    {
      r->buf_size = need;
      r->buf = g_realloc (r->buf, r->buf_size);
    }
  while (r->len < r->buf_size && r->base + r->len < r->total)
    {
      gssize n = read (r->fd, r->buf + r->len, r->buf_size - r->len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_set_error (error, GML_SNAPSHOT_ERROR, GML_SNAPSHOT_ERROR_IO,
                       _("Could not read the file: %s"), g_strerror (saved));
          return FALSE;
        }
      if (n == 0)
        {
          r->total = r->base + r->len;   /* it shrank while we read it */
          break;
        }
      r->len += n;
    }
  if (r->len < need)
    return fail_at (error, GML_SNAPSHOT_ERROR_TRUNCATED, r->op_offset,
                    _("the file ends in the middle of the pickle (it is cut short)."));
  return TRUE;
}

static inline gboolean
need (Reader  *r,
      gsize    n,
      GError **error)
{
  return G_LIKELY (r->len - r->pos >= n) || fill (r, n, error);
}

static inline guint32
le32 (const guint8 *p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16) | ((guint32) p[3] << 24);
}

static inline guint64
le64 (const guint8 *p)
{
  return (guint64) le32 (p) | ((guint64) le32 (p + 4) << 32);
}

/* ------------------------------------------------------------------------- */
/* Objects and their item arrays                                             */

static int
item_class (guint32 cap)
{
  switch (cap)
    {
    case 4: return 0;
    case 8: return 1;
    case 16: return 2;
    case 32: return 3;
    case 64: return 4;
    default: return -1;
    }
}

static void
items_free (Reader *r,
            Value  *items,
            guint32 cap)
{
  int c;

  if (items == NULL)
    return;
  c = item_class (cap);
  if (c >= 0 && r->n_pooled[c] < ITEM_POOL_SIZE)
    r->item_pool[c][r->n_pooled[c]++] = items;
  else
    g_free (items);
}

static Value *
items_alloc (Reader *r,
             guint32 cap)
{
  int c = item_class (cap);

  if (c >= 0 && r->n_pooled[c] > 0)
    return r->item_pool[c][--r->n_pooled[c]];
  return g_new (Value, cap);
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

static void free_typed (Obj *o);

static gboolean
obj_new (Reader  *r,
         ObjKind  kind,
         Ctx      ctx,
         Value   *out,
         GError **error)
{
  guint32 index;
  Obj *o;

  if (r->n_free_objs > 0)
    index = r->free_objs[--r->n_free_objs];
  else
    {
      if (r->objs->len >= r->max_objs)
        return fail_at (error, GML_SNAPSHOT_ERROR_TOO_LARGE, r->op_offset,
                        _("too many lists and dicts for a file of this size."));
      index = r->objs->len;
      g_array_set_size (r->objs, index + 1);
      obj_at (r, index)->gen = 0;
    }
  o = obj_at (r, index);
  o->items = NULL;
  o->typed = NULL;
  o->frames_own = NULL;
  o->offset = r->op_offset;
  o->len = o->cap = 0;
  o->gen++;
  o->memo = G_MAXUINT32;
  o->frames_first = o->frames_count = 0;
  o->kind = kind;
  o->ctx = ctx;
  o->live = TRUE;
  o->busy = FALSE;

  out->type = VT_OBJ;
  out->flags = 0;
  out->h = index;
  out->v.u = 0;
  out->v.o.gen = o->gen;
  return TRUE;
}

/* Gives the object back; the memo slot that held it now holds @replacement
 * (the records it became, or VT_CONSUMED). */
static void
obj_release (Reader      *r,
             Obj         *o,
             const Value *replacement)
{
  guint32 index = (guint32) (o - (Obj *) r->objs->data);

  if (o->memo != G_MAXUINT32 && o->memo < r->memo_len)
    {
      Value m;

      memo_load (r, o->memo, &m);
      /* The replacement reuses the overflow slot the object had: no failure. */
      if (m.type == VT_OBJ && m.h == index && m.v.o.gen == o->gen)
        memo_store (r, o->memo, replacement);
    }
  r->n_items -= o->len;
  items_free (r, o->items, o->cap);
  free_typed (o);
  o->items = NULL;
  o->len = o->cap = 0;
  o->live = FALSE;
  /* Never more free than made: objs->len, within max_objs. */
  if (G_UNLIKELY (r->n_free_objs == r->free_objs_cap))
    {
      r->free_objs_cap = MAX (r->free_objs_cap * 2, 256);
      r->free_objs = g_renew (guint32, r->free_objs, r->free_objs_cap);
    }
  r->free_objs[r->n_free_objs++] = index;
}

/* Keeps the object as a stand-in for @replacement: for generic containers,
 * which other generic containers may still hold. */
static void
obj_forward (Reader      *r,
             Obj         *o,
             const Value *replacement)
{
  guint32 index = (guint32) (o - (Obj *) r->objs->data);

  if (o->memo != G_MAXUINT32 && o->memo < r->memo_len)
    {
      Value m;

      memo_load (r, o->memo, &m);
      /* The replacement reuses the overflow slot the object had: no failure. */
      if (m.type == VT_OBJ && m.h == index && m.v.o.gen == o->gen)
        memo_store (r, o->memo, replacement);
    }
  r->n_items -= o->len;
  items_free (r, o->items, o->cap);
  free_typed (o);
  o->items = NULL;
  o->len = o->cap = 0;
  o->kind = KIND_FORWARD;
  o->busy = FALSE;
  o->fwd_type = replacement->type;
  o->fwd_id = replacement->h;
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

/* Marks @o as being read. A pickle can make a list or dict that holds itself
 * (a block whose "frames" is the list of blocks it is in); a snapshot never
 * does, and reading such a container while it is read or filled would take it
 * apart under the reader's feet. */
static gboolean
obj_claim (Reader  *r,
           Obj     *o,
           GError **error)
{
  if (o->busy)
    return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, o->offset,
                    _("a list or dict contains itself, which a memory snapshot never does."));
  o->busy = TRUE;
  return TRUE;
}

static gboolean
obj_append_slow (Reader      *r,
                 Obj         *o,
                 const Value *v,
                 GError     **error)
{
  if (o->len == o->cap)
    {
      guint32 cap = o->cap == 0 ? (o->kind == KIND_DICT ? 16 : 4) : o->cap * 2;
      Value *items;

      if (cap < o->cap)
        return fail_at (error, GML_SNAPSHOT_ERROR_TOO_LARGE, r->op_offset,
                        _("a list is too long."));
      items = items_alloc (r, cap);
      if (o->len > 0)
        memcpy (items, o->items, o->len * sizeof (Value));
      items_free (r, o->items, o->cap);
      o->items = items;
      o->cap = cap;
    }
  if (r->n_items >= r->max_items)
    return fail_at (error, GML_SNAPSHOT_ERROR_TOO_LARGE, r->op_offset,
                    _("more values than a file of this size can describe."));
  o->items[o->len++] = *v;
  r->n_items++;
  return TRUE;
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
  return obj_append_slow (r, o, v, error);
}

/* ------------------------------------------------------------------------- */
/* Typed payloads                                                            */

static void
free_typed (Obj *o)
{
  g_clear_pointer ((GArray **) &o->typed, g_array_unref);
  g_clear_pointer (&o->frames_own, g_array_unref);
}

static void
clear_pending_segment (gpointer data)
{
  PendingSegment *ps = data;

  g_clear_pointer (&ps->blocks, g_array_unref);
}

static void
clear_array_pointer (gpointer data)
{
  g_clear_pointer ((GArray **) data, g_array_unref);
}

static GArray *
records_new (gsize          record_size,
             GDestroyNotify clear)
{
  GArray *array = g_array_new (FALSE, FALSE, record_size);

  if (clear != NULL)
    g_array_set_clear_func (array, clear);
  return array;
}

/* ------------------------------------------------------------------------- */
/* Strings                                                                   */

static gboolean
push_slow (Reader      *r,
           const Value *v,
           GError     **error)
{
  if (r->stack_cap >= r->max_stack)
    return fail_at (error, GML_SNAPSHOT_ERROR_TOO_LARGE, r->op_offset,
                    _("the pickle’s stack grows beyond what a snapshot needs."));
  r->stack_cap = MIN (MAX (r->stack_cap * 2, 1024), r->max_stack);
  r->stack = g_renew (Value, r->stack, r->stack_cap);
  r->stack[r->sp++] = *v;
  return TRUE;
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
  return push_slow (r, v, error);
}

static gboolean
push_string (Reader  *r,
             gsize    length,
             GError **error)
{
  const char *text;
  const char *end;
  Value v = { VT_STR, 0, 0, { 0 } };

  if (!need (r, length, error))
    return FALSE;
  text = (const char *) r->buf + r->pos;
  if (!g_utf8_validate_len (text, length, &end))
    return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->base + r->pos + (end - text),
                    _("text that is not valid UTF-8."));
  v.h = gml_snapshot_intern (r->snap, text, length);
  r->pos += length;
  return push (r, &v, error);
}

/* ------------------------------------------------------------------------- */
/* Reading values of records                                                 */

typedef struct
{
  Reader *r;
  Obj    *dict;
  Ctx     ctx;
} Rec;

static gboolean
wrong_type (Rec        *rec,
            Key         key,
            const char *expected,
            GError    **error)
{
  /* Translators: "In a trace entry, “addr” should be a whole number of 0 or more." */
  return fail_at (error, GML_SNAPSHOT_ERROR_WRONG_TYPE, rec->dict->offset,
                  _("In %s, “%s” should be %s."), describe_ctx (rec->ctx), key_names[key],
                  expected);
}

static gboolean
get_u64 (Rec         *rec,
         Key          key,
         const Value *v,
         guint64     *out,
         GError     **error)
{
  if (v->type == VT_INT && !(v->flags & INT_BIG) && ((v->flags & INT_U64) || v->v.i >= 0))
    {
      *out = v->v.u;
      return TRUE;
    }
  if (v->type == VT_BOOL)
    {
      *out = v->v.u;
      return TRUE;
    }
  return wrong_type (rec, key, _("a whole number of 0 or more"), error);
}

/* Any 64-bit integer, as its bits (cudaStream_t values, time stamps). */
static gboolean
get_bits (Rec         *rec,
          Key          key,
          const Value *v,
          guint64     *out,
          GError     **error)
{
  if (v->type == VT_INT && !(v->flags & INT_BIG))
    {
      *out = v->v.u;
      return TRUE;
    }
  if (v->type == VT_NONE)
    {
      *out = 0;
      return TRUE;
    }
  return wrong_type (rec, key, _("a whole number"), error);
}

static gboolean
get_i64 (Rec         *rec,
         Key          key,
         const Value *v,
         gint64      *out,
         GError     **error)
{
  if ((v->type == VT_INT && !(v->flags & (INT_BIG | INT_U64))) || v->type == VT_BOOL)
    {
      *out = v->v.i;
      return TRUE;
    }
  return wrong_type (rec, key, _("a whole number"), error);
}

static gboolean
get_str (Rec         *rec,
         Key          key,
         const Value *v,
         guint32     *out,
         GError     **error)
{
  if (v->type == VT_STR)
    {
      *out = v->h;
      return TRUE;
    }
  if (v->type == VT_NONE)
    {
      *out = 0;
      return TRUE;
    }
  return wrong_type (rec, key, _("text"), error);
}

static gboolean
get_bool (Rec         *rec,
          Key          key,
          const Value *v,
          gboolean    *out,
          GError     **error)
{
  if (v->type == VT_BOOL || v->type == VT_INT)
    {
      *out = v->v.i != 0;
      return TRUE;
    }
  return wrong_type (rec, key, _("true or false"), error);
}

static gboolean frames_from_value (Reader *r, const Value *v, guint32 *id, GError **error);

/* The dict behind @v for a record of @ctx, or an error. */
static Obj *
record_dict (Reader      *r,
             const Value *v,
             Ctx          ctx,
             GError     **error)
{
  Value tmp;
  Obj *o = obj_get (r, resolve (r, v, &tmp));

  if (o == NULL || o->kind != KIND_DICT)
    {
      /* Translators: %s is what was expected ("a trace entry"). */
      fail_at (error, GML_SNAPSHOT_ERROR_WRONG_TYPE, o ? o->offset : r->op_offset,
               _("%s should be a dict."), describe_ctx (ctx));
      return NULL;
    }
  if (!obj_claim (r, o, error))
    return NULL;
  return o;
}

/* Calls @func on each (key, value) of @o whose key is text. */
#define FOREACH_PAIR(o, key_id, value)                                        \
  for (guint32 _i = 0; _i + 1 < (o)->len; _i += 2)                             \
    for (guint32 key_id = (o)->items[_i].type == VT_STR ? (o)->items[_i].h : 0, \
         _once = 1; _once; _once = 0)                                          \
      for (const Value *value = &(o)->items[_i + 1]; _once; _once = 0)

static inline Key
key_of (Reader *r,
        guint32 id,
        Key     first,
        Key     last)
{
  Key k = id < r->n_key_ids ? r->key_by_id[id] : N_KEYS;

  return k >= first && k <= last ? k : N_KEYS;
}

static gboolean
read_frame (Reader      *r,
            const Value *v,
            guint32     *frame_id,
            GError     **error)
{
  GmlSnapshotFrame frame = { 0, 0, 0 };
  Value replacement = { VT_FRAME, 0, 0, { 0 } };
  Rec rec = { r, NULL, CTX_FRAME };
  Value tmp;
  gboolean generic;
  Obj *o;

  v = resolve (r, v, &tmp);
  if (v->type == VT_FRAME)
    {
      *frame_id = v->h;
      return TRUE;
    }
  if ((o = record_dict (r, v, CTX_FRAME, error)) == NULL)
    return FALSE;
  rec.dict = o;
  FOREACH_PAIR (o, id, value)
    {
      gint64 line = 0;

      if (id == r->keys[K_FILENAME])
        {
          if (!get_str (&rec, K_FILENAME, value, &frame.filename, error))
            return FALSE;
        }
      else if (id == r->keys[K_NAME])
        {
          if (!get_str (&rec, K_NAME, value, &frame.name, error))
            return FALSE;
        }
      else if (id == r->keys[K_LINE])
        {
          if (!get_i64 (&rec, K_LINE, value, &line, error))
            return FALSE;
          frame.line = (gint32) CLAMP (line, G_MININT32, G_MAXINT32);
        }
    }
  *frame_id = r->snap->frames->len;
  g_array_append_val (r->snap->frames, frame);
  replacement.h = *frame_id;
  /* A frame dict read as it completes is referenced only by the memo from
   * then on; one read later, inside a generic list, may be shared. */
  generic = o->ctx != CTX_FRAME;
  if (generic)
    obj_forward (r, o, &replacement);
  else
    obj_release (r, o, &replacement);
  return TRUE;
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

/* A frame list: already read (VT_FRAMES), streamed (CTX_FRAMES with its frame
 * ids in typed), or a generic list of frame dicts. */
static gboolean
frames_from_value (Reader      *r,
                   const Value *v,
                   guint32     *id,
                   GError     **error)
{
  Value replacement = { VT_FRAMES, 0, 0, { 0 } };
  Value tmp;
  Obj *o;

  v = resolve (r, v, &tmp);
  if (v->type == VT_FRAMES)
    {
      *id = v->h;
      return TRUE;
    }
  if (v->type == VT_NONE)
    {
      *id = 0;
      return TRUE;
    }
  o = obj_get (r, v);
  if (o == NULL || (o->kind != KIND_LIST && o->kind != KIND_TUPLE))
    return fail_at (error, GML_SNAPSHOT_ERROR_WRONG_TYPE, o ? o->offset : r->op_offset,
                    _("“frames” should be a list of stack frames."));
  if (!obj_claim (r, o, error))
    return FALSE;
  /* Streamed frames first, then any items read generically. */
  for (guint32 i = 0; i < o->len; i++)
    {
      guint32 frame;

      if (!read_frame (r, &o->items[i], &frame, error))
        return FALSE;
      frames_append (r, o, frame);
    }
  if (o->frames_own != NULL)
    {
      GmlSnapshot *snap = r->snap;

      gml_snapshot_reserve_frame_items (snap, o->frames_count);
      o->frames_first = (guint32) snap->n_frame_items;
      memcpy (&snap->frame_items[snap->n_frame_items], o->frames_own->data,
              o->frames_count * sizeof (guint32));
      snap->n_frame_items += o->frames_count;
      g_clear_pointer (&o->frames_own, g_array_unref);
    }
  *id = gml_snapshot_add_frame_list (r->snap, o->frames_first, o->frames_count);
  replacement.h = *id;
  if (o->ctx == CTX_FRAMES)
    obj_release (r, o, &replacement);
  else
    obj_forward (r, o, &replacement);
  return TRUE;
}


static gboolean
read_history_item (Reader      *r,
                   const Value *v,
                   GArray      *out,
                   GError     **error)
{
  HistoryItem item = { 0, 0, 0 };
  Rec rec = { r, NULL, CTX_HISTORY_ITEM };
  Obj *o;

  if ((o = record_dict (r, v, CTX_HISTORY_ITEM, error)) == NULL)
    return FALSE;
  rec.dict = o;
  FOREACH_PAIR (o, id, value)
    {
      if (id == r->keys[K_ADDR])
        {
          if (!get_u64 (&rec, K_ADDR, value, &item.addr, error))
            return FALSE;
        }
      else if (id == r->keys[K_REAL_SIZE])
        {
          if (!get_u64 (&rec, K_REAL_SIZE, value, &item.real_size, error))
            return FALSE;
        }
      else if (id == r->keys[K_FRAMES])
        {
          if (!frames_from_value (r, value, &item.frames, error))
            return FALSE;
        }
    }
  g_array_append_val (out, item);
  obj_release (r, o, &consumed_value);
  return TRUE;
}

/* Reads every item of a generic list with @func. */
typedef gboolean (*ItemFunc) (Reader *r, const Value *v, GArray *out, GError **error);

static gboolean
list_records (Reader        *r,
              const Value   *v,
              Ctx            ctx,
              gsize          record_size,
              GDestroyNotify clear,
              ItemFunc       func,
              GArray       **out,
              GError       **error)
{
  Value tmp;
  Obj *o;

  v = resolve (r, v, &tmp);
  o = obj_get (r, v);

  if (v->type == VT_NONE)
    {
      *out = records_new (record_size, clear);
      return TRUE;
    }
  if (o == NULL || (o->kind != KIND_LIST && o->kind != KIND_TUPLE))
    {
      /* Translators: %s is a key of the snapshot ("blocks", "segments"). */
      return fail_at (error, GML_SNAPSHOT_ERROR_WRONG_TYPE, o ? o->offset : r->op_offset,
                      _("“%s” should be a list."), describe_ctx (ctx));
    }
  if (!obj_claim (r, o, error))
    return FALSE;
  if (o->ctx == ctx && o->typed != NULL)
    {
      /* Streamed: take the records, then read what came after them generically. */
      *out = g_steal_pointer ((GArray **) &o->typed);
    }
  else
    *out = records_new (record_size, clear);
  for (guint32 i = 0; i < o->len; i++)
    if (!func (r, &o->items[i], *out, error))
      {
        g_clear_pointer (out, g_array_unref);
        return FALSE;
      }
  obj_release (r, o, &consumed_value);
  return TRUE;
}

static gboolean
read_block (Reader      *r,
            const Value *v,
            GArray      *out,
            GError     **error)
{
  PendingBlock pb = { { 0, 0, 0, 0, GML_SNAP_BLOCK_UNKNOWN }, FALSE };
  Rec rec = { r, NULL, CTX_BLOCK };
  g_autoptr(GArray) history = NULL;
  Obj *o;

  if ((o = record_dict (r, v, CTX_BLOCK, error)) == NULL)
    return FALSE;
  rec.dict = o;
  FOREACH_PAIR (o, id, value)
    {
      Key k = key_of (r, id, K_ADDRESS, K_HISTORY);

      switch (k)
        {
        case K_ADDRESS:
          if (!get_u64 (&rec, k, value, &pb.block.address, error))
            return FALSE;
          pb.has_address = TRUE;
          break;
        case K_SIZE:
          if (!get_u64 (&rec, k, value, &pb.block.size, error))
            return FALSE;
          break;
        case K_REQUESTED_SIZE:
          if (!get_u64 (&rec, k, value, &pb.block.requested_size, error))
            return FALSE;
          break;
        case K_FRAMES:
          if (!frames_from_value (r, value, &pb.block.frames, error))
            return FALSE;
          break;
        case K_STATE:
          {
            guint32 s = 0;

            if (!get_str (&rec, k, value, &s, error))
              return FALSE;
            if (s == r->keys[K_ACTIVE_ALLOCATED])
              pb.block.state = GML_SNAP_BLOCK_ALLOCATED;
            else if (s == r->keys[K_INACTIVE])
              pb.block.state = GML_SNAP_BLOCK_INACTIVE;
            else if (s == r->keys[K_ACTIVE_PENDING_FREE] || s == r->keys[K_ACTIVE_AWAITING_FREE])
              pb.block.state = GML_SNAP_BLOCK_PENDING_FREE;
            else
              pb.block.state = GML_SNAP_BLOCK_UNKNOWN;
          }
          break;
        case K_HISTORY:
          g_clear_pointer (&history, g_array_unref);
          if (!list_records (r, value, CTX_HISTORY, sizeof (HistoryItem), NULL, read_history_item,
                             &history, error))
            return FALSE;
          r->snap->seen |= GML_SNAP_SEEN_BLOCK_HISTORY;
          break;
        default:
          break;
        }
    }
  /* PyTorch 2.0: the stack of the last allocation is in the history. */
  if (history != NULL && history->len > 0 && pb.block.frames == 0)
    pb.block.frames = g_array_index (history, HistoryItem, history->len - 1).frames;
  if (pb.has_address)
    r->snap->seen |= GML_SNAP_SEEN_BLOCK_ADDRESS;
  g_array_append_val (out, pb);
  obj_release (r, o, &consumed_value);
  return TRUE;
}

static gboolean
read_segment (Reader      *r,
              const Value *v,
              GArray      *out,
              GError     **error)
{
  PendingSegment ps;
  Rec rec = { r, NULL, CTX_SEGMENT };
  gboolean has_type = FALSE;
  Obj *o;

  memset (&ps, 0, sizeof ps);
  if ((o = record_dict (r, v, CTX_SEGMENT, error)) == NULL)
    return FALSE;
  rec.dict = o;
  FOREACH_PAIR (o, id, value)
    {
      Key k = key_of (r, id, K_DEVICE, K_BLOCKS);
      guint64 raw = 0;

      switch (k)
        {
        case K_DEVICE:
          {
            gint64 device = 0;

            if (!get_i64 (&rec, k, value, &device, error))
              goto fail;
            if (device < 0 || device > 1023)
              {
                fail_at (error, GML_SNAPSHOT_ERROR_WRONG_TYPE, o->offset,
                         _("a segment names device %lld, which cannot be."), (long long) device);
                goto fail;
              }
            ps.segment.device = (gint32) device;
          }
          break;
        case K_ADDRESS:
          if (!get_u64 (&rec, k, value, &ps.segment.address, error))
            goto fail;
          break;
        case K_TOTAL_SIZE:
          if (!get_u64 (&rec, k, value, &ps.segment.total_size, error))
            goto fail;
          break;
        case K_ALLOCATED_SIZE:
          if (!get_u64 (&rec, k, value, &ps.segment.allocated_size, error))
            goto fail;
          break;
        case K_ACTIVE_SIZE:
          if (!get_u64 (&rec, k, value, &ps.segment.active_size, error))
            goto fail;
          break;
        case K_REQUESTED_SIZE:
          if (!get_u64 (&rec, k, value, &ps.segment.requested_size, error))
            goto fail;
          break;
        case K_STREAM:
          if (!get_bits (&rec, k, value, &raw, error))
            goto fail;
          ps.segment.stream = gml_snapshot_stream_index (r->snap, raw);
          break;
        case K_SEGMENT_TYPE:
          {
            guint32 s = 0;

            if (!get_str (&rec, k, value, &s, error))
              goto fail;
            ps.segment.small = s == r->keys[K_SMALL];
            has_type = TRUE;
          }
          break;
        case K_SEGMENT_POOL_ID:
          {
            Value tmp;
            Obj *t = obj_get (r, resolve (r, value, &tmp));

            if (t != NULL && (t->kind == KIND_TUPLE || t->kind == KIND_LIST) && t->len == 2)
              {
                for (guint i = 0; i < 2; i++)
                  if (!get_i64 (&rec, k, &t->items[i], &ps.segment.pool_id[i], error))
                    goto fail;
              }
            else if (value->type != VT_NONE && value->type != VT_CONSUMED)
              {
                wrong_type (&rec, k, _("a pair of whole numbers"), error);
                goto fail;
              }
          }
          break;
        case K_IS_EXPANDABLE:
          {
            gboolean b = 0;

            if (!get_bool (&rec, k, value, &b, error))
              goto fail;
            ps.segment.expandable = b;
            r->snap->seen |= GML_SNAP_SEEN_SEGMENT_FRAMES;
          }
          break;
        case K_FRAMES:
          if (!frames_from_value (r, value, &ps.segment.frames, error))
            goto fail;
          r->snap->seen |= GML_SNAP_SEEN_SEGMENT_FRAMES;
          break;
        case K_BLOCKS:
          g_clear_pointer (&ps.blocks, g_array_unref);
          if (!list_records (r, value, CTX_BLOCKS, sizeof (PendingBlock), NULL, read_block,
                             &ps.blocks, error))
            goto fail;
          break;
        default:
          break;
        }
    }
  if (!has_type)
    ps.segment.small = ps.segment.total_size == (G_GUINT64_CONSTANT (2) << 20);
  if (ps.blocks == NULL)
    ps.blocks = g_array_new (FALSE, FALSE, sizeof (PendingBlock));
  g_array_append_val (out, ps);
  obj_release (r, o, &consumed_value);
  return TRUE;

fail:
  g_clear_pointer (&ps.blocks, g_array_unref);
  return FALSE;
}

static gboolean
read_entry (Reader      *r,
            const Value *v,
            GArray      *out,
            GError     **error)
{
  GmlSnapshotEntry e;
  Rec rec = { r, NULL, CTX_ENTRY };
  gboolean has_action = FALSE;
  guint32 name = 0, compile_context = 0;
  Obj *o;

  memset (&e, 0, sizeof e);
  if ((o = record_dict (r, v, CTX_ENTRY, error)) == NULL)
    return FALSE;
  rec.dict = o;
  FOREACH_PAIR (o, id, value)
    {
      Key k = key_of (r, id, K_STREAM, K_DEVICE_FREE);
      guint64 raw = 0;

      switch (k)
        {
        case K_ACTION:
          if (value->type != VT_STR)
            return wrong_type (&rec, k, _("text"), error);
          name = value->h;
          {
            Key a = key_of (r, value->h, K_A_ALLOC, K_A_OOM);

            e.action = a == N_KEYS ? GML_SNAP_OTHER : (guint8) (GML_SNAP_ALLOC + (a - K_A_ALLOC));
          }
          has_action = TRUE;
          break;
        case K_ADDR:
        case K_DEVICE_FREE:
          if (!get_bits (&rec, k, value, &e.addr, error))
            return FALSE;
          break;
        case K_SIZE:
          if (!get_u64 (&rec, k, value, &e.size, error))
            return FALSE;
          break;
        case K_STREAM:
          if (!get_bits (&rec, k, value, &raw, error))
            return FALSE;
          {
            guint32 stream = gml_snapshot_stream_index (r->snap, raw);

            if (stream >= GML_SNAPSHOT_MAX_STREAMS)
              return fail_at (error, GML_SNAPSHOT_ERROR_TOO_LARGE, o->offset,
                              _("more than 65536 CUDA streams, which no snapshot has."));
            e.stream = (guint16) stream;
          }
          break;
        case K_TIME_US:
          if (!get_i64 (&rec, k, value, &e.time_us, error))
            return FALSE;
          r->snap->seen |= GML_SNAP_SEEN_TIME_US;
          break;
        case K_FRAMES:
          if (!frames_from_value (r, value, &e.frames, error))
            return FALSE;
          break;
        case K_COMPILE_CONTEXT:
          if (!get_str (&rec, k, value, &compile_context, error))
            return FALSE;
          r->snap->seen |= GML_SNAP_SEEN_COMPILE_CONTEXT;
          break;
        case K_USER_METADATA:
          if (!get_str (&rec, k, value, &e.user_metadata, error))
            return FALSE;
          r->snap->seen |= GML_SNAP_SEEN_USER_METADATA;
          break;
        default:
          break;
        }
    }
  if (!has_action)
    return fail_at (error, GML_SNAPSHOT_ERROR_WRONG_TYPE, o->offset,
                    _("a trace entry without an “action”."));
  /* An action this reader does not know keeps its name where the
   * compile_context of the others goes. */
  if (e.action == GML_SNAP_OTHER)
    e.name = name;
  else
    e.compile_context = compile_context;
  g_array_append_val (out, e);
  obj_release (r, o, &consumed_value);
  return TRUE;
}

static gboolean
read_trace (Reader      *r,
            const Value *v,
            GArray      *out,
            GError     **error)
{
  GArray *entries = NULL;

  if (!list_records (r, v, CTX_TRACE, sizeof (GmlSnapshotEntry), NULL, read_entry, &entries, error))
    return FALSE;
  g_array_append_val (out, entries);
  return TRUE;
}

static gboolean
read_annotation (Reader      *r,
                 const Value *v,
                 GArray      *out,
                 GError     **error)
{
  GmlSnapshotAnnotation a = { 0, 0, 0, 0 };
  Rec rec = { r, NULL, CTX_ANNOTATION };
  Obj *o;

  if ((o = record_dict (r, v, CTX_ANNOTATION, error)) == NULL)
    return FALSE;
  rec.dict = o;
  FOREACH_PAIR (o, id, value)
    {
      gint64 n = 0;

      if (id == r->keys[K_NAME])
        {
          if (!get_str (&rec, K_NAME, value, &a.name, error))
            return FALSE;
        }
      else if (id == r->keys[K_STAGE])
        {
          if (!get_str (&rec, K_STAGE, value, &a.stage, error))
            return FALSE;
        }
      else if (id == r->keys[K_DEVICE])
        {
          if (!get_i64 (&rec, K_DEVICE, value, &n, error))
            return FALSE;
          a.device = (gint32) CLAMP (n, -1, G_MAXINT32);
        }
      else if (id == r->keys[K_TIME_US])
        {
          if (!get_i64 (&rec, K_TIME_US, value, &a.time_us, error))
            return FALSE;
        }
    }
  g_array_append_val (out, a);
  obj_release (r, o, &consumed_value);
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Streaming: what a new container is, and consuming appended items          */

static Ctx
child_ctx (Reader *r,
           Ctx     parent,
           guint32 key)   /* string id of the key; 0 for a list element */
{
  switch (parent)
    {
    case CTX_ROOT:
      if (key == r->keys[K_SEGMENTS])
        return CTX_SEGMENTS;
      if (key == r->keys[K_DEVICE_TRACES])
        return CTX_DEVICE_TRACES;
      if (key == r->keys[K_ALLOCATOR_SETTINGS])
        return CTX_SETTINGS;
      if (key == r->keys[K_EXTERNAL_ANNOTATIONS])
        return CTX_ANNOTATIONS;
      return CTX_UNKNOWN;
    case CTX_SEGMENTS:
      return key == 0 ? CTX_SEGMENT : CTX_UNKNOWN;
    case CTX_SEGMENT:
      if (key == r->keys[K_BLOCKS])
        return CTX_BLOCKS;
      if (key == r->keys[K_FRAMES])
        return CTX_FRAMES;
      return CTX_UNKNOWN;
    case CTX_BLOCKS:
      return key == 0 ? CTX_BLOCK : CTX_UNKNOWN;
    case CTX_BLOCK:
      if (key == r->keys[K_FRAMES])
        return CTX_FRAMES;
      if (key == r->keys[K_HISTORY])
        return CTX_HISTORY;
      return CTX_UNKNOWN;
    case CTX_HISTORY:
      return key == 0 ? CTX_HISTORY_ITEM : CTX_UNKNOWN;
    case CTX_HISTORY_ITEM:
    case CTX_ENTRY:
      return key == r->keys[K_FRAMES] ? CTX_FRAMES : CTX_UNKNOWN;
    case CTX_FRAMES:
      return key == 0 ? CTX_FRAME : CTX_UNKNOWN;
    case CTX_DEVICE_TRACES:
      return key == 0 ? CTX_TRACE : CTX_UNKNOWN;
    case CTX_TRACE:
      return key == 0 ? CTX_ENTRY : CTX_UNKNOWN;
    case CTX_ANNOTATIONS:
      return key == 0 ? CTX_ANNOTATION : CTX_UNKNOWN;
    case CTX_SETTINGS:
    case CTX_FRAME:
    case CTX_ANNOTATION:
    case CTX_UNKNOWN:
    default:
      return CTX_UNKNOWN;
    }
}

static gboolean
ctx_is_list (Ctx ctx)
{
  return ctx == CTX_SEGMENTS || ctx == CTX_BLOCKS || ctx == CTX_HISTORY || ctx == CTX_FRAMES ||
         ctx == CTX_DEVICE_TRACES || ctx == CTX_TRACE || ctx == CTX_ANNOTATIONS;
}

/* @ctx if a container of @kind can be it. */
static inline Ctx
fits (Ctx     ctx,
      ObjKind kind)
{
  if (ctx == CTX_UNKNOWN)
    return CTX_UNKNOWN;
  if (kind == KIND_LIST)
    return ctx_is_list (ctx) ? ctx : CTX_UNKNOWN;
  if (kind == KIND_DICT)
    return ctx_is_list (ctx) ? CTX_UNKNOWN : ctx;
  return CTX_UNKNOWN;
}

/* Where a list or dict created now will go, from the stack below it. Python's
 * pickler writes a container's items right after it, so the candidates are:
 * an element of the list on top of the stack (APPEND to come), the value of
 * the key on top of the stack (SETITEM to come), or an item of the container
 * below the innermost MARK (APPENDS or SETITEMS to come). The first candidate
 * whose place in the snapshot's layout can hold a container of this kind wins
 * (a finished trace list on top of the stack cannot take a list, but the list
 * of traces below the mark can). */
static Ctx
new_container_ctx (Reader  *r,
                   ObjKind  kind)
{
  gsize floor = r->n_marks > 0 ? r->marks[r->n_marks - 1] : 0;
  Obj *parent;
  Ctx ctx;

  if (r->sp == 0 && r->n_marks == 0)
    return kind == KIND_DICT ? CTX_ROOT : CTX_SEGMENTS;
  if (floor > r->sp)
    return CTX_UNKNOWN;

  if (r->sp > floor)
    {
      parent = obj_get (r, &r->stack[r->sp - 1]);
      if (parent != NULL && parent->kind == KIND_LIST &&
          (ctx = fits (child_ctx (r, parent->ctx, 0), kind)) != CTX_UNKNOWN)
        return ctx;
    }
  if (r->sp >= floor + 2 && r->stack[r->sp - 1].type == VT_STR)
    {
      parent = obj_get (r, &r->stack[r->sp - 2]);
      if (parent != NULL && parent->kind == KIND_DICT &&
          (ctx = fits (child_ctx (r, parent->ctx, r->stack[r->sp - 1].h), kind)) != CTX_UNKNOWN)
        return ctx;
    }
  if (r->n_marks > 0 && floor > 0)
    {
      gsize n = r->sp - floor;

      parent = obj_get (r, &r->stack[floor - 1]);
      if (parent == NULL)
        return CTX_UNKNOWN;
      if (parent->kind == KIND_LIST)
        return fits (child_ctx (r, parent->ctx, 0), kind);
      if (parent->kind == KIND_DICT && n % 2 == 1 && r->stack[r->sp - 1].type == VT_STR)
        return fits (child_ctx (r, parent->ctx, r->stack[r->sp - 1].h), kind);
    }
  return CTX_UNKNOWN;
}

static gboolean
push_container (Reader  *r,
                ObjKind  kind,
                GError **error)
{
  Value v;
  Ctx ctx = (kind == KIND_LIST || kind == KIND_DICT) ? new_container_ctx (r, kind) : CTX_UNKNOWN;

  if (!obj_new (r, kind, ctx, &v, error))
    return FALSE;
  return push (r, &v, error);
}

/* The records of a device's trace. The first trace of a file is most of it:
 * its array is reserved for as many entries as the rest of the file could
 * hold at one per 48 bytes of it (address space only, untouched pages cost
 * nothing), so that it never moves as it grows. Any other trace grows as
 * usual. It is not advised into huge pages: the reservation is about twice
 * what is filled, and with huge pages the 4 M-entry benchmark spent 0.5 s
 * more in the kernel zeroing them (December 2026, 2-core VM). */
static GArray *
trace_records_new (Reader *r)
{
  GArray *entries;
  guint64 room;

  if (r->trace_reserved)
    return records_new (sizeof (GmlSnapshotEntry), NULL);
  r->trace_reserved = TRUE;
  room = (r->total - MIN (r->total, r->op_offset)) / 48;
  if (room < 65536 || room > G_MAXUINT / 2)
    return records_new (sizeof (GmlSnapshotEntry), NULL);
  entries = g_array_sized_new (FALSE, FALSE, sizeof (GmlSnapshotEntry), (guint) room);
  return entries;
}

/* Appends @v to the list @o: records for the lists the snapshot has, a
 * generic item for any other. */
static gboolean
list_add (Reader      *r,
          Obj         *o,
          const Value *v,
          GError     **error)
{
  switch ((Ctx) o->ctx)
    {
    case CTX_SEGMENTS:
      if (o->typed == NULL)
        o->typed = records_new (sizeof (PendingSegment), clear_pending_segment);
      return read_segment (r, v, o->typed, error);
    case CTX_BLOCKS:
      if (o->typed == NULL)
        o->typed = records_new (sizeof (PendingBlock), NULL);
      return read_block (r, v, o->typed, error);
    case CTX_HISTORY:
      if (o->typed == NULL)
        o->typed = records_new (sizeof (HistoryItem), NULL);
      return read_history_item (r, v, o->typed, error);
    case CTX_TRACE:
      if (o->typed == NULL)
        o->typed = trace_records_new (r);
      return read_entry (r, v, o->typed, error);
    case CTX_ANNOTATIONS:
      if (o->typed == NULL)
        o->typed = records_new (sizeof (GmlSnapshotAnnotation), NULL);
      return read_annotation (r, v, o->typed, error);
    case CTX_FRAMES:
      {
        guint32 frame;

        if (!read_frame (r, v, &frame, error))
          return FALSE;
        frames_append (r, o, frame);
        return TRUE;
      }
    case CTX_DEVICE_TRACES:
      if (o->typed == NULL)
        o->typed = records_new (sizeof (GArray *), clear_array_pointer);
      return read_trace (r, v, o->typed, error);
    default:
      {
        Value tmp;

        return obj_append (r, o, resolve (r, v, &tmp), error);
      }
    }
}

/* A value stored in a dict: frame lists become their id at once, so that the
 * memo shares the id and not the list. */
static gboolean
dict_set (Reader      *r,
          Obj         *o,
          const Value *key,
          const Value *value,
          GError     **error)
{
  Obj *child;
  Value tmp;

  value = resolve (r, value, &tmp);
  if (o->ctx != CTX_UNKNOWN && o->ctx != CTX_ROOT && key->type != VT_STR)
    return fail_at (error, GML_SNAPSHOT_ERROR_WRONG_TYPE, o->offset,
                    _("%s has a key that is not text."), describe_ctx (o->ctx));
  child = obj_get (r, value);
  if (child != NULL && child->ctx == CTX_FRAMES)
    {
      Value frames = { VT_FRAMES, 0, 0, { 0 } };

      if (!frames_from_value (r, value, &frames.h, error))
        return FALSE;
      return obj_append (r, o, key, error) && obj_append (r, o, &frames, error);
    }
  return obj_append (r, o, key, error) && obj_append (r, o, value, error);
}

/* ------------------------------------------------------------------------- */
/* The root                                                                  */

static gboolean
read_settings (Reader      *r,
               const Value *v,
               GError     **error)
{
  GmlSnapshotSettings *s = &r->snap->settings;
  Rec rec = { r, NULL, CTX_SETTINGS };
  Value tmp;
  Obj *o = obj_get (r, resolve (r, v, &tmp));

  if (o == NULL || o->kind != KIND_DICT)
    return fail_at (error, GML_SNAPSHOT_ERROR_WRONG_TYPE, o ? o->offset : r->op_offset,
                    _("“allocator_settings” should be a dict."));
  rec.dict = o;
  s->present = TRUE;
  r->snap->seen |= GML_SNAP_SEEN_SETTINGS;
  FOREACH_PAIR (o, id, value)
    {
      if (id == r->keys[K_CONF] || id == r->keys[K_CONF_NEW])
        {
          guint32 str = 0;

          if (!get_str (&rec, id == r->keys[K_CONF] ? K_CONF : K_CONF_NEW, value, &str, error))
            return FALSE;
          g_free (s->alloc_conf);
          s->alloc_conf = g_strdup (gml_snapshot_get_string (r->snap, str));
        }
      else if (id == r->keys[K_MAX_SPLIT_SIZE])
        {
          if (value->type == VT_INT && (value->flags & INT_U64))
            s->max_split_size = -1;   /* SIZE_MAX written as unsigned */
          else if (!get_i64 (&rec, K_MAX_SPLIT_SIZE, value, &s->max_split_size, error))
            return FALSE;
        }
      else if (id == r->keys[K_GC_THRESHOLD])
        {
          if (value->type == VT_FLOAT)
            s->garbage_collection_threshold = value->v.f;
          else if (value->type == VT_INT && !(value->flags & (INT_BIG | INT_U64)))
            s->garbage_collection_threshold = (double) value->v.i;
          else
            return wrong_type (&rec, K_GC_THRESHOLD, _("a number"), error);
        }
      else if (id == r->keys[K_EXPANDABLE_SEGMENTS])
        {
          if (!get_bool (&rec, K_EXPANDABLE_SEGMENTS, value, &s->expandable_segments, error))
            return FALSE;
        }
      else if (id == r->keys[K_ROUNDUP])
        {
          Value dtmp;
          Obj *d = obj_get (r, resolve (r, value, &dtmp));

          if (d == NULL || d->kind != KIND_DICT)
            return wrong_type (&rec, K_ROUNDUP, _("a dict"), error);
          s->has_roundup = TRUE;
          FOREACH_PAIR (d, kid, kvalue)
            {
              const char *name = gml_snapshot_get_string (r->snap, kid);
              guint64 key, divisions;
              guint index = 0;

              if (name == NULL ||
                  !g_ascii_string_to_unsigned (name, 10, 1, G_GUINT64_CONSTANT (1) << 15,
                                               &key, NULL))
                continue;
              while ((G_GUINT64_CONSTANT (1) << (index + 1)) <= key)
                index++;
              if (!get_u64 (&rec, K_ROUNDUP, kvalue, &divisions, error))
                return FALSE;
              s->roundup_power2_divisions[index] = divisions;
            }
        }
    }
  return TRUE;
}

static void
take_segments (Reader *r,
               GArray *segments)
{
  for (guint i = 0; i < segments->len; i++)
    {
      PendingSegment *ps = &g_array_index (segments, PendingSegment, i);
      GmlSnapshotDevice *dev = gml_snapshot_ensure_device (r->snap, ps->segment.device);
      guint64 next = ps->segment.address;

      ps->segment.first_block = dev->blocks->len;
      ps->segment.n_blocks = ps->blocks->len;
      for (guint j = 0; j < ps->blocks->len; j++)
        {
          PendingBlock *pb = &g_array_index (ps->blocks, PendingBlock, j);

          /* PyTorch 2.0 blocks have no address: they are contiguous. */
          if (!pb->has_address)
            pb->block.address = next;
          next = pb->block.address + pb->block.size;
          g_array_append_val (dev->blocks, pb->block);
        }
      g_array_append_val (dev->segments, ps->segment);
    }
}

static gboolean
read_root (Reader      *r,
           const Value *v,
           GError     **error)
{
  Value tmp;
  Obj *o = obj_get (r, resolve (r, v, &tmp));
  g_autoptr(GArray) segments = NULL;

  if (o != NULL && (o->kind == KIND_LIST || o->kind == KIND_TUPLE))
    {
      /* Older tools: a bare list of segments. */
      r->snap->seen |= GML_SNAP_SEEN_BARE_LIST;
      if (!list_records (r, v, CTX_SEGMENTS, sizeof (PendingSegment), clear_pending_segment,
                         read_segment, &segments, error))
        return FALSE;
      take_segments (r, segments);
      return TRUE;
    }
  if (o == NULL || o->kind != KIND_DICT)
    return fail_at (error, GML_SNAPSHOT_ERROR_NOT_SNAPSHOT, 0,
                    _("the file is a pickle, but not of a memory snapshot (it holds no dict of "
                      "segments)."));
  if (!obj_claim (r, o, error))
    return FALSE;

  {
    gboolean has_segments = FALSE, has_traces = FALSE;

    FOREACH_PAIR (o, id, value)
      {
        if (id == r->keys[K_SEGMENTS])
          {
            g_clear_pointer (&segments, g_array_unref);
            if (!list_records (r, value, CTX_SEGMENTS, sizeof (PendingSegment),
                               clear_pending_segment, read_segment, &segments, error))
              return FALSE;
            has_segments = TRUE;
          }
        else if (id == r->keys[K_DEVICE_TRACES])
          {
            g_autoptr(GArray) traces = NULL;

            if (!list_records (r, value, CTX_DEVICE_TRACES, sizeof (GArray *), clear_array_pointer,
                               read_trace, &traces, error))
              return FALSE;
            if (traces->len > 1024)
              return fail_at (error, GML_SNAPSHOT_ERROR_TOO_LARGE, o->offset,
                              _("more than 1024 device traces."));
            for (guint d = 0; d < traces->len; d++)
              {
                GmlSnapshotDevice *dev = gml_snapshot_ensure_device (r->snap, d);

                g_array_unref (dev->entries);
                dev->entries = g_steal_pointer (&g_array_index (traces, GArray *, d));
              }
            has_traces = TRUE;
          }
        else if (id == r->keys[K_ALLOCATOR_SETTINGS])
          {
            if (!read_settings (r, value, error))
              return FALSE;
          }
        else if (id == r->keys[K_EXTERNAL_ANNOTATIONS])
          {
            g_autoptr(GArray) annotations = NULL;

            if (!list_records (r, value, CTX_ANNOTATIONS, sizeof (GmlSnapshotAnnotation), NULL,
                               read_annotation, &annotations, error))
              return FALSE;
            g_array_append_vals (r->snap->annotations, annotations->data, annotations->len);
            r->snap->seen |= GML_SNAP_SEEN_ANNOTATIONS;
          }
      }
    if (!has_segments && !has_traces)
      return fail_at (error, GML_SNAPSHOT_ERROR_NOT_SNAPSHOT, 0,
                      _("the file is a pickle, but not of a memory snapshot (it has neither "
                        "“segments” nor “device_traces”)."));
    if (segments != NULL)
      take_segments (r, segments);
  }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* The machine                                                               */

static gboolean
pop_mark (Reader  *r,
          gsize   *mark,
          GError **error)
{
  if (r->n_marks == 0)
    return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                    _("an instruction needs a MARK that is not there."));
  *mark = r->marks[--r->n_marks];
  if (*mark > r->sp)
    return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                    _("the stack is shorter than its MARK."));
  return TRUE;
}

static gboolean
stack_need (Reader  *r,
            gsize    n,
            GError **error)
{
  gsize floor = r->n_marks > 0 ? r->marks[r->n_marks - 1] : 0;

  if (r->sp < floor + n)
    return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                    _("an instruction takes more values than the stack holds."));
  return TRUE;
}

static gboolean
memo_put (Reader  *r,
          guint64  index,
          GError **error)
{
  Value *top;
  Obj *o;

  if (r->sp == 0 || (r->n_marks > 0 && r->marks[r->n_marks - 1] == r->sp))
    return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                    _("a memo instruction with nothing to store."));
  if (index >= r->max_memo)
    return fail_at (error, GML_SNAPSHOT_ERROR_TOO_LARGE, r->op_offset,
                    _("a memo index of %llu is out of range."), (unsigned long long) index);
  while (r->memo_len <= index)
    {
      if ((r->memo_len >> MEMO_CHUNK_BITS) == r->n_memo_chunks)
        {
          /* A new chunk: the values stored so far stay where they are, no
           * copy, no page touched twice. */
          gboolean huge = r->total >= HUGE_FILE;

          r->memo_chunks = g_renew (guint32 *, r->memo_chunks, r->n_memo_chunks + 1);
          r->memo_chunks[r->n_memo_chunks] = g_aligned_alloc (MEMO_CHUNK, sizeof (guint32),
                                                              huge ? MEMO_CHUNK * sizeof (guint32)
                                                                   : 64);
          if (huge)
            gml_snapshot_advise_huge (r->memo_chunks[r->n_memo_chunks],
                                      MEMO_CHUNK * sizeof (guint32));
          r->n_memo_chunks++;
        }
      *memo_cell (r, r->memo_len++) = CELL_INVALID;
    }
  top = &r->stack[r->sp - 1];
  if ((o = obj_get (r, top)) != NULL)
    {
      o->memo = (guint32) MIN (index, G_MAXUINT32 - 1);
      top->v.o.memo = (guint32) MIN (index + 1, G_MAXUINT32);
    }
  if (!memo_store (r, index, top))
    return fail_at (error, GML_SNAPSHOT_ERROR_TOO_LARGE, r->op_offset,
                    _("too many lists and dicts for a file of this size."));
  return TRUE;
}

static G_GNUC_NO_INLINE gboolean
memo_get (Reader  *r,
          guint64  index,
          GError **error)
{
  Value v;

  if (index >= r->memo_len || memo_type (r, index) == VT_INVALID)
    return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                    _("a reference to memo entry %llu, which was never stored."),
                    (unsigned long long) index);
  memo_load (r, index, &v);
  if (v.type == VT_OBJ)
    {
      Value tmp;

      v = *resolve (r, &v, &tmp);
    }
  return push (r, &v, error);
}

/* memo_get() of a string, number or record read before, with room on the
 * stack: most of the memo references of a snapshot. FALSE when memo_get()
 * must do it. */
static inline gboolean
memo_get_plain (Reader  *r,
                guint64  index)
{
  guint32 cell;

  if (G_UNLIKELY (index >= r->memo_len))
    return FALSE;
  cell = *memo_cell (r, index);
  /* A string, a frame, a frame list, a record: straight from the cell. */
  if (G_LIKELY ((cell & CELL_MASK) >= CELL_STR && (cell & CELL_MASK) <= CELL_NONE &&
                r->sp < r->stack_cap))
    {
      r->stack[r->sp++] = (Value) { cell_types[cell & CELL_MASK], 0, cell >> CELL_BITS, { 0 } };
      return TRUE;
    }
  return FALSE;
}

static gboolean
push_int (Reader *r,
          gint64  value,
          GError **error)
{
  Value v = { VT_INT, 0, 0, { 0 } };

  v.v.i = value;
  return push (r, &v, error);
}

/* LONG1 / LONG4: little-endian two's complement of @n bytes. */
static gboolean
push_long (Reader       *r,
           const guint8 *p,
           gsize         n,
           GError      **error)
{
  Value v = { VT_INT, 0, 0, { 0 } };
  gboolean negative = n > 0 && (p[n - 1] & 0x80);
  guint64 u = 0;

  if (n > 8)
    {
      /* Fits if the bytes above the eighth only extend the sign, or (for a
       * positive number) are zero above a 64-bit unsigned value. */
      guint8 fill = negative ? 0xff : 0x00;
      gboolean extends = TRUE;

      for (gsize i = 8; i < n; i++)
        if (p[i] != fill)
          extends = FALSE;
      if (!extends)
        v.flags = INT_BIG;
      else if (negative && !(p[7] & 0x80))
        v.flags = INT_BIG;
      else if (!negative && (p[7] & 0x80))
        v.flags = INT_U64;
      n = 8;
    }
  for (gsize i = 0; i < n; i++)
    u |= (guint64) p[i] << (8 * i);
  if (negative && n < 8)
    u |= ~G_GUINT64_CONSTANT (0) << (8 * n);
  v.v.u = u;
  return push (r, &v, error);
}

/* Text instructions of protocol 0 (INT, LONG, FLOAT, GET, PUT): a line. */
static gboolean
read_line (Reader  *r,
           char    *out,
           gsize    size,
           GError **error)
{
  gsize i = 0;

  for (;;)
    {
      guint8 c;

      if (!need (r, 1, error))
        return FALSE;
      c = r->buf[r->pos++];
      if (c == '\n')
        break;
      if (i + 1 >= size)
        return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                        _("a text number that is too long."));
      out[i++] = (char) c;
    }
  out[i] = '\0';
  return TRUE;
}

static gboolean
refuse_python_objects (Reader     *r,
                       const char *opcode,
                       GError    **error)
{
  char where[32];

  g_snprintf (where, sizeof where, "%" G_GUINT64_FORMAT, r->op_offset);
  g_set_error (error, GML_SNAPSHOT_ERROR, GML_SNAPSHOT_ERROR_PYTHON_OBJECTS,
               /* Translators: %s is a byte offset, the second %s a pickle instruction (GLOBAL,
                * REDUCE…). */
               _("Byte %s: this file holds Python objects (a %s instruction), not a PyTorch memory "
                 "snapshot — a model checkpoint, perhaps. It was not run: nothing in it was "
                 "executed."),
               where, opcode);
  return FALSE;
}

static gboolean
run (Reader  *r,
     GError **error)
{
  for (;;)
    {
      guint8 op;
      const guint8 *p;

      if (G_UNLIKELY (r->base + r->pos >= r->next_progress))
        {
          if (r->progress)
            r->progress (r->base + r->pos, r->total, r->progress_data);
          r->next_progress = r->base + r->pos + PROGRESS_EVERY;
          if (g_cancellable_set_error_if_cancelled (r->cancellable, error))
            {
              g_clear_error (error);
              g_set_error_literal (error, GML_SNAPSHOT_ERROR, GML_SNAPSHOT_ERROR_CANCELLED,
                                   _("Reading the snapshot was cancelled."));
              return FALSE;
            }
        }

      r->op_offset = r->base + r->pos;
      if (!need (r, 1, error))
        return FALSE;
      op = r->buf[r->pos++];

      switch (op)
        {
        case 0x80:   /* PROTO */
          if (!need (r, 1, error))
            return FALSE;
          r->snap->protocol = r->buf[r->pos++];
          if (r->snap->protocol > 5)
            return fail_at (error, GML_SNAPSHOT_ERROR_UNSUPPORTED, r->op_offset,
                            _("pickle protocol %u is newer than this reader knows (2 to 5)."),
                            r->snap->protocol);
          break;

        case 0x95:   /* FRAME: only a hint for buffering */
          if (!need (r, 8, error))
            return FALSE;
          r->pos += 8;
          break;

        case '.':    /* STOP */
          if (r->sp != 1 || r->n_marks != 0)
            return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                            _("the pickle ends with %zu values on its stack instead of one."),
                            r->sp);
          r->result = r->stack[0];
          r->stopped = TRUE;
          return TRUE;

        case '(':    /* MARK */
          if (r->n_marks == r->marks_cap)
            {
              if (r->marks_cap >= r->max_stack)
                return fail_at (error, GML_SNAPSHOT_ERROR_TOO_LARGE, r->op_offset,
                                _("the pickle nests deeper than a snapshot does."));
              r->marks_cap = MAX (r->marks_cap * 2, 64);
              r->marks = g_renew (gsize, r->marks, r->marks_cap);
            }
          r->marks[r->n_marks++] = r->sp;
          break;

        case '0':    /* POP */
          if (r->n_marks > 0 && r->marks[r->n_marks - 1] == r->sp)
            r->n_marks--;   /* POP of a mark: as Python does */
          else
            {
              if (!stack_need (r, 1, error))
                return FALSE;
              r->sp--;
            }
          break;

        case '1':    /* POP_MARK */
          {
            gsize mark = 0;

            if (!pop_mark (r, &mark, error))
              return FALSE;
            r->sp = mark;
          }
          break;

        case '2':    /* DUP */
          if (!stack_need (r, 1, error))
            return FALSE;
          {
            Value v = r->stack[r->sp - 1];

            if (!push (r, &v, error))
              return FALSE;
          }
          break;

        case 'N':    /* NONE */
          {
            Value v = { VT_NONE, 0, 0, { 0 } };

            if (!push (r, &v, error))
              return FALSE;
          }
          break;

        case 0x88:   /* NEWTRUE */
        case 0x89:   /* NEWFALSE */
          {
            Value v = { VT_BOOL, 0, 0, { 0 } };

            v.v.i = op == 0x88;
            if (!push (r, &v, error))
              return FALSE;
          }
          break;

        case 'J':    /* BININT */
          if (!need (r, 4, error))
            return FALSE;
          p = r->buf + r->pos;
          r->pos += 4;
          if (!push_int (r, (gint32) le32 (p), error))
            return FALSE;
          break;

        case 'K':    /* BININT1 */
          if (!need (r, 1, error))
            return FALSE;
          if (!push_int (r, r->buf[r->pos++], error))
            return FALSE;
          break;

        case 'M':    /* BININT2 */
          if (!need (r, 2, error))
            return FALSE;
          p = r->buf + r->pos;
          r->pos += 2;
          if (!push_int (r, p[0] | (p[1] << 8), error))
            return FALSE;
          break;

        case 0x8a:   /* LONG1 */
          {
            gsize n;

            if (!need (r, 1, error))
              return FALSE;
            n = r->buf[r->pos++];
            if (!need (r, n, error))
              return FALSE;
            p = r->buf + r->pos;
            r->pos += n;
            if (!push_long (r, p, n, error))
              return FALSE;
          }
          break;

        case 0x8b:   /* LONG4 */
          {
            gsize n;

            if (!need (r, 4, error))
              return FALSE;
            n = le32 (r->buf + r->pos);
            r->pos += 4;
            if ((gint32) n < 0)
              return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                              _("a negative length."));
            if (!need (r, n, error))
              return FALSE;
            p = r->buf + r->pos;
            r->pos += n;
            if (!push_long (r, p, n, error))
              return FALSE;
          }
          break;

        case 'I':    /* INT (text) */
        case 'L':    /* LONG (text) */
          {
            char line[64];
            gint64 value;
            char *end;

            if (!read_line (r, line, sizeof line, error))
              return FALSE;
            if (op == 'L' && line[0] != '\0' && line[strlen (line) - 1] == 'L')
              line[strlen (line) - 1] = '\0';
            if (op == 'I' && (g_str_equal (line, "00") || g_str_equal (line, "01")))
              {
                Value v = { VT_BOOL, 0, 0, { 0 } };

                v.v.i = line[1] == '1';
                if (!push (r, &v, error))
                  return FALSE;
                break;
              }
            errno = 0;
            value = g_ascii_strtoll (line, &end, 10);
            if (errno != 0 || end == line || *end != '\0')
              return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                              _("a malformed text number."));
            if (!push_int (r, value, error))
              return FALSE;
          }
          break;

        case 'F':    /* FLOAT (text) */
          {
            char line[64];
            Value v = { VT_FLOAT, 0, 0, { 0 } };
            char *end;

            if (!read_line (r, line, sizeof line, error))
              return FALSE;
            v.v.f = g_ascii_strtod (line, &end);
            if (end == line)
              return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                              _("a malformed text number."));
            if (!push (r, &v, error))
              return FALSE;
          }
          break;

        case 'G':    /* BINFLOAT: big-endian IEEE 754 double */
          {
            Value v = { VT_FLOAT, 0, 0, { 0 } };
            guint64 bits = 0;

            if (!need (r, 8, error))
              return FALSE;
            p = r->buf + r->pos;
            r->pos += 8;
            for (int i = 0; i < 8; i++)
              bits = (bits << 8) | p[i];
            memcpy (&v.v.f, &bits, sizeof bits);
            if (!push (r, &v, error))
              return FALSE;
          }
          break;

        case 0x8c:   /* SHORT_BINUNICODE */
          {
            gsize n;

            if (!need (r, 1, error))
              return FALSE;
            n = r->buf[r->pos++];
            if (!push_string (r, n, error))
              return FALSE;
          }
          break;

        case 'X':    /* BINUNICODE */
          if (!need (r, 4, error))
            return FALSE;
          {
            gsize n = le32 (r->buf + r->pos);

            r->pos += 4;
            if (!push_string (r, n, error))
              return FALSE;
          }
          break;

        case 0x8d:   /* BINUNICODE8 */
        case 0x8e:   /* BINBYTES8 */
        case 0x96:   /* BYTEARRAY8 */
        case 'B':    /* BINBYTES */
        case 'C':    /* SHORT_BINBYTES */
        case 'T':    /* BINSTRING */
        case 'U':    /* SHORT_BINSTRING */
          {
            gsize width = (op == 'C' || op == 'U') ? 1 : (op == 'B' || op == 'T') ? 4 : 8;
            guint64 n = 0;

            if (!need (r, width, error))
              return FALSE;
            p = r->buf + r->pos;
            for (gsize i = 0; i < width; i++)
              n |= (guint64) p[i] << (8 * i);
            r->pos += width;
            if (op == 'T' && (gint32) n < 0)
              return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                              _("a negative length."));
            if (n > r->total - (r->base + r->pos))
              return fail_at (error, GML_SNAPSHOT_ERROR_TRUNCATED, r->op_offset,
                              _("a length of %llu bytes runs past the end of the file."),
                              (unsigned long long) n);
            if (op == 0x8d)
              {
                if (!push_string (r, n, error))
                  return FALSE;
              }
            else
              {
                Value v = { VT_BYTES, 0, 0, { 0 } };

                /* Bytes never matter to a snapshot: skip them, a window at a time. */
                while (n > 0)
                  {
                    gsize step = (gsize) MIN (n, (guint64) READ_CHUNK);

                    if (!need (r, step, error))
                      return FALSE;
                    r->pos += step;
                    n -= step;
                  }
                if (!push (r, &v, error))
                  return FALSE;
              }
          }
          break;

        case ']':    /* EMPTY_LIST */
          if (!push_container (r, KIND_LIST, error))
            return FALSE;
          break;

        case '}':    /* EMPTY_DICT */
          if (!push_container (r, KIND_DICT, error))
            return FALSE;
          break;

        case ')':    /* EMPTY_TUPLE */
          if (!push_container (r, KIND_TUPLE, error))
            return FALSE;
          break;

        case 0x8f:   /* EMPTY_SET */
          if (!push_container (r, KIND_SET, error))
            return FALSE;
          break;

        case 0x85:   /* TUPLE1 */
        case 0x86:   /* TUPLE2 */
        case 0x87:   /* TUPLE3 */
        case 't':    /* TUPLE */
        case 'l':    /* LIST */
        case 'd':    /* DICT */
        case 0x91:   /* FROZENSET */
          {
            gsize first = 0, n;
            Value v;
            Obj *o;
            ObjKind kind = op == 'l' ? KIND_LIST : op == 'd' ? KIND_DICT :
                           op == 0x91 ? KIND_SET : KIND_TUPLE;

            if (op == 0x85 || op == 0x86 || op == 0x87)
              {
                n = op - 0x84;
                if (!stack_need (r, n, error))
                  return FALSE;
                first = r->sp - n;
              }
            else
              {
                if (!pop_mark (r, &first, error))
                  return FALSE;
                n = r->sp - first;
              }
            if (kind == KIND_DICT && n % 2 != 0)
              return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                              _("a dict built from an odd number of values."));
            if (!obj_new (r, kind, CTX_UNKNOWN, &v, error))
              return FALSE;
            o = obj_get (r, &v);
            for (gsize i = first; i < r->sp; i++)
              if (!obj_append (r, o, &r->stack[i], error))
                return FALSE;
            r->sp = first;
            if (!push (r, &v, error))
              return FALSE;
          }
          break;

        case 'a':    /* APPEND */
        case 'e':    /* APPENDS */
        case 0x90:   /* ADDITEMS */
          {
            gsize first = 0;
            Obj *list;

            if (op == 'a')
              {
                if (!stack_need (r, 2, error))
                  return FALSE;
                first = r->sp - 1;
              }
            else if (!pop_mark (r, &first, error))
              return FALSE;
            if (first == 0)
              return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                              _("items to append but no list to append them to."));
            list = obj_get (r, &r->stack[first - 1]);
            if (list == NULL || list->kind != (op == 0x90 ? KIND_SET : KIND_LIST))
              return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                              _("items appended to something that is not a list."));
            for (gsize i = first; i < r->sp; i++)
              {
                /* list_add() may grow the object array: look the list up again
                 * after it. */
                if (list == NULL && (list = obj_get (r, &r->stack[first - 1])) == NULL)
                  return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                                  _("a list that was already read is appended to."));
                /* A frame read before, into a stack's list: most of a trace. */
                if (list->ctx == CTX_FRAMES && r->stack[i].type == VT_FRAME)
                  {
                    frames_append (r, list, r->stack[i].h);
                    continue;
                  }
                list->busy = TRUE;
                if (!list_add (r, list, &r->stack[i], error))
                  return FALSE;
                list = obj_get (r, &r->stack[first - 1]);
                if (list != NULL)
                  list->busy = FALSE;
                list = NULL;
              }
            r->sp = first;
          }
          break;

        case 's':    /* SETITEM */
        case 'u':    /* SETITEMS */
          {
            gsize first = 0;
            Obj *dict;

            if (op == 's')
              {
                if (!stack_need (r, 3, error))
                  return FALSE;
                first = r->sp - 2;
              }
            else if (!pop_mark (r, &first, error))
              return FALSE;
            if (first == 0 || (r->sp - first) % 2 != 0)
              return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                              _("dict items without a dict, or a key without its value."));
            dict = NULL;
            for (gsize i = first; i < r->sp; i += 2)
              {
                /* dict_set() may grow the object array: look the dict up again
                 * after it. */
                if (dict == NULL && ((dict = obj_get (r, &r->stack[first - 1])) == NULL ||
                                     dict->kind != KIND_DICT))
                  return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                                  _("items stored in something that is not a dict."));
                /* Text, a number or a record read before under a text key: what
                 * dict_set() would store, without its look-ups. */
                if (r->stack[i].type == VT_STR && r->stack[i + 1].type != VT_OBJ)
                  {
                    if (!obj_append (r, dict, &r->stack[i], error) ||
                        !obj_append (r, dict, &r->stack[i + 1], error))
                      return FALSE;
                    continue;
                  }
                dict->busy = TRUE;
                if (!dict_set (r, dict, &r->stack[i], &r->stack[i + 1], error))
                  return FALSE;
                dict = obj_get (r, &r->stack[first - 1]);
                if (dict != NULL)
                  dict->busy = FALSE;
                dict = NULL;
              }
            r->sp = first;
            /* A stack frame is complete with its one batch of items: read it
             * now, so that every later reference shares its id. */
            dict = obj_get (r, &r->stack[first - 1]);
            if (dict != NULL && dict->ctx == CTX_FRAME)
              {
                Value frame = { VT_FRAME, 0, 0, { 0 } };

                if (!read_frame (r, &r->stack[first - 1], &frame.h, error))
                  return FALSE;
                r->stack[first - 1] = frame;
              }
          }
          break;

        case 0x94:   /* MEMOIZE */
          if (!memo_put (r, r->memo_len, error))
            return FALSE;
          break;

        case 'q':    /* BINPUT */
          if (!need (r, 1, error))
            return FALSE;
          if (!memo_put (r, r->buf[r->pos++], error))
            return FALSE;
          break;

        case 'r':    /* LONG_BINPUT */
          if (!need (r, 4, error))
            return FALSE;
          p = r->buf + r->pos;
          r->pos += 4;
          if (!memo_put (r, le32 (p), error))
            return FALSE;
          break;

        case 'h':    /* BINGET */
          if (!need (r, 1, error))
            return FALSE;
          {
            guint index = r->buf[r->pos++];

            if (!memo_get_plain (r, index) && !memo_get (r, index, error))
              return FALSE;
          }
          break;

        case 'j':    /* LONG_BINGET */
          if (!need (r, 4, error))
            return FALSE;
          p = r->buf + r->pos;
          r->pos += 4;
          if (!memo_get_plain (r, le32 (p)) && !memo_get (r, le32 (p), error))
            return FALSE;
          break;

        case 'p':    /* PUT (text) */
        case 'g':    /* GET (text) */
          {
            char line[32];
            guint64 index;

            if (!read_line (r, line, sizeof line, error))
              return FALSE;
            if (!g_ascii_string_to_unsigned (line, 10, 0, G_MAXUINT32, &index, NULL))
              return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                              _("a malformed memo index."));
            if (!(op == 'p' ? memo_put (r, index, error) : memo_get (r, index, error)))
              return FALSE;
          }
          break;

        case 'c':  return refuse_python_objects (r, "GLOBAL", error);
        case 0x93: return refuse_python_objects (r, "STACK_GLOBAL", error);
        case 'R':  return refuse_python_objects (r, "REDUCE", error);
        case 'b':  return refuse_python_objects (r, "BUILD", error);
        case 'i':  return refuse_python_objects (r, "INST", error);
        case 'o':  return refuse_python_objects (r, "OBJ", error);
        case 0x81: return refuse_python_objects (r, "NEWOBJ", error);
        case 0x92: return refuse_python_objects (r, "NEWOBJ_EX", error);
        case 0x82: return refuse_python_objects (r, "EXT1", error);
        case 0x83: return refuse_python_objects (r, "EXT2", error);
        case 0x84: return refuse_python_objects (r, "EXT4", error);
        case 'P':  return refuse_python_objects (r, "PERSID", error);
        case 'Q':  return refuse_python_objects (r, "BINPERSID", error);

        case 'S':    /* STRING (text, quoted) */
        case 'V':    /* UNICODE (raw-unicode-escape) */
        case 0x97:   /* NEXT_BUFFER */
        case 0x98:   /* READONLY_BUFFER */
          return fail_at (error, GML_SNAPSHOT_ERROR_UNSUPPORTED, r->op_offset,
                          _("instruction 0x%02x is valid in a pickle but never used by a memory "
                            "snapshot."),
                          op);

        default:
          if (r->op_offset == 0)
            return fail_at (error, GML_SNAPSHOT_ERROR_NOT_PICKLE, 0,
                            _("this is not a pickle file, so not a PyTorch memory snapshot."));
          return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, r->op_offset,
                          _("unknown pickle instruction 0x%02x: the file is damaged."), op);
        }
    }
}

static void
reader_init (Reader       *r,
             GmlSnapshot  *snap,
             guint64       total)
{
  memset (r, 0, sizeof *r);
  r->snap = snap;
  r->fd = -1;
  r->total = total;
  r->objs = g_array_new (FALSE, FALSE, sizeof (Obj));
  r->memo_overflow = g_array_new (FALSE, FALSE, sizeof (Value));
  for (guint i = 0; i < N_ITEM_CLASSES; i++)
    r->item_pool[i] = g_new (Value *, ITEM_POOL_SIZE);
  /* Caps in proportion to the file: a real snapshot uses one memo entry per
   * 25–40 bytes and keeps only a few thousand values on its stack. */
  r->max_memo = total / 4 + 65536;
  r->max_stack = total / 2 + 65536;
  r->max_items = total / 2 + 65536;
  r->max_objs = total / 4 + 65536;
  memset (r->key_by_id, N_KEYS, sizeof r->key_by_id);
  for (guint k = 0; k < N_KEYS; k++)
    {
      r->keys[k] = gml_snapshot_intern (snap, key_names[k], strlen (key_names[k]));
      g_assert (r->keys[k] <= N_KEYS);
      r->key_by_id[r->keys[k]] = k;
    }
  r->n_key_ids = N_KEYS + 1;
}

static void
reader_clear (Reader *r)
{
  for (guint i = 0; i < r->objs->len; i++)
    {
      Obj *o = obj_at (r, i);

      if (o->live)
        {
          g_free (o->items);
          free_typed (o);
        }
    }
  g_array_unref (r->objs);
  g_free (r->free_objs);
  for (guint i = 0; i < N_ITEM_CLASSES; i++)
    {
      for (guint j = 0; j < r->n_pooled[i]; j++)
        g_free (r->item_pool[i][j]);
      g_free (r->item_pool[i]);
    }
  g_free (r->stack);
  g_free (r->marks);
  for (gsize i = 0; i < r->n_memo_chunks; i++)
    g_aligned_free (r->memo_chunks[i]);
  g_free (r->memo_chunks);
  g_array_unref (r->memo_overflow);
  g_free (r->overflow_free);
  if (r->owns_buf)
    g_free (r->buf);
  if (r->fd >= 0)
    close (r->fd);
}

static GmlSnapshot *
reader_finish (Reader  *r,
               GError **error)
{
  g_autoptr(GmlSnapshot) snap = r->snap;
  gboolean ok;

  r->snap = NULL;
  if (r->len >= 4 && memcmp (r->buf, "PK\003\004", 4) == 0)
    {
      g_set_error_literal (error, GML_SNAPSHOT_ERROR, GML_SNAPSHOT_ERROR_NOT_PICKLE,
                           _("This is a ZIP archive, as torch.save() writes for model checkpoints, "
                             "not a memory snapshot. Nothing in it was run."));
      return NULL;
    }
  r->snap = snap;
  ok = run (r, error) && read_root (r, &r->result, error);
  r->snap = NULL;
  if (!ok)
    {
      /* Protocols 2 to 5 start with PROTO: anything else that fails to read
       * was not a pickle to begin with (a text file, JSON, an image). Python
       * objects of protocol 0 or 1 keep their own message. */
      if (r->len > 0 && r->buf[0] != 0x80 && error != NULL && *error != NULL &&
          (*error)->domain == GML_SNAPSHOT_ERROR &&
          (*error)->code != GML_SNAPSHOT_ERROR_PYTHON_OBJECTS &&
          (*error)->code != GML_SNAPSHOT_ERROR_IO &&
          (*error)->code != GML_SNAPSHOT_ERROR_CANCELLED)
        {
          g_clear_error (error);
          g_set_error_literal (error, GML_SNAPSHOT_ERROR, GML_SNAPSHOT_ERROR_NOT_PICKLE,
                               _("This is not a pickle of protocol 2 to 5, so not a PyTorch memory "
                                 "snapshot (torch.cuda.memory._dump_snapshot() writes those)."));
        }
      return NULL;
    }
  gml_snapshot_finish (snap);
  return g_steal_pointer (&snap);
}

GmlSnapshot *
gml_snapshot_load_data (const guint8 *data,
                        gsize         length,
                        GError      **error)
{
  Reader r;
  GmlSnapshot *snap;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  reader_init (&r, gml_snapshot_new_empty (), length);
  r.buf = (guint8 *) data;
  r.len = length;
  r.buf_size = length;
  r.next_progress = G_MAXUINT64;
  snap = reader_finish (&r, error);
  reader_clear (&r);
  return snap;
}

GmlSnapshot *
gml_snapshot_load (const char              *path,
                   GmlSnapshotProgressFunc  progress,
                   gpointer                 user_data,
                   GCancellable            *cancellable,
                   GError                 **error)
{
  GStatBuf st;
  Reader r;
  GmlSnapshot *snap;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      int saved = errno;
      g_autofree char *display = g_filename_display_name (path);

      if (fd >= 0)
        close (fd);
      g_set_error (error, GML_SNAPSHOT_ERROR, GML_SNAPSHOT_ERROR_IO,
                   _("Could not open “%s”: %s"), display, g_strerror (saved));
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_autofree char *display = g_filename_display_name (path);

      close (fd);
      g_set_error (error, GML_SNAPSHOT_ERROR, GML_SNAPSHOT_ERROR_IO,
                   _("“%s” is not a regular file."), display);
      return NULL;
    }
  if (st.st_size == 0)
    {
      close (fd);
      g_set_error_literal (error, GML_SNAPSHOT_ERROR, GML_SNAPSHOT_ERROR_NOT_PICKLE,
                           _("The file is empty."));
      return NULL;
    }
#ifdef POSIX_FADV_SEQUENTIAL
  posix_fadvise (fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif

  reader_init (&r, gml_snapshot_new_empty (), st.st_size);
  r.fd = fd;
  r.buf_size = MIN ((guint64) READ_CHUNK, (guint64) st.st_size);
  r.buf = g_malloc (r.buf_size);
  r.owns_buf = TRUE;
  r.progress = progress;
  r.progress_data = user_data;
  r.cancellable = cancellable;
  /* Read the first window now, so a ZIP archive can be told by its magic. */
  if (!fill (&r, MIN ((guint64) 4, (guint64) st.st_size), error))
    {
      g_clear_pointer (&r.snap, gml_snapshot_free);
      reader_clear (&r);
      return NULL;
    }
  snap = reader_finish (&r, error);
  reader_clear (&r);
  if (snap != NULL && progress != NULL)
    progress (st.st_size, st.st_size, user_data);
  return snap;
}

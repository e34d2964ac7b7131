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
#include "gml-memory.h"
#include <glib/gstdio.h>

#include "gml-snapshot-reader-private.h"






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

/* What giving an object back and keeping it as a stand-in share: the memo slot
 * that held it now holds @replacement, and its items are freed. */
static void
obj_empty (Reader      *r,
           Obj         *o,
           guint32      index,
           const Value *replacement)
{
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
}

/* Gives the object back; the memo slot that held it now holds @replacement
 * (the records it became, or VT_CONSUMED). */
void
_gml_reader_obj_release (Reader      *r,
                         Obj         *o,
                         const Value *replacement)
{
  guint32 index = (guint32) (o - (Obj *) r->objs->data);

  obj_empty (r, o, index, replacement);
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
void
_gml_reader_obj_forward (Reader      *r,
                         Obj         *o,
                         const Value *replacement)
{
  obj_empty (r, o, (guint32) (o - (Obj *) r->objs->data), replacement);
  o->kind = KIND_FORWARD;
  o->busy = FALSE;
  o->fwd_type = replacement->type;
  o->fwd_id = replacement->h;
}


/* Marks @o as being read. A pickle can make a list or dict that holds itself
 * (a block whose "frames" is the list of blocks it is in); a snapshot never
 * does, and reading such a container while it is read or filled would take it
 * apart under the reader's feet. */
gboolean
_gml_reader_obj_claim (Reader  *r,
                       Obj     *o,
                       GError **error)
{
  if (o->busy)
    return fail_at (error, GML_SNAPSHOT_ERROR_CORRUPT, o->offset,
                    _("a list or dict contains itself, which a memory snapshot never does."));
  o->busy = TRUE;
  return TRUE;
}

gboolean
_gml_reader_obj_append_slow (Reader      *r,
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


/* ------------------------------------------------------------------------- */
/* Typed payloads                                                            */

static void
free_typed (Obj *o)
{
  g_clear_pointer ((GArray **) &o->typed, g_array_unref);
  g_clear_pointer (&o->frames_own, g_array_unref);
}

void
_gml_reader_clear_pending_segment (gpointer data)
{
  PendingSegment *ps = data;

  g_clear_pointer (&ps->blocks, g_array_unref);
}

void
_gml_reader_clear_array_pointer (gpointer data)
{
  g_clear_pointer ((GArray **) data, g_array_unref);
}

GArray *
_gml_reader_records_new (gsize          record_size,
                         GDestroyNotify clear)
{
  GArray *array = g_array_new (FALSE, FALSE, record_size);

  if (clear != NULL)
    g_array_set_clear_func (array, clear);
  return array;
}

/* ------------------------------------------------------------------------- */
/* Strings                                                                   */

gboolean
_gml_reader_push_slow (Reader      *r,
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
    return _gml_reader_records_new (sizeof (GmlSnapshotEntry), NULL);
  r->trace_reserved = TRUE;
  room = (r->total - MIN (r->total, r->op_offset)) / 48;
  if (room < 65536 || room > G_MAXUINT / 2)
    return _gml_reader_records_new (sizeof (GmlSnapshotEntry), NULL);
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
        o->typed = _gml_reader_records_new (sizeof (PendingSegment),
                                            _gml_reader_clear_pending_segment);
      return _gml_reader_read_segment (r, v, o->typed, error);
    case CTX_BLOCKS:
      if (o->typed == NULL)
        o->typed = _gml_reader_records_new (sizeof (PendingBlock), NULL);
      return _gml_reader_read_block (r, v, o->typed, error);
    case CTX_HISTORY:
      if (o->typed == NULL)
        o->typed = _gml_reader_records_new (sizeof (HistoryItem), NULL);
      return _gml_reader_read_history_item (r, v, o->typed, error);
    case CTX_TRACE:
      if (o->typed == NULL)
        o->typed = trace_records_new (r);
      return _gml_reader_read_entry (r, v, o->typed, error);
    case CTX_ANNOTATIONS:
      if (o->typed == NULL)
        o->typed = _gml_reader_records_new (sizeof (GmlSnapshotAnnotation), NULL);
      return _gml_reader_read_annotation (r, v, o->typed, error);
    case CTX_FRAMES:
      {
        guint32 frame;

        if (!_gml_reader_read_frame (r, v, &frame, error))
          return FALSE;
        frames_append (r, o, frame);
        return TRUE;
      }
    case CTX_DEVICE_TRACES:
      if (o->typed == NULL)
        o->typed = _gml_reader_records_new (sizeof (GArray *), _gml_reader_clear_array_pointer);
      return _gml_reader_read_trace (r, v, o->typed, error);
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

      if (!_gml_reader_frames_from_value (r, value, &frames.h, error))
        return FALSE;
      return obj_append (r, o, key, error) && obj_append (r, o, &frames, error);
    }
  return obj_append (r, o, key, error) && obj_append (r, o, value, error);
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
            gml_advise_huge_pages (r->memo_chunks[r->n_memo_chunks],
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

/* LONG1 / LONG4: little-endian two's complement of the next @n bytes, read
 * here as push_string() reads its text. */
static gboolean
push_long (Reader  *r,
           gsize    n,
           GError **error)
{
  Value v = { VT_INT, 0, 0, { 0 } };
  const guint8 *p;
  gboolean negative;
  guint64 u = 0;

  if (!need (r, n, error))
    return FALSE;
  p = r->buf + r->pos;
  r->pos += n;
  negative = n > 0 && (p[n - 1] & 0x80);

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
            if (!push_long (r, n, error))
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
            if (!push_long (r, n, error))
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

                if (!_gml_reader_read_frame (r, &r->stack[first - 1], &frame.h, error))
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
      r->keys[k] = gml_snapshot_intern (snap, _gml_reader_key_names[k],
                                        strlen (_gml_reader_key_names[k]));
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
  ok = run (r, error) && _gml_reader_read_root (r, &r->result, error);
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

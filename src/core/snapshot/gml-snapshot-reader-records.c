/* gml-snapshot-reader-records.c — the snapshot reader's records: a
 * segment, block, trace entry, frame, annotation, the allocator settings and
 * the root dict, each read from the generic values the pickle machine
 * (gml-snapshot-reader.c) built, into the GmlSnapshot being loaded.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot"

#include "config.h"

#include <string.h>

#include "gml-snapshot-reader-private.h"

const char * const _gml_reader_key_names[N_KEYS] = {
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
                  _("In %s, “%s” should be %s."), describe_ctx (rec->ctx),
                  _gml_reader_key_names[key],
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
  if (!_gml_reader_obj_claim (r, o, error))
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

gboolean
_gml_reader_read_frame (Reader      *r,
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
    _gml_reader_obj_forward (r, o, &replacement);
  else
    _gml_reader_obj_release (r, o, &replacement);
  return TRUE;
}

/* A frame list: already read (VT_FRAMES), streamed (CTX_FRAMES with its frame
 * ids in typed), or a generic list of frame dicts. */
gboolean
_gml_reader_frames_from_value (Reader      *r,
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
  if (!_gml_reader_obj_claim (r, o, error))
    return FALSE;
  /* Streamed frames first, then any items read generically. */
  for (guint32 i = 0; i < o->len; i++)
    {
      guint32 frame;

      if (!_gml_reader_read_frame (r, &o->items[i], &frame, error))
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
    _gml_reader_obj_release (r, o, &replacement);
  else
    _gml_reader_obj_forward (r, o, &replacement);
  return TRUE;
}


gboolean
_gml_reader_read_history_item (Reader      *r,
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
          if (!_gml_reader_frames_from_value (r, value, &item.frames, error))
            return FALSE;
        }
    }
  g_array_append_val (out, item);
  _gml_reader_obj_release (r, o, &consumed_value);
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
      *out = _gml_reader_records_new (record_size, clear);
      return TRUE;
    }
  if (o == NULL || (o->kind != KIND_LIST && o->kind != KIND_TUPLE))
    {
      /* Translators: %s is a key of the snapshot ("blocks", "segments"). */
      return fail_at (error, GML_SNAPSHOT_ERROR_WRONG_TYPE, o ? o->offset : r->op_offset,
                      _("“%s” should be a list."), describe_ctx (ctx));
    }
  if (!_gml_reader_obj_claim (r, o, error))
    return FALSE;
  if (o->ctx == ctx && o->typed != NULL)
    {
      /* Streamed: take the records, then read what came after them generically. */
      *out = g_steal_pointer ((GArray **) &o->typed);
    }
  else
    *out = _gml_reader_records_new (record_size, clear);
  for (guint32 i = 0; i < o->len; i++)
    if (!func (r, &o->items[i], *out, error))
      {
        g_clear_pointer (out, g_array_unref);
        return FALSE;
      }
  _gml_reader_obj_release (r, o, &consumed_value);
  return TRUE;
}

gboolean
_gml_reader_read_block (Reader      *r,
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
          if (!_gml_reader_frames_from_value (r, value, &pb.block.frames, error))
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
          if (!list_records (r, value, CTX_HISTORY, sizeof (HistoryItem), NULL,
                             _gml_reader_read_history_item,
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
  _gml_reader_obj_release (r, o, &consumed_value);
  return TRUE;
}

gboolean
_gml_reader_read_segment (Reader      *r,
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
          if (!_gml_reader_frames_from_value (r, value, &ps.segment.frames, error))
            goto fail;
          r->snap->seen |= GML_SNAP_SEEN_SEGMENT_FRAMES;
          break;
        case K_BLOCKS:
          g_clear_pointer (&ps.blocks, g_array_unref);
          if (!list_records (r, value, CTX_BLOCKS, sizeof (PendingBlock), NULL,
                             _gml_reader_read_block,
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
  _gml_reader_obj_release (r, o, &consumed_value);
  return TRUE;

fail:
  g_clear_pointer (&ps.blocks, g_array_unref);
  return FALSE;
}

gboolean
_gml_reader_read_entry (Reader      *r,
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
          if (!_gml_reader_frames_from_value (r, value, &e.frames, error))
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
  _gml_reader_obj_release (r, o, &consumed_value);
  return TRUE;
}

gboolean
_gml_reader_read_trace (Reader      *r,
                        const Value *v,
                        GArray      *out,
                        GError     **error)
{
  GArray *entries = NULL;

  if (!list_records (r, v, CTX_TRACE, sizeof (GmlSnapshotEntry), NULL, _gml_reader_read_entry,
                     &entries, error))
    return FALSE;
  g_array_append_val (out, entries);
  return TRUE;
}

gboolean
_gml_reader_read_annotation (Reader      *r,
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
  _gml_reader_obj_release (r, o, &consumed_value);
  return TRUE;
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
              guint64 key, divisions = 0;
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

gboolean
_gml_reader_read_root (Reader      *r,
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
      if (!list_records (r, v, CTX_SEGMENTS, sizeof (PendingSegment),
                         _gml_reader_clear_pending_segment,
                         _gml_reader_read_segment, &segments, error))
        return FALSE;
      take_segments (r, segments);
      return TRUE;
    }
  if (o == NULL || o->kind != KIND_DICT)
    return fail_at (error, GML_SNAPSHOT_ERROR_NOT_SNAPSHOT, 0,
                    _("the file is a pickle, but not of a memory snapshot (it holds no dict of "
                      "segments)."));
  if (!_gml_reader_obj_claim (r, o, error))
    return FALSE;

  {
    gboolean has_segments = FALSE, has_traces = FALSE;

    FOREACH_PAIR (o, id, value)
      {
        if (id == r->keys[K_SEGMENTS])
          {
            g_clear_pointer (&segments, g_array_unref);
            if (!list_records (r, value, CTX_SEGMENTS, sizeof (PendingSegment),
                               _gml_reader_clear_pending_segment, _gml_reader_read_segment,
                               &segments, error))
              return FALSE;
            has_segments = TRUE;
          }
        else if (id == r->keys[K_DEVICE_TRACES])
          {
            g_autoptr(GArray) traces = NULL;

            if (!list_records (r, value, CTX_DEVICE_TRACES, sizeof (GArray *),
                               _gml_reader_clear_array_pointer,
                               _gml_reader_read_trace, &traces, error))
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
                               _gml_reader_read_annotation, &annotations, error))
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

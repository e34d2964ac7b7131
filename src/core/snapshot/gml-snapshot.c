/* gml-snapshot.c — the snapshot model: storage, interning and accessors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot"

#include "config.h"

#include <string.h>

#include "gml-i18n.h"

#include "gml-snapshot-private.h"

G_DEFINE_QUARK (gml-snapshot-error-quark, gml_snapshot_error)

static const char * const action_names[GML_N_SNAP_ACTIONS] = {
  "alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
  "segment_map", "segment_unmap", "snapshot", "oom", "other",
};

static const char * const state_names[] = {
  "inactive", "active_allocated", "active_pending_free", "unknown",
};

static void
device_free (gpointer data)
{
  GmlSnapshotDevice *dev = data;

  g_array_unref (dev->segments);
  g_array_unref (dev->blocks);
  g_array_unref (dev->entries);
  g_free (dev);
}

GmlSnapshot *
gml_snapshot_new_empty (void)
{
  GmlSnapshot *self = g_new0 (GmlSnapshot, 1);
  gsize zero = 0;
  guint32 empty[2] = { 0, 0 };
  GmlSnapshotFrame no_frame = { 0, 0, 0 };

  self->chars = g_byte_array_new ();
  self->string_offsets = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_array_append_val (self->string_offsets, zero);   /* id 0: NULL */
  self->n_string_slots = 1024;
  self->string_slots = g_new0 (guint32, self->n_string_slots);
  self->string_hashes = g_new0 (guint32, self->n_string_slots);
  self->frames = g_array_new (FALSE, FALSE, sizeof (GmlSnapshotFrame));
  g_array_append_val (self->frames, no_frame);
  self->frame_lists = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_append_vals (self->frame_lists, empty, 2);
  self->n_list_slots = 1024;
  self->list_slots = g_new0 (guint32, self->n_list_slots);
  self->list_hashes = g_new0 (guint32, self->n_list_slots);
  self->streams = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->stream_index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->devices = g_ptr_array_new_with_free_func (device_free);
  self->annotations = g_array_new (FALSE, FALSE, sizeof (GmlSnapshotAnnotation));
  self->settings.max_split_size = -1;
  return self;
}

void
gml_snapshot_free (GmlSnapshot *self)
{
  if (self == NULL)
    return;
  g_byte_array_unref (self->chars);
  g_array_unref (self->string_offsets);
  g_free (self->string_slots);
  g_free (self->string_hashes);
  g_array_unref (self->frames);
  g_array_unref (self->frame_lists);
  g_free (self->frame_items);
  g_free (self->list_slots);
  g_free (self->list_hashes);
  g_array_unref (self->streams);
  g_hash_table_unref (self->stream_index);
  g_ptr_array_unref (self->devices);
  g_array_unref (self->annotations);
  g_free (self->frame_flags);
  g_free (self->list_where);
  g_free (self->list_flags);
  g_free (self->settings.alloc_conf);
  g_free (self);
}

/* ------------------------------------------------------------------------- */
/* Strings                                                                   */

static inline guint32
hash_bytes (const char *str,
            gsize       len)
{
  guint32 h = 2166136261u;   /* FNV-1a */

  for (gsize i = 0; i < len; i++)
    h = (h ^ (guint8) str[i]) * 16777619u;
  return h | 1;   /* never 0 */
}

static inline const char *
string_at (GmlSnapshot *self,
           guint32      id)
{
  return (const char *) self->chars->data + g_array_index (self->string_offsets, gsize, id);
}

static void
grow_string_table (GmlSnapshot *self)
{
  gsize n = self->n_string_slots * 2;
  guint32 *slots = g_new0 (guint32, n);
  guint32 *hashes = g_new0 (guint32, n);

  for (gsize i = 0; i < self->n_string_slots; i++)
    {
      gsize j;

      if (self->string_slots[i] == 0)
        continue;
      for (j = self->string_hashes[i] & (n - 1); slots[j] != 0; j = (j + 1) & (n - 1))
        ;
      slots[j] = self->string_slots[i];
      hashes[j] = self->string_hashes[i];
    }
  g_free (self->string_slots);
  g_free (self->string_hashes);
  self->string_slots = slots;
  self->string_hashes = hashes;
  self->n_string_slots = n;
}

static inline gsize
string_length (GmlSnapshot *self,
               guint32      id)
{
  gsize start = g_array_index (self->string_offsets, gsize, id);
  gsize end = id + 1 < self->string_offsets->len
              ? g_array_index (self->string_offsets, gsize, id + 1) : self->chars->len;

  return end - start - 1;   /* without its NUL */
}

guint32
gml_snapshot_intern (GmlSnapshot *self,
                     const char  *str,
                     gsize        len)
{
  guint32 h = hash_bytes (str, len);
  gsize mask = self->n_string_slots - 1;
  gsize i;
  guint32 id;
  gsize offset;
  static const guint8 nul = 0;

  for (i = h & mask; self->string_slots[i] != 0; i = (i + 1) & mask)
    {
      id = self->string_slots[i];
      if (self->string_hashes[i] == h && string_length (self, id) == len &&
          memcmp (string_at (self, id), str, len) == 0)
        return id;
    }

  id = self->string_offsets->len;
  offset = self->chars->len;
  g_array_append_val (self->string_offsets, offset);
  g_byte_array_append (self->chars, (const guint8 *) str, len);
  g_byte_array_append (self->chars, &nul, 1);
  self->string_slots[i] = id;
  self->string_hashes[i] = h;
  if ((gsize) id * 2 > self->n_string_slots)
    grow_string_table (self);
  return id;
}

guint32
gml_snapshot_lookup_string (GmlSnapshot *self,
                            const char  *str)
{
  gsize len = strlen (str);
  guint32 h = hash_bytes (str, len);
  gsize mask = self->n_string_slots - 1;

  for (gsize i = h & mask; self->string_slots[i] != 0; i = (i + 1) & mask)
    {
      guint32 id = self->string_slots[i];

      if (self->string_hashes[i] == h && string_length (self, id) == len &&
          memcmp (string_at (self, id), str, len) == 0)
        return id;
    }
  return 0;
}

const char *
gml_snapshot_get_string (GmlSnapshot *self,
                         guint32      id)
{
  if (id == 0 || id >= self->string_offsets->len)
    return NULL;
  return string_at (self, id);
}

/* ------------------------------------------------------------------------- */
/* Frame lists                                                               */

void
gml_snapshot_reserve_frame_items (GmlSnapshot *self,
                                  gsize        n)
{
  gsize cap;

  if (n <= self->frame_items_cap - self->n_frame_items)
    return;
  cap = MAX (self->frame_items_cap * 2, 1024);
  if (cap - self->n_frame_items < n)
    cap = self->n_frame_items + n;
  /* g_renew() aborts on an overflowing size; the reader's caps keep it far. */
  self->frame_items = g_renew (guint32, self->frame_items, cap);
  self->frame_items_cap = cap;
}

static guint32
hash_ids (const guint32 *ids,
          gsize          n)
{
  guint32 h = 2166136261u;

  for (gsize i = 0; i < n; i++)
    h = (h ^ ids[i]) * 16777619u;
  return h | 1;
}

static void
grow_list_table (GmlSnapshot *self)
{
  gsize n = self->n_list_slots * 2;
  guint32 *slots = g_new0 (guint32, n);
  guint32 *hashes = g_new0 (guint32, n);

  for (gsize i = 0; i < self->n_list_slots; i++)
    {
      gsize j;

      if (self->list_slots[i] == 0)
        continue;
      for (j = self->list_hashes[i] & (n - 1); slots[j] != 0; j = (j + 1) & (n - 1))
        ;
      slots[j] = self->list_slots[i];
      hashes[j] = self->list_hashes[i];
    }
  g_free (self->list_slots);
  g_free (self->list_hashes);
  self->list_slots = slots;
  self->list_hashes = hashes;
  self->n_list_slots = n;
}

guint32
gml_snapshot_add_frame_list (GmlSnapshot *self,
                             gsize        first,
                             gsize        count)
{
  const guint32 *ids;
  guint32 h, pair[2], id;
  gsize mask = self->n_list_slots - 1;
  gsize i;

  /* Not even the address of element 0 before knowing there is one: an empty
   * array's data is NULL. */
  if (count == 0)
    return 0;
  ids = &self->frame_items[first];
  h = hash_ids (ids, count);
  for (i = h & mask; self->list_slots[i] != 0; i = (i + 1) & mask)
    {
      guint32 other = self->list_slots[i];
      guint32 o_first = g_array_index (self->frame_lists, guint32, other * 2);
      guint32 o_count = g_array_index (self->frame_lists, guint32, other * 2 + 1);

      if (self->list_hashes[i] == h && o_count == count &&
          memcmp (&self->frame_items[o_first], ids, count * sizeof (guint32)) == 0)
        {
          /* Shared: drop this copy if it is the last thing stored. */
          if (first + count == self->n_frame_items)
            self->n_frame_items = first;
          return other;
        }
    }
  pair[0] = (guint32) first;
  pair[1] = (guint32) count;
  g_array_append_vals (self->frame_lists, pair, 2);
  id = self->frame_lists->len / 2 - 1;
  self->list_slots[i] = id;
  self->list_hashes[i] = h;
  if ((gsize) id * 2 > self->n_list_slots)
    grow_list_table (self);
  return id;
}

/* ------------------------------------------------------------------------- */
/* Streams, devices                                                          */

guint32
gml_snapshot_stream_index (GmlSnapshot *self,
                           guint64      raw)
{
  gpointer value;
  gint64 *key;

  if (self->last_stream != 0 && self->last_stream_raw == raw)
    return self->last_stream - 1;
  if (!g_hash_table_lookup_extended (self->stream_index, &raw, NULL, &value))
    {
      key = g_new (gint64, 1);
      *key = (gint64) raw;
      g_array_append_val (self->streams, raw);
      value = GUINT_TO_POINTER (self->streams->len);
      g_hash_table_insert (self->stream_index, key, value);
    }
  self->last_stream_raw = raw;
  self->last_stream = GPOINTER_TO_UINT (value);
  return self->last_stream - 1;
}

guint64
gml_snapshot_get_stream (GmlSnapshot *self,
                         guint32      index)
{
  g_return_val_if_fail (index < self->streams->len, 0);
  return g_array_index (self->streams, guint64, index);
}

guint
gml_snapshot_get_n_streams (GmlSnapshot *self)
{
  return self->streams->len;
}

GmlSnapshotDevice *
gml_snapshot_ensure_device (GmlSnapshot *self,
                            guint        device)
{
  while (self->devices->len <= device)
    {
      GmlSnapshotDevice *dev = g_new0 (GmlSnapshotDevice, 1);

      dev->segments = g_array_new (FALSE, FALSE, sizeof (GmlSnapshotSegment));
      dev->blocks = g_array_new (FALSE, FALSE, sizeof (GmlSnapshotBlock));
      dev->entries = g_array_new (FALSE, FALSE, sizeof (GmlSnapshotEntry));
      g_ptr_array_add (self->devices, dev);
    }
  return g_ptr_array_index (self->devices, device);
}

static int
segment_address_cmp (gconstpointer a,
                     gconstpointer b)
{
  const GmlSnapshotSegment *x = a, *y = b;

  return x->address < y->address ? -1 : (x->address > y->address);
}

static int
block_address_cmp (gconstpointer a,
                   gconstpointer b)
{
  const GmlSnapshotBlock *x = a, *y = b;

  return x->address < y->address ? -1 : (x->address > y->address);
}

void
gml_snapshot_finish (GmlSnapshot *self)
{
  for (guint d = 0; d < self->devices->len; d++)
    {
      GmlSnapshotDevice *dev = g_ptr_array_index (self->devices, d);
      GArray *blocks;

      /* Segments in address order, each segment's blocks after it in address
       * order: real files are sorted already, but nothing may depend on it. */
      g_array_sort (dev->segments, segment_address_cmp);
      blocks = g_array_sized_new (FALSE, FALSE, sizeof (GmlSnapshotBlock), dev->blocks->len);
      for (guint i = 0; i < dev->segments->len; i++)
        {
          GmlSnapshotSegment *seg = &g_array_index (dev->segments, GmlSnapshotSegment, i);
          guint first = blocks->len;

          if (seg->n_blocks > 0 && seg->first_block <= dev->blocks->len &&
              seg->n_blocks <= dev->blocks->len - seg->first_block)
            g_array_append_vals (blocks,
                                 &g_array_index (dev->blocks, GmlSnapshotBlock, seg->first_block),
                                 seg->n_blocks);
          seg->first_block = first;
          seg->n_blocks = blocks->len - first;
          /* An empty array's data may be NULL, which qsort() must not see. */
          if (seg->n_blocks > 1)
            qsort (&g_array_index (blocks, GmlSnapshotBlock, first), seg->n_blocks,
                   sizeof (GmlSnapshotBlock), block_address_cmp);
        }
      g_array_unref (dev->blocks);
      dev->blocks = blocks;
    }
  gml_snapshot_classify_frames (self);
}

/* ------------------------------------------------------------------------- */
/* Accessors                                                                 */

guint
gml_snapshot_get_protocol (GmlSnapshot *self)
{
  return self->protocol;
}

guint
gml_snapshot_get_seen (GmlSnapshot *self)
{
  return self->seen;
}

guint
gml_snapshot_get_n_devices (GmlSnapshot *self)
{
  return self->devices->len;
}

guint
gml_snapshot_get_n_device_ooms (GmlSnapshot *self,
                                guint        device)
{
  gsize n;
  const GmlSnapshotEntry *entries = gml_snapshot_get_entries (self, device, &n);
  guint ooms = 0;

  for (gsize i = 0; i < n; i++)
    ooms += entries[i].action == GML_SNAP_OOM;
  return ooms;
}

/* The device a person opening the file wants first: where it ran out of
 * memory (the earliest error, by time when the entries have it), else the
 * busiest trace, else the first device with segments. */
guint
gml_snapshot_get_default_device (GmlSnapshot *self)
{
  gint oom_device = -1;
  gint64 oom_time = G_MAXINT64;
  guint busiest = 0;
  gsize most = 0;

  for (guint d = 0; d < self->devices->len; d++)
    {
      GmlSnapshotDevice *dev = g_ptr_array_index (self->devices, d);
      const GmlSnapshotEntry *entries = (const GmlSnapshotEntry *) dev->entries->data;

      for (guint i = 0; i < dev->entries->len; i++)
        if (entries[i].action == GML_SNAP_OOM)
          {
            /* Without time_us (PyTorch 2.0, 2.1) the first device with an error. */
            if (oom_device < 0 || (entries[i].time_us != 0 && entries[i].time_us < oom_time))
              {
                oom_device = d;
                oom_time = entries[i].time_us != 0 ? entries[i].time_us : G_MININT64;
              }
            break;
          }
      if (dev->entries->len > most)
        {
          most = dev->entries->len;
          busiest = d;
        }
    }
  if (oom_device >= 0)
    return oom_device;
  if (most > 0)
    return busiest;
  for (guint d = 0; d < self->devices->len; d++)
    {
      GmlSnapshotDevice *dev = g_ptr_array_index (self->devices, d);

      if (dev->segments->len > 0)
        return d;
    }
  return 0;
}

static GmlSnapshotDevice *
get_device (GmlSnapshot *self,
            guint        device)
{
  if (device >= self->devices->len)
    return NULL;
  return g_ptr_array_index (self->devices, device);
}

const GmlSnapshotEntry *
gml_snapshot_get_entries (GmlSnapshot *self,
                          guint        device,
                          gsize       *n_entries)
{
  GmlSnapshotDevice *dev = get_device (self, device);

  *n_entries = dev ? dev->entries->len : 0;
  return dev ? (const GmlSnapshotEntry *) dev->entries->data : NULL;
}

const GmlSnapshotSegment *
gml_snapshot_get_segments (GmlSnapshot *self,
                           guint        device,
                           gsize       *n_segments)
{
  GmlSnapshotDevice *dev = get_device (self, device);

  *n_segments = dev ? dev->segments->len : 0;
  return dev ? (const GmlSnapshotSegment *) dev->segments->data : NULL;
}

const GmlSnapshotBlock *
gml_snapshot_get_blocks (GmlSnapshot *self,
                         guint        device,
                         gsize       *n_blocks)
{
  GmlSnapshotDevice *dev = get_device (self, device);

  *n_blocks = dev ? dev->blocks->len : 0;
  return dev ? (const GmlSnapshotBlock *) dev->blocks->data : NULL;
}

const GmlSnapshotAnnotation *
gml_snapshot_get_annotations (GmlSnapshot *self,
                              gsize       *n)
{
  *n = self->annotations->len;
  return (const GmlSnapshotAnnotation *) self->annotations->data;
}

const GmlSnapshotSettings *
gml_snapshot_get_settings (GmlSnapshot *self)
{
  return &self->settings;
}

const guint32 *
gml_snapshot_get_frame_list (GmlSnapshot *self,
                             guint32      id,
                             guint       *n_frames)
{
  guint32 first, count;

  *n_frames = 0;
  if (id == 0 || (gsize) id * 2 + 1 >= self->frame_lists->len)
    return NULL;
  first = g_array_index (self->frame_lists, guint32, id * 2);
  count = g_array_index (self->frame_lists, guint32, id * 2 + 1);
  *n_frames = count;
  return count > 0 ? &self->frame_items[first] : NULL;
}

const GmlSnapshotFrame *
gml_snapshot_get_frame (GmlSnapshot *self,
                        guint32      frame_id)
{
  if (frame_id == 0 || frame_id >= self->frames->len)
    return NULL;
  return &g_array_index (self->frames, GmlSnapshotFrame, frame_id);
}

/* Which PyTorch wrote the file, from the keys it has: the English text (for
 * JSON, which stays English) and its translation for people. */
const char *
gml_snapshot_get_version_text (GmlSnapshot *self)
{
  guint seen = self->seen;

  if (seen & GML_SNAP_SEEN_USER_METADATA)
    return N_("PyTorch 2.10 or later (trace entries have user_metadata)");
  if (seen & GML_SNAP_SEEN_COMPILE_CONTEXT)
    return N_("PyTorch 2.8 or 2.9 (trace entries have compile_context, not user_metadata)");
  if (seen & GML_SNAP_SEEN_ANNOTATIONS)
    return N_("PyTorch 2.5 to 2.7 (external_annotations, no compile_context)");
  if (seen & GML_SNAP_SEEN_SETTINGS)
    return N_("PyTorch 2.3 or 2.4 (allocator_settings, no external_annotations)");
  if (seen & GML_SNAP_SEEN_TIME_US)
    return N_("PyTorch 2.2 (time_us, no allocator_settings)");
  if (seen & (GML_SNAP_SEEN_SEGMENT_FRAMES | GML_SNAP_SEEN_BLOCK_ADDRESS))
    return N_("PyTorch 2.1 (blocks with addresses, no time_us)");
  if (seen & GML_SNAP_SEEN_BLOCK_HISTORY)
    return N_("PyTorch 2.0 (blocks with history)");
  return N_("unknown (the file has none of the keys that tell versions apart)");
}

char *
gml_snapshot_describe_version (GmlSnapshot *self)
{
  return g_strdup (_(gml_snapshot_get_version_text (self)));
}

const char *
gml_snapshot_action_to_string (GmlSnapshotAction action)
{
  g_return_val_if_fail (action < GML_N_SNAP_ACTIONS, NULL);
  return action_names[action];
}

const char *
gml_snapshot_block_state_to_string (GmlSnapshotBlockState state)
{
  g_return_val_if_fail (state <= GML_SNAP_BLOCK_UNKNOWN, NULL);
  return state_names[state];
}

const char *
gml_snapshot_entry_action_name (GmlSnapshot            *self,
                                const GmlSnapshotEntry *entry)
{
  if (entry->action == GML_SNAP_OTHER && entry->name != 0)
    return gml_snapshot_get_string (self, entry->name);
  return gml_snapshot_action_to_string (entry->action);
}

/* gml-allocator.c — PyTorch's CUDA caching allocator, on top of a GmlDevice.
 *
 * The structure follows DeviceCachingAllocator in c10/cuda/CUDACachingAllocator.cpp
 * so that each function here can be read beside its PyTorch counterpart:
 * malloc → get_free_block → alloc_block → release_available_cached_blocks →
 * release_cached_blocks, alloc_found_block (split), free_block (merge).
 *
 * Modelled: rounding, roundup_power2_divisions, pools, segment sizes, best fit
 * per stream, splitting and merging, max_split_size_mb and
 * max_non_split_rounding_mb, the retry sequence, empty_cache, statistics, the
 * OOM message, set_per_process_memory_fraction (or, on a real device, the
 * lab's budget), garbage_collection_threshold, expandable segments,
 * record_stream() (see the comment blocks below), allocate()'s 1 EiB refusal.
 * Left out: CUDA graphs and private pools, the free-memory callbacks, the
 * oversize_* statistics and the cumulative ".allocated"/".freed" counters.
 *
 * Nothing a caller passes can make it abort: a state PyTorch's rules never
 * make (only a crafted starting layout can) is an internal error that every
 * later call reports (gml_allocator_check()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-allocator"

#include "config.h"

#include <string.h>

#include "gml-i18n.h"

#include "gml-allocator.h"
#include "gml-allocator-private.h"
#include "gml-trace-private.h"

/* One entry of a pool's ordered set of free blocks. The order is PyTorch's
 * BlockComparatorSize: stream, then size, then address. */
typedef struct
{
  guint32 stream;
  gint32  slot;
  guint64 size;
  guint64 address;
  gint64  gc_count_base;   /* the pool's get_free_block() calls when it came in */
} FreeKey;

/* An end-of-life event of a block another stream used (insert_events()): the
 * block goes back to the pool when every event of it has completed. */
typedef struct
{
  guint32  stream;
  gint32   slot;
  gboolean completed;      /* the stream's work is done (synchronize) */
} StreamEvent;

typedef struct
{
  FreeKey *keys;
  guint    len;
  guint    alloc;
} FreeIndex;

/* One expandable segment: its reserved address space. Its mapped ranges are
 * the state's segments flagged expandable that lie inside it. */
typedef struct
{
  guint64 base;
  guint64 size;
  guint64 page;               /* 2 MiB (small pool) or 20 MiB (large pool) */
  guint32 stream;
  GmlPool pool;
} Expandable;

struct _GmlAllocator
{
  GmlDevice    *device;     /* a reference: the segments live on it */
  GmlAllocConf  conf;
  gboolean      expandable; /* conf.expandable_segments and a device that can map */
  GmlMemState  *state;
  GmlTrace     *trace;
  FreeIndex     pools[GML_N_POOLS];
  GArray       *expandables; /* Expandable, by base address */
  char         *last_oom_message;
  gsize         n_events;   /* emitted, whether the trace keeps them or not */
  gboolean      keep_trace;
  char         *broken;     /* what went wrong inside (never by PyTorch's rules); from then on
                             * every call fails with it */

  /* set_per_process_memory_fraction(): set_fraction and allowed_memory_maximum. */
  gboolean      set_fraction;
  guint64       allowed_memory_maximum;
  /* garbage_collection_threshold: BlockPool::get_free_blocks_call_count. */
  gint64        get_free_blocks_call_count[GML_N_POOLS];
  /* record_stream(): Block::stream_uses of allocated blocks (slot → GArray of
   * guint32), and the outstanding events of freed ones (cuda_events). */
  GHashTable   *stream_uses;
  GArray       *stream_events; /* StreamEvent, in the order they were recorded */
};

G_DEFINE_QUARK (gml-allocator-error-quark, gml_allocator_error)

/* ------------------------------------------------------------------------- */
/* Size rules                                                                */

guint64
gml_roundup_power2_next_division (guint64 size,
                                  guint64 divisions)
{
  guint64 power2_floor, power2_division, floor;

  if (is_power_of_2 (size))
    return size;
  g_return_val_if_fail (divisions >= 2, size);

  power2_floor = G_GUINT64_CONSTANT (1) << log2_floor (size);
  power2_division = power2_floor >> log2_floor (divisions);
  if (power2_division == 0)
    return power2_floor << 1;

  floor = size & ~(power2_division - 1);
  return floor == size ? size : floor + power2_division;
}

/* round_size(). Note the condition size > 512 × divisions, which is in the
 * source: below it the request keeps plain 512-byte rounding (so 1200 B with
 * 4 divisions becomes 1536 B, while 1200 KiB becomes 1280 KiB). */
guint64
gml_round_size (const GmlAllocConf *conf,
                guint64             size)
{
  guint64 divisions;

  if (size < GML_MIN_BLOCK_SIZE)
    return GML_MIN_BLOCK_SIZE;

  divisions = gml_alloc_conf_divisions_for_size (conf, size);
  /* 512 × divisions overflows from 2^55 divisions on; no size is bigger than that. */
  if (divisions > 1 && divisions < G_MAXUINT64 / GML_MIN_BLOCK_SIZE &&
      size > GML_MIN_BLOCK_SIZE * divisions)
    return gml_roundup_power2_next_division (size, divisions);

  return GML_MIN_BLOCK_SIZE * ((size + GML_MIN_BLOCK_SIZE - 1) / GML_MIN_BLOCK_SIZE);
}

/* get_allocation_size(): the segment a pool miss asks the device for. */
guint64
gml_allocation_size (guint64 size)
{
  if (size <= GML_SMALL_SIZE)
    return GML_SMALL_BUFFER;
  if (size < GML_MIN_LARGE_ALLOC)
    return GML_LARGE_BUFFER;
  return GML_ROUND_LARGE * ((size + GML_ROUND_LARGE - 1) / GML_ROUND_LARGE);
}

GmlPool
gml_pool_for_size (guint64 rounded_size)
{
  return rounded_size <= GML_SMALL_SIZE ? GML_POOL_SMALL : GML_POOL_LARGE;
}

/* ------------------------------------------------------------------------- */
/* The ordered sets of free blocks                                           */

static inline int
key_compare (const FreeKey *a,
             const FreeKey *b)
{
  if (a->stream != b->stream)
    return a->stream < b->stream ? -1 : 1;
  if (a->size != b->size)
    return a->size < b->size ? -1 : 1;
  if (a->address != b->address)
    return a->address < b->address ? -1 : 1;
  return 0;
}

/* First position whose key is not less than @key. */
static guint
index_lower_bound (const FreeIndex *index,
                   const FreeKey   *key)
{
  guint lo = 0, hi = index->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (key_compare (&index->keys[mid], key) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static inline FreeKey
key_for_block (const GmlBlock *b,
               gint32          slot)
{
  FreeKey key = { b->stream, slot, b->size, b->address, 0 };
  return key;
}

/* BlockPool::insert_into_blocks(): the block's age for garbage collection
 * counts from now. */
static void
index_insert (GmlAllocator   *self,
              GmlPool         pool,
              const GmlBlock *b,
              gint32          slot)
{
  FreeIndex *index = &self->pools[pool];
  FreeKey key = key_for_block (b, slot);
  guint pos = index_lower_bound (index, &key);

  key.gc_count_base = self->get_free_blocks_call_count[pool];

  if (index->len == index->alloc)
    {
      index->alloc = MAX (64, index->alloc * 2);
      index->keys = g_renew (FreeKey, index->keys, index->alloc);
    }
  memmove (&index->keys[pos + 1], &index->keys[pos], (index->len - pos) * sizeof (FreeKey));
  index->keys[pos] = key;
  index->len++;
}

static void
index_remove_at (FreeIndex *index,
                 guint      pos)
{
  memmove (&index->keys[pos], &index->keys[pos + 1], (index->len - pos - 1) * sizeof (FreeKey));
  index->len--;
}

G_GNUC_PRINTF (2, 3)
static void
internal_error (GmlAllocator *self,
                const char   *format,
                ...)
{
  va_list args;

  if (self->broken != NULL)
    return;
  va_start (args, format);
  self->broken = g_strdup_vprintf (format, args);
  va_end (args);
}

/* Every public call starts and ends here: after an inconsistency nothing is
 * decided any more. */
static gboolean
check_sane (GmlAllocator  *self,
            GError       **error)
{
  if (self->broken == NULL)
    return TRUE;
  g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_INTERNAL,
               _("The allocator’s state does not hold together (%s); nothing more can be "
                 "replayed."), self->broken);
  return FALSE;
}

/* Removes a free block from its pool's ordered set. A block that is not there
 * is a state PyTorch's rules never make (only a crafted file can ask for it):
 * FALSE, and the allocator stops. */
static gboolean
index_remove (GmlAllocator   *self,
              GmlPool         pool,
              const GmlBlock *b,
              gint32          slot)
{
  FreeIndex *index = &self->pools[pool];
  FreeKey key = key_for_block (b, slot);
  guint pos = index_lower_bound (index, &key);

  if (pos >= index->len || index->keys[pos].slot != slot)
    {
      internal_error (self, _("block %d is not among the free blocks of its pool"), slot);
      return FALSE;
    }
  index_remove_at (index, pos);
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* The allocator                                                             */

GmlAllocator *
gml_allocator_new (GmlDevice          *device,
                   const GmlAllocConf *conf)
{
  GmlAllocator *self;

  g_return_val_if_fail (device != NULL, NULL);

  self = g_new0 (GmlAllocator, 1);
  self->device = gml_device_ref (device);
  if (conf)
    self->conf = *conf;
  else
    gml_alloc_conf_init (&self->conf);
  self->trace = gml_trace_new (0);
  self->state = gml_mem_state_new (gml_trace_get_labels (self->trace));
  self->expandables = g_array_new (FALSE, FALSE, sizeof (Expandable));
  self->expandable = self->conf.expandable_segments && gml_device_can_map (device);
  self->keep_trace = TRUE;
  self->stream_uses = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref);
  self->stream_events = g_array_new (FALSE, FALSE, sizeof (StreamEvent));

  /* The newest PyTorch's per_process_memory_fraction: setMemoryFraction() when
   * each device's allocator is made, a limit only below 1.0. */
  if (self->conf.per_process_memory_fraction < 1.0)
    gml_allocator_set_memory_fraction (self, self->conf.per_process_memory_fraction, NULL);

  return self;
}

void
gml_allocator_destroy (GmlAllocator *self)
{
  if (self == NULL)
    return;

  /* Give every segment back, live tensors or not: the lab is closing. The
   * trace is not told; it ends where the program stopped. */
  for (guint s = 0; s < gml_mem_state_get_n_segment_slots (self->state); s++)
    {
      const GmlSegment *seg = gml_mem_state_get_segment (self->state, s);

      if (seg == NULL)
        continue;
      if (seg->expandable)
        gml_device_unmap (self->device, seg->address, seg->size);
      else
        gml_device_free (self->device, seg->address, NULL);
    }
  for (guint e = 0; e < self->expandables->len; e++)
    gml_device_unreserve (self->device, g_array_index (self->expandables, Expandable, e).base);
  g_array_unref (self->expandables);

  g_clear_pointer (&self->state, gml_mem_state_free);
  g_clear_pointer (&self->trace, gml_trace_free);
  g_free (self->pools[0].keys);
  g_free (self->pools[1].keys);
  g_free (self->last_oom_message);
  g_free (self->broken);
  g_hash_table_unref (self->stream_uses);
  g_array_unref (self->stream_events);
  gml_device_unref (self->device);
  g_free (self);
}

/* emit() for an event the caller has just checked against the state itself, as
 * gml_mem_state_accepts() would: an alloc of a free block that holds it, the
 * free of an allocated block, the completion of a pending one (a lab run makes
 * 1.8 M of them, and the second look at the block cost a twentieth of it). */
static inline gint32
emit_checked (GmlAllocator  *self,
              GmlTraceEvent *ev)
{
  if (self->broken != NULL)
    return GML_MEM_STATE_REFUSED;
  if (self->keep_trace)
    gml_trace_append (self->trace, self->state, ev);
  self->n_events++;
  return _gml_mem_state_apply_accepted (self->state, ev);
}

/* Writes @ev to the trace and applies it: the only way the state changes.
 * An event the state refuses (the allocator's own view and the state's
 * disagree, which only a crafted starting layout can bring about) is not
 * written: GML_MEM_STATE_REFUSED, and the allocator stops. */
static gint32
emit (GmlAllocator  *self,
      GmlTraceEvent *ev)
{
  if (self->broken == NULL && !gml_mem_state_accepts (self->state, ev))
    {
      internal_error (self, _("a %s event does not fit block %d"),
                      gml_trace_event_kind_to_string (ev->kind), ev->block);
      return GML_MEM_STATE_REFUSED;
    }
  return emit_checked (self, ev);
}

void
gml_allocator_set_keep_trace (GmlAllocator *self,
                              gboolean      keep_trace)
{
  g_return_if_fail (self != NULL);
  /* A trace with a gap would rebuild wrong states after it. */
  g_return_if_fail (self->n_events == 0);

  self->keep_trace = !!keep_trace;
}

static inline const GmlBlock *
block_at (GmlAllocator *self,
          gint32        slot)
{
  return _gml_mem_state_block (self->state, slot);
}

/* The block a caller names, if the allocator is sane and the block is in
 * @state; NULL with an error otherwise (a replayed trace can name any id). */
static const GmlBlock *
caller_block (GmlAllocator   *self,
              gint32          block_id,
              GmlBlockState   state,
              GError        **error)
{
  const GmlBlock *b;

  if (!check_sane (self, error))
    return NULL;
  b = block_id >= 0 ? block_at (self, block_id) : NULL;
  if (b != NULL && b->state == state)
    return b;
  if (state == GML_BLOCK_ALLOCATED)
    g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_INVALID_BLOCK,
                 _("Block %d is not allocated."), block_id);
  else
    g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_INVALID_BLOCK,
                 _("Block %d is not waiting to be freed."), block_id);
  return NULL;
}

static inline gboolean
is_whole_segment (const GmlBlock *b)
{
  return b->prev < 0 && b->next < 0;
}

/* get_free_block(): the best fit on the same stream, with the max_split_size
 * limits. Only the single best fit is looked at, as in PyTorch. */
/* ------------------------------------------------------------------------- */
/* Expandable segments                                                       */
/*
 * What PyTorch does with expandable_segments:True (c10/cuda/CUDACachingAllocator.cpp,
 * "Note [Expandable Segments]"), and what the lab models of it:
 *
 * - ExpandableSegment: one per pool and stream, reserving address space for
 *   all of the GPU's memory and an eighth more (cuMemAddressReserve), mapped
 *   in pages of 2 MiB (small pool) or 20 MiB (large pool) as it grows
 *   (cuMemCreate, cuMemMap). Here: Expandable, the device's reserve() and map().
 * - find_expandable_block(): the lowest address, in any expandable segment of
 *   the pool and stream, from which free and unmapped blocks in a row hold the
 *   request; it starts one block early when the block before an unmapped one
 *   is free. A new segment when none has room.
 * - try_allocate_expandable_block() and map_block(): map the pages needed
 *   (rounded up to whole pages, never past the unmapped range), merging the
 *   new free block with its free neighbours, until the candidate block holds
 *   the request. Each map_block() is one segment_map trace entry; reserved
 *   bytes grow, the segment count does not.
 * - should_split(): in an expandable segment any remainder of at least
 *   512 bytes is split off.
 * - get_free_block(): a block at the end of a mapped range counts, for best
 *   fit, as large as it could grow into the unmapped space after it.
 * - release_blocks() and unmap_block(): empty_cache() and the out-of-memory
 *   retry unmap every whole page of every free block (segment_unmap), and
 *   give an address space back once nothing in it is mapped.
 * - free_block(), alloc_found_block(): expandable blocks stay out of the
 *   inactive_split statistics.
 * Not modelled: turning expandable segments on and off in the middle of a run,
 * and peer access.
 */

static gboolean
is_expandable_slot (GmlAllocator *self,
                    gint32        slot)
{
  const GmlBlock *b = block_at (self, slot);

  return gml_mem_state_get_segment (self->state, b->segment)->expandable;
}

/* The expandable segment whose address space holds @address, or NULL. */
static Expandable *
expandable_for (GmlAllocator *self,
                guint64       address)
{
  for (guint e = 0; e < self->expandables->len; e++)
    {
      Expandable *x = &g_array_index (self->expandables, Expandable, e);

      if (address >= x->base && address - x->base < x->size)
        return x;
    }
  return NULL;
}

/* The start of the mapped range that begins at or after @address inside @x,
 * or the end of @x: where the unmapped space at @address ends. */
static guint64
unmapped_end (GmlAllocator     *self,
              const Expandable *x,
              guint64           address)
{
  guint64 end = x->base + x->size;

  for (guint s = 0; s < gml_mem_state_get_n_segment_slots (self->state); s++)
    {
      const GmlSegment *seg = gml_mem_state_get_segment (self->state, s);

      if (seg != NULL && seg->expandable && seg->address >= address && seg->address < end &&
          seg->address >= x->base && seg->address < x->base + x->size)
        end = seg->address;
    }
  return end;
}

/* Block::size plus, for the last block of a mapped range, the unmapped space
 * right after it (b->next && !b->next->mapped ? b->next->size : 0). */
static guint64
expandable_size (GmlAllocator *self,
                 gint32        slot)
{
  const GmlBlock *b = block_at (self, slot);
  const GmlSegment *seg = gml_mem_state_get_segment (self->state, b->segment);
  Expandable *x;

  if (!seg->expandable || b->next >= 0 || (x = expandable_for (self, b->address)) == NULL)
    return b->size;
  return b->size + (unmapped_end (self, x, b->address + b->size) - (b->address + b->size));
}

static gint
find_free_block (GmlAllocator *self,
                 GmlPool       pool,
                 guint32       stream,
                 guint64       size)
{
  FreeIndex *index = &self->pools[pool];
  FreeKey key = { stream, -1, size, 0 };
  guint64 max_split = self->conf.max_split_size;
  guint pos = index_lower_bound (index, &key);
  const FreeKey *found;

  if (pos >= index->len || index->keys[pos].stream != stream)
    return -1;

  /* get_free_block(): the last block of an expandable segment can grow into
   * the unmapped space after it, so for best fit its size is what it can
   * expand to; a later block (larger now) may fit better. */
  if (self->expandable)
    while (is_expandable_slot (self, index->keys[pos].slot) && pos + 1 < index->len &&
           index->keys[pos + 1].stream == stream &&
           expandable_size (self, index->keys[pos + 1].slot) <
           expandable_size (self, index->keys[pos].slot))
      pos++;
  found = &index->keys[pos];

  /* Do not hand an oversize block to a small request ... */
  if (size < max_split && found->size >= max_split)
    return -1;
  /* ... and round an oversize request up by less than max_non_split_rounding_mb
   * (20 MiB unless set) only. */
  if (size >= max_split && found->size - size >= self->conf.max_non_split_rounding_size)
    return -1;

  return (gint) pos;
}

static inline gboolean
gc_enabled (GmlAllocator *self)
{
  return self->set_fraction && self->conf.garbage_collection_threshold > 0.0;
}

static gint32
get_free_block (GmlAllocator *self,
                GmlPool       pool,
                guint32       stream,
                guint64       size)
{
  gint pos;
  gint32 slot;

  /* "Track block reuse interval only when garbage collection is enabled." */
  if (gc_enabled (self))
    self->get_free_blocks_call_count[pool]++;
  pos = find_free_block (self, pool, stream, size);
  if (pos < 0)
    return -1;
  slot = self->pools[pool].keys[pos].slot;
  index_remove_at (&self->pools[pool], pos);
  return slot;
}

/* The free block that holds @address, or -1. */
static gint32
free_block_at (GmlAllocator *self,
               guint64       address)
{
  for (guint s = 0; s < gml_mem_state_get_n_segment_slots (self->state); s++)
    {
      const GmlSegment *seg = gml_mem_state_get_segment (self->state, s);

      if (seg == NULL || address < seg->address || address - seg->address >= seg->size)
        continue;
      for (gint32 i = seg->first_block; i >= 0; i = block_at (self, i)->next)
        {
          const GmlBlock *b = block_at (self, i);

          if (address >= b->address && address - b->address < b->size)
            return b->state == GML_BLOCK_FREE ? i : -1;
        }
    }
  return -1;
}

typedef struct
{
  guint64 address;
  guint64 size;
  gint32  block;    /* -1: unmapped */
} Span;

/* An expandable segment as PyTorch's block chain sees it: the blocks of each
 * mapped range, and the unmapped space between, in address order. */
static GArray *
expandable_spans (GmlAllocator     *self,
                  const Expandable *x)
{
  GArray *spans = g_array_new (FALSE, FALSE, sizeof (Span));
  guint64 cursor = x->base;

  for (;;)
    {
      gint32 next = -1;
      guint64 next_address = x->base + x->size;

      for (guint s = 0; s < gml_mem_state_get_n_segment_slots (self->state); s++)
        {
          const GmlSegment *seg = gml_mem_state_get_segment (self->state, s);

          if (seg != NULL && seg->expandable && seg->address >= cursor &&
              seg->address < next_address)
            {
              next = s;
              next_address = seg->address;
            }
        }
      if (next_address > cursor)
        {
          Span gap = { cursor, next_address - cursor, -1 };

          g_array_append_val (spans, gap);
        }
      if (next < 0)
        break;
      for (gint32 i = gml_mem_state_get_segment (self->state, next)->first_block; i >= 0;
           i = block_at (self, i)->next)
        {
          Span span = { block_at (self, i)->address, block_at (self, i)->size, i };

          g_array_append_val (spans, span);
        }
      cursor = next_address + gml_mem_state_get_segment (self->state, next)->size;
    }
  return spans;
}

static inline gboolean
span_allocatable (GmlAllocator *self,
                  const Span   *span)
{
  return span->block < 0 || block_at (self, span->block)->state == GML_BLOCK_FREE;
}

static int
expandable_by_base (gconstpointer a,
                    gconstpointer b)
{
  const Expandable *x = a, *y = b;

  return x->base < y->base ? -1 : (x->base > y->base);
}

/* Address spaces are disjoint: where a device (a replay of a snapshot, which
 * cannot know how much PyTorch reserved) hands out one inside another, the
 * earlier one ends there. */
static void
add_expandable (GmlAllocator     *self,
                const Expandable *x)
{
  g_array_append_val (self->expandables, *x);
  g_array_sort (self->expandables, expandable_by_base);
  for (guint e = 0; e + 1 < self->expandables->len; e++)
    {
      Expandable *a = &g_array_index (self->expandables, Expandable, e);
      const Expandable *b = &g_array_index (self->expandables, Expandable, e + 1);

      if (a->base + a->size > b->base)
        a->size = b->base - a->base;
    }
}

/* find_expandable_block(): where the request goes, as an address; a new
 * expandable segment when no existing one has room. FALSE on a device error. */
static gboolean
find_expandable (GmlAllocator  *self,
                 GmlPool        pool,
                 guint32        stream,
                 guint64        size,
                 guint64       *start,
                 GError       **error)
{
  Expandable x = { 0 };
  guint64 free_bytes = 0, total = 0;

  for (guint e = 0; e < self->expandables->len; e++)
    {
      const Expandable *candidate = &g_array_index (self->expandables, Expandable, e);
      g_autoptr(GArray) spans = NULL;

      if (candidate->pool != pool || candidate->stream != stream)
        continue;
      spans = expandable_spans (self, candidate);
      for (guint k = 0; k < spans->len; k++)
        {
          guint c = k;
          guint64 bytes = 0;

          if (g_array_index (spans, Span, k).block >= 0)
            continue;
          /* The free block right before the unmapped one can be used too. */
          if (k > 0 && span_allocatable (self, &g_array_index (spans, Span, k - 1)))
            c = k - 1;
          for (guint j = c; j < spans->len && bytes < size &&
                            span_allocatable (self, &g_array_index (spans, Span, j)); j++)
            bytes += g_array_index (spans, Span, j).size;
          if (bytes >= size)
            {
              *start = g_array_index (spans, Span, c).address;
              return TRUE;
            }
        }
    }

  /* Enough address space for all of the GPU's memory and an eighth more. */
  x.page = pool == GML_POOL_SMALL ? GML_SMALL_BUFFER : GML_LARGE_BUFFER;
  if (!gml_device_mem_get_info (self->device, &free_bytes, &total, NULL) || total == 0)
    total = G_GUINT64_CONSTANT (80) << 30;
  x.size = (total + total / 8 + x.page - 1) / x.page * x.page;
  x.stream = stream;
  x.pool = pool;
  if (!gml_device_reserve (self->device, &x.size, &x.base, error))
    return FALSE;
  /* Whole pages; a device that gives less than one has no room. */
  x.size -= x.size % x.page;
  if (x.size < x.page)
    {
      gml_device_unreserve (self->device, x.base);
      g_set_error_literal (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY,
                           "no address space for an expandable segment");
      return FALSE;
    }
  add_expandable (self, &x);
  *start = x.base;
  return TRUE;
}

/* map_block(): maps whole pages at @address (the start of unmapped space) for
 * at least @size bytes. Returns the free block the pages join, or -1 when the
 * device has no memory for them (other device errors in @error). */
static gint32
map_pages (GmlAllocator *self,
           Expandable   *x,
           guint64       address,
           guint64       size,
           gboolean      is_retry,
           GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  GmlTraceEvent ev = { 0 };
  guint64 limit = unmapped_end (self, x, address) - address;
  guint64 mapped = MIN ((size + x->page - 1) / x->page * x->page, limit);
  gint32 neighbour, slot;

  if (mapped == 0)
    return -1;
  if (!gml_device_map (self->device, address, mapped, &local_error))
    {
      if (!g_error_matches (local_error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY))
        g_propagate_error (error, g_steal_pointer (&local_error));
      return -1;
    }

  /* The free neighbours the new block swallows (in the same expandable
   * segment) leave the ordered set. */
  if (address > x->base && (neighbour = free_block_at (self, address - 1)) >= 0 &&
      is_expandable_slot (self, neighbour) &&
      !index_remove (self, x->pool, block_at (self, neighbour), neighbour))
    return -1;
  if (address + mapped < x->base + x->size &&
      (neighbour = free_block_at (self, address + mapped)) >= 0 &&
      is_expandable_slot (self, neighbour) &&
      !index_remove (self, x->pool, block_at (self, neighbour), neighbour))
    return -1;

  ev.kind = GML_EVENT_SEGMENT_MAP;
  ev.pool = x->pool;
  ev.flags = is_retry ? GML_EVENT_FLAG_RETRY : 0;
  ev.stream = x->stream;
  ev.block = -1;
  ev.address = address;
  ev.size = mapped;
  slot = emit (self, &ev);
  if (slot < 0)
    return -1;
  index_insert (self, x->pool, block_at (self, slot), slot);
  return slot;
}

/* try_allocate_expandable_block(): a free block of at least @size (the rounded
 * request) in an expandable segment, mapping pages as needed; -1 when the
 * device has no memory for them. The block is taken out of the pool. */
static gint32
try_allocate_expandable (GmlAllocator *self,
                         GmlPool       pool,
                         guint32       stream,
                         guint64       size,
                         gboolean      is_retry,
                         GError      **error)
{
  guint64 start;
  Expandable *x;
  gint32 candidate;

  if (!find_expandable (self, pool, stream, size, &start, error))
    return -1;
  x = expandable_for (self, start);
  if (x == NULL)
    {
      g_autofree char *where = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", start);

      internal_error (self, _("no expandable segment holds the address %s"), where);
      return -1;
    }
  candidate = free_block_at (self, start);
  if (candidate < 0)
    {
      /* Unmapped: map the start of it. */
      candidate = map_pages (self, x, start, MIN (size, unmapped_end (self, x, start) - start),
                             is_retry, error);
      if (candidate < 0)
        return -1;
      is_retry = FALSE;
    }
  while (block_at (self, candidate)->size < size)
    {
      const GmlBlock *b = block_at (self, candidate);
      guint64 next = b->address + b->size;
      guint64 remaining = size - b->size;

      /* Invariant: free, then unmapped. Map some of it; it merges with b. */
      candidate = map_pages (self, x, next, MIN (remaining, unmapped_end (self, x, next) - next),
                             is_retry, error);
      if (candidate < 0)
        return -1;
      is_retry = FALSE;
    }
  if (!index_remove (self, pool, block_at (self, candidate), candidate))
    return -1;
  return candidate;
}

/* unmap_block(): unmaps the whole pages inside the free block @slot; what is
 * left before and after them stays mapped and free. */
static void
unmap_free_block (GmlAllocator *self,
                  gint32        slot)
{
  const GmlBlock *b = block_at (self, slot);
  Expandable *x = expandable_for (self, b->address);
  GmlTraceEvent ev = { 0 };
  guint64 begin, end;
  gboolean before;
  gint32 rest;
  GmlPool pool = b->pool;

  if (x == NULL)
    return;
  begin = x->base + (b->address - x->base + x->page - 1) / x->page * x->page;
  end = x->base + (b->address + b->size - x->base) / x->page * x->page;
  if (begin >= end)
    return;
  before = begin > b->address;
  if (!index_remove (self, pool, b, slot))
    return;

  ev.kind = GML_EVENT_SEGMENT_UNMAP;
  ev.pool = pool;
  ev.stream = b->stream;
  ev.block = slot;
  ev.address = begin;
  ev.size = end - begin;
  rest = emit (self, &ev);
  if (rest == GML_MEM_STATE_REFUSED)
    return;
  gml_device_unmap (self->device, begin, end - begin);
  if (before)
    index_insert (self, pool, block_at (self, slot), slot);
  if (rest >= 0)
    index_insert (self, pool, block_at (self, rest), rest);

  /* release_expandable_segment(): nothing mapped any more, give the address space back. */
  if (unmapped_end (self, x, x->base) == x->base + x->size)
    {
      guint index = (guint) (x - (Expandable *) self->expandables->data);

      gml_device_unreserve (self->device, x->base);
      g_array_remove_index (self->expandables, index);
    }
}

/* The per-process limit: the memory fraction when one is set, else the lab's
 * budget on a real device. */
static gboolean
get_limit (GmlAllocator *self,
           guint64      *limit)
{
  guint64 budget = gml_device_get_budget (self->device);

  if (self->set_fraction)
    *limit = self->allowed_memory_maximum;
  else
    *limit = budget;
  return self->set_fraction || budget > 0;
}

/* alloc_block(): a new segment from the device. Returns its block slot, or -1
 * when the device (or the per-process limit) has no room. Other device errors
 * are reported through @error. */
static gint32
alloc_block (GmlAllocator *self,
             GmlPool       pool,
             guint32       stream,
             guint64       size,
             guint64       alloc_size,
             gboolean      is_retry,
             GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  GmlTraceEvent ev = { 0 };
  guint64 reserved = gml_mem_state_get_stats (self->state)->reserved_bytes[GML_STAT_ALL].current;
  guint64 limit, address;

  /* set_per_process_memory_fraction: past the limit, the device is not asked
   * ("total_allocated_memory + size > allowed_memory_maximum", with the
   * segment's size even where expandable segments then map less). */
  if (get_limit (self, &limit) && (alloc_size > limit || reserved > limit - alloc_size))
    return -1;
  if (self->expandable)
    return try_allocate_expandable (self, pool, stream, size, is_retry, error);

  if (!gml_device_alloc (self->device, alloc_size, &address, &local_error))
    {
      if (!g_error_matches (local_error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY))
        g_propagate_error (error, g_steal_pointer (&local_error));
      return -1;
    }

  ev.kind = GML_EVENT_SEGMENT_ALLOC;
  ev.pool = pool;
  ev.flags = is_retry ? GML_EVENT_FLAG_RETRY : 0;
  ev.stream = stream;
  ev.block = -1;
  ev.address = address;
  ev.size = alloc_size;
  return emit (self, &ev);
}

/* release_block(): returns a whole free segment to the device. */
static void
release_block (GmlAllocator *self,
               gint32        slot)
{
  const GmlBlock *b = block_at (self, slot);
  GmlTraceEvent ev = { 0 };
  g_autoptr(GError) error = NULL;

  if (b == NULL || b->state != GML_BLOCK_FREE || !is_whole_segment (b))
    {
      internal_error (self, _("block %d is not a whole free segment"), slot);
      return;
    }

  ev.kind = GML_EVENT_SEGMENT_FREE;
  ev.pool = b->pool;
  ev.stream = b->stream;
  ev.block = slot;
  ev.address = b->address;
  ev.size = b->size;

  if (emit (self, &ev) == GML_MEM_STATE_REFUSED)
    return;
  if (!gml_device_free (self->device, ev.address, &error))
    g_warning ("Could not return a segment to the device: %s", error->message);
}

/* release_available_cached_blocks(): with max_split_size set, free oversize
 * cached blocks of this pool and stream, the largest first, until the request
 * would fit. PyTorch releases them as whole segments; a free oversize block is
 * always one, and a split one (which PyTorch would mishandle) is skipped. */
static gboolean
release_available_cached_blocks (GmlAllocator *self,
                                 GmlPool       pool,
                                 guint32       stream,
                                 guint64       size)
{
  FreeIndex *index = &self->pools[pool];
  guint64 max_split = self->conf.max_split_size;
  FreeKey key = { stream, -1, MAX (size, max_split), 0 };
  guint pos;

  if (max_split == G_MAXUINT64)
    return FALSE;

  pos = index_lower_bound (index, &key);
  if (pos >= index->len || index->keys[pos].stream != stream)
    {
      guint64 released = 0;
      guint it;

      /* No single block is large enough: free oversize blocks, largest first. */
      if (pos == 0)
        return FALSE;
      it = pos - 1;
      while (released < key.size &&
             index->keys[it].size >= max_split &&
             index->keys[it].stream == stream)
        {
          guint cur = it;
          gboolean is_first = cur == 0;
          gint32 slot = index->keys[cur].slot;
          guint64 cur_size = index->keys[cur].size;

          if (!is_first)
            it--;
          if (is_whole_segment (block_at (self, slot)) && !is_expandable_slot (self, slot))
            {
              index_remove_at (index, cur);
              release_block (self, slot);
              released += cur_size;
            }
          if (is_first)
            break;
        }
      if (released < key.size)
        return FALSE;
    }
  else
    {
      gint32 slot = index->keys[pos].slot;

      if (!is_whole_segment (block_at (self, slot)) || is_expandable_slot (self, slot))
        return FALSE;
      index_remove_at (index, pos);
      release_block (self, slot);
    }

  return TRUE;
}

/* release_blocks() for one pool: every cached block that is a whole segment,
 * in the pool's order. */
static void
release_pool (GmlAllocator *self,
              GmlPool       pool)
{
  FreeIndex *index = &self->pools[pool];
  g_autoptr(GArray) to_unmap = g_array_new (FALSE, FALSE, sizeof (gint32));
  guint i = 0;

  while (i < index->len)
    {
      gint32 slot = index->keys[i].slot;

      if (is_expandable_slot (self, slot))
        {
          /* Unmapping changes the pool: gather first, as release_blocks() does. */
          g_array_append_val (to_unmap, slot);
          i++;
        }
      else if (is_whole_segment (block_at (self, slot)))
        {
          index_remove_at (index, i);
          release_block (self, slot);
        }
      else
        {
          i++;
        }
    }
  for (guint k = 0; k < to_unmap->len; k++)
    unmap_free_block (self, g_array_index (to_unmap, gint32, k));
}

/* ------------------------------------------------------------------------- */
/* record_stream()                                                           */
/*
 * recordStream() adds a stream other than the block's own to
 * Block::stream_uses. free() of such a block records one CUDA event on each of
 * those streams (insert_events()) instead of calling free_block(): the block
 * stops being allocated (free_requested) but stays active, in no pool, until
 * the events have completed. Then free_block() puts it back (free_completed):
 * at the start of the next malloc(), when process_events() finds them done,
 * or at once in synchronize_and_free_events(), which waits for them, and which
 * release_cached_blocks() calls first (empty_cache() and the last retry before
 * an out-of-memory). The lab has no GPU clock: a stream's work counts as done
 * when the caller says so (gml_allocator_synchronize(), a replay's
 * {"op":"synchronize"}), and not before.
 */

static void
free_block_now (GmlAllocator *self,
                gint32        slot);

/* free_block() for every block whose last event is done (or every block
 * with events, when @wait), in the order the events were recorded. */
static void
complete_events (GmlAllocator *self,
                 gboolean      wait)
{
  guint i = 0;

  while (i < self->stream_events->len)
    {
      StreamEvent *e = &g_array_index (self->stream_events, StreamEvent, i);
      gint32 slot = e->slot;
      gboolean outstanding = FALSE;

      if (!wait && !e->completed)
        {
          i++;
          continue;
        }
      g_array_remove_index (self->stream_events, i);
      for (guint k = 0; k < self->stream_events->len; k++)
        if (g_array_index (self->stream_events, StreamEvent, k).slot == slot)
          outstanding = TRUE;
      if (!outstanding)
        free_block_now (self, slot);
    }
}

/* process_events(), at the start of malloc(). */
static void
process_events (GmlAllocator *self)
{
  complete_events (self, FALSE);
}

/* synchronize_and_free_events(). */
static void
synchronize_and_free_events (GmlAllocator *self)
{
  complete_events (self, TRUE);
}

/* release_cached_blocks(): the blocks waiting on other streams first, then
 * the large pool, then the small one. */
static void
release_cached_blocks (GmlAllocator *self)
{
  synchronize_and_free_events (self);
  release_pool (self, GML_POOL_LARGE);
  release_pool (self, GML_POOL_SMALL);
}

/* ------------------------------------------------------------------------- */
/* garbage_collection_threshold                                              */
/*
 * garbage_collect_cached_blocks(), called by malloc() when no cached block
 * fits, before it asks the device, and only while a memory fraction is set
 * (set_fraction) and the threshold is above 0:
 * - gc_threshold = threshold × allowed_memory_maximum; nothing happens while
 *   the reserved memory (total_allocated_memory) is at most that;
 * - otherwise target_size = reserved − gc_threshold is to be reclaimed from
 *   the large pool's unsplit free blocks (whole cached segments). A block's
 *   age, gc_count(), is the number of get_free_block() calls on its pool since
 *   it went into the pool (insert_into_blocks());
 * - rounds: age_threshold = the mean age of the freeable blocks; every
 *   freeable block of at least that age is released (cudaFree), in the pool's
 *   order (stream, size, address), without stopping at the target; rounds go
 *   on while less than the target is reclaimed and a round freed something.
 * Blocks of expandable segments are never whole segments there (an unmapped
 * rest always follows them), so they are left alone here too.
 */

static gint64
gc_count (GmlAllocator  *self,
          const FreeKey *key)
{
  return self->get_free_blocks_call_count[GML_POOL_LARGE] - key->gc_count_base;
}

static gboolean
gc_freeable (GmlAllocator  *self,
             const FreeKey *key)
{
  return is_whole_segment (block_at (self, key->slot)) && !is_expandable_slot (self, key->slot);
}

static void
garbage_collect_cached_blocks (GmlAllocator *self)
{
  FreeIndex *index = &self->pools[GML_POOL_LARGE];
  guint64 reserved = gml_mem_state_get_stats (self->state)->reserved_bytes[GML_STAT_ALL].current;
  guint64 gc_threshold = (guint64) (self->conf.garbage_collection_threshold *
                                    (double) self->allowed_memory_maximum);
  guint64 target_size, gc_reclaimed = 0;
  gint64 total_age = 0;
  gint freeable_block_count = 0;
  gboolean block_freed = TRUE;

  if (reserved <= gc_threshold)
    return;
  target_size = reserved - gc_threshold;

  for (guint i = 0; i < index->len; i++)
    if (gc_freeable (self, &index->keys[i]))
      {
        total_age += gc_count (self, &index->keys[i]);
        freeable_block_count++;
      }
  if (freeable_block_count == 0)
    return;

  while (gc_reclaimed < target_size && block_freed && freeable_block_count > 0)
    {
      double age_threshold = (double) total_age / freeable_block_count;
      guint i = 0;

      block_freed = FALSE;
      while (i < index->len && self->broken == NULL)
        {
          FreeKey key = index->keys[i];

          if (gc_freeable (self, &key) && (double) gc_count (self, &key) >= age_threshold)
            {
              block_freed = TRUE;
              gc_reclaimed += key.size;
              total_age -= gc_count (self, &key);
              freeable_block_count--;
              index_remove_at (index, i);
              release_block (self, key.slot);
            }
          else
            {
              i++;
            }
        }
    }
}

static char *
format_oom_message (GmlAllocator *self,
                    guint64       alloc_size,
                    guint64       device_free,
                    guint64       device_total)
{
  const GmlStats *stats = gml_mem_state_get_stats (self->state);
  guint64 allocated = stats->allocated_bytes[GML_STAT_ALL].current;
  guint64 reserved = stats->reserved_bytes[GML_STAT_ALL].current;
  guint64 limit = 0;
  g_autofree char *tried = gml_format_size (alloc_size);
  g_autofree char *total = gml_format_size (device_total);
  g_autofree char *free_ = gml_format_size (device_free);
  g_autofree char *allowed = get_limit (self, &limit) ? gml_format_size (limit) : NULL;
  g_autofree char *by_pytorch = gml_format_size (allocated);
  g_autofree char *unallocated = gml_format_size (reserved - allocated);

  /* PyTorch's text, deliberately not translated: it is what a student will
   * see (and search for) in their own training run. The process-memory
   * sentence ("Including non-PyTorch memory, …") needs NVML, so it is left
   * out, as PyTorch does when it cannot tell. */
  return g_strconcat ("CUDA out of memory. Tried to allocate ", tried,
                      ". GPU 0 has a total capacity of ", total,
                      " of which ", free_, " is free. ",
                      allowed ? allowed : "", allowed ? " allowed; " : "",
                      "Of the allocated memory ", by_pytorch,
                      " is allocated by PyTorch, and ", unallocated,
                      " is reserved by PyTorch but unallocated."
                      " If reserved but unallocated memory is large try setting"
                      " PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid"
                      " fragmentation.  See documentation for Memory Management "
                      " (https://docs.pytorch.org/docs/stable/notes/cuda.html"
                      "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)",
                      NULL);
}

/* NativeCachingAllocator::allocate(): 1 EiB. */
#define ONE_EXA_BYTES (G_GUINT64_CONSTANT (1) << 60)

gboolean
gml_allocator_malloc (GmlAllocator *self,
                      guint64       orig_size,
                      guint32       stream,
                      const char   *label,
                      GmlCategory   category,
                      gint32       *block_id,
                      GError      **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return gml_allocator_malloc_labelled (self, orig_size, stream,
                                        gml_trace_intern_label (self->trace, label), category,
                                        block_id, error);
}

gboolean
gml_allocator_malloc_labelled (GmlAllocator *self,
                               guint64       orig_size,
                               guint32       stream,
                               guint32       label,
                               GmlCategory   category,
                               gint32       *block_id,
                               GError      **error)
{
  GError *device_error = NULL;
  GmlTraceEvent ev = { 0 };
  guint64 size, alloc_size, remaining;
  GmlPool pool;
  gint32 slot, rest;
  const GmlBlock *b;
  gboolean split;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (category < GML_N_CATEGORIES, FALSE);
  g_return_val_if_fail (label < gml_trace_get_labels (self->trace)->len, FALSE);

  if (block_id)
    *block_id = -1;
  if (!check_sane (self, error))
    return FALSE;

  /* allocate() refuses this before the device allocator is asked: no trace
   * entry, no retry, and num_ooms does not count it (it is raised as an
   * OutOfMemoryError all the same). */
  if (orig_size >= ONE_EXA_BYTES)
    {
      g_free (self->last_oom_message);
      self->last_oom_message =
        g_strdup ("CUDA out of memory. Tried to allocate more than 1EB memory.");
      g_set_error_literal (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY,
                           self->last_oom_message);
      return FALSE;
    }

  /* PyTorch hands out a null pointer for 0 bytes and touches nothing. */
  if (orig_size == 0)
    return TRUE;

  /* Blocks whose other streams are done go back to the pool first. */
  process_events (self);

  size = gml_round_size (&self->conf, orig_size);
  pool = gml_pool_for_size (size);
  alloc_size = gml_allocation_size (size);

  slot = get_free_block (self, pool, stream, size);

  if (slot < 0 && self->broken == NULL)
    {
      if (gc_enabled (self))
        garbage_collect_cached_blocks (self);
      slot = alloc_block (self, pool, stream, size, alloc_size, FALSE, &device_error);
      if (slot < 0 && device_error == NULL && self->broken == NULL &&
          release_available_cached_blocks (self, pool, stream, size))
        slot = alloc_block (self, pool, stream, size, alloc_size, FALSE, &device_error);
      if (slot < 0 && device_error == NULL && self->broken == NULL)
        {
          release_cached_blocks (self);
          slot = alloc_block (self, pool, stream, size, alloc_size, TRUE, &device_error);
        }
      if (device_error != NULL)
        {
          g_propagate_error (error, device_error);
          return FALSE;
        }
    }
  if (!check_sane (self, error))
    return FALSE;

  if (slot < 0)
    {
      guint64 device_free = 0, device_total = 0;
      g_autoptr(GError) info_error = NULL;

      if (!gml_device_mem_get_info (self->device, &device_free, &device_total, &info_error))
        g_debug ("mem_get_info failed: %s", info_error->message);

      ev.kind = GML_EVENT_OOM;
      ev.pool = pool;
      ev.category = category;
      ev.stream = stream;
      ev.block = -1;
      ev.label = label;
      ev.address = device_free;
      ev.size = alloc_size;
      ev.requested_size = orig_size;
      emit (self, &ev);

      g_free (self->last_oom_message);
      self->last_oom_message = format_oom_message (self, alloc_size, device_free, device_total);
      g_set_error_literal (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY,
                           self->last_oom_message);
      return FALSE;
    }

  /* alloc_found_block(): split by should_split(), the allocation keeping the
   * low address. */
  b = block_at (self, slot);
  if (b == NULL || b->state != GML_BLOCK_FREE || b->size < size)
    {
      internal_error (self, _("block %d is not a free block that can hold the request"), slot);
      return check_sane (self, error);
    }
  remaining = b->size - size;
  if (pool == GML_POOL_SMALL || self->expandable)
    split = remaining >= GML_MIN_BLOCK_SIZE;
  else
    split = size < self->conf.max_split_size && remaining > GML_SMALL_SIZE;

  ev.kind = GML_EVENT_ALLOC;
  ev.pool = pool;
  ev.category = category;
  ev.stream = stream;
  ev.block = slot;
  ev.label = label;
  ev.address = b->address;
  ev.size = split ? size : b->size;
  ev.requested_size = orig_size;
  rest = emit_checked (self, &ev);
  if (rest == GML_MEM_STATE_REFUSED)
    return check_sane (self, error);
  if (rest >= 0)
    index_insert (self, pool, block_at (self, rest), rest);

  if (block_id)
    *block_id = slot;
  return TRUE;
}

gboolean
gml_allocator_free_requested (GmlAllocator *self,
                              gint32        block_id,
                              GError      **error)
{
  GmlTraceEvent ev = { 0 };
  const GmlBlock *b;

  g_return_val_if_fail (self != NULL, FALSE);

  b = caller_block (self, block_id, GML_BLOCK_ALLOCATED, error);
  if (b == NULL)
    return FALSE;

  /* A caller that frees in two halves says itself when the block is back:
   * the streams it was recorded on do not hold it (gml_allocator_free() took
   * them before). */
  if (g_hash_table_size (self->stream_uses) > 0)
    g_hash_table_remove (self->stream_uses, GINT_TO_POINTER (block_id));

  ev.kind = GML_EVENT_FREE_REQUESTED;
  ev.pool = b->pool;
  ev.category = b->category;
  ev.stream = b->stream;
  ev.block = block_id;
  ev.label = b->label;
  ev.address = b->address;
  ev.size = b->size;
  ev.requested_size = b->requested_size;
  emit_checked (self, &ev);
  return check_sane (self, error);
}

/* free_block(): the free neighbours it swallows leave the pool's ordered set
 * first, the merged block goes back in. */
static void
free_block_now (GmlAllocator *self,
                gint32        slot)
{
  GmlTraceEvent ev = { 0 };
  const GmlBlock *b = block_at (self, slot);
  gint32 neighbours[2];
  GmlPool pool;

  if (b == NULL || b->state != GML_BLOCK_PENDING_FREE)
    {
      internal_error (self, _("block %d is not waiting to be freed"), slot);
      return;
    }
  pool = b->pool;
  neighbours[0] = b->prev;
  neighbours[1] = b->next;
  for (guint i = 0; i < 2; i++)
    if (neighbours[i] >= 0 && block_at (self, neighbours[i])->state == GML_BLOCK_FREE &&
        !index_remove (self, pool, block_at (self, neighbours[i]), neighbours[i]))
      return;

  ev.kind = GML_EVENT_FREE_COMPLETED;
  ev.pool = b->pool;
  ev.category = b->category;
  ev.stream = b->stream;
  ev.block = slot;
  ev.label = b->label;
  ev.address = b->address;
  ev.size = b->size;
  ev.requested_size = b->requested_size;
  if (emit_checked (self, &ev) == GML_MEM_STATE_REFUSED)
    return;
  index_insert (self, pool, block_at (self, slot), slot);
}

gboolean
gml_allocator_free_completed (GmlAllocator *self,
                              gint32        block_id,
                              GError      **error)
{
  const GmlBlock *b;

  g_return_val_if_fail (self != NULL, FALSE);

  b = caller_block (self, block_id, GML_BLOCK_PENDING_FREE, error);
  if (b == NULL)
    return FALSE;
  free_block_now (self, block_id);
  return check_sane (self, error);
}

gboolean
gml_allocator_free (GmlAllocator *self,
                    gint32        block_id,
                    GError      **error)
{
  g_autoptr(GArray) streams = NULL;
  gpointer key = GINT_TO_POINTER (block_id);

  g_return_val_if_fail (self != NULL, FALSE);

  /* Most runs record no stream use: no hash look-up on every free for them. */
  if (g_hash_table_size (self->stream_uses) > 0)
    g_hash_table_steal_extended (self->stream_uses, key, NULL, (gpointer *) &streams);
  if (!gml_allocator_free_requested (self, block_id, error))
    {
      if (streams != NULL)
        g_hash_table_insert (self->stream_uses, key, g_steal_pointer (&streams));
      return FALSE;
    }

  /* free(): a block used on other streams waits for them (insert_events());
   * any other goes back to the pool at once. */
  if (streams != NULL)
    {
      for (guint i = 0; i < streams->len; i++)
        {
          StreamEvent e = { g_array_index (streams, guint32, i), block_id, FALSE };

          g_array_append_val (self->stream_events, e);
        }
      return TRUE;
    }
  free_block_now (self, block_id);
  return check_sane (self, error);
}

gboolean
gml_allocator_record_stream (GmlAllocator *self,
                             gint32        block_id,
                             guint32       stream,
                             GError      **error)
{
  const GmlBlock *b;
  GArray *streams;

  g_return_val_if_fail (self != NULL, FALSE);

  b = caller_block (self, block_id, GML_BLOCK_ALLOCATED, error);
  if (b == NULL)
    return FALSE;
  /* recordStream(): "ignore uses on the allocation stream, since those don't
   * require any special synchronization". stream_uses is a set. */
  if (stream == b->stream)
    return TRUE;
  streams = g_hash_table_lookup (self->stream_uses, GINT_TO_POINTER (block_id));
  if (streams == NULL)
    {
      streams = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_hash_table_insert (self->stream_uses, GINT_TO_POINTER (block_id), streams);
    }
  for (guint i = 0; i < streams->len; i++)
    if (g_array_index (streams, guint32, i) == stream)
      return TRUE;
  g_array_append_val (streams, stream);
  return TRUE;
}

void
gml_allocator_synchronize (GmlAllocator *self,
                           gboolean      all_streams,
                           guint32       stream)
{
  g_return_if_fail (self != NULL);

  for (guint i = 0; i < self->stream_events->len; i++)
    {
      StreamEvent *e = &g_array_index (self->stream_events, StreamEvent, i);

      if (all_streams || e->stream == stream)
        e->completed = TRUE;
    }
}

guint
gml_allocator_get_n_waiting (GmlAllocator *self)
{
  g_autoptr(GHashTable) blocks = g_hash_table_new (NULL, NULL);

  g_return_val_if_fail (self != NULL, 0);

  for (guint i = 0; i < self->stream_events->len; i++)
    {
      gint32 slot = g_array_index (self->stream_events, StreamEvent, i).slot;

      g_hash_table_add (blocks, GINT_TO_POINTER (slot + 1));
    }
  return g_hash_table_size (blocks);
}

gboolean
gml_allocator_set_memory_fraction (GmlAllocator  *self,
                                   double         fraction,
                                   GError       **error)
{
  guint64 device_free = 0, device_total = 0;

  g_return_val_if_fail (self != NULL, FALSE);

  /* setMemoryFraction(): "invalid fraction ... Please set within [0, 1]"; the
   * limit is the fraction of the total memory cudaMemGetInfo() reports. */
  if (!(fraction >= 0.0 && fraction <= 1.0))
    {
      g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                   _("The memory fraction must be from 0 to 1 (it is %g)."), fraction);
      return FALSE;
    }
  if (!gml_device_mem_get_info (self->device, &device_free, &device_total, error))
    return FALSE;
  self->allowed_memory_maximum = (guint64) (fraction * (double) device_total);
  self->set_fraction = TRUE;
  return TRUE;
}

gboolean
gml_allocator_would_reuse (GmlAllocator *self,
                           guint64       size,
                           guint32       stream)
{
  guint64 rounded;

  g_return_val_if_fail (self != NULL, FALSE);

  if (size == 0)
    return TRUE;
  if (size >= ONE_EXA_BYTES)
    return FALSE;
  rounded = gml_round_size (&self->conf, size);
  return find_free_block (self, gml_pool_for_size (rounded), stream, rounded) >= 0;
}

gint32
gml_allocator_add_segment (GmlAllocator       *self,
                           guint64             address,
                           guint32             stream,
                           GmlPool             pool,
                           const GmlBlockSpec *blocks,
                           guint               n_blocks)
{
  gint32 segment;
  gint32 slot;

  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (pool < GML_N_POOLS, -1);
  /* The trace starts from the state as it is at its first event. */
  g_return_val_if_fail (self->n_events == 0, -1);

  segment = gml_mem_state_add_segment (self->state, address, stream, pool, blocks, n_blocks);
  if (segment < 0)
    return -1;
  for (slot = gml_mem_state_get_segment (self->state, segment)->first_block; slot >= 0;
       slot = block_at (self, slot)->next)
    if (block_at (self, slot)->state == GML_BLOCK_FREE)
      index_insert (self, pool, block_at (self, slot), slot);
  return segment;
}

void
gml_allocator_empty_cache (GmlAllocator *self)
{
  GmlTraceEvent ev = { 0 };

  g_return_if_fail (self != NULL);

  if (self->broken != NULL)
    return;
  ev.kind = GML_EVENT_EMPTY_CACHE;
  ev.block = -1;
  emit (self, &ev);
  release_cached_blocks (self);
}

gboolean
gml_allocator_check (GmlAllocator  *self,
                     GError       **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return check_sane (self, error);
}

gboolean
gml_allocator_uses_expandable_segments (GmlAllocator *self)
{
  return self->expandable;
}

void
gml_allocator_add_expandable (GmlAllocator *self,
                              guint64       address,
                              guint64       size,
                              guint32       stream,
                              GmlPool       pool)
{
  Expandable x = { address, size, pool == GML_POOL_SMALL ? GML_SMALL_BUFFER : GML_LARGE_BUFFER,
                   stream, pool };

  g_return_if_fail (self != NULL);
  add_expandable (self, &x);
}

void
gml_allocator_mark_expandable (GmlAllocator *self,
                               gint32        segment)
{
  g_return_if_fail (self != NULL);
  gml_mem_state_mark_expandable (self->state, segment);
}

gboolean
gml_allocator_find_expandable (GmlAllocator *self,
                               guint64       address,
                               guint64      *base,
                               guint64      *size,
                               guint64      *page,
                               GmlPool      *pool,
                               guint32      *stream)
{
  const Expandable *x;

  g_return_val_if_fail (self != NULL, FALSE);

  if ((x = expandable_for (self, address)) == NULL)
    return FALSE;
  *base = x->base;
  *size = x->size;
  *page = x->page;
  *pool = x->pool;
  *stream = x->stream;
  return TRUE;
}

GmlDevice *
gml_allocator_get_device (GmlAllocator *self)
{
  return self->device;
}

const GmlAllocConf *
gml_allocator_get_conf (GmlAllocator *self)
{
  return &self->conf;
}

const GmlStats *
gml_allocator_get_stats (GmlAllocator *self)
{
  return gml_mem_state_get_stats (self->state);
}

const GmlMemState *
gml_allocator_get_state (GmlAllocator *self)
{
  return self->state;
}

GmlTrace *
gml_allocator_get_trace (GmlAllocator *self)
{
  return self->trace;
}

const char *
gml_allocator_get_last_oom_message (GmlAllocator *self)
{
  return self->last_oom_message;
}

/* gml-trace-state.c — the memory state the allocator's events describe: applying
 * an event (the one code path both the allocator and a rebuild from a trace
 * snapshot run), its queries, and the invariant check the tests use.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-trace"

#include "config.h"

#include <string.h>

#include "gml-trace.h"
#include "gml-trace-private.h"


/* ------------------------------------------------------------------------- */
/* The memory state                                                          */


GmlMemState *
gml_mem_state_new (GPtrArray *labels)
{
  GmlMemState *self = g_new0 (GmlMemState, 1);

  self->blocks = g_array_new (FALSE, TRUE, sizeof (GmlBlock));
  self->segments = g_array_new (FALSE, TRUE, sizeof (GmlSegment));
  self->free_block_slots = g_array_new (FALSE, FALSE, sizeof (gint32));
  self->free_segment_slots = g_array_new (FALSE, FALSE, sizeof (gint32));
  self->labels = labels ? g_ptr_array_ref (labels) : NULL;

  return self;
}

static void
copy_array (GArray       *dest,
            const GArray *src)
{
  /* Appended, not sized: a sized array clears what it adds, only for it to be
   * overwritten (a trace copies a state every few thousand events). */
  g_array_set_size (dest, 0);
  g_array_append_vals (dest, src->data, src->len);
}

void
gml_mem_state_copy_into (GmlMemState       *dest,
                         const GmlMemState *src)
{
  g_return_if_fail (dest != NULL && src != NULL);

  if (dest == src)
    return;

  copy_array (dest->blocks, src->blocks);
  copy_array (dest->segments, src->segments);
  copy_array (dest->free_block_slots, src->free_block_slots);
  dest->free_block_room = dest->free_block_slots->len;
  copy_array (dest->free_segment_slots, src->free_segment_slots);
  if (dest->labels != src->labels)
    {
      g_clear_pointer (&dest->labels, g_ptr_array_unref);
      dest->labels = src->labels ? g_ptr_array_ref (src->labels) : NULL;
    }
  dest->n_blocks = src->n_blocks;
  dest->n_segments = src->n_segments;
  dest->stats = src->stats;
}

GmlMemState *
gml_mem_state_copy (const GmlMemState *self)
{
  GmlMemState *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = gml_mem_state_new (self->labels);
  gml_mem_state_copy_into (copy, self);
  return copy;
}

void
gml_mem_state_free (GmlMemState *self)
{
  if (self == NULL)
    return;

  g_array_unref (self->blocks);
  g_array_unref (self->segments);
  g_array_unref (self->free_block_slots);
  g_array_unref (self->free_segment_slots);
  g_clear_pointer (&self->labels, g_ptr_array_unref);
  g_free (self);
}

static inline void
stat_add (GmlStat *array,
          guint8   pool,
          gint64   delta)
{
  GmlStat *a = &array[GML_STAT_ALL];
  GmlStat *p = &array[pool == GML_POOL_SMALL ? GML_STAT_SMALL_POOL : GML_STAT_LARGE_POOL];

  a->current += delta;
  if (a->current > a->peak)
    a->peak = a->current;
  p->current += delta;
  if (p->current > p->peak)
    p->peak = p->current;
}

static gint32
take_slot (GArray *free_slots,
           GArray *array)
{
  if (free_slots->len > 0)
    {
      /* A pop: shrinking a GArray needs no call into GLib (the slot stack has no
       * clear function, and its room is kept for the next push). */
      free_slots->len--;
      return g_array_index (free_slots, gint32, free_slots->len);
    }

  g_array_set_size (array, array->len + 1);
  return array->len - 1;
}

static void
release_block_slot (GmlMemState *self,
                    gint32       slot)
{
  GArray *stack = self->free_block_slots;

  memset (&BLOCKS (self)[slot], 0, sizeof (GmlBlock));
  BLOCKS (self)[slot].state = GML_BLOCK_UNUSED;
  BLOCKS (self)[slot].segment = -1;
  /* Below the length it once had, the stack still has the room (take_slot()
   * only lowers len): a push without a call into GLib, which cost a twentieth
   * of a long lab run (a free that merges releases a slot). */
  if (stack->len < self->free_block_room)
    g_array_index (stack, gint32, stack->len++) = slot;
  else
    {
      g_array_append_val (stack, slot);
      self->free_block_room = stack->len;
    }
  self->n_blocks--;
}

static inline gboolean
block_is_split (const GmlBlock *b)
{
  return b->prev >= 0 || b->next >= 0;
}

/* Merges the free block @src into @dst (which is being freed), the way
 * try_merge_blocks() does: @dst keeps its slot and grows. Returns the size
 * subsumed, 0 when @src cannot merge. */
static guint64
merge_blocks (GmlMemState *self,
              gint32       dst,
              gint32       src)
{
  GmlBlock *blocks = BLOCKS (self);
  GmlBlock *d = &blocks[dst];
  GmlBlock *s;
  guint64 subsumed;

  if (src < 0 || blocks[src].state != GML_BLOCK_FREE)
    return 0;

  s = &blocks[src];
  if (d->prev == src)
    {
      d->address = s->address;
      d->prev = s->prev;
      if (d->prev >= 0)
        blocks[d->prev].next = dst;
      else
        SEGMENTS (self)[d->segment].first_block = dst;
    }
  else
    {
      d->next = s->next;
      if (d->next >= 0)
        blocks[d->next].prev = dst;
    }

  subsumed = s->size;
  d->size += subsumed;
  release_block_slot (self, src);
  return subsumed;
}

/* The mapped range of an expandable segment that ends at / starts at
 * @address, on @stream and in @pool, or -1. */
static gint32
find_expandable_range (GmlMemState *self,
                       guint64      address,
                       gboolean     ending,
                       guint32      stream,
                       guint8       pool)
{
  for (guint s = 0; s < self->segments->len; s++)
    {
      const GmlSegment *seg = &SEGMENTS (self)[s];

      if (seg->first_block < 0 || !seg->expandable || seg->stream != stream || seg->pool != pool)
        continue;
      if (ending ? seg->address + seg->size == address : seg->address == address)
        return s;
    }
  return -1;
}

static gint32
last_block (GmlMemState *self,
            gint32       segment)
{
  gint32 i = SEGMENTS (self)[segment].first_block;

  while (BLOCKS (self)[i].next >= 0)
    i = BLOCKS (self)[i].next;
  return i;
}

/* map_block(): the pages become a free block that joins the mapped range
 * before it and the one after it (PyTorch reports each contiguous mapped
 * range as one segment), merging with free neighbours. Returns the free
 * block's slot. */
static gint32
apply_map (GmlMemState         *self,
           const GmlTraceEvent *ev)
{
  gint32 prev_seg = find_expandable_range (self, ev->address, TRUE, ev->stream, ev->pool);
  gint32 next_seg = find_expandable_range (self, ev->address + ev->size, FALSE, ev->stream,
                                           ev->pool);
  gint32 slot = take_slot (self->free_block_slots, self->blocks);
  gint32 seg;
  GmlBlock *b = &BLOCKS (self)[slot];

  memset (b, 0, sizeof *b);
  b->address = ev->address;
  b->size = ev->size;
  b->prev = b->next = -1;
  b->stream = ev->stream;
  b->pool = ev->pool;
  b->state = GML_BLOCK_FREE;
  self->n_blocks++;

  if (prev_seg >= 0)
    {
      gint32 last = last_block (self, prev_seg);

      seg = prev_seg;
      BLOCKS (self)[last].next = slot;
      BLOCKS (self)[slot].prev = last;
      SEGMENTS (self)[seg].size += ev->size;
    }
  else
    {
      seg = take_slot (self->free_segment_slots, self->segments);
      SEGMENTS (self)[seg].address = ev->address;
      SEGMENTS (self)[seg].size = ev->size;
      SEGMENTS (self)[seg].first_block = slot;
      SEGMENTS (self)[seg].stream = ev->stream;
      SEGMENTS (self)[seg].pool = ev->pool;
      SEGMENTS (self)[seg].expandable = TRUE;
      self->n_segments++;
    }
  BLOCKS (self)[slot].segment = seg;

  if (next_seg >= 0)
    {
      gint32 first = SEGMENTS (self)[next_seg].first_block;

      BLOCKS (self)[slot].next = first;
      BLOCKS (self)[first].prev = slot;
      for (gint32 i = first; i >= 0; i = BLOCKS (self)[i].next)
        BLOCKS (self)[i].segment = seg;
      SEGMENTS (self)[seg].size += SEGMENTS (self)[next_seg].size;
      memset (&SEGMENTS (self)[next_seg], 0, sizeof (GmlSegment));
      SEGMENTS (self)[next_seg].first_block = -1;
      g_array_append_val (self->free_segment_slots, next_seg);
      self->n_segments--;
    }

  /* try_merge_blocks (to_map, prev) and (to_map, next): the mapped block absorbs them. */
  merge_blocks (self, slot, BLOCKS (self)[slot].prev);
  merge_blocks (self, slot, BLOCKS (self)[slot].next);

  stat_add (self->stats.reserved_bytes, ev->pool, ev->size);
  self->stats.num_device_alloc++;
  if (ev->flags & GML_EVENT_FLAG_RETRY)
    self->stats.num_alloc_retries++;
  return slot;
}

/* unmap_block(): [address, address + size) leaves the free block ev->block;
 * what was mapped after it becomes a range (a segment) of its own. */
static gint32
apply_unmap (GmlMemState         *self,
             const GmlTraceEvent *ev)
{
  GmlBlock *b = &BLOCKS (self)[ev->block];
  gint32 seg = b->segment;
  guint64 end = ev->address + ev->size;
  guint64 b_end = b->address + b->size;
  gint32 tail_first, rest_slot = -1;

  /* What follows the hole: a free rest of b, then b's old successors. */
  if (end < b_end)
    {
      gint32 rest = take_slot (self->free_block_slots, self->blocks);
      GmlBlock *r;

      b = &BLOCKS (self)[ev->block];
      r = &BLOCKS (self)[rest];
      memset (r, 0, sizeof *r);
      r->address = end;
      r->size = b_end - end;
      r->prev = -1;
      r->next = b->next;
      r->stream = b->stream;
      r->pool = b->pool;
      r->state = GML_BLOCK_FREE;
      if (r->next >= 0)
        BLOCKS (self)[r->next].prev = rest;
      self->n_blocks++;
      tail_first = rest;
      rest_slot = rest;
    }
  else
    {
      tail_first = b->next;
      if (tail_first >= 0)
        BLOCKS (self)[tail_first].prev = -1;
    }

  /* What precedes it stays in the segment. */
  b = &BLOCKS (self)[ev->block];
  if (ev->address > b->address)
    {
      b->size = ev->address - b->address;
      b->next = -1;
    }
  else
    {
      if (b->prev >= 0)
        BLOCKS (self)[b->prev].next = -1;
      else
        SEGMENTS (self)[seg].first_block = -1;
      release_block_slot (self, ev->block);
    }

  if (tail_first >= 0)
    {
      gint32 t = take_slot (self->free_segment_slots, self->segments);
      guint64 size = 0;

      SEGMENTS (self)[t] = SEGMENTS (self)[seg];
      SEGMENTS (self)[t].address = end;
      SEGMENTS (self)[t].first_block = tail_first;
      for (gint32 i = tail_first; i >= 0; i = BLOCKS (self)[i].next)
        {
          BLOCKS (self)[i].segment = t;
          size += BLOCKS (self)[i].size;
        }
      SEGMENTS (self)[t].size = size;
      self->n_segments++;
    }

  SEGMENTS (self)[seg].size = ev->address - SEGMENTS (self)[seg].address;
  if (SEGMENTS (self)[seg].first_block < 0)
    {
      memset (&SEGMENTS (self)[seg], 0, sizeof (GmlSegment));
      SEGMENTS (self)[seg].first_block = -1;
      g_array_append_val (self->free_segment_slots, seg);
      self->n_segments--;
    }

  stat_add (self->stats.reserved_bytes, ev->pool, -(gint64) ev->size);
  self->stats.num_device_free++;
  return rest_slot;
}

/* The block of slot @slot in state @state, or NULL when there is none. */
static const GmlBlock *
block_in_state (const GmlMemState *self,
                gint32             slot,
                GmlBlockState      state)
{
  if (slot < 0 || (guint) slot >= self->blocks->len || BLOCKS (self)[slot].state != state)
    return NULL;
  return &BLOCKS (self)[slot];
}

gboolean
gml_mem_state_accepts (const GmlMemState   *self,
                       const GmlTraceEvent *ev)
{
  const GmlBlock *b;

  switch ((GmlTraceEventKind) ev->kind)
    {
    case GML_EVENT_SEGMENT_ALLOC:
      return ev->size > 0 && ev->address + ev->size > ev->address && ev->pool < GML_N_POOLS;

    case GML_EVENT_ALLOC:
      b = block_in_state (self, ev->block, GML_BLOCK_FREE);
      return b != NULL && ev->size > 0 && ev->size <= b->size;

    case GML_EVENT_FREE_REQUESTED:
      return block_in_state (self, ev->block, GML_BLOCK_ALLOCATED) != NULL;

    case GML_EVENT_FREE_COMPLETED:
      return block_in_state (self, ev->block, GML_BLOCK_PENDING_FREE) != NULL;

    case GML_EVENT_SEGMENT_FREE:
      b = block_in_state (self, ev->block, GML_BLOCK_FREE);
      return b != NULL && !block_is_split (b);

    case GML_EVENT_SEGMENT_UNMAP:
      b = block_in_state (self, ev->block, GML_BLOCK_FREE);
      return b != NULL && ev->size > 0 && ev->address >= b->address &&
             ev->address + ev->size > ev->address &&
             ev->address + ev->size <= b->address + b->size &&
             SEGMENTS (self)[b->segment].expandable;

    case GML_EVENT_SEGMENT_MAP:
      /* New pages: nothing mapped or allocated may lie under them. */
      if (ev->size == 0 || ev->address + ev->size < ev->address || ev->pool >= GML_N_POOLS)
        return FALSE;
      for (guint s = 0; s < self->segments->len; s++)
        {
          const GmlSegment *seg = &SEGMENTS (self)[s];

          if (seg->first_block >= 0 && ev->address < seg->address + seg->size &&
              seg->address < ev->address + ev->size)
            return FALSE;
        }
      return TRUE;

    case GML_EVENT_OOM:
    case GML_EVENT_EMPTY_CACHE:
      return TRUE;

    default:
      return FALSE;
    }
}

/* Applies one event. Returns the block slot the event created (segment_alloc:
 * the segment's block; alloc: the split-off free remainder; segment_map: the
 * free block the pages became; segment_unmap: the free rest after the hole),
 * -1, or GML_MEM_STATE_REFUSED for an event the state does not accept (it is
 * then left as it was). */
gint32
gml_mem_state_apply (GmlMemState         *self,
                     const GmlTraceEvent *ev)
{
  if (!gml_mem_state_accepts (self, ev))
    return GML_MEM_STATE_REFUSED;
  return _gml_mem_state_apply_accepted (self, ev);
}

/* gml_mem_state_apply() for an event gml_mem_state_accepts() has passed: the
 * allocator checks each event before it writes it to the trace, and a second
 * check here cost a twentieth of a long lab run. */
gint32
_gml_mem_state_apply_accepted (GmlMemState         *self,
                               const GmlTraceEvent *ev)
{
  GmlStats *st = &self->stats;
  GmlBlock *b;

  switch ((GmlTraceEventKind) ev->kind)
    {
    case GML_EVENT_SEGMENT_ALLOC:
      {
        gint32 s = take_slot (self->free_segment_slots, self->segments);
        gint32 slot = take_slot (self->free_block_slots, self->blocks);
        GmlSegment *seg = &SEGMENTS (self)[s];

        seg->address = ev->address;
        seg->size = ev->size;
        seg->first_block = slot;
        seg->stream = ev->stream;
        seg->pool = ev->pool;

        b = &BLOCKS (self)[slot];
        memset (b, 0, sizeof *b);
        b->address = ev->address;
        b->size = ev->size;
        b->prev = b->next = -1;
        b->segment = s;
        b->stream = ev->stream;
        b->pool = ev->pool;
        b->state = GML_BLOCK_FREE;

        self->n_blocks++;
        self->n_segments++;
        stat_add (st->segment, ev->pool, 1);
        stat_add (st->reserved_bytes, ev->pool, ev->size);
        st->num_device_alloc++;
        if (ev->flags & GML_EVENT_FLAG_RETRY)
          st->num_alloc_retries++;
        return slot;
      }

    case GML_EVENT_ALLOC:
      {
        gint32 remaining = -1;
        gboolean already_split, expandable;

        b = &BLOCKS (self)[ev->block];
        /* Expandable segments stay out of inactive_split (free_block() and
         * alloc_found_block() say why: their free pages can always be unmapped). */
        expandable = SEGMENTS (self)[b->segment].expandable;
        already_split = block_is_split (b);

        if (b->size > ev->size)
          {
            GmlBlock *r;
            gint32 old_next = b->next;

            remaining = take_slot (self->free_block_slots, self->blocks);
            b = &BLOCKS (self)[ev->block];   /* the array may have moved */
            r = &BLOCKS (self)[remaining];
            memset (r, 0, sizeof *r);
            r->address = b->address + ev->size;
            r->size = b->size - ev->size;
            r->prev = ev->block;
            r->next = old_next;
            r->segment = b->segment;
            r->stream = b->stream;
            r->pool = b->pool;
            r->state = GML_BLOCK_FREE;
            if (old_next >= 0)
              BLOCKS (self)[old_next].prev = remaining;
            b->next = remaining;
            b->size = ev->size;
            self->n_blocks++;

            if (expandable)
              ;
            else if (already_split)
              {
                stat_add (st->inactive_split_bytes, b->pool, -(gint64) b->size);
              }
            else
              {
                stat_add (st->inactive_split_bytes, b->pool, r->size);
                stat_add (st->inactive_split, b->pool, 1);
              }
          }
        else if (already_split && !expandable)
          {
            stat_add (st->inactive_split_bytes, b->pool, -(gint64) b->size);
            stat_add (st->inactive_split, b->pool, -1);
          }

        b->state = GML_BLOCK_ALLOCATED;
        b->requested_size = ev->requested_size;
        b->label = ev->label;
        b->category = ev->category;
        stat_add (st->allocation, b->pool, 1);
        stat_add (st->allocated_bytes, b->pool, b->size);
        stat_add (st->active, b->pool, 1);
        stat_add (st->active_bytes, b->pool, b->size);
        stat_add (st->requested_bytes, b->pool, b->requested_size);
        return remaining;
      }

    case GML_EVENT_FREE_REQUESTED:
      b = &BLOCKS (self)[ev->block];
      b->state = GML_BLOCK_PENDING_FREE;
      stat_add (st->allocation, b->pool, -1);
      stat_add (st->allocated_bytes, b->pool, -(gint64) b->size);
      return -1;

    case GML_EVENT_FREE_COMPLETED:
      {
        gint64 net_blocks = 0, net_bytes = 0;
        guint64 original_size, requested, subsumed;
        gint32 slot = ev->block;

        b = &BLOCKS (self)[slot];
        original_size = b->size;
        requested = b->requested_size;

        /* Same order as free_block(): the previous neighbour, then the next. */
        if ((subsumed = merge_blocks (self, slot, BLOCKS (self)[slot].prev)) > 0)
          net_blocks -= 1, net_bytes -= subsumed;
        if ((subsumed = merge_blocks (self, slot, BLOCKS (self)[slot].next)) > 0)
          net_blocks -= 1, net_bytes -= subsumed;

        b = &BLOCKS (self)[slot];
        if (block_is_split (b))
          net_blocks += 1, net_bytes += b->size;

        b->state = GML_BLOCK_FREE;
        b->requested_size = 0;
        b->label = 0;
        b->category = GML_CATEGORY_NONE;

        if (!SEGMENTS (self)[b->segment].expandable)
          {
            stat_add (st->inactive_split, b->pool, net_blocks);
            stat_add (st->inactive_split_bytes, b->pool, net_bytes);
          }
        stat_add (st->active, b->pool, -1);
        stat_add (st->active_bytes, b->pool, -(gint64) original_size);
        stat_add (st->requested_bytes, b->pool, -(gint64) requested);
        return -1;
      }

    case GML_EVENT_SEGMENT_FREE:
      {
        gint32 s;
        guint8 pool;
        guint64 size;

        b = &BLOCKS (self)[ev->block];
        s = b->segment;
        pool = b->pool;
        size = b->size;
        release_block_slot (self, ev->block);

        memset (&SEGMENTS (self)[s], 0, sizeof (GmlSegment));
        SEGMENTS (self)[s].first_block = -1;
        g_array_append_val (self->free_segment_slots, s);
        self->n_segments--;

        stat_add (st->segment, pool, -1);
        stat_add (st->reserved_bytes, pool, -(gint64) size);
        st->num_device_free++;
        return -1;
      }

    case GML_EVENT_SEGMENT_MAP:
      return apply_map (self, ev);

    case GML_EVENT_SEGMENT_UNMAP:
      return apply_unmap (self, ev);

    case GML_EVENT_OOM:
      /* Every out-of-memory went through the final retry of alloc_block(). */
      st->num_ooms++;
      st->num_alloc_retries++;
      return -1;

    case GML_EVENT_EMPTY_CACHE:
    default:
      return -1;
    }
}

const GmlStats *
gml_mem_state_get_stats (const GmlMemState *self)
{
  return &self->stats;
}

const GmlBlock *
gml_mem_state_get_block (const GmlMemState *self,
                         guint              id)
{
  if (id >= self->blocks->len || BLOCKS (self)[id].state == GML_BLOCK_UNUSED)
    return NULL;
  return &BLOCKS (self)[id];
}

const GmlSegment *
gml_mem_state_get_segment (const GmlMemState *self,
                           guint              slot)
{
  if (slot >= self->segments->len || SEGMENTS (self)[slot].first_block < 0)
    return NULL;
  return &SEGMENTS (self)[slot];
}

guint
gml_mem_state_get_n_segments (const GmlMemState *self)
{
  return self->n_segments;
}

/* Segment slots run from 0 to this, some of them unused (NULL from get_segment). */
guint
gml_mem_state_get_n_segment_slots (const GmlMemState *self)
{
  return self->segments->len;
}

guint
gml_mem_state_get_n_blocks (const GmlMemState *self)
{
  return self->n_blocks;
}

guint64
gml_mem_state_get_largest_free_block (const GmlMemState *self)
{
  const GmlBlock *blocks = BLOCKS (self);
  guint64 largest = 0;

  for (guint i = 0; i < self->blocks->len; i++)
    if (blocks[i].state == GML_BLOCK_FREE && blocks[i].size > largest)
      largest = blocks[i].size;

  return largest;
}

/* Fragmentation of the cache: 1 − largest free block / all free cached bytes.
 * 0 when the free cached memory is one block (or there is none): any request
 * that fits the free total then fits one block. Near 1 when it is in crumbs. */
double
gml_mem_state_get_fragmentation (const GmlMemState *self)
{
  const GmlBlock *blocks = BLOCKS (self);
  guint64 largest = 0, total = 0;

  for (guint i = 0; i < self->blocks->len; i++)
    if (blocks[i].state == GML_BLOCK_FREE)
      {
        total += blocks[i].size;
        if (blocks[i].size > largest)
          largest = blocks[i].size;
      }

  if (total == 0)
    return 0.0;
  return 1.0 - (double) largest / (double) total;
}

gboolean
gml_mem_state_get_block_info (const GmlMemState *self,
                              guint              id,
                              GmlBlockInfo      *info)
{
  const GmlBlock *b = gml_mem_state_get_block (self, id);

  if (b == NULL)
    return FALSE;

  info->id = id;
  info->address = b->address;
  info->size = b->size;
  info->requested_size = b->requested_size;
  info->state = b->state;
  info->pool = b->pool;
  info->stream = b->stream;
  info->category = b->category;
  info->label = (b->label != 0 && self->labels && b->label < self->labels->len)
                ? g_ptr_array_index (self->labels, b->label) : NULL;
  return TRUE;
}

static gint
compare_segment_slots (gconstpointer a,
                       gconstpointer b,
                       gpointer      user_data)
{
  const GmlSegment *segments = user_data;
  guint64 aa = segments[*(const gint32 *) a].address;
  guint64 bb = segments[*(const gint32 *) b].address;

  return aa < bb ? -1 : aa > bb ? 1 : 0;
}

/* Segment slots in address order; free with g_free. */
static gint32 *
sorted_segment_slots (const GmlMemState *self,
                      guint             *n)
{
  gint32 *slots = g_new (gint32, self->n_segments + 1);
  guint k = 0;

  for (guint i = 0; i < self->segments->len; i++)
    if (SEGMENTS (self)[i].first_block >= 0)
      slots[k++] = i;

  g_qsort_with_data (slots, k, sizeof (gint32), compare_segment_slots, SEGMENTS (self));
  *n = k;
  return slots;
}

static void
fill_segment_info (const GmlMemState *self,
                   gint32             s,
                   GmlSegmentInfo    *info)
{
  const GmlSegment *seg = &SEGMENTS (self)[s];

  memset (info, 0, sizeof *info);
  info->address = seg->address;
  info->size = seg->size;
  info->stream = seg->stream;
  info->pool = seg->pool;
  info->expandable = seg->expandable;
  for (gint32 i = seg->first_block; i >= 0; i = BLOCKS (self)[i].next)
    {
      const GmlBlock *b = &BLOCKS (self)[i];

      info->n_blocks++;
      if (b->state == GML_BLOCK_ALLOCATED)
        info->allocated_bytes += b->size;
      if (b->state == GML_BLOCK_ALLOCATED || b->state == GML_BLOCK_PENDING_FREE)
        {
          info->active_bytes += b->size;
          info->requested_bytes += b->requested_size;
        }
    }
}

/* The segments in address order, each to @segment_func if not NULL, then
 * its blocks to @block_func if not NULL. */
static void
walk_segments (const GmlMemState *self,
               GmlSegmentFunc     segment_func,
               GmlBlockFunc       block_func,
               gpointer           user_data)
{
  g_autofree gint32 *slots = NULL;
  guint n;

  slots = sorted_segment_slots (self, &n);
  for (guint k = 0; k < n; k++)
    {
      GmlSegmentInfo info;

      fill_segment_info (self, slots[k], &info);
      if (segment_func != NULL)
        segment_func (&info, user_data);
      if (block_func == NULL)
        continue;
      for (gint32 i = SEGMENTS (self)[slots[k]].first_block; i >= 0; i = BLOCKS (self)[i].next)
        {
          GmlBlockInfo binfo;

          gml_mem_state_get_block_info (self, i, &binfo);
          block_func (&info, &binfo, user_data);
        }
    }
}

void
gml_mem_state_foreach_segment (const GmlMemState *self,
                               GmlSegmentFunc     func,
                               gpointer           user_data)
{
  walk_segments (self, func, NULL, user_data);
}

void
gml_mem_state_foreach_block (const GmlMemState *self,
                             GmlBlockFunc       func,
                             gpointer           user_data)
{
  walk_segments (self, NULL, func, user_data);
}

gboolean
gml_mem_state_equal (const GmlMemState *a,
                     const GmlMemState *b)
{
  g_autofree gint32 *sa = NULL;
  g_autofree gint32 *sb = NULL;
  guint na, nb;

  if (memcmp (&a->stats, &b->stats, sizeof (GmlStats)) != 0)
    return FALSE;
  if (a->n_blocks != b->n_blocks || a->n_segments != b->n_segments)
    return FALSE;

  sa = sorted_segment_slots (a, &na);
  sb = sorted_segment_slots (b, &nb);
  if (na != nb)
    return FALSE;

  for (guint k = 0; k < na; k++)
    {
      const GmlSegment *x = &SEGMENTS (a)[sa[k]];
      const GmlSegment *y = &SEGMENTS (b)[sb[k]];
      gint32 i, j;

      if (x->address != y->address || x->size != y->size ||
          x->stream != y->stream || x->pool != y->pool)
        return FALSE;

      for (i = x->first_block, j = y->first_block;
           i >= 0 && j >= 0;
           i = BLOCKS (a)[i].next, j = BLOCKS (b)[j].next)
        {
          GmlBlockInfo bi, bj;

          gml_mem_state_get_block_info (a, i, &bi);
          gml_mem_state_get_block_info (b, j, &bj);
          if (bi.id != bj.id || bi.address != bj.address || bi.size != bj.size ||
              bi.requested_size != bj.requested_size || bi.state != bj.state ||
              bi.pool != bj.pool || bi.stream != bj.stream ||
              bi.category != bj.category || g_strcmp0 (bi.label, bj.label) != 0)
            return FALSE;
        }
      if (i >= 0 || j >= 0)
        return FALSE;
    }

  return TRUE;
}

#define CHECK(cond, ...) \
  G_STMT_START { \
    if (!(cond)) \
      { \
        g_set_error (error, g_quark_from_static_string ("gml-mem-state-check"), 0, __VA_ARGS__); \
        return FALSE; \
      } \
  } G_STMT_END

static gboolean
check_stat (const GmlStat *array,
            const gint64  *expected,
            const char    *name,
            GError       **error)
{
  for (guint t = 0; t < GML_N_STAT_TYPES; t++)
    {
      CHECK (array[t].current == expected[t],
             "%s[%u].current is %" G_GINT64_FORMAT ", the blocks say %" G_GINT64_FORMAT,
             name, t, array[t].current, expected[t]);
      CHECK (array[t].peak >= array[t].current, "%s[%u].peak below current", name, t);
    }
  return TRUE;
}

/* Checks every invariant the allocator must keep; used by the tests. The
 * messages are for developers and stay untranslated. */
gboolean
gml_mem_state_check (const GmlMemState *self,
                     GError           **error)
{
  gint64 allocation[3] = { 0 }, segment[3] = { 0 }, active[3] = { 0 }, inactive[3] = { 0 };
  gint64 allocated_b[3] = { 0 }, reserved_b[3] = { 0 }, active_b[3] = { 0 };
  gint64 inactive_b[3] = { 0 }, requested_b[3] = { 0 };
  g_autofree gint32 *slots = NULL;
  guint n, n_blocks_seen = 0;
  guint64 prev_end = 0;

  slots = sorted_segment_slots (self, &n);
  CHECK (n == self->n_segments, "segment count %u, %u listed", self->n_segments, n);

  for (guint k = 0; k < n; k++)
    {
      const GmlSegment *seg = &SEGMENTS (self)[slots[k]];
      guint t = seg->pool == GML_POOL_SMALL ? GML_STAT_SMALL_POOL : GML_STAT_LARGE_POOL;
      guint64 cursor = seg->address;
      gint32 prev = -1;
      gboolean prev_free = FALSE;
      guint in_segment = 0;

      CHECK (k == 0 || seg->address >= prev_end,
             "segment at 0x%" G_GINT64_MODIFIER "x overlaps the one before", seg->address);
      prev_end = seg->address + seg->size;
      if (!seg->expandable)
        segment[0]++, segment[t]++;
      reserved_b[0] += seg->size, reserved_b[t] += seg->size;

      for (gint32 i = seg->first_block; i >= 0; i = BLOCKS (self)[i].next)
        {
          const GmlBlock *b = &BLOCKS (self)[i];
          gboolean is_free = b->state == GML_BLOCK_FREE;

          in_segment++;
          CHECK (in_segment <= self->n_blocks, "block list of a segment loops");
          CHECK (b->segment == slots[k], "block %d names the wrong segment", i);
          CHECK (b->prev == prev, "block %d: broken prev link", i);
          CHECK (b->address == cursor, "block %d does not start where the last one ended", i);
          CHECK (b->size > 0 && b->size % 512 == 0, "block %d has size %" G_GUINT64_FORMAT,
                 i, b->size);
          CHECK (b->pool == seg->pool && b->stream == seg->stream,
                 "block %d: pool or stream differs from its segment", i);
          CHECK (!(is_free && prev_free), "two free neighbours were not merged at block %d", i);
          CHECK (b->state != GML_BLOCK_UNUSED, "unused slot %d linked in a segment", i);

          if (b->state == GML_BLOCK_ALLOCATED)
            {
              allocation[0]++, allocation[t]++;
              allocated_b[0] += b->size, allocated_b[t] += b->size;
              CHECK (b->requested_size <= b->size, "block %d: requested above size", i);
            }
          if (b->state == GML_BLOCK_ALLOCATED || b->state == GML_BLOCK_PENDING_FREE)
            {
              active[0]++, active[t]++;
              active_b[0] += b->size, active_b[t] += b->size;
              requested_b[0] += b->requested_size, requested_b[t] += b->requested_size;
            }
          if (is_free && block_is_split (b) && !seg->expandable)
            {
              inactive[0]++, inactive[t]++;
              inactive_b[0] += b->size, inactive_b[t] += b->size;
            }

          cursor += b->size;
          prev = i;
          prev_free = is_free;
          n_blocks_seen++;
        }
      CHECK (cursor == seg->address + seg->size,
             "blocks of the segment at 0x%" G_GINT64_MODIFIER "x do not tile it", seg->address);
    }

  CHECK (n_blocks_seen == self->n_blocks, "block count %u, %u linked", self->n_blocks,
         n_blocks_seen);

  return check_stat (self->stats.allocation, allocation, "allocation", error) &&
         check_stat (self->stats.segment, segment, "segment", error) &&
         check_stat (self->stats.active, active, "active", error) &&
         check_stat (self->stats.inactive_split, inactive, "inactive_split", error) &&
         check_stat (self->stats.allocated_bytes, allocated_b, "allocated_bytes", error) &&
         check_stat (self->stats.reserved_bytes, reserved_b, "reserved_bytes", error) &&
         check_stat (self->stats.active_bytes, active_b, "active_bytes", error) &&
         check_stat (self->stats.inactive_split_bytes, inactive_b, "inactive_split_bytes", error) &&
         check_stat (self->stats.requested_bytes, requested_b, "requested_bytes", error);
}

void
gml_mem_state_mark_expandable (GmlMemState *self,
                               gint32       segment)
{
  GmlSegment *seg;

  g_return_if_fail (self != NULL && segment >= 0 && (guint) segment < self->segments->len);
  seg = &SEGMENTS (self)[segment];
  if (seg->first_block < 0 || seg->expandable)
    return;
  seg->expandable = TRUE;
  stat_add (self->stats.segment, seg->pool, -1);
  for (gint32 i = seg->first_block; i >= 0; i = BLOCKS (self)[i].next)
    if (BLOCKS (self)[i].state == GML_BLOCK_FREE && block_is_split (&BLOCKS (self)[i]))
      {
        stat_add (self->stats.inactive_split, seg->pool, -1);
        stat_add (self->stats.inactive_split_bytes, seg->pool, -(gint64) BLOCKS (self)[i].size);
      }
}

gint32
gml_mem_state_add_segment (GmlMemState        *self,
                           guint64             address,
                           guint32             stream,
                           GmlPool             pool,
                           const GmlBlockSpec *specs,
                           guint               n_blocks)
{
  GmlStats *st = &self->stats;
  guint64 cursor = address;
  gint32 s, prev = -1;

  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (specs != NULL && n_blocks > 0, -1);

  s = take_slot (self->free_segment_slots, self->segments);
  SEGMENTS (self)[s].address = address;
  SEGMENTS (self)[s].stream = stream;
  SEGMENTS (self)[s].pool = pool;
  SEGMENTS (self)[s].first_block = -1;

  for (guint i = 0; i < n_blocks; i++)
    {
      gint32 slot = take_slot (self->free_block_slots, self->blocks);
      GmlBlock *b = &BLOCKS (self)[slot];

      memset (b, 0, sizeof *b);
      b->address = cursor;
      b->size = specs[i].size;
      b->requested_size = specs[i].state == GML_BLOCK_FREE ? 0 : specs[i].requested_size;
      b->prev = prev;
      b->next = -1;
      b->segment = s;
      b->stream = stream;
      b->pool = pool;
      b->state = specs[i].state;
      b->label = specs[i].label;
      b->category = specs[i].category;
      if (prev >= 0)
        BLOCKS (self)[prev].next = slot;
      else
        SEGMENTS (self)[s].first_block = slot;
      self->n_blocks++;

      switch (b->state)
        {
        case GML_BLOCK_ALLOCATED:
          stat_add (st->allocation, pool, 1);
          stat_add (st->allocated_bytes, pool, b->size);
          G_GNUC_FALLTHROUGH;
        case GML_BLOCK_PENDING_FREE:
          stat_add (st->active, pool, 1);
          stat_add (st->active_bytes, pool, b->size);
          stat_add (st->requested_bytes, pool, b->requested_size);
          break;
        case GML_BLOCK_FREE:
          if (n_blocks > 1)
            {
              stat_add (st->inactive_split, pool, 1);
              stat_add (st->inactive_split_bytes, pool, b->size);
            }
          break;
        case GML_BLOCK_UNUSED:
        default:
          break;
        }
      cursor += b->size;
      prev = slot;
    }

  SEGMENTS (self)[s].size = cursor - address;
  self->n_segments++;
  stat_add (st->segment, pool, 1);
  stat_add (st->reserved_bytes, pool, cursor - address);
  return s;
}

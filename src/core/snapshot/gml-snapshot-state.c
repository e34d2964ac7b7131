/* gml-snapshot-state.c — a snapshot's memory at any point of its trace.
 *
 * One walk backwards from the file's exact end state undoes every entry (an
 * alloc frees its block, a free_completed puts the block back as pending, a
 * segment_free re-inserts its segment, …). It gives the allocated, reserved
 * and requested bytes after every entry, finds the block behind each
 * allocation, and ends at the state before the trace. A walk forwards from
 * there then keeps a copy of the layout every few thousand entries, so any
 * state is one copy plus a few thousand cheap steps away.
 *
 * Blocks freed before the dump are not in the file: their size is estimated
 * from the request with the allocator's own round_size() and split rules, and
 * marked as estimated. An entry that contradicts the layout (a free of a block
 * that is not there, say, in a hand-edited file) is counted and skipped; the
 * walk never trusts the file enough to crash on it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot"

#include "config.h"

#include <string.h>

#include "gml-i18n.h"
#include "gml-memory.h"

#include "gml-snapshot-private.h"
#include "gml-snapshot-state.h"

#define ESTIMATED_BIT (G_GUINT64_CONSTANT (1) << 63)
/* A free_requested whose block went back to the pool at once (no
 * free_completed follows it in the trace). */
#define COMPLETES_BIT (G_GUINT64_CONSTANT (1) << 62)
#define SIZE_BITS     (~(ESTIMATED_BIT | COMPLETES_BIT))
#define SMALL_SEGMENT (G_GUINT64_CONSTANT (2) << 20)
/* Checkpoints: one every this many entries at least, and together at most
 * about this many bytes. */
#define MIN_INTERVAL  2048
#define CHECKPOINT_BUDGET ((guint64) 192 << 20)

struct _GmlSnapshotLayout
{
  GArray *segments;   /* GmlSnapshotLayoutSegment, address order */
};

typedef struct
{
  guint64 address;
  guint64 size;
  guint32 stream;
  guint32 n_blocks;
  guint8  small;
  guint8  expandable;
} CheckpointSegment;

typedef struct
{
  CheckpointSegment      *segments;
  GmlSnapshotLayoutBlock *blocks;
  guint                   n_segments;
} Checkpoint;

typedef struct
{
  guint64 allocated;
  guint64 reserved;
  guint64 active;
  guint64 requested;
  gint64  allocations;
  gint64  segments;
  guint64 *by_stream;         /* the first walk forwards: allocated bytes by stream */
} Counters;

struct _GmlSnapshotTimeline
{
  GmlSnapshot            *snapshot;
  guint                   device;
  const GmlSnapshotEntry *entries;
  gsize                   n;
  GmlAllocConf            conf;

  guint64                *allocated;     /* n + 1; NULL for a summary */
  guint64                *reserved;
  guint64                 peak_allocated;
  gsize                   peak_index;    /* the first N with peak_allocated */
  guint64                 reserved_at_peak;
  guint64                 peak_reserved;
  guint64                *block_size;    /* n; ESTIMATED_BIT for estimates */
  guint8                 *kinds;         /* n: an alloc entry's GML_SNAP_KIND */
  guint64                *stream_peak;   /* by stream: the most allocated on it at once */
  guint                   n_streams;
  gsize                   action_counts[GML_N_SNAP_ACTIONS];
  guint64                 peak_requested;
  guint                   inconsistencies;
  GArray                 *ooms;          /* GmlSnapshotOom */

  gsize                   interval;
  GPtrArray              *checkpoints;   /* Checkpoint * at k × interval */
  Checkpoint             *end;           /* the file's own end state, exact */

  GPtrArray              *labels;        /* for the memory states: index 0 = no label */
  GHashTable             *label_ids;     /* frame list id → label id */
};

/* ------------------------------------------------------------------------- */
/* Layouts                                                                   */

static void
clear_segment (gpointer data)
{
  GmlSnapshotLayoutSegment *seg = data;

  g_clear_pointer (&seg->blocks, g_array_unref);
}

GmlSnapshotLayout *
gml_snapshot_layout_new (void)
{
  GmlSnapshotLayout *self = g_new0 (GmlSnapshotLayout, 1);

  self->segments = g_array_new (FALSE, FALSE, sizeof (GmlSnapshotLayoutSegment));
  g_array_set_clear_func (self->segments, clear_segment);
  return self;
}

void
gml_snapshot_layout_free (GmlSnapshotLayout *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->segments);
  g_free (self);
}

guint
gml_snapshot_layout_get_n_segments (GmlSnapshotLayout *self)
{
  return self->segments->len;
}

const GmlSnapshotLayoutSegment *
gml_snapshot_layout_get_segment (GmlSnapshotLayout *self,
                                 guint              index)
{
  g_return_val_if_fail (index < self->segments->len, NULL);
  return &g_array_index (self->segments, GmlSnapshotLayoutSegment, index);
}

gint32
gml_snapshot_layout_segment_rebuild (const GmlSnapshotLayoutSegment *seg,
                                     GmlAllocator                   *allocator,
                                     GHashTable                     *blocks)
{
  g_autoptr(GArray) specs = g_array_sized_new (FALSE, FALSE, sizeof (GmlBlockSpec),
                                               seg->blocks->len);
  const GmlMemState *state;
  gint32 slot;

  for (guint i = 0; i < seg->blocks->len; i++)
    {
      const GmlSnapshotLayoutBlock *b = &g_array_index (seg->blocks, GmlSnapshotLayoutBlock, i);
      GmlBlockSpec spec = { b->size, MIN (b->requested_size, b->size), GML_BLOCK_FREE, 0,
                            GML_CATEGORY_NONE };

      if (b->state == GML_SNAP_BLOCK_ALLOCATED)
        spec.state = GML_BLOCK_ALLOCATED;
      else if (b->state == GML_SNAP_BLOCK_PENDING_FREE)
        spec.state = GML_BLOCK_PENDING_FREE;
      g_array_append_val (specs, spec);
    }
  slot = gml_allocator_add_segment (allocator, seg->address, seg->stream,
                                    seg->small ? GML_POOL_SMALL : GML_POOL_LARGE,
                                    (GmlBlockSpec *) specs->data, specs->len);
  if (slot < 0)
    return -1;
  state = gml_allocator_get_state (allocator);
  for (gint32 id = gml_mem_state_get_segment (state, slot)->first_block; id >= 0;
       id = gml_mem_state_get_block (state, id)->next)
    {
      const GmlBlock *b = gml_mem_state_get_block (state, id);

      if (b->state != GML_BLOCK_FREE)
        g_hash_table_insert (blocks, g_memdup2 (&b->address, sizeof b->address),
                             GINT_TO_POINTER (id + 1));
    }
  return slot;
}

static inline GmlSnapshotLayoutSegment *
seg_at (GmlSnapshotLayout *l,
        guint              i)
{
  return &g_array_index (l->segments, GmlSnapshotLayoutSegment, i);
}

static inline GmlSnapshotLayoutBlock *
block_at (GmlSnapshotLayoutSegment *seg,
          guint                     i)
{
  return &g_array_index (seg->blocks, GmlSnapshotLayoutBlock, i);
}

/* The segment that holds @address, or -1. */
static gint
find_segment (GmlSnapshotLayout *l,
              guint64            address)
{
  guint lo = 0, hi = l->segments->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (seg_at (l, mid)->address <= address)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return -1;
  if (address - seg_at (l, lo - 1)->address < seg_at (l, lo - 1)->size)
    return lo - 1;
  return -1;
}

/* The block of @seg that holds @address, or -1. */
static gint
find_block (GmlSnapshotLayoutSegment *seg,
            guint64                   address)
{
  guint lo = 0, hi = seg->blocks->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (block_at (seg, mid)->address <= address)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return -1;
  if (address - block_at (seg, lo - 1)->address < block_at (seg, lo - 1)->size)
    return lo - 1;
  return -1;
}

const GmlSnapshotLayoutBlock *
gml_snapshot_layout_find_block (GmlSnapshotLayout *self,
                                guint64            address)
{
  gint s = find_segment (self, address);
  gint b;

  if (s < 0)
    return NULL;
  b = find_block (seg_at (self, s), address);
  return b < 0 ? NULL : block_at (seg_at (self, s), b);
}

/* Inserts a segment of one free block; -1 when it would overlap another. */
static gint
insert_segment (GmlSnapshotLayout *l,
                guint64            address,
                guint64            size,
                guint32            stream,
                gboolean           small,
                gboolean           expandable)
{
  GmlSnapshotLayoutSegment seg = { address, size, stream, small, expandable, NULL };
  GmlSnapshotLayoutBlock block = { address, size, 0, 0, GML_SNAP_BLOCK_INACTIVE, FALSE };
  guint lo = 0, hi = l->segments->len;

  if (size == 0 || address + size < address)
    return -1;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (seg_at (l, mid)->address < address)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo > 0 && seg_at (l, lo - 1)->address + seg_at (l, lo - 1)->size > address)
    return -1;
  if (lo < l->segments->len && seg_at (l, lo)->address < address + size)
    return -1;
  seg.blocks = g_array_new (FALSE, FALSE, sizeof (GmlSnapshotLayoutBlock));
  g_array_append_val (seg.blocks, block);
  g_array_insert_val (l->segments, lo, seg);
  return lo;
}

/* Frees block @i of @seg and merges it with free neighbours. */
static void
free_and_merge (GmlSnapshotLayoutSegment *seg,
                guint                     i)
{
  GmlSnapshotLayoutBlock *b = block_at (seg, i);

  /* A free block's extent is exact once no estimated block is beside it:
   * only live blocks carry the estimated mark. */
  b->state = GML_SNAP_BLOCK_INACTIVE;
  b->estimated = FALSE;
  b->kind = 0;
  b->made_at = 0;
  if (i + 1 < seg->blocks->len && block_at (seg, i + 1)->state == GML_SNAP_BLOCK_INACTIVE)
    {
      b->size += block_at (seg, i + 1)->size;
      g_array_remove_index (seg->blocks, i + 1);
      b = block_at (seg, i);
    }
  if (i > 0 && block_at (seg, i - 1)->state == GML_SNAP_BLOCK_INACTIVE)
    {
      GmlSnapshotLayoutBlock *p = block_at (seg, i - 1);

      p->size += b->size;
      g_array_remove_index (seg->blocks, i);
    }
}

/* Carves [address, address + size) out of the free block @i, which holds it;
 * returns the index of the new block. */
static guint
carve (GmlSnapshotLayoutSegment *seg,
       guint                     i,
       guint64                   address,
       guint64                   size)
{
  GmlSnapshotLayoutBlock free_block = *block_at (seg, i);
  guint64 end = address + size;
  guint64 free_end = free_block.address + free_block.size;
  GmlSnapshotLayoutBlock piece = free_block;

  if (address > free_block.address)
    {
      block_at (seg, i)->size = address - free_block.address;
      piece.address = address;
      piece.size = size;
      i++;
      g_array_insert_val (seg->blocks, i, piece);
    }
  else
    {
      block_at (seg, i)->size = size;
    }
  if (end < free_end)
    {
      GmlSnapshotLayoutBlock rest = free_block;

      rest.address = end;
      rest.size = free_end - end;
      g_array_insert_val (seg->blocks, i + 1, rest);
    }
  return i;
}

void
gml_snapshot_layout_get_stats (GmlSnapshotLayout *self,
                               GmlSnapshotStats  *stats)
{
  guint64 free_total = 0;

  memset (stats, 0, sizeof *stats);
  stats->segments = self->segments->len;
  for (guint s = 0; s < self->segments->len; s++)
    {
      GmlSnapshotLayoutSegment *seg = seg_at (self, s);
      gboolean split = seg->blocks->len > 1;

      stats->reserved_bytes += seg->size;
      stats->blocks += seg->blocks->len;
      for (guint i = 0; i < seg->blocks->len; i++)
        {
          GmlSnapshotLayoutBlock *b = block_at (seg, i);

          if (b->estimated && b->state != GML_SNAP_BLOCK_INACTIVE)
            stats->estimated_blocks++;
          switch (b->state)
            {
            case GML_SNAP_BLOCK_ALLOCATED:
              stats->allocated_bytes += b->size;
              stats->active_bytes += b->size;
              stats->requested_bytes += b->requested_size;
              stats->allocations++;
              break;
            case GML_SNAP_BLOCK_PENDING_FREE:
              stats->active_bytes += b->size;
              break;
            case GML_SNAP_BLOCK_INACTIVE:
            default:
              free_total += b->size;
              if (b->size > stats->largest_free_block_bytes)
                stats->largest_free_block_bytes = b->size;
              if (split)
                stats->inactive_split_bytes += b->size;
              break;
            }
        }
    }
  stats->fragmentation = free_total > 0
    ? 1.0 - (double) stats->largest_free_block_bytes / (double) free_total : 0.0;
}

static void
layout_from_snapshot (GmlSnapshotLayout *l,
                      GmlSnapshot       *snap,
                      guint              device)
{
  gsize n_segments, n_blocks;
  const GmlSnapshotSegment *segments = gml_snapshot_get_segments (snap, device, &n_segments);
  const GmlSnapshotBlock *blocks = gml_snapshot_get_blocks (snap, device, &n_blocks);

  g_array_set_size (l->segments, 0);
  for (gsize s = 0; s < n_segments; s++)
    {
      const GmlSnapshotSegment *ss = &segments[s];
      GmlSnapshotLayoutSegment seg = { ss->address, 0, ss->stream, ss->small, ss->expandable,
                                       NULL };
      guint64 cursor = ss->address;

      seg.blocks = g_array_sized_new (FALSE, FALSE, sizeof (GmlSnapshotLayoutBlock), ss->n_blocks);
      for (guint32 i = 0; i < ss->n_blocks; i++)
        {
          const GmlSnapshotBlock *sb = &blocks[ss->first_block + i];
          GmlSnapshotLayoutBlock b = { sb->address, sb->size, sb->requested_size, sb->frames,
                                       sb->state, FALSE };

          /* Blocks tile their segment; a file that says otherwise (a gap, an
           * overlap, an empty block) gets the blocks it can place. */
          if (sb->size == 0 || sb->address != cursor)
            continue;
          if (b.state == GML_SNAP_BLOCK_UNKNOWN)
            b.state = GML_SNAP_BLOCK_INACTIVE;
          /* Free neighbours are one block in the allocator. */
          if (b.state == GML_SNAP_BLOCK_INACTIVE && seg.blocks->len > 0 &&
              g_array_index (seg.blocks, GmlSnapshotLayoutBlock, seg.blocks->len - 1).state ==
                GML_SNAP_BLOCK_INACTIVE)
            g_array_index (seg.blocks, GmlSnapshotLayoutBlock, seg.blocks->len - 1).size += b.size;
          else
            g_array_append_val (seg.blocks, b);
          cursor += sb->size;
        }
      seg.size = cursor - ss->address;
      if (seg.blocks->len == 0 ||
          (l->segments->len > 0 &&
           seg_at (l, l->segments->len - 1)->address + seg_at (l, l->segments->len - 1)->size >
             seg.address))
        {
          g_array_unref (seg.blocks);
          continue;
        }
      g_array_append_val (l->segments, seg);
    }
}

static void
layout_copy_into (GmlSnapshotLayout *dest,
                  GmlSnapshotLayout *src)
{
  g_array_set_size (dest->segments, 0);
  for (guint s = 0; s < src->segments->len; s++)
    {
      GmlSnapshotLayoutSegment seg = *seg_at (src, s);

      seg.blocks = g_array_sized_new (FALSE, FALSE, sizeof (GmlSnapshotLayoutBlock),
                                      seg.blocks->len);
      g_array_append_vals (seg.blocks, seg_at (src, s)->blocks->data, seg_at (src, s)->blocks->len);
      g_array_append_val (dest->segments, seg);
    }
}

/* ------------------------------------------------------------------------- */
/* Expandable segments: mapping and unmapping ranges                         */

/* Maps [address, address + size) as free memory: it joins an expandable
 * segment that ends or starts there (PyTorch reports each contiguous mapped
 * range as one segment), or becomes a segment of its own. */
static gboolean
map_range (GmlSnapshotLayout *l,
           guint64            address,
           guint64            size,
           guint32            stream)
{
  gint before = address > 0 ? find_segment (l, address - 1) : -1;
  gint s;

  if (size == 0 || address + size < address || find_segment (l, address) >= 0 ||
      find_segment (l, address + size - 1) >= 0)
    return FALSE;
  if (before >= 0 && seg_at (l, before)->expandable && seg_at (l, before)->stream == stream)
    {
      GmlSnapshotLayoutSegment *seg = seg_at (l, before);
      GmlSnapshotLayoutBlock block = { address, size, 0, 0, GML_SNAP_BLOCK_INACTIVE, FALSE };

      seg->size += size;
      g_array_append_val (seg->blocks, block);
      free_and_merge (seg, seg->blocks->len - 1);
      s = before;
    }
  else
    {
      /* A range of its own: large-pool pages are 20 MiB, so a size that is
       * not a multiple of that is the small pool's (pages of 2 MiB). */
      s = insert_segment (l, address, size, stream, size % GML_LARGE_BUFFER != 0, TRUE);
      if (s < 0)
        return FALSE;
    }
  /* A following expandable segment that now touches this one joins it. */
  if ((guint) s + 1 < l->segments->len)
    {
      GmlSnapshotLayoutSegment *seg = seg_at (l, s);
      GmlSnapshotLayoutSegment *next = seg_at (l, s + 1);

      if (next->expandable && next->stream == seg->stream &&
          seg->address + seg->size == next->address)
        {
          guint first = seg->blocks->len;

          seg->size += next->size;
          g_array_append_vals (seg->blocks, next->blocks->data, next->blocks->len);
          g_array_remove_index (l->segments, s + 1);
          seg = seg_at (l, s);
          if (first > 0 && block_at (seg, first)->state == GML_SNAP_BLOCK_INACTIVE &&
              block_at (seg, first - 1)->state == GML_SNAP_BLOCK_INACTIVE)
            free_and_merge (seg, first);
        }
    }
  return TRUE;
}

/* Unmaps [address, address + size), which must lie in one free block. */
static gboolean
unmap_range (GmlSnapshotLayout *l,
             guint64            address,
             guint64            size)
{
  gint s = find_segment (l, address);
  GmlSnapshotLayoutSegment *seg;
  GmlSnapshotLayoutSegment tail;
  gint b;
  guint64 end = address + size;

  if (s < 0 || size == 0 || end < address)
    return FALSE;
  seg = seg_at (l, s);
  b = find_block (seg, address);
  if (b < 0 || block_at (seg, b)->state != GML_SNAP_BLOCK_INACTIVE ||
      end > block_at (seg, b)->address + block_at (seg, b)->size)
    return FALSE;

  b = carve (seg, b, address, size);
  /* The blocks after the hole become a segment of their own. */
  tail.address = end;
  tail.size = seg->address + seg->size - end;
  tail.stream = seg->stream;
  tail.small = seg->small;
  tail.expandable = seg->expandable;
  tail.blocks = NULL;
  if (tail.size > 0)
    {
      tail.blocks = g_array_new (FALSE, FALSE, sizeof (GmlSnapshotLayoutBlock));
      g_array_append_vals (tail.blocks, block_at (seg, b + 1), seg->blocks->len - (b + 1));
    }
  g_array_set_size (seg->blocks, b);
  seg->size = address - seg->address;
  if (seg->size == 0)
    {
      g_array_remove_index (l->segments, s);
      s--;
    }
  if (tail.blocks != NULL)
    g_array_insert_val (l->segments, s + 1, tail);
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Settings and messages                                                     */

void
gml_snapshot_settings_to_conf (const GmlSnapshotSettings *settings,
                               GmlAllocConf              *conf)
{
  gml_alloc_conf_init (conf);
  if (settings == NULL || !settings->present)
    return;
  if (settings->max_split_size > 0)
    conf->max_split_size = (guint64) settings->max_split_size;
  conf->expandable_segments = settings->expandable_segments;
  if (settings->has_roundup)
    for (guint i = 0; i < GML_N_ROUNDUP_INTERVALS &&
         i < G_N_ELEMENTS (settings->roundup_power2_divisions); i++)
      conf->roundup_power2_divisions[i] = settings->roundup_power2_divisions[i];
  /* max_non_split_rounding_mb has no key of its own in allocator_settings:
   * the setting's text (last_allocator_settings) is all there is of it. A
   * memory fraction in that text is not taken: the file does not say how
   * much memory the GPU had. */
  if (settings->alloc_conf != NULL)
    {
      GmlAllocConf text;

      gml_alloc_conf_init (&text);
      if (gml_alloc_conf_parse (&text, settings->alloc_conf, NULL))
        conf->max_non_split_rounding_size = text.max_non_split_rounding_size;
    }
}

char *
gml_snapshot_format_oom_message (guint    device,
                                 guint64  alloc_size,
                                 guint64  device_free,
                                 guint64  device_total,
                                 guint64  allocated,
                                 guint64  reserved)
{
  g_autofree char *tried = gml_format_size (alloc_size);
  g_autofree char *total = device_total > 0 ? gml_format_size (device_total)
                                            : g_strdup ("[not recorded]");
  g_autofree char *free_ = gml_format_size (device_free);
  g_autofree char *by_pytorch = gml_format_size (allocated);
  g_autofree char *unallocated = gml_format_size (reserved > allocated ? reserved - allocated : 0);

  /* PyTorch's text (c10/cuda/CUDACachingAllocator.cpp, malloc()), not
   * translated. A snapshot does not record the GPU's total memory nor the
   * process's (NVML), so the capacity says so and the "Including non-PyTorch
   * memory" sentence is left out. */
  return g_strdup_printf ("CUDA out of memory. Tried to allocate %s. GPU %u has a total capacity "
                          "of %s of which %s is free. Of the allocated memory %s is allocated by "
                          "PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but "
                          "unallocated memory is large try setting "
                          "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
                          "fragmentation.  See documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)",
                          tried, device, total, free_, by_pytorch, unallocated);
}

void
gml_snapshot_explain_oom (const GmlSnapshotOom      *oom,
                          GmlSnapshotOomExplanation *out)
{
  const GmlSnapshotStats *st = &oom->stats;
  guint64 cached_free =
      st->reserved_bytes > st->active_bytes ? st->reserved_bytes - st->active_bytes : 0;

  memset (out, 0, sizeof *out);
  out->request = oom->size;
  out->alloc_size = oom->alloc_size;
  out->device_free = oom->device_free;
  out->cached_free = cached_free;
  out->largest_free_block = st->largest_free_block_bytes;
  out->inactive_split = st->inactive_split_bytes;
  out->largest_usable_block = oom->largest_usable_block;
  out->larger_on_other_stream = oom->largest_other_stream > oom->size ? oom->largest_other_stream
                                                                      : 0;
  out->larger_in_other_pool = oom->largest_other_pool > oom->size ? oom->largest_other_pool : 0;
  out->larger_but_oversize = oom->largest_oversize > oom->size ? oom->largest_oversize : 0;
  /* get_free_block() would have found that block and nothing would have failed. */
  out->state_disagrees = oom->largest_usable_block >= oom->size;
  out->estimated_blocks = st->estimated_blocks;
  out->allocated = st->allocated_bytes;
  out->reserved = st->reserved_bytes;
  out->fits_in_cache_total = oom->size <= cached_free;
  out->fits_with_device = oom->size <= cached_free + oom->device_free;
  /* With expandable segments the free pages of the cache and the GPU's free
   * memory can be mapped behind one another: enough in all is enough. */
  /* Only memory of the request's stream and pool counts: an expandable segment
   * belongs to one stream too. */
  out->expandable_would_help = oom->size <= oom->free_same_stream_pool + oom->device_free &&
                               oom->size > oom->largest_usable_block;
  /* max_split_size_mb keeps small requests out of large cached blocks, so the
   * large ones stay whole for large requests. */
  out->max_split_would_help = out->fits_in_cache_total && oom->size >= GML_LARGE_BUFFER &&
                              st->inactive_split_bytes >= oom->size;
  out->empty_cache_no_help = TRUE;
  out->needs_less_memory = !out->fits_with_device;
}

char *
gml_snapshot_describe_usable (const GmlSnapshotOomExplanation *x)
{
  g_autofree char *usable = gml_format_size (x->largest_usable_block);
  GString *out;

  if (x->state_disagrees && x->estimated_blocks > 0)
    /* Translators: a size. */
    return g_strdup_printf (_("The rebuilt state shows a free block of %s this request could have "
                              "used, so it is estimated wrongly here: blocks freed before the dump "
                              "have estimated sizes."),
                            usable);
  if (x->state_disagrees)
    /* Translators: a size. */
    return g_strdup_printf (_("The state in this file shows a free block of %s this request could "
                              "have used: PyTorch would not have failed here, so the file does not "
                              "follow the allocator's rules (was it made or edited by hand?)."),
                            usable);
  if (x->larger_on_other_stream == 0 && x->larger_in_other_pool == 0 && x->larger_but_oversize == 0)
    return NULL;

  out = g_string_new (NULL);
  /* Translators: a size. */
  g_string_append_printf (out, _("The largest free block this request could use was %s."), usable);
  if (x->larger_on_other_stream > 0)
    {
      g_autofree char *size = gml_format_size (x->larger_on_other_stream);
      g_string_append_c (out, ' ');
      /* Translators: a size. */
      g_string_append_printf (out,
                              _("A free block of %s sat on another stream; a cached block serves "
                                "only the stream it was allocated on."), size);
    }
  if (x->larger_in_other_pool > 0)
    {
      g_autofree char *size = gml_format_size (x->larger_in_other_pool);
      g_string_append_c (out, ' ');
      if (x->request <= GML_SMALL_SIZE)
        /* Translators: a size. */
        g_string_append_printf (out,
                                _("A free block of %s was in the large pool; requests of at most 1 "
                                  "MiB are served only from the small pool."), size);
      else
        /* Translators: a size. */
        g_string_append_printf (out,
                                _("A free block of %s was in the small pool, which serves only "
                                  "requests of at most 1 MiB."), size);
    }
  if (x->larger_but_oversize > 0)
    {
      g_autofree char *size = gml_format_size (x->larger_but_oversize);
      g_string_append_c (out, ' ');
      /* Translators: a size; max_split_size_mb is a setting's name. */
      g_string_append_printf (out,
                              _("A free block of %s was refused under max_split_size_mb: such "
                                "large blocks are not split for smaller requests, nor handed whole "
                                "to a request 20 MiB or more smaller."), size);
    }
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------------- */
/* The backward walk                                                         */

/* During the walk backwards a live block's made_at holds the entry that
 * frees it, + 1 (0: live at the end): undoing its alloc then pairs the two
 * for the categories. When the walk has reached the start it is set to what
 * it says (0: made before the trace). */
#define WALK_FREED_AT made_at

typedef struct
{
  GmlSnapshotTimeline *tl;
  GmlSnapshotLayout   *layout;
  Counters             c;
  gsize                freed;     /* undo() of an alloc: where its block was freed (n: never) */
} Walk;

static void
counters_from_layout (Counters          *c,
                      GmlSnapshotLayout *l)
{
  GmlSnapshotStats stats;

  gml_snapshot_layout_get_stats (l, &stats);
  c->allocated = stats.allocated_bytes;
  c->reserved = stats.reserved_bytes;
  c->active = stats.active_bytes;
  c->requested = stats.requested_bytes;
  c->allocations = stats.allocations;
  c->segments = stats.segments;
}

/* The size a freed block most likely had: the request rounded as the
 * allocator rounds it, all of the free block when the allocator would not
 * have split off what remains. */
static guint64
estimate_block_size (GmlSnapshotTimeline            *tl,
                     const GmlSnapshotLayoutSegment *seg,
                     const GmlSnapshotLayoutBlock   *free_block,
                     guint64                         address,
                     guint64                         request)
{
  guint64 avail = free_block->address + free_block->size - address;
  guint64 size = gml_round_size (&tl->conf, request);

  if (size > avail)
    return avail;
  if (!seg->small && !seg->expandable)
    {
      guint64 rest = avail - size;

      /* should_split(): the large pool splits only above kSmallSize, and
       * never an oversize block (max_split_size). */
      if (rest > 0 && (rest <= GML_SMALL_SIZE ||
                       (tl->conf.max_split_size != G_MAXUINT64 && size >= tl->conf.max_split_size)))
        size = avail;
    }
  return size;
}

static void
walk_counters_remove_block (Counters                     *c,
                            const GmlSnapshotLayoutBlock *b)
{
  if (b->state == GML_SNAP_BLOCK_ALLOCATED)
    {
      c->allocated -= b->size;
      c->requested -= b->requested_size;
      c->allocations--;
    }
  if (b->state == GML_SNAP_BLOCK_ALLOCATED || b->state == GML_SNAP_BLOCK_PENDING_FREE)
    c->active -= b->size;
}

/* Puts back, as a pending free, the block a free_completed returned. */
static gboolean
unfree_completed (Walk                   *w,
                  const GmlSnapshotEntry *e,
                  gsize                   index)
{
  GmlSnapshotTimeline *tl = w->tl;
  gint s = find_segment (w->layout, e->addr);
  GmlSnapshotLayoutSegment *seg;
  GmlSnapshotLayoutBlock *b;
  guint64 size;
  gint i;

  if (s < 0)
    return FALSE;
  seg = seg_at (w->layout, s);
  i = find_block (seg, e->addr);
  if (i < 0 || block_at (seg, i)->state != GML_SNAP_BLOCK_INACTIVE)
    return FALSE;
  size = estimate_block_size (tl, seg, block_at (seg, i), e->addr, e->size);
  i = carve (seg, i, e->addr, size);
  b = block_at (seg, i);
  b->state = GML_SNAP_BLOCK_PENDING_FREE;
  b->requested_size = e->size;
  b->frames = 0;
  b->estimated = TRUE;
  w->c.active += size;
  tl->block_size[index] = size | ESTIMATED_BIT;
  return TRUE;
}

static gboolean
undo (Walk                   *w,
      const GmlSnapshotEntry *e,
      gsize                   index)
{
  GmlSnapshotTimeline *tl = w->tl;
  GmlSnapshotLayout *l = w->layout;
  GmlSnapshotLayoutSegment *seg;
  GmlSnapshotLayoutBlock *b;
  guint64 completes = 0;
  gint s, i;

  switch ((GmlSnapshotAction) e->action)
    {
    case GML_SNAP_ALLOC:
      if ((s = find_segment (l, e->addr)) < 0)
        return FALSE;
      seg = seg_at (l, s);
      i = find_block (seg, e->addr);
      if (i < 0 || block_at (seg, i)->address != e->addr ||
          block_at (seg, i)->state != GML_SNAP_BLOCK_ALLOCATED)
        return FALSE;
      /* malloc() hands out the low end of a free block (alloc_found_block()
       * keeps the remainder above), so just before this allocation the block
       * below it was live. A free gap there means the live block below the
       * gap is one whose size the walk estimated too small: PyTorch gave it
       * the whole free block because should_split() left at most 1 MiB
       * (kSmallSize) over. It reaches up to this allocation. */
      if (i >= 2 && block_at (seg, i - 1)->state == GML_SNAP_BLOCK_INACTIVE &&
          block_at (seg, i - 2)->estimated &&
          block_at (seg, i - 2)->state != GML_SNAP_BLOCK_INACTIVE)
        {
          GmlSnapshotLayoutBlock *below = block_at (seg, i - 2);
          guint64 gap = block_at (seg, i - 1)->size;

          below->size += gap;
          w->c.active += gap;
          if (below->state == GML_SNAP_BLOCK_ALLOCATED)
            w->c.allocated += gap;
          g_array_remove_index (seg->blocks, i - 1);
          i--;
        }
      b = block_at (seg, i);
      tl->block_size[index] = b->size | (b->estimated ? ESTIMATED_BIT : 0);
      w->freed = b->WALK_FREED_AT > 0 ? b->WALK_FREED_AT - 1 : tl->n;
      walk_counters_remove_block (&w->c, b);
      b->requested_size = e->size;
      free_and_merge (seg, i);
      return TRUE;

    case GML_SNAP_FREE_REQUESTED:
      if ((s = find_segment (l, e->addr)) < 0)
        return FALSE;
      seg = seg_at (l, s);
      i = find_block (seg, e->addr);
      if (i < 0)
        return FALSE;
      b = block_at (seg, i);
      if (b->state == GML_SNAP_BLOCK_INACTIVE)
        {
          /* No free_completed came after it (a trace cut there): the block
           * went back to the pool at once. Put it back as pending first. */
          if (!unfree_completed (w, e, index))
            return FALSE;
          seg = seg_at (l, s);
          b = block_at (seg, find_block (seg, e->addr));
          completes = COMPLETES_BIT;
        }
      if (b->address != e->addr || b->state != GML_SNAP_BLOCK_PENDING_FREE)
        return FALSE;
      b->state = GML_SNAP_BLOCK_ALLOCATED;
      b->requested_size = e->size;
      b->WALK_FREED_AT = (guint32) MIN (index + 1, (gsize) G_MAXUINT32);
      w->c.allocated += b->size;
      w->c.requested += e->size;
      w->c.allocations++;
      tl->block_size[index] = b->size | (b->estimated ? ESTIMATED_BIT : 0) | completes;
      return TRUE;

    case GML_SNAP_FREE_COMPLETED:
      return unfree_completed (w, e, index);

    case GML_SNAP_SEGMENT_ALLOC:
      if ((s = find_segment (l, e->addr)) < 0 || seg_at (l, s)->address != e->addr)
        return FALSE;
      seg = seg_at (l, s);
      {
        gboolean clean = seg->blocks->len == 1 &&
                         block_at (seg, 0)->state == GML_SNAP_BLOCK_INACTIVE;

        for (guint k = 0; k < seg->blocks->len; k++)
          walk_counters_remove_block (&w->c, block_at (seg, k));
        w->c.reserved -= seg->size;
        w->c.segments--;
        g_array_remove_index (l->segments, s);
        return clean;
      }

    case GML_SNAP_SEGMENT_FREE:
      if (insert_segment (l, e->addr, e->size, e->stream, e->size == SMALL_SEGMENT, FALSE) < 0)
        return FALSE;
      w->c.reserved += e->size;
      w->c.segments++;
      return TRUE;

    case GML_SNAP_SEGMENT_MAP:
      {
        gsize before = l->segments->len;

        if (!unmap_range (l, e->addr, e->size))
          return FALSE;
        w->c.reserved -= e->size;
        w->c.segments += (gint64) l->segments->len - (gint64) before;
        return TRUE;
      }

    case GML_SNAP_SEGMENT_UNMAP:
      {
        gsize before = l->segments->len;

        if (!map_range (l, e->addr, e->size, e->stream))
          return FALSE;
        w->c.reserved += e->size;
        w->c.segments += (gint64) l->segments->len - (gint64) before;
        return TRUE;
      }

    case GML_SNAP_OOM:
    case GML_SNAP_SNAPSHOT:
    case GML_SNAP_OTHER:
    default:
      return TRUE;
    }
}

/* ------------------------------------------------------------------------- */
/* The forward walk                                                          */

static gboolean
has_estimated_live_block (GmlSnapshotLayoutSegment *seg)
{
  for (guint i = 0; i < seg->blocks->len; i++)
    if (block_at (seg, i)->estimated && block_at (seg, i)->state != GML_SNAP_BLOCK_INACTIVE)
      return TRUE;
  return FALSE;
}

/* Applies entry @index to @l. With @c (the first forward walk) it also keeps
 * the counters and sizes again every allocation whose block the backward
 * walk had to estimate: forwards, the free block the allocation came from is
 * known, so the allocator's own choice (round_size(), should_split()) gives
 * its size, exactly when nothing around it is estimated. */
static void
apply (GmlSnapshotTimeline    *tl,
       GmlSnapshotLayout      *l,
       gsize                   index,
       Counters               *c)
{
  const GmlSnapshotEntry *e = &tl->entries[index];
  guint64 size = tl->block_size[index] & SIZE_BITS;
  gboolean estimated = (tl->block_size[index] & ESTIMATED_BIT) != 0;
  GmlSnapshotLayoutSegment *seg;
  GmlSnapshotLayoutBlock *b;
  gint s, i;

  switch ((GmlSnapshotAction) e->action)
    {
    case GML_SNAP_ALLOC:
      if (size == 0 || (s = find_segment (l, e->addr)) < 0)
        return;
      seg = seg_at (l, s);
      i = find_block (seg, e->addr);
      if (i < 0 || block_at (seg, i)->state != GML_SNAP_BLOCK_INACTIVE)
        return;
      if (c != NULL && estimated)
        {
          gboolean at_start = block_at (seg, i)->address == e->addr;

          size = estimate_block_size (tl, seg, block_at (seg, i), e->addr, e->size);
          estimated = !at_start || has_estimated_live_block (seg);
          tl->block_size[index] = size | (estimated ? ESTIMATED_BIT : 0);
        }
      if (e->addr + size > block_at (seg, i)->address + block_at (seg, i)->size)
        return;
      i = carve (seg, i, e->addr, size);
      b = block_at (seg, i);
      b->state = GML_SNAP_BLOCK_ALLOCATED;
      b->requested_size = e->size;
      b->frames = e->frames;
      b->estimated = estimated;
      b->kind = tl->kinds[index];
      b->made_at = (guint32) MIN (index + 1, (gsize) G_MAXUINT32);
      if (c != NULL)
        {
          c->allocated += size;
          c->active += size;
          c->requested += e->size;
          c->allocations++;
          if (e->stream < tl->n_streams)
            {
              c->by_stream[e->stream] += size;
              tl->stream_peak[e->stream] = MAX (tl->stream_peak[e->stream],
                                                c->by_stream[e->stream]);
            }
        }
      return;

    case GML_SNAP_FREE_REQUESTED:
    case GML_SNAP_FREE_COMPLETED:
      if ((s = find_segment (l, e->addr)) < 0)
        return;
      seg = seg_at (l, s);
      i = find_block (seg, e->addr);
      if (i < 0 || block_at (seg, i)->address != e->addr)
        return;
      b = block_at (seg, i);
      if (c != NULL)
        tl->block_size[index] = (tl->block_size[index] & COMPLETES_BIT) | b->size |
                                (b->estimated ? ESTIMATED_BIT : 0);
      if (e->action == GML_SNAP_FREE_REQUESTED && b->state == GML_SNAP_BLOCK_ALLOCATED)
        {
          if (c != NULL)
            {
              c->allocated -= b->size;
              c->requested -= b->requested_size;
              c->allocations--;
              if (e->stream < tl->n_streams && c->by_stream[e->stream] >= b->size)
                c->by_stream[e->stream] -= b->size;
            }
          b->state = GML_SNAP_BLOCK_PENDING_FREE;
          if (tl->block_size[index] & COMPLETES_BIT)
            {
              if (c != NULL)
                c->active -= b->size;
              free_and_merge (seg, i);
            }
        }
      else if (e->action == GML_SNAP_FREE_COMPLETED && b->state == GML_SNAP_BLOCK_PENDING_FREE)
        {
          if (c != NULL)
            c->active -= b->size;
          free_and_merge (seg, i);
        }
      return;

    case GML_SNAP_SEGMENT_ALLOC:
      if (insert_segment (l, e->addr, e->size, e->stream, e->size == SMALL_SEGMENT, FALSE) >= 0 &&
          c != NULL)
        {
          c->reserved += e->size;
          c->segments++;
        }
      return;

    case GML_SNAP_SEGMENT_FREE:
      if ((s = find_segment (l, e->addr)) >= 0 && seg_at (l, s)->address == e->addr)
        {
          if (c != NULL)
            {
              seg = seg_at (l, s);
              for (guint k = 0; k < seg->blocks->len; k++)
                walk_counters_remove_block (c, block_at (seg, k));
              c->reserved -= seg->size;
              c->segments--;
            }
          g_array_remove_index (l->segments, s);
        }
      return;

    case GML_SNAP_SEGMENT_MAP:
    case GML_SNAP_SEGMENT_UNMAP:
      {
        gsize before = l->segments->len;
        gboolean done = e->action == GML_SNAP_SEGMENT_MAP ? map_range (l, e->addr, e->size,
                                                                       e->stream)
                                                          : unmap_range (l, e->addr, e->size);

        if (done && c != NULL)
          {
            c->reserved += e->action == GML_SNAP_SEGMENT_MAP ? e->size : -e->size;
            c->segments += (gint64) l->segments->len - (gint64) before;
          }
      }
      return;

    case GML_SNAP_OOM:
    case GML_SNAP_SNAPSHOT:
    case GML_SNAP_OTHER:
    default:
      return;
    }
}

static Checkpoint *
checkpoint_new (GmlSnapshotLayout *l)
{
  Checkpoint *cp = g_new0 (Checkpoint, 1);
  gsize n_blocks = 0, k = 0;

  for (guint s = 0; s < l->segments->len; s++)
    n_blocks += seg_at (l, s)->blocks->len;
  cp->n_segments = l->segments->len;
  cp->segments = g_new (CheckpointSegment, MAX (cp->n_segments, 1));
  cp->blocks = g_new (GmlSnapshotLayoutBlock, MAX (n_blocks, 1));
  for (guint s = 0; s < l->segments->len; s++)
    {
      GmlSnapshotLayoutSegment *seg = seg_at (l, s);

      cp->segments[s] = (CheckpointSegment) { seg->address, seg->size, seg->stream,
                                              seg->blocks->len, seg->small, seg->expandable };
      memcpy (&cp->blocks[k], seg->blocks->data,
              seg->blocks->len * sizeof (GmlSnapshotLayoutBlock));
      k += seg->blocks->len;
    }
  return cp;
}

static void
checkpoint_free (gpointer data)
{
  Checkpoint *cp = data;

  g_free (cp->segments);
  g_free (cp->blocks);
  g_free (cp);
}

static void
checkpoint_restore (const Checkpoint  *cp,
                    GmlSnapshotLayout *l)
{
  gsize k = 0;

  g_array_set_size (l->segments, 0);
  for (guint s = 0; s < cp->n_segments; s++)
    {
      const CheckpointSegment *cs = &cp->segments[s];
      GmlSnapshotLayoutSegment seg = { cs->address, cs->size, cs->stream, cs->small, cs->expandable,
                                       NULL };

      seg.blocks = g_array_sized_new (FALSE, FALSE, sizeof (GmlSnapshotLayoutBlock), cs->n_blocks);
      g_array_append_vals (seg.blocks, &cp->blocks[k], cs->n_blocks);
      k += cs->n_blocks;
      g_array_append_val (l->segments, seg);
    }
}

/* ------------------------------------------------------------------------- */
/* The timeline                                                              */

/* Which free blocks the failed request could have been given, by the rules
 * of get_free_block() in CUDACachingAllocator.cpp: a block of the request's
 * pool (small for requests of at most 1 MiB, large above), on the request's
 * stream, at least as large; with max_split_size_mb set, no block of at least
 * max_split_size for a request below it, and none 20 MiB or more larger than
 * a request at or above it. The largest refused block is kept per reason. */
static void
oom_usable_blocks (GmlSnapshotTimeline *tl,
                   GmlSnapshotOom      *oom)
{
  g_autoptr(GmlSnapshotLayout) layout = gml_snapshot_layout_new ();
  gboolean small = oom->size <= GML_SMALL_SIZE;
  guint64 max_split = tl->conf.max_split_size;

  gml_snapshot_timeline_layout_at (tl, oom->index, layout);
  for (guint s = 0; s < gml_snapshot_layout_get_n_segments (layout); s++)
    {
      const GmlSnapshotLayoutSegment *seg = gml_snapshot_layout_get_segment (layout, s);

      for (guint b = 0; b < seg->blocks->len; b++)
        {
          const GmlSnapshotLayoutBlock *block = &g_array_index (seg->blocks, GmlSnapshotLayoutBlock,
                                                                b);
          guint64 size = block->size;

          if (block->state != GML_SNAP_BLOCK_INACTIVE)
            continue;
          if (seg->stream != oom->stream)
            {
              oom->largest_other_stream = MAX (oom->largest_other_stream, size);
              continue;
            }
          if ((gboolean) seg->small != small)
            {
              oom->largest_other_pool = MAX (oom->largest_other_pool, size);
              continue;
            }
          oom->free_same_stream_pool += size;
          if (max_split != G_MAXUINT64 &&
              ((oom->size < max_split && size >= max_split) ||
               (oom->size >= max_split && size >= oom->size + GML_LARGE_BUFFER)))
            oom->largest_oversize = MAX (oom->largest_oversize, size);
          else
            oom->largest_usable_block = MAX (oom->largest_usable_block, size);
        }
    }
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlSnapshotClassifier, gml_snapshot_classifier_free)

/* Once the walk backwards has reached the start: the categories of the
 * blocks live before the trace, and made_at back to its meaning. */
static void
classify_start (GmlSnapshotTimeline   *tl,
                GmlSnapshotClassifier *classifier,
                GmlSnapshotLayout     *l)
{
  for (guint s = 0; s < l->segments->len; s++)
    {
      GmlSnapshotLayoutSegment *seg = seg_at (l, s);

      for (guint i = 0; i < seg->blocks->len; i++)
        {
          GmlSnapshotLayoutBlock *b = block_at (seg, i);
          gsize freed = b->WALK_FREED_AT > 0 ? b->WALK_FREED_AT - 1 : tl->n;

          b->kind = b->state == GML_SNAP_BLOCK_INACTIVE
                    ? 0 : gml_snapshot_classifier_start_block (classifier, b->frames, freed);
          b->made_at = 0;
        }
    }
}

/* The end state is the file's, read before the walk: each live block gets
 * the kind and the entry that made it from the walk's own end (@l), where a
 * consistent file has the same block at the same address. */
static void
kinds_into_end (GmlSnapshotTimeline   *tl,
                GmlSnapshotClassifier *classifier,
                GmlSnapshotLayout     *l)
{
  Checkpoint *end = tl->end;
  gsize k = 0;

  for (guint s = 0; s < end->n_segments; s++)
    for (guint i = 0; i < end->segments[s].n_blocks; i++, k++)
      {
        GmlSnapshotLayoutBlock *b = &end->blocks[k];
        const GmlSnapshotLayoutBlock *walked;

        if (b->state == GML_SNAP_BLOCK_INACTIVE)
          continue;
        walked = gml_snapshot_layout_find_block (l, b->address);
        if (walked != NULL && walked->address == b->address &&
            walked->state != GML_SNAP_BLOCK_INACTIVE)
          {
            b->kind = walked->kind;
            b->made_at = walked->made_at;
          }
        else
          b->kind = gml_snapshot_classifier_start_block (classifier, b->frames, tl->n);
      }
}

/* Allocated bytes by stream in @l. */
static guint64 *
stream_bytes (GmlSnapshotTimeline *tl,
              GmlSnapshotLayout   *l)
{
  guint64 *bytes = g_new0 (guint64, MAX (tl->n_streams, 1));

  for (guint s = 0; s < l->segments->len; s++)
    {
      GmlSnapshotLayoutSegment *seg = seg_at (l, s);

      for (guint i = 0; i < seg->blocks->len; i++)
        if (block_at (seg, i)->state == GML_SNAP_BLOCK_ALLOCATED && seg->stream < tl->n_streams)
          bytes[seg->stream] += block_at (seg, i)->size;
    }
  return bytes;
}

/* Allocated and reserved at N: the arrays, and the peaks, which a summary
 * keeps alone. */
static inline void
record_at (GmlSnapshotTimeline *tl,
           gsize                i,
           guint64              allocated,
           guint64              reserved)
{
  if (tl->allocated != NULL)
    {
      tl->allocated[i] = allocated;
      tl->reserved[i] = reserved;
    }
  if (allocated > tl->peak_allocated || i == 0)
    {
      tl->peak_allocated = allocated;
      tl->peak_index = i;
      tl->reserved_at_peak = reserved;
    }
  tl->peak_reserved = MAX (tl->peak_reserved, reserved);
}

static GmlSnapshotTimeline *
timeline_new (GmlSnapshot   *snapshot,
              guint          device,
              gboolean       summary,
              GCancellable  *cancellable,
              GError       **error)
{
  g_autoptr(GmlSnapshotTimeline) tl = g_new0 (GmlSnapshotTimeline, 1);
  g_autoptr(GmlSnapshotLayout) layout = gml_snapshot_layout_new ();
  g_autoptr(GmlSnapshotLayout) start = NULL;
  g_autoptr(GmlSnapshotClassifier) classifier = NULL;
  g_autofree guint64 *by_stream = NULL;
  Walk walk = { 0 };
  gsize n;
  guint64 state_bytes;
  GmlSnapshotStats end_stats;

  g_return_val_if_fail (snapshot != NULL, NULL);

  tl->snapshot = snapshot;
  tl->device = device;
  tl->entries = gml_snapshot_get_entries (snapshot, device, &tl->n);
  n = tl->n;
  gml_snapshot_settings_to_conf (gml_snapshot_get_settings (snapshot), &tl->conf);
  if (!summary)
    {
      tl->allocated = g_new (guint64, n + 1);
      tl->reserved = g_new (guint64, n + 1);
      gml_advise_huge_pages (tl->allocated, (n + 1) * sizeof (guint64));
      gml_advise_huge_pages (tl->reserved, (n + 1) * sizeof (guint64));
    }
  tl->block_size = g_new0 (guint64, MAX (n, 1));
  tl->kinds = g_new0 (guint8, MAX (n, 1));
  tl->n_streams = gml_snapshot_get_n_streams (snapshot);
  tl->stream_peak = g_new0 (guint64, MAX (tl->n_streams, 1));
  gml_advise_huge_pages (tl->block_size, MAX (n, 1) * sizeof (guint64));
  tl->ooms = g_array_new (FALSE, TRUE, sizeof (GmlSnapshotOom));
  tl->checkpoints = g_ptr_array_new_with_free_func (checkpoint_free);
  tl->labels = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (tl->labels, NULL);
  tl->label_ids = g_hash_table_new (NULL, NULL);

  /* Backwards from the exact end. */
  layout_from_snapshot (layout, snapshot, device);
  gml_snapshot_layout_get_stats (layout, &end_stats);
  tl->end = checkpoint_new (layout);
  walk.tl = tl;
  walk.layout = layout;
  counters_from_layout (&walk.c, layout);
  classifier = gml_snapshot_classifier_new (snapshot, tl->entries, n);
  for (gsize k = n; k > 0; k--)
    {
      gsize i = k - 1;
      const GmlSnapshotEntry *e = &tl->entries[i];

      if (e->action < GML_N_SNAP_ACTIONS)
        tl->action_counts[e->action]++;
      if (e->action == GML_SNAP_OOM)
        {
          GmlSnapshotOom oom = { 0 };

          oom.index = i;
          oom.stream = e->stream;
          oom.size = e->size;
          oom.alloc_size = gml_allocation_size (e->size);
          oom.device_free = e->addr;
          g_array_append_val (tl->ooms, oom);
        }
      walk.freed = n;
      if (!undo (&walk, e, i))
        tl->inconsistencies++;
      if (e->action == GML_SNAP_ALLOC)
        tl->kinds[i] = gml_snapshot_classifier_alloc (classifier, i, walk.freed);
      if ((i & 0xffff) == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
    }
  gml_snapshot_classifier_finish (classifier, tl->kinds);
  classify_start (tl, classifier, layout);

  /* The ooms in trace order. */
  for (guint a = 0, b = tl->ooms->len; a + 1 < b; a++, b--)
    {
      GmlSnapshotOom tmp = g_array_index (tl->ooms, GmlSnapshotOom, a);

      g_array_index (tl->ooms, GmlSnapshotOom, a) = g_array_index (tl->ooms, GmlSnapshotOom, b - 1);
      g_array_index (tl->ooms, GmlSnapshotOom, b - 1) = tmp;
    }

  /* Forwards from the start, keeping checkpoints. Their spacing keeps all of
   * them within the budget, whatever the size of the layouts. */
  start = gml_snapshot_layout_new ();
  layout_copy_into (start, layout);
  {
    GmlSnapshotStats start_stats;

    gml_snapshot_layout_get_stats (start, &start_stats);
    state_bytes = (guint64) MAX (start_stats.blocks,
                                 end_stats.blocks) * sizeof (GmlSnapshotLayoutBlock) +
                  (guint64) MAX (start_stats.segments,
                                 end_stats.segments) * sizeof (CheckpointSegment) + 64;
  }
  tl->interval = MAX ((gsize) MIN_INTERVAL,
                      (gsize) ((guint64) n * state_bytes / CHECKPOINT_BUDGET + 1));
  counters_from_layout (&walk.c, layout);
  by_stream = walk.c.by_stream = stream_bytes (tl, layout);
  for (guint s = 0; s < tl->n_streams; s++)
    tl->stream_peak[s] = by_stream[s];
  for (gsize i = 0; i <= n; i++)
    {
      /* N = n is the file's own end, below. */
      if (i < n)
        record_at (tl, i, walk.c.allocated, walk.c.reserved);
      tl->peak_requested = MAX (tl->peak_requested, walk.c.requested);
      if (i % tl->interval == 0)
        g_ptr_array_add (tl->checkpoints, checkpoint_new (layout));
      if (i == n)
        break;
      apply (tl, layout, i, &walk.c);
      if ((i & 0xffff) == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
    }
  /* The walk must land on the file's own end. */
  {
    Counters end;

    counters_from_layout (&end, layout);
    if (end.allocated != end_stats.allocated_bytes || end.reserved != end_stats.reserved_bytes ||
        end.active != end_stats.active_bytes || end.allocations != end_stats.allocations)
      tl->inconsistencies++;
    record_at (tl, n, end_stats.allocated_bytes, end_stats.reserved_bytes);
  }
  /* The file's own end state, which the walk's end should equal, with what
   * the walk learnt about each block. */
  kinds_into_end (tl, classifier, layout);

  for (guint k = 0; k < tl->ooms->len; k++)
    {
      GmlSnapshotOom *oom = &g_array_index (tl->ooms, GmlSnapshotOom, k);

      gml_snapshot_timeline_stats_at (tl, oom->index, &oom->stats);
      oom_usable_blocks (tl, oom);
      oom->message = gml_snapshot_format_oom_message (device, oom->alloc_size, oom->device_free, 0,
                                                      oom->stats.allocated_bytes,
                                                      oom->stats.reserved_bytes);
    }
  return g_steal_pointer (&tl);
}

GmlSnapshotTimeline *
gml_snapshot_timeline_new (GmlSnapshot   *snapshot,
                           guint          device,
                           GCancellable  *cancellable,
                           GError       **error)
{
  return timeline_new (snapshot, device, FALSE, cancellable, error);
}

GmlSnapshotTimeline *
gml_snapshot_timeline_new_summary (GmlSnapshot   *snapshot,
                                   guint          device,
                                   GCancellable  *cancellable,
                                   GError       **error)
{
  return timeline_new (snapshot, device, TRUE, cancellable, error);
}

guint64
gml_snapshot_timeline_get_peak_allocated (GmlSnapshotTimeline *self,
                                          gsize               *index,
                                          guint64             *reserved_then)
{
  if (index != NULL)
    *index = self->peak_index;
  if (reserved_then != NULL)
    *reserved_then = self->reserved_at_peak;
  return self->peak_allocated;
}

guint64
gml_snapshot_timeline_get_peak_reserved (GmlSnapshotTimeline *self)
{
  return self->peak_reserved;
}

void
gml_snapshot_timeline_free (GmlSnapshotTimeline *self)
{
  if (self == NULL)
    return;
  g_free (self->allocated);
  g_free (self->reserved);
  g_free (self->block_size);
  g_free (self->kinds);
  g_free (self->stream_peak);
  if (self->ooms != NULL)
    for (guint k = 0; k < self->ooms->len; k++)
      g_free (g_array_index (self->ooms, GmlSnapshotOom, k).message);
  g_clear_pointer (&self->ooms, g_array_unref);
  g_clear_pointer (&self->checkpoints, g_ptr_array_unref);
  g_clear_pointer (&self->end, checkpoint_free);
  g_clear_pointer (&self->labels, g_ptr_array_unref);
  g_clear_pointer (&self->label_ids, g_hash_table_unref);
  g_free (self);
}

GmlSnapshot *
gml_snapshot_timeline_get_snapshot (GmlSnapshotTimeline *self)
{
  return self->snapshot;
}

guint
gml_snapshot_timeline_get_device (GmlSnapshotTimeline *self)
{
  return self->device;
}

gsize
gml_snapshot_timeline_get_n_entries (GmlSnapshotTimeline *self)
{
  return self->n;
}

const guint64 *
gml_snapshot_timeline_get_allocated (GmlSnapshotTimeline *self)
{
  return self->allocated;
}

const guint64 *
gml_snapshot_timeline_get_reserved (GmlSnapshotTimeline *self)
{
  return self->reserved;
}

guint64
gml_snapshot_timeline_get_peak_requested (GmlSnapshotTimeline *self)
{
  return self->peak_requested;
}

const gsize *
gml_snapshot_timeline_get_action_counts (GmlSnapshotTimeline *self)
{
  return self->action_counts;
}

guint
gml_snapshot_timeline_get_n_inconsistencies (GmlSnapshotTimeline *self)
{
  return self->inconsistencies;
}

guint
gml_snapshot_timeline_get_n_ooms (GmlSnapshotTimeline *self)
{
  return self->ooms->len;
}

void
gml_snapshot_timeline_set_gpu_memory (GmlSnapshotTimeline *self,
                                      guint64              total)
{
  for (guint k = 0; k < self->ooms->len; k++)
    {
      GmlSnapshotOom *oom = &g_array_index (self->ooms, GmlSnapshotOom, k);

      g_free (oom->message);
      oom->message = gml_snapshot_format_oom_message (self->device, oom->alloc_size,
                                                      oom->device_free, total,
                                                      oom->stats.allocated_bytes,
                                                      oom->stats.reserved_bytes);
    }
}

const GmlSnapshotOom *
gml_snapshot_timeline_get_oom (GmlSnapshotTimeline *self,
                               guint                index)
{
  g_return_val_if_fail (index < self->ooms->len, NULL);
  return &g_array_index (self->ooms, GmlSnapshotOom, index);
}

guint64
gml_snapshot_timeline_get_block_size (GmlSnapshotTimeline *self,
                                      gsize                index,
                                      gboolean            *estimated)
{
  g_return_val_if_fail (index < self->n, 0);
  if (estimated != NULL)
    *estimated = (self->block_size[index] & ESTIMATED_BIT) != 0;
  return self->block_size[index] & SIZE_BITS;
}

guint8
gml_snapshot_timeline_get_kind (GmlSnapshotTimeline *self,
                                gsize                index)
{
  g_return_val_if_fail (index < self->n, 0);
  return self->kinds[index];
}

guint64
gml_snapshot_timeline_get_stream_peak (GmlSnapshotTimeline *self,
                                       guint                stream)
{
  return stream < self->n_streams ? self->stream_peak[stream] : 0;
}

void
gml_snapshot_timeline_layout_at (GmlSnapshotTimeline *self,
                                 gsize                n,
                                 GmlSnapshotLayout   *dest)
{
  gsize k;

  n = MIN (n, self->n);
  if (n == self->n)
    {
      checkpoint_restore (self->end, dest);
      return;
    }
  k = n / self->interval;
  if (k >= self->checkpoints->len)
    k = self->checkpoints->len - 1;
  checkpoint_restore (g_ptr_array_index (self->checkpoints, k), dest);
  for (gsize i = k * self->interval; i < n; i++)
    apply (self, dest, i, NULL);
}

void
gml_snapshot_timeline_stats_at (GmlSnapshotTimeline *self,
                                gsize                n,
                                GmlSnapshotStats    *stats)
{
  g_autoptr(GmlSnapshotLayout) layout = gml_snapshot_layout_new ();

  n = MIN (n, self->n);
  gml_snapshot_timeline_layout_at (self, n, layout);
  gml_snapshot_layout_get_stats (layout, stats);
  stats->at = n;
}

static guint32
label_for_frames (GmlSnapshotTimeline *self,
                  guint32              frames)
{
  gpointer id;
  char *label;

  if (frames == 0)
    return 0;
  if (g_hash_table_lookup_extended (self->label_ids, GUINT_TO_POINTER (frames), NULL, &id))
    return GPOINTER_TO_UINT (id);
  label = gml_snapshot_describe_frames (self->snapshot, frames);
  if (label == NULL)
    return 0;
  g_ptr_array_add (self->labels, label);
  g_hash_table_insert (self->label_ids, GUINT_TO_POINTER (frames),
                       GUINT_TO_POINTER (self->labels->len - 1));
  return self->labels->len - 1;
}

GmlMemState *
gml_snapshot_timeline_mem_state (GmlSnapshotTimeline *self,
                                 GmlSnapshotLayout   *layout)
{
  GmlMemState *state = gml_mem_state_new (self->labels);
  g_autoptr(GArray) specs = g_array_new (FALSE, FALSE, sizeof (GmlBlockSpec));

  for (guint s = 0; s < layout->segments->len; s++)
    {
      GmlSnapshotLayoutSegment *seg = seg_at (layout, s);

      g_array_set_size (specs, 0);
      for (guint i = 0; i < seg->blocks->len; i++)
        {
          GmlSnapshotLayoutBlock *b = block_at (seg, i);
          GmlBlockSpec spec = { b->size, b->requested_size, GML_BLOCK_FREE, 0, GML_CATEGORY_NONE };

          if (b->state == GML_SNAP_BLOCK_ALLOCATED)
            spec.state = GML_BLOCK_ALLOCATED;
          else if (b->state == GML_SNAP_BLOCK_PENDING_FREE)
            spec.state = GML_BLOCK_PENDING_FREE;
          if (spec.state != GML_BLOCK_FREE)
            {
              spec.label = label_for_frames (self, b->frames);
              spec.category = gml_snapshot_kind_category (b->kind);
            }
          /* Labels are shared with states already handed out: only append. */
          g_array_append_val (specs, spec);
        }
      if (specs->len > 0)
        gml_mem_state_add_segment (state, seg->address, seg->stream,
                                   seg->small ? GML_POOL_SMALL : GML_POOL_LARGE,
                                   (GmlBlockSpec *) specs->data, specs->len);
    }
  return state;
}

/* gml-snapshot-check.c — replay a snapshot's trace through the lab's
 * allocator and compare every decision with PyTorch's.
 *
 * The device under the replay answers from the trace itself. PyTorch logs a
 * segment_alloc just before the alloc that needed it, and a run of
 * segment_free entries when it gave segments back (empty_cache(), or the
 * retry after cudaMalloc failed). So when the engine asks for a segment while
 * replaying an alloc, the device hands it the segment PyTorch got (same size:
 * a match), or fails if PyTorch's cudaMalloc failed there (a segment_free run
 * or the oom comes next), or, when PyTorch needed no segment at all, gives it
 * an address of its own and notes the divergence. Every segment the engine
 * gives back is checked against PyTorch's segment_free run.
 *
 * A segment_free run before an alloc that the cache could serve cannot be
 * PyTorch's retry (it never calls cudaMalloc then): it was empty_cache(), and
 * the engine calls it too. After a divergence the engine is rebuilt from the
 * snapshot's own state after that entry, so one early difference does not
 * hide how the rest of the trace matches.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot"

#include "config.h"

#include <string.h>

#include "gml-i18n.h"

#include "gml-allocator.h"
#include "gml-snapshot-check.h"

typedef struct
{
  guint8  action;   /* GML_SNAP_SEGMENT_ALLOC, _FREE, _MAP or _UNMAP */
  gsize   index;
  guint64 addr;
  guint64 size;
} Pending;

typedef struct _Replay Replay;

typedef struct
{
  GmlDevice parent;
  Replay   *replay;
} ReplayDevice;

struct _Replay
{
  GmlSnapshotTimeline    *timeline;
  const GmlSnapshotEntry *entries;
  gsize                   n;
  GmlSnapshotCheck       *check;
  GmlAllocConf            conf;
  ReplayDevice           *device;
  GmlAllocator           *allocator;
  GHashTable             *blocks;      /* address → engine block id + 1 */
  GArray                 *pending;     /* Pending: segment entries not yet accounted for */
  guint                   pos;         /* first unused pending entry */
  gsize                   current;     /* the entry being replayed */
  gboolean                current_is_oom;
  guint64                 current_device_free;
  gboolean                diverged;    /* this entry diverged: rebuild after it */
  gboolean                quiet;       /* tearing the engine down: no comparisons */
  guint64                 next_synthetic;
  GHashTable             *synthetic;   /* addresses the device made up */
  guint64                 gpu_memory;  /* 0: not known */
  GArray                 *spaces;      /* Range: what the engine holds: its segments from cudaMalloc
                                        * and its expandable address spaces */
};

typedef struct
{
  guint64 address;
  guint64 size;
} Range;

/* Takes [address, address + size) for a new segment or space unless it meets
 * one the engine holds: a file whose trace puts two on top of each other does
 * not follow the allocator's rules, and handing that address out would
 * corrupt the engine's state. */
static gboolean
take_space (Replay   *r,
            guint64   address,
            guint64   size,
            guint64  *out)
{
  Range x = { address, size };

  if (address + size < address)
    return FALSE;
  for (guint i = 0; i < r->spaces->len; i++)
    {
      const Range *y = &g_array_index (r->spaces, Range, i);

      if (address < y->address + y->size && y->address < address + size)
        return FALSE;
    }
  g_array_append_val (r->spaces, x);
  *out = address;
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Divergences                                                               */

typedef struct
{
  guint32 stream;
  GmlPool pool;
  guint64 size;
  GArray *out;
} Candidates;

static void
candidate_cb (const GmlSegmentInfo *segment,
              const GmlBlockInfo   *block,
              gpointer              user_data)
{
  Candidates *c = user_data;
  GmlSnapshotCandidate candidate = { block->address, block->size };

  if (block->state == GML_BLOCK_FREE && block->stream == c->stream && block->pool == c->pool &&
      block->size >= c->size && c->out->len < 16)
    g_array_append_val (c->out, candidate);
}

/* The cached free blocks a request could have taken (same stream and pool,
 * large enough), in address order. */
static void
candidates_for (Replay  *r,
                guint32  stream,
                guint64  size,
                GArray  *out)
{
  guint64 rounded = gml_round_size (&r->conf, size);
  Candidates c = { stream, gml_pool_for_size (rounded), rounded, out };

  gml_mem_state_foreach_block (gml_allocator_get_state (r->allocator), candidate_cb, &c);
}

G_GNUC_PRINTF (4, 5)
static void
diverge (Replay     *r,
         gsize       index,
         const char *pytorch,
         const char *engine_format,
         ...)
{
  GmlSnapshotDivergence *d = &r->check->first_divergence;
  const GmlSnapshotEntry *e = &r->entries[MIN (index, r->n - 1)];
  va_list args;

  r->diverged = TRUE;
  if (d->found || r->n == 0)
    return;
  d->found = TRUE;
  d->index = index;
  d->action = g_strdup (gml_snapshot_action_to_string (e->action));
  d->size = e->size;
  d->stream = e->stream;
  d->pytorch = g_strdup (pytorch);
  va_start (args, engine_format);
  d->engine = g_strdup_vprintf (engine_format, args);
  va_end (args);
  d->candidates = g_array_new (FALSE, FALSE, sizeof (GmlSnapshotCandidate));
  if (r->allocator != NULL && (e->action == GML_SNAP_ALLOC || e->action == GML_SNAP_OOM))
    candidates_for (r, e->stream, e->size, d->candidates);
}

/* ------------------------------------------------------------------------- */
/* The device that answers from the trace                                    */

static inline gboolean
is_release (guint8 action)
{
  return action == GML_SNAP_SEGMENT_FREE || action == GML_SNAP_SEGMENT_UNMAP;
}

/* An address for a segment or space the recorded run does not explain: above
 * everything the run and the engine use, held like any other. FALSE when there
 * is no room left (only crafted sizes get there): the device is then out of
 * memory. */
static gboolean
synthetic_address (Replay  *r,
                   guint64  size,
                   guint64 *address)
{
  const guint64 gap = G_GUINT64_CONSTANT (1) << 30;
  guint64 step;

  if (size > G_MAXUINT64 / 4)
    return FALSE;
  step = (size + gap) & ~((G_GUINT64_CONSTANT (1) << 21) - 1);
  if (r->next_synthetic > G_MAXUINT64 - step || !take_space (r, r->next_synthetic, size, address))
    return FALSE;
  r->next_synthetic += step;
  g_hash_table_add (r->synthetic, g_memdup2 (address, sizeof *address));
  return TRUE;
}

static gboolean
synthetic_or_oom (Replay   *r,
                  guint64   size,
                  guint64  *address,
                  GError  **error)
{
  if (synthetic_address (r, size, address))
    return TRUE;
  g_set_error_literal (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY,
                       "no address left for a segment the recorded run does not have");
  return FALSE;
}

/* Made-up addresses start above @end. */
static void
synthetic_above (Replay  *r,
                 guint64  end)
{
  guint64 above = (MIN (end, G_MAXUINT64 / 2) + (G_GUINT64_CONSTANT (1) << 40)) &
                  ~((G_GUINT64_CONSTANT (1) << 30) - 1);

  r->next_synthetic = MAX (r->next_synthetic, above);
}

static gboolean
replay_alloc (GmlDevice  *device,
              guint64     size,
              guint64    *address,
              GError    **error)
{
  Replay *r = ((ReplayDevice *) device)->replay;
  g_autofree char *want = gml_format_size (size);

  if (r->pos < r->pending->len)
    {
      Pending *p = &g_array_index (r->pending, Pending, r->pos);

      if (is_release (p->action) || p->action == GML_SNAP_SEGMENT_MAP)
        {
          /* PyTorch's cudaMalloc failed here: it gave segments back next
           * (or it mapped pages: it was not calling cudaMalloc at all). */
          g_set_error_literal (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY,
                               "cudaMalloc failed in the recorded run");
          return FALSE;
        }
      r->pos++;
      if (p->size == size && take_space (r, p->addr, size, address))
        {
          r->check->segment_allocs_matched++;
          return TRUE;
        }
      {
        g_autofree char *got = gml_format_size (p->size);
        g_autofree char *pytorch = g_strdup_printf ("asked the GPU for a segment of %s at 0x%" G_GINT64_MODIFIER "x",
                                                    got, p->addr);

        if (p->size == size)
          diverge (r, p->index, pytorch, "already holds memory at 0x%" G_GINT64_MODIFIER "x", p->addr);
        else
          diverge (r, p->index, pytorch, "asked for a segment of %s", want);
      }
      return synthetic_or_oom (r, size, address, error);
    }

  if (r->current_is_oom)
    {
      g_set_error_literal (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY,
                           "cudaMalloc failed in the recorded run");
      return FALSE;
    }
  diverge (r, r->current, "found a cached block and asked the GPU for nothing",
           "asked the GPU for a new segment of %s", want);
  return synthetic_or_oom (r, size, address, error);
}

static gboolean
replay_free (GmlDevice  *device,
             guint64     address,
             GError    **error)
{
  Replay *r = ((ReplayDevice *) device)->replay;

  for (guint i = 0; i < r->spaces->len; i++)
    if (g_array_index (r->spaces, Range, i).address == address)
      {
        g_array_remove_index_fast (r->spaces, i);
        break;
      }
  if (g_hash_table_remove (r->synthetic, &address) || r->quiet)
    return TRUE;
  /* PyTorch's run of segment_free entries, in any order within the run. */
  for (guint i = r->pos; i < r->pending->len; i++)
    {
      Pending *p = &g_array_index (r->pending, Pending, i);

      if (!is_release (p->action))
        break;
      if (p->action != GML_SNAP_SEGMENT_FREE)
        continue;
      if (p->addr == address)
        {
          Pending tmp = *p;

          *p = g_array_index (r->pending, Pending, r->pos);
          g_array_index (r->pending, Pending, r->pos) = tmp;
          r->pos++;
          r->check->segment_frees_matched++;
          return TRUE;
        }
    }
  {
    g_autofree char *engine = g_strdup_printf ("gave the segment at 0x%" G_GINT64_MODIFIER "x back to the GPU",
                                               address);

    diverge (r, r->current, "kept that segment", "%s", engine);
  }
  return TRUE;
}

static gboolean
replay_mem_get_info (GmlDevice  *device,
                     guint64    *free_bytes,
                     guint64    *total_bytes,
                     GError    **error)
{
  Replay *r = ((ReplayDevice *) device)->replay;

  *free_bytes = r->current_device_free;
  *total_bytes = r->gpu_memory;
  return TRUE;
}

/* Expandable segments: the address space PyTorch reserved begins where its
 * first segment_map goes; pages are mapped and unmapped as its
 * segment_map / segment_unmap entries say. */
static gboolean
replay_reserve (GmlDevice  *device,
                guint64     size,
                guint64    *address,
                GError    **error)
{
  Replay *r = ((ReplayDevice *) device)->replay;

  /* PyTorch reserves before it maps, and keeps the reservation when the
   * mapping fails and is retried after giving memory back: the first
   * segment_map still to come is where this space begins. */
  for (guint i = r->pos; i < r->pending->len; i++)
    if (g_array_index (r->pending, Pending, i).action == GML_SNAP_SEGMENT_MAP)
      {
        if (take_space (r, g_array_index (r->pending, Pending, i).addr, size, address))
          return TRUE;
        break;
      }
  /* Reserved for a request that then ran out of memory: the space stays
   * reserved, unmapped, and its first mapping on this stream and pool, later
   * in the trace, tells where it is. */
  if (r->current < r->n)
    {
      const GmlSnapshotEntry *e = &r->entries[r->current];
      gboolean small = gml_round_size (&r->conf, e->size) <= GML_SMALL_SIZE;

      for (gsize i = r->current + 1; i < r->n; i++)
        {
          const GmlSnapshotEntry *m = &r->entries[i];

          if (m->action == GML_SNAP_SEGMENT_MAP && m->stream == e->stream &&
              (m->size % GML_LARGE_BUFFER != 0) == small)
            {
              if (take_space (r, m->addr, size, address))
                return TRUE;
              break;
            }
        }
    }
  return synthetic_or_oom (r, size, address, error);
}

static void
replay_unreserve (GmlDevice *device,
                  guint64    address)
{
}

static gboolean
replay_map (GmlDevice  *device,
            guint64     address,
            guint64     size,
            GError    **error)
{
  Replay *r = ((ReplayDevice *) device)->replay;
  g_autofree char *want = gml_format_size (size);

  if (r->pos < r->pending->len)
    {
      Pending *p = &g_array_index (r->pending, Pending, r->pos);

      if (p->action != GML_SNAP_SEGMENT_MAP)
        {
          g_set_error_literal (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY,
                               "cuMemCreate failed in the recorded run");
          return FALSE;
        }
      r->pos++;
      if (p->addr == address && p->size == size)
        {
          r->check->segment_allocs_matched++;
          return TRUE;
        }
      {
        g_autofree char *got = gml_format_size (p->size);
        g_autofree char *pytorch = g_strdup_printf ("mapped %s at 0x%" G_GINT64_MODIFIER "x", got, p->addr);

        diverge (r, p->index, pytorch, "mapped %s at 0x%" G_GINT64_MODIFIER "x", want, address);
      }
      return TRUE;
    }
  if (r->current_is_oom)
    {
      g_set_error_literal (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY,
                           "cuMemCreate failed in the recorded run");
      return FALSE;
    }
  diverge (r, r->current, "mapped nothing", "mapped %s at 0x%" G_GINT64_MODIFIER "x", want, address);
  return TRUE;
}

static void
replay_unmap (GmlDevice *device,
              guint64    address,
              guint64    size)
{
  Replay *r = ((ReplayDevice *) device)->replay;

  if (r->quiet)
    return;
  for (guint i = r->pos; i < r->pending->len; i++)
    {
      Pending *p = &g_array_index (r->pending, Pending, i);

      if (!is_release (p->action))
        break;
      if (p->action == GML_SNAP_SEGMENT_UNMAP && p->addr == address && p->size == size)
        {
          Pending tmp = *p;

          *p = g_array_index (r->pending, Pending, r->pos);
          g_array_index (r->pending, Pending, r->pos) = tmp;
          r->pos++;
          r->check->segment_frees_matched++;
          return;
        }
    }
  {
    g_autofree char *what = gml_format_size (size);

    diverge (r, r->current, "kept those pages mapped", "unmapped %s at 0x%" G_GINT64_MODIFIER "x", what,
             address);
  }
}

static void
replay_destroy (GmlDevice *device)
{
  g_free (device->name);
  g_free (device);
}

static const GmlDeviceClass replay_class = {
  .id = "replay",
  .destroy = replay_destroy,
  .alloc = replay_alloc,
  .free = replay_free,
  .mem_get_info = replay_mem_get_info,
  .reserve = replay_reserve,
  .unreserve = replay_unreserve,
  .map = replay_map,
  .unmap = replay_unmap,
};

/* ------------------------------------------------------------------------- */
/* The engine, from the snapshot's state                                     */

/* An expandable segment's address space, as the engine is given it. */
typedef struct
{
  guint64  low;        /* its lowest mapped range */
  guint64  high;       /* the end of its highest */
  guint64  size;       /* what the engine reserves */
  guint32  stream;
  gboolean small;
  gboolean usable;
} Space;

typedef struct
{
  guint64  address;
  guint64  size;
  gboolean expandable;
} Taken;

static const Space *
space_for (GArray                         *spaces,
           const GmlSnapshotLayoutSegment *seg)
{
  for (guint i = 0; i < spaces->len; i++)
    {
      const Space *x = &g_array_index (spaces, Space, i);

      if (x->stream == seg->stream && x->small == (gboolean) seg->small)
        return x;
    }
  return NULL;
}

/* Whether @seg can be handed to the engine as it is. PyTorch never writes a
 * state that breaks these rules, but a damaged or crafted file can, and the
 * engine's free lists and page maps count on them: block sizes whole multiples
 * of 512 bytes that add up to the segment; segments that do not overlap, and
 * outside expandable segments do not lie in an expandable segment's space;
 * expandable segments made of whole pages of their space, apart from each
 * other (mapped ranges that touch are one segment in a snapshot). A segment
 * that breaks them is left out: the replay then diverges where the trace uses
 * it, and says so. */
static gboolean
segment_fits (Replay                         *r,
              const GmlSnapshotLayoutSegment *seg,
              const Space                    *space,
              GArray                         *taken)
{
  guint64 total = 0;

  if (seg->blocks->len == 0 || seg->size == 0 || seg->address % GML_MIN_BLOCK_SIZE != 0 ||
      seg->address + seg->size < seg->address)
    return FALSE;
  for (guint i = 0; i < seg->blocks->len; i++)
    {
      guint64 size = g_array_index (seg->blocks, GmlSnapshotLayoutBlock, i).size;

      if (size == 0 || size % GML_MIN_BLOCK_SIZE != 0 || total + size < total)
        return FALSE;
      total += size;
    }
  if (total != seg->size)
    return FALSE;
  for (guint i = 0; i < taken->len; i++)
    {
      const Taken *y = &g_array_index (taken, Taken, i);
      gboolean both = y->expandable && seg->expandable;

      if (both ? (seg->address <= y->address + y->size && y->address <= seg->address + seg->size)
               : (seg->address < y->address + y->size && y->address < seg->address + seg->size))
        return FALSE;
    }
  if (seg->expandable)
    {
      guint64 page = seg->small ? GML_SMALL_BUFFER : GML_LARGE_BUFFER;

      return space != NULL && space->usable && (seg->address - space->low) % page == 0 &&
             seg->size % page == 0;
    }
  for (guint i = 0; i < r->spaces->len; i++)
    {
      const Range *y = &g_array_index (r->spaces, Range, i);

      if (seg->address < y->address + y->size && y->address < seg->address + seg->size)
        return FALSE;
    }
  return TRUE;
}

/* Expandable segments: one address space per pool and stream, from the lowest
 * mapped range with room above the highest to grow (where PyTorch reserved it,
 * and how much, is not in the file), up to the next space at most. Spaces
 * whose mapped ranges interleave come from a damaged file and are not used. */
static void
add_spaces (Replay            *r,
            GmlSnapshotLayout *layout,
            GArray            *spaces)
{
  const guint64 room = G_GUINT64_CONSTANT (80) << 30;

  for (guint s = 0; s < gml_snapshot_layout_get_n_segments (layout); s++)
    {
      const GmlSnapshotLayoutSegment *seg = gml_snapshot_layout_get_segment (layout, s);
      Space *x = (Space *) space_for (spaces, seg);
      guint64 end = seg->address + seg->size;

      if (!seg->expandable)
        continue;
      if (x == NULL)
        {
          Space fresh = { seg->address, end, 0, seg->stream, seg->small, TRUE };

          g_array_append_val (spaces, fresh);
          x = &g_array_index (spaces, Space, spaces->len - 1);
        }
      x->low = MIN (x->low, seg->address);
      x->high = MAX (x->high, end);
      if (end < seg->address)
        x->usable = FALSE;
    }
  for (guint i = 0; i < spaces->len; i++)
    {
      Space *x = &g_array_index (spaces, Space, i);

      x->size = x->high - x->low + MIN (room, G_MAXUINT64 - x->high);
      for (guint j = 0; j < spaces->len; j++)
        {
          const Space *y = &g_array_index (spaces, Space, j);

          if (j == i)
            continue;
          if (x->low < y->high && y->low < x->high)
            x->usable = FALSE;
          else if (y->low >= x->high)
            x->size = MIN (x->size, y->low - x->low);
        }
    }
  for (guint i = 0; i < spaces->len; i++)
    {
      const Space *x = &g_array_index (spaces, Space, i);
      Range range = { x->low, x->size };

      if (!x->usable)
        continue;
      g_array_append_val (r->spaces, range);
      gml_allocator_add_expandable (r->allocator, x->low, x->size, x->stream,
                                    x->small ? GML_POOL_SMALL : GML_POOL_LARGE);
    }
}

static void
build_engine (Replay *r,
              gsize   at)
{
  g_autoptr(GmlSnapshotLayout) layout = gml_snapshot_layout_new ();
  g_autoptr(GArray) specs = g_array_new (FALSE, FALSE, sizeof (GmlBlockSpec));
  g_autoptr(GArray) spaces = g_array_new (FALSE, FALSE, sizeof (Space));
  g_autoptr(GArray) taken = g_array_new (FALSE, FALSE, sizeof (Taken));

  if (r->allocator != NULL)
    {
      r->quiet = TRUE;
      g_clear_pointer (&r->allocator, gml_allocator_destroy);
      r->quiet = FALSE;
    }
  g_hash_table_remove_all (r->blocks);
  g_array_set_size (r->spaces, 0);
  r->allocator = gml_allocator_new (&r->device->parent, &r->conf);

  gml_snapshot_timeline_layout_at (r->timeline, at, layout);
  add_spaces (r, layout, spaces);
  for (guint i = 0; i < r->spaces->len; i++)
    synthetic_above (r, g_array_index (r->spaces, Range, i).address + g_array_index (r->spaces, Range, i).size);
  for (guint s = 0; s < gml_snapshot_layout_get_n_segments (layout); s++)
    {
      const GmlSnapshotLayoutSegment *seg = gml_snapshot_layout_get_segment (layout, s);
      const GmlMemState *state;
      Taken t = { seg->address, seg->size, seg->expandable };
      gint32 slot;

      if (!segment_fits (r, seg, space_for (spaces, seg), taken))
        continue;
      g_array_append_val (taken, t);
      synthetic_above (r, seg->address + seg->size);
      if (!seg->expandable)
        {
          Range held = { seg->address, seg->size };

          g_array_append_val (r->spaces, held);
        }
      g_array_set_size (specs, 0);
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
      slot = gml_allocator_add_segment (r->allocator, seg->address, seg->stream,
                                        seg->small ? GML_POOL_SMALL : GML_POOL_LARGE,
                                        (GmlBlockSpec *) specs->data, specs->len);
      if (slot < 0)
        continue;
      if (seg->expandable)
        gml_allocator_mark_expandable (r->allocator, slot);
      state = gml_allocator_get_state (r->allocator);
      for (gint32 id = gml_mem_state_get_segment (state, slot)->first_block; id >= 0;
           id = gml_mem_state_get_block (state, id)->next)
        {
          const GmlBlock *b = gml_mem_state_get_block (state, id);

          if (b->state != GML_BLOCK_FREE)
            g_hash_table_insert (r->blocks, g_memdup2 (&b->address, sizeof b->address),
                                 GINT_TO_POINTER (id + 1));
        }
    }
}

static gint32
engine_block (Replay  *r,
              guint64  address)
{
  return GPOINTER_TO_INT (g_hash_table_lookup (r->blocks, &address)) - 1;
}

/* ------------------------------------------------------------------------- */
/* The replay                                                                */

static void
resync (Replay *r,
        gsize   at)
{
  r->check->resyncs++;
  g_array_set_size (r->pending, 0);
  r->pos = 0;
  build_engine (r, at);
  r->diverged = FALSE;
}

/* Segment entries no alloc explains: a run of segment_free is empty_cache(). */
static void
settle_pending (Replay *r,
                gsize   index)
{
  gboolean all_free = TRUE;

  if (r->pos >= r->pending->len)
    {
      g_array_set_size (r->pending, 0);
      r->pos = 0;
      return;
    }
  for (guint i = r->pos; i < r->pending->len; i++)
    if (!is_release (g_array_index (r->pending, Pending, i).action))
      all_free = FALSE;
  r->current = g_array_index (r->pending, Pending, r->pos).index;
  if (all_free)
    {
      r->check->empty_caches++;
      gml_allocator_empty_cache (r->allocator);
    }
  if (r->pos < r->pending->len)
    {
      const Pending *p = &g_array_index (r->pending, Pending, r->pos);
      g_autofree char *size = gml_format_size (p->size);
      g_autofree char *pytorch = g_strdup_printf ("%s a segment of %s at 0x%" G_GINT64_MODIFIER "x",
                                                  is_release (p->action) ? "released" : "allocated",
                                                  size, p->addr);

      r->current = p->index;
      diverge (r, p->index, pytorch, "%s", is_release (p->action)
                                           ? "kept that segment" : "needed no new segment");
    }
  g_array_set_size (r->pending, 0);
  r->pos = 0;
  if (r->diverged)
    resync (r, index);
}

static void
replay_alloc_entry (Replay                 *r,
                    gsize                   i,
                    const GmlSnapshotEntry *e)
{
  g_autoptr(GError) error = NULL;
  gint32 id = -1;
  gboolean ok;

  r->current = i;
  r->current_is_oom = e->action == GML_SNAP_OOM;
  r->current_device_free = r->current_is_oom ? e->addr : 0;

  /* Segments given back before a request the cache can serve: PyTorch never
   * calls cudaMalloc then, so it was empty_cache(). */
  if (r->pos < r->pending->len &&
      is_release (g_array_index (r->pending, Pending, r->pos).action) &&
      gml_allocator_would_reuse (r->allocator, e->size, e->stream))
    {
      r->check->empty_caches++;
      gml_allocator_empty_cache (r->allocator);
    }

  ok = gml_allocator_malloc (r->allocator, e->size, e->stream, NULL, GML_CATEGORY_NONE, &id, &error);
  if (e->action == GML_SNAP_ALLOC)
    {
      r->check->allocs++;
      if (ok && id >= 0)
        {
          guint64 address = gml_mem_state_get_block (gml_allocator_get_state (r->allocator), id)->address;
          g_autofree char *pytorch = g_strdup_printf ("took the block at 0x%" G_GINT64_MODIFIER "x", e->addr);

          if (address == e->addr)
            {
              r->check->allocs_matched++;
              g_hash_table_insert (r->blocks, g_memdup2 (&address, sizeof address), GINT_TO_POINTER (id + 1));
            }
          else
            {
              GmlSnapshotDivergence *d = &r->check->first_divergence;
              gboolean first = !d->found;

              diverge (r, i, pytorch, "took the block at 0x%" G_GINT64_MODIFIER "x", address);
              if (first && d->found)
                {
                  /* The engine's own choice was a candidate too: put it back in the list. */
                  GmlSnapshotCandidate taken = {
                    address, gml_mem_state_get_block (gml_allocator_get_state (r->allocator), id)->size };
                  guint k = 0;

                  while (k < d->candidates->len &&
                         g_array_index (d->candidates, GmlSnapshotCandidate, k).address < address)
                    k++;
                  g_array_insert_val (d->candidates, k, taken);
                }
            }
        }
      else
        {
          g_autofree char *pytorch = g_strdup_printf ("took the block at 0x%" G_GINT64_MODIFIER "x", e->addr);

          diverge (r, i, pytorch, "ran out of memory (%s)", error ? error->message : "");
        }
    }
  else
    {
      r->check->ooms++;
      if (!ok && g_error_matches (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY))
        r->check->ooms_matched++;
      else if (ok && id >= 0)
        diverge (r, i, "ran out of memory",
                 "took the block at 0x%" G_GINT64_MODIFIER "x",
                 gml_mem_state_get_block (gml_allocator_get_state (r->allocator), id)->address);
      else
        diverge (r, i, "ran out of memory", "failed another way (%s)", error ? error->message : "");
    }

  /* What PyTorch did around this request and the engine did not. */
  if (r->pos < r->pending->len)
    {
      const Pending *p = &g_array_index (r->pending, Pending, r->pos);
      g_autofree char *size = gml_format_size (p->size);
      g_autofree char *pytorch = g_strdup_printf ("%s a segment of %s at 0x%" G_GINT64_MODIFIER "x",
                                                  is_release (p->action) ? "released" : "allocated",
                                                  size, p->addr);

      diverge (r, p->index, pytorch, "%s", is_release (p->action)
                                           ? "kept that segment" : "needed no new segment");
    }
  g_array_set_size (r->pending, 0);
  r->pos = 0;
  r->current_is_oom = FALSE;
  r->current_device_free = 0;
  if (r->diverged)
    resync (r, i + 1);
}

static char *
describe_rules (GmlSnapshotTimeline *timeline,
                const GmlAllocConf  *conf)
{
  GmlSnapshot *snap = gml_snapshot_timeline_get_snapshot (timeline);
  const GmlSnapshotSettings *s = gml_snapshot_get_settings (snap);
  const char *version = gml_snapshot_get_version_text (snap);
  GString *out = g_string_new (NULL);
  gboolean divisions = FALSE;

  for (guint i = 0; i < GML_N_ROUNDUP_INTERVALS; i++)
    if (conf->roundup_power2_divisions[i] > 1)
      divisions = TRUE;
  g_string_append_printf (out, "Written by %s. ", version);
  g_string_append (out, "Rules applied (c10/cuda/CUDACachingAllocator.cpp): 512-byte rounding");
  if (divisions)
    g_string_append (out, " and roundup_power2_divisions from the snapshot's allocator_settings");
  g_string_append (out, "; small (<= 1 MiB) and large pools; 2 MiB, 20 MiB or 2 MiB-rounded segments; "
                        "best fit per stream and pool, lowest address on ties; should_split(); ");
  if (conf->max_split_size != G_MAXUINT64)
    {
      g_autofree char *max = gml_format_size (conf->max_split_size);

      g_string_append_printf (out, "max_split_size %s from allocator_settings, oversize requests rounding "
                                   "up by less than 20 MiB (max_non_split_rounding_mb's default); ", max);
    }
  else
    g_string_append (out, "max_split_size unlimited; ");
  g_string_append (out, "the release-and-retry sequence of malloc(); empty_cache() where segments are "
                        "released before a request the cache could serve.");
  if (!s->present)
    g_string_append (out, " The snapshot has no allocator_settings (PyTorch before 2.3): the defaults are assumed.");
  if (s->expandable_segments)
    g_string_append (out, " Expandable segments (expandable_segments:True): pages of 2 MiB (small pool) or "
                          "20 MiB (large pool) mapped behind one growing segment per pool and stream, "
                          "find_expandable_block() and map_block() as in the source; where PyTorch "
                          "reserved each address space is not in the file, so it is taken to begin at the "
                          "lowest mapped range.");
  if (s->garbage_collection_threshold > 0)
    g_string_append (out, " garbage_collection_threshold is set and not modelled.");
  return g_string_free (out, FALSE);
}

gboolean
gml_snapshot_check (GmlSnapshotTimeline *timeline,
                    guint64              gpu_memory,
                    GmlSnapshotCheck    *check,
                    GCancellable        *cancellable,
                    GError             **error)
{
  GmlSnapshot *snap = gml_snapshot_timeline_get_snapshot (timeline);
  Replay r;
  guint64 highest = 0;
  gsize n_segments;
  const GmlSnapshotSegment *segments;

  memset (check, 0, sizeof *check);
  memset (&r, 0, sizeof r);
  r.timeline = timeline;
  r.check = check;
  r.gpu_memory = gpu_memory;
  r.entries = gml_snapshot_get_entries (snap, gml_snapshot_timeline_get_device (timeline), &r.n);
  gml_snapshot_settings_to_conf (gml_snapshot_get_settings (snap), &r.conf);
  r.device = g_new0 (ReplayDevice, 1);
  r.device->parent.klass = &replay_class;
  g_atomic_ref_count_init (&r.device->parent.ref_count);
  r.device->parent.name = g_strdup ("replay");
  r.device->replay = &r;
  r.blocks = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r.synthetic = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r.pending = g_array_new (FALSE, FALSE, sizeof (Pending));
  r.spaces = g_array_new (FALSE, FALSE, sizeof (Range));
  check->rules = describe_rules (timeline, &r.conf);

  /* Made-up segments go above everything the run used. */
  segments = gml_snapshot_get_segments (snap, gml_snapshot_timeline_get_device (timeline), &n_segments);
  for (gsize s = 0; s < n_segments; s++)
    highest = MAX (highest, segments[s].address + segments[s].total_size);
  for (gsize i = 0; i < r.n; i++)
    highest = MAX (highest, r.entries[i].addr + r.entries[i].size);
  r.next_synthetic = (MIN (highest, G_MAXUINT64 / 2) + (G_GUINT64_CONSTANT (1) << 40)) &
                     ~((G_GUINT64_CONSTANT (1) << 30) - 1);

  build_engine (&r, 0);
  for (gsize i = 0; i < r.n; i++)
    {
      const GmlSnapshotEntry *e = &r.entries[i];

      if ((i & 0xffff) == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        break;
      switch ((GmlSnapshotAction) e->action)
        {
        case GML_SNAP_SEGMENT_ALLOC:
        case GML_SNAP_SEGMENT_FREE:
        case GML_SNAP_SEGMENT_MAP:
        case GML_SNAP_SEGMENT_UNMAP:
          {
            Pending p = { e->action, i, e->addr, e->size };

            /* Mapped pages count as new segments, unmapped ones as given back. */
            if (e->action == GML_SNAP_SEGMENT_ALLOC || e->action == GML_SNAP_SEGMENT_MAP)
              check->segment_allocs++;
            else
              check->segment_frees++;
            g_array_append_val (r.pending, p);
          }
          break;

        case GML_SNAP_ALLOC:
        case GML_SNAP_OOM:
          replay_alloc_entry (&r, i, e);
          break;

        case GML_SNAP_FREE_REQUESTED:
        case GML_SNAP_FREE_COMPLETED:
          {
            gint32 id;
            gboolean ok;

            settle_pending (&r, i);
            id = engine_block (&r, e->addr);
            if (id < 0)
              {
                diverge (&r, i, "freed a block there", "has no block at 0x%" G_GINT64_MODIFIER "x", e->addr);
                resync (&r, i + 1);
                break;
              }
            if (e->action == GML_SNAP_FREE_REQUESTED && i + 1 < r.n &&
                r.entries[i + 1].action == GML_SNAP_FREE_COMPLETED && r.entries[i + 1].addr == e->addr)
              {
                /* The usual case: the block goes back to the pool at once. */
                ok = gml_allocator_free (r.allocator, id, NULL);
                i++;
              }
            else if (e->action == GML_SNAP_FREE_REQUESTED)
              ok = gml_allocator_free_requested (r.allocator, id, NULL);
            else
              ok = gml_allocator_free_completed (r.allocator, id, NULL);
            if (!ok)
              {
                diverge (&r, i, "freed a block there", "could not free block %d", id);
                resync (&r, i + 1);
              }
            else if (r.entries[i].action == GML_SNAP_FREE_COMPLETED)
              g_hash_table_remove (r.blocks, &e->addr);
          }
          break;


        case GML_SNAP_SNAPSHOT:
        case GML_SNAP_OTHER:
        default:
          break;
        }
    }
  settle_pending (&r, r.n);

  r.quiet = TRUE;
  g_clear_pointer (&r.allocator, gml_allocator_destroy);
  gml_device_destroy (&r.device->parent);
  g_hash_table_unref (r.blocks);
  g_hash_table_unref (r.synthetic);
  g_array_unref (r.pending);
  g_array_unref (r.spaces);
  return error == NULL || *error == NULL;
}

void
gml_snapshot_check_clear (GmlSnapshotCheck *check)
{
  GmlSnapshotDivergence *d = &check->first_divergence;

  g_clear_pointer (&check->rules, g_free);
  g_clear_pointer (&d->action, g_free);
  g_clear_pointer (&d->pytorch, g_free);
  g_clear_pointer (&d->engine, g_free);
  g_clear_pointer (&d->candidates, g_array_unref);
  memset (check, 0, sizeof *check);
}

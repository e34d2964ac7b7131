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
  GArray                 *recorded;    /* RecordedSpace, by base: PyTorch's reservations */
  guint                   snap_device; /* the device replayed */
  GError                 *fatal;       /* the engine stopped holding together: the replay ends */
};

typedef struct
{
  guint64 address;
  guint64 size;
} Range;

/* ------------------------------------------------------------------------- */
/* Where PyTorch's expandable segments are                                   */
/*
 * With expandable_segments:True a snapshot records no segment_alloc: each
 * address space is known only through what was mapped in it. The rules that
 * place it (c10/cuda/CUDACachingAllocator.cpp):
 *
 * - ExpandableSegment::ExpandableSegment() reserves
 *   numSegments(totalGlobalMem + totalGlobalMem / 8) pages of segment_size_
 *   (kSmallBuffer, 2 MiB, for a small pool; kLargeBuffer, 20 MiB, for a large
 *   one) with cuMemAddressReserve() and no address hint: the driver picks the
 *   base, and the size follows the GPU's memory, which the file does not keep.
 * - find_expandable_block() makes a new ExpandableSegment for a pool and
 *   stream when no run of free and unmapped blocks in its existing ones holds
 *   the request; the Block it returns starts at the segment's ptr(), so the
 *   first map_block() in a space maps at its base.
 * - Every later map_block() maps at the start of an unmapped Block, and an
 *   unmapped Block starts at the base or right after a mapped one
 *   (try_merge_blocks() joins unmapped neighbours, unmap_block() leaves the
 *   mapped rest before the hole). So a segment_map that does not begin where a
 *   mapped range of its pool and stream ends begins a space of its own.
 * - ExpandableSegment::map() maps whole pages, segmentLeft(ptr) to
 *   segmentRight(ptr + size); unmap() the whole pages inside a free block;
 *   record_trace() writes each as segment_map / segment_unmap.
 * - One process has one virtual address space for all its devices: a space
 *   ends at most where the file shows anything else's memory above its base
 *   (another pool, stream or device, or the next space of the same pool and
 *   stream).
 *
 * So the replay gives the engine each space at the base the file shows and as
 * large as the file allows (and never smaller than what PyTorch mapped in it);
 * the GPU's memory, when given (--gpu-memory), only narrows it to PyTorch's own
 * size. A space whose first mapping is older than the trace begins, for the
 * engine, at its lowest range mapped when the trace starts.
 */

typedef struct
{
  guint64  base;
  guint64  bound;      /* the first address above base owned by something else; G_MAXUINT64 */
  guint64  extent;     /* the end of the highest range the file shows mapped in it */
  guint32  stream;
  gboolean small;
  gboolean exact;      /* seen mapped first in the trace; else its lowest range at the start */
} RecordedSpace;

/* Memory the file shows, and whose. */
typedef struct
{
  guint64  address;
  guint64  end;
  guint    device;
  guint32  stream;
  guint8   small;      /* 0 or 1; 2: not known */
} Owned;

static int
recorded_by_base (gconstpointer a,
                  gconstpointer b)
{
  const RecordedSpace *x = a, *y = b;

  return x->base < y->base ? -1 : (x->base > y->base);
}

static void
add_recorded (Replay   *r,
              guint32   stream,
              gboolean  small,
              guint64   base,
              gboolean  exact)
{
  RecordedSpace x = { base, G_MAXUINT64, base, stream, small, exact };

  for (guint i = 0; i < r->recorded->len; i++)
    {
      RecordedSpace *y = &g_array_index (r->recorded, RecordedSpace, i);

      if (y->base == base && y->stream == stream && y->small == small)
        {
          y->exact |= exact;
          return;
        }
    }
  g_array_append_val (r->recorded, x);
}

static gboolean
ends_a_range (GArray   *live,
              guint32   stream,
              guint8    small,
              guint64   address)
{
  for (guint i = 0; i < live->len; i++)
    {
      const Owned *o = &g_array_index (live, Owned, i);

      if (o->end == address && o->stream == stream && o->small == small)
        return TRUE;
    }
  return FALSE;
}

/* Takes [address, end) out of the mapped ranges in @live. */
static void
unmap_range (GArray  *live,
             guint64  address,
             guint64  end)
{
  for (guint i = 0; i < live->len; i++)
    {
      Owned *o = &g_array_index (live, Owned, i);

      if (address >= o->end || end <= o->address)
        continue;
      if (o->address < address && end < o->end)
        {
          Owned tail = *o;

          tail.address = end;
          o->end = address;
          g_array_append_val (live, tail);
          return;
        }
      if (o->address >= address && o->end <= end)
        {
          g_array_remove_index_fast (live, i);
          i--;
        }
      else if (o->address < address)
        o->end = address;
      else
        o->address = end;
    }
}

/* The pages of one run of segment_map / segment_unmap entries, [first, last),
 * were mapped for the request that follows them: its pool is theirs. */
static void
scan_run (Replay                 *r,
          guint                   device,
          const GmlSnapshotEntry *entries,
          gsize                   first,
          gsize                   last,
          gsize                   n,
          GArray                 *owned,
          GArray                 *live)
{
  const GmlSnapshotEntry *e = last < n ? &entries[last] : NULL;
  gboolean request = e != NULL && (e->action == GML_SNAP_ALLOC || e->action == GML_SNAP_OOM);
  guint8 small = request ? gml_round_size (&r->conf, e->size) <= GML_SMALL_SIZE : 2;

  for (gsize j = first; j < last; j++)
    {
      const GmlSnapshotEntry *m = &entries[j];
      Owned o = { m->addr, m->addr + m->size, device, m->stream, small };

      if (o.end < o.address)
        continue;
      if (device == r->snap_device && m->action == GML_SNAP_SEGMENT_UNMAP)
        {
          unmap_range (live, o.address, o.end);
          continue;
        }
      g_array_append_val (owned, o);
      if (device != r->snap_device || m->action != GML_SNAP_SEGMENT_MAP || small == 2)
        continue;
      if (!ends_a_range (live, m->stream, small, m->addr))
        add_recorded (r, m->stream, small, m->addr, TRUE);
      g_array_append_val (live, o);
    }
}

/* Finds every address space of the replayed device in the file, and how far
 * each can reach. */
static void
scan_recorded_spaces (Replay      *r,
                      GmlSnapshot *snap)
{
  g_autoptr(GArray) owned = g_array_new (FALSE, FALSE, sizeof (Owned));
  g_autoptr(GArray) live = g_array_new (FALSE, FALSE, sizeof (Owned));
  g_autoptr(GmlSnapshotLayout) start = gml_snapshot_layout_new ();

  /* The ranges mapped before the trace began: the lowest of each pool and
   * stream is taken to begin its space (holes above it are pages unmapped
   * before the trace, as add_spaces() has it). */
  gml_snapshot_timeline_layout_at (r->timeline, 0, start);
  for (guint s = 0; s < gml_snapshot_layout_get_n_segments (start); s++)
    {
      const GmlSnapshotLayoutSegment *seg = gml_snapshot_layout_get_segment (start, s);
      Owned o = { seg->address, seg->address + seg->size, r->snap_device, seg->stream, seg->small };

      if (o.end < o.address)
        continue;
      g_array_append_val (owned, o);
      if (seg->expandable)
        g_array_append_val (live, o);
    }
  for (guint i = 0; i < live->len; i++)
    {
      const Owned *o = &g_array_index (live, Owned, i);
      gboolean lowest = TRUE;

      for (guint k = 0; k < live->len; k++)
        {
          const Owned *q = &g_array_index (live, Owned, k);

          if (q->stream == o->stream && q->small == o->small && q->address < o->address)
            lowest = FALSE;
        }
      if (lowest)
        add_recorded (r, o->stream, o->small, o->address, FALSE);
    }

  for (guint d = 0; d < gml_snapshot_get_n_devices (snap); d++)
    {
      gsize n = 0, n_segments = 0, first = 0;
      const GmlSnapshotEntry *entries = gml_snapshot_get_entries (snap, d, &n);
      const GmlSnapshotSegment *segments = gml_snapshot_get_segments (snap, d, &n_segments);
      gboolean in_run = FALSE;

      for (gsize s = 0; s < n_segments; s++)
        {
          Owned o = { segments[s].address, segments[s].address + segments[s].total_size, d,
                      segments[s].stream, segments[s].small };

          if (o.end >= o.address)
            g_array_append_val (owned, o);
        }
      for (gsize i = 0; i <= n; i++)
        {
          gboolean pages = i < n && (entries[i].action == GML_SNAP_SEGMENT_MAP ||
                                     entries[i].action == GML_SNAP_SEGMENT_UNMAP);

          if (pages && !in_run)
            {
              first = i;
              in_run = TRUE;
            }
          else if (!pages && in_run)
            {
              scan_run (r, d, entries, first, i, n, owned, live);
              in_run = FALSE;
            }
        }
    }

  g_array_sort (r->recorded, recorded_by_base);
  for (guint i = 0; i < r->recorded->len; i++)
    {
      RecordedSpace *x = &g_array_index (r->recorded, RecordedSpace, i);

      if (i + 1 < r->recorded->len)
        x->bound = g_array_index (r->recorded, RecordedSpace, i + 1).base;
      for (guint k = 0; k < owned->len; k++)
        {
          const Owned *o = &g_array_index (owned, Owned, k);
          gboolean mine = o->device == r->snap_device && o->stream == x->stream &&
                          o->small == x->small;

          if (mine)
            continue;
          if (o->address >= x->base)
            x->bound = MIN (x->bound, o->address);
          else if (o->end > x->base)
            x->bound = x->base;     /* someone else's memory over the base: a damaged file */
        }
      for (guint k = 0; k < owned->len; k++)
        {
          const Owned *o = &g_array_index (owned, Owned, k);

          if (o->device == r->snap_device && o->stream == x->stream && o->small == x->small &&
              o->address >= x->base && o->address < x->bound)
            x->extent = MAX (x->extent, o->end);
        }
    }

  /* A first mapping seen in the trace right below a space that was mapped
   * when the trace began, whole pages below it with nothing of anyone's
   * between: the same space, whose first pages were unmapped before the
   * trace began; its base is the one the trace shows. */
  for (guint i = 0; i + 1 < r->recorded->len; i++)
    {
      RecordedSpace *x = &g_array_index (r->recorded, RecordedSpace, i);
      const RecordedSpace *y = &g_array_index (r->recorded, RecordedSpace, i + 1);
      guint64 page = x->small ? GML_SMALL_BUFFER : GML_LARGE_BUFFER;

      if (x->exact && !y->exact && x->stream == y->stream && x->small == y->small &&
          x->bound == y->base && (y->base - x->base) % page == 0)
        {
          x->bound = y->bound;
          x->extent = MAX (x->extent, y->extent);
          g_array_remove_index (r->recorded, i + 1);
          i--;
        }
    }
}

static const RecordedSpace *
recorded_at (Replay  *r,
             guint64  base)
{
  for (guint i = 0; i < r->recorded->len; i++)
    {
      const RecordedSpace *x = &g_array_index (r->recorded, RecordedSpace, i);

      if (x->base == base)
        return x;
    }
  return NULL;
}

/* The recorded space that holds @address, or NULL. */
static const RecordedSpace *
recorded_holding (Replay  *r,
                  guint64  address)
{
  const RecordedSpace *found = NULL;

  for (guint i = 0; i < r->recorded->len; i++)
    {
      const RecordedSpace *x = &g_array_index (r->recorded, RecordedSpace, i);

      if (x->base <= address && address < x->bound)
        found = x;
    }
  return found;
}

/* How much of the space at @address the engine gets: PyTorch's reservation
 * as far as the file bounds it, never less than what PyTorch mapped in it;
 * @wanted (1⅛ of the GPU's memory, in pages) where the GPU's memory was
 * given or nothing bounds the space. 0: the file contradicts itself there
 * (the caller then makes an address up, and the replay says so). */
static guint64
recorded_size (Replay  *r,
               guint64  address,
               guint64  wanted)
{
  const RecordedSpace *x = recorded_at (r, address);
  guint64 size;

  if (x == NULL)
    return wanted;
  size = x->bound == G_MAXUINT64 ? wanted : x->bound - x->base;
  if (r->gpu_memory > 0)
    size = MIN (size, wanted);
  size = MAX (size, x->extent - x->base);
  if (size < (x->small ? GML_SMALL_BUFFER : GML_LARGE_BUFFER) ||
      (x->bound != G_MAXUINT64 && size > x->bound - x->base))
    return 0;
  return size;
}

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
        g_autofree char *pytorch =
            g_strdup_printf ("asked the GPU for a segment of %s at 0x%" G_GINT64_MODIFIER "x",
                             got, p->addr);

        if (p->size == size)
          diverge (r, p->index, pytorch, "already holds memory at 0x%" G_GINT64_MODIFIER "x",
                   p->addr);
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
    g_autofree char *engine =
        g_strdup_printf ("gave the segment at 0x%" G_GINT64_MODIFIER "x back to the GPU",
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
/* Takes the recorded space at @at for the engine's reservation. */
static gboolean
take_recorded (Replay   *r,
               guint64   at,
               guint64  *size,
               guint64  *address)
{
  guint64 got = recorded_size (r, at, *size);

  if (got == 0 || !take_space (r, at, got, address))
    return FALSE;
  *size = got;
  return TRUE;
}

static gboolean
replay_reserve (GmlDevice  *device,
                guint64    *size,
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
        if (take_recorded (r, g_array_index (r->pending, Pending, i).addr, size, address))
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
              if (take_recorded (r, m->addr, size, address))
                return TRUE;
              break;
            }
        }
    }
  return synthetic_or_oom (r, *size, address, error);
}

/* release_expandable_segment(): the address space goes back to the driver
 * (cuMemAddressFree), which may hand the same range out again, as it did to
 * PyTorch when a later segment_map reuses it. */
static void
replay_unreserve (GmlDevice *device,
                  guint64    address)
{
  Replay *r = ((ReplayDevice *) device)->replay;

  for (guint i = 0; i < r->spaces->len; i++)
    if (g_array_index (r->spaces, Range, i).address == address)
      {
        g_array_remove_index_fast (r->spaces, i);
        break;
      }
  g_hash_table_remove (r->synthetic, &address);
}

/* "page K of the large-pool space at 0xB (stream S)": the engine's space that
 * holds @address, or PyTorch's (as the file shows it) when @recorded. "" when
 * there is none. */
static char *
describe_page (Replay   *r,
               guint64   address,
               gboolean  recorded)
{
  guint64 base, size, page;
  GmlPool pool;
  guint32 stream;

  if (recorded)
    {
      const RecordedSpace *x = recorded_holding (r, address);

      if (x == NULL)
        return g_strdup ("");
      base = x->base;
      page = x->small ? GML_SMALL_BUFFER : GML_LARGE_BUFFER;
      pool = x->small ? GML_POOL_SMALL : GML_POOL_LARGE;
      stream = x->stream;
    }
  else if (r->allocator == NULL ||
           !gml_allocator_find_expandable (r->allocator, address, &base, &size, &page, &pool,
                                           &stream))
    return g_strdup ("");
  return g_strdup_printf (": page %" G_GUINT64_FORMAT " of the %s-pool space at 0x%"
                          G_GINT64_MODIFIER "x (stream %u)", (address - base) / page,
                          pool == GML_POOL_SMALL ? "small" : "large", base, stream);
}

/* Why the engine mapped @size at @address where PyTorch mapped @p: the first
 * of the reasons that holds. */
static char *
map_reason (Replay        *r,
            const Pending *p,
            guint64        address,
            guint64        size)
{
  const RecordedSpace *x = recorded_holding (r, p->addr);
  guint64 base, space, page;
  GmlPool pool;
  guint32 stream;

  if (r->allocator == NULL ||
      !gml_allocator_find_expandable (r->allocator, address, &base, &space, &page, &pool, &stream))
    return g_strdup ("");
  if (g_hash_table_contains (r->synthetic, &base))
    return g_strdup_printf ("; its space has a made-up address, because %s",
                            x == NULL
                            ? "the file shows no reservation of PyTorch's that it could be"
                            : "PyTorch's reservation there meets memory the engine holds");
  if (x == NULL || x->base != base)
    return g_strdup_printf ("; the engine's space begins at 0x%" G_GINT64_MODIFIER "x, PyTorch's "
                            "at 0x%" G_GINT64_MODIFIER "x", base, x != NULL ? x->base : p->addr);
  if (p->addr != address)
    return g_strdup_printf ("; in the same space find_expandable_block() found its lowest run of "
                            "free and unmapped memory that holds the request elsewhere: a block "
                            "below page %" G_GUINT64_FORMAT " is not the same in the engine and "
                            "in PyTorch", (MAX (address, p->addr) - base) / page);
  return g_strdup_printf ("; at the same page it maps %" G_GUINT64_FORMAT " pages, PyTorch %"
                          G_GUINT64_FORMAT ": the free block before the unmapped pages "
                          "(try_allocate_expandable_block()) is not as large in both",
                          size / page, p->size / page);
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
      if (!r->check->first_divergence.found)
        {
          g_autofree char *got = gml_format_size (p->size);
          g_autofree char *their_page = describe_page (r, p->addr, TRUE);
          g_autofree char *our_page = describe_page (r, address, FALSE);
          g_autofree char *why = map_reason (r, p, address, size);
          g_autofree char *pytorch = g_strdup_printf ("mapped %s at 0x%" G_GINT64_MODIFIER "x%s",
                                                      got, p->addr, their_page);

          diverge (r, p->index, pytorch, "mapped %s at 0x%" G_GINT64_MODIFIER "x%s%s", want,
                   address, our_page, why);
        }
      else
        r->diverged = TRUE;
      return TRUE;
    }
  if (r->current_is_oom)
    {
      g_set_error_literal (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY,
                           "cuMemCreate failed in the recorded run");
      return FALSE;
    }
  {
    g_autofree char *our_page = describe_page (r, address, FALSE);

    diverge (r, r->current, "mapped nothing",
             "mapped %s at 0x%" G_GINT64_MODIFIER "x%s: no cached block held the request "
             "(get_free_block()), while PyTorch found one", want, address, our_page);
  }
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
    g_autofree char *our_page = describe_page (r, address, FALSE);

    diverge (r, r->current, "kept those pages mapped",
             "unmapped %s at 0x%" G_GINT64_MODIFIER "x%s: a free block held those whole pages "
             "(unmap_block())", what, address, our_page);
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
static gboolean
layout_has_memory_in (GmlSnapshotLayout *layout,
                      guint64            address,
                      guint64            end)
{
  for (guint s = 0; s < gml_snapshot_layout_get_n_segments (layout); s++)
    {
      const GmlSnapshotLayoutSegment *seg = gml_snapshot_layout_get_segment (layout, s);

      if (seg->address < end && address < seg->address + seg->size)
        return TRUE;
    }
  return FALSE;
}

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
      const RecordedSpace *rec = recorded_holding (r, x->low);

      x->size = x->high - x->low + MIN (room, G_MAXUINT64 - x->high);
      if (rec != NULL && rec->stream == x->stream && rec->small == x->small &&
          rec->bound != G_MAXUINT64 && rec->bound >= x->high)
        {
          guint64 page = x->small ? GML_SMALL_BUFFER : GML_LARGE_BUFFER;

          /* The space began lower (its first pages were unmapped before this
           * point): the engine gets its recorded base when that is sure, a
           * first mapping seen in the trace, in whole pages below, with
           * nothing of anyone else's between. */
          if (rec->exact && rec->base < x->low && (x->low - rec->base) % page == 0 &&
              !layout_has_memory_in (layout, rec->base, x->low))
            x->low = rec->base;
          x->size = MIN (x->size, rec->bound - x->low);
        }
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
    synthetic_above (r,
                     g_array_index (r->spaces, Range, i).address + g_array_index (r->spaces, Range,
                                                                                  i).size);
  for (guint s = 0; s < gml_snapshot_layout_get_n_segments (layout); s++)
    {
      const GmlSnapshotLayoutSegment *seg = gml_snapshot_layout_get_segment (layout, s);
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
      slot = gml_snapshot_layout_segment_rebuild (seg, r->allocator, r->blocks);
      if (slot < 0)
        continue;
      if (seg->expandable)
        gml_allocator_mark_expandable (r->allocator, slot);
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

/* Whether the engine stopped holding together (a state PyTorch's rules never
 * make, which only a damaged file can bring about): the replay ends there,
 * with the engine's message and the entry. */
static gboolean
engine_broke (Replay *r,
              gsize   index)
{
  g_autoptr(GError) error = NULL;

  if (r->fatal != NULL)
    return TRUE;
  if (r->allocator == NULL || gml_allocator_check (r->allocator, &error))
    return FALSE;
  /* Translators: %lu is the trace entry's index, %s the allocator's message. */
  g_set_error (&r->fatal, error->domain, error->code, _("Trace entry %lu: %s"),
               (gulong) index, error->message);
  return TRUE;
}

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

/* Done with the segment entries PyTorch recorded: the first one the engine
 * did not match, if any is left, is where the two part. */
static void
finish_pending (Replay *r)
{
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
      if (engine_broke (r, r->current))
        return;
    }
  if (r->pos < r->pending->len)
    r->current = g_array_index (r->pending, Pending, r->pos).index;
  finish_pending (r);
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

  ok = gml_allocator_malloc (r->allocator, e->size, e->stream, NULL, GML_CATEGORY_NONE, &id,
                             &error);
  if (engine_broke (r, i))
    return;
  if (e->action == GML_SNAP_ALLOC)
    {
      r->check->allocs++;
      if (ok && id >= 0)
        {
          guint64 address = gml_mem_state_get_block (gml_allocator_get_state (r->allocator),
                                                     id)->address;
          g_autofree char *pytorch = g_strdup_printf ("took the block at 0x%" G_GINT64_MODIFIER "x",
                                                      e->addr);

          if (address == e->addr)
            {
              r->check->allocs_matched++;
              g_hash_table_insert (r->blocks, g_memdup2 (&address, sizeof address),
                                   GINT_TO_POINTER (id + 1));
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
                    address,
                    gml_mem_state_get_block (gml_allocator_get_state (r->allocator), id)->size };
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
          g_autofree char *pytorch = g_strdup_printf ("took the block at 0x%" G_GINT64_MODIFIER "x",
                                                      e->addr);

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
  finish_pending (r);
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
  g_string_append (out,
                   "; small (<= 1 MiB) and large pools; 2 MiB, 20 MiB or 2 MiB-rounded segments; "
                        "best fit per stream and pool, lowest address on ties; should_split(); ");
  if (conf->max_split_size != G_MAXUINT64)
    {
      g_autofree char *max = gml_format_size (conf->max_split_size);

      g_autofree char *rounding = gml_format_size (conf->max_non_split_rounding_size);

      g_string_append_printf (out, "max_split_size %s from allocator_settings, oversize requests "
                                   "rounding up by less than %s (max_non_split_rounding_mb%s); ",
                              max, rounding,
                              conf->max_non_split_rounding_size == GML_LARGE_BUFFER
                              ? "'s default" : " from the settings' text");
    }
  else
    g_string_append (out, "max_split_size unlimited; ");
  g_string_append (out,
                   "the release-and-retry sequence of malloc(); empty_cache() where segments are "
                        "released before a request the cache could serve.");
  if (!s->present)
    g_string_append (out,
                     " The snapshot has no allocator_settings (PyTorch before 2.3): the defaults "
                     "are assumed.");
  if (s->expandable_segments)
    g_string_append (out,
                     " Expandable segments (expandable_segments:True): pages of 2 MiB (small pool) "
                     "or "
                          "20 MiB (large pool) mapped behind one growing segment per pool and "
                          "stream, find_expandable_block() and map_block() as in the source; each "
                          "address space begins where PyTorch's first mapping in it went and "
                          "ends, at most, where the file shows the next reservation of the "
                          "process (or at 1 1/8 of --gpu-memory); one mapped before the trace "
                          "began starts at its lowest range.");
  if (s->garbage_collection_threshold > 0)
    g_string_append (out, " garbage_collection_threshold is set, but it acts only under a memory "
                          "fraction (set_per_process_memory_fraction()), which a snapshot does not "
                          "record: it is left out.");
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
  r.recorded = g_array_new (FALSE, FALSE, sizeof (RecordedSpace));
  r.snap_device = gml_snapshot_timeline_get_device (timeline);
  check->rules = describe_rules (timeline, &r.conf);
  if (r.conf.expandable_segments)
    scan_recorded_spaces (&r, snap);

  /* Made-up segments go above everything the run used. */
  segments = gml_snapshot_get_segments (snap, gml_snapshot_timeline_get_device (timeline),
                                        &n_segments);
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
      if (r.fatal != NULL)
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
            if (r.fatal != NULL)
              break;
            id = engine_block (&r, e->addr);
            if (id < 0)
              {
                diverge (&r, i, "freed a block there", "has no block at 0x%" G_GINT64_MODIFIER "x",
                         e->addr);
                resync (&r, i + 1);
                break;
              }
            if (e->action == GML_SNAP_FREE_REQUESTED && i + 1 < r.n &&
                r.entries[i + 1].action == GML_SNAP_FREE_COMPLETED &&
                r.entries[i + 1].addr == e->addr)
              {
                /* The usual case: the block goes back to the pool at once. */
                ok = gml_allocator_free (r.allocator, id, NULL);
                i++;
              }
            else if (e->action == GML_SNAP_FREE_REQUESTED)
              ok = gml_allocator_free_requested (r.allocator, id, NULL);
            else
              ok = gml_allocator_free_completed (r.allocator, id, NULL);
            if (engine_broke (&r, i))
              break;
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
  if (r.fatal == NULL)
    settle_pending (&r, r.n);

  r.quiet = TRUE;
  g_clear_pointer (&r.allocator, gml_allocator_destroy);
  gml_device_destroy (&r.device->parent);
  g_hash_table_unref (r.blocks);
  g_hash_table_unref (r.synthetic);
  g_array_unref (r.pending);
  g_array_unref (r.spaces);
  g_array_unref (r.recorded);
  if (r.fatal != NULL)
    {
      gml_snapshot_check_clear (check);
      g_propagate_error (error, r.fatal);
      return FALSE;
    }
  if (error != NULL && *error != NULL)
    {
      gml_snapshot_check_clear (check);
      return FALSE;
    }
  return TRUE;
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

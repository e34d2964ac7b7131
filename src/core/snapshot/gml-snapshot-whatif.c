/* gml-snapshot-whatif.c — a real run's trace replayed under other allocator
 * settings and GPU sizes.
 *
 * What is the program's and what is the allocator's, in a snapshot's trace:
 *
 * - alloc, free_requested, free_completed: the program's requests, in its
 *   order. Replayed as they are, whatever the settings: each alloc entry is a
 *   request of its size on its stream, and its address names the tensor until
 *   the free that names it again.
 * - segment_alloc, segment_free, segment_map, segment_unmap, oom: the
 *   allocator's answers. Not replayed: the engine gives its own. But one of
 *   them is the program's: a run of segment_free that no out of memory
 *   explains is empty_cache(). The run as recorded finds those where the
 *   check does (gml-snapshot-check.c: a release before a request the cache
 *   could serve, or before anything but a request), and the other runs call
 *   empty_cache() at the same entries.
 * - oom: the request that failed is replayed like an alloc; where it succeeds
 *   now, its tensor lives to the end of the trace, since the recorded program
 *   never freed what it never got.
 *
 * The device under the replay is a GPU of the size given, counting each
 * segment and each mapped page against it, and giving a segment the address
 * PyTorch got for one of that size when that address is free (so that ties
 * between equal blocks fall as they did), else one above everything the file
 * shows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot"

#include "config.h"

#include <math.h>
#include <string.h>

#include "gml-i18n.h"

#include "gml-allocator.h"
#include "gml-snapshot-whatif.h"

#define PAGE          (G_GUINT64_CONSTANT (2) << 20)
/* "Unbounded": a GPU no trace fills, small enough for 1 1/8 of it to be
 * reserved many times over in 64 bits of address space. */
#define UNBOUNDED     (G_GUINT64_CONSTANT (1) << 50)

typedef struct
{
  GmlDevice   parent;
  guint64     capacity;
  GHashTable *live;           /* address → size: segments from alloc() */
  GHashTable *recorded;       /* size → GQueue of addresses PyTorch got a segment of that size at */
  guint64     next;           /* where a made-up segment goes */
  guint64     next_reserve;   /* where a made-up address space goes */
} WhatIfDevice;

struct _GmlWhatIf
{
  GmlSnapshotTimeline    *timeline;
  const GmlSnapshotEntry *entries;
  gsize                   n;
  GmlAllocConf            recorded_conf;
  char                   *recorded_text;
  GmlSnapshotLayout      *start;        /* the state at entry 0 */
  guint64                 start_reserved;
  guint64                 highest;      /* above every address the file shows */
  GArray                 *empty_caches; /* gsize: entries before which empty_cache() ran */
  gboolean                have_empty_caches;
};

/* ------------------------------------------------------------------------- */
/* The device                                                                */

static gboolean
no_room (WhatIfDevice  *self,
         guint64        size,
         GError       **error)
{
  g_autofree char *want = gml_format_size (size);
  g_autofree char *have = gml_format_size (self->parent.in_use);
  g_autofree char *total = gml_format_size (self->capacity);

  /* Translators: sizes; the GPU is the one a what-if replays on. */
  g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY,
               _("The GPU of the replay has no room for %s more (%s of %s in use)."),
               want, have, total);
  return FALSE;
}

static gboolean
whatif_alloc (GmlDevice  *device,
              guint64     size,
              guint64    *address,
              GError    **error)
{
  WhatIfDevice *self = (WhatIfDevice *) device;
  GQueue *queue = g_hash_table_lookup (self->recorded, &size);
  guint64 pages = (size + PAGE - 1) / PAGE * PAGE;

  if (pages > self->capacity || device->in_use > self->capacity - pages)
    return no_room (self, pages, error);
  *address = 0;
  /* PyTorch's address for a segment of that size, the first of them not in use. */
  for (GList *l = queue != NULL ? queue->head : NULL; l != NULL; l = l->next)
    {
      guint64 candidate = *(guint64 *) l->data;

      if (!g_hash_table_contains (self->live, &candidate))
        {
          *address = candidate;
          break;
        }
    }
  if (*address == 0)
    {
      *address = self->next;
      self->next += pages;
    }
  g_hash_table_insert (self->live, g_memdup2 (address, sizeof *address),
                       g_memdup2 (&pages, sizeof pages));
  device->in_use += pages;
  device->n_live++;
  return TRUE;
}

static gboolean
whatif_free (GmlDevice  *device,
             guint64     address,
             GError    **error)
{
  WhatIfDevice *self = (WhatIfDevice *) device;
  guint64 *size = g_hash_table_lookup (self->live, &address);

  if (size == NULL)
    {
      g_set_error (error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_INVALID,
                   "no segment of the replay starts at 0x%" G_GINT64_MODIFIER "x", address);
      return FALSE;
    }
  device->in_use -= MIN (*size, device->in_use);
  device->n_live--;
  g_hash_table_remove (self->live, &address);
  return TRUE;
}

static gboolean
whatif_mem_get_info (GmlDevice  *device,
                     guint64    *free_bytes,
                     guint64    *total_bytes,
                     GError    **error)
{
  WhatIfDevice *self = (WhatIfDevice *) device;

  *total_bytes = self->capacity;
  *free_bytes = device->in_use >= self->capacity ? 0 : self->capacity - device->in_use;
  return TRUE;
}

static gboolean
whatif_reserve (GmlDevice  *device,
                guint64    *size,
                guint64    *address,
                GError    **error)
{
  WhatIfDevice *self = (WhatIfDevice *) device;

  /* Address space costs no memory; one space never touches the next. */
  *address = self->next_reserve;
  self->next_reserve += (*size + PAGE - 1) / PAGE * PAGE + PAGE;
  return TRUE;
}

static void
whatif_unreserve (GmlDevice *device,
                  guint64    address)
{
}

static gboolean
whatif_map (GmlDevice  *device,
            guint64     address,
            guint64     size,
            GError    **error)
{
  WhatIfDevice *self = (WhatIfDevice *) device;

  if (size > self->capacity || device->in_use > self->capacity - size)
    return no_room (self, size, error);
  device->in_use += size;
  return TRUE;
}

static void
whatif_unmap (GmlDevice *device,
              guint64    address,
              guint64    size)
{
  device->in_use -= MIN (size, device->in_use);
}

static void
whatif_destroy (GmlDevice *device)
{
  WhatIfDevice *self = (WhatIfDevice *) device;

  g_hash_table_unref (self->live);
  g_hash_table_unref (self->recorded);
  g_free (device->name);
  g_free (self);
}

static const GmlDeviceClass whatif_class = {
  .id = "what-if",
  .destroy = whatif_destroy,
  .alloc = whatif_alloc,
  .free = whatif_free,
  .mem_get_info = whatif_mem_get_info,
  .reserve = whatif_reserve,
  .unreserve = whatif_unreserve,
  .map = whatif_map,
  .unmap = whatif_unmap,
};

static void
queue_free (gpointer data)
{
  g_queue_free_full (data, g_free);
}

static WhatIfDevice *
whatif_device_new (GmlWhatIf *w,
                   guint64    capacity)
{
  WhatIfDevice *self = g_new0 (WhatIfDevice, 1);

  self->parent.klass = &whatif_class;
  g_atomic_ref_count_init (&self->parent.ref_count);
  self->parent.name = g_strdup ("what-if");
  self->capacity = capacity;
  self->live = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->recorded = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, queue_free);
  self->next =
      (w->highest + (G_GUINT64_CONSTANT (1) << 30)) & ~((G_GUINT64_CONSTANT (1) << 30) - 1);
  self->next_reserve = self->next + (G_GUINT64_CONSTANT (1) << 52);
  for (gsize i = 0; i < w->n; i++)
    if (w->entries[i].action == GML_SNAP_SEGMENT_ALLOC)
      {
        guint64 size = w->entries[i].size;
        GQueue *queue = g_hash_table_lookup (self->recorded, &size);
        gboolean seen = FALSE;

        if (queue == NULL)
          {
            queue = g_queue_new ();
            g_hash_table_insert (self->recorded, g_memdup2 (&size, sizeof size), queue);
          }
        for (GList *l = queue->head; l != NULL && !seen; l = l->next)
          seen = *(guint64 *) l->data == w->entries[i].addr;
        if (!seen)
          g_queue_push_tail (queue, g_memdup2 (&w->entries[i].addr, sizeof (guint64)));
      }
  return self;
}

/* A segment the trace starts with: the allocator holds it, and gives it back
 * to the device like any other. */
static void
whatif_device_adopt (WhatIfDevice *self,
                     guint64       address,
                     guint64       size)
{
  g_hash_table_insert (self->live, g_memdup2 (&address, sizeof address),
                       g_memdup2 (&size, sizeof size));
  self->parent.in_use += size;
  self->parent.n_live++;
}

/* ------------------------------------------------------------------------- */
/* Preparing                                                                 */

GmlWhatIf *
gml_what_if_new (GmlSnapshotTimeline  *timeline,
                 GError              **error)
{
  g_autoptr(GmlWhatIf) self = g_new0 (GmlWhatIf, 1);
  GmlSnapshot *snap = gml_snapshot_timeline_get_snapshot (timeline);
  const GmlSnapshotSettings *settings = gml_snapshot_get_settings (snap);
  guint device = gml_snapshot_timeline_get_device (timeline);
  const GmlSnapshotSegment *segments;
  gsize n_segments;

  self->timeline = timeline;
  self->entries = gml_snapshot_get_entries (snap, device, &self->n);
  gml_snapshot_settings_to_conf (settings, &self->recorded_conf);
  self->recorded_text = g_strdup (settings->alloc_conf != NULL ? settings->alloc_conf : "");
  self->empty_caches = g_array_new (FALSE, FALSE, sizeof (gsize));
  self->start = gml_snapshot_layout_new ();
  gml_snapshot_timeline_layout_at (timeline, 0, self->start);

  for (guint s = 0; s < gml_snapshot_layout_get_n_segments (self->start); s++)
    {
      const GmlSnapshotLayoutSegment *seg = gml_snapshot_layout_get_segment (self->start, s);

      if (seg->expandable)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("The trace begins with expandable segments already mapped: "
                                 "their address spaces cannot be rebuilt for a replay."));
          return NULL;
        }
      self->start_reserved += seg->size;
      self->highest = MAX (self->highest, seg->address + seg->size);
    }
  segments = gml_snapshot_get_segments (snap, device, &n_segments);
  for (gsize s = 0; s < n_segments; s++)
    self->highest = MAX (self->highest, segments[s].address + segments[s].total_size);
  for (gsize i = 0; i < self->n; i++)
    if (self->entries[i].action != GML_SNAP_OOM)
      self->highest = MAX (self->highest, MIN (self->entries[i].addr, G_MAXUINT64 / 4) +
                                          MIN (self->entries[i].size, G_MAXUINT64 / 4));
  return g_steal_pointer (&self);
}

void
gml_what_if_free (GmlWhatIf *self)
{
  if (self == NULL)
    return;
  g_free (self->recorded_text);
  g_clear_pointer (&self->start, gml_snapshot_layout_free);
  g_array_unref (self->empty_caches);
  g_free (self);
}

const char *
gml_what_if_get_recorded_text (GmlWhatIf *self)
{
  return self->recorded_text;
}

const GmlAllocConf *
gml_what_if_get_recorded_conf (GmlWhatIf *self)
{
  return &self->recorded_conf;
}

guint64
gml_what_if_get_initial_reserved (GmlWhatIf *self)
{
  return self->start_reserved;
}

const gsize *
gml_what_if_get_empty_caches (GmlWhatIf *self,
                              guint     *n)
{
  *n = self->have_empty_caches ? self->empty_caches->len : 0;
  return *n > 0 ? (const gsize *) (gpointer) self->empty_caches->data : NULL;
}

guint64
gml_what_if_infer_gpu_memory (GmlWhatIf          *self,
                              GmlWhatIfGpuSource *source,
                              gsize              *index)
{
  gboolean releases = FALSE;
  gsize retry = G_MAXSIZE;

  if (gml_snapshot_timeline_get_n_ooms (self->timeline) > 0)
    {
      const GmlSnapshotOom *oom = gml_snapshot_timeline_get_oom (self->timeline, 0);

      if (source != NULL)
        *source = GML_WHAT_IF_GPU_FROM_OOM;
      if (index != NULL)
        *index = oom->index;
      /* malloc() gave up with this much reserved, and the GPU had device_free
       * left: the memory its allocator could have had. */
      return oom->stats.reserved_bytes + oom->device_free;
    }

  /* A retry: segments given back, then a segment got. Every segment PyTorch got
   * fitted beside what it held, so the GPU had at least the peak; the one it
   * asked for before the retry did not, so it had less than that ask, which
   * was above the peak. The peak is then a GPU on which the same requests
   * succeed and fail. */
  for (gsize i = 0; i < self->n; i++)
    {
      guint8 action = self->entries[i].action;

      if (action == GML_SNAP_SEGMENT_FREE || action == GML_SNAP_SEGMENT_UNMAP)
        releases = TRUE;
      else if (action == GML_SNAP_SEGMENT_ALLOC || action == GML_SNAP_SEGMENT_MAP)
        {
          if (releases && retry == G_MAXSIZE)
            retry = i;
          releases = FALSE;
        }
      else if (action != GML_SNAP_SNAPSHOT && action != GML_SNAP_OTHER)
        releases = FALSE;
    }
  if (retry == G_MAXSIZE)
    {
      if (source != NULL)
        *source = GML_WHAT_IF_GPU_UNBOUNDED;
      return 0;
    }
  if (source != NULL)
    *source = GML_WHAT_IF_GPU_FROM_RETRY;
  if (index != NULL)
    *index = retry;
  return gml_snapshot_timeline_get_peak_reserved (self->timeline);
}

/* ------------------------------------------------------------------------- */
/* One replay                                                                */

typedef struct
{
  GmlWhatIf    *w;
  GmlAllocator *allocator;
  GHashTable   *blocks;        /* recorded address → engine block id + 1 */
  GmlWhatIfRun *out;
  gboolean      finding;       /* the run as recorded: finds where empty_cache() was called */
  guint         next_empty;    /* the next of w->empty_caches to call */
  gboolean      releases;      /* segment_free / segment_unmap since the last request */
  gboolean      growth;        /* segment_alloc / segment_map since the last request */
} Run;

static void
note_peak (Run *r)
{
  const GmlStats *stats = gml_allocator_get_stats (r->allocator);
  guint64 reserved = (guint64) MAX (stats->reserved_bytes[GML_STAT_ALL].current, 0);
  guint64 allocated = (guint64) MAX (stats->allocated_bytes[GML_STAT_ALL].current, 0);

  r->out->peak_allocated = MAX (r->out->peak_allocated, allocated);
  if (reserved > r->out->peak_reserved)
    {
      const GmlMemState *state = gml_allocator_get_state (r->allocator);
      guint64 active = (guint64) MAX (stats->active_bytes[GML_STAT_ALL].current, 0);
      guint64 cached = reserved > active ? reserved - active : 0;
      guint64 largest = gml_mem_state_get_largest_free_block (state);

      r->out->peak_reserved = reserved;
      r->out->segments_at_peak = gml_mem_state_get_n_segments (state);
      r->out->fragmentation_at_peak = cached > 0 ? 1.0 - (double) MIN (largest,
                                                                       cached) / (double) cached
                                                 : 0.0;
    }
}

static void
empty_cache_at (Run   *r,
                gsize  index)
{
  if (r->finding)
    g_array_append_val (r->w->empty_caches, index);
  gml_allocator_empty_cache (r->allocator);
}

/* The recorded program's releases since its last request, seen at entry
 * @index: before a request the cache can serve (@size, @stream), or before
 * anything but a request (@size 0), a run of them with no growth was
 * empty_cache(); before a request it cannot serve, malloc()'s own retry. */
static void
settle_releases (Run     *r,
                 gsize    index,
                 guint64  size,
                 guint32  stream)
{
  if (r->finding && r->releases && !r->growth &&
      (size == 0 || gml_allocator_would_reuse (r->allocator, size, stream)))
    empty_cache_at (r, index);
  r->releases = FALSE;
  r->growth = FALSE;
}

static void
request (Run                    *r,
         gsize                   index,
         const GmlSnapshotEntry *e)
{
  g_autoptr(GError) error = NULL;
  gint32 id = -1;

  settle_releases (r, index, MAX (e->size, 1), e->stream);
  if (gml_allocator_malloc (r->allocator, e->size, e->stream, NULL, GML_CATEGORY_NONE, &id, &error))
    {
      /* The tensor is named by the address PyTorch gave it (an oom's never frees). */
      if (id >= 0 && e->action == GML_SNAP_ALLOC)
        g_hash_table_insert (r->blocks, g_memdup2 (&e->addr, sizeof e->addr),
                             GINT_TO_POINTER (id + 1));
      return;
    }
  if (!r->out->has_first_oom)
    {
      r->out->has_first_oom = TRUE;
      r->out->first_oom_index = index;
    }
  r->out->ooms++;
}

static void
release (Run                    *r,
         gsize                  *i)
{
  const GmlSnapshotEntry *e = &r->w->entries[*i];
  gint32 id = GPOINTER_TO_INT (g_hash_table_lookup (r->blocks, &e->addr)) - 1;

  settle_releases (r, *i, 0, 0);
  /* A tensor the replay never got (an out of memory here) has nothing to free. */
  if (id < 0)
    return;
  if (e->action == GML_SNAP_FREE_REQUESTED && *i + 1 < r->w->n &&
      r->w->entries[*i + 1].action == GML_SNAP_FREE_COMPLETED &&
      r->w->entries[*i + 1].addr == e->addr)
    {
      gml_allocator_free (r->allocator, id, NULL);
      g_hash_table_remove (r->blocks, &e->addr);
      (*i)++;
    }
  else if (e->action == GML_SNAP_FREE_REQUESTED)
    gml_allocator_free_requested (r->allocator, id, NULL);
  else
    {
      gml_allocator_free_completed (r->allocator, id, NULL);
      g_hash_table_remove (r->blocks, &e->addr);
    }
}

static gboolean
build_start (Run           *r,
             WhatIfDevice  *device,
             GError       **error)
{
  GmlSnapshotLayout *start = r->w->start;

  for (guint s = 0; s < gml_snapshot_layout_get_n_segments (start); s++)
    {
      const GmlSnapshotLayoutSegment *seg = gml_snapshot_layout_get_segment (start, s);
      gint32 slot;

      slot = gml_snapshot_layout_segment_rebuild (seg, r->allocator, r->blocks);
      if (slot < 0)
        {
          g_autofree char *where = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", seg->address);

          /* Translators: %s is an address. */
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("The state at the trace’s first entry cannot be rebuilt: the segment at "
                         "%s overlaps another."), where);
          return FALSE;
        }
      whatif_device_adopt (device, seg->address, seg->size);
    }
  return TRUE;
}

gboolean
gml_what_if_run (GmlWhatIf           *self,
                 const GmlAllocConf  *conf,
                 const char          *conf_text,
                 guint64              gpu_memory,
                 gboolean             keep_timeline,
                 GmlWhatIfRun        *out,
                 GCancellable        *cancellable,
                 GError             **error)
{
  WhatIfDevice *device;
  Run r = { 0 };
  g_autoptr(GError) broke = NULL;
  guint64 capacity = gpu_memory > 0 ? gpu_memory : UNBOUNDED;
  gboolean ok = TRUE;

  g_return_val_if_fail (self != NULL && out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  out->as_recorded = conf == NULL;
  out->alloc_conf = g_strdup (conf == NULL ? self->recorded_text : conf_text != NULL ? conf_text
                                                                                     : "");
  out->gpu_memory = gpu_memory;
  if (capacity < self->start_reserved)
    {
      g_autofree char *gpu = gml_format_size (capacity);
      g_autofree char *start = gml_format_size (self->start_reserved);

      /* Translators: sizes. */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("A %s GPU is smaller than the %s the trace begins with reserved."), gpu,
                   start);
      gml_what_if_run_clear (out);
      return FALSE;
    }
  /* The other runs call empty_cache() where the recorded program did, which the
   * run as recorded, on a GPU large enough, finds first. */
  if ((conf != NULL || gpu_memory > 0) && !self->have_empty_caches)
    {
      GmlWhatIfRun recorded;

      if (!gml_what_if_run (self, NULL, NULL, 0, FALSE, &recorded, cancellable, error))
        {
          gml_what_if_run_clear (out);
          return FALSE;
        }
      gml_what_if_run_clear (&recorded);
    }

  r.w = self;
  r.out = out;
  r.finding = conf == NULL && !self->have_empty_caches;
  if (r.finding)
    g_array_set_size (self->empty_caches, 0);
  device = whatif_device_new (self, capacity);
  r.allocator = gml_allocator_new (&device->parent, conf != NULL ? conf : &self->recorded_conf);
  gml_allocator_set_keep_trace (r.allocator, FALSE);
  r.blocks = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  if (keep_timeline)
    {
      out->reserved = g_array_sized_new (FALSE, FALSE, sizeof (guint64), self->n + 1);
      g_array_set_size (out->reserved, self->n + 1);
    }

  if (!build_start (&r, device, error))
    ok = FALSE;
  note_peak (&r);
  if (out->reserved != NULL)
    g_array_index (out->reserved, guint64, 0) =
      gml_allocator_get_stats (r.allocator)->reserved_bytes[GML_STAT_ALL].current;

  for (gsize i = 0; ok && i < self->n; i++)
    {
      const GmlSnapshotEntry *e = &self->entries[i];
      gsize first = i;

      if ((i & 0xffff) == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          ok = FALSE;
          break;
        }
      if (!r.finding)
        while (r.next_empty < self->empty_caches->len &&
               g_array_index (self->empty_caches, gsize, r.next_empty) <= i)
          {
            if (g_array_index (self->empty_caches, gsize, r.next_empty) == i)
              gml_allocator_empty_cache (r.allocator);
            r.next_empty++;
          }
      switch ((GmlSnapshotAction) e->action)
        {
        case GML_SNAP_ALLOC:
        case GML_SNAP_OOM:
          request (&r, i, e);
          break;
        case GML_SNAP_FREE_REQUESTED:
        case GML_SNAP_FREE_COMPLETED:
          release (&r, &i);
          break;
        case GML_SNAP_SEGMENT_FREE:
        case GML_SNAP_SEGMENT_UNMAP:
          r.releases = TRUE;
          break;
        case GML_SNAP_SEGMENT_ALLOC:
        case GML_SNAP_SEGMENT_MAP:
          r.growth = TRUE;
          break;
        case GML_SNAP_SNAPSHOT:
        case GML_SNAP_OTHER:
        default:
          break;
        }
      if (!gml_allocator_check (r.allocator, &broke))
        {
          /* Translators: %lu is the trace entry's index, %s the allocator's message. */
          g_set_error (error, broke->domain, broke->code, _("Trace entry %lu: %s"), (gulong) i,
                       broke->message);
          ok = FALSE;
          break;
        }
      note_peak (&r);
      if (out->reserved != NULL)
        for (gsize k = first; k <= i; k++)
          g_array_index (out->reserved, guint64, k + 1) =
            gml_allocator_get_stats (r.allocator)->reserved_bytes[GML_STAT_ALL].current;
    }
  if (ok && r.finding)
    {
      settle_releases (&r, self->n, 0, 0);
      self->have_empty_caches = TRUE;
    }
  out->num_alloc_retries = gml_allocator_get_stats (r.allocator)->num_alloc_retries;

  gml_allocator_destroy (r.allocator);
  gml_device_destroy (&device->parent);
  g_hash_table_unref (r.blocks);
  if (!ok)
    gml_what_if_run_clear (out);
  return ok;
}

gboolean
gml_what_if_smallest_gpu (GmlWhatIf           *self,
                          const GmlAllocConf  *conf,
                          guint64             *bytes,
                          GCancellable        *cancellable,
                          GError             **error)
{
  GmlWhatIfRun run;
  guint64 lo, hi;

  /* Unbounded, the run needs its peak: that much always fits (no request is
   * refused, so every decision is the same), and less than the start never does. */
  if (!gml_what_if_run (self, conf, NULL, 0, FALSE, &run, cancellable, error))
    return FALSE;
  hi = (run.peak_reserved + PAGE - 1) / PAGE;
  gml_what_if_run_clear (&run);
  lo = self->start_reserved / PAGE;
  /* The least number of pages that fits lies in (lo - 1, hi]. */
  if (lo > 0)
    lo--;
  while (hi - lo > 1)
    {
      guint64 mid = lo + (hi - lo) / 2;
      gboolean fits;

      if (mid * PAGE < self->start_reserved)
        {
          lo = mid;
          continue;
        }
      if (!gml_what_if_run (self, conf, NULL, mid * PAGE, FALSE, &run, cancellable, error))
        return FALSE;
      fits = run.ooms == 0;
      gml_what_if_run_clear (&run);
      if (fits)
        hi = mid;
      else
        lo = mid;
    }
  *bytes = MAX (hi, 1) * PAGE;
  return TRUE;
}

void
gml_what_if_run_clear (GmlWhatIfRun *run)
{
  g_clear_pointer (&run->alloc_conf, g_free);
  g_clear_pointer (&run->reserved, g_array_unref);
  memset (run, 0, sizeof *run);
}

/* gml-snapshot-picture.c — a PyTorch memory snapshot at trace entry N, drawn.
 *
 * The memory map, the timeline and the fragmentation gauge are the lab's own
 * pictures, fed with the snapshot's rebuilt state. The active-memory timeline
 * is new: like PyTorch's memory_viz "Active Memory Timeline" it stacks the
 * live allocations over the trace (older ones below), the largest drawn one
 * by one and coloured by where they were allocated, the rest summed in one
 * band on top. It is computed once per size into a pixel buffer (one column
 * per pixel, the state at the entry under it) and only the cursor moves when
 * the learner scrubs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-render"

#include "config.h"

#include <math.h>
#include <string.h>

#include "gml-i18n.h"

#include "gml-render-private.h"
#include "gml-snapshot-picture.h"
#include "gml-snapshot-summary.h"

#define MARGIN 8.0
/* Allocations drawn one by one in the active view; the rest are summed. */
#define ACTIVE_DRAWN 1500

typedef struct
{
  gsize   start;        /* live from N = start … */
  gsize   end;          /* … to N = end − 1 (end = n + 1: still live at the end) */
  guint64 size;
  guint32 frames;
  guint32 label;        /* index into places, or G_MAXUINT32 */
  guint8  kind;         /* GML_SNAP_KIND */
  gboolean drawn;
} Allocation;

typedef struct
{
  char   *label;        /* "forward, model.py:54" */
  guint64 bytes;        /* bytes allocated there over the trace */
} Place;

struct _GmlSnapshotPicture
{
  GmlSnapshotTimeline *timeline;   /* borrowed */
  gsize                at;
  GmlSnapshotLayout   *layout;
  GmlMemState         *state;
  GmlSnapshotStats     stats;
  guint8              *marks;      /* n + 1 */
  guint64              peak_reserved;
  guint64              peak_allocated;
  gsize                peak;       /* the first N with peak_allocated */
  GArray              *spans;      /* GmlTimelineSpan: the device's record_function regions */
  GmlSnapshotTimeline *other;      /* another run to compare with, borrowed; or NULL */
  char                *label;      /* the runs' names in the comparison */
  char                *other_label;
  GmlTimelineReplay    replays[GML_TIMELINE_MAX_REPLAYS];   /* borrowed */
  guint                n_replays;

  /* The active view, built on first use. */
  GArray              *allocations;   /* Allocation, by start */
  GPtrArray           *places;        /* Place *, by bytes, largest first */
  guint64              category_bytes[GML_N_CATEGORIES];   /* allocated over the trace */
  cairo_surface_t     *active_image;
  int                  active_width;
  int                  active_height;
  GmlTheme             active_theme;
  guint                n_summed;
};

static const char * const view_names[GML_N_SNAPSHOT_VIEWS] = {
  "memory-map", "timeline", "active-timeline", "fragmentation",
};

const char *
gml_snapshot_view_to_string (GmlSnapshotView view)
{
  g_return_val_if_fail (view < GML_N_SNAPSHOT_VIEWS, NULL);
  return view_names[view];
}

gboolean
gml_snapshot_view_from_string (const char      *str,
                               GmlSnapshotView *view)
{
  for (guint i = 0; i < GML_N_SNAPSHOT_VIEWS; i++)
    if (g_str_equal (str, view_names[i]))
      {
        *view = i;
        return TRUE;
      }
  return FALSE;
}

const char *
gml_snapshot_view_title (GmlSnapshotView view)
{
  switch (view)
    {
    case GML_SNAPSHOT_VIEW_MEMORY_MAP:
      return _("Memory Map");
    case GML_SNAPSHOT_VIEW_TIMELINE:
      return _("Timeline");
    case GML_SNAPSHOT_VIEW_ACTIVE:
      return _("Active Memory");
    case GML_SNAPSHOT_VIEW_FRAGMENTATION:
      return _("Fragmentation");
    case GML_N_SNAPSHOT_VIEWS:
    default:
      return "";
    }
}

/* The first entry at or after @time_us (entries are in time order). */
static gsize
entry_at_time (const GmlSnapshotEntry *entries,
               gsize                   n,
               gint64                  time_us)
{
  gsize lo = 0, hi = n;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (entries[mid].time_us < time_us)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The record_function regions of the timeline's device as ranges of N: each
 * START paired with the next END of the same name, nested ones a row lower. */
static GArray *
find_spans (GmlSnapshotTimeline *timeline)
{
  GmlSnapshot *snap = gml_snapshot_timeline_get_snapshot (timeline);
  guint device = gml_snapshot_timeline_get_device (timeline);
  GArray *spans = g_array_new (FALSE, FALSE, sizeof (GmlTimelineSpan));
  g_autoptr(GArray) open = g_array_new (FALSE, FALSE, sizeof (GmlSnapshotAnnotation));
  gsize n_annotations, n;
  const GmlSnapshotAnnotation *annotations = gml_snapshot_get_annotations (snap, &n_annotations);
  const GmlSnapshotEntry *entries = gml_snapshot_get_entries (snap, device, &n);

  /* Without times (PyTorch before 2.2) nothing places them on the trace. */
  if (n == 0 || entries[0].time_us == 0)
    return spans;
  for (gsize k = 0; k < n_annotations; k++)
    {
      const GmlSnapshotAnnotation *a = &annotations[k];
      const char *stage = gml_snapshot_get_string (snap, a->stage);

      if (a->device != (gint32) device || stage == NULL)
        continue;
      if (g_str_equal (stage, "START"))
        g_array_append_val (open, *a);
      else if (g_str_equal (stage, "END"))
        for (guint o = open->len; o > 0; o--)
          {
            const GmlSnapshotAnnotation *start = &g_array_index (open, GmlSnapshotAnnotation,
                                                                 o - 1);

            if (start->name == a->name)
              {
                GmlTimelineSpan span = { entry_at_time (entries, n, start->time_us),
                                         entry_at_time (entries, n, a->time_us),
                                         gml_snapshot_get_string (snap, a->name), o - 1 };

                if (span.label == NULL)
                  span.label = "";
                /* Regions outside the trace's window are not drawn. */
                if (span.end > span.start)
                  g_array_append_val (spans, span);
                g_array_remove_index (open, o - 1);
                break;
              }
          }
    }
  return spans;
}

GmlSnapshotPicture *
gml_snapshot_picture_new (GmlSnapshotTimeline *timeline)
{
  GmlSnapshotPicture *self = g_new0 (GmlSnapshotPicture, 1);
  gsize n = gml_snapshot_timeline_get_n_entries (timeline);

  g_return_val_if_fail (gml_snapshot_timeline_get_allocated (timeline) != NULL, NULL);

  self->timeline = timeline;
  self->layout = gml_snapshot_layout_new ();
  self->marks = g_new0 (guint8, n + 1);
  for (guint k = 0; k < gml_snapshot_timeline_get_n_ooms (timeline); k++)
    {
      gsize index = gml_snapshot_timeline_get_oom (timeline, k)->index;

      self->marks[index] |= GML_TIMELINE_MARK_OOM;
    }
  self->peak_reserved = gml_snapshot_timeline_get_peak_reserved (timeline);
  self->peak_allocated = gml_snapshot_timeline_get_peak_allocated (timeline, &self->peak, NULL);
  self->spans = find_spans (timeline);
  gml_snapshot_picture_set_at (self, n);
  return self;
}

void
gml_snapshot_picture_free (GmlSnapshotPicture *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->layout, gml_snapshot_layout_free);
  g_clear_pointer (&self->state, gml_mem_state_free);
  g_clear_pointer (&self->allocations, g_array_unref);
  g_clear_pointer (&self->places, g_ptr_array_unref);
  g_clear_pointer (&self->active_image, cairo_surface_destroy);
  g_clear_pointer (&self->spans, g_array_unref);
  g_free (self->label);
  g_free (self->other_label);
  g_free (self->marks);
  g_free (self);
}

GmlSnapshotTimeline *
gml_snapshot_picture_get_timeline (GmlSnapshotPicture *self)
{
  return self->timeline;
}

void
gml_snapshot_picture_set_at (GmlSnapshotPicture *self,
                             gsize               at)
{
  at = MIN (at, gml_snapshot_timeline_get_n_entries (self->timeline));
  self->at = at;
  gml_snapshot_timeline_layout_at (self->timeline, at, self->layout);
  gml_snapshot_layout_get_stats (self->layout, &self->stats);
  self->stats.at = at;
  g_clear_pointer (&self->state, gml_mem_state_free);
  self->state = gml_snapshot_timeline_mem_state (self->timeline, self->layout);
}

gsize
gml_snapshot_picture_get_at (GmlSnapshotPicture *self)
{
  return self->at;
}

const GmlSnapshotStats *
gml_snapshot_picture_get_stats (GmlSnapshotPicture *self)
{
  return &self->stats;
}

GmlSnapshotLayout *
gml_snapshot_picture_get_layout (GmlSnapshotPicture *self)
{
  return self->layout;
}

const GmlMemState *
gml_snapshot_picture_get_state (GmlSnapshotPicture *self)
{
  return self->state;
}

const GmlSnapshotOom *
gml_snapshot_picture_get_oom_at (GmlSnapshotPicture *self)
{
  for (guint k = 0; k < gml_snapshot_timeline_get_n_ooms (self->timeline); k++)
    {
      const GmlSnapshotOom *oom = gml_snapshot_timeline_get_oom (self->timeline, k);

      /* The oom entry changes nothing: N = index and N = index + 1 show it. */
      if (oom->index == self->at || oom->index + 1 == self->at)
        return oom;
    }
  return NULL;
}

gsize
gml_snapshot_picture_get_peak (GmlSnapshotPicture *self)
{
  return self->peak;
}

const GmlSnapshotLayoutBlock *
gml_snapshot_picture_get_largest_block (GmlSnapshotPicture *self)
{
  const GmlSnapshotLayoutBlock *largest = NULL;

  for (guint s = 0; s < gml_snapshot_layout_get_n_segments (self->layout); s++)
    {
      const GmlSnapshotLayoutSegment *seg = gml_snapshot_layout_get_segment (self->layout, s);

      for (guint i = 0; i < seg->blocks->len; i++)
        {
          const GmlSnapshotLayoutBlock *b = &g_array_index (seg->blocks, GmlSnapshotLayoutBlock, i);

          if (b->state == GML_SNAP_BLOCK_ALLOCATED && (largest == NULL || b->size > largest->size))
            largest = b;
        }
    }
  return largest;
}

void
gml_snapshot_picture_set_compare (GmlSnapshotPicture  *self,
                                  GmlSnapshotTimeline *other,
                                  const char          *label,
                                  const char          *other_label)
{
  self->other = other;
  g_free (self->label);
  g_free (self->other_label);
  self->label = g_strdup (label);
  self->other_label = g_strdup (other_label);
}

GmlSnapshotTimeline *
gml_snapshot_picture_get_compare (GmlSnapshotPicture *self)
{
  return self->other;
}

void
gml_snapshot_picture_set_empty_caches (GmlSnapshotPicture *self,
                                       const gsize        *entries,
                                       guint               n)
{
  gsize n_points = gml_snapshot_timeline_get_n_entries (self->timeline) + 1;

  for (gsize i = 0; i < n_points; i++)
    self->marks[i] &= (guint8) ~GML_TIMELINE_MARK_EMPTY_CACHE;
  for (guint k = 0; entries != NULL && k < n; k++)
    if (entries[k] < n_points)
      self->marks[entries[k]] |= GML_TIMELINE_MARK_EMPTY_CACHE;
}

void
gml_snapshot_picture_set_replays (GmlSnapshotPicture      *self,
                                  const GmlTimelineReplay *replays,
                                  guint                    n_replays)
{
  self->n_replays = MIN (n_replays, GML_TIMELINE_MAX_REPLAYS);
  if (self->n_replays > 0)
    memcpy (self->replays, replays, self->n_replays * sizeof *replays);
}

const GmlTimelineSpan *
gml_snapshot_picture_get_spans (GmlSnapshotPicture *self,
                                guint              *n_spans)
{
  *n_spans = self->spans->len;
  return (const GmlTimelineSpan *) self->spans->data;
}

/* ------------------------------------------------------------------------- */
/* Data for the lab's views                                                  */

static void
map_data (GmlSnapshotPicture *self,
          GmlMemoryMapData   *data)
{
  const GmlSnapshotOom *oom = gml_snapshot_picture_get_oom_at (self);

  memset (data, 0, sizeof *data);
  data->state = self->state;
  /* The largest reserved over the trace, so the scale stays put while scrubbing. */
  data->capacity = MAX (self->peak_reserved, 1);
  data->device_name = _("Snapshot");
  data->by_size = FALSE;
  data->highlight = GML_CATEGORY_NONE;
  data->failed_request = oom ? oom->size : 0;
  /* Categories the snapshot does not record, inferred (gml-snapshot-category.c). */
  data->inferred = TRUE;
  data->capacity_is_peak = TRUE;
}

/* The trace's entries, and whether they carry times (PyTorch 2.2 and later). */
static const GmlSnapshotEntry *
picture_entries (GmlSnapshotPicture *self,
                 gsize              *n)
{
  GmlSnapshot *snap = gml_snapshot_timeline_get_snapshot (self->timeline);

  return gml_snapshot_get_entries (snap, gml_snapshot_timeline_get_device (self->timeline), n);
}

static gboolean
has_times (GmlSnapshotPicture *self)
{
  gsize n;
  const GmlSnapshotEntry *entries = picture_entries (self, &n);

  return n > 0 && entries[0].time_us != 0;
}

/* Timeline point N is the state after N entries: its time is the last of them
 * (point 0, before any, is the first entry's). */
static gint64
point_time_us (gsize         point,
               gconstpointer user_data)
{
  gsize n;
  const GmlSnapshotEntry *entries = picture_entries ((GmlSnapshotPicture *) user_data, &n);

  return entries[MIN (point > 0 ? point - 1 : 0, n - 1)].time_us;
}

/* Entry e of the active view, drawn at e / n of its width. */
static gint64
entry_time_us (gsize         entry,
               gconstpointer user_data)
{
  gsize n;
  const GmlSnapshotEntry *entries = picture_entries ((GmlSnapshotPicture *) user_data, &n);

  return entries[MIN (entry, n - 1)].time_us;
}

static void
timeline_data (GmlSnapshotPicture *self,
               GmlTimelineData    *data)
{
  memset (data, 0, sizeof *data);
  data->n_points = gml_snapshot_timeline_get_n_entries (self->timeline) + 1;
  data->allocated = gml_snapshot_timeline_get_allocated (self->timeline);
  data->reserved = gml_snapshot_timeline_get_reserved (self->timeline);
  data->marks = self->marks;
  data->cursor = self->at;
  data->capacity = 0;
  data->highlight = gml_snapshot_picture_get_oom_at (self) != NULL;
  data->trace_entries = TRUE;
  if (has_times (self))
    {
      data->point_time_us = point_time_us;
      data->point_time_data = self;
    }
  data->show_peak = TRUE;
  data->peak = self->peak;
  data->spans = (const GmlTimelineSpan *) self->spans->data;
  data->n_spans = self->spans->len;
  if (self->other != NULL)
    {
      data->other_allocated = gml_snapshot_timeline_get_allocated (self->other);
      data->other_reserved = gml_snapshot_timeline_get_reserved (self->other);
      data->other_n_points = gml_snapshot_timeline_get_n_entries (self->other) + 1;
      data->label = self->label;
      data->other_label = self->other_label;
    }
  data->replays = self->replays;
  data->n_replays = self->n_replays;
}

static void
fragmentation_data (GmlSnapshotPicture   *self,
                    GmlFragmentationData *data)
{
  const GmlSnapshotOom *oom = gml_snapshot_picture_get_oom_at (self);

  memset (data, 0, sizeof *data);
  data->state = self->state;
  /* Only an OOM entry records what the GPU had left. */
  data->device_free = oom ? oom->device_free : 0;
  data->device_free_unknown = oom == NULL;
  data->request = oom ? oom->size : 0;
  data->request_failed = oom != NULL;
}

/* ------------------------------------------------------------------------- */
/* The active-memory timeline                                                */

static int
place_by_bytes (gconstpointer a,
                gconstpointer b)
{
  const Place *x = *(const Place **) a, *y = *(const Place **) b;

  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return g_strcmp0 (x->label, y->label);
}

static void
place_free (gpointer data)
{
  Place *p = data;

  g_free (p->label);
  g_free (p);
}

typedef struct
{
  guint64 size;
  guint   index;
} BySize;

static int
by_size_desc (gconstpointer a,
              gconstpointer b)
{
  const BySize *x = a, *y = b;

  if (x->size != y->size)
    return x->size > y->size ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}

/* Every allocation of the trace (and those live at its start) with when it
 * lived, its size and where it was allocated. */
static void
ensure_allocations (GmlSnapshotPicture *self)
{
  GmlSnapshot *snap = gml_snapshot_timeline_get_snapshot (self->timeline);
  gsize n;
  int device = gml_snapshot_timeline_get_device (self->timeline);
  const GmlSnapshotEntry *entries = gml_snapshot_get_entries (snap, device, &n);
  g_autoptr(GmlSnapshotLayout) start = gml_snapshot_layout_new ();
  g_autoptr(GHashTable) open = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GHashTable) place_ids = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) order = NULL;
  GArray *allocs;

  if (self->allocations != NULL)
    return;
  allocs = self->allocations = g_array_new (FALSE, FALSE, sizeof (Allocation));
  self->places = g_ptr_array_new_with_free_func (place_free);

  /* Live at N = 0, in address order. The hash table maps an address to the
   * open allocation there (index + 1); keys live in a stable array. */
  g_array_set_size (keys, 0);
  gml_snapshot_timeline_layout_at (self->timeline, 0, start);
  {
    guint n_live = 0;

    for (guint s = 0; s < gml_snapshot_layout_get_n_segments (start); s++)
      n_live += gml_snapshot_layout_get_segment (start, s)->blocks->len;
    g_array_set_size (keys, n_live + n);
    n_live = 0;
    for (guint s = 0; s < gml_snapshot_layout_get_n_segments (start); s++)
      {
        const GmlSnapshotLayoutSegment *seg = gml_snapshot_layout_get_segment (start, s);

        for (guint i = 0; i < seg->blocks->len; i++)
          {
            const GmlSnapshotLayoutBlock *b = &g_array_index (seg->blocks, GmlSnapshotLayoutBlock,
                                                              i);
            Allocation a = { 0, n + 1, b->size, b->frames, G_MAXUINT32, b->kind, FALSE };

            if (b->state != GML_SNAP_BLOCK_ALLOCATED)
              continue;
            g_array_append_val (allocs, a);
            g_array_index (keys, guint64, n_live) = b->address;
            g_hash_table_insert (open, &g_array_index (keys, guint64, n_live),
                                 GUINT_TO_POINTER (allocs->len));
            n_live++;
          }
      }
    for (gsize i = 0; i < n; i++)
      {
        const GmlSnapshotEntry *e = &entries[i];

        if (e->action == GML_SNAP_ALLOC)
          {
            Allocation a = { i + 1, n + 1, 0, e->frames, G_MAXUINT32,
                             gml_snapshot_timeline_get_kind (self->timeline, i), FALSE };

            a.size = gml_snapshot_timeline_get_block_size (self->timeline, i, NULL);
            if (a.size == 0)
              continue;
            g_array_append_val (allocs, a);
            g_array_index (keys, guint64, n_live + i) = e->addr;
            g_hash_table_insert (open, &g_array_index (keys, guint64, n_live + i),
                                 GUINT_TO_POINTER (allocs->len));
          }
        else if (e->action == GML_SNAP_FREE_REQUESTED)
          {
            guint64 addr = e->addr;
            gpointer index;

            if (g_hash_table_steal_extended (open, &addr, NULL, &index))
              g_array_index (allocs, Allocation, GPOINTER_TO_UINT (index) - 1).end = i + 1;
          }
      }
  }

  /* Where each was allocated, and the places by bytes. */
  for (guint k = 0; k < allocs->len; k++)
    {
      Allocation *a = &g_array_index (allocs, Allocation, k);
      g_autofree char *label = gml_snapshot_describe_frames (snap, a->frames);
      gpointer id;
      Place *place;

      if (label == NULL)
        label = g_strdup (_("no stack recorded"));
      if (!g_hash_table_lookup_extended (place_ids, label, NULL, &id))
        {
          place = g_new0 (Place, 1);
          place->label = g_steal_pointer (&label);
          g_ptr_array_add (self->places, place);
          id = GUINT_TO_POINTER (self->places->len - 1);
          g_hash_table_insert (place_ids, place->label, id);
        }
      place = g_ptr_array_index (self->places, GPOINTER_TO_UINT (id));
      place->bytes += a->size;
      self->category_bytes[MIN (gml_snapshot_kind_category (a->kind),
                                GML_N_CATEGORIES - 1)] += a->size;
      a->label = GPOINTER_TO_UINT (id);
    }
  /* Colours go to the places with the most bytes; renumber. */
  {
    g_autoptr(GPtrArray) sorted = g_ptr_array_copy (self->places, NULL, NULL);
    g_autofree guint *rank = g_new (guint, MAX (self->places->len, 1));

    g_ptr_array_sort (sorted, place_by_bytes);
    for (guint r = 0; r < sorted->len; r++)
      for (guint p = 0; p < self->places->len; p++)
        if (g_ptr_array_index (self->places, p) == g_ptr_array_index (sorted, r))
          {
            rank[p] = r;
            break;
          }
    for (guint k = 0; k < allocs->len; k++)
      g_array_index (allocs, Allocation,
                     k).label = rank[g_array_index (allocs, Allocation, k).label];
    g_ptr_array_set_free_func (self->places, NULL);
    g_ptr_array_unref (self->places);
    self->places = g_ptr_array_ref (sorted);
    g_ptr_array_set_free_func (self->places, place_free);
  }

  /* The largest are drawn one by one. */
  order = g_array_sized_new (FALSE, FALSE, sizeof (BySize), allocs->len);
  for (guint k = 0; k < allocs->len; k++)
    {
      BySize b = { g_array_index (allocs, Allocation, k).size, k };

      g_array_append_val (order, b);
    }
  g_array_sort (order, by_size_desc);
  for (guint k = 0; k < order->len && k < ACTIVE_DRAWN; k++)
    g_array_index (allocs, Allocation, g_array_index (order, BySize, k).index).drawn = TRUE;
  self->n_summed = allocs->len > ACTIVE_DRAWN ? allocs->len - ACTIVE_DRAWN : 0;
}

void
gml_snapshot_picture_prepare (GmlSnapshotPicture *self)
{
  ensure_allocations (self);
}

static guint32
to_argb (const GmlColor *c,
         double          shade)
{
  guint r = (guint) CLAMP (c->red * shade * 255.0 + 0.5, 0, 255);
  guint g = (guint) CLAMP (c->green * shade * 255.0 + 0.5, 0, 255);
  guint b = (guint) CLAMP (c->blue * shade * 255.0 + 0.5, 0, 255);

  return 0xff000000u | (r << 16) | (g << 8) | b;
}

/* The plot, then the axis' ticks under it and the legend under them. */
static void
active_layout (GmlSnapshotPicture   *self,
               const GmlRenderStyle *style,
               int                   width,
               int                   height,
               GmlRect              *plot)
{
  double lh = ceil (style->font_size * 1.45);

  plot->x = MARGIN + 7 * style->font_size;
  plot->y = MARGIN + lh;
  plot->width = MAX (width - plot->x - MARGIN, 1);
  plot->height = MAX (height - plot->y - MARGIN - 3 * lh
                      - _gml_axis_ticks_height (style, has_times (self)), 1);
}

/* One column per pixel: the live allocations at the entry under it, stacked
 * in the order they were made; a band's edges are rounded to whole pixels
 * from the running sum, so bands never overlap nor leave gaps. */
static void
ensure_active_image (GmlSnapshotPicture   *self,
                     const GmlRenderStyle *style,
                     int                   width,
                     int                   height)
{
  gsize n = gml_snapshot_timeline_get_n_entries (self->timeline);
  GArray *allocs;
  g_autoptr(GArray) live = NULL;   /* guint: indices of drawn live allocations, by start */
  guint32 *pixels;
  int stride;
  guint next = 0;
  guint64 top = MAX (self->peak_allocated, 1);
  guint32 summed_argb[2], colors[GML_N_CATEGORIES * 2];

  if (self->active_image != NULL && self->active_width == width && self->active_height == height &&
      self->active_theme == style->theme)
    return;
  g_clear_pointer (&self->active_image, cairo_surface_destroy);
  ensure_allocations (self);
  allocs = self->allocations;

  self->active_image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, MAX (width, 1),
                                                   MAX (height, 1));
  self->active_width = width;
  self->active_height = height;
  self->active_theme = style->theme;
  cairo_surface_flush (self->active_image);
  pixels = (guint32 *) cairo_image_surface_get_data (self->active_image);
  stride = cairo_image_surface_get_stride (self->active_image) / 4;
  memset (pixels, 0, (gsize) stride * 4 * height);

  /* The quiz's colours for the categories; neighbours alternate shades. */
  for (guint c = 0; c < GML_N_CATEGORIES; c++)
    {
      const GmlColor *color = _gml_kind_color (style, (GmlMemoryKind) c);

      colors[2 * c] = to_argb (color, 1.0);
      colors[2 * c + 1] = to_argb (color, 0.82);
    }
  /* The summed band is hatched, apart from the grey of "Other". */
  summed_argb[0] = to_argb (&style->palette.dim, 1.0);
  summed_argb[1] = to_argb (&style->palette.background, 1.0);

  live = g_array_new (FALSE, FALSE, sizeof (guint));

  for (int x = 0; x < width; x++)
    {
      gsize at = width > 1 ? (gsize) ((double) x * n / (width - 1) + 0.5) : n;
      guint64 cum = 0;
      guint j = 0;

      /* New allocations up to this column. */
      while (next < allocs->len && g_array_index (allocs, Allocation, next).start <= at)
        {
          Allocation *a = &g_array_index (allocs, Allocation, next);

          if (a->end > at && a->drawn)
            g_array_append_val (live, next);
          next++;
        }
      /* Drop the drawn ones that ended. */
      for (guint i = 0; i < live->len; i++)
        {
          guint k = g_array_index (live, guint, i);

          if (g_array_index (allocs, Allocation, k).end > at)
            g_array_index (live, guint, j++) = k;
        }
      g_array_set_size (live, j);

      for (guint i = 0; i < live->len; i++)
        {
          const Allocation *a = &g_array_index (allocs, Allocation, g_array_index (live, guint, i));
          int y0 = height - (int) llround ((double) cum / top * height);
          int y1;
          guint c = MIN (gml_snapshot_kind_category (a->kind), GML_N_CATEGORIES - 1);
          guint32 argb = colors[2 * c + (i & 1)];

          cum += a->size;
          y1 = height - (int) llround ((double) cum / top * height);
          for (int y = MAX (y1, 0); y < y0 && y < height; y++)
            pixels[(gsize) y * stride + x] = argb;
        }
    }

  /* The summed band: what is allocated at each column minus the drawn. */
  {
    const guint64 *allocated = gml_snapshot_timeline_get_allocated (self->timeline);

    for (int x = 0; x < width; x++)
      {
        gsize at = width > 1 ? (gsize) ((double) x * n / (width - 1) + 0.5) : n;
        int y_total = height - (int) llround ((double) MIN (allocated[at], top) / top * height);

        /* Every pixel of the column above the drawn bands, up to the total. */
        for (int y = MAX (y_total, 0); y < height; y++)
          {
            if (pixels[(gsize) y * stride + x] != 0)
              break;
            pixels[(gsize) y * stride + x] = summed_argb[(x + y) % 4 != 0];
          }
      }
  }
  cairo_surface_mark_dirty (self->active_image);
}

static void
swatch_summed (cairo_t              *cr,
               const GmlRenderStyle *style,
               const GmlRect        *box,
               gconstpointer         data)
{
  cairo_save (cr);
  cairo_rectangle (cr, box->x, box->y, box->width, box->height);
  cairo_clip (cr);
  _gml_set_color (cr, &style->palette.background);
  cairo_paint (cr);
  _gml_set_color (cr, &style->palette.dim);
  cairo_set_line_width (cr, 1);
  for (double d = -box->height; d < box->width; d += 4)
    {
      cairo_move_to (cr, box->x + d, box->y + box->height);
      cairo_line_to (cr, box->x + d + box->height, box->y);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
render_active (cairo_t              *cr,
               GmlSnapshotPicture   *self,
               const GmlRenderStyle *style,
               int                   width,
               int                   height)
{
  const GmlPalette *pal = &style->palette;
  double lh = ceil (style->font_size * 1.45);
  gsize n = gml_snapshot_timeline_get_n_entries (self->timeline);
  g_autofree char *t_top = gml_format_size_short (self->peak_allocated);
  GmlRect plot;
  double x_cursor;

  _gml_background (cr, style, width, height);
  active_layout (self, style, width, height, &plot);
  ensure_active_image (self, style, (int) plot.width, (int) plot.height);

  cairo_save (cr);
  cairo_set_source_surface (cr, self->active_image, plot.x, plot.y);
  cairo_paint (cr);
  cairo_restore (cr);

  /* Axes: bytes up the left, trace entries along the bottom. */
  _gml_set_color (cr, &pal->grid);
  cairo_set_line_width (cr, style->line_width);
  cairo_rectangle (cr, plot.x + 0.5, plot.y + 0.5, plot.width - 1, plot.height - 1);
  cairo_stroke (cr);
  _gml_text (cr, style, t_top, plot.x - 4, plot.y - lh / 2, 0.85, 0, &pal->dim, 1.0);
  _gml_text (cr, style, "0", plot.x - 4, plot.y + plot.height - lh / 2, 0.85, 0, &pal->dim, 1.0);
  _gml_text (cr, style, _("Live allocations (bytes) over the trace"), plot.x, MARGIN - 2, 0.9,
             GML_TEXT_BOLD, &pal->foreground, 0.0);
  /* Entry e at e / n of the width, as the cursor below. */
  if (n > 0)
    _gml_axis_ticks (cr, style, &plot, n + 1, 0, (plot.width - 1) / n,
                     has_times (self) ? entry_time_us : NULL, self);

  /* The cursor. */
  x_cursor = plot.x + (n > 0 ? (double) self->at / n * (plot.width - 1) : 0) + 0.5;
  _gml_set_color (cr, &pal->cursor);
  cairo_set_line_width (cr, 2 * style->line_width);
  cairo_move_to (cr, x_cursor, plot.y);
  cairo_line_to (cr, x_cursor, plot.y + plot.height);
  cairo_stroke (cr);

  /* Legend: the categories drawn, in the quiz's colours, then the summed band. */
  {
    GmlLegendItem items[GML_N_CATEGORIES + 2];
    g_autofree char *summed = NULL;
    guint n_items = 0;
    GmlRect legend = { plot.x,
                       plot.y + plot.height + _gml_axis_ticks_height (style, has_times (self)) + 4,
                       width - plot.x - MARGIN, 0 };

    for (guint k = 0; k < GML_SNAP_N_CATEGORIES; k++)
      {
        GmlCategory c = gml_snapshot_categories[k];

        if (self->category_bytes[c] > 0)
          items[n_items++] = (GmlLegendItem) { gml_snapshot_category_name (c), _gml_swatch_kind,
                                               GINT_TO_POINTER (c) };
      }
    if (self->n_summed > 0)
      {
        /* Translators: %u is a number of smaller allocations summed in one band. */
        summed = g_strdup_printf (ngettext ("hatched band on top: %u smaller allocation, summed",
                                            "hatched band on top: %u smaller allocations, summed",
                                            self->n_summed), self->n_summed);
        items[n_items++] = (GmlLegendItem) { summed, swatch_summed, NULL };
      }
    items[n_items++] = (GmlLegendItem) { _("(categories inferred)"), NULL, NULL };
    legend.height = height - legend.y;
    _gml_legend (cr, style, items, n_items, &legend, TRUE);
  }
}

/* ------------------------------------------------------------------------- */
/* Drawing, words, files                                                     */

void
gml_render_snapshot (cairo_t              *cr,
                     GmlSnapshotPicture   *self,
                     GmlSnapshotView       view,
                     const GmlRenderStyle *style,
                     int                   width,
                     int                   height)
{
  switch (view)
    {
    case GML_SNAPSHOT_VIEW_MEMORY_MAP:
      {
        GmlMemoryMapData data;

        map_data (self, &data);
        gml_render_memory_map (cr, &data, style, width, height);
      }
      break;
    case GML_SNAPSHOT_VIEW_TIMELINE:
      {
        GmlTimelineData data;

        timeline_data (self, &data);
        gml_render_timeline (cr, &data, style, width, height);
      }
      break;
    case GML_SNAPSHOT_VIEW_FRAGMENTATION:
      {
        GmlFragmentationData data;

        fragmentation_data (self, &data);
        gml_render_fragmentation (cr, &data, style, width, height);
      }
      break;
    case GML_SNAPSHOT_VIEW_ACTIVE:
      render_active (cr, self, style, width, height);
      break;
    case GML_N_SNAPSHOT_VIEWS:
    default:
      break;
    }
}

/* The bytes by category at N, and the largest block: who holds the memory. */
static void
describe_categories (GmlSnapshotPicture *self,
                     GString            *out)
{
  GmlSnapshot *snap = gml_snapshot_timeline_get_snapshot (self->timeline);
  const GmlSnapshotLayoutBlock *largest = gml_snapshot_picture_get_largest_block (self);
  guint64 bytes[GML_N_CATEGORIES];
  gboolean first = TRUE;

  if (largest == NULL)
    return;
  gml_snapshot_layout_by_category (self->layout, bytes);
  g_string_append_c (out, ' ');
  g_string_append (out, _("By category, inferred from the stacks:"));
  for (guint k = 0; k < GML_SNAP_N_CATEGORIES; k++)
    {
      GmlCategory c = gml_snapshot_categories[k];
      g_autofree char *size = NULL;

      if (bytes[c] == 0)
        continue;
      size = gml_format_size_short (bytes[c]);
      /* Translators: a category of memory and its size, in a list. */
      g_string_append_printf (out, first ? _(" %s %s") : _(", %s %s"),
                              gml_snapshot_category_name (c), size);
      first = FALSE;
    }
  g_string_append_c (out, '.');
  {
    g_autofree char *size = gml_format_size_short (largest->size);
    g_autofree char *where = gml_snapshot_describe_frames (snap, largest->frames);
    const char *category = gml_snapshot_category_name (gml_snapshot_kind_category (largest->kind));

    g_string_append_c (out, ' ');
    if (where != NULL)
      /* Translators: a size, a category of memory, the user's line that made the block. */
      g_string_append_printf (out, _("The largest block, %s (%s), was made by %s."), size, category,
                              where);
    else
      /* Translators: a size, a category of memory. */
      g_string_append_printf (out, _("The largest block, %s (%s), was made without a stack."), size,
                              category);
  }
}

char *
gml_snapshot_picture_describe (GmlSnapshotPicture *self,
                               GmlSnapshotView     view)
{
  const GmlSnapshotStats *st = &self->stats;
  gsize n = gml_snapshot_timeline_get_n_entries (self->timeline);
  g_autofree char *reserved = gml_format_size_short (st->reserved_bytes);
  g_autofree char *allocated = gml_format_size_short (st->allocated_bytes);
  g_autofree char *active = gml_format_size_short (st->active_bytes);
  g_autofree char *requested = gml_format_size_short (st->requested_bytes);
  g_autofree char *largest = gml_format_size_short (st->largest_free_block_bytes);
  const GmlSnapshotOom *oom = gml_snapshot_picture_get_oom_at (self);
  GString *out = g_string_new (NULL);

  /* Translators: e.g. "After 2500 of 5163 trace entries: …". */
  g_string_append_printf (out, _("After %zu of %zu trace entries: "), self->at, n);
  switch (view)
    {
    case GML_SNAPSHOT_VIEW_TIMELINE:
      {
        g_autofree char *peak = gml_format_size_short (self->peak_reserved);
        g_autofree char *peak_allocated = gml_format_size_short (self->peak_allocated);

        /* Translators: sizes. */
        g_string_append_printf (out,
                                _("allocated %s, reserved %s; the most reserved over the trace "
                                  "%s."),
                                allocated, reserved, peak);
        g_string_append_c (out, ' ');
        /* Translators: a size and an entry number. */
        g_string_append_printf (out, _("The most allocated at once, %s, after entry %zu."),
                                peak_allocated, self->peak);
        if (self->spans->len > 0)
          {
            g_string_append_c (out, ' ');
            /* Translators: a number of record_function regions (a PyTorch name). */
            g_string_append_printf (out, ngettext ("%u record_function region is marked.",
                                                   "%u record_function regions are marked.",
                                                   self->spans->len), self->spans->len);
          }
        if (self->other != NULL)
          {
            const guint64 *other = gml_snapshot_timeline_get_allocated (self->other);
            gsize other_n = gml_snapshot_timeline_get_n_entries (self->other);
            guint64 other_peak = 0;
            g_autofree char *t_other = NULL;

            for (gsize i = 0; i <= other_n; i++)
              other_peak = MAX (other_peak, other[i]);
            t_other = gml_format_size_short (other_peak);
            g_string_append_c (out, ' ');
            /* Translators: the two runs' names (A, B) and the most each allocated at once. */
            g_string_append_printf (out, _("Compared: %s peaks at %s allocated, %s at %s."),
                                    self->label != NULL ? self->label : "A", peak_allocated,
                                    self->other_label != NULL ? self->other_label : "B", t_other);
          }
        for (guint r = 0; r < self->n_replays; r++)
          {
            guint64 most = 0;
            g_autofree char *t_most = NULL;

            for (gsize i = 0; i < self->replays[r].n_points; i++)
              most = MAX (most, self->replays[r].reserved[i]);
            t_most = gml_format_size_short (most);
            g_string_append_c (out, ' ');
            /* Translators: allocator settings, then a size. */
            g_string_append_printf (out, _("Replayed with %s: the most reserved %s."),
                                    self->replays[r].label, t_most);
          }
      }
      break;
    case GML_SNAPSHOT_VIEW_ACTIVE:
      ensure_allocations (self);
      {
        g_autofree char *peak = gml_format_size_short (self->peak_allocated);

        /* Translators: a number of allocations, a size, then a size and a place in the code. */
        g_string_append_printf (out,
                                ngettext ("%u live allocation holds %s; the most allocated at once "
                                          "was %s.",
                                          "%u live allocations hold %s; the most allocated at once "
                                          "was %s.",
                                          st->allocations), st->allocations, allocated, peak);
        if (self->places->len > 0)
          {
            const Place *place = g_ptr_array_index (self->places, 0);
            g_autofree char *bytes = gml_format_size_short (place->bytes);

            g_string_append_c (out, ' ');
            /* Translators: a place in the code ("forward, model.py:54") and a size. */
            g_string_append_printf (out, _("Most memory was allocated in %s (%s in all)."),
                                    place->label, bytes);
          }
      }
      break;
    case GML_SNAPSHOT_VIEW_FRAGMENTATION:
      /* Translators: a size, a size and a percentage. */
      g_string_append_printf (out,
                              _("free in the cache %s, largest free block %s, fragmentation %.0f "
                                "%%."),
                              active, largest, st->fragmentation * 100.0);
      {
        guint64 free_cached =
            st->reserved_bytes > st->active_bytes ? st->reserved_bytes - st->active_bytes : 0;
        g_autofree char *t_free = gml_format_size_short (free_cached);

        g_string_truncate (out, 0);
        g_string_append_printf (out, _("After %zu of %zu trace entries: "), self->at, n);
        g_string_append_printf (out,
                                _("free in the cache %s, largest free block %s, fragmentation %.0f "
                                  "%%."),
                                t_free, largest, st->fragmentation * 100.0);
      }
      break;
    case GML_SNAPSHOT_VIEW_MEMORY_MAP:
    case GML_N_SNAPSHOT_VIEWS:
    default:
      /* Translators: counts and sizes. */
      g_string_append_printf (out,
                              ngettext ("%u segment reserves %s; %u allocations hold %s (requested "
                                        "%s); active %s; largest free block %s.",
                                        "%u segments reserve %s; %u allocations hold %s (requested "
                                        "%s); active %s; largest free block %s.", st->segments),
                              st->segments, reserved, st->allocations, allocated, requested, active,
                              largest);
      describe_categories (self, out);
      break;
    }
  if (st->estimated_blocks > 0)
    {
      g_string_append_c (out, ' ');
      g_string_append_printf (out,
                              ngettext ("%u block’s size is estimated: it was freed before the "
                                        "snapshot was taken.",
                                        "%u blocks’ sizes are estimated: they were freed before "
                                        "the snapshot was taken.",
                                        st->estimated_blocks), st->estimated_blocks);
    }
  if (oom != NULL)
    {
      g_autofree char *req = gml_format_size_short (oom->size);

      g_string_append_c (out, ' ');
      /* Translators: %s is a size. */
      g_string_append_printf (out, _("Here a request for %s ran out of memory."), req);
    }
  return g_string_free (out, FALSE);
}

typedef struct
{
  GmlSnapshotPicture   *picture;
  GmlSnapshotView       view;
  const GmlRenderStyle *style;
} SnapshotExport;

static void
draw_snapshot (cairo_t       *cr,
               gconstpointer  data,
               int            width,
               int            height)
{
  const SnapshotExport *e = data;

  gml_render_snapshot (cr, e->picture, e->view, e->style, width, height);
}

GmlExportDrawing *
gml_snapshot_picture_draw_for_export (GmlSnapshotPicture   *self,
                                      GmlSnapshotView       view,
                                      const GmlRenderStyle *style,
                                      int                   width,
                                      int                   height)
{
  SnapshotExport e = { self, view, style };

  return _gml_export_drawing_new (draw_snapshot, &e, width, height);
}

const GmlSnapshotLayoutBlock *
gml_snapshot_picture_block_at (GmlSnapshotPicture   *self,
                               const GmlRenderStyle *style,
                               int                   width,
                               int                   height,
                               double                x,
                               double                y)
{
  GmlMemoryMapData data;
  GmlBlockInfo info;

  map_data (self, &data);
  if (!gml_render_memory_map_hit (&data, style, width, height, x, y, &info))
    return NULL;
  return gml_snapshot_layout_find_block (self->layout, info.address);
}

/* @text cut to @max characters with an ellipsis: C++ names can be hundreds. */
static char *
ellipsize (const char *text,
           guint       max)
{
  if (g_utf8_strlen (text, -1) <= max)
    return g_strdup (text);
  {
    g_autofree char *head = g_utf8_substring (text, 0, max - 1);

    return g_strconcat (head, "…", NULL);
  }
}

char *
gml_snapshot_describe_kind (guint8 kind)
{
  GmlCategory category = gml_snapshot_kind_category (kind);
  const char *reason = gml_snapshot_reason_describe (gml_snapshot_kind_reason (kind));

  if (reason[0] == '\0')
    /* Translators: a category of memory (Parameters, Activations…), inferred. */
    return g_strdup_printf (_("%s (inferred)"), gml_snapshot_category_name (category));
  /* Translators: a category of memory (Parameters, Activations…), then why it was inferred. */
  return g_strdup_printf (_("%s (inferred): %s"), gml_snapshot_category_name (category), reason);
}

/* "Made by model.py:54 forward at entry 120", or before the trace; NULL for
 * a block made before the trace without a stack. */
static char *
describe_made_at (GmlSnapshotPicture           *self,
                  const GmlSnapshotLayoutBlock *block)
{
  GmlSnapshot *snap = gml_snapshot_timeline_get_snapshot (self->timeline);
  g_autofree char *where = gml_snapshot_describe_frames (snap, block->frames);
  g_autofree char *short_where = where != NULL ? ellipsize (where, 64) : NULL;

  if (block->made_at > 0 && short_where != NULL)
    /* Translators: the user's line that made a block ("model.py:54 forward"), an entry number. */
    return g_strdup_printf (_("Made by %s at entry %u"), short_where, block->made_at);
  if (block->made_at > 0)
    /* Translators: an entry number. */
    return g_strdup_printf (_("Made at entry %u, without a stack"), block->made_at);
  if (short_where != NULL)
    /* Translators: the user's line that made a block ("model.py:54 forward"). */
    return g_strdup_printf (_("Made by %s before the trace begins"), short_where);
  /* Made before the trace without a stack: its category's reason says so. */
  return NULL;
}

char *
gml_snapshot_picture_describe_block_summary (GmlSnapshotPicture           *self,
                                             const GmlSnapshotLayoutBlock *block)
{
  g_autofree char *size = gml_format_size_short (block->size);
  g_autofree char *requested = gml_format_size_short (block->requested_size);
  GString *out = g_string_new (NULL);

  switch (block->state)
    {
    case GML_SNAP_BLOCK_ALLOCATED:
      /* Translators: a block's size and the size its tensor asked for. */
      g_string_append_printf (out, _("Allocated block of %s (requested %s)"), size, requested);
      break;
    case GML_SNAP_BLOCK_PENDING_FREE:
      g_string_append_printf (out,
                              _("Block of %s freed by the program, still in use by another stream"),
                              size);
      break;
    case GML_SNAP_BLOCK_INACTIVE:
    default:
      g_string_append_printf (out, _("Free block of %s, cached by PyTorch"), size);
      break;
    }
  {
    const GmlSnapshotLayoutSegment *seg = NULL;

    for (guint s = 0; s < gml_snapshot_layout_get_n_segments (self->layout); s++)
      {
        const GmlSnapshotLayoutSegment *candidate = gml_snapshot_layout_get_segment (self->layout,
                                                                                     s);

        if (block->address >= candidate->address &&
            block->address < candidate->address + candidate->size)
          seg = candidate;
      }
    if (seg != NULL)
      {
        g_string_append (out, "\n");
        /* Translators: the CUDA stream (0, 1, …) and the pool ("small" or "large" in the next
         * strings). */
        g_string_append_printf (out, _("Stream %u, %s"), seg->stream,
                                seg->small ? _("small pool (2 MiB segments)") : _("large pool"));
      }
  }
  if (block->estimated)
    {
      g_string_append (out, "\n");
      g_string_append (out,
                       _("Its size is estimated: it was freed before the snapshot was taken."));
    }
  if (block->state != GML_SNAP_BLOCK_INACTIVE)
    {
      g_autofree char *kind = gml_snapshot_describe_kind (block->kind);
      g_autofree char *made = describe_made_at (self, block);

      g_string_append_c (out, '\n');
      g_string_append (out, kind);
      if (made != NULL)
        {
          g_string_append_c (out, '\n');
          g_string_append (out, made);
        }
    }
  return g_string_free (out, FALSE);
}

char *
gml_snapshot_picture_describe_block (GmlSnapshotPicture           *self,
                                     const GmlSnapshotLayoutBlock *block)
{
  GmlSnapshot *snap = gml_snapshot_timeline_get_snapshot (self->timeline);
  g_autofree char *stack = NULL;
  GString *out = g_string_new (NULL);
  g_autofree char *summary = gml_snapshot_picture_describe_block_summary (self, block);

  g_string_append (out, summary);
  if (block->state != GML_SNAP_BLOCK_INACTIVE)
    {
      /* The user's frames, then the libraries': a few, each line short, so
       * the tooltip stays inside the window; the details pane has them all. */
      stack = gml_snapshot_format_stack (snap, block->frames, 5);
      g_string_append (out, "\n");
      if (stack != NULL)
        {
          g_auto(GStrv) lines = g_strsplit (stack, "\n", -1);

          /* Translators: followed by the call stack, one frame a line. */
          g_string_append (out, _("Allocated in:"));
          for (guint i = 0; lines[i] != NULL; i++)
            {
              g_autofree char *line = ellipsize (lines[i], 72);

              g_string_append (out, "\n  ");
              g_string_append (out, line);
            }
        }
      else
        g_string_append (out,
                         _("The snapshot has no stack for it (record it with "
                           "_record_memory_history())."));
    }
  return g_string_free (out, FALSE);
}

char *
gml_snapshot_picture_describe_allocation_at (GmlSnapshotPicture   *self,
                                             const GmlRenderStyle *style,
                                             int                   width,
                                             int                   height,
                                             double                x,
                                             double                y)
{
  GmlSnapshot *snap = gml_snapshot_timeline_get_snapshot (self->timeline);
  gsize n = gml_snapshot_timeline_get_n_entries (self->timeline);
  guint64 top = MAX (self->peak_allocated, 1), below = 0;
  const Allocation *found = NULL;
  GmlRect plot;
  gsize at;
  double want;

  ensure_allocations (self);
  active_layout (self, style, width, height, &plot);
  if (x < plot.x || x >= plot.x + plot.width || y < plot.y || y >= plot.y + plot.height)
    return NULL;
  /* The column's entry, as ensure_active_image() places it. */
  at = plot.width > 1 ? (gsize) ((x - plot.x) * n / (plot.width - 1) + 0.5) : n;
  at = MIN (at, n);
  want = (plot.y + plot.height - y) / plot.height * top;
  /* The bands are stacked in the order they were made, drawn ones only. */
  for (guint k = 0; k < self->allocations->len; k++)
    {
      const Allocation *a = &g_array_index (self->allocations, Allocation, k);

      if (!a->drawn || a->start > at || a->end <= at)
        continue;
      if (want >= below && want < below + a->size)
        {
          found = a;
          break;
        }
      below += a->size;
    }
  if (found == NULL)
    return NULL;
  {
    g_autofree char *size = gml_format_size_short (found->size);
    g_autofree char *kind = gml_snapshot_describe_kind (found->kind);
    g_autofree char *where = gml_snapshot_describe_frames (snap, found->frames);
    g_autofree char *short_where = where != NULL ? ellipsize (where, 64)
                                                 : g_strdup (_("no stack recorded"));
    GString *out = g_string_new (NULL);

    /* Translators: a size and the user's line that made it ("model.py:54 forward"). */
    g_string_append_printf (out, _("An allocation of %s made by %s"), size, short_where);
    g_string_append_c (out, '\n');
    g_string_append (out, kind);
    g_string_append_c (out, '\n');
    if (found->start == 0 && found->end > n)
      g_string_append (out, _("Live through the whole trace"));
    else if (found->start == 0)
      /* Translators: an entry number. */
      g_string_append_printf (out, _("Live from before the trace to entry %zu"), found->end);
    else if (found->end > n)
      /* Translators: an entry number. */
      g_string_append_printf (out, _("Made at entry %zu, live to the end"), found->start);
    else
      /* Translators: two entry numbers. */
      g_string_append_printf (out, _("Made at entry %zu, freed at entry %zu"), found->start,
                              found->end);
    return g_string_free (out, FALSE);
  }
}

gsize
gml_snapshot_picture_entry_at_x (GmlSnapshotPicture   *self,
                                 GmlSnapshotView       view,
                                 const GmlRenderStyle *style,
                                 int                   width,
                                 int                   height,
                                 double                x)
{
  gsize n = gml_snapshot_timeline_get_n_entries (self->timeline);

  if (view == GML_SNAPSHOT_VIEW_TIMELINE)
    {
      GmlTimelineData data;

      timeline_data (self, &data);
      return MIN (gml_timeline_point_at_x (&data, style, width, height, x), n);
    }
  else
    {
      GmlRect plot;
      double t;

      active_layout (self, style, width, height, &plot);
      t = (x - plot.x) / MAX (plot.width - 1, 1);
      t = CLAMP (t, 0.0, 1.0);
      return (gsize) (t * n + 0.5);
    }
}

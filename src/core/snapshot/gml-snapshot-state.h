/* gml-snapshot-state.h — a snapshot's memory at any point of its trace.
 *
 * "At N" is the state after the first N trace entries of a device: N = 0 is
 * before the trace (usually mid-run: the trace is a ring buffer), N = the
 * number of entries is the end, which the file describes exactly.
 *
 * The end state comes from the file's segments. Earlier states are rebuilt by
 * walking the trace backwards from it, undoing each entry, as PyTorch's own
 * viewer does. The trace gives requested sizes, not block sizes: where a
 * block's size is not in the file (a block freed before the dump), it is
 * estimated with the allocator's rounding and splitting rules and marked as
 * estimated.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-allocator.h"
#include "gml-snapshot.h"
#include "gml-snapshot-category.h"
#include "gml-trace.h"

G_BEGIN_DECLS

typedef struct
{
  guint64 address;
  guint64 size;
  guint64 requested_size;     /* the allocation's request; stale for a free block */
  guint32 frames;             /* where it was allocated, 0 = not known */
  guint8  state;              /* GmlSnapshotBlockState */
  guint8  estimated;          /* size or place estimated, not read from the file */
  guint8  kind;               /* GML_SNAP_KIND: its category and why (gml-snapshot-category.h) */
  guint32 made_at;            /* the alloc entry that made it + 1; 0 = before the trace */
} GmlSnapshotLayoutBlock;

typedef struct
{
  guint64  address;
  guint64  size;
  guint32  stream;
  guint8   small;
  guint8   expandable;
  GArray  *blocks;            /* GmlSnapshotLayoutBlock, address order, covering the segment */
} GmlSnapshotLayoutSegment;

typedef struct
{
  gsize   at;
  guint   segments;
  guint64 reserved_bytes;
  guint64 allocated_bytes;          /* active_allocated blocks, rounded sizes */
  guint64 active_bytes;             /* allocated + pending free */
  guint64 requested_bytes;          /* requests of the allocations */
  guint   allocations;              /* blocks allocated and not yet free_requested */
  guint64 largest_free_block_bytes;
  guint64 inactive_split_bytes;     /* free blocks in segments that are not wholly free */
  double  fragmentation;            /* 1 − largest free block / all free cached bytes */
  guint   estimated_blocks;         /* live blocks whose size or place is estimated */
  guint   blocks;
} GmlSnapshotStats;

typedef struct
{
  gsize   index;                    /* of the oom entry in the device's trace */
  guint64 size;                     /* the rounded request the trace recorded */
  guint64 alloc_size;               /* what PyTorch asked the device for ("Tried to allocate") */
  guint64 device_free;
  guint32 stream;                   /* the request's stream (index into the stream table) */
  guint64 largest_usable_block;     /* the largest free block get_free_block() could have
                                     * taken for it: same stream, same pool, max_split rules */
  guint64 largest_other_stream;     /* the largest free block on another stream */
  guint64 largest_other_pool;       /* the largest in the other pool (small ≤ 1 MiB / large) */
  guint64 largest_oversize;         /* the largest refused by max_split_size_mb's rules */
  guint64 free_same_stream_pool;    /* all free bytes on the request's stream, in its pool */
  GmlSnapshotStats stats;           /* the state at index (the oom entry changes nothing) */
  char   *message;                  /* PyTorch's text for that state */
} GmlSnapshotOom;

/* Why an out-of-memory happened, and what would have changed it. The
 * allocator (malloc() in CUDACachingAllocator.cpp) had already returned every
 * wholly free cached segment to the GPU before it gave up: what was left
 * free in the cache sat in segments that also hold live blocks. */
typedef struct
{
  guint64  request;               /* the rounded request */
  guint64  alloc_size;            /* the segment it asked the GPU for */
  guint64  device_free;           /* what the GPU still had */
  guint64  cached_free;           /* free bytes in PyTorch's cache at that moment */
  guint64  largest_free_block;    /* the largest of them */
  guint64  largest_usable_block;  /* the largest this request could have used */
  /* Why a larger free block did not serve it (each the largest such block, 0 = none). */
  guint64  larger_on_other_stream;
  guint64  larger_in_other_pool;
  guint64  larger_but_oversize;
  gboolean state_disagrees;       /* a usable block fits: the rebuilt state is estimated wrong */
  guint    estimated_blocks;      /* of the state at the error */
  guint64  inactive_split;        /* free pieces of segments that also hold live blocks */
  guint64  allocated;
  guint64  reserved;
  /* Verdicts. */
  gboolean fits_in_cache_total;   /* request ≤ cached_free: the memory was there, in pieces */
  gboolean fits_with_device;      /* request ≤ cached_free + device_free */
  gboolean expandable_would_help; /* the pieces could have been one mapped range */
  gboolean max_split_would_help;  /* large cached blocks were split up by small requests */
  gboolean empty_cache_no_help;   /* always: the allocator already did it */
  gboolean needs_less_memory;     /* nothing but a smaller batch (or less memory) helps */
} GmlSnapshotOomExplanation;

/* Why the largest free block did not serve the request, in words (translated),
 * or NULL when it could have been used. */
char              *gml_snapshot_describe_usable     (const GmlSnapshotOomExplanation *x);
void               gml_snapshot_explain_oom         (const GmlSnapshotOom       *oom,
                                                     GmlSnapshotOomExplanation  *out);

typedef struct _GmlSnapshotLayout   GmlSnapshotLayout;
typedef struct _GmlSnapshotTimeline GmlSnapshotTimeline;

/* Layouts. */
GmlSnapshotLayout *gml_snapshot_layout_new          (void);
void               gml_snapshot_layout_free         (GmlSnapshotLayout *self);
guint              gml_snapshot_layout_get_n_segments (GmlSnapshotLayout *self);
const GmlSnapshotLayoutSegment *gml_snapshot_layout_get_segment (GmlSnapshotLayout *self,
                                                                 guint              index);
/* Puts @seg into @allocator as one segment, its blocks as the layout has them,
 * and each block that is not free into @blocks (address → the engine's block
 * id + 1), as a check or a what-if replays from a snapshot's state. Returns the
 * segment's slot, or -1 when it overlaps one already there. */
gint32             gml_snapshot_layout_segment_rebuild (const GmlSnapshotLayoutSegment *seg,
                                                        GmlAllocator                   *allocator,
                                                        GHashTable                     *blocks);
/* The block that holds @address, or NULL. */
const GmlSnapshotLayoutBlock *gml_snapshot_layout_find_block (GmlSnapshotLayout *self,
                                                              guint64            address);
void               gml_snapshot_layout_get_stats    (GmlSnapshotLayout *self,
                                                     GmlSnapshotStats  *stats);

/* The allocator settings of a snapshot, as the engine's configuration. */
void               gml_snapshot_settings_to_conf    (const GmlSnapshotSettings *settings,
                                                     GmlAllocConf              *conf);

/* PyTorch's out-of-memory text for a state. @device_total 0 = not known (a
 * snapshot does not record it). */
char              *gml_snapshot_format_oom_message  (guint    device,
                                                     guint64  alloc_size,
                                                     guint64  device_free,
                                                     guint64  device_total,
                                                     guint64  allocated,
                                                     guint64  reserved);

/* The timeline of one device: the backward walk and the checkpoints to
 * rebuild any state quickly. Takes a reference on nothing: @snapshot must
 * outlive it. */
GmlSnapshotTimeline *gml_snapshot_timeline_new      (GmlSnapshot             *snapshot,
                                                     guint                    device,
                                                     GCancellable            *cancellable,
                                                     GError                 **error);
/* The same without the allocated and reserved bytes at every N (get_allocated()
 * and get_reserved() are NULL), for a command that needs only their peaks: two
 * arrays of 8 bytes an entry it never touches. */
GmlSnapshotTimeline *gml_snapshot_timeline_new_summary (GmlSnapshot          *snapshot,
                                                        guint                 device,
                                                        GCancellable         *cancellable,
                                                        GError              **error);
void               gml_snapshot_timeline_free       (GmlSnapshotTimeline     *self);
GmlSnapshot       *gml_snapshot_timeline_get_snapshot (GmlSnapshotTimeline   *self);
guint              gml_snapshot_timeline_get_device (GmlSnapshotTimeline     *self);
gsize              gml_snapshot_timeline_get_n_entries (GmlSnapshotTimeline  *self);
/* Allocated and reserved bytes at N = 0 … n_entries (n_entries + 1 values). The
 * requested bytes are not kept per entry: only their peak. */
const guint64     *gml_snapshot_timeline_get_allocated (GmlSnapshotTimeline  *self);
const guint64     *gml_snapshot_timeline_get_reserved  (GmlSnapshotTimeline  *self);
guint64            gml_snapshot_timeline_get_peak_requested (GmlSnapshotTimeline *self);
/* The most allocated at once, the first N where it is and what was reserved
 * there; the most reserved at any N. */
guint64            gml_snapshot_timeline_get_peak_allocated (GmlSnapshotTimeline *self,
                                                             gsize               *index,
                                                             guint64             *reserved_then);
guint64            gml_snapshot_timeline_get_peak_reserved (GmlSnapshotTimeline *self);
/* Counts of each action over the whole trace, by GmlSnapshotAction. */
const gsize       *gml_snapshot_timeline_get_action_counts (GmlSnapshotTimeline *self);
/* Entries that contradict the state (a free of a block that is not there…):
 * the walk goes on past them; 0 for a consistent file. */
guint              gml_snapshot_timeline_get_n_inconsistencies (GmlSnapshotTimeline *self);
guint              gml_snapshot_timeline_get_n_ooms (GmlSnapshotTimeline     *self);
/* The GPU's total memory, when known from elsewhere (the file does not record
 * it): the ooms' messages then say it. */
void               gml_snapshot_timeline_set_gpu_memory (GmlSnapshotTimeline *self,
                                                         guint64              total);
const GmlSnapshotOom *gml_snapshot_timeline_get_oom (GmlSnapshotTimeline     *self,
                                                     guint                    index);
/* The block size the walk found (or estimated) for an alloc or free entry, 0
 * for other entries; *estimated says which. */
guint64            gml_snapshot_timeline_get_block_size (GmlSnapshotTimeline *self,
                                                         gsize                index,
                                                         gboolean            *estimated);

/* The kind (GML_SNAP_KIND) of the allocation of alloc entry @index. */
guint8             gml_snapshot_timeline_get_kind   (GmlSnapshotTimeline     *self,
                                                     gsize                    index);
/* The most allocated at once on stream @stream (an index into the stream
 * table) over this device's trace; 0 for a stream it does not use. */
guint64            gml_snapshot_timeline_get_stream_peak (GmlSnapshotTimeline *self,
                                                          guint                stream);

void               gml_snapshot_timeline_layout_at  (GmlSnapshotTimeline     *self,
                                                     gsize                    n,
                                                     GmlSnapshotLayout       *dest);
void               gml_snapshot_timeline_stats_at   (GmlSnapshotTimeline     *self,
                                                     gsize                    n,
                                                     GmlSnapshotStats        *stats);
/* The layout as the engine's memory state, for the pictures: every block
 * labelled with where it was allocated ("forward, model.py:54"). */
GmlMemState       *gml_snapshot_timeline_mem_state  (GmlSnapshotTimeline     *self,
                                                     GmlSnapshotLayout       *layout);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlSnapshotLayout, gml_snapshot_layout_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlSnapshotTimeline, gml_snapshot_timeline_free)

G_END_DECLS

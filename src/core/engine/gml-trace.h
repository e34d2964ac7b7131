/* gml-trace.h — the allocator's event log and the memory state it describes.
 *
 * The caching allocator never changes its segments and blocks directly: it
 * decides what to do, writes an event, and the event is applied to a
 * GmlMemState.  Rebuilding the state at any point of the trace is therefore
 * the same code path the allocator used, run from the nearest snapshot.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  GML_EVENT_ALLOC,            /* a block was handed out (maybe after a split) */
  GML_EVENT_FREE_REQUESTED,   /* the program freed it: no longer allocated, still active */
  GML_EVENT_FREE_COMPLETED,   /* back in the pool, merged with free neighbours */
  GML_EVENT_SEGMENT_ALLOC,    /* a new segment from the device */
  GML_EVENT_SEGMENT_FREE,     /* a whole free segment returned to the device */
  GML_EVENT_OOM,              /* a request failed; address holds the device's free bytes */
  GML_EVENT_EMPTY_CACHE,      /* empty_cache() was called; segment_free events follow */
  GML_EVENT_SEGMENT_MAP,      /* expandable segments: pages mapped at address (a free block) */
  GML_EVENT_SEGMENT_UNMAP,    /* expandable segments: the pages of a free range unmapped */
  GML_N_EVENT_KINDS
} GmlTraceEventKind;

typedef enum
{
  GML_CATEGORY_NONE,
  GML_CATEGORY_WEIGHTS,
  GML_CATEGORY_ACTIVATIONS,
  GML_CATEGORY_GRADIENTS,
  GML_CATEGORY_OPTIMIZER_STATE,
  GML_CATEGORY_TEMPORARY,
  GML_CATEGORY_KV_CACHE,      /* inference: the attention keys and values kept per token */
  GML_N_CATEGORIES
} GmlCategory;

typedef enum
{
  GML_POOL_SMALL,             /* requests of at most 1 MiB, 2 MiB segments */
  GML_POOL_LARGE,
  GML_N_POOLS
} GmlPool;

typedef enum
{
  GML_BLOCK_UNUSED,           /* internal: an empty slot */
  GML_BLOCK_FREE,             /* cached, available for reuse */
  GML_BLOCK_ALLOCATED,        /* held by a tensor */
  GML_BLOCK_PENDING_FREE,     /* freed by the program, not yet back in the pool */
} GmlBlockState;

/* Event flags. */
#define GML_EVENT_FLAG_RETRY 0x1  /* segment_alloc that succeeded on the final retry */

/* One event: 40 bytes, so a million of them stay cheap. */
typedef struct
{
  guint8  kind;               /* GmlTraceEventKind */
  guint8  category;           /* GmlCategory */
  guint8  pool;               /* GmlPool */
  guint8  flags;
  guint32 stream;
  gint32  block;              /* block slot the event acts on (-1 for none) */
  guint32 label;              /* interned label id, 0 = no label */
  guint64 address;            /* block or segment address (oom: the device's free bytes) */
  guint64 size;               /* block size after rounding/splitting, or segment size
                               * (oom: the segment size it tried to get) */
  guint64 requested_size;     /* what the program asked for */
} GmlTraceEvent;

typedef enum
{
  GML_STAT_ALL,
  GML_STAT_SMALL_POOL,
  GML_STAT_LARGE_POOL,
  GML_N_STAT_TYPES
} GmlStatType;

typedef struct
{
  gint64 current;
  gint64 peak;
} GmlStat;

/* torch.cuda.memory_stats() figures, each per stat type (.all/.small_pool/.large_pool).
 * The cumulative ".allocated"/".freed" counters and the oversize_* stats are not
 * modelled. */
typedef struct
{
  GmlStat allocation[GML_N_STAT_TYPES];
  GmlStat segment[GML_N_STAT_TYPES];
  GmlStat active[GML_N_STAT_TYPES];
  GmlStat inactive_split[GML_N_STAT_TYPES];
  GmlStat allocated_bytes[GML_N_STAT_TYPES];
  GmlStat reserved_bytes[GML_N_STAT_TYPES];
  GmlStat active_bytes[GML_N_STAT_TYPES];
  GmlStat inactive_split_bytes[GML_N_STAT_TYPES];
  GmlStat requested_bytes[GML_N_STAT_TYPES];
  guint64 num_alloc_retries;
  guint64 num_ooms;
  guint64 num_device_alloc;
  guint64 num_device_free;
} GmlStats;

/* Internal layout, public so that tests and pictures can read it without calls. */
typedef struct
{
  guint64 address;
  guint64 size;
  guint64 requested_size;     /* 0 while free */
  gint32  prev;               /* neighbouring block slots in the same segment, -1 at the ends */
  gint32  next;
  gint32  segment;            /* segment slot */
  guint32 stream;
  guint32 label;
  guint8  pool;
  guint8  category;
  guint8  state;              /* GmlBlockState */
} GmlBlock;

typedef struct
{
  guint64 address;
  guint64 size;
  gint32  first_block;        /* lowest-address block slot, -1 for an unused slot */
  guint32 stream;
  guint8  pool;
  guint8  expandable;         /* one mapped range of an expandable segment */
} GmlSegment;

/* What the pictures get for each segment and block (address order). */
typedef struct
{
  guint64     address;
  guint64     size;
  guint32     stream;
  GmlPool     pool;
  guint       n_blocks;
  guint64     allocated_bytes;  /* sum of allocated blocks in it */
  guint64     active_bytes;     /* allocated + pending free */
  guint64     requested_bytes;
  gboolean    expandable;       /* a mapped range of an expandable segment */
} GmlSegmentInfo;

typedef struct
{
  guint          id;            /* block slot: the block id gml_allocator_malloc returned */
  guint64        address;
  guint64        size;
  guint64        requested_size;
  GmlBlockState  state;
  GmlPool        pool;
  guint32        stream;
  GmlCategory    category;
  const char    *label;         /* NULL when none; owned by the state */
} GmlBlockInfo;

typedef struct _GmlMemState GmlMemState;
typedef struct _GmlTrace    GmlTrace;

typedef void (*GmlSegmentFunc) (const GmlSegmentInfo *segment,
                                gpointer              user_data);
typedef void (*GmlBlockFunc)   (const GmlSegmentInfo *segment,
                                const GmlBlockInfo   *block,
                                gpointer              user_data);

/* Names. */
const char        *gml_trace_event_kind_to_string (GmlTraceEventKind kind);
const char        *gml_category_to_string         (GmlCategory       category);
gboolean           gml_category_from_string       (const char       *str,
                                                   GmlCategory      *category);
gboolean           gml_stats_lookup               (const GmlStats   *stats,
                                                   const char       *name,
                                                   gint64           *value);

/* The memory state. */
GmlMemState       *gml_mem_state_new              (GPtrArray         *labels);
GmlMemState       *gml_mem_state_copy             (const GmlMemState *self);
void               gml_mem_state_copy_into        (GmlMemState       *dest,
                                                   const GmlMemState *src);
void               gml_mem_state_free             (GmlMemState       *self);
/* Whether @event fits the state (its block exists and is in the state the
 * event needs, its range is free); gml_mem_state_apply() refuses one that
 * does not, returning GML_MEM_STATE_REFUSED. */
#define GML_MEM_STATE_REFUSED (-2)
gboolean           gml_mem_state_accepts          (const GmlMemState   *self,
                                                   const GmlTraceEvent *event);
gint32             gml_mem_state_apply            (GmlMemState         *self,
                                                   const GmlTraceEvent *event);
gboolean           gml_mem_state_equal            (const GmlMemState *a,
                                                   const GmlMemState *b);
const GmlStats    *gml_mem_state_get_stats        (const GmlMemState *self);
const GmlBlock    *gml_mem_state_get_block        (const GmlMemState *self,
                                                   guint              id);
const GmlSegment  *gml_mem_state_get_segment      (const GmlMemState *self,
                                                   guint              slot);
guint              gml_mem_state_get_n_segments   (const GmlMemState *self);
guint              gml_mem_state_get_n_segment_slots (const GmlMemState *self);
guint              gml_mem_state_get_n_blocks     (const GmlMemState *self);
guint64            gml_mem_state_get_largest_free_block (const GmlMemState *self);
double             gml_mem_state_get_fragmentation (const GmlMemState *self);
gboolean           gml_mem_state_get_block_info   (const GmlMemState *self,
                                                   guint              id,
                                                   GmlBlockInfo      *info);
void               gml_mem_state_foreach_segment  (const GmlMemState *self,
                                                   GmlSegmentFunc     func,
                                                   gpointer           user_data);
void               gml_mem_state_foreach_block    (const GmlMemState *self,
                                                   GmlBlockFunc       func,
                                                   gpointer           user_data);
gboolean           gml_mem_state_check            (const GmlMemState *self,
                                                   GError           **error);

/* Building a state from a known layout (a PyTorch snapshot, a checkpoint):
 * one call per segment with its blocks in address order. The statistics
 * follow as if the allocator had made that layout; num_device_alloc does not
 * count these segments. Blocks may not be empty; a segment of no blocks is
 * refused. Returns the segment's slot, or -1. */
typedef struct
{
  guint64       size;
  guint64       requested_size;
  GmlBlockState state;
  guint32       label;
  GmlCategory   category;
} GmlBlockSpec;

/* Makes a segment added with gml_mem_state_add_segment() a mapped range of an
 * expandable segment: it leaves the segment and inactive_split statistics, as
 * in PyTorch. */
void               gml_mem_state_mark_expandable  (GmlMemState        *self,
                                                   gint32              segment);
gint32             gml_mem_state_add_segment      (GmlMemState        *self,
                                                   guint64             address,
                                                   guint32             stream,
                                                   GmlPool             pool,
                                                   const GmlBlockSpec *blocks,
                                                   guint               n_blocks);

/* The trace. */
GmlTrace          *gml_trace_new                  (guint              snapshot_interval);
void               gml_trace_free                 (GmlTrace          *self);
GPtrArray         *gml_trace_get_labels           (GmlTrace          *self);
guint32            gml_trace_intern_label         (GmlTrace          *self,
                                                   const char        *label);
gboolean           gml_trace_find_label           (GmlTrace          *self,
                                                   const char        *label,
                                                   guint32           *id);
const char        *gml_trace_get_label            (GmlTrace          *self,
                                                   guint32            id);
void               gml_trace_append               (GmlTrace            *self,
                                                   const GmlMemState   *before,
                                                   const GmlTraceEvent *event);
gsize              gml_trace_get_n_events         (GmlTrace          *self);
const GmlTraceEvent *gml_trace_get_event          (GmlTrace          *self,
                                                   gsize              index);
/* The state after the first @n_events events (0 = empty, n_events = now):
 * the nearest earlier snapshot, copied, plus at most one interval of events
 * applied. The _into form reuses @dest's memory, for scrubbing. */
GmlMemState       *gml_trace_state_at             (GmlTrace          *self,
                                                   gsize              n_events);
void               gml_trace_state_at_into        (GmlTrace          *self,
                                                   gsize              n_events,
                                                   GmlMemState       *dest);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlMemState, gml_mem_state_free)
/* For the tests: how many freed 2 MiB chunks of events wait for the next trace. */
guint              _gml_trace_n_spare_chunks      (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlTrace, gml_trace_free)

G_END_DECLS

/* gml-allocator.h — PyTorch's CUDA caching allocator, on top of a GmlDevice.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "gml-alloc-conf.h"
#include "gml-device.h"
#include "gml-format.h"
#include "gml-trace.h"

G_BEGIN_DECLS

#define GML_ALLOCATOR_ERROR (gml_allocator_error_quark ())

typedef enum
{
  GML_ALLOCATOR_ERROR_OUT_OF_MEMORY,   /* message: PyTorch's own (English) text */
  GML_ALLOCATOR_ERROR_INVALID_BLOCK,   /* free of a block that is not allocated */
  GML_ALLOCATOR_ERROR_BAD_CONF,        /* alloc-conf string not understood */
  GML_ALLOCATOR_ERROR_INTERNAL,        /* the state stopped holding together (only a crafted
                                        * starting layout gets there); every later call fails */
} GmlAllocatorError;

/* The constants of CUDACachingAllocator.cpp. */
#define GML_MIN_BLOCK_SIZE   G_GUINT64_CONSTANT (512)
#define GML_SMALL_SIZE       G_GUINT64_CONSTANT (1048576)
#define GML_SMALL_BUFFER     G_GUINT64_CONSTANT (2097152)
#define GML_LARGE_BUFFER     G_GUINT64_CONSTANT (20971520)
#define GML_MIN_LARGE_ALLOC  G_GUINT64_CONSTANT (10485760)
#define GML_ROUND_LARGE      G_GUINT64_CONSTANT (2097152)

typedef struct _GmlAllocator GmlAllocator;

GQuark         gml_allocator_error_quark (void);

/* The size rules, exposed so tests and pictures can explain them. */
guint64        gml_round_size            (const GmlAllocConf *conf,
                                          guint64             size);
guint64        gml_roundup_power2_next_division (guint64     size,
                                                 guint64     divisions);
guint64        gml_allocation_size       (guint64             rounded_size);
GmlPool        gml_pool_for_size         (guint64             rounded_size);

/* @device is borrowed and must outlive the allocator; @conf may be NULL.
 * Expandable segments need a device that can map pages (the simulator):
 * on another, the setting is ignored (gml_allocator_uses_expandable_segments()). */
GmlAllocator  *gml_allocator_new         (GmlDevice          *device,
                                          const GmlAllocConf *conf);
/* Returns every segment to the device. */
void           gml_allocator_destroy     (GmlAllocator       *self);
/* Whether every event is kept in the trace (the default), with a copy of the
 * state every few thousand events for scrubbing. A caller that needs only the
 * live state and the statistics (replay) turns it off before the first event:
 * the allocator decides exactly as before, and its trace stays empty. */
void           gml_allocator_set_keep_trace (GmlAllocator    *self,
                                             gboolean         keep_trace);

/* Allocates @size bytes on @stream. On success *block_id is the block's id
 * (stable until it is freed). On out of memory: FALSE, an oom event, num_ooms + 1,
 * and a GML_ALLOCATOR_ERROR_OUT_OF_MEMORY error whose message is PyTorch's text.
 * A request of 0 bytes allocates nothing (as PyTorch) and gives *block_id = -1.
 * A request of 1 EiB or more is refused before anything is looked at, as
 * PyTorch's allocate() does: OUT_OF_MEMORY, no event, num_ooms unchanged. */
gboolean       gml_allocator_malloc      (GmlAllocator       *self,
                                          guint64             size,
                                          guint32             stream,
                                          const char         *label,
                                          GmlCategory         category,
                                          gint32             *block_id,
                                          GError            **error);
/* The same, with @label already interned in the allocator's trace
 * (gml_trace_intern_label()): for scripts that allocate millions of times. */
gboolean       gml_allocator_malloc_labelled (GmlAllocator   *self,
                                              guint64         size,
                                              guint32         stream,
                                              guint32         label,
                                              GmlCategory     category,
                                              gint32         *block_id,
                                              GError        **error);
/* free(): back to the pool at once, or, for a block used on other streams
 * (gml_allocator_record_stream()), pending until they are done. */
gboolean       gml_allocator_free        (GmlAllocator       *self,
                                          gint32              block_id,
                                          GError            **error);
/* recordStream(): the allocated block @block_id is used on @stream too (its
 * own stream is ignored). Its free then waits for that stream. */
gboolean       gml_allocator_record_stream (GmlAllocator     *self,
                                            gint32            block_id,
                                            guint32           stream,
                                            GError          **error);
/* The work queued on @stream (every stream when @all_streams) is done: the
 * blocks waiting on it go back to the pool at the next malloc (process_events())
 * or empty_cache(). torch.cuda.synchronize() is all_streams. */
void           gml_allocator_synchronize (GmlAllocator       *self,
                                          gboolean            all_streams,
                                          guint32             stream);
/* Blocks freed but waiting on other streams. */
guint          gml_allocator_get_n_waiting (GmlAllocator     *self);
/* torch.cuda.set_per_process_memory_fraction(): from now on, no more than
 * @fraction (0 to 1) of the device's total memory is reserved;
 * garbage_collection_threshold acts only under such a limit. */
gboolean       gml_allocator_set_memory_fraction (GmlAllocator *self,
                                                  double        fraction,
                                                  GError      **error);
/* free() in two halves, for a block another stream still uses (record_stream):
 * free_requested() takes it from the program (allocated → pending), and
 * free_completed() gives it back to the pool when that stream is done. */
gboolean       gml_allocator_free_requested (GmlAllocator    *self,
                                             gint32           block_id,
                                             GError         **error);
gboolean       gml_allocator_free_completed (GmlAllocator    *self,
                                             gint32           block_id,
                                             GError         **error);
/* Whether a request of @size on @stream would be served from the cache,
 * without asking the device for a segment; nothing changes. */
gboolean       gml_allocator_would_reuse (GmlAllocator       *self,
                                          guint64             size,
                                          guint32             stream);
/* Starts the allocator from a known layout (a PyTorch snapshot): one segment
 * and its blocks, before any malloc or free. The device is not asked for the
 * segment, but it is given it back like any other when it is released.
 * Returns the segment's slot, or -1. */
gint32         gml_allocator_add_segment (GmlAllocator       *self,
                                          guint64             address,
                                          guint32             stream,
                                          GmlPool             pool,
                                          const GmlBlockSpec *blocks,
                                          guint               n_blocks);
/* torch.cuda.empty_cache(): waits for the blocks other streams use, then
 * returns every entirely free segment to the device. */
void           gml_allocator_empty_cache (GmlAllocator       *self);
/* FALSE, with a GML_ALLOCATOR_ERROR_INTERNAL, once the state has stopped
 * holding together (see GmlAllocatorError); TRUE before. */
gboolean       gml_allocator_check       (GmlAllocator       *self,
                                          GError            **error);

gboolean       gml_allocator_uses_expandable_segments (GmlAllocator *self);
/* Registers an expandable segment's address space that exists already (a
 * PyTorch snapshot), before any malloc or free; its mapped ranges are added
 * with gml_allocator_add_segment() and gml_allocator_mark_expandable(). */
void           gml_allocator_add_expandable (GmlAllocator      *self,
                                             guint64            address,
                                             guint64            size,
                                             guint32            stream,
                                             GmlPool            pool);
void           gml_allocator_mark_expandable (GmlAllocator     *self,
                                              gint32            segment);
/* The expandable segment whose address space holds @address: its base, its
 * size, its page (2 or 20 MiB), pool and stream. FALSE when there is none. */
gboolean       gml_allocator_find_expandable (GmlAllocator  *self,
                                              guint64        address,
                                              guint64       *base,
                                              guint64       *size,
                                              guint64       *page,
                                              GmlPool       *pool,
                                              guint32       *stream);
GmlDevice     *gml_allocator_get_device  (GmlAllocator       *self);
const GmlAllocConf *gml_allocator_get_conf (GmlAllocator     *self);
const GmlStats *gml_allocator_get_stats  (GmlAllocator       *self);
/* The live state (do not modify) and its trace. */
const GmlMemState *gml_allocator_get_state (GmlAllocator     *self);
GmlTrace      *gml_allocator_get_trace   (GmlAllocator       *self);
/* The message of the last out of memory, or NULL. */
const char    *gml_allocator_get_last_oom_message (GmlAllocator *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlAllocator, gml_allocator_destroy)

G_END_DECLS

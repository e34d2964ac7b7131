/* gml-alloc-conf.h — PYTORCH_ALLOC_CONF (formerly PYTORCH_CUDA_ALLOC_CONF), the
 * settings of the native caching allocator.
 *
 * A setting the parser does not understand, or a value PyTorch would refuse, is a
 * GML_ALLOCATOR_ERROR_BAD_CONF (gml-allocator.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define GML_N_ROUNDUP_INTERVALS 16   /* 1 MiB … 64 GiB, one per power of two */

typedef struct
{
  guint64 max_split_size;                                 /* G_MAXUINT64 = not set */
  guint64 roundup_power2_divisions[GML_N_ROUNDUP_INTERVALS]; /* 0 or 1 = plain 512 B rounding */
  gboolean expandable_segments;                           /* expandable_segments:True */
  /* How much larger than an oversize request (one of max_split_size or more) a
   * cached block it takes may be: 20 MiB unless max_non_split_rounding_mb says. */
  guint64 max_non_split_rounding_size;
  /* garbage_collection_threshold: 0 = off; it acts only under a memory fraction. */
  double  garbage_collection_threshold;
  /* per_process_memory_fraction (newest PyTorch): a limit from the start, below 1.0. */
  double  per_process_memory_fraction;
  /* Accepted and kept, with no effect on which block a request gets: they change
   * locking and the pinned host allocator, which the lab does not model. */
  gboolean release_lock_on_cudamalloc;
  gboolean pinned_use_cuda_host_register;
  guint64 pinned_num_register_threads;                    /* 1 unless set */
  gboolean pinned_use_background_threads;
  guint64 pinned_reserve_segment_size_mb;                 /* 0 unless set */
  gboolean graph_capture_record_stream_reuse;
} GmlAllocConf;

void           gml_alloc_conf_init       (GmlAllocConf       *conf);
gboolean       gml_alloc_conf_parse      (GmlAllocConf       *conf,
                                          const char         *str,
                                          GError            **error);
guint64        gml_alloc_conf_divisions_for_size (const GmlAllocConf *conf,
                                                  guint64             size);

G_END_DECLS

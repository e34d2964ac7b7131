/* gml-snapshot-whatif.h — a real run's trace replayed under other allocator
 * settings and GPU sizes.
 *
 * The program's own sequence of allocations and frees is what the snapshot
 * recorded; the allocator's answers to it are the engine's, under the settings
 * and on the GPU given. The replay starts from the state rebuilt at the trace's
 * first entry (a ring buffer's window starts mid-run), and a request that runs
 * out of memory is counted and the replay goes on: a real program would have
 * stopped there, or done something else after an error it caught.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-snapshot-state.h"

G_BEGIN_DECLS

typedef enum
{
  GML_WHAT_IF_GPU_UNBOUNDED,   /* no out-of-memory in the trace: no size to infer */
  GML_WHAT_IF_GPU_FROM_OOM,    /* reserved at the first oom + the device_free it recorded */
  GML_WHAT_IF_GPU_GIVEN,       /* --gpu-memory, or the window's spin button */
  GML_WHAT_IF_GPU_FROM_RETRY,  /* no oom, but cudaMalloc failed and malloc() released the cache
                                * and tried again: the GPU held the recorded peak, no more */
} GmlWhatIfGpuSource;

typedef struct
{
  gboolean as_recorded;
  char    *alloc_conf;             /* the settings' text; for the run as recorded, the snapshot's */
  guint64  gpu_memory;             /* 0: unbounded */
  guint64  peak_reserved;
  guint64  peak_allocated;
  guint    ooms;
  gboolean has_first_oom;
  gsize    first_oom_index;        /* the trace entry of the first request refused */
  double   fragmentation_at_peak;  /* 1 − largest free block / free cached bytes, at the
                                    * peak of reserved memory */
  guint    segments_at_peak;
  guint64  num_alloc_retries;
  GArray  *reserved;               /* guint64, reserved bytes at N = 0 … n_entries, when asked */
} GmlWhatIfRun;

typedef struct _GmlWhatIf GmlWhatIf;

/* A replay of @timeline's trace (@timeline must outlive it). NULL and @error
 * when the trace cannot be replayed: it begins with expandable segments
 * already mapped, whose address spaces a what-if cannot rebuild. */
GmlWhatIf     *gml_what_if_new             (GmlSnapshotTimeline  *timeline,
                                            GError              **error);
void           gml_what_if_free            (GmlWhatIf            *self);
/* The settings the run was recorded with, as PYTORCH_CUDA_ALLOC_CONF text
 * ("" for the defaults), and as the engine's. */
const char    *gml_what_if_get_recorded_text (GmlWhatIf          *self);
const GmlAllocConf *gml_what_if_get_recorded_conf (GmlWhatIf     *self);
/* The GPU memory the allocator could have had: from the first oom entry
 * (reserved then + the free memory it recorded); else, where cudaMalloc was
 * refused and malloc() gave cached segments back and tried again (a run of
 * segment_free before a segment_alloc), the recorded peak of reserved memory,
 * which the GPU held and could not add to; else 0 (unbounded). *@source and
 * *@index (the oom or the first retry; may be NULL) say which. */
guint64        gml_what_if_infer_gpu_memory (GmlWhatIf           *self,
                                             GmlWhatIfGpuSource  *source,
                                             gsize               *index);
/* What the allocator had reserved at the trace's first entry: no GPU smaller
 * than this can replay the window. */
guint64        gml_what_if_get_initial_reserved (GmlWhatIf       *self);
/* The entries before which the recorded program called empty_cache(), as a run
 * as recorded finds them (a run of segment_free that no request explains, the
 * rule of --check); NULL with *@n 0 before any run. */
const gsize   *gml_what_if_get_empty_caches    (GmlWhatIf       *self,
                                                guint           *n);

/* One replay. @conf NULL: as recorded. @gpu_memory 0: unbounded. With
 * @keep_timeline, out->reserved holds reserved bytes after each entry. FALSE
 * when cancelled, or when @gpu_memory is below what the trace starts with. */
gboolean       gml_what_if_run             (GmlWhatIf            *self,
                                            const GmlAllocConf   *conf,
                                            const char           *conf_text,
                                            guint64               gpu_memory,
                                            gboolean              keep_timeline,
                                            GmlWhatIfRun         *out,
                                            GCancellable         *cancellable,
                                            GError              **error);
/* The least GPU memory, to 2 MiB, on which the trace replays under @conf (NULL:
 * as recorded) with no out of memory. */
gboolean       gml_what_if_smallest_gpu    (GmlWhatIf            *self,
                                            const GmlAllocConf   *conf,
                                            guint64              *bytes,
                                            GCancellable         *cancellable,
                                            GError              **error);
void           gml_what_if_run_clear       (GmlWhatIfRun         *run);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlWhatIf, gml_what_if_free)

G_END_DECLS

/* gml-whatif-cli.h — `snapshot FILE --what-if CONF … [--fits]`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "gml-snapshot-state.h"

G_BEGIN_DECLS

typedef struct _GmlWhatIfReport GmlWhatIfReport;

/* The run as recorded, then one replay per CONF (PYTORCH_CUDA_ALLOC_CONF text),
 * all on @gpu_memory (0: inferred from the first oom, else unbounded); with
 * @fits, the smallest GPU each replays on with no out of memory. */
GmlWhatIfReport *gml_what_if_report_new     (GmlSnapshotTimeline  *timeline,
                                             const char * const   *confs,
                                             guint64               gpu_memory,
                                             gboolean              fits,
                                             GError              **error);
void             gml_what_if_report_free    (GmlWhatIfReport      *self);
/* Adds gpu_memory_source, what_if and, with fits, smallest_gpu_bytes (and
 * smallest_gpu_bytes_by_conf) to @root. */
void             gml_what_if_report_to_json (GmlWhatIfReport      *self,
                                             JsonObject           *root);
char            *gml_what_if_report_to_text (GmlWhatIfReport      *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlWhatIfReport, gml_what_if_report_free)

G_END_DECLS

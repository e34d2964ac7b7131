/* gml-alloc-conf.h — PYTORCH_CUDA_ALLOC_CONF, the parts the lab models.
 *
 * A setting the parser does not understand is a GML_ALLOCATOR_ERROR_BAD_CONF
 * (gml-allocator.h).
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
} GmlAllocConf;

void           gml_alloc_conf_init       (GmlAllocConf       *conf);
gboolean       gml_alloc_conf_parse      (GmlAllocConf       *conf,
                                          const char         *str,
                                          GError            **error);
guint64        gml_alloc_conf_divisions_for_size (const GmlAllocConf *conf,
                                                  guint64             size);

G_END_DECLS

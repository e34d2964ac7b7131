/* gml-trace-private.h — the memory state's layout, for this folder's allocator:
 * it reads a block by slot on every malloc and free, and a call into
 * gml-trace-state.c for each read cost more than the read. Not installed, not for
 * other folders (they use gml-trace.h's functions).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-trace.h"

G_BEGIN_DECLS

struct _GmlMemState
{
  GArray    *blocks;              /* GmlBlock, indexed by slot */
  GArray    *segments;            /* GmlSegment, indexed by slot */
  GArray    *free_block_slots;    /* gint32 stack of unused block slots */
  guint      free_block_room;     /* the most it held: pops keep that room */
  GArray    *free_segment_slots;  /* gint32 stack of unused segment slots */
  GPtrArray *labels;              /* shared with the trace, append-only */
  guint      n_blocks;
  guint      n_segments;
  GmlStats   stats;
};

#define BLOCKS(s)   ((GmlBlock *) (s)->blocks->data)
#define SEGMENTS(s) ((GmlSegment *) (s)->segments->data)

/* gml_mem_state_get_block(), inlined. */
static inline const GmlBlock *
_gml_mem_state_block (const GmlMemState *self,
                      guint              id)
{
  if (id >= self->blocks->len || BLOCKS (self)[id].state == GML_BLOCK_UNUSED)
    return NULL;
  return &BLOCKS (self)[id];
}

gint32 _gml_mem_state_apply_accepted (GmlMemState         *self,
                                      const GmlTraceEvent *ev);

G_END_DECLS

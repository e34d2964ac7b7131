/* gml-snapshot-category.h — what each allocation of a snapshot was for.
 *
 * A snapshot does not say whether a tensor was a parameter, an activation or
 * a gradient; its stacks and the order of its entries do, most of the time.
 * The rules are in gml-snapshot-category.c. Every category is inferred, and
 * each allocation keeps the reason it got its category, so what is shown can
 * say why.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-snapshot.h"
#include "gml-trace.h"

G_BEGIN_DECLS

/* The categories are the quiz's (GmlCategory): WEIGHTS is "parameters",
 * NONE is "other"; a snapshot has no KV cache of its own. */
#define GML_SNAP_N_CATEGORIES 6

/* Why an allocation got its category. */
typedef enum
{
  GML_SNAP_REASON_NONE,             /* not an allocation (a free block) */
  GML_SNAP_REASON_OPTIMIZER_KEPT,   /* made in optimizer.step(), kept after it */
  GML_SNAP_REASON_OPTIMIZER_SHORT,  /* made and freed inside one step() */
  GML_SNAP_REASON_BACKWARD_KEPT,    /* made during backward, kept after it */
  GML_SNAP_REASON_BACKWARD_SHORT,   /* made and freed during backward */
  GML_SNAP_REASON_FORWARD_SAVED,    /* made outside backward, freed during it */
  GML_SNAP_REASON_FORWARD_SHORT,    /* made and freed before the next phase */
  GML_SNAP_REASON_PARAMETER_MADE,   /* made by .to(), .cuda(), __init__, load_state_dict; kept */
  GML_SNAP_REASON_SAME_LINE,        /* kept; the same stack made this category elsewhere */
  GML_SNAP_REASON_KEPT,             /* kept, with nothing to tell more */
  GML_SNAP_REASON_BEFORE_KEPT,      /* no stack, made before the recording, live all along */
  GML_SNAP_REASON_BEFORE_SAVED,     /* no stack, made before the recording, freed in backward */
  GML_SNAP_REASON_BEFORE_OPTIMIZER, /* no stack, made before the recording, freed in step() */
  GML_SNAP_REASON_BEFORE_GRADIENT,  /* no stack, made before the recording, freed by zero_grad() */
  GML_SNAP_REASON_BEFORE,           /* no stack, made before the recording */
  GML_SNAP_REASON_NO_STACK,         /* made during the recording without a stack */
  GML_SNAP_N_REASONS
} GmlSnapshotReason;

/* A block's or an entry's kind: its category and the reason, in one byte. */
#define GML_SNAP_KIND(category, reason) ((guint8) (((reason) << 3) | (category)))

static inline GmlCategory
gml_snapshot_kind_category (guint8 kind)
{
  return (GmlCategory) (kind & 0x7);
}

static inline GmlSnapshotReason
gml_snapshot_kind_reason (guint8 kind)
{
  return (GmlSnapshotReason) (kind >> 3);
}

/* The categories in the order the command line and the pictures list them. */
extern const GmlCategory gml_snapshot_categories[GML_SNAP_N_CATEGORIES];

/* "parameters", "activations", "gradients", "optimizer_state", "temporary",
 * "other": the JSON keys, never translated. */
const char         *gml_snapshot_category_to_string  (GmlCategory        category);
/* The category's name for people ("Parameters"), translated. */
const char         *gml_snapshot_category_name       (GmlCategory        category);
/* Why, in words, translated ("made in the forward pass and freed during backward"). */
const char         *gml_snapshot_reason_describe     (GmlSnapshotReason  reason);

G_END_DECLS

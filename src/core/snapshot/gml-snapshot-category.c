/* gml-snapshot-category.c — what each allocation of a snapshot was for.
 *
 * The rules, as the README states them. Each allocation gets one of the
 * quiz's categories from its stack and from when it was made and freed; all
 * of them are inferred, and each keeps its reason (GmlSnapshotReason).
 *
 * First, every trace entry gets a phase from its stack:
 *   - optimizer: a Python frame in torch/optim/ (Optimizer.step() wraps
 *     every optimizer's step, a hand-written AdamW's too, and zero_grad);
 *   - backward: the autograd engine's C++ frames (torch::autograd::Engine…:
 *     backward runs on the engine's own thread, so these stacks often have
 *     no Python frame at all), or loss.backward() / torch.autograd.grad()
 *     calling it;
 *   - forward: any other stack with a Python frame;
 *   - an entry without frames continues a backward phase (with
 *     stacks="python" the engine's thread records none) and has no phase
 *     otherwise.
 * A phase lasts until the next allocation of another phase (allocations of
 * no phase do not end it).
 *
 * Then each allocation, made at entry a and freed (free_requested) at entry
 * f, or still live at the end:
 *   - made in the optimizer: optimizer state when it outlives that step
 *     (Adam's exp_avg and exp_avg_sq), else temporary;
 *   - made in backward: gradients when it outlives the backward phase, is
 *     freed by the program's own thread outside backward (zero_grad(),
 *     p.grad = None) or lives to the end; else temporary (the engine's
 *     intermediate gradients);
 *   - made in forward: activations when freed during a backward phase
 *     (saved for backward); parameters when its stack makes parameters
 *     (a module's __init__, .to(), .cuda(), _apply, load_state_dict,
 *     torch.load, from_pretrained) and it lives to the end; temporary when
 *     freed before its phase ends (inside one op or one forward); otherwise
 *     (kept to the end, or across a step) the category the same stack got
 *     elsewhere in the trace, else other;
 *   - made without a stack: other ("no stack recorded").
 * Blocks already live when the recording began are classified the same way
 * from the stack the file gives them. Those without one are parameters
 * ("made before the recording", inferred) when they live through the whole
 * trace; otherwise what frees them tells: gradients when zero_grad() does,
 * activations when backward does, optimizer state when step() does (an
 * optimizer that replaces its state each step frees the last one's); else
 * other.
 *
 * The phases cost one pass over the entries; the pairing of each alloc with
 * its free comes from the walk backwards that rebuilds the states
 * (gml-snapshot-state.c), which finds both blocks anyway.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot"

#include "config.h"

#include "gml-i18n.h"

#include "gml-snapshot-category.h"
#include "gml-snapshot-private.h"

/* In the phase of an entry: its stack is in a zero_grad(). */
#define ZERO_GRAD 0x4

const GmlCategory gml_snapshot_categories[GML_SNAP_N_CATEGORIES] = {
  GML_CATEGORY_WEIGHTS, GML_CATEGORY_ACTIVATIONS, GML_CATEGORY_GRADIENTS,
  GML_CATEGORY_OPTIMIZER_STATE, GML_CATEGORY_TEMPORARY, GML_CATEGORY_NONE,
};

const char *
gml_snapshot_category_to_string (GmlCategory category)
{
  switch (category)
    {
    case GML_CATEGORY_WEIGHTS: return "parameters";
    case GML_CATEGORY_ACTIVATIONS: return "activations";
    case GML_CATEGORY_GRADIENTS: return "gradients";
    case GML_CATEGORY_OPTIMIZER_STATE: return "optimizer_state";
    case GML_CATEGORY_TEMPORARY: return "temporary";
    case GML_CATEGORY_KV_CACHE:
    case GML_CATEGORY_NONE:
    case GML_N_CATEGORIES:
    default: return "other";
    }
}

const char *
gml_snapshot_category_name (GmlCategory category)
{
  switch (category)
    {
    case GML_CATEGORY_WEIGHTS: return C_("snapshot category", "Parameters");
    case GML_CATEGORY_ACTIVATIONS: return C_("snapshot category", "Activations");
    case GML_CATEGORY_GRADIENTS: return C_("snapshot category", "Gradients");
    case GML_CATEGORY_OPTIMIZER_STATE: return C_("snapshot category", "Optimizer state");
    case GML_CATEGORY_TEMPORARY: return C_("snapshot category", "Temporary");
    case GML_CATEGORY_KV_CACHE:
    case GML_CATEGORY_NONE:
    case GML_N_CATEGORIES:
    default: return C_("snapshot category", "Other");
    }
}

const char *
gml_snapshot_reason_describe (GmlSnapshotReason reason)
{
  switch (reason)
    {
    case GML_SNAP_REASON_OPTIMIZER_KEPT:
      return _("made in the optimizer’s step() and kept after it");
    case GML_SNAP_REASON_OPTIMIZER_SHORT:
      return _("made and freed inside the optimizer’s step()");
    case GML_SNAP_REASON_BACKWARD_KEPT:
      return _("made during backward and kept after it");
    case GML_SNAP_REASON_BACKWARD_SHORT:
      return _("made and freed during backward");
    case GML_SNAP_REASON_FORWARD_SAVED:
      return _("made in the forward pass and freed during backward: saved for it");
    case GML_SNAP_REASON_FORWARD_SHORT:
      return _("made and freed before the forward pass ended");
    case GML_SNAP_REASON_PARAMETER_MADE:
      return _("made by a module’s __init__, .to(), .cuda() or load_state_dict, "
               "and kept to the end");
    case GML_SNAP_REASON_SAME_LINE:
      return _("kept; the same stack made this kind of memory elsewhere in the trace");
    case GML_SNAP_REASON_KEPT:
      return _("made outside backward and the optimizer, and kept");
    case GML_SNAP_REASON_BEFORE_KEPT:
      return _("no stack: made before the recording began, and live through the whole trace");
    case GML_SNAP_REASON_BEFORE_SAVED:
      return _("no stack: made before the recording began, freed during backward");
    case GML_SNAP_REASON_BEFORE_OPTIMIZER:
      return _("no stack: made before the recording began, freed by the optimizer’s step()");
    case GML_SNAP_REASON_BEFORE_GRADIENT:
      return _("no stack: made before the recording began, freed by zero_grad()");
    case GML_SNAP_REASON_BEFORE:
      return _("no stack: made before the recording began");
    case GML_SNAP_REASON_NO_STACK:
      return _("no stack recorded");
    case GML_SNAP_REASON_NONE:
    case GML_SNAP_N_REASONS:
    default:
      return "";
    }
}

/* ------------------------------------------------------------------------- */
/* The classifier                                                            */

struct _GmlSnapshotClassifier
{
  GmlSnapshot            *snapshot;
  const GmlSnapshotEntry *entries;
  gsize                   n;
  guint8                 *phase;          /* GmlSnapshotPhase of each entry, | ZERO_GRAD */
  gsize                   n_allocs;

  /* The runs, seen from the backward walk: the phase of the allocation seen
   * last (the next one in time), where it is, and where the run of the
   * allocation being classified ends. */
  guint8                  later_phase;
  gsize                   later_index;
  gsize                   run_end;

  guint8                 *list_kind;      /* by frame list: the kind the latest decided
                                           * allocation of that stack got, 0 = none */
  guint                   n_lists;
  GArray                 *deferred;       /* gsize: allocations waiting for list_kind */
};

GmlSnapshotClassifier *
gml_snapshot_classifier_new (GmlSnapshot            *snapshot,
                             const GmlSnapshotEntry *entries,
                             gsize                   n)
{
  GmlSnapshotClassifier *self = g_new0 (GmlSnapshotClassifier, 1);
  guint8 previous = GML_SNAP_PHASE_NONE;

  self->snapshot = snapshot;
  self->entries = entries;
  self->n = n;
  self->phase = g_new (guint8, MAX (n, 1));
  self->n_lists = snapshot->frame_lists->len / 2;
  self->list_kind = g_new0 (guint8, MAX (self->n_lists, 1));
  self->deferred = g_array_new (FALSE, FALSE, sizeof (gsize));
  self->later_phase = GML_SNAP_PHASE_NONE;
  self->run_end = n;
  for (gsize i = 0; i < n; i++)
    {
      guint8 flags = gml_snapshot_get_list_flags (snapshot, entries[i].frames);
      guint8 own = flags & GML_SNAP_PHASE_MASK;
      guint8 phase;

      if (!(flags & GML_SNAP_LIST_HAS_FRAMES))
        phase = previous == GML_SNAP_PHASE_BACKWARD ? GML_SNAP_PHASE_BACKWARD : GML_SNAP_PHASE_NONE;
      else
        phase = own;
      if (own != GML_SNAP_PHASE_NONE)
        previous = own;
      self->phase[i] = phase | ((flags & GML_SNAP_LIST_ZERO_GRAD) ? ZERO_GRAD : 0);
      self->n_allocs += entries[i].action == GML_SNAP_ALLOC;
    }
  return self;
}

void
gml_snapshot_classifier_free (GmlSnapshotClassifier *self)
{
  if (self == NULL)
    return;
  g_free (self->phase);
  g_free (self->list_kind);
  g_array_unref (self->deferred);
  g_free (self);
}

static void
remember (GmlSnapshotClassifier *self,
          guint32                frames,
          guint8                 kind)
{
  /* Walking backwards, the first decided one is the latest in time, the
   * nearest to allocations kept to the end. */
  if (frames != 0 && frames < self->n_lists && self->list_kind[frames] == 0)
    self->list_kind[frames] = kind;
}

/* For a stack made outside backward and the optimizer, kept with nothing else
 * to tell: what the same stack made elsewhere, once the walk has seen it all. */
static guint8
same_line (GmlSnapshotClassifier *self,
           guint32                frames)
{
  guint8 kind = frames < self->n_lists ? self->list_kind[frames] : 0;

  if (kind == 0)
    return GML_SNAP_KIND (GML_CATEGORY_NONE, GML_SNAP_REASON_KEPT);
  return GML_SNAP_KIND (gml_snapshot_kind_category (kind), GML_SNAP_REASON_SAME_LINE);
}

guint8
gml_snapshot_classifier_alloc (GmlSnapshotClassifier *self,
                               gsize                  a,
                               gsize                  f)
{
  const GmlSnapshotEntry *e = &self->entries[a];
  guint8 flags = gml_snapshot_get_list_flags (self->snapshot, e->frames);
  guint8 phase = self->phase[a] & GML_SNAP_PHASE_MASK;
  gboolean kept = f >= self->n;
  guint8 freed_in = kept ? GML_SNAP_PHASE_NONE : self->phase[f] & GML_SNAP_PHASE_MASK;
  guint8 kind;

  /* Calls come in decreasing @a: keep track of where this run ends. */
  if (phase != GML_SNAP_PHASE_NONE)
    {
      if (phase != self->later_phase)
        {
          self->run_end = self->later_phase == GML_SNAP_PHASE_NONE ? self->n : self->later_index;
          self->later_phase = phase;
        }
      self->later_index = a;
    }

  switch (phase)
    {
    case GML_SNAP_PHASE_OPTIMIZER:
      kind = kept || f >= self->run_end
             ? GML_SNAP_KIND (GML_CATEGORY_OPTIMIZER_STATE, GML_SNAP_REASON_OPTIMIZER_KEPT)
             : GML_SNAP_KIND (GML_CATEGORY_TEMPORARY, GML_SNAP_REASON_OPTIMIZER_SHORT);
      break;

    case GML_SNAP_PHASE_BACKWARD:
      kind = kept || f >= self->run_end || freed_in == GML_SNAP_PHASE_FORWARD ||
             freed_in == GML_SNAP_PHASE_OPTIMIZER
             ? GML_SNAP_KIND (GML_CATEGORY_GRADIENTS, GML_SNAP_REASON_BACKWARD_KEPT)
             : GML_SNAP_KIND (GML_CATEGORY_TEMPORARY, GML_SNAP_REASON_BACKWARD_SHORT);
      break;

    case GML_SNAP_PHASE_FORWARD:
    case GML_SNAP_PHASE_NONE:
    default:
      if (!(flags & GML_SNAP_LIST_HAS_FRAMES))
        return GML_SNAP_KIND (GML_CATEGORY_NONE, GML_SNAP_REASON_NO_STACK);
      if (freed_in == GML_SNAP_PHASE_BACKWARD)
        kind = GML_SNAP_KIND (GML_CATEGORY_ACTIVATIONS, GML_SNAP_REASON_FORWARD_SAVED);
      else if (kept && (flags & GML_SNAP_LIST_PARAMETER))
        kind = GML_SNAP_KIND (GML_CATEGORY_WEIGHTS, GML_SNAP_REASON_PARAMETER_MADE);
      else if (!kept && f < self->run_end)
        kind = GML_SNAP_KIND (GML_CATEGORY_TEMPORARY, GML_SNAP_REASON_FORWARD_SHORT);
      else
        {
          g_array_append_val (self->deferred, a);
          return GML_SNAP_KIND (GML_CATEGORY_NONE, GML_SNAP_REASON_KEPT);
        }
      break;
    }
  remember (self, e->frames, kind);
  return kind;
}

guint8
gml_snapshot_classifier_start_block (GmlSnapshotClassifier *self,
                                     guint32                frames,
                                     gsize                  f)
{
  guint8 flags = gml_snapshot_get_list_flags (self->snapshot, frames);
  gboolean kept = f >= self->n;
  guint8 freed_in = kept ? GML_SNAP_PHASE_NONE : self->phase[f] & GML_SNAP_PHASE_MASK;

  if (!(flags & GML_SNAP_LIST_HAS_FRAMES))
    {
      /* Live through a whole trace that did something: most likely the
       * model's weights, loaded before the recording began. */
      if (kept && self->n_allocs > 0)
        return GML_SNAP_KIND (GML_CATEGORY_WEIGHTS, GML_SNAP_REASON_BEFORE_KEPT);
      if (kept)
        return GML_SNAP_KIND (GML_CATEGORY_NONE, GML_SNAP_REASON_BEFORE);
      /* What frees it tells what it was: backward frees what the forward
       * pass saved, zero_grad() the gradients, and an optimizer that
       * replaces its state each step frees the last step's. */
      if (self->phase[f] & ZERO_GRAD)
        return GML_SNAP_KIND (GML_CATEGORY_GRADIENTS, GML_SNAP_REASON_BEFORE_GRADIENT);
      if (freed_in == GML_SNAP_PHASE_BACKWARD)
        return GML_SNAP_KIND (GML_CATEGORY_ACTIVATIONS, GML_SNAP_REASON_BEFORE_SAVED);
      if (freed_in == GML_SNAP_PHASE_OPTIMIZER)
        return GML_SNAP_KIND (GML_CATEGORY_OPTIMIZER_STATE, GML_SNAP_REASON_BEFORE_OPTIMIZER);
      return GML_SNAP_KIND (GML_CATEGORY_NONE, GML_SNAP_REASON_BEFORE);
    }
  switch (flags & GML_SNAP_PHASE_MASK)
    {
    case GML_SNAP_PHASE_OPTIMIZER:
      return GML_SNAP_KIND (GML_CATEGORY_OPTIMIZER_STATE, GML_SNAP_REASON_OPTIMIZER_KEPT);
    case GML_SNAP_PHASE_BACKWARD:
      return GML_SNAP_KIND (GML_CATEGORY_GRADIENTS, GML_SNAP_REASON_BACKWARD_KEPT);
    default:
      if (freed_in == GML_SNAP_PHASE_BACKWARD)
        return GML_SNAP_KIND (GML_CATEGORY_ACTIVATIONS, GML_SNAP_REASON_FORWARD_SAVED);
      if (kept && (flags & GML_SNAP_LIST_PARAMETER))
        return GML_SNAP_KIND (GML_CATEGORY_WEIGHTS, GML_SNAP_REASON_PARAMETER_MADE);
      return same_line (self, frames);
    }
}

void
gml_snapshot_classifier_finish (GmlSnapshotClassifier *self,
                                guint8                *kinds)
{
  for (guint k = 0; k < self->deferred->len; k++)
    {
      gsize a = g_array_index (self->deferred, gsize, k);

      kinds[a] = same_line (self, self->entries[a].frames);
    }
  g_array_set_size (self->deferred, 0);
}

/* gml-trace.c — the allocator's event log, with a copy of the memory state every
 * few thousand events to rebuild any point from. The state itself, and the events
 * applied to it, are in gml-trace-state.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-trace"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "gml-i18n.h"
#include "gml-memory.h"

#include "gml-trace.h"

/* A snapshot every this many events: rebuilding any index then costs one copy of
 * the state plus at most this many applications (each a few nanoseconds). */
#define DEFAULT_SNAPSHOT_INTERVAL 4096

/* The events are kept in chunks of 2 MiB, each on a huge page where the kernel
 * offers them: a lab run appends millions (1.8 M for 1,024 tokens of
 * llama-2-7b), and neither copying a growing array nor a page fault per 4 KiB
 * should cost more than the allocator's own work. */
#define CHUNK_BYTES  ((gsize) 2 << 20)
#define CHUNK_EVENTS (CHUNK_BYTES / sizeof (GmlTraceEvent))
#define EVENT(self, i) \
  (&((GmlTraceEvent *) g_ptr_array_index ((self)->chunks, (i) / CHUNK_EVENTS))[(i) % CHUNK_EVENTS])

/* Chunks a freed trace gave back, for the next trace to fill: the kernel zeroes
 * every page it hands out, and for a 1,024-token run that zeroing (72 MiB) cost as
 * much as the allocator's own work. A lab knob change frees the run it replaces
 * and starts another; its chunks go round. At most SPARE_CHUNKS_MAX are kept
 * (the size of the longest default run's trace), under a lock: runs are built in
 * workers and freed on the main loop. */
#define SPARE_CHUNKS_MAX 40

static GMutex   spare_lock;
static gpointer spare_chunks[SPARE_CHUNKS_MAX];
static guint    n_spare_chunks;

static gpointer
chunk_take (void)
{
  gpointer chunk = NULL;

  g_mutex_lock (&spare_lock);
  if (n_spare_chunks > 0)
    chunk = spare_chunks[--n_spare_chunks];
  g_mutex_unlock (&spare_lock);
  if (chunk != NULL)
    return chunk;
  if (posix_memalign (&chunk, CHUNK_BYTES, CHUNK_BYTES) != 0)
    g_error ("out of memory for the trace's events");
  gml_advise_huge_pages (chunk, CHUNK_BYTES);
  return chunk;
}

static void
chunk_give_back (gpointer chunk)
{
  g_mutex_lock (&spare_lock);
  if (n_spare_chunks < SPARE_CHUNKS_MAX)
    {
      spare_chunks[n_spare_chunks++] = chunk;
      chunk = NULL;
    }
  g_mutex_unlock (&spare_lock);
  free (chunk);
}

/* How many chunks wait for the next trace (for the tests). */
guint
_gml_trace_n_spare_chunks (void)
{
  guint n;

  g_mutex_lock (&spare_lock);
  n = n_spare_chunks;
  g_mutex_unlock (&spare_lock);
  return n;
}

struct _GmlTrace
{
  GPtrArray  *chunks;             /* GmlTraceEvent[CHUNK_EVENTS] each; the first g_malloc'd */
  gsize       n_events;
  gsize       first_room;         /* events the first chunk has room for */
  /* Where the next event goes while no snapshot or new room is due: the
   * common append is one comparison and a copy. */
  GmlTraceEvent *cursor;
  gsize       fast_until;         /* event count at which the slow path runs again */
  GPtrArray  *snapshots;          /* GmlMemState: state after i * interval events */
  GPtrArray  *labels;             /* char *, index 0 is NULL (no label) */
  GHashTable *label_ids;          /* label → id, keys owned by labels */
  guint       interval;
  gsize       next_snapshot;      /* the event count at which the next state is kept */
};

static const char * const event_names[GML_N_EVENT_KINDS] = {
  "alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
  "oom", "empty_cache", "segment_map", "segment_unmap",
};

static const char * const category_names[GML_N_CATEGORIES] = {
  "none", "weights", "activations", "gradients", "optimizer-state", "temporary", "kv-cache",
};

const char *
gml_trace_event_kind_to_string (GmlTraceEventKind kind)
{
  g_return_val_if_fail (kind < GML_N_EVENT_KINDS, NULL);
  return event_names[kind];
}

const char *
gml_category_to_string (GmlCategory category)
{
  g_return_val_if_fail (category < GML_N_CATEGORIES, NULL);
  return category_names[category];
}

gboolean
gml_category_from_string (const char  *str,
                          GmlCategory *category)
{
  g_return_val_if_fail (str != NULL, FALSE);

  for (guint i = 0; i < GML_N_CATEGORIES; i++)
    if (g_str_equal (str, category_names[i]))
      {
        *category = i;
        return TRUE;
      }

  /* Python-style spelling, as people write it in traces. */
  if (g_str_equal (str, "optimizer_state"))
    {
      *category = GML_CATEGORY_OPTIMIZER_STATE;
      return TRUE;
    }

  return FALSE;
}

gboolean
gml_stats_lookup (const GmlStats *stats,
                  const char     *name,
                  gint64         *value)
{
  static const struct
  {
    const char *name;
    gsize       offset;
  } arrays[] = {
    { "allocation", G_STRUCT_OFFSET (GmlStats, allocation) },
    { "segment", G_STRUCT_OFFSET (GmlStats, segment) },
    { "active", G_STRUCT_OFFSET (GmlStats, active) },
    { "inactive_split", G_STRUCT_OFFSET (GmlStats, inactive_split) },
    { "allocated_bytes", G_STRUCT_OFFSET (GmlStats, allocated_bytes) },
    { "reserved_bytes", G_STRUCT_OFFSET (GmlStats, reserved_bytes) },
    { "active_bytes", G_STRUCT_OFFSET (GmlStats, active_bytes) },
    { "inactive_split_bytes", G_STRUCT_OFFSET (GmlStats, inactive_split_bytes) },
    { "requested_bytes", G_STRUCT_OFFSET (GmlStats, requested_bytes) },
  };
  static const char * const types[GML_N_STAT_TYPES] = { "all", "small_pool", "large_pool" };
  g_auto(GStrv) parts = NULL;

  if (g_str_equal (name, "num_alloc_retries"))
    return (*value = stats->num_alloc_retries), TRUE;
  if (g_str_equal (name, "num_ooms"))
    return (*value = stats->num_ooms), TRUE;
  if (g_str_equal (name, "num_device_alloc"))
    return (*value = stats->num_device_alloc), TRUE;
  if (g_str_equal (name, "num_device_free"))
    return (*value = stats->num_device_free), TRUE;

  parts = g_strsplit (name, ".", -1);
  if (g_strv_length (parts) != 3)
    return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (arrays); i++)
    {
      const GmlStat *array;

      if (!g_str_equal (parts[0], arrays[i].name))
        continue;

      array = G_STRUCT_MEMBER_P (stats, arrays[i].offset);
      for (guint t = 0; t < GML_N_STAT_TYPES; t++)
        {
          if (!g_str_equal (parts[1], types[t]))
            continue;
          if (g_str_equal (parts[2], "current"))
            return (*value = array[t].current), TRUE;
          if (g_str_equal (parts[2], "peak"))
            return (*value = array[t].peak), TRUE;
          return FALSE;
        }
      return FALSE;
    }

  return FALSE;
}

/* ------------------------------------------------------------------------- */
/* The trace                                                                 */

GmlTrace *
gml_trace_new (guint snapshot_interval)
{
  GmlTrace *self = g_new0 (GmlTrace, 1);

  self->interval = snapshot_interval > 0 ? snapshot_interval : DEFAULT_SNAPSHOT_INTERVAL;
  self->snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify) gml_mem_state_free);
  self->chunks = g_ptr_array_new ();
  self->labels = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->labels, NULL);
  self->label_ids = g_hash_table_new (g_str_hash, g_str_equal);

  return self;
}

void
gml_trace_free (GmlTrace *self)
{
  if (self == NULL)
    return;

  for (guint i = 0; i < self->chunks->len; i++)
    {
      if (i == 0)
        g_free (self->chunks->pdata[i]);
      else
        chunk_give_back (self->chunks->pdata[i]);
    }
  g_ptr_array_unref (self->chunks);
  g_ptr_array_unref (self->snapshots);
  g_hash_table_unref (self->label_ids);
  g_ptr_array_unref (self->labels);
  g_free (self);
}

GPtrArray *
gml_trace_get_labels (GmlTrace *self)
{
  return self->labels;
}

guint32
gml_trace_intern_label (GmlTrace   *self,
                        const char *label)
{
  gpointer id;
  char *copy;

  if (label == NULL || *label == '\0')
    return 0;

  if (g_hash_table_lookup_extended (self->label_ids, label, NULL, &id))
    return GPOINTER_TO_UINT (id);

  copy = g_strdup (label);
  g_ptr_array_add (self->labels, copy);
  g_hash_table_insert (self->label_ids, copy, GUINT_TO_POINTER (self->labels->len - 1));
  return self->labels->len - 1;
}

/* The id of @label if it was interned, else FALSE: looking does not add it. */
gboolean
gml_trace_find_label (GmlTrace   *self,
                      const char *label,
                      guint32    *id)
{
  gpointer value;

  if (label == NULL || *label == '\0')
    {
      *id = 0;
      return TRUE;
    }
  if (!g_hash_table_lookup_extended (self->label_ids, label, NULL, &value))
    return FALSE;
  *id = GPOINTER_TO_UINT (value);
  return TRUE;
}

const char *
gml_trace_get_label (GmlTrace *self,
                     guint32   id)
{
  if (id >= self->labels->len)
    return NULL;
  return g_ptr_array_index (self->labels, id);
}

/* @before is the state after all events so far; it is kept as a snapshot when
 * the new event starts an interval. */
void
gml_trace_append (GmlTrace            *self,
                  const GmlMemState   *before,
                  const GmlTraceEvent *event)
{
  gsize n = self->n_events;

  if (G_LIKELY (n < self->fast_until))
    {
      *self->cursor++ = *event;
      self->n_events = n + 1;
      return;
    }

  /* A count to reach, not n % interval: two divisions by a variable on every
   * event cost more than the rest of the append. */
  if (n == self->next_snapshot)
    {
      g_ptr_array_add (self->snapshots, gml_mem_state_copy (before));
      self->next_snapshot += self->interval;
    }

  if (n < CHUNK_EVENTS && n == self->first_room)
    {
      /* The first chunk grows as an ordinary array: most traces (a question's
       * picture) stay within it. */
      self->first_room = MIN (MAX (256, 2 * self->first_room), CHUNK_EVENTS);
      if (self->chunks->len == 0)
        g_ptr_array_add (self->chunks, NULL);
      self->chunks->pdata[0] = g_realloc (self->chunks->pdata[0],
                                          self->first_room * sizeof (GmlTraceEvent));
    }
  else if (n % CHUNK_EVENTS == 0)
    {
      g_ptr_array_add (self->chunks, chunk_take ());
    }
  self->cursor = EVENT (self, n);
  *self->cursor++ = *event;
  self->n_events = n + 1;
  /* The fast path runs up to the next snapshot or the end of the room. */
  self->fast_until = MIN (self->next_snapshot,
                          n < CHUNK_EVENTS ? self->first_room
                                           : (n / CHUNK_EVENTS + 1) * CHUNK_EVENTS);
}

gsize
gml_trace_get_n_events (GmlTrace *self)
{
  return self->n_events;
}

const GmlTraceEvent *
gml_trace_get_event (GmlTrace *self,
                     gsize     index)
{
  g_return_val_if_fail (index < self->n_events, NULL);
  return EVENT (self, index);
}

void
gml_trace_state_at_into (GmlTrace    *self,
                         gsize        n_events,
                         GmlMemState *dest)
{
  gsize j, start;

  n_events = MIN (n_events, self->n_events);

  if (self->snapshots->len == 0)
    {
      /* No event was ever appended: the state is empty. */
      g_autoptr(GmlMemState) empty = gml_mem_state_new (self->labels);
      gml_mem_state_copy_into (dest, empty);
      return;
    }

  j = MIN (n_events / self->interval, self->snapshots->len - 1);
  gml_mem_state_copy_into (dest, g_ptr_array_index (self->snapshots, j));

  start = j * self->interval;
  for (gsize i = start; i < n_events; i++)
    gml_mem_state_apply (dest, EVENT (self, i));
}

GmlMemState *
gml_trace_state_at (GmlTrace *self,
                    gsize     n_events)
{
  GmlMemState *state = gml_mem_state_new (self->labels);

  gml_trace_state_at_into (self, n_events, state);
  return state;
}

/* gml-snapshot-document.c — one PyTorch memory snapshot opened in the app.
 *
 * Loading runs in a GTask thread: the reader streams the file into compact
 * records (reporting how many bytes it has read), then the timeline walks
 * the trace of one device and the picture is made at the end of the trace.
 * Only the finished document comes back to the main loop. Progress crosses
 * threads through a mutex-guarded pair of numbers and at most one pending
 * timeout, so a fast reader cannot flood the main loop with redraws.
 *
 * Documents of the same file for different devices share the snapshot
 * itself through a reference-counted box: switching the device walks
 * another trace without reading the file again.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot-document"

#include "config.h"

#include "gml-i18n.h"

#include "gml-scenario.h"
#include "gml-snapshot-document.h"

#define PROGRESS_INTERVAL_MS 100

/* The snapshot, shared by the documents of one file. */
typedef struct
{
  GmlSnapshot *snapshot;
} SharedSnapshot;

static void
shared_snapshot_clear (gpointer data)
{
  SharedSnapshot *shared = data;

  g_clear_pointer (&shared->snapshot, gml_snapshot_free);
}

static SharedSnapshot *
shared_snapshot_new (GmlSnapshot *snapshot)
{
  SharedSnapshot *shared = g_atomic_rc_box_new0 (SharedSnapshot);

  shared->snapshot = snapshot;
  return shared;
}

static SharedSnapshot *
shared_snapshot_ref (SharedSnapshot *shared)
{
  return g_atomic_rc_box_acquire (shared);
}

static void
shared_snapshot_unref (SharedSnapshot *shared)
{
  g_atomic_rc_box_release_full (shared, shared_snapshot_clear);
}

struct _GmlSnapshotDocument
{
  GObject              parent_instance;

  /* Owned */
  GFile               *file;
  char                *display_name;
  SharedSnapshot      *shared;
  GmlSnapshotTimeline *timeline;     /* borrows the snapshot */
  GmlSnapshotPicture  *picture;      /* borrows the timeline */

  GmlSnapshotPeak      peak;         /* made in the loading thread */
  GmlSnapshotDocument *compare;      /* B, when this document is A of a comparison */
  GArray              *comparison;   /* GmlSnapshotWhereDiff */

  /* State */
  guint                device;
  gsize                at;
};

enum {
  PROP_0,
  PROP_FILE,
  PROP_DISPLAY_NAME,
  PROP_DEVICE,
  PROP_N_DEVICES,
  PROP_N_ENTRIES,
  PROP_AT,
  PROP_COMPARE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GmlSnapshotDocument, gml_snapshot_document, G_TYPE_OBJECT)

static void
gml_snapshot_document_finalize (GObject *object)
{
  GmlSnapshotDocument *self = GML_SNAPSHOT_DOCUMENT (object);

  /* The picture borrows the timeline, the timeline the snapshot. */
  g_clear_pointer (&self->picture, gml_snapshot_picture_free);
  gml_snapshot_peak_clear (&self->peak);
  g_clear_pointer (&self->comparison, g_array_unref);
  g_clear_object (&self->compare);
  g_clear_pointer (&self->timeline, gml_snapshot_timeline_free);
  g_clear_pointer (&self->shared, shared_snapshot_unref);
  g_clear_object (&self->file);
  g_clear_pointer (&self->display_name, g_free);

  G_OBJECT_CLASS (gml_snapshot_document_parent_class)->finalize (object);
}

static void
gml_snapshot_document_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  GmlSnapshotDocument *self = GML_SNAPSHOT_DOCUMENT (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_DISPLAY_NAME:
      g_value_set_string (value, self->display_name);
      break;
    case PROP_DEVICE:
      g_value_set_uint (value, self->device);
      break;
    case PROP_N_DEVICES:
      g_value_set_uint (value, gml_snapshot_document_get_n_devices (self));
      break;
    case PROP_N_ENTRIES:
      g_value_set_uint64 (value, gml_snapshot_document_get_n_entries (self));
      break;
    case PROP_AT:
      g_value_set_uint64 (value, self->at);
      break;
    case PROP_COMPARE:
      g_value_set_object (value, self->compare);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_snapshot_document_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  GmlSnapshotDocument *self = GML_SNAPSHOT_DOCUMENT (object);

  switch (prop_id)
    {
    case PROP_AT:
      gml_snapshot_document_set_at (self, (gsize) g_value_get_uint64 (value));
      break;
    case PROP_COMPARE:
      gml_snapshot_document_set_compare (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_snapshot_document_class_init (GmlSnapshotDocumentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = gml_snapshot_document_finalize;
  object_class->get_property = gml_snapshot_document_get_property;
  object_class->set_property = gml_snapshot_document_set_property;

  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_DISPLAY_NAME] =
    g_param_spec_string ("display-name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_DEVICE] =
    g_param_spec_uint ("device", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_DEVICES] =
    g_param_spec_uint ("n-devices", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_ENTRIES] =
    g_param_spec_uint64 ("n-entries", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GmlSnapshotDocument:at:
   *
   * The position in the trace: the state after the first @at entries, from 0
   * (before the trace) to n-entries (the end, as the file records it).
   */
  properties[PROP_AT] =
    g_param_spec_uint64 ("at", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * GmlSnapshotDocument:compare:
   *
   * Another run this one is compared with (B), or %NULL.
   */
  properties[PROP_COMPARE] =
    g_param_spec_object ("compare", NULL, NULL, GML_TYPE_SNAPSHOT_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gml_snapshot_document_init (GmlSnapshotDocument *self)
{
}

/* ------------------------------------------------------------------------- */
/* Loading                                                                   */

typedef struct
{
  GFile                   *file;
  char                    *path;
  int                      device;
  SharedSnapshot          *shared;        /* set when switching devices */
  GMainContext            *context;
  GmlSnapshotLoadProgress  progress;
  gpointer                 progress_data;

  /* Shared with the thread. */
  GMutex                   lock;
  GmlSnapshotLoadPhase     phase;
  double                   fraction;
  gboolean                 idle_pending;
} LoadData;

static void
load_data_free (gpointer user_data)
{
  LoadData *data = user_data;

  g_clear_object (&data->file);
  g_clear_pointer (&data->path, g_free);
  g_clear_pointer (&data->shared, shared_snapshot_unref);
  g_clear_pointer (&data->context, g_main_context_unref);
  g_mutex_clear (&data->lock);
  g_free (data);
}

static gboolean
progress_idle_cb (gpointer user_data)
{
  GTask *task = user_data;
  LoadData *data = g_task_get_task_data (task);
  GmlSnapshotLoadPhase phase;
  double fraction;

  g_mutex_lock (&data->lock);
  phase = data->phase;
  fraction = data->fraction;
  data->idle_pending = FALSE;
  g_mutex_unlock (&data->lock);

  /* Never after the result was delivered, never once cancelled. */
  if (data->progress != NULL && !g_task_get_completed (task) &&
      !g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    data->progress (phase, fraction, data->progress_data);
  return G_SOURCE_REMOVE;
}

/* In the thread. */
static void
report (GTask                *task,
        GmlSnapshotLoadPhase  phase,
        double                fraction)
{
  LoadData *data = g_task_get_task_data (task);
  gboolean schedule;

  if (data->progress == NULL)
    return;
  g_mutex_lock (&data->lock);
  data->phase = phase;
  data->fraction = fraction;
  schedule = !data->idle_pending;
  data->idle_pending = TRUE;
  g_mutex_unlock (&data->lock);

  if (schedule)
    {
      /* A tenth of a second apart at most: every update redraws the window, and
       * on a small machine those frames would take the reader's CPU. */
      GSource *source = g_timeout_source_new (PROGRESS_INTERVAL_MS);

      g_source_set_priority (source, G_PRIORITY_DEFAULT_IDLE);
      g_source_set_callback (source, progress_idle_cb, g_object_ref (task), g_object_unref);
      g_source_set_name (source, "[gml] snapshot load progress");
      g_source_attach (source, data->context);
      g_source_unref (source);
    }
}

static void
reader_progress_cb (guint64  done,
                    guint64  total,
                    gpointer user_data)
{
  report (user_data, GML_SNAPSHOT_LOAD_READING, total > 0 ? (double) done / (double) total : 0.0);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LoadData *data = task_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshotTimeline) timeline = NULL;
  SharedSnapshot *shared;
  GmlSnapshotDocument *self;
  guint device;

  if (data->shared != NULL)
    shared = shared_snapshot_ref (data->shared);
  else
    {
      GmlSnapshot *snapshot = gml_snapshot_load (data->path, reader_progress_cb, task, cancellable,
                                                 &error);

      if (snapshot == NULL)
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      shared = shared_snapshot_new (snapshot);
    }

  if (data->device < 0)
    device = gml_snapshot_get_default_device (shared->snapshot);
  else
    device = MIN ((guint) data->device, MAX (gml_snapshot_get_n_devices (shared->snapshot), 1) - 1);

  report (task, GML_SNAPSHOT_LOAD_WALKING, -1);
  timeline = gml_snapshot_timeline_new (shared->snapshot, device, cancellable, &error);
  if (timeline == NULL)
    {
      shared_snapshot_unref (shared);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  self = g_object_new (GML_TYPE_SNAPSHOT_DOCUMENT, NULL);
  self->file = g_object_ref (data->file);
  self->display_name = g_filename_display_basename (data->path);
  self->shared = shared;
  self->device = device;
  self->timeline = g_steal_pointer (&timeline);
  /* The picture starts at the end of the trace: the state the file records. */
  self->picture = gml_snapshot_picture_new (self->timeline);
  self->at = gml_snapshot_timeline_get_n_entries (self->timeline);
  gml_snapshot_peak_init (&self->peak, self->timeline);
  g_task_return_pointer (task, self, g_object_unref);
}

/* Progress is only said while a file first loads; the caller sets it. */
static GTask *
new_load_task (gpointer             source,
               GFile               *file,
               const char          *path,
               int                  device,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GTask *task = g_task_new (source, cancellable, callback, user_data);
  LoadData *data = g_new0 (LoadData, 1);

  g_task_set_source_tag (task, new_load_task);
  g_task_set_name (task, "[gml] load snapshot");
  g_mutex_init (&data->lock);
  data->file = g_object_ref (file);
  data->path = g_strdup (path);
  data->device = device;
  data->context = g_main_context_ref_thread_default ();
  g_task_set_task_data (task, data, load_data_free);
  return task;
}

void
gml_snapshot_document_load_async (GFile                   *file,
                                  int                      device,
                                  GCancellable            *cancellable,
                                  GmlSnapshotLoadProgress  progress,
                                  gpointer                 progress_data,
                                  GAsyncReadyCallback      callback,
                                  gpointer                 user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *path = NULL;
  LoadData *data;

  g_return_if_fail (G_IS_FILE (file));

  path = g_file_get_path (file);
  task = new_load_task (NULL, file, path, device, cancellable, callback, user_data);
  data = g_task_get_task_data (task);
  data->progress = progress;
  data->progress_data = progress_data;
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);

      /* Translators: %s is a URI (e.g. an sftp:// address). */
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("“%s” is not a file on this computer. Copy it here first, then "
                                 "open the copy."),
                               uri);
      return;
    }
  g_task_run_in_thread (task, load_thread);
}

GmlSnapshotDocument *
gml_snapshot_document_load_finish (GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (G_IS_TASK (result), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == new_load_task, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

void
gml_snapshot_document_switch_device_async (GmlSnapshotDocument *self,
                                           guint                device,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *path = NULL;
  LoadData *data;

  g_return_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self));

  path = g_file_get_path (self->file);
  /* No source object: the task needs only the shared snapshot, and the old
   * document may go away while the thread walks the new trace. */
  task = new_load_task (NULL, self->file, path, (int) device, cancellable, callback, user_data);
  data = g_task_get_task_data (task);
  data->shared = shared_snapshot_ref (self->shared);
  g_task_run_in_thread (task, load_thread);
}

GmlSnapshotDocument *
gml_snapshot_document_switch_device_finish (GAsyncResult  *result,
                                            GError       **error)
{
  return gml_snapshot_document_load_finish (result, error);
}

GmlSnapshotDocument *
gml_snapshot_document_new_live (GmlSnapshot   *snapshot,
                                guint          device,
                                const char    *display_name,
                                GCancellable  *cancellable,
                                GError       **error)
{
  GmlSnapshotDocument *self;
  SharedSnapshot *shared;
  GmlSnapshotTimeline *timeline;

  g_return_val_if_fail (snapshot != NULL, NULL);

  shared = shared_snapshot_new (snapshot);
  timeline = gml_snapshot_timeline_new (shared->snapshot, device, cancellable, error);
  if (timeline == NULL)
    {
      shared_snapshot_unref (shared);
      return NULL;
    }
  self = g_object_new (GML_TYPE_SNAPSHOT_DOCUMENT, NULL);
  self->display_name = g_strdup (display_name != NULL ? display_name : "");
  self->shared = shared;
  self->device = device;
  self->timeline = timeline;
  self->picture = gml_snapshot_picture_new (self->timeline);
  self->at = gml_snapshot_timeline_get_n_entries (self->timeline);
  gml_snapshot_peak_init (&self->peak, self->timeline);
  /* What the active-memory view needs is made here too, not at its first draw. */
  gml_snapshot_picture_prepare (self->picture);
  return self;
}

/* ------------------------------------------------------------------------- */
/* Getters                                                                   */

GFile *
gml_snapshot_document_get_file (GmlSnapshotDocument *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), NULL);
  return self->file;
}

const char *
gml_snapshot_document_get_display_name (GmlSnapshotDocument *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), NULL);
  return self->display_name;
}

guint
gml_snapshot_document_get_device (GmlSnapshotDocument *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), 0);
  return self->device;
}

guint
gml_snapshot_document_get_n_devices (GmlSnapshotDocument *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), 0);
  return self->shared != NULL ? gml_snapshot_get_n_devices (self->shared->snapshot) : 0;
}

gsize
gml_snapshot_document_get_n_entries (GmlSnapshotDocument *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), 0);
  return self->timeline != NULL ? gml_snapshot_timeline_get_n_entries (self->timeline) : 0;
}

gsize
gml_snapshot_document_get_at (GmlSnapshotDocument *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), 0);
  return self->at;
}

void
gml_snapshot_document_set_at (GmlSnapshotDocument *self,
                              gsize                at)
{
  g_return_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self));

  at = MIN (at, gml_snapshot_document_get_n_entries (self));
  if (at == self->at)
    return;
  self->at = at;
  /* Rebuilt from the nearest checkpoint: a copy and a few thousand steps. */
  gml_snapshot_picture_set_at (self->picture, at);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AT]);
}

gsize
gml_snapshot_document_get_page (GmlSnapshotDocument *self)
{
  return MAX (gml_snapshot_document_get_n_entries (self) / 100, 1);
}

GmlSnapshot *
gml_snapshot_document_get_snapshot (GmlSnapshotDocument *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), NULL);
  return self->shared->snapshot;
}

GmlSnapshotTimeline *
gml_snapshot_document_get_timeline (GmlSnapshotDocument *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), NULL);
  return self->timeline;
}

GmlSnapshotPicture *
gml_snapshot_document_get_picture (GmlSnapshotDocument *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), NULL);
  return self->picture;
}

/* ------------------------------------------------------------------------- */
/* Words                                                                     */

static char *
describe_action (GmlSnapshot            *snap,
                 const GmlSnapshotEntry *entry)
{
  const char *name = gml_snapshot_entry_action_name (snap, entry);
  g_autofree char *size = gml_format_size_short (entry->size);

  switch (entry->action)
    {
    case GML_SNAP_ALLOC:
    case GML_SNAP_FREE_REQUESTED:
    case GML_SNAP_FREE_COMPLETED:
    case GML_SNAP_SEGMENT_ALLOC:
    case GML_SNAP_SEGMENT_FREE:
    case GML_SNAP_SEGMENT_MAP:
    case GML_SNAP_SEGMENT_UNMAP:
      /* Translators: PyTorch's name of the action ("alloc", "free_requested",
       * "segment_alloc"…, kept in English), a size and a CUDA stream number. */
      return g_strdup_printf (_("%s of %s on stream %u"), name, size, (guint) entry->stream);
    case GML_SNAP_OOM:
      {
        g_autofree char *device_free = gml_format_size_short (entry->addr);

        /* Translators: "oom" is PyTorch's name of the action; sizes. */
        return g_strdup_printf (_("oom: a request for %s failed, the GPU had %s free"), size,
                                device_free);
      }
    case GML_SNAP_SNAPSHOT:
    case GML_SNAP_OTHER:
    default:
      return g_strdup (name);
    }
}

char *
gml_snapshot_document_describe_entry (GmlSnapshotDocument *self,
                                      gsize                at)
{
  GmlSnapshot *snap;
  const GmlSnapshotEntry *entries, *entry;
  gsize n = 0;
  g_autofree char *action = NULL;
  g_autofree char *where = NULL;
  GString *out;

  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), NULL);

  snap = self->shared->snapshot;
  entries = gml_snapshot_get_entries (snap, self->device, &n);
  if (n == 0)
    return g_strdup (_("This snapshot has no trace: it shows the memory at the moment it was "
                       "taken. Record the history with torch.cuda.memory._record_memory_history() "
                       "to see how it got there."));
  at = MIN (at, n);
  if (at == 0)
    /* Translators: %zu is the number of trace entries. */
    return g_strdup_printf (_("Before the first trace entry (of %zu). PyTorch keeps only the most "
                              "recent entries, so the trace may begin in the middle of the run."),
                            n);

  entry = &entries[at - 1];
  action = describe_action (snap, entry);
  out = g_string_new (NULL);
  /* Translators: "Entry 2500 of 5163: alloc of 2 MiB on stream 0". */
  g_string_append_printf (out, _("Entry %zu of %zu: %s"), at, n, action);

  if (entry->time_us != 0 && entries[0].time_us != 0)
    {
      g_autoptr(GDateTime) when = g_date_time_new_from_unix_local (entry->time_us / G_USEC_PER_SEC);
      g_autofree char *clock = when != NULL ? g_date_time_format (when, "%H:%M:%S") : NULL;
      double seconds = (double) (entry->time_us - entries[0].time_us) / G_USEC_PER_SEC;

      if (clock != NULL && seconds < 1.0)
        {
          g_string_append (out, ", ");
          /* Translators: a clock time, then the milliseconds since the first trace entry. */
          g_string_append_printf (out, _("at %s (%.3f ms into the trace)"), clock,
                                  seconds * 1000.0);
        }
      else if (clock != NULL)
        {
          g_string_append (out, ", ");
          /* Translators: a clock time, then the seconds since the first trace entry. */
          g_string_append_printf (out, _("at %s (%.3f s into the trace)"), clock, seconds);
        }
    }

  where = gml_snapshot_describe_frames (snap, entry->frames);
  if (where != NULL)
    {
      g_string_append (out, ", ");
      /* Translators: a place in the program: "model.py:54 forward". */
      g_string_append_printf (out, _("in %s"), where);
    }
  if (entry->action == GML_SNAP_ALLOC)
    {
      guint8 kind = gml_snapshot_timeline_get_kind (self->timeline, at - 1);
      GmlCategory category = gml_snapshot_kind_category (kind);

      /* Translators: a category of memory (Parameters, Activations…), inferred. */
      g_string_append_printf (out, _(" (%s, inferred)"), gml_snapshot_category_name (category));
    }
  {
    const char *metadata = gml_snapshot_get_string (snap, entry->user_metadata);

    if (metadata != NULL && metadata[0] != '\0')
      {
        g_string_append (out, "; ");
        /* Translators: user_metadata is PyTorch's name for what the program attached to
         * the entry. */
        g_string_append_printf (out, _("user_metadata “%s”"), metadata);
      }
  }
  {
    guint n_spans;
    const GmlTimelineSpan *spans = gml_snapshot_picture_get_spans (self->picture, &n_spans);
    GString *inside = NULL;

    /* The record_function regions around it, outermost first (the regions
     * are in the order they ended, an inner one before its outer one). */
    for (guint depth = 0, found = TRUE; found; depth++)
      {
        found = FALSE;
        for (guint i = 0; i < n_spans; i++)
          if (spans[i].depth == depth && spans[i].start < at && at <= spans[i].end)
            {
              if (inside == NULL)
                inside = g_string_new (NULL);
              else
                g_string_append (inside, " › ");
              g_string_append (inside, spans[i].label);
              found = TRUE;
            }
      }
    if (inside != NULL)
      {
        g_string_append (out, "; ");
        /* Translators: record_function is PyTorch's name; %s the names of the regions. */
        g_string_append_printf (out, _("inside record_function %s"), inside->str);
        g_string_free (inside, TRUE);
      }
  }
  return g_string_free (out, FALSE);
}

char *
gml_snapshot_document_describe_device (GmlSnapshotDocument *self,
                                       guint                device)
{
  GmlSnapshot *snap;
  gsize n;
  guint ooms;
  g_autofree char *entries = NULL;

  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), NULL);

  snap = self->shared->snapshot;
  gml_snapshot_get_entries (snap, device, &n);
  ooms = gml_snapshot_get_n_device_ooms (snap, device);
  /* Translators: a number of trace entries, in the device chooser. */
  entries = g_strdup_printf (ngettext ("%zu entry", "%zu entries", n), n);
  if (ooms == 0)
    /* Translators: a device as PyTorch names it and its number of trace entries. */
    return g_strdup_printf (_("cuda:%u — %s"), device, entries);
  /* Translators: a device, its number of trace entries, then its out-of-memory errors. */
  return g_strdup_printf (ngettext ("cuda:%u — %s, %u OOM", "cuda:%u — %s, %u OOMs", ooms),
                          device, entries, ooms);
}

const GmlSnapshotPeak *
gml_snapshot_document_get_peak (GmlSnapshotDocument *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), NULL);
  return &self->peak;
}

void
gml_snapshot_document_set_compare (GmlSnapshotDocument *self,
                                   GmlSnapshotDocument *other)
{
  g_return_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self));
  g_return_if_fail (other == NULL || GML_IS_SNAPSHOT_DOCUMENT (other));

  if (self->compare == other)
    return;
  /* The picture borrows B's timeline: set it again before B can go. */
  gml_snapshot_picture_set_compare (self->picture, other != NULL ? other->timeline : NULL, "A",
                                    "B");
  g_set_object (&self->compare, other);
  g_clear_pointer (&self->comparison, g_array_unref);
  if (other != NULL)
    self->comparison = gml_snapshot_peaks_compare (&self->peak, &other->peak);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPARE]);
}

GmlSnapshotDocument *
gml_snapshot_document_get_compare (GmlSnapshotDocument *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), NULL);
  return self->compare;
}

GArray *
gml_snapshot_document_get_comparison (GmlSnapshotDocument *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), NULL);
  return self->comparison;
}

char *
gml_snapshot_document_describe_source (GmlSnapshotDocument *self)
{
  gsize n;

  g_return_val_if_fail (GML_IS_SNAPSHOT_DOCUMENT (self), NULL);

  n = gml_snapshot_document_get_n_entries (self);
  /* Translators: the device as PyTorch names it, and the number of trace entries. */
  return g_strdup_printf (ngettext ("cuda:%u · %zu trace entry", "cuda:%u · %zu trace entries", n),
                          self->device, n);
}

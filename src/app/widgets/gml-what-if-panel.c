/* gml-what-if-panel.c — the open snapshot's own run, replayed under other
 * allocator settings and GPU sizes, in rows.
 *
 * The question a user with an out of memory has — would expandable_segments,
 * max_split_size_mb:128 or a larger card have saved this run? — answered by
 * the engine replaying the run's own requests (gml-snapshot-whatif.c), each
 * setting a row: peak reserved, out-of-memory errors, fragmentation at the
 * peak. The replays run in a worker with progress and Cancel; a new GPU size
 * replays every row again. Each row's accessible description says its figures
 * in words, to the byte.
 *
 *   what-if.cancel     stop the replays
 *   what-if.replay     replay the document now (manual mode)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-what-if-panel"

#include "config.h"

#include <math.h>

#include <adwaita.h>

#include "gml-i18n.h"
#include "gml-language.h"
#include "gml-what-if-panel.h"

/* The settings a learner reaches for, as PyTorch's OOM message and docs name
 * them. garbage_collection_threshold acts only under a memory fraction, so its
 * row gives it one. */
static const char * const settings[] = {
  NULL,                          /* as recorded */
  "expandable_segments:True",
  "max_split_size_mb:64",
  "max_split_size_mb:128",
  "max_split_size_mb:256",
  "max_split_size_mb:512",
  "roundup_power2_divisions:4",
  "garbage_collection_threshold:0.8,per_process_memory_fraction:0.95",
};
#define N_ROWS G_N_ELEMENTS (settings)

#define GiB (G_GUINT64_CONSTANT (1) << 30)
#define PAGE (G_GUINT64_CONSTANT (2) << 20)

struct _GmlWhatIfPanel
{
  GtkWidget            parent_instance;

  /* Template widgets */
  GtkWidget           *box;
  GtkSpinButton       *gpu_spin;
  GtkLabel            *gpu_source_label;
  GtkWidget           *progress_box;
  GtkWidget           *replay_button;
  GtkProgressBar      *progress_bar;
  GtkListBox          *list;
  GtkLabel            *error_label;

  /* Owned */
  GmlSnapshotDocument *document;
  GmlWhatIf           *what_if;       /* of the document's timeline; main thread */
  GCancellable        *cancellable;
  GmlWhatIfRun         runs[N_ROWS];
  gboolean             done[N_ROWS];
  GtkWidget           *rows[N_ROWS];  /* AdwActionRow */
  GtkCheckButton      *shown[N_ROWS];
  GArray              *empty_caches;  /* gsize, of the replayed document; NULL until done */

  /* State */
  guint64              gpu_memory;
  GmlWhatIfGpuSource   gpu_source;
  gsize                gpu_index;
  guint                generation;
  gboolean             busy;
  gboolean             manual;
  gboolean             setting_spin;  /* the code sets the spin button: no replay */
};

enum { PROP_0, PROP_DOCUMENT, PROP_BUSY, N_PROPS };
enum { CHANGED, N_SIGNALS };

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GmlWhatIfPanel, gml_what_if_panel, GTK_TYPE_WIDGET)

/* ------------------------------------------------------------------------- */
/* The worker                                                                */

/* Where a worker's news goes: the panel, if it is still there, and which of its
 * replays the news is about. Made and dropped on the main thread; the worker only
 * passes it on. */
typedef struct
{
  gatomicrefcount ref_count;
  GWeakRef        panel;
  guint           generation;
} Sink;

static Sink *
sink_ref (Sink *sink)
{
  g_atomic_ref_count_inc (&sink->ref_count);
  return sink;
}

static void
sink_unref (Sink *sink)
{
  if (g_atomic_ref_count_dec (&sink->ref_count))
    {
      g_weak_ref_clear (&sink->panel);
      g_free (sink);
    }
}

typedef struct
{
  GmlWhatIf          *what_if;        /* the task's own */
  GmlSnapshotDocument *document;      /* a reference: its timeline outlives the task */
  GmlAllocConf        confs[N_ROWS];
  guint64             gpu_memory;
  Sink               *sink;
  GmlWhatIfRun        runs[N_ROWS];
} Replays;

typedef struct
{
  Sink   *sink;
  double  fraction;
} Progress;

static void
replays_free (gpointer data)
{
  Replays *d = data;

  for (guint i = 0; i < N_ROWS; i++)
    gml_what_if_run_clear (&d->runs[i]);
  g_clear_pointer (&d->what_if, gml_what_if_free);
  g_clear_object (&d->document);
  sink_unref (d->sink);
  g_free (d);
}

static gboolean
progress_cb (gpointer data)
{
  Progress *p = data;
  g_autoptr(GmlWhatIfPanel) self = g_weak_ref_get (&p->sink->panel);

  if (self != NULL && self->busy && p->sink->generation == self->generation)
    gtk_progress_bar_set_fraction (self->progress_bar, p->fraction);
  sink_unref (p->sink);
  g_free (p);
  return G_SOURCE_REMOVE;
}

static void
replays_thread (GTask        *task,
                gpointer      source,
                gpointer      task_data,
                GCancellable *cancellable)
{
  Replays *d = task_data;
  GError *error = NULL;

  for (guint i = 0; i < N_ROWS; i++)
    {
      Progress *p;

      if (!gml_what_if_run (d->what_if, settings[i] != NULL ? &d->confs[i] : NULL, settings[i],
                            d->gpu_memory, TRUE, &d->runs[i], cancellable, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      p = g_new0 (Progress, 1);
      p->sink = sink_ref (d->sink);
      p->fraction = (double) (i + 1) / N_ROWS;
      g_main_context_invoke (NULL, progress_cb, p);
    }
  g_task_return_boolean (task, TRUE);
}

/* ------------------------------------------------------------------------- */
/* The rows                                                                  */

static char *
row_title (GmlWhatIfPanel *self,
           guint           row)
{
  const char *recorded = self->what_if != NULL ? gml_what_if_get_recorded_text (self->what_if) : "";

  if (settings[row] != NULL)
    return g_strdup (settings[row]);
  /* Translators: the settings' text the run was recorded with. */
  return g_strdup_printf (_("As recorded (%s)"), *recorded != '\0' ? recorded : _("the defaults"));
}

/* "peak reserved 78.42 GiB · 1 out of memory (entry 421) · fragmentation 88 %", and
 * in words to the byte for a screen reader. */
static void
describe_run (const GmlWhatIfRun  *run,
              char               **shown,
              char               **spoken)
{
  g_autofree char *reserved = gml_format_size_short (run->peak_reserved);
  g_autofree char *bytes = gml_format_grouped (run->peak_reserved);
  g_autofree char *fragmentation = gml_format_number (100.0 * run->fragmentation_at_peak, 0);
  g_autofree char *ooms = NULL;

  if (run->ooms == 0)
    ooms = g_strdup (_("no out of memory"));
  else
    /* Translators: a number of out-of-memory errors, then the trace entry of the first. */
    ooms = g_strdup_printf (ngettext ("%u out of memory (entry %lu)",
                                      "%u out of memory (first at entry %lu)",
                                      run->ooms), run->ooms, (gulong) run->first_oom_index);
  /* Translators: a size, then the out-of-memory errors, then a percentage. */
  *shown = g_strdup_printf (_("peak reserved %s · %s · fragmentation at the peak %s %%"), reserved,
                            ooms,
                            fragmentation);
  /* Translators: a number of bytes, then the out-of-memory errors, then a percentage. */
  *spoken = g_strdup_printf (_("Peak reserved %s bytes, %s, fragmentation at the peak %s %%."),
                             bytes, ooms,
                             fragmentation);
}

static void
update_rows (GmlWhatIfPanel *self)
{
  for (guint i = 0; i < N_ROWS; i++)
    {
      g_autofree char *title = row_title (self, i);
      g_autofree char *shown = NULL;
      g_autofree char *spoken = NULL;

      if (self->done[i])
        describe_run (&self->runs[i], &shown, &spoken);
      else
        {
          shown = g_strdup (self->busy ? _("Replaying…") : "");
          spoken = g_strdup (shown);
        }
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->rows[i]), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (self->rows[i]), shown);
      /* Its name is its title already (AdwActionRow labels the row by it). */
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->rows[i]),
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, spoken, -1);
      gtk_widget_set_sensitive (GTK_WIDGET (self->shown[i]), self->done[i]);
    }
}

static void
update_gpu_source (GmlWhatIfPanel *self)
{
  g_autofree char *text = NULL;

  switch (self->gpu_source)
    {
    case GML_WHAT_IF_GPU_FROM_OOM:
      /* Translators: a trace entry's index. */
      text =
          g_strdup_printf (_("From the out of memory at entry %lu: what was reserved then, and "
                             "what the GPU still had free."), (gulong) self->gpu_index);
      break;
    case GML_WHAT_IF_GPU_FROM_RETRY:
      /* Translators: a trace entry's index. */
      text =
          g_strdup_printf (_("The recorded peak: from entry %lu on, the allocator gave cached "
                             "segments back before it got a new one, as it does when the GPU "
                             "refuses one."),
                           (gulong) self->gpu_index);
      break;
    case GML_WHAT_IF_GPU_GIVEN:
      text = g_strdup (self->gpu_memory > 0 ? _("As given here.")
                                            : _("No limit, as given here (0)."));
      break;
    case GML_WHAT_IF_GPU_UNBOUNDED:
    default:
      text =
          g_strdup (_("No limit (0): a snapshot does not record the GPU’s size, and this trace has "
                      "no out of memory to tell it. Give the GPU’s size to replay on it."));
      break;
    }
  gtk_label_set_label (self->gpu_source_label, text);
}

static void set_busy (GmlWhatIfPanel *self,
                      gboolean        busy);

static void
replays_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Replays *d = g_task_get_task_data (G_TASK (result));
  g_autoptr(GmlWhatIfPanel) self = g_weak_ref_get (&d->sink->panel);
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (self != NULL && d->sink->generation == self->generation)
        {
          set_busy (self, FALSE);
          if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            {
              gtk_label_set_label (self->error_label, error->message);
              gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
            }
          update_rows (self);
        }
      return;
    }
  if (self == NULL || d->sink->generation != self->generation)
    return;
  for (guint i = 0; i < N_ROWS; i++)
    {
      gml_what_if_run_clear (&self->runs[i]);
      self->runs[i] = d->runs[i];
      memset (&d->runs[i], 0, sizeof d->runs[i]);
      self->done[i] = TRUE;
    }
  {
    guint n;
    const gsize *at = gml_what_if_get_empty_caches (d->what_if, &n);

    g_clear_pointer (&self->empty_caches, g_array_unref);
    self->empty_caches = g_array_sized_new (FALSE, FALSE, sizeof (gsize), n);
    if (n > 0)
      g_array_append_vals (self->empty_caches, at, n);
  }
  set_busy (self, FALSE);
  update_rows (self);
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
set_busy (GmlWhatIfPanel *self,
          gboolean        busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  gtk_widget_set_visible (self->progress_box, busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "what-if.cancel", busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "what-if.replay",
                                 !busy && self->document != NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
start (GmlWhatIfPanel *self)
{
  g_autoptr(GTask) task = NULL;
  Replays *d;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->generation++;
  for (guint i = 0; i < N_ROWS; i++)
    {
      gml_what_if_run_clear (&self->runs[i]);
      self->done[i] = FALSE;
    }
  g_clear_pointer (&self->empty_caches, g_array_unref);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  if (self->what_if == NULL)
    {
      set_busy (self, FALSE);
      update_rows (self);
      g_signal_emit (self, signals[CHANGED], 0);
      return;
    }

  d = g_new0 (Replays, 1);
  /* A what-if of its own: the task may outlive this document in the panel. */
  d->what_if = gml_what_if_new (gml_snapshot_document_get_timeline (self->document), NULL);
  g_return_if_fail (d->what_if != NULL);   /* self->what_if was made from the same timeline */
  d->document = g_object_ref (self->document);
  d->gpu_memory = self->gpu_memory;
  d->sink = g_new0 (Sink, 1);
  g_atomic_ref_count_init (&d->sink->ref_count);
  g_weak_ref_init (&d->sink->panel, self);
  d->sink->generation = self->generation;
  for (guint i = 0; i < N_ROWS; i++)
    {
      gml_alloc_conf_init (&d->confs[i]);
      /* The table's own settings: they parse. */
      if (settings[i] != NULL && !gml_alloc_conf_parse (&d->confs[i], settings[i], NULL))
        g_assert_not_reached ();
    }

  self->cancellable = g_cancellable_new ();
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_progress_bar_set_text (self->progress_bar, _("Replaying the trace…"));
  set_busy (self, TRUE);
  update_rows (self);
  g_signal_emit (self, signals[CHANGED], 0);
  /* No source object: the task must not keep the panel alive (dispose cancels it). */
  task = g_task_new (NULL, self->cancellable, replays_done_cb, NULL);
  g_task_set_task_data (task, d, replays_free);
  g_task_run_in_thread (task, replays_thread);
}

static void
gpu_changed_cb (GmlWhatIfPanel *self)
{
  double gib = gtk_spin_button_get_value (self->gpu_spin);
  guint64 bytes = (guint64) (gib * (double) GiB) / PAGE * PAGE;

  double shown = (double) self->gpu_memory / (double) GiB;
  double step = 0.5 * pow (10, -(double) gtk_spin_button_get_digits (self->gpu_spin));

  if (self->setting_spin || self->what_if == NULL || bytes == self->gpu_memory)
    return;
  /* Focus leaving the spin button reads back the rounded figure it shows: that is
   * not a new size. */
  if (fabs (gib - shown) <= step * 1.0001)
    return;
  /* Below what the trace begins with, no GPU replays it. */
  if (bytes > 0 && bytes < gml_what_if_get_initial_reserved (self->what_if))
    bytes = (gml_what_if_get_initial_reserved (self->what_if) + PAGE - 1) / PAGE * PAGE;
  self->gpu_memory = bytes;
  self->gpu_source = GML_WHAT_IF_GPU_GIVEN;
  update_gpu_source (self);
  start (self);
}

static void
shown_toggled_cb (GmlWhatIfPanel *self)
{
  g_signal_emit (self, signals[CHANGED], 0);
}

static void prepare (GmlWhatIfPanel *self);

static void
replay_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  GmlWhatIfPanel *self = GML_WHAT_IF_PANEL (widget);
  guint64 given = self->gpu_source == GML_WHAT_IF_GPU_GIVEN ? self->gpu_memory : 0;
  gboolean was_given = self->gpu_source == GML_WHAT_IF_GPU_GIVEN;

  /* What has arrived by now, on the GPU given here if one was. */
  prepare (self);
  if (was_given)
    {
      self->gpu_memory = given;
      self->gpu_source = GML_WHAT_IF_GPU_GIVEN;
      self->setting_spin = TRUE;
      gtk_spin_button_set_value (self->gpu_spin, (double) given / (double) GiB);
      self->setting_spin = FALSE;
      update_gpu_source (self);
    }
  start (self);
}

static void
cancel_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  GmlWhatIfPanel *self = GML_WHAT_IF_PANEL (widget);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

/* ------------------------------------------------------------------------- */
/* API                                                                       */

GtkWidget *
gml_what_if_panel_new (void)
{
  return g_object_new (GML_TYPE_WHAT_IF_PANEL, NULL);
}

/* The what-if of the document, the GPU it implies, the spin button showing it. */
static void
prepare (GmlWhatIfPanel *self)
{
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->what_if, gml_what_if_free);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  if (self->document != NULL)
    {
      self->what_if = gml_what_if_new (gml_snapshot_document_get_timeline (self->document), &error);
      if (self->what_if == NULL)
        {
          gtk_label_set_label (self->error_label, error->message);
          gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
        }
    }
  self->gpu_memory = 0;
  self->gpu_source = GML_WHAT_IF_GPU_UNBOUNDED;
  if (self->what_if != NULL)
    self->gpu_memory = gml_what_if_infer_gpu_memory (self->what_if, &self->gpu_source,
                                                     &self->gpu_index);
  self->setting_spin = TRUE;
  gtk_spin_button_set_value (self->gpu_spin, (double) self->gpu_memory / (double) GiB);
  self->setting_spin = FALSE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->gpu_spin), self->what_if != NULL);
  update_gpu_source (self);
}

void
gml_what_if_panel_set_document (GmlWhatIfPanel      *self,
                                GmlSnapshotDocument *document)
{
  g_return_if_fail (GML_IS_WHAT_IF_PANEL (self));

  if (self->document == document)
    return;
  /* Manual: the newest document waits for Replay; the rows stay those of the one
   * replayed, and a replay under way goes on. */
  if (self->manual)
    {
      g_set_object (&self->document, document);
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "what-if.replay",
                                     document != NULL && !self->busy);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
      return;
    }
  /* The running replays have what they need of their own: stop them. */
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_set_object (&self->document, document);
  prepare (self);
  start (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

GmlSnapshotDocument *
gml_what_if_panel_get_document (GmlWhatIfPanel *self)
{
  g_return_val_if_fail (GML_IS_WHAT_IF_PANEL (self), NULL);
  return self->document;
}

void
gml_what_if_panel_set_manual (GmlWhatIfPanel *self,
                              gboolean        manual)
{
  g_return_if_fail (GML_IS_WHAT_IF_PANEL (self));

  self->manual = manual != FALSE;
  gtk_widget_set_visible (self->replay_button, self->manual);
}

gboolean
gml_what_if_panel_get_busy (GmlWhatIfPanel *self)
{
  g_return_val_if_fail (GML_IS_WHAT_IF_PANEL (self), FALSE);
  return self->busy;
}

guint
gml_what_if_panel_get_n_rows (GmlWhatIfPanel *self)
{
  return N_ROWS;
}

const GmlWhatIfRun *
gml_what_if_panel_get_run (GmlWhatIfPanel *self,
                           guint           row)
{
  g_return_val_if_fail (GML_IS_WHAT_IF_PANEL (self) && row < N_ROWS, NULL);
  return self->done[row] ? &self->runs[row] : NULL;
}

gboolean
gml_what_if_panel_get_shown (GmlWhatIfPanel *self,
                             guint           row)
{
  g_return_val_if_fail (GML_IS_WHAT_IF_PANEL (self) && row < N_ROWS, FALSE);
  return self->done[row] && gtk_check_button_get_active (self->shown[row]);
}

guint
gml_what_if_panel_draw_on (GmlWhatIfPanel     *self,
                           GmlSnapshotPicture *picture)
{
  GmlTimelineReplay out[GML_TIMELINE_MAX_REPLAYS];
  guint n = 0;

  g_return_val_if_fail (GML_IS_WHAT_IF_PANEL (self), 0);
  g_return_val_if_fail (picture != NULL, 0);

  for (guint i = 0; i < N_ROWS && n < G_N_ELEMENTS (out); i++)
    {
      const GmlWhatIfRun *run = gml_what_if_panel_get_run (self, i);

      if (run == NULL || run->reserved == NULL || !gml_what_if_panel_get_shown (self, i))
        continue;
      out[n++] = (GmlTimelineReplay) {
        (const guint64 *) (gpointer) run->reserved->data, run->reserved->len,
        run->alloc_conf != NULL && *run->alloc_conf != '\0' ? run->alloc_conf : _("the defaults"),
      };
    }
  gml_snapshot_picture_set_replays (picture, out, n);
  return n;
}

const gsize *
gml_what_if_panel_get_empty_caches (GmlWhatIfPanel *self,
                                    guint          *n)
{
  g_return_val_if_fail (GML_IS_WHAT_IF_PANEL (self) && n != NULL, NULL);

  *n = self->empty_caches != NULL ? self->empty_caches->len : 0;
  return *n > 0 ? (const gsize *) (gpointer) self->empty_caches->data : NULL;
}

guint64
gml_what_if_panel_get_gpu_memory (GmlWhatIfPanel *self)
{
  return self->gpu_memory;
}

char *
gml_what_if_panel_describe_verdict (GmlWhatIfPanel *self,
                                    const char     *setting)
{
  const GmlWhatIfRun *recorded = gml_what_if_panel_get_run (self, 0);
  const GmlWhatIfRun *best = NULL;

  if (recorded == NULL || recorded->ooms == 0)
    return NULL;
  /* The row of @setting, or of its family ("max_split_size_mb": the best of them). */
  for (guint i = 1; i < N_ROWS; i++)
    if (self->done[i] && g_str_has_prefix (settings[i], setting) &&
        (best == NULL || self->runs[i].ooms < best->ooms ||
         (self->runs[i].ooms == best->ooms && self->runs[i].peak_reserved < best->peak_reserved)))
      best = &self->runs[i];
  if (best == NULL)
    return NULL;
  {
    g_autofree char *peak = gml_format_size_short (best->peak_reserved);

    if (best->ooms == 0)
      /* Translators: the setting, then a size. */
      return g_strdup_printf (_("With %s this run would have peaked at %s reserved and not run out "
                                "of memory (replayed)."), best->alloc_conf, peak);
    /* Translators: the setting, then a trace entry's index. */
    return g_strdup_printf (_("With %s this run still runs out of memory, first at entry %lu "
                              "(replayed)."),
                            best->alloc_conf, (gulong) best->first_oom_index);
  }
}

void
gml_what_if_panel_refresh (GmlWhatIfPanel *self)
{
  g_return_if_fail (GML_IS_WHAT_IF_PANEL (self));

  for (guint i = 0; i < N_ROWS; i++)
    {
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->shown[i]),
                                   _("Draw Its Reserved Memory on the Timeline"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->shown[i]),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _("Draw Its Reserved Memory on the Timeline"), -1);
    }
  if (self->busy)
    gtk_progress_bar_set_text (self->progress_bar, _("Replaying the trace…"));
  update_gpu_source (self);
  update_rows (self);
}

/* ------------------------------------------------------------------------- */
/* GObject                                                                   */

static void
gml_what_if_panel_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  GmlWhatIfPanel *self = GML_WHAT_IF_PANEL (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_what_if_panel_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  GmlWhatIfPanel *self = GML_WHAT_IF_PANEL (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      gml_what_if_panel_set_document (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_what_if_panel_dispose (GObject *object)
{
  GmlWhatIfPanel *self = GML_WHAT_IF_PANEL (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_WHAT_IF_PANEL);
  G_OBJECT_CLASS (gml_what_if_panel_parent_class)->dispose (object);
}

static void
gml_what_if_panel_finalize (GObject *object)
{
  GmlWhatIfPanel *self = GML_WHAT_IF_PANEL (object);

  for (guint i = 0; i < N_ROWS; i++)
    gml_what_if_run_clear (&self->runs[i]);
  g_clear_pointer (&self->empty_caches, g_array_unref);
  g_clear_pointer (&self->what_if, gml_what_if_free);
  g_clear_object (&self->document);
  G_OBJECT_CLASS (gml_what_if_panel_parent_class)->finalize (object);
}

static void
gml_what_if_panel_class_init (GmlWhatIfPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = gml_what_if_panel_get_property;
  object_class->set_property = gml_what_if_panel_set_property;
  object_class->dispose = gml_what_if_panel_dispose;
  object_class->finalize = gml_what_if_panel_finalize;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, GML_TYPE_SNAPSHOT_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The rows' results, or which of them are shown on the timeline, changed. */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_BASE "/gml-what-if-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, GmlWhatIfPanel, box);
  gtk_widget_class_bind_template_child (widget_class, GmlWhatIfPanel, gpu_spin);
  gtk_widget_class_bind_template_child (widget_class, GmlWhatIfPanel, gpu_source_label);
  gtk_widget_class_bind_template_child (widget_class, GmlWhatIfPanel, progress_box);
  gtk_widget_class_bind_template_child (widget_class, GmlWhatIfPanel, replay_button);
  gtk_widget_class_bind_template_child (widget_class, GmlWhatIfPanel, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, GmlWhatIfPanel, list);
  gtk_widget_class_bind_template_child (widget_class, GmlWhatIfPanel, error_label);
  gtk_widget_class_install_action (widget_class, "what-if.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "what-if.replay", NULL, replay_action);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
gml_what_if_panel_init (GmlWhatIfPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gml_language_localize_widget (GTK_WIDGET (self), NULL);
  for (guint i = 0; i < N_ROWS; i++)
    {
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *check = gtk_check_button_new ();

      gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
      gtk_widget_set_tooltip_text (check, _("Draw Its Reserved Memory on the Timeline"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _("Draw Its Reserved Memory on the Timeline"), -1);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      g_signal_connect_object (check, "toggled", G_CALLBACK (shown_toggled_cb), self,
                               G_CONNECT_SWAPPED);
      gtk_list_box_append (self->list, row);
      self->rows[i] = row;
      self->shown[i] = GTK_CHECK_BUTTON (check);
    }
  g_signal_connect_object (self->gpu_spin, "value-changed", G_CALLBACK (gpu_changed_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "what-if.cancel", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "what-if.replay", FALSE);
  update_gpu_source (self);
  update_rows (self);
}

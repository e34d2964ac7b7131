/* gml-live-page.c — the Live view: a running PyTorch program's GPU memory.
 *
 * Two states in one stack: idle (how to start watching, Attach…) and live
 * (the figures of the latest update, the pictures of the newest state, the
 * scrubber, the program's output, and the out-of-memory explainer, which
 * opens by itself when the program runs out of memory).
 *
 * The pictures follow the program: each new state the session builds becomes
 * the canvas's document, at its newest entry. Pausing (Space, or moving back
 * with the keys or the scrubber) keeps the document on screen while the
 * figures and the trace go on arriving; following again (Space, End) shows
 * the newest. The scrubber and its keys are the trace view's, the same as on
 * the Snapshot view; Space is a binding on the page, which the canvas (where
 * the focus goes) leaves to it, so a focused button keeps its own Space.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-live-page"

#include "config.h"

#include "gml-i18n.h"
#include <glib/gstdio.h>
#include <gio/gunixsocketaddress.h>

#include "gml-accessible.h"
#include "gml-application.h"
#include "gml-language.h"
#include "gml-live-page.h"
#include "gml-weak-ref.h"
#include "gml-oom-row.h"
#include "gml-probe-socket.h"
#include "gml-scenario.h"
#include "gml-scrub-keys.h"
#include "gml-snapshot-canvas.h"
#include "gml-what-if-panel.h"
#include "gml-snapshot-state.h"
#include "gml-trace-view.h"

/* The program's output pane keeps its last lines only. */
#define MAX_OUTPUT_LINES 2000

struct _GmlLivePage
{
  GtkWidget             parent_instance;

  /* Template widgets */
  GtkStack             *stack;
  AdwStatusPage        *idle_page;
  GtkButton            *attach_button;
  GtkLabel             *listen_label;
  GtkLabel             *title_label;
  GtkLabel             *source_label;
  GtkToggleButton      *pause_button;
  GtkButton            *save_button;
  GtkButton            *stop_button;
  GtkButton            *disconnect_button;
  GtkLabel             *allocated_label;
  GtkLabel             *reserved_label;
  GtkLabel             *segments_label;
  GtkLabel             *allocations_label;
  GtkLabel             *entries_label;
  GtkLabel             *status_label;
  GtkLabel             *problem_label;
  GmlTraceView         *trace_view;
  GmlSnapshotCanvas    *canvas;         /* the trace view's */
  GtkToggleButton      *output_button;
  GtkRevealer          *output_revealer;
  GtkScrolledWindow    *output_scroller;
  GtkTextView          *output_view;
  GtkScrolledWindow    *oom_scroller;
  GtkWidget            *oom_heading;
  GtkToggleButton      *what_if_button;
  GmlWhatIfPanel       *what_if_panel;
  GtkLabel             *oom_message_label;
  GtkLabel             *oom_status_label;
  GtkBox               *oom_box;
  GtkButton            *open_oom_button;

  /* Owned */
  GmlLiveSession       *session;
  GmlSnapshotDocument  *document;       /* on screen */
  GFile                *oom_file;       /* the snapshot of the out-of-memory error, once read */
  char                 *oom_path;       /* where the probe saved it, in the program's file system */
  GCancellable         *oom_cancellable;
  GtkFileChooserNative *chooser;
  GSocketService       *service;        /* the Live view's socket */
  char                 *listen_path;
  char                 *listen_problem;
  char                 *title;
  char                 *subtitle;
  char                 *problem;

  /* State */
  gboolean              paused;
  gboolean              listening;
  gboolean              oom_pending;    /* an oom came; its snapshot has not been read yet */
  guint64               save_id;
  double                save_fraction;
};

enum {
  PROP_0,
  PROP_TITLE,
  PROP_SUBTITLE,
  N_PROPS
};

enum {
  MESSAGE,
  OPEN_FILE,
  SAVED,
  ENDED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GmlLivePage, gml_live_page, GTK_TYPE_WIDGET)

static void set_session (GmlLivePage *self, GmlLiveSession *session);
static void update_status (GmlLivePage *self);

static void
set_title (GmlLivePage *self,
           const char  *title,
           const char  *subtitle)
{
  if (g_strcmp0 (self->title, title) != 0)
    {
      g_free (self->title);
      self->title = g_strdup (title);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
    }
  if (g_strcmp0 (self->subtitle, subtitle) != 0)
    {
      g_free (self->subtitle);
      self->subtitle = g_strdup (subtitle);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SUBTITLE]);
    }
}

/* ------------------------------------------------------------------------- */
/* Words                                                                     */

static void
set_figure (GtkLabel   *label,
            const char *name,
            const char *value)
{
  /* Translators: a figure's name and its value ("Allocated: 18 MiB"). */
  g_autofree char *text = g_strdup_printf (_("%s: %s"), name, value);

  gtk_label_set_label (label, text);
}

static void
update_figures (GmlLivePage *self)
{
  const GmlLiveFigures *f = self->session != NULL ? gml_live_session_get_figures (self->session)
                                                  : NULL;
  g_autofree char *allocated = NULL, *reserved = NULL, *segments = NULL;
  g_autofree char *allocations = NULL, *entries = NULL;

  if (f != NULL && f->valid)
    {
      allocated = gml_format_size_short (f->allocated_bytes);
      reserved = gml_format_size_short (f->reserved_bytes);
      segments = g_strdup_printf ("%" G_GUINT64_FORMAT, f->segments);
      allocations = g_strdup_printf ("%" G_GUINT64_FORMAT, f->allocations);
      entries = g_strdup_printf ("%" G_GUINT64_FORMAT, f->trace_entries);
    }
  set_figure (self->allocated_label, _("Allocated"), allocated != NULL ? allocated : "—");
  set_figure (self->reserved_label, _("Reserved"), reserved != NULL ? reserved : "—");
  set_figure (self->segments_label, _("Segments"), segments != NULL ? segments : "—");
  set_figure (self->allocations_label, _("Allocations"), allocations != NULL ? allocations : "—");
  set_figure (self->entries_label, _("Trace entries"), entries != NULL ? entries : "—");
}

static void
update_status (GmlLivePage *self)
{
  GString *out = g_string_new (NULL);
  GmlLiveStatus status;
  g_autofree char *end = NULL;
  g_autofree char *source = NULL;

  if (self->session == NULL)
    {
      g_string_free (out, TRUE);
      return;
    }
  status = gml_live_session_get_status (self->session);
  end = gml_live_session_describe_end (self->session);
  source = gml_live_session_describe_source (self->session);

  if (status == GML_LIVE_WAITING)
    g_string_append (out, gml_live_session_has_program (self->session)
                            ? _("The program runs. Its probe connects when the program imports "
                                "torch and sees a CUDA device.")
                            : _("Connected; waiting for the program’s first update."));
  else if (self->paused && self->document != NULL)
    {
      /* Translators: entry numbers. */
      g_string_append_printf (out,
                              _("Paused at entry %zu of %zu. Space follows the program again."),
                              gml_snapshot_document_get_at (self->document),
                              gml_snapshot_document_get_n_entries (self->document));
      if (status == GML_LIVE_CONNECTED)
        {
          g_string_append_c (out, ' ');
          g_string_append (out, _("The figures above go on following it."));
        }
    }
  else if (status == GML_LIVE_CONNECTED)
    {
      const GmlLiveFigures *f = gml_live_session_get_figures (self->session);

      if (f->valid)
        {
          g_autofree char *seconds = gml_format_number (f->time, 1);

          /* Translators: seconds since the probe started, as "12.5". */
          g_string_append_printf (out, _("Live: updated %s s into the run."), seconds);
        }
      else
        g_string_append (out, _("Live: waiting for the first update."));
    }
  if (end != NULL)
    {
      if (out->len > 0)
        g_string_append_c (out, ' ');
      g_string_append (out, end);
    }
  if (gml_live_session_state_omitted (self->session))
    {
      g_string_append_c (out, ' ');
      g_string_append (out,
                       _("The program holds more blocks than the probe sends: the map shows the "
                         "last state it could send."));
    }
  if (gml_live_session_get_dropped (self->session) > 0)
    {
      gulong dropped = (gulong) MIN (gml_live_session_get_dropped (self->session), G_MAXULONG);

      g_string_append_c (out, ' ');
      /* Translators: a number of trace entries; the limit is in the text. */
      g_string_append_printf (out,
                              ngettext ("%lu older trace entry was let go (the lab keeps the "
                                        "newest 200 000, and none from before a gap).",
                                        "%lu older trace entries were let go (the lab keeps the "
                                        "newest 200 000, and none from before a gap).", dropped),
                              dropped);
    }
  if (self->save_id != 0)
    {
      g_string_append_c (out, ' ');
      /* Translators: a percentage. */
      g_string_append_printf (out, _("Saving the snapshot: %.0f %%."), self->save_fraction * 100.0);
    }
  gtk_label_set_label (self->status_label, out->str);
  g_string_free (out, TRUE);

  set_title (self, gml_live_session_get_title (self->session), source);
  gtk_label_set_label (self->title_label, gml_live_session_get_title (self->session));
  gtk_label_set_label (self->source_label, source);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "live.save",
                                 status == GML_LIVE_CONNECTED && self->save_id == 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "live.stop",
                                 gml_live_session_program_running (self->session));
  gtk_widget_set_visible (GTK_WIDGET (self->stop_button),
                          gml_live_session_has_program (self->session));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "live.disconnect",
                                 status != GML_LIVE_ENDED &&
                                 !gml_live_session_has_program (self->session));
  gtk_widget_set_visible (GTK_WIDGET (self->disconnect_button),
                          !gml_live_session_has_program (self->session));
  gtk_widget_set_visible (GTK_WIDGET (self->output_button),
                          gml_live_session_has_program (self->session));
}

static void
show_problem (GmlLivePage *self,
              const char  *problem)
{
  g_free (self->problem);
  self->problem = g_strdup (problem);
  gtk_label_set_label (self->problem_label, problem != NULL ? problem : "");
  gtk_widget_set_visible (GTK_WIDGET (self->problem_label), problem != NULL);
}

static void
update_waiting (GmlLivePage *self)
{
  const char *text;

  if (self->session != NULL && gml_live_session_state_omitted (self->session))
    text = _("The program holds more blocks than the probe sends at once: the figures above "
             "are exact, the map is not drawn.");
  else if (self->session != NULL && gml_live_session_get_status (self->session) == GML_LIVE_ENDED)
    text =
        _("The connection ended before the allocator’s first state came: there is nothing to "
          "draw.");
  else
    text = _("Waiting for the allocator’s first state…");
  gml_trace_view_set_waiting_text (self->trace_view, text);
}

/* Accessible names are set in code, so they are set again when the language changes. */
static void
set_accessible_labels (GmlLivePage *self)
{
  static const struct { gsize offset; const char *label; } buttons[] = {
    { G_STRUCT_OFFSET (GmlLivePage, pause_button), N_("Pause") },
    { G_STRUCT_OFFSET (GmlLivePage, save_button), N_("Save snapshot…") },
    { G_STRUCT_OFFSET (GmlLivePage, stop_button), N_("Stop the program") },
    { G_STRUCT_OFFSET (GmlLivePage, disconnect_button), N_("Disconnect") },
    { G_STRUCT_OFFSET (GmlLivePage, output_button), N_("Program output") },
    { G_STRUCT_OFFSET (GmlLivePage, what_if_button), N_("What if…") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (buttons); i++)
    gtk_accessible_update_property (G_STRUCT_MEMBER (GtkAccessible *, self, buttons[i].offset),
                                    GTK_ACCESSIBLE_PROPERTY_LABEL, _(buttons[i].label), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->output_view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Program output"), -1);
}

/* ------------------------------------------------------------------------- */
/* The picture                                                               */

static void
document_at_changed_cb (GmlLivePage *self)
{
  if (self->paused)
    update_status (self);
}

/* The side panel: the out-of-memory explainer once there is an error, the what-if
 * replays when asked for (the header's toggle, Ctrl+Shift+W). */
static void
update_side (GmlLivePage *self)
{
  gboolean has_oom = *gtk_label_get_label (self->oom_message_label) != '\0';
  gboolean what_if = gtk_toggle_button_get_active (self->what_if_button);

  gtk_widget_set_visible (self->oom_heading, has_oom);
  gtk_widget_set_visible (GTK_WIDGET (self->oom_message_label), has_oom);
  gtk_widget_set_visible (GTK_WIDGET (self->oom_status_label), has_oom);
  gtk_widget_set_visible (GTK_WIDGET (self->oom_box), has_oom);
  gtk_widget_set_visible (GTK_WIDGET (self->what_if_panel), what_if);
  gtk_widget_set_visible (GTK_WIDGET (self->oom_scroller), has_oom || what_if);
}

/* The ticked what-if rows over the timeline of what has arrived. A replay is of
 * what had arrived when it was asked for: its line ends there. */
static void
set_replay_lines (GmlLivePage *self)
{
  if (self->document != NULL)
    gml_what_if_panel_draw_on (self->what_if_panel,
                               gml_snapshot_document_get_picture (self->document));
}

static void
what_if_changed_cb (GmlLivePage *self)
{
  set_replay_lines (self);
  gml_snapshot_canvas_refresh (self->canvas);
}

static void
show_document (GmlLivePage         *self,
               GmlSnapshotDocument *document)
{
  if (document == self->document)
    return;
  /* What has arrived, for the what-if's next Replay. */
  gml_what_if_panel_set_document (self->what_if_panel, document);
  if (self->document != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->document, document_at_changed_cb, self);
      /* Its lines are the panel's replays. */
      gml_snapshot_picture_set_replays (gml_snapshot_document_get_picture (self->document), NULL,
                                        0);
    }
  g_set_object (&self->document, document);
  if (document != NULL)
    {
      g_signal_connect_object (document, "notify::at", G_CALLBACK (document_at_changed_cb), self,
                               G_CONNECT_SWAPPED);
      set_replay_lines (self);
    }
  gml_trace_view_set_document (self->trace_view, document);
}

static void
set_paused (GmlLivePage *self,
            gboolean     paused)
{
  if (self->paused == paused)
    return;
  self->paused = paused;
  gml_trace_view_set_follow (self->trace_view, !paused);
  if (gtk_toggle_button_get_active (self->pause_button) != paused)
    gtk_toggle_button_set_active (self->pause_button, paused);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->pause_button),
                               paused ? _("Follow the Program (Space)") : _("Pause (Space)"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->pause_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  paused ? _("Follow the program") : _("Pause"), -1);
  /* Following again: the newest state, at its newest entry. */
  if (!paused && self->session != NULL)
    {
      GmlSnapshotDocument *newest = gml_live_session_get_document (self->session);

      if (newest != NULL)
        {
          show_document (self, newest);
          gml_snapshot_document_set_at (newest, gml_snapshot_document_get_n_entries (newest));
        }
    }
  update_status (self);
}

static void
pause_toggled_cb (GmlLivePage *self)
{
  set_paused (self, gtk_toggle_button_get_active (self->pause_button));
}

/* End on the trace view: following again; any other move there: paused. */
static void
follow_changed_cb (GmlLivePage *self)
{
  set_paused (self, !gml_trace_view_get_follow (self->trace_view));
}

/* ------------------------------------------------------------------------- */
/* The out-of-memory explainer                                               */

static void
oom_loaded_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GmlLivePage) self = gml_weak_ref_steal (user_data);
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshotDocument) document = gml_snapshot_document_load_finish (result, &error);
  GmlSnapshotTimeline *timeline;
  guint n_ooms;
  GApplication *app = g_application_get_default ();
  GmlQuestionBank *bank =
      GML_IS_APPLICATION (app) ? gml_application_get_bank (GML_APPLICATION (app)) : NULL;

  /* The page is gone (its dispose cancelled the load), or a newer one replaced it. */
  if (self == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->oom_cancellable);
  if (document == NULL)
    {
      g_autofree char *text = NULL;

      /* Translators: the reader's message, then a file in the program's file system. */
      text =
          g_strdup_printf (_("The snapshot saved at the error could not be read: %s It is at %s on "
                             "the computer the program runs on."), error->message,
                           self->oom_path != NULL ? self->oom_path : "—");
      gtk_label_set_label (self->oom_status_label, text);
      return;
    }
  timeline = gml_snapshot_document_get_timeline (document);
  n_ooms = gml_snapshot_timeline_get_n_ooms (timeline);
  if (n_ooms == 0)
    {
      gtk_label_set_label (self->oom_status_label,
                           _("The snapshot saved at the error holds no out-of-memory entry: the "
                             "trace was not recorded then."));
      return;
    }
  g_set_object (&self->oom_file, gml_snapshot_document_get_file (document));
  {
    g_autofree char *text = NULL;

    if (self->oom_path != NULL)
      /* Translators: a file in the program's file system. */
      text =
          g_strdup_printf (_("From the snapshot PyTorch’s allocator gave at the error, exact. The "
                             "program saved it as %s."), self->oom_path);
    else
      text = g_strdup (_("From the snapshot PyTorch’s allocator gave at the error, exact."));
    gtk_label_set_label (self->oom_status_label, text);
  }
  gtk_box_append (self->oom_box,
                  gml_oom_row_new (gml_snapshot_timeline_get_oom (timeline, n_ooms - 1),
                                   gml_snapshot_document_get_n_entries (document), bank));
  gtk_widget_set_visible (GTK_WIDGET (self->open_oom_button), TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "live.open-oom", TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "snapshot.go-to", TRUE);
}

static void
read_oom_snapshot (GmlLivePage *self,
                   GFile       *file)
{
  self->oom_pending = FALSE;
  if (self->oom_cancellable != NULL)
    g_cancellable_cancel (self->oom_cancellable);
  g_clear_object (&self->oom_cancellable);
  self->oom_cancellable = g_cancellable_new ();
  gtk_label_set_label (self->oom_status_label, _("Reading the snapshot saved at the error…"));
  gml_snapshot_document_load_async (file, -1, self->oom_cancellable, NULL, NULL, oom_loaded_cb,
                                    gml_weak_ref_new (self));
}

static void
session_oom_cb (GmlLivePage           *self,
                const GmlProbeMessage *m,
                GmlLiveSession        *session)
{
  /* The capacity is the GPU's, from the probe's hello: PyTorch hands its observers
   * the per-process limit instead when one is set. */
  guint64 total = gml_live_session_get_gpu_total (session);
  g_autofree char *message = gml_snapshot_format_oom_message (m->device, m->size, m->device_free,
                                                              total > 0 ? total : m->device_total,
                                                              m->allocated_bytes,
                                                              m->reserved_bytes);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->oom_box))) != NULL)
    gtk_box_remove (self->oom_box, child);
  g_free (self->oom_path);
  self->oom_path = g_strdup (m->snapshot);
  g_clear_object (&self->oom_file);
  self->oom_pending = TRUE;
  gtk_widget_set_visible (GTK_WIDGET (self->open_oom_button), FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "live.open-oom", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "snapshot.go-to", FALSE);
  gtk_label_set_label (self->oom_message_label, message);
  gtk_label_set_label (self->oom_status_label, _("Waiting for the snapshot saved at the error…"));
  /* The explainer opens by itself. */
  update_side (self);
  g_signal_emit (self, signals[MESSAGE], 0,
                 _("The program ran out of GPU memory. The explainer is open beside "
                   "the pictures."));
}

/* The probe's snapshot of the error, as a file here; or, when it could not
 * come over the connection, the file the probe saved, if this side can read it. */
static void
session_oom_snapshot_cb (GmlLivePage    *self,
                         GFile          *file,
                         const char     *error,
                         GmlLiveSession *session)
{
  if (file != NULL)
    {
      read_oom_snapshot (self, file);
      return;
    }
  if (self->oom_path != NULL && g_file_test (self->oom_path, G_FILE_TEST_IS_REGULAR))
    {
      g_autoptr(GFile) saved = g_file_new_for_path (self->oom_path);

      read_oom_snapshot (self, saved);
      return;
    }
  {
    /* Translators: why the copy failed, then a file in the program's file system. */
    g_autofree char *text =
        g_strdup_printf (_("The snapshot saved at the error did not reach the lab: %s It is at %s "
                           "on the computer the program runs on; open it with Open Snapshot…"),
                         error != NULL ? error : "", self->oom_path != NULL ? self->oom_path : "—");

    self->oom_pending = FALSE;
    gtk_label_set_label (self->oom_status_label, text);
  }
}

/* ------------------------------------------------------------------------- */
/* The session                                                               */

static void
session_changed_cb (GmlLivePage    *self,
                    GmlLiveSession *session)
{
  update_status (self);
  update_figures (self);
  update_waiting (self);
  if (gml_live_session_get_status (session) == GML_LIVE_ENDED)
    {
      /* The probe never sent the error's snapshot: read the file it saved, if here. */
      if (self->oom_pending)
        session_oom_snapshot_cb (self, NULL, _("The connection closed before it came."), session);
      g_signal_emit (self, signals[ENDED], 0, gml_live_session_get_exit_status (session));
    }
}

static void
session_figures_cb (GmlLivePage    *self,
                    GmlLiveSession *session)
{
  update_figures (self);
  update_status (self);
  update_waiting (self);
}

static void
session_document_cb (GmlLivePage    *self,
                     GmlLiveSession *session)
{
  GmlSnapshotDocument *newest = gml_live_session_get_document (session);

  if (!self->paused || self->document == NULL)
    show_document (self, newest);
  if (self->paused)
    update_status (self);
}

static void
session_refused_cb (GmlLivePage    *self,
                    const char     *message,
                    GmlLiveSession *session)
{
  guint n = gml_live_session_get_n_refused (session);
  g_autofree char *text = NULL;

  if (n > 1)
    /* Translators: the latest refused message, then how many were refused in all. */
    text = g_strdup_printf (ngettext ("%s (%u message refused in all.)",
                                      "%s (%u messages refused in all.)", n),
                            message, n);
  show_problem (self, text != NULL ? text : message);
}

static void
session_probe_error_cb (GmlLivePage    *self,
                        const char     *message,
                        GmlLiveSession *session)
{
  /* Translators: %s is the probe's own message (Python's, in English). */
  g_autofree char *text = g_strdup_printf (_("The probe in the program reported an error: %s"),
                                           message);

  show_problem (self, text);
}

static void
session_output_cb (GmlLivePage    *self,
                   int             which,
                   const char     *text,
                   GmlLiveSession *session)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->output_view);
  GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (self->output_scroller);
  gboolean at_end = gtk_adjustment_get_value (v) + gtk_adjustment_get_page_size (v) >=
                    gtk_adjustment_get_upper (v) - 4;
  GtkTextIter end;
  int lines;

  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, text, -1);
  lines = gtk_text_buffer_get_line_count (buffer);
  if (lines > MAX_OUTPUT_LINES)
    {
      GtkTextIter start, cut;

      gtk_text_buffer_get_start_iter (buffer, &start);
      gtk_text_buffer_get_iter_at_line (buffer, &cut, lines - MAX_OUTPUT_LINES);
      gtk_text_buffer_delete (buffer, &start, &cut);
    }
  if (at_end)
    {
      GtkTextMark *mark = gtk_text_buffer_get_insert (buffer);

      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_place_cursor (buffer, &end);
      gtk_text_view_scroll_mark_onscreen (self->output_view, mark);
    }
}

static void
session_dump_progress_cb (GmlLivePage    *self,
                          guint64         id,
                          guint64         done,
                          guint64         total,
                          GmlLiveSession *session)
{
  if (id != self->save_id || total == 0)
    return;
  self->save_fraction = (double) done / (double) total;
  update_status (self);
}

static void
session_dump_done_cb (GmlLivePage    *self,
                      guint64         id,
                      GFile          *file,
                      const char     *error,
                      GmlLiveSession *session)
{
  if (id != self->save_id)
    return;
  self->save_id = 0;
  update_status (self);
  if (file != NULL)
    g_signal_emit (self, signals[SAVED], 0, file);
  else
    {
      /* Translators: %s says why. */
      g_autofree char *text = g_strdup_printf (_("The snapshot was not saved: %s"),
                                               error != NULL ? error : "");

      g_signal_emit (self, signals[MESSAGE], 0, text);
    }
}

/* Closes the session, if any, and stops fetching its out-of-memory snapshot. */
static void
drop_session (GmlLivePage *self)
{
  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->session, self);
      gml_live_session_close (self->session);
      g_clear_object (&self->session);
    }
  if (self->oom_cancellable != NULL)
    g_cancellable_cancel (self->oom_cancellable);
  g_clear_object (&self->oom_cancellable);
}

static void
set_session (GmlLivePage    *self,
             GmlLiveSession *session)
{
  GtkWidget *child;

  drop_session (self);
  self->session = session;   /* taken */
  self->save_id = 0;
  self->oom_pending = FALSE;
  g_clear_object (&self->oom_file);
  g_clear_pointer (&self->oom_path, g_free);
  show_problem (self, NULL);
  show_document (self, NULL);
  set_paused (self, FALSE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->oom_box))) != NULL)
    gtk_box_remove (self->oom_box, child);
  gtk_label_set_label (self->oom_message_label, "");
  update_side (self);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->output_view), "", -1);
  gtk_toggle_button_set_active (self->output_button, FALSE);

  if (session == NULL)
    {
      set_title (self, NULL, NULL);
      gml_accessible_show_state (self->stack, "idle");
      return;
    }
  g_signal_connect_object (session, "changed", G_CALLBACK (session_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "figures", G_CALLBACK (session_figures_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "document", G_CALLBACK (session_document_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "oom", G_CALLBACK (session_oom_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "oom-snapshot", G_CALLBACK (session_oom_snapshot_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "refused", G_CALLBACK (session_refused_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "probe-error", G_CALLBACK (session_probe_error_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "output", G_CALLBACK (session_output_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "dump-progress", G_CALLBACK (session_dump_progress_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "dump-done", G_CALLBACK (session_dump_done_cb), self,
                           G_CONNECT_SWAPPED);
  update_waiting (self);
  update_figures (self);
  update_status (self);
  gml_accessible_show_state (self->stack, "live");
  gtk_widget_grab_focus (GTK_WIDGET (self->trace_view));
}

gboolean
gml_live_page_watch_command (GmlLivePage        *self,
                             const char * const *argv,
                             double              interval,
                             const char         *snapshot_dir,
                             GError            **error)
{
  GmlLiveSession *session;

  g_return_val_if_fail (GML_IS_LIVE_PAGE (self), FALSE);

  session = gml_live_session_new_for_command (argv, interval, snapshot_dir, error);
  if (session == NULL)
    return FALSE;
  set_session (self, session);
  return TRUE;
}

void
gml_live_page_attach (GmlLivePage     *self,
                      GSocket         *socket,
                      GmlProbeMessage *hello)
{
  g_return_if_fail (GML_IS_LIVE_PAGE (self));
  set_session (self, gml_live_session_new_for_socket (socket, hello));
}

GmlLiveSession *
gml_live_page_get_session (GmlLivePage *self)
{
  g_return_val_if_fail (GML_IS_LIVE_PAGE (self), NULL);
  return self->session;
}

/* ------------------------------------------------------------------------- */
/* The Live view's socket                                                    */

static void
update_listen_label (GmlLivePage *self)
{
  g_autofree char *text = NULL;

  if (self->listen_problem != NULL)
    /* Translators: %s says why. */
    text = g_strdup_printf (_("Programs cannot connect here by themselves: %s Use Attach…"),
                            self->listen_problem);
  else if (self->service != NULL)
    text =
        g_strdup (_("While this view is open, a program that calls gml_probe.start() connects here "
                    "by itself."));
  gtk_label_set_label (self->listen_label, text != NULL ? text : "");
}

static gboolean
incoming_cb (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source,
             gpointer           user_data)
{
  GmlLivePage *self = user_data;

  /* One program at a time: one that comes while another is watched is
   * turned away, and its probe waits to be attached. */
  if (self->session != NULL && gml_live_session_get_status (self->session) != GML_LIVE_ENDED)
    return FALSE;
  set_session (self, gml_live_session_new_for_connection (connection));
  return TRUE;
}

static void
stop_listening (GmlLivePage *self)
{
  if (self->service != NULL)
    gml_probe_unlisten (self->service, self->listen_path);
  g_clear_object (&self->service);
  g_clear_pointer (&self->listen_path, g_free);
}

static void
start_listening (GmlLivePage *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = gml_probe_socket_dir (&error);
  g_autofree char *path = NULL;

  g_clear_pointer (&self->listen_problem, g_free);
  if (dir == NULL)
    {
      self->listen_problem = g_strdup (error->message);
      update_listen_label (self);
      return;
    }
  path = gml_probe_default_socket_path ();
  self->service = gml_probe_listen (path, &error);
  if (self->service == NULL)
    {
      /* Someone listens there: another window of the lab. It keeps it. */
      self->listen_problem = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE)
        ? g_strdup (_("another window of the lab listens for them."))
        : g_strdup (error->message);
      update_listen_label (self);
      return;
    }
  self->listen_path = g_steal_pointer (&path);
  g_signal_connect (self->service, "incoming", G_CALLBACK (incoming_cb), self);
  g_socket_service_start (self->service);
  update_listen_label (self);
}

void
gml_live_page_set_listening (GmlLivePage *self,
                             gboolean     listening)
{
  g_return_if_fail (GML_IS_LIVE_PAGE (self));

  if (self->listening == listening)
    return;
  self->listening = listening;
  if (listening)
    start_listening (self);
  else
    stop_listening (self);
}

const char *
gml_live_page_get_title (GmlLivePage *self)
{
  g_return_val_if_fail (GML_IS_LIVE_PAGE (self), NULL);
  return self->title;
}

const char *
gml_live_page_get_subtitle (GmlLivePage *self)
{
  g_return_val_if_fail (GML_IS_LIVE_PAGE (self), NULL);
  return self->subtitle;
}

/* ------------------------------------------------------------------------- */
/* Actions                                                                   */

static void
pause_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  GmlLivePage *self = GML_LIVE_PAGE (widget);

  if (self->session == NULL)
    return;
  set_paused (self, !self->paused);
}

static void
save_response_cb (GmlLivePage          *self,
                  int                   response,
                  GtkFileChooserNative *chooser)
{
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  if (file != NULL && self->session != NULL)
    {
      self->save_fraction = 0;
      self->save_id = gml_live_session_save_snapshot (self->session, file);
      if (self->save_id == 0)
        g_signal_emit (self, signals[MESSAGE], 0,
                       _("The snapshot was not saved: the program is no longer connected."));
      update_status (self);
    }
}

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  GmlLivePage *self = GML_LIVE_PAGE (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  g_autoptr(GtkFileFilter) pickles = gtk_file_filter_new ();
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");
  g_autofree char *name = g_strdup_printf ("live-%s.pickle", stamp);

  if (self->session == NULL || gml_live_session_get_status (self->session) != GML_LIVE_CONNECTED ||
      self->save_id != 0)
    return;
  if (self->chooser == NULL)
    {
      self->chooser = gtk_file_chooser_native_new (_("Save Snapshot"),
                                                   GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                                   GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"),
                                                   _("_Cancel"));
      gtk_file_filter_set_name (pickles, _("PyTorch memory snapshots"));
      gtk_file_filter_add_pattern (pickles, "*.pickle");
      gtk_file_filter_add_pattern (pickles, "*.pkl");
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), pickles);
      gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
      g_signal_connect_object (self->chooser, "response", G_CALLBACK (save_response_cb), self,
                               G_CONNECT_SWAPPED);
    }
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser), name);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
what_if_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  GmlLivePage *self = GML_LIVE_PAGE (widget);

  gtk_toggle_button_set_active (self->what_if_button,
                                !gtk_toggle_button_get_active (self->what_if_button));
}

static void
output_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  GmlLivePage *self = GML_LIVE_PAGE (widget);

  if (gtk_widget_get_visible (GTK_WIDGET (self->output_button)))
    gtk_toggle_button_set_active (self->output_button,
                                  !gtk_toggle_button_get_active (self->output_button));
}

static void
stop_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  GmlLivePage *self = GML_LIVE_PAGE (widget);

  if (self->session != NULL)
    gml_live_session_stop_program (self->session);
}

static void
disconnect_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  GmlLivePage *self = GML_LIVE_PAGE (widget);

  if (self->session == NULL)
    return;
  gml_live_session_close (self->session);
  update_status (self);
}

/* The explainer's "Show" button and "Open in the Snapshot View": the error's
 * snapshot, whole, in the Snapshot view. */
static void
open_oom_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  GmlLivePage *self = GML_LIVE_PAGE (widget);

  if (self->oom_file != NULL)
    g_signal_emit (self, signals[OPEN_FILE], 0, self->oom_file);
}

/* ------------------------------------------------------------------------- */
/* Language                                                                  */

static void
language_changed_cb (GtkWidget *widget)
{
  GmlLivePage *self = GML_LIVE_PAGE (widget);

  set_accessible_labels (self);
  gml_trace_view_refresh (self->trace_view);
  gml_what_if_panel_refresh (self->what_if_panel);
  update_listen_label (self);
  update_figures (self);
  update_waiting (self);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->pause_button),
                               self->paused ? _("Follow the Program (Space)") : _("Pause (Space)"));
  if (self->session == NULL)
    return;
  update_status (self);
  gml_snapshot_canvas_refresh (self->canvas);
}

static void
map_cb (GmlLivePage *self)
{
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "live") == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->trace_view));
  else
    gtk_widget_grab_focus (GTK_WIDGET (self->attach_button));
}

/* ------------------------------------------------------------------------- */
/* GObject                                                                   */

static void
gml_live_page_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  GmlLivePage *self = GML_LIVE_PAGE (object);

  switch (prop_id)
    {
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_SUBTITLE:
      g_value_set_string (value, self->subtitle);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_live_page_dispose (GObject *object)
{
  GmlLivePage *self = GML_LIVE_PAGE (object);

  stop_listening (self);
  drop_session (self);
  if (self->document != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->document, document_at_changed_cb, self);
      gml_snapshot_picture_set_replays (gml_snapshot_document_get_picture (self->document), NULL,
                                        0);
    }
  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_LIVE_PAGE);
  g_clear_object (&self->document);
  g_clear_object (&self->oom_file);
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);

  G_OBJECT_CLASS (gml_live_page_parent_class)->dispose (object);
}

static void
gml_live_page_finalize (GObject *object)
{
  GmlLivePage *self = GML_LIVE_PAGE (object);

  g_free (self->oom_path);
  g_free (self->listen_path);
  g_free (self->listen_problem);
  g_free (self->title);
  g_free (self->subtitle);
  g_free (self->problem);

  G_OBJECT_CLASS (gml_live_page_parent_class)->finalize (object);
}

static void
gml_live_page_class_init (GmlLivePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = gml_live_page_dispose;
  object_class->finalize = gml_live_page_finalize;
  object_class->get_property = gml_live_page_get_property;

  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SUBTITLE] =
    g_param_spec_string ("subtitle", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A sentence for a toast. */
  signals[MESSAGE] = g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                   NULL, NULL,
                                   G_TYPE_NONE, 1, G_TYPE_STRING);
  /* A snapshot file to open in the Snapshot view. */
  signals[OPEN_FILE] = g_signal_new ("open-file", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL,
                                     NULL, G_TYPE_NONE, 1, G_TYPE_FILE);
  /* Save Snapshot… wrote this file. */
  signals[SAVED] = g_signal_new ("saved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                 NULL, NULL,
                                 G_TYPE_NONE, 1, G_TYPE_FILE);
  /* The session ended; the program's exit status, or -1. */
  signals[ENDED] = g_signal_new ("ended", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                 NULL, NULL,
                                 G_TYPE_NONE, 1, G_TYPE_INT);

  g_type_ensure (GML_TYPE_TRACE_VIEW);
  g_type_ensure (GML_TYPE_WHAT_IF_PANEL);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_BASE "/gml-live-page.ui");
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, stack);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, idle_page);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, attach_button);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, listen_label);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, title_label);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, source_label);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, pause_button);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, save_button);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, stop_button);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, disconnect_button);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, allocated_label);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, reserved_label);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, segments_label);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, allocations_label);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, entries_label);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, status_label);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, problem_label);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, trace_view);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, output_button);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, output_revealer);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, output_scroller);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, output_view);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, oom_scroller);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, oom_heading);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, what_if_button);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, what_if_panel);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, oom_message_label);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, oom_status_label);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, oom_box);
  gtk_widget_class_bind_template_child (widget_class, GmlLivePage, open_oom_button);

  gtk_widget_class_install_action (widget_class, "live.pause", NULL, pause_action);
  gtk_widget_class_install_action (widget_class, "live.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "live.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "live.output", NULL, output_action);
  gtk_widget_class_install_action (widget_class, "live.what-if", NULL, what_if_action);
  gtk_widget_class_install_action (widget_class, "live.disconnect", NULL, disconnect_action);
  gtk_widget_class_install_action (widget_class, "live.open-oom", NULL, open_oom_action);
  /* The explainer's rows (GmlOomRow) point their Show button here. */
  gtk_widget_class_install_action (widget_class, "snapshot.go-to", "t", open_oom_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_space, 0, "live.pause", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Space, 0, "live.pause", NULL);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "livepage");
}

static void
gml_live_page_init (GmlLivePage *self)
{
  GtkEventController *shortcuts;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->canvas = gml_trace_view_get_canvas (self->trace_view);
  /* Scrubbing back stops following the program; End follows it again. */
  gml_trace_view_set_follow (self->trace_view, TRUE);
  g_signal_connect_object (self->trace_view, "notify::follow", G_CALLBACK (follow_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->pause_button, "toggled", G_CALLBACK (pause_toggled_cb), self,
                           G_CONNECT_SWAPPED);
  /* The program's output, folded away under the pictures until asked for. */
  g_object_bind_property (self->output_button, "active", self->output_revealer, "reveal-child",
                          G_BINDING_SYNC_CREATE);
  g_signal_connect (self, "map", G_CALLBACK (map_cb), NULL);

  /* Ctrl+S saves while the view is shown (a hidden page's shortcuts do not run). Not a
   * binding action: those run only with the focus inside the page, and after a click on
   * the view switcher the focus is in the header bar. The window cannot bind them either,
   * as it does not see the page's live.* actions. */
  shortcuts = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                     GTK_SHORTCUT_SCOPE_GLOBAL);
  gml_scrub_keys_add_shortcut (shortcuts, "<Control>s", "live.save");
  gml_scrub_keys_add_shortcut (shortcuts, "<Control><Shift>o", "live.output");
  gml_scrub_keys_add_shortcut (shortcuts, "<Control><Shift>w", "live.what-if");
  gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);

  for (const char * const *name = (const char * const[]) { "live.save", "live.stop",
                                                           "live.disconnect",
                                                           "live.open-oom", "snapshot.go-to",
                                                           NULL };
       *name != NULL; name++)
    gtk_widget_action_set_enabled (GTK_WIDGET (self), *name, FALSE);

  /* The run is still arriving: the what-if replays what has, when asked. */
  gml_what_if_panel_set_manual (self->what_if_panel, TRUE);
  g_signal_connect_object (self->what_if_panel, "changed", G_CALLBACK (what_if_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->what_if_button, "toggled", G_CALLBACK (update_side), self,
                           G_CONNECT_SWAPPED);
  update_side (self);
  set_accessible_labels (self);
  update_figures (self);
  update_waiting (self);
  update_listen_label (self);
  gml_accessible_show_state (self->stack, "idle");
  gml_language_follow (GTK_WIDGET (self), language_changed_cb);
}

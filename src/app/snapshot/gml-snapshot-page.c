/* gml-snapshot-page.c — the Snapshot view: open a PyTorch memory snapshot,
 * move through its trace, read its out-of-memory errors.
 *
 * Four states in one stack: empty (what a snapshot is and how to make one),
 * loading (a progress bar and Cancel, while a GTask thread reads the file
 * and walks its trace), error (what is wrong with the file, in the reader's
 * words) and loaded (the pictures, the scrubber, the explainer).
 *
 * The position in the trace is the document's "at" property. The pictures and
 * the scrubber are a GmlTraceView, whose keys move it (←/→ one entry, Page
 * Up/Down 1 %, Home/End); Ctrl+K, to the peak, and a row's Show are this
 * page's binding actions.
 *
 * Beside the pictures: the out-of-memory errors, the run replayed under
 * other allocator settings (what if: its verdicts go into the errors' cards,
 * the rows chosen are drawn on the timeline), the peak of allocated
 * memory by category and by line, the block chosen on the map (else the
 * largest at N) with its whole stack, and, when a second snapshot is opened
 * as B, the two runs compared.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot-page"

#include "config.h"

#include <string.h>
#include <time.h>

#include "gml-accessible.h"
#include "gml-i18n.h"
#include "gml-language.h"

#include "gml-application.h"
#include "gml-export-chooser.h"
#include "gml-oom-row.h"
#include "gml-scenario.h"
#include "gml-scrub-keys.h"
#include "gml-snapshot-canvas.h"
#include "gml-trace-view.h"
#include "gml-snapshot-page.h"
#include "gml-weak-ref.h"
#include "gml-what-if-panel.h"

/* More cards than this would make the side panel a list nobody reads; the
 * timeline marks every out-of-memory error anyway. */
#define MAX_OOM_ROWS 50

struct _GmlSnapshotPage
{
  GtkWidget             parent_instance;

  /* Template widgets */
  GtkStack             *stack;
  AdwStatusPage        *loading_page;
  AdwStatusPage        *error_page;
  GtkProgressBar       *progress_bar;
  GtkLabel             *file_label;
  GtkLabel             *source_label;
  GtkDropDown          *device_dropdown;
  GtkButton            *export_button;
  GmlTraceView         *trace_view;
  GmlSnapshotCanvas    *canvas;         /* the trace view's */
  GtkLabel             *no_oom_label;
  GtkBox               *oom_box;
  GmlWhatIfPanel       *what_if_panel;
  GtkLabel             *about_label;
  GtkLabel             *peak_label;
  GtkLabel             *peak_categories_label;
  GtkLabel             *peak_lines_label;
  GtkButton            *peak_button;
  GtkBox               *compare_box;
  GtkLabel             *compare_label;
  GtkLabel             *compare_categories_label;
  GtkLabel             *compare_lines_label;
  GtkButton            *stop_compare_button;
  GtkLabel             *block_title_label;
  GtkLabel             *block_label;
  GtkLabel             *block_frames_label;
  GtkExpander          *block_internal_expander;
  GtkLabel             *block_internal_label;
  GtkButton            *empty_open_button;
  GtkButton            *error_open_button;
  GtkButton            *error_back_button;
  GtkButton            *cancel_button;

  /* Owned */
  GmlSnapshotDocument  *document;
  GCancellable         *cancellable;      /* the load in progress */
  GFile                *loading_file;
  GFile                *error_file;       /* the file the error page is about */
  GCancellable         *compare_cancellable;   /* B being read */
  GtkFileChooserNative *chooser;
  char                 *title;
  char                 *subtitle;

  /* State */
  guint                 n_replays_drawn;
  guint64               selected_block;   /* the address chosen on the map; 0 = the largest */
  guint                 pulse_source;
  gboolean              switching_device;
  gint64                bench_open_time;
  gint64                bench_loaded_time;
  gint64                bench_open_cpu;
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  PROP_TITLE,
  PROP_SUBTITLE,
  N_PROPS
};

enum {
  MESSAGE,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GmlSnapshotPage, gml_snapshot_page, GTK_TYPE_WIDGET)

static void set_document (GmlSnapshotPage *self, GmlSnapshotDocument *document);
static void update_block (GmlSnapshotPage *self);
static void update_devices (GmlSnapshotPage *self);
static void map_cb (GmlSnapshotPage *self);

/* ------------------------------------------------------------------------- */
/* Words that depend on the position or the language                        */

static void
update_about (GmlSnapshotPage *self)
{
  GmlSnapshot *snap = gml_snapshot_document_get_snapshot (self->document);
  GmlSnapshotTimeline *tl = gml_snapshot_document_get_timeline (self->document);
  const GmlSnapshotSettings *settings = gml_snapshot_get_settings (snap);
  const gsize *counts = gml_snapshot_timeline_get_action_counts (tl);
  g_autofree char *version = gml_snapshot_describe_version (snap);
  g_autofree char *peak = gml_format_size_short (gml_snapshot_timeline_get_peak_requested (tl));
  guint inconsistent = gml_snapshot_timeline_get_n_inconsistencies (tl);
  GString *out = g_string_new (NULL);

  /* Translators: %s names PyTorch versions; it is in English. */
  g_string_append_printf (out, _("Written by: %s"), version);
  g_string_append_c (out, '\n');
  if (!settings->present)
    g_string_append (out, _("Allocator settings: not recorded (PyTorch before 2.3)"));
  else if (settings->alloc_conf != NULL && settings->alloc_conf[0] != '\0')
    g_string_append_printf (out, "PYTORCH_CUDA_ALLOC_CONF=%s", settings->alloc_conf);
  else
    g_string_append (out,
                     _("Allocator settings: the defaults (PYTORCH_CUDA_ALLOC_CONF was not set)"));
  g_string_append_c (out, '\n');
  /* Translators: a size. */
  g_string_append_printf (out, _("The most requested at once over the trace: %s"), peak);
  g_string_append_c (out, '\n');
  /* Translators: counts of PyTorch's trace actions, whose names stay in English. */
  g_string_append_printf (out,
                          _("alloc %zu, free_completed %zu, segment_alloc %zu, segment_free %zu, "
                            "oom %zu"),
                          counts[GML_SNAP_ALLOC], counts[GML_SNAP_FREE_COMPLETED],
                          counts[GML_SNAP_SEGMENT_ALLOC], counts[GML_SNAP_SEGMENT_FREE],
                          counts[GML_SNAP_OOM]);
  if (inconsistent > 0)
    {
      g_string_append_c (out, '\n');
      g_string_append_printf (out,
                              ngettext ("%u trace entry contradicts the state and was skipped.",
                                        "%u trace entries contradict the state and were skipped.",
                                        inconsistent), inconsistent);
    }
  gtk_label_set_label (self->about_label, out->str);
  g_string_free (out, TRUE);
}

/* The lines holding the most at a peak, most first. */
#define PEAK_LINES 6
#define COMPARE_LINES 8
/* PyTorch's own frames of a stack, listed in the details: enough to read a
 * C++ stack of a few hundred frames, not a book. */
#define MAX_INTERNAL_FRAMES 400

static void
append_categories (GString        *out,
                   const guint64   bytes[GML_N_CATEGORIES])
{
  for (guint k = 0; k < GML_SNAP_N_CATEGORIES; k++)
    {
      GmlCategory c = gml_snapshot_categories[k];
      g_autofree char *size = NULL;

      if (bytes[c] == 0)
        continue;
      size = gml_format_size_short (bytes[c]);
      if (out->len > 0)
        g_string_append_c (out, '\n');
      /* Translators: a category of memory and its size. */
      g_string_append_printf (out, _("%s: %s"), gml_snapshot_category_name (c), size);
    }
}

static void
update_peak (GmlSnapshotPage *self)
{
  const GmlSnapshotPeak *peak = gml_snapshot_document_get_peak (self->document);
  GmlSnapshot *snap = gml_snapshot_document_get_snapshot (self->document);
  GmlSnapshotTimeline *tl = gml_snapshot_document_get_timeline (self->document);
  g_autofree char *allocated = gml_format_size_short (peak->allocated_bytes);
  g_autofree char *reserved = gml_format_size_short (peak->reserved_bytes);
  g_autofree char *text = NULL;
  GString *categories = g_string_new (NULL);
  GString *lines = g_string_new (NULL);
  guint streams = 0;

  /* Translators: a size, an entry number and a size. */
  text = g_strdup_printf (_("%s allocated after entry %zu, when %s was reserved."), allocated,
                          peak->index, reserved);
  gtk_label_set_label (self->peak_label, text);

  append_categories (categories, peak->by_category);
  for (guint s = 0; s < gml_snapshot_get_n_streams (snap); s++)
    streams += gml_snapshot_timeline_get_stream_peak (tl, s) > 0;
  /* Each stream's own peak, when there is more than one. */
  for (guint s = 0; streams > 1 && s < gml_snapshot_get_n_streams (snap); s++)
    {
      guint64 bytes = gml_snapshot_timeline_get_stream_peak (tl, s);
      g_autofree char *size = NULL;

      if (bytes == 0)
        continue;
      size = gml_format_size_short (bytes);
      g_string_append_c (categories, '\n');
      /* Translators: a CUDA stream number and the most allocated on it at once. */
      g_string_append_printf (categories, _("Stream %u at its own peak: %s"), s, size);
    }
  gtk_label_set_label (self->peak_categories_label, categories->str);
  gtk_widget_set_visible (GTK_WIDGET (self->peak_categories_label), categories->len > 0);

  for (guint i = 0; i < peak->by_where->len && i < PEAK_LINES; i++)
    {
      const GmlSnapshotWhereBytes *w = &g_array_index (peak->by_where, GmlSnapshotWhereBytes, i);
      g_autofree char *size = gml_format_size_short (w->bytes);

      if (lines->len == 0)
        g_string_append (lines, _("Held by:"));
      g_string_append_c (lines, '\n');
      /* Translators: the user's line ("model.py:54 forward") and the bytes it holds at the peak. */
      g_string_append_printf (lines, _("%s — %s"),
                              w->where != NULL ? w->where : _("no stack recorded"), size);
    }
  gtk_label_set_label (self->peak_lines_label, lines->str);
  gtk_widget_set_visible (GTK_WIDGET (self->peak_lines_label), lines->len > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "snapshot.peak",
                                 gml_snapshot_document_get_n_entries (self->document) > 0);
  g_string_free (categories, TRUE);
  g_string_free (lines, TRUE);
}

/* The block for the details: the one chosen on the map, while it is live at
 * N, else the largest live block. */
static const GmlSnapshotLayoutBlock *
details_block (GmlSnapshotPage *self,
               gboolean        *chosen)
{
  GmlSnapshotPicture *picture = gml_snapshot_document_get_picture (self->document);
  const GmlSnapshotLayoutBlock *block = NULL;

  if (self->selected_block != 0)
    block = gml_snapshot_layout_find_block (gml_snapshot_picture_get_layout (picture),
                                            self->selected_block);
  *chosen = block != NULL && block->state != GML_SNAP_BLOCK_INACTIVE;
  if (!*chosen)
    block = gml_snapshot_picture_get_largest_block (picture);
  return block;
}

static void
update_block (GmlSnapshotPage *self)
{
  GmlSnapshot *snap = gml_snapshot_document_get_snapshot (self->document);
  GmlSnapshotPicture *picture = gml_snapshot_document_get_picture (self->document);
  gboolean chosen;
  const GmlSnapshotLayoutBlock *block = details_block (self, &chosen);
  g_autofree char *text = NULL;
  g_autofree char *expander = NULL;
  GString *frames = g_string_new (NULL);
  GString *internal = g_string_new (NULL);
  guint n = 0, n_internal = 0;
  const guint32 *ids;

  if (block == NULL)
    gtk_label_set_label (self->block_title_label, _("No block is allocated at this entry."));
  else if (chosen)
    gtk_label_set_label (self->block_title_label, _("The block chosen on the memory map."));
  else
    gtk_label_set_label (self->block_title_label,
                         _("The largest block at this entry; click one on the memory map to see "
                           "it here."));
  gtk_widget_set_visible (GTK_WIDGET (self->block_label), block != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->block_frames_label), block != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->block_internal_expander), FALSE);
  if (block == NULL)
    goto out;

  /* The tooltip's words without its short stack: the whole stack is below. */
  text = gml_snapshot_picture_describe_block_summary (picture, block);
  gtk_label_set_label (self->block_label, text);

  /* The user's frames, then the libraries', every one; PyTorch's collapsed. */
  ids = gml_snapshot_get_frame_list (snap, block->frames, &n);
  for (int group = GML_SNAP_FRAME_GROUP_USER; group <= GML_SNAP_FRAME_GROUP_INTERNAL; group++)
    {
      gboolean first = TRUE;

      for (guint i = 0; i < n; i++)
        {
          g_autofree char *frame = NULL;
          GString *into = group == GML_SNAP_FRAME_GROUP_INTERNAL ? internal : frames;

          if (gml_snapshot_get_frame (snap, ids[i]) == NULL ||
              (int) gml_snapshot_get_frame_group (snap, ids[i]) != group)
            continue;
          if (group == GML_SNAP_FRAME_GROUP_INTERNAL && ++n_internal > MAX_INTERNAL_FRAMES)
            continue;
          if (first && group != GML_SNAP_FRAME_GROUP_INTERNAL)
            {
              if (into->len > 0)
                g_string_append_c (into, '\n');
              g_string_append (into,
                               group == GML_SNAP_FRAME_GROUP_USER ? _("Your code, innermost first:")
                                                                        : _("Libraries:"));
            }
          first = FALSE;
          frame = gml_snapshot_format_frame (snap, ids[i]);
          if (into->len > 0)
            g_string_append_c (into, '\n');
          g_string_append (into, group == GML_SNAP_FRAME_GROUP_INTERNAL ? "" : "  ");
          g_string_append (into, frame);
        }
    }
  if (n == 0)
    g_string_append (frames, _("The snapshot has no stack for it "
                               "(record it with _record_memory_history())."));
  else if (frames->len == 0)
    g_string_append (frames, _("No frame of your code or of a library: only PyTorch’s."));
  gtk_label_set_label (self->block_frames_label, frames->str);
  if (n_internal > 0)
    {
      if (n_internal > MAX_INTERNAL_FRAMES)
        {
          g_string_append_c (internal, '\n');
          g_string_append_printf (internal, ngettext ("… and %u more frame", "… and %u more frames",
                                                      n_internal - MAX_INTERNAL_FRAMES),
                                  n_internal - MAX_INTERNAL_FRAMES);
        }
      /* Translators: the number of PyTorch's frames (C++ and Python) of a stack, collapsed. */
      expander = g_strdup_printf (ngettext ("PyTorch’s frame (%u)", "PyTorch’s frames (%u)",
                                            n_internal),
                                  n_internal);
      gtk_expander_set_label (self->block_internal_expander, expander);
      /* GTK 4.8 names an expander by its type, not its label. */
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->block_internal_expander),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, expander, -1);
      gtk_label_set_label (self->block_internal_label, internal->str);
      gtk_widget_set_visible (GTK_WIDGET (self->block_internal_expander), TRUE);
    }

out:
  g_string_free (frames, TRUE);
  g_string_free (internal, TRUE);
}

static void
update_compare (GmlSnapshotPage *self)
{
  GmlSnapshotDocument *other = gml_snapshot_document_get_compare (self->document);
  GArray *diffs = gml_snapshot_document_get_comparison (self->document);
  GString *out, *categories, *lines;

  gtk_widget_set_visible (GTK_WIDGET (self->compare_box), other != NULL);
  if (other == NULL)
    return;
  out = g_string_new (NULL);
  categories = g_string_new (NULL);
  lines = g_string_new (NULL);
  for (int side = 0; side < 2; side++)
    {
      GmlSnapshotDocument *doc = side == 0 ? self->document : other;
      const GmlSnapshotPeak *peak = gml_snapshot_document_get_peak (doc);
      g_autofree char *allocated = gml_format_size_short (peak->allocated_bytes);
      g_autofree char *reserved = gml_format_size_short (peak->peak_reserved_bytes);

      if (side == 1)
        g_string_append_c (out, '\n');
      /* Translators: A or B, a file name, then the most allocated and reserved at once. */
      g_string_append_printf (out, _("%s: %s — peak %s allocated, %s reserved"),
                              side == 0 ? "A" : "B",
                              gml_snapshot_document_get_display_name (doc), allocated, reserved);
    }
  gtk_label_set_label (self->compare_label, out->str);

  for (guint k = 0; k < GML_SNAP_N_CATEGORIES; k++)
    {
      GmlCategory c = gml_snapshot_categories[k];
      guint64 a = gml_snapshot_document_get_peak (self->document)->by_category[c];
      guint64 b = gml_snapshot_document_get_peak (other)->by_category[c];
      g_autofree char *ta = NULL, *tb = NULL;

      if (a == 0 && b == 0)
        continue;
      ta = gml_format_size_short (a);
      tb = gml_format_size_short (b);
      if (categories->len > 0)
        g_string_append_c (categories, '\n');
      /* Translators: a category of memory, its bytes at A's peak and at B's. */
      g_string_append_printf (categories, _("%s: %s → %s"), gml_snapshot_category_name (c), ta, tb);
    }
  gtk_label_set_label (self->compare_categories_label, categories->str);

  if (diffs == NULL || diffs->len == 0)
    g_string_append (lines, _("No line holds different bytes at the two peaks."));
  else
    g_string_append (lines, _("The lines that differ most at the peaks, A → B:"));
  for (guint i = 0; diffs != NULL && i < diffs->len && i < COMPARE_LINES; i++)
    {
      const GmlSnapshotWhereDiff *d = &g_array_index (diffs, GmlSnapshotWhereDiff, i);
      g_autofree char *ta = gml_format_size_short (d->a_bytes);
      g_autofree char *tb = gml_format_size_short (d->b_bytes);
      guint64 delta = d->b_bytes > d->a_bytes ? d->b_bytes - d->a_bytes : d->a_bytes - d->b_bytes;
      g_autofree char *diff = gml_format_size_short (delta);

      g_string_append_c (lines, '\n');
      /* Translators: the user's line, its bytes at A's and B's peak, then the signed difference. */
      g_string_append_printf (lines, _("%s: %s → %s (%s%s)"),
                              d->where != NULL ? d->where : _("no stack recorded"), ta, tb,
                              d->b_bytes >= d->a_bytes ? "+" : "−", diff);
    }
  gtk_label_set_label (self->compare_lines_label, lines->str);
  g_string_free (out, TRUE);
  g_string_free (categories, TRUE);
  g_string_free (lines, TRUE);
}

/* What the replays found, in the errors' cards: a replayed verdict stands in
 * for the one the error's figures suggest. */
static void
update_verdicts (GmlSnapshotPage *self)
{
  g_autofree char *expandable = gml_what_if_panel_describe_verdict (self->what_if_panel,
                                                                    "expandable_segments");
  g_autofree char *max_split = gml_what_if_panel_describe_verdict (self->what_if_panel,
                                                                   "max_split_size_mb");

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->oom_box));
       child != NULL; child = gtk_widget_get_next_sibling (child))
    if (GML_IS_OOM_ROW (child))
      gml_oom_row_set_replayed (GML_OOM_ROW (child), expandable, max_split);
}

/* The replays whose rows are ticked, over the recorded timeline. The arrays are
 * the panel's: they change only with a "changed" that comes here again. */
static void
update_replay_lines (GmlSnapshotPage *self)
{
  guint n;

  if (self->document == NULL)
    return;
  n = gml_what_if_panel_draw_on (self->what_if_panel,
                                 gml_snapshot_document_get_picture (self->document));
  {
    guint n_empty;
    const gsize *empty = gml_what_if_panel_get_empty_caches (self->what_if_panel, &n_empty);

    gml_snapshot_picture_set_empty_caches (gml_snapshot_document_get_picture (self->document),
                                           empty,
                                           n_empty);
  }
  /* A line just ticked is seen where it is drawn. */
  if (n > self->n_replays_drawn)
    gml_trace_view_set_view (self->trace_view, GML_SNAPSHOT_VIEW_TIMELINE);
  self->n_replays_drawn = n;
  gml_snapshot_canvas_refresh (self->canvas);
}

static void
what_if_changed_cb (GmlSnapshotPage *self)
{
  update_verdicts (self);
  update_replay_lines (self);
}

static void
update_ooms (GmlSnapshotPage *self)
{
  GmlSnapshotTimeline *tl = gml_snapshot_document_get_timeline (self->document);
  guint n_ooms = gml_snapshot_timeline_get_n_ooms (tl);
  GApplication *app = g_application_get_default ();
  GmlQuestionBank *bank =
      GML_IS_APPLICATION (app) ? gml_application_get_bank (GML_APPLICATION (app)) : NULL;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->oom_box))) != NULL)
    gtk_box_remove (self->oom_box, child);

  gtk_widget_set_visible (GTK_WIDGET (self->no_oom_label), n_ooms == 0);
  for (guint k = 0; k < n_ooms && k < MAX_OOM_ROWS; k++)
    gtk_box_append (self->oom_box,
                    gml_oom_row_new (gml_snapshot_timeline_get_oom (tl, k),
                                     gml_snapshot_document_get_n_entries (self->document), bank));
  if (n_ooms > MAX_OOM_ROWS)
    {
      g_autofree char *more = NULL;
      GtkWidget *label;

      more =
          g_strdup_printf (ngettext ("… and %u more out-of-memory error; the timeline marks each.",
                                     "… and %u more out-of-memory errors; the timeline marks each.",
                                     n_ooms - MAX_OOM_ROWS), n_ooms - MAX_OOM_ROWS);
      label = gtk_label_new (more);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_box_append (self->oom_box, label);
    }
  update_verdicts (self);
}

static void
update_header (GmlSnapshotPage *self)
{
  g_free (self->title);
  g_free (self->subtitle);
  self->title = g_strdup (gml_snapshot_document_get_display_name (self->document));
  self->subtitle = gml_snapshot_document_describe_source (self->document);
  gtk_label_set_label (self->file_label, self->title);
  gtk_label_set_label (self->source_label, self->subtitle);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SUBTITLE]);
}

/* Accessible names are set in code, so they are set again when the language changes. */
static void
set_accessible_labels (GmlSnapshotPage *self)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->export_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Export picture…"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->device_dropdown),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Device"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->progress_bar),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Reading the snapshot"), -1);
}

/* ------------------------------------------------------------------------- */
/* Loading                                                                   */

static void
stop_pulsing (GmlSnapshotPage *self)
{
  g_clear_handle_id (&self->pulse_source, g_source_remove);
}

static gboolean
pulse_cb (gpointer user_data)
{
  GmlSnapshotPage *self = user_data;

  gtk_progress_bar_pulse (self->progress_bar);
  return G_SOURCE_CONTINUE;
}

static void
load_progress_cb (GmlSnapshotLoadPhase phase,
                  double               fraction,
                  gpointer             user_data)
{
  GmlSnapshotPage *self = user_data;

  if (phase == GML_SNAPSHOT_LOAD_READING)
    {
      gtk_progress_bar_set_fraction (self->progress_bar, CLAMP (fraction, 0.0, 1.0));
      return;
    }
  adw_status_page_set_description (self->loading_page,
                                   _("Rebuilding the memory at every entry of the trace…"));
  gtk_progress_bar_set_text (self->progress_bar, _("Walking the trace"));
  if (self->pulse_source == 0)
    self->pulse_source = g_timeout_add (100, pulse_cb, self);
}

static void
show_loading (GmlSnapshotPage *self,
              const char      *title,
              const char      *description)
{
  stop_pulsing (self);
  adw_status_page_set_title (self->loading_page, title);
  adw_status_page_set_description (self->loading_page, description);
  gtk_progress_bar_set_fraction (self->progress_bar, 0.0);
  gtk_progress_bar_set_text (self->progress_bar, NULL);
  gml_accessible_show_state (self->stack, "loading");
  gtk_widget_grab_focus (GTK_WIDGET (self->cancel_button));
}

static void
set_error_title (GmlSnapshotPage *self)
{
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;

  if (self->error_file != NULL)
    {
      g_autofree char *path = g_file_get_path (self->error_file);

      name = path != NULL ? g_filename_display_basename (path)
                          : g_file_get_basename (self->error_file);
    }
  /* Translators: %s is a file name. */
  title = g_strdup_printf (_("“%s” Could Not Be Opened"), name != NULL ? name : "");
  adw_status_page_set_title (self->error_page, title);

  /* The snapshot that was open stays: the way back to it. */
  gtk_widget_set_visible (GTK_WIDGET (self->error_back_button), self->document != NULL);
  if (self->document != NULL)
    {
      GFile *open = gml_snapshot_document_get_file (self->document);
      g_autofree char *path = open != NULL ? g_file_get_path (open) : NULL;
      g_autofree char *open_name = path != NULL ? g_filename_display_basename (path)
                                   : open != NULL ? g_file_get_basename (open) : g_strdup ("");
      /* Translators: %s is the file name of the snapshot that was open. */
      g_autofree char *back = g_strdup_printf (_("_Back to “%s”"), open_name);

      gtk_button_set_label (self->error_back_button, back);
    }
}

static void
show_error (GmlSnapshotPage *self,
            GFile           *file,
            const char      *message)
{
  g_autofree char *escaped = g_markup_escape_text (message, -1);

  g_set_object (&self->error_file, file);
  set_error_title (self);
  /* The status page's description is markup. */
  adw_status_page_set_description (self->error_page, escaped);
  gml_accessible_show_state (self->stack, "error");
  gtk_widget_grab_focus (GTK_WIDGET (self->error_open_button));
}

/* The CPU time of all the process's threads, for bench/snapshot. */
static gint64
process_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* For bench/snapshot: the first frame with the snapshot on screen, then quit. */
static void
bench_frame_painted_cb (GdkFrameClock   *clock,
                        GmlSnapshotPage *self)
{
  g_print ("snapshot-open %" G_GINT64_FORMAT "\nsnapshot-loaded %" G_GINT64_FORMAT
           "\nsnapshot-frame %" G_GINT64_FORMAT "\nsnapshot-cpu %" G_GINT64_FORMAT "\n",
           self->bench_open_time, self->bench_loaded_time, g_get_monotonic_time (),
           process_cpu_us () - self->bench_open_cpu);
  g_signal_handlers_disconnect_by_func (clock, bench_frame_painted_cb, self);
  g_application_quit (g_application_get_default ());
}

static void
add_to_recent (GFile *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  GtkRecentData data = {
    .display_name = NULL,
    .description = NULL,
    .mime_type = (char *) "application/x-python-pickle",
    .app_name = (char *) g_get_prgname (),
    .app_exec = (char *) "gpu-memory-lab %u",
    .groups = NULL,
    .is_private = FALSE,
  };

  if (data.app_name == NULL)
    data.app_name = (char *) "gpu-memory-lab";
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

static void
load_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GmlSnapshotPage) self = gml_weak_ref_steal (user_data);
  g_autoptr(GmlSnapshotDocument) document = NULL;
  g_autoptr(GError) error = NULL;

  document = gml_snapshot_document_load_finish (result, &error);
  /* The page is gone, a newer load replaced this one, or it was cancelled and
   * the page moved on. */
  if (self == NULL || self->cancellable == NULL ||
      g_task_get_cancellable (G_TASK (result)) != self->cancellable)
    return;

  stop_pulsing (self);
  g_clear_object (&self->cancellable);
  if (document == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          gml_accessible_show_state (self->stack, self->document != NULL ? "loaded" : "empty");
          map_cb (self);
        }
      else
        show_error (self, self->loading_file, error->message);
      g_clear_object (&self->loading_file);
      return;
    }

  if (self->bench_open_time != 0)
    self->bench_loaded_time = g_get_monotonic_time ();
  if (!self->switching_device)
    add_to_recent (self->loading_file);
  g_clear_object (&self->loading_file);
  set_document (self, document);

  if (self->bench_open_time != 0)
    g_signal_connect_object (gtk_widget_get_frame_clock (GTK_WIDGET (self)), "after-paint",
                             G_CALLBACK (bench_frame_painted_cb), self, 0);
}

static void
start_loading (GmlSnapshotPage *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
}

void
gml_snapshot_page_open (GmlSnapshotPage *self,
                        GFile           *file)
{
  g_autofree char *path = NULL;
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;

  g_return_if_fail (GML_IS_SNAPSHOT_PAGE (self));
  g_return_if_fail (G_IS_FILE (file));

  if (g_getenv ("GML_BENCH_SNAPSHOT") != NULL)
    {
      self->bench_open_time = g_get_monotonic_time ();
      self->bench_open_cpu = process_cpu_us ();
    }

  start_loading (self);
  self->switching_device = FALSE;
  g_set_object (&self->loading_file, file);

  path = g_file_get_path (file);
  name = path != NULL ? g_filename_display_basename (path) : g_file_get_basename (file);
  /* Translators: %s is a file name. */
  title = g_strdup_printf (_("Opening “%s”"), name);
  show_loading (self, title, _("Reading the file. Nothing in it is run."));

  /* The page is held weakly: closing it cancels the load (in its dispose), and
   * a cancelled load reports no progress. */
  gml_snapshot_document_load_async (file, -1, self->cancellable, load_progress_cb, self,
                                    load_done_cb, gml_weak_ref_new (self));
}

static void
compare_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GmlSnapshotPage) self = gml_weak_ref_steal (user_data);
  g_autoptr(GmlSnapshotDocument) other = NULL;
  g_autoptr(GError) error = NULL;

  other = gml_snapshot_document_load_finish (result, &error);
  /* The page is gone, or a newer comparison replaced this one. */
  if (self == NULL || self->compare_cancellable == NULL ||
      g_task_get_cancellable (G_TASK (result)) != self->compare_cancellable)
    return;
  g_clear_object (&self->compare_cancellable);
  if (other == NULL)
    {
      g_autofree char *message = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      /* Translators: why a second snapshot could not be opened for the comparison. */
      message = g_strdup_printf (_("The snapshot to compare with could not be opened: %s"),
                                 error->message);
      g_signal_emit (self, signals[MESSAGE], 0, message);
      return;
    }
  if (self->document == NULL)
    return;
  gml_snapshot_document_set_compare (self->document, other);
  update_compare (self);
  /* The two timelines over one another say it first. */
  gml_trace_view_set_view (self->trace_view, GML_SNAPSHOT_VIEW_TIMELINE);
  gml_snapshot_canvas_refresh (self->canvas);
}

void
gml_snapshot_page_compare (GmlSnapshotPage *self,
                           GFile           *file)
{
  g_return_if_fail (GML_IS_SNAPSHOT_PAGE (self));
  g_return_if_fail (G_IS_FILE (file));

  /* Nothing open to compare with: the file is opened as it is. */
  if (self->document == NULL)
    {
      gml_snapshot_page_open (self, file);
      return;
    }
  if (self->compare_cancellable != NULL)
    g_cancellable_cancel (self->compare_cancellable);
  g_clear_object (&self->compare_cancellable);
  self->compare_cancellable = g_cancellable_new ();
  gml_snapshot_document_load_async (file, -1, self->compare_cancellable, NULL, NULL,
                                    compare_done_cb, gml_weak_ref_new (self));
}

static void
device_selected_cb (GmlSnapshotPage *self)
{
  guint device = gtk_drop_down_get_selected (self->device_dropdown);
  g_autofree char *title = NULL;

  if (self->document == NULL || device == GTK_INVALID_LIST_POSITION ||
      device == gml_snapshot_document_get_device (self->document))
    return;

  start_loading (self);
  self->switching_device = TRUE;
  g_set_object (&self->loading_file, gml_snapshot_document_get_file (self->document));
  /* Translators: %u is a device number, as in cuda:1. */
  title = g_strdup_printf (_("Showing cuda:%u"), device);
  show_loading (self, title, _("Rebuilding the memory at every entry of the trace…"));
  self->pulse_source = g_timeout_add (100, pulse_cb, self);
  gml_snapshot_document_switch_device_async (self->document, device, self->cancellable,
                                             load_done_cb, gml_weak_ref_new (self));
}

/* ------------------------------------------------------------------------- */
/* The loaded document                                                       */

static void
document_at_changed_cb (GmlSnapshotPage *self)
{
  update_block (self);
}

/* The device chooser: each GPU with its trace entries and its errors. */
static void
update_devices (GmlSnapshotPage *self)
{
  guint n_devices = gml_snapshot_document_get_n_devices (self->document);
  g_autoptr(GtkStringList) devices = gtk_string_list_new (NULL);

  for (guint d = 0; d < n_devices; d++)
    {
      g_autofree char *name = gml_snapshot_document_describe_device (self->document, d);

      gtk_string_list_append (devices, name);
    }
  g_signal_handlers_block_by_func (self->device_dropdown, device_selected_cb, self);
  gtk_drop_down_set_model (self->device_dropdown, G_LIST_MODEL (devices));
  gtk_drop_down_set_selected (self->device_dropdown,
                              gml_snapshot_document_get_device (self->document));
  g_signal_handlers_unblock_by_func (self->device_dropdown, device_selected_cb, self);
  gtk_widget_set_visible (GTK_WIDGET (self->device_dropdown), n_devices > 1);
}

static void
set_document (GmlSnapshotPage     *self,
              GmlSnapshotDocument *document)
{
  g_autoptr(GmlSnapshotDocument) compare = NULL;

  /* Another device of the same file keeps the run it was compared with. */
  if (self->document != NULL && self->switching_device)
    g_set_object (&compare, gml_snapshot_document_get_compare (self->document));
  if (self->document != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->document, document_at_changed_cb, self);
      /* Its lines were the panel's replays of it. */
      gml_snapshot_picture_set_replays (gml_snapshot_document_get_picture (self->document), NULL,
                                        0);
    }
  g_set_object (&self->document, document);
  self->n_replays_drawn = 0;
  if (compare != NULL)
    gml_snapshot_document_set_compare (document, compare);
  g_signal_connect_object (document, "notify::at", G_CALLBACK (document_at_changed_cb), self,
                           G_CONNECT_SWAPPED);

  update_devices (self);

  gml_trace_view_set_document (self->trace_view, document);
  self->selected_block = 0;
  update_header (self);
  update_ooms (self);
  update_peak (self);
  update_compare (self);
  update_about (self);
  update_block (self);
  /* Replays the run at once, in a worker: the verdicts and rows follow. */
  gml_what_if_panel_set_document (self->what_if_panel, document);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "snapshot.export", TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "snapshot.what-if", TRUE);

  gml_accessible_show_state (self->stack, "loaded");
  gtk_widget_grab_focus (GTK_WIDGET (self->trace_view));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

/* ------------------------------------------------------------------------- */
/* Actions                                                                   */

/* The actions on a snapshot act only while it is shown, not while another
 * one loads or an error is shown. */
static gboolean
showing_snapshot (GmlSnapshotPage *self)
{
  return self->document != NULL &&
         g_str_equal (gtk_stack_get_visible_child_name (self->stack), "loaded");
}

/* A row's "Show": the position it names, with the focus on the picture. */
static void
go_to_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  GmlSnapshotPage *self = GML_SNAPSHOT_PAGE (widget);
  gsize n;

  if (!showing_snapshot (self))
    return;
  n = gml_snapshot_document_get_n_entries (self->document);
  gml_snapshot_document_set_at (self->document,
                                (gsize) MIN (g_variant_get_uint64 (parameter), (guint64) n));
  gtk_widget_grab_focus (GTK_WIDGET (self->trace_view));
}

static void
peak_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  GmlSnapshotPage *self = GML_SNAPSHOT_PAGE (widget);

  if (!showing_snapshot (self))
    return;
  gml_snapshot_document_set_at (self->document,
                                gml_snapshot_document_get_peak (self->document)->index);
  gtk_widget_grab_focus (GTK_WIDGET (self->trace_view));
}

static void
stop_compare_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  GmlSnapshotPage *self = GML_SNAPSHOT_PAGE (widget);

  if (self->compare_cancellable != NULL)
    g_cancellable_cancel (self->compare_cancellable);
  g_clear_object (&self->compare_cancellable);
  if (self->document == NULL)
    return;
  gml_snapshot_document_set_compare (self->document, NULL);
  update_compare (self);
  gml_snapshot_canvas_refresh (self->canvas);
  gtk_widget_grab_focus (GTK_WIDGET (self->trace_view));
}

/* Ctrl+Shift+W: into the what-if rows (the side panel scrolls to them). */
static void
what_if_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  GmlSnapshotPage *self = GML_SNAPSHOT_PAGE (widget);

  if (!showing_snapshot (self))
    return;
  gtk_widget_child_focus (GTK_WIDGET (self->what_if_panel), GTK_DIR_TAB_FORWARD);
}

/* From the error page back to the snapshot that was open before. */
static void
back_to_document_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  GmlSnapshotPage *self = GML_SNAPSHOT_PAGE (widget);

  if (self->document == NULL)
    return;
  g_clear_object (&self->error_file);
  gml_accessible_show_state (self->stack, "loaded");
  gtk_widget_grab_focus (GTK_WIDGET (self->trace_view));
}

static void
block_selected_cb (GmlSnapshotPage   *self,
                   guint64            address,
                   GmlSnapshotCanvas *canvas)
{
  self->selected_block = address;
  update_block (self);
}

static void
cancel_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  GmlSnapshotPage *self = GML_SNAPSHOT_PAGE (widget);

  if (self->cancellable == NULL)
    return;
  /* Back at once; the thread stops at its next check and its result is dropped. */
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->loading_file);
  stop_pulsing (self);
  if (self->switching_device && self->document != NULL)
    {
      g_signal_handlers_block_by_func (self->device_dropdown, device_selected_cb, self);
      gtk_drop_down_set_selected (self->device_dropdown,
                                  gml_snapshot_document_get_device (self->document));
      g_signal_handlers_unblock_by_func (self->device_dropdown, device_selected_cb, self);
    }
  gml_accessible_show_state (self->stack, self->document != NULL ? "loaded" : "empty");
  map_cb (self);
}

/* The picture as shown, at the export's size. */
static GmlExportDrawing *
draw_for_export (GtkWidget *owner,
                 int        width,
                 int        height)
{
  GmlSnapshotPage *self = GML_SNAPSHOT_PAGE (owner);
  GmlRenderStyle style;

  if (self->document == NULL)
    return NULL;
  gml_snapshot_canvas_get_style (self->canvas, &style);
  return gml_snapshot_picture_draw_for_export (gml_snapshot_document_get_picture (self->document),
                                               gml_snapshot_canvas_get_view (self->canvas), &style,
                                               width, height);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  GmlSnapshotPage *self = GML_SNAPSHOT_PAGE (widget);
  g_autofree char *stem = NULL;
  g_autofree char *name = NULL;
  char *dot;

  if (self->document == NULL || self->chooser != NULL)
    return;
  stem = g_strdup (gml_snapshot_document_get_display_name (self->document));
  if ((dot = strrchr (stem, '.')) != NULL && dot != stem)
    *dot = '\0';
  /* The format chosen in the dialog adds its extension. */
  name = g_strdup_printf ("%s-%s-%zu", stem,
                          gml_snapshot_view_to_string (gml_snapshot_canvas_get_view (self->canvas)),
                          gml_snapshot_document_get_at (self->document));
  gml_export_chooser_open (widget, &self->chooser, name, draw_for_export);
}

/* Shown again (the view switcher): the focus goes where the keys work, the
 * picture, or the button that opens a snapshot, rather than to the first
 * selectable label, which would select all its text. */
static void
map_cb (GmlSnapshotPage *self)
{
  const char *name = gtk_stack_get_visible_child_name (self->stack);

  if (g_strcmp0 (name, "loaded") == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->trace_view));
  else if (g_strcmp0 (name, "loading") == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->cancel_button));
  else if (g_strcmp0 (name, "error") == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->error_open_button));
  else
    gtk_widget_grab_focus (GTK_WIDGET (self->empty_open_button));
}

/* ------------------------------------------------------------------------- */
/* Language                                                                  */

/* Template strings are looked up again by the window (gml-language.c); what
 * this page formatted itself is formatted again here, and the file the error
 * page is about read again for the reader's own message. */
static void
language_changed_cb (GtkWidget *widget)
{
  GmlSnapshotPage *self = GML_SNAPSHOT_PAGE (widget);

  set_accessible_labels (self);
  gml_trace_view_refresh (self->trace_view);
  set_error_title (self);
  gml_what_if_panel_refresh (self->what_if_panel);
  /* The reader's message was made in the old language: read the file again for
   * it in the new one (it fails where it failed, or opens if it was mended). */
  if (self->error_file != NULL &&
      g_str_equal (gtk_stack_get_visible_child_name (self->stack), "error"))
    {
      g_autoptr(GFile) file = g_object_ref (self->error_file);

      gml_snapshot_page_open (self, file);
    }
  if (self->document == NULL)
    return;
  update_header (self);
  update_devices (self);
  update_ooms (self);
  update_peak (self);
  update_compare (self);
  update_about (self);
  update_block (self);
  gml_snapshot_canvas_refresh (self->canvas);
}

/* ------------------------------------------------------------------------- */
/* GObject                                                                   */

GmlSnapshotDocument *
gml_snapshot_page_get_document (GmlSnapshotPage *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_PAGE (self), NULL);
  return self->document;
}

const char *
gml_snapshot_page_get_title (GmlSnapshotPage *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_PAGE (self), NULL);
  return self->title;
}

const char *
gml_snapshot_page_get_subtitle (GmlSnapshotPage *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_PAGE (self), NULL);
  return self->subtitle;
}

static void
gml_snapshot_page_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  GmlSnapshotPage *self = GML_SNAPSHOT_PAGE (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
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
gml_snapshot_page_dispose (GObject *object)
{
  GmlSnapshotPage *self = GML_SNAPSHOT_PAGE (object);

  stop_pulsing (self);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->compare_cancellable != NULL)
    g_cancellable_cancel (self->compare_cancellable);
  g_clear_object (&self->compare_cancellable);
  if (self->document != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->document, document_at_changed_cb, self);
      gml_snapshot_picture_set_replays (gml_snapshot_document_get_picture (self->document), NULL,
                                        0);
    }
  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_SNAPSHOT_PAGE);
  g_clear_object (&self->document);
  g_clear_object (&self->loading_file);
  g_clear_object (&self->error_file);
  g_clear_object (&self->chooser);

  G_OBJECT_CLASS (gml_snapshot_page_parent_class)->dispose (object);
}

static void
gml_snapshot_page_finalize (GObject *object)
{
  GmlSnapshotPage *self = GML_SNAPSHOT_PAGE (object);

  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->subtitle, g_free);

  G_OBJECT_CLASS (gml_snapshot_page_parent_class)->finalize (object);
}

static void
gml_snapshot_page_class_init (GmlSnapshotPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = gml_snapshot_page_dispose;
  object_class->finalize = gml_snapshot_page_finalize;
  object_class->get_property = gml_snapshot_page_get_property;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, GML_TYPE_SNAPSHOT_DOCUMENT,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SUBTITLE] =
    g_param_spec_string ("subtitle", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * GmlSnapshotPage::message:
   * @message: a sentence for a toast
   *
   * Something the user should know that has no place on the page (an export failed).
   */
  signals[MESSAGE] = g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  g_type_ensure (GML_TYPE_TRACE_VIEW);
  g_type_ensure (GML_TYPE_WHAT_IF_PANEL);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_BASE "/gml-snapshot-page.ui");
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, stack);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, loading_page);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, error_page);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, file_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, source_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, device_dropdown);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, export_button);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, trace_view);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, no_oom_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, oom_box);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, what_if_panel);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, about_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, peak_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, peak_categories_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, peak_lines_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, peak_button);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, compare_box);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, compare_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, compare_categories_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, compare_lines_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, stop_compare_button);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, block_title_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, block_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, block_frames_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, block_internal_expander);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, block_internal_label);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, empty_open_button);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, error_open_button);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, error_back_button);
  gtk_widget_class_bind_template_child (widget_class, GmlSnapshotPage, cancel_button);

  gtk_widget_class_install_action (widget_class, "snapshot.go-to", "t", go_to_action);
  gtk_widget_class_install_action (widget_class, "snapshot.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "snapshot.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "snapshot.peak", NULL, peak_action);
  gtk_widget_class_install_action (widget_class, "snapshot.stop-compare", NULL,
                                   stop_compare_action);
  gtk_widget_class_install_action (widget_class, "snapshot.what-if", NULL, what_if_action);
  gtk_widget_class_install_action (widget_class, "snapshot.back-to-document", NULL,
                                   back_to_document_action);

  /* The trace's own keys (arrows, Page Up/Down, Home, End) are the trace view's. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "snapshot.cancel", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_k, GDK_CONTROL_MASK, "snapshot.peak",
                                       NULL);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "snapshotpage");
}

static void
gml_snapshot_page_init (GmlSnapshotPage *self)
{
  GtkEventController *shortcuts;

  gtk_widget_init_template (GTK_WIDGET (self));

  gml_language_localize_widget (GTK_WIDGET (self), NULL);

  gml_accessible_name_buttons (GTK_WIDGET (self));

  self->canvas = gml_trace_view_get_canvas (self->trace_view);
  g_signal_connect_object (self->device_dropdown, "notify::selected",
                           G_CALLBACK (device_selected_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->canvas, "block-selected", G_CALLBACK (block_selected_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect (self, "map", G_CALLBACK (map_cb), NULL);
  g_signal_connect_object (self->what_if_panel, "changed", G_CALLBACK (what_if_changed_cb), self,
                           G_CONNECT_SWAPPED);

  /* Global scope, like the scenario panel's: Ctrl+Shift+E exports this page's
   * picture while the page is shown (a hidden page's shortcuts do not run), with the
   * focus anywhere in the window. A binding action would need the focus inside the page,
   * and after a click on the view switcher it is in the header bar. */
  shortcuts = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                     GTK_SHORTCUT_SCOPE_GLOBAL);
  gml_scrub_keys_add_shortcut (shortcuts, "<Control><Shift>e", "snapshot.export");
  gml_scrub_keys_add_shortcut (shortcuts, "<Control><Shift>w", "snapshot.what-if");
  gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);

  for (const char * const *name = (const char * const[]) { "snapshot.export",
                                                           "snapshot.peak", "snapshot.what-if",
                                                           NULL };
       *name != NULL; name++)
    gtk_widget_action_set_enabled (GTK_WIDGET (self), *name, FALSE);

  set_accessible_labels (self);
  gml_accessible_show_state (self->stack, "empty");
  gml_language_follow (GTK_WIDGET (self), language_changed_cb);
}

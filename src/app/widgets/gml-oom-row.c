/* gml-oom-row.c — one out-of-memory error of a snapshot, explained.
 *
 * The numbers at the moment of the error, the message PyTorch printed, and
 * for each setting a learner reaches for whether it would have changed the
 * outcome, from gml_snapshot_explain_oom(). Each verdict starts with words
 * ("Would have helped", "Would not have helped"), never with a colour alone.
 * Below, a button per quiz topic that practises what the verdicts are about.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-oom-row"

#include "config.h"

#include "gml-accessible.h"
#include "gml-i18n.h"
#include "gml-language.h"

#include "gml-oom-row.h"
#include "gml-scenario.h"

struct _GmlOomRow
{
  GtkWidget  parent_instance;

  /* Template widgets */
  GtkWidget *box;
  GtkLabel  *title_label;
  GtkButton *show_button;
  GtkLabel  *request_label;
  GtkLabel  *cached_label;
  GtkLabel  *device_label;
  GtkLabel  *largest_label;
  GtkLabel  *split_label;
  GtkLabel  *held_label;
  GtkLabel  *message_label;
  GtkLabel  *summary_label;
  GtkLabel  *expandable_label;
  GtkLabel  *max_split_label;
  GtkLabel  *empty_cache_label;
  GtkLabel  *batch_label;
  GtkBox    *practise_box;

  /* The verdicts from the figures, for when the replays are gone again. */
  char      *reasoned_expandable;
  char      *reasoned_max_split;
};

G_DEFINE_FINAL_TYPE (GmlOomRow, gml_oom_row, GTK_TYPE_WIDGET)

/* The quiz topics (source strings of the bank) that practise what a verdict
 * is about. */
static const char *topic_fragmentation = "Fragmentation";
static const char *topic_settings = "max_split_size_mb and expandable_segments";
static const char *topic_empty_cache = "The caching allocator and empty_cache";
static const char *topic_batch = "Batch size and activations";
static const char *topic_oom = "Out-of-memory errors";

static void
add_practise_button (GmlOomRow       *self,
                     GmlQuestionBank *bank,
                     const char      *topic)
{
  g_autoptr(GArray) questions = NULL;
  g_autofree char *label = NULL;
  GtkWidget *button;
  GtkWidget *text;

  if (bank == NULL)
    return;
  questions = gml_question_bank_filter (bank, topic, 0);
  if (questions == NULL || questions->len == 0)
    return;

  /* Translators: a quiz topic and how many questions it has. */
  label = g_strdup_printf (ngettext ("Practise: %s — %u question", "Practise: %s — %u questions",
                                     questions->len),
                           gml_i18n_gettext (topic), questions->len);
  /* A long topic wraps rather than widen the side panel. */
  text = gtk_label_new (label);
  gtk_label_set_wrap (GTK_LABEL (text), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (text), 34);
  gtk_label_set_xalign (GTK_LABEL (text), 0);
  button = gtk_button_new ();
  gtk_button_set_child (GTK_BUTTON (button), text);
  gtk_widget_set_halign (button, GTK_ALIGN_START);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.practise");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", topic);
  gtk_widget_set_tooltip_text (button, _("Switch to the quiz, with the questions of this topic"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                  -1);
  gtk_box_append (self->practise_box, button);
}

static void
set_size (GtkLabel *label,
          guint64   bytes)
{
  g_autofree char *text = gml_format_size (bytes);

  gtk_label_set_label (label, text);
}

static void
gml_oom_row_set_oom (GmlOomRow            *self,
                     const GmlSnapshotOom *oom,
                     gsize                 n_entries,
                     GmlQuestionBank      *bank)
{
  GmlSnapshotOomExplanation x;
  g_autofree char *title = NULL;
  g_autofree char *request = NULL;
  g_autofree char *alloc_size = NULL;
  g_autofree char *cached = NULL;
  g_autofree char *device = NULL;
  g_autofree char *largest = NULL;
  g_autofree char *split = NULL;
  g_autofree char *allocated = NULL;
  g_autofree char *reserved = NULL;
  g_autofree char *text = NULL;

  gml_snapshot_explain_oom (oom, &x);
  request = gml_format_size (x.request);
  alloc_size = gml_format_size (x.alloc_size);
  cached = gml_format_size (x.cached_free);
  device = gml_format_size (x.device_free);
  largest = gml_format_size (x.largest_free_block);
  split = gml_format_size (x.inactive_split);
  allocated = gml_format_size (x.allocated);
  reserved = gml_format_size (x.reserved);

  /* Entries are counted from 1 here, as in the line under the scrubber. */
  /* Translators: the trace entry's number and the number of entries. */
  title = g_strdup_printf (_("Out of memory at entry %zu of %zu"), oom->index + 1, n_entries);
  gtk_label_set_label (self->title_label, title);
  /* "Show" moves the pictures to the state after the oom entry. */
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->show_button), "t",
                                    (guint64) oom->index + 1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->show_button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Show this entry in the pictures"), -1);

  if (x.alloc_size > x.request)
    /* Translators: the rounded request, then the segment the allocator asked the GPU for. */
    text = g_strdup_printf (_("%s (PyTorch asked the GPU for a segment of %s)"), request,
                            alloc_size);
  else
    text = g_strdup (request);
  gtk_label_set_label (self->request_label, text);
  g_clear_pointer (&text, g_free);
  set_size (self->cached_label, x.cached_free);
  set_size (self->device_label, x.device_free);
  {
    g_autofree char *why = gml_snapshot_describe_usable (&x);

    if (why != NULL)
      text = g_strdup_printf ("%s. %s", largest, why);
    else
      text = g_strdup (largest);
    gtk_label_set_label (self->largest_label, text);
    g_clear_pointer (&text, g_free);
  }
  /* Translators: a size; inactive_split_bytes is the name in torch.cuda.memory_stats(). */
  text =
      g_strdup_printf (_("%s in free pieces of segments that also hold live blocks "
                         "(inactive_split_bytes)"), split);
  gtk_label_set_label (self->split_label, text);
  g_clear_pointer (&text, g_free);
  /* Translators: sizes: memory_allocated() and memory_reserved() at the error. */
  text = g_strdup_printf (_("%s allocated, %s reserved"), allocated, reserved);
  gtk_label_set_label (self->held_label, text);
  g_clear_pointer (&text, g_free);
  gtk_label_set_label (self->message_label, oom->message);

  if (x.fits_in_cache_total)
    /* Translators: sizes: free in the cache, the request. */
    text =
        g_strdup_printf (_("The memory was there, in pieces: PyTorch’s cache held %s free, more "
                           "than the %s asked for, but no free block it could use for this "
                           "request."), cached, request);
  else if (x.fits_with_device)
    /* Translators: sizes: free in the cache, free on the GPU, the request. */
    text =
        g_strdup_printf (_("The memory was there, in pieces: %s free in the cache and %s on the "
                           "GPU, together enough for the %s asked for, but not in one piece."),
                         cached, device, request);
  else
    text = g_strdup_printf (_("The memory was not there: %s free in the cache and %s on the GPU, "
                              "together less than the %s asked for."), cached, device, request);
  gtk_label_set_label (self->summary_label, text);
  g_clear_pointer (&text, g_free);

  gtk_label_set_label (self->expandable_label,
                       x.expandable_would_help
                       ? _("expandable_segments:True — would have helped: the free pages could "
                           "have been mapped behind one another into one range large enough.")
                       : x.needs_less_memory
                       ? _("expandable_segments:True — would not have helped: there was not enough "
                           "free memory in all.")
                       : _("expandable_segments:True — would not have changed this."));
  g_free (self->reasoned_expandable);
  self->reasoned_expandable = g_strdup (gtk_label_get_label (self->expandable_label));
  if (x.max_split_would_help)
    gtk_label_set_label (self->max_split_label,
                         _("max_split_size_mb — would have helped: small requests had split large "
                           "cached blocks; with it, large blocks stay whole for large requests."));
  else
    gtk_label_set_label (self->max_split_label,
                         _("max_split_size_mb — would not have changed this."));
  g_free (self->reasoned_max_split);
  self->reasoned_max_split = g_strdup (gtk_label_get_label (self->max_split_label));
  gtk_label_set_label (self->empty_cache_label,
                       _("torch.cuda.empty_cache() — would not have helped: before giving up, the "
                         "allocator had already returned every wholly free cached segment to the "
                         "GPU and tried again."));
  gtk_label_set_label (self->batch_label,
                       x.needs_less_memory
                       ? _("A smaller batch — would have helped, and is what helps here: less "
                           "memory held at once (gradient checkpointing and mixed precision do "
                           "that too).")
                       : _("A smaller batch — would have helped too, by asking for less; but here "
                           "the memory was there."));

  /* Topics: what the verdicts are about, each once. */
  if (x.fits_in_cache_total || x.fits_with_device)
    add_practise_button (self, bank, topic_fragmentation);
  if (x.expandable_would_help || x.max_split_would_help || x.fits_in_cache_total)
    add_practise_button (self, bank, topic_settings);
  add_practise_button (self, bank, topic_empty_cache);
  if (x.needs_less_memory)
    {
      add_practise_button (self, bank, topic_batch);
      add_practise_button (self, bank, topic_oom);
    }
}

GtkWidget *
gml_oom_row_new (const GmlSnapshotOom *oom,
                 gsize                 n_entries,
                 GmlQuestionBank      *bank)
{
  GmlOomRow *self = g_object_new (GML_TYPE_OOM_ROW, NULL);

  gml_oom_row_set_oom (self, oom, n_entries, bank);
  return GTK_WIDGET (self);
}

void
gml_oom_row_set_replayed (GmlOomRow  *self,
                          const char *expandable,
                          const char *max_split)
{
  g_return_if_fail (GML_IS_OOM_ROW (self));

  gtk_label_set_label (self->expandable_label,
                       expandable != NULL ? expandable : self->reasoned_expandable);
  gtk_label_set_label (self->max_split_label,
                       max_split != NULL ? max_split : self->reasoned_max_split);
}

static void
gml_oom_row_finalize (GObject *object)
{
  GmlOomRow *self = GML_OOM_ROW (object);

  g_free (self->reasoned_expandable);
  g_free (self->reasoned_max_split);

  G_OBJECT_CLASS (gml_oom_row_parent_class)->finalize (object);
}

static void
gml_oom_row_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), GML_TYPE_OOM_ROW);

  G_OBJECT_CLASS (gml_oom_row_parent_class)->dispose (object);
}

static void
gml_oom_row_class_init (GmlOomRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = gml_oom_row_dispose;
  object_class->finalize = gml_oom_row_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_BASE "/gml-oom-row.ui");
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, box);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, title_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, show_button);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, request_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, cached_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, device_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, largest_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, split_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, held_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, message_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, summary_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, expandable_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, max_split_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, empty_cache_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, batch_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOomRow, practise_box);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "oomrow");
}

static void
gml_oom_row_init (GmlOomRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gml_language_localize_widget (GTK_WIDGET (self), NULL);
  gml_accessible_name_buttons (GTK_WIDGET (self));
}

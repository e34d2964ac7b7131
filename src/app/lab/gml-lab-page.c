/* gml-lab-page.c — the Experiment view.
 *
 * Every knob is one of `gpu-memory-lab experiment`'s options (the widget
 * carries the option's name), so the window, the command line and the
 * questions' configurations share one parser and one set of messages. A knob
 * that moves starts a run of the step in a thread (GTask) a moment later; the
 * newest run wins. The result is the engine's: the peaks, the bytes of each
 * category at the peak next to the formula's, the memory map at the peak and
 * the timeline of the step (any view of the scenario the run built), the
 * out-of-memory message, and the notes on where the engine and the formulas
 * differ. "Largest batch that fits" searches through the engine, "Pin as A"
 * keeps a result to compare with, and "Predict first" asks for a guess before
 * each run and keeps it in the progress log.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-lab-page"

#include "config.h"

#include <math.h>
#include "gml-accessible.h"
#include "gml-combo-row.h"
#include "gml-language.h"
#include "gml-weak-ref.h"
#include "gml-i18n.h"

#include "gml-application.h"
#include "gml-lab-page.h"
#include "gml-picture-view.h"
#include "gml-template.h"

/* A knob that moves runs the step this long after the last move. */
#define RUN_DELAY_MS      150
/* A run that takes longer than this shows the spinner. */
#define SPINNER_DELAY_MS  100

enum { VIEW_MAP, VIEW_FRAGMENTATION, VIEW_TIMELINE, N_LAB_VIEWS };
static const GmlView lab_views[N_LAB_VIEWS] = { GML_VIEW_MEMORY_MAP, GML_VIEW_FRAGMENTATION,
                                                GML_VIEW_TIMELINE };

/* The choices of the combo rows, as the command line spells them. */
static const char * const model_values[] = { "gpt2", "llama-3.2-1b", "llama-2-7b", "mlp",
                                             "custom" };
static const char * const mode_values[] = { "train", "inference" };
static const char * const precision_values[] = { "fp32", "amp-fp16", "amp-bf16", "bf16",
                                                 "autocast-fp16", "autocast-bf16" };
static const char * const optimizer_values[] = { "sgd", "momentum", "adam", "adamw" };
static const char * const step_values[] = { "steady", "first" };
static const char * const checkpointing_values[] = { "none", "every", "sqrt" };
static const char * const zero_values[] = { "0", "1", "2", "3" };

/* The categories, in the order the results list them. */
static const GmlCategory category_order[] = {
  GML_CATEGORY_WEIGHTS, GML_CATEGORY_GRADIENTS, GML_CATEGORY_OPTIMIZER_STATE,
  GML_CATEGORY_ACTIVATIONS, GML_CATEGORY_TEMPORARY, GML_CATEGORY_KV_CACHE,
};

enum { PROP_0, PROP_SUBTITLE, N_PROPS };
static GParamSpec *properties[N_PROPS];

struct _GmlLabPage
{
  GtkWidget        parent_instance;

  /* Template widgets */
  GtkWidget       *paned;
  AdwComboRow     *model_row;
  AdwExpanderRow  *shape_row;
  GtkSpinButton   *layers_spin;
  GtkSpinButton   *hidden_spin;
  GtkWidget       *heads_row;
  GtkSpinButton   *heads_spin;
  GtkWidget       *ffn_row;
  GtkSpinButton   *ffn_spin;
  GtkSpinButton   *vocab_spin;
  AdwComboRow     *mode_row;
  GtkSpinButton   *batch_spin;
  GtkWidget       *seq_row;
  GtkSpinButton   *seq_spin;
  GtkWidget       *tokens_row;
  GtkSpinButton   *tokens_spin;
  AdwComboRow     *precision_row;
  GtkWidget       *training_group;
  AdwComboRow     *optimizer_row;
  AdwComboRow     *step_row;
  AdwComboRow     *checkpointing_row;
  GtkWidget       *every_row;
  GtkSpinButton   *every_spin;
  GtkSpinButton   *accumulation_spin;
  AdwComboRow     *zero_row;
  GtkSpinButton   *gpus_spin;
  AdwComboRow     *gpu_row;
  AdwEntryRow     *conf_row;
  AdwEntryRow     *args_row;
  GtkScrolledWindow *results_scroller;
  GtkLabel        *verdict_label;
  GtkSpinner      *spinner;
  GtkLabel        *status_label;
  GtkWidget       *run_button;
  GtkWidget       *max_batch_button;
  GtkWidget       *live_button;
  GtkWidget       *pin_button;
  GtkToggleButton *predict_button;
  GtkWidget       *predict_box;
  GtkToggleButton *guess_fits_button;
  GtkToggleButton *guess_oom_button;
  GtkSpinButton   *guess_spin;
  GtkLabel        *guess_result_label;
  GtkWidget       *figures_box;
  GtkLabel        *allocated_label;
  GtkLabel        *reserved_label;
  GtkLabel        *params_label;
  GtkLabel        *allocated_caption;
  GtkLabel        *reserved_caption;
  GtkLabel        *params_caption;
  GtkLabel        *max_batch_label;
  GtkLabel        *live_label;
  GtkLabel        *step_label;
  GtkGrid         *category_grid;
  GtkWidget       *oom_box;
  GtkLabel        *oom_label;
  GtkWidget       *ab_box;
  GtkLabel        *ab_label;
  GtkWidget       *unpin_button;
  GtkToggleButton *view_buttons[N_LAB_VIEWS];
  GmlPictureView  *picture_view;
  GtkLabel        *caption_label;
  GtkScale        *step_scale;
  GtkAdjustment   *step_adjustment;
  GtkLabel        *notes_label;

  /* Built in code */
  GtkLabel        *category_names[G_N_ELEMENTS (category_order)];
  GtkLabel        *category_values[G_N_ELEMENTS (category_order)];
  GtkLabel        *category_formulas[G_N_ELEMENTS (category_order)];
  GtkLabel        *peak_header;
  GtkLabel        *formula_header;

  /* Owned */
  GmlLabConfig     config;
  GmlLabRun       *run;
  GmlPicture      *picture;
  GmlLabRun       *pinned;
  GCancellable    *cancellable;
  GCancellable    *search_cancellable;
  GCancellable    *live_cancellable;    /* the live run under way, if any */
  char            *subtitle;

  /* Borrowed */
  GmlProgress     *progress;

  /* State */
  guint            run_source;
  gboolean         first_run_pending; /* the step runs when the view is first shown */
  guint            spinner_source;
  gint            *run_progress;     /* the newest run's, per mille (g_rc_box) */
  guint            generation;
  gboolean         updating;
  gboolean         guess_pending;   /* predict mode: a guess waits for this run */
  gboolean         guess_fits;
  double           guess_gib;
};

G_DEFINE_FINAL_TYPE (GmlLabPage, gml_lab_page, GTK_TYPE_WIDGET)

static void start_run (GmlLabPage *self);

/* ------------------------------------------------------------------------- */
/* Formatting                                                                */

/* ------------------------------------------------------------------------- */
/* The knobs                                                                 */

static guint
index_of (const char * const *values,
          guint               n,
          const char         *value)
{
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (values[i], value) == 0)
      return i;
  return 0;
}

static void
set_model (AdwComboRow *row,
           const char  *first,
           ...)
{
  g_autoptr(GtkStringList) list = gtk_string_list_new (NULL);
  guint selected = adw_combo_row_get_selected (row);
  va_list args;

  va_start (args, first);
  for (const char *s = first; s != NULL; s = va_arg (args, const char *))
    gtk_string_list_append (list, s);
  va_end (args);
  adw_combo_row_set_model (row, G_LIST_MODEL (list));
  if (selected != GTK_INVALID_LIST_POSITION)
    adw_combo_row_set_selected (row, selected);
}

/* The combo rows' words, made again when the language changes. */
static void
fill_choices (GmlLabPage *self)
{
  guint n;
  const guint *gib = gml_lab_gpu_presets (&n);
  g_autoptr(GtkStringList) gpus = gtk_string_list_new (NULL);
  guint selected = adw_combo_row_get_selected (self->gpu_row);

  self->updating = TRUE;
  set_model (self->model_row, _("GPT-2 (124 M)"), _("Llama 3.2 1B"), _("Llama 2 7B"),
             _("Classroom MLP"), _("Custom shape"), NULL);
  set_model (self->mode_row, _("Training step"), _("Inference with a KV cache"), NULL);
  set_model (self->precision_row, _("fp32"), _("Mixed precision, fp16 (amp-fp16)"),
             _("Mixed precision, bf16 (amp-bf16)"), _("bf16 everywhere"),
             _("torch.autocast, fp16 (autocast-fp16)"),
             _("torch.autocast, bf16 (autocast-bf16)"), NULL);
  set_model (self->optimizer_row, _("SGD"), _("SGD with momentum"), _("Adam"), _("AdamW"), NULL);
  set_model (self->step_row, _("Steady state (step 2)"), _("First step"), NULL);
  set_model (self->checkpointing_row, _("None"), _("Every K layers"), _("√N segments"), NULL);
  set_model (self->zero_row, _("0: data parallel"), _("1: optimizer state sharded"),
             _("2: and gradients"), _("3: and weights"), NULL);
  for (guint i = 0; i < n; i++)
    {
      /* Translators: a GPU's memory, e.g. "24 GiB". */
      g_autofree char *text = g_strdup_printf (_("%u GiB"), gib[i]);

      gtk_string_list_append (gpus, text);
    }
  adw_combo_row_set_model (self->gpu_row, G_LIST_MODEL (gpus));
  if (selected != GTK_INVALID_LIST_POSITION)
    adw_combo_row_set_selected (self->gpu_row, selected);
  self->updating = FALSE;
}

static void
set_spin (GtkSpinButton *spin,
          guint64        value)
{
  gtk_spin_button_set_value (spin, (double) value);
}

static void
update_subtitle (GmlLabPage *self)
{
  g_autofree char *gpu = gml_format_size_short (self->config.gpu_memory);
  char *subtitle;

  if (self->config.mode == GML_LAB_TRAIN)
    /* Translators: model · batch size · precision · GPU memory. */
    subtitle = g_strdup_printf (_("%s · batch %u · %s · %s"), self->config.model,
                                self->config.batch,
                                gml_lab_precision_to_string (self->config.precision), gpu);
  else
    /* Translators: model · batch size · tokens · GPU memory. */
    subtitle = g_strdup_printf (_("%s · batch %u · %u tokens · %s"), self->config.model,
                                self->config.batch,
                                self->config.tokens, gpu);
  if (g_strcmp0 (subtitle, self->subtitle) != 0)
    {
      g_free (self->subtitle);
      self->subtitle = subtitle;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SUBTITLE]);
    }
  else
    g_free (subtitle);
}

/* Which rows mean something for this configuration. */
static void
update_sensitivity (GmlLabPage *self)
{
  const GmlLabConfig *c = &self->config;
  gboolean train = c->mode == GML_LAB_TRAIN;
  gboolean mlp = c->arch == GML_LAB_ARCH_MLP;
  g_autofree char *shape = NULL;

  gtk_widget_set_visible (self->tokens_row, !train);
  gtk_widget_set_sensitive (self->training_group, train);
  gtk_widget_set_visible (self->every_row, c->checkpointing == GML_LAB_CHECKPOINT_EVERY);
  gtk_widget_set_visible (self->heads_row, !mlp);
  gtk_widget_set_visible (self->ffn_row, !mlp);
  gtk_widget_set_visible (self->seq_row, !mlp);
  if (mlp)
    /* Translators: the MLP's shape: layers, width, inputs, classes. */
    shape = g_strdup_printf (_("%u layers of %u, %u inputs, %u classes"), c->layers,
                             (guint) c->hidden,
                             (guint) c->inputs, (guint) c->vocab);
  else
    /* Translators: a transformer's shape. */
    shape = g_strdup_printf (_("%u layers, hidden %u, %u heads, MLP %u, vocabulary %u"), c->layers,
                             (guint) c->hidden, c->heads, (guint) c->ffn, (guint) c->vocab);
  adw_expander_row_set_subtitle (self->shape_row, shape);
}

/* Config → widgets. */
static void
sync_widgets (GmlLabPage *self)
{
  const GmlLabConfig *c = &self->config;
  g_autofree char *args = gml_lab_config_to_args (c);
  guint n, gpu_index = GTK_INVALID_LIST_POSITION;
  const guint *gib = gml_lab_gpu_presets (&n);

  self->updating = TRUE;
  adw_combo_row_set_selected (self->model_row,
                              index_of (model_values, G_N_ELEMENTS (model_values), c->model));
  set_spin (self->layers_spin, c->layers);
  set_spin (self->hidden_spin, c->hidden);
  set_spin (self->heads_spin, c->heads);
  set_spin (self->ffn_spin, c->ffn);
  set_spin (self->vocab_spin, c->vocab);
  adw_combo_row_set_selected (self->mode_row, c->mode == GML_LAB_TRAIN ? 0 : 1);
  set_spin (self->batch_spin, c->batch);
  set_spin (self->seq_spin, c->seq);
  set_spin (self->tokens_spin, c->tokens);
  adw_combo_row_set_selected (self->precision_row, c->precision);
  adw_combo_row_set_selected (self->optimizer_row, c->optimizer);
  adw_combo_row_set_selected (self->step_row, c->step);
  adw_combo_row_set_selected (self->checkpointing_row, c->checkpointing);
  set_spin (self->every_spin, c->checkpoint_every);
  set_spin (self->accumulation_spin, c->accumulation);
  adw_combo_row_set_selected (self->zero_row, c->zero);
  set_spin (self->gpus_spin, c->gpus);
  for (guint i = 0; i < n; i++)
    if (c->gpu_memory == (guint64) gib[i] << 30)
      gpu_index = i;
  if (gpu_index != GTK_INVALID_LIST_POSITION)
    adw_combo_row_set_selected (self->gpu_row, gpu_index);
  gtk_editable_set_text (GTK_EDITABLE (self->conf_row), c->alloc_conf != NULL ? c->alloc_conf : "");
  gtk_editable_set_text (GTK_EDITABLE (self->args_row), args);
  self->updating = FALSE;
  update_sensitivity (self);
  update_subtitle (self);
}

static void
show_status (GmlLabPage *self,
             const char *text)
{
  gtk_label_set_label (self->status_label, text != NULL ? text : "");
}

/* The results belong to another configuration now. */
static void
results_outdated (GmlLabPage *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->max_batch_label), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->live_label), FALSE);
}

static void
schedule_run (GmlLabPage *self)
{
  self->first_run_pending = FALSE;
  g_clear_handle_id (&self->run_source, g_source_remove);
  results_outdated (self);
  if (gtk_toggle_button_get_active (self->predict_button))
    {
      /* The learner guesses first; Run (Ctrl+Enter) runs. */
      gtk_widget_set_visible (self->figures_box, FALSE);
      gtk_label_set_label (self->verdict_label, _("Make your guess, then run"));
      gtk_label_set_label (self->guess_result_label, "");
      return;
    }
  self->run_source = g_timeout_add_once (RUN_DELAY_MS, (GSourceOnceFunc) start_run, self);
}

/* A knob moved: the widget names its option; the parser checks the value. */
static void
knob_changed (GmlLabPage *self,
              GtkWidget  *widget)
{
  const char *knob = g_object_get_data (G_OBJECT (widget), "knob");
  g_autofree char *value = NULL;
  g_autoptr(GError) error = NULL;

  if (self->updating || knob == NULL)
    return;

  if (GTK_IS_SPIN_BUTTON (widget))
    value = g_strdup_printf ("%d", gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (widget)));
  else if (ADW_IS_COMBO_ROW (widget))
    {
      guint i = adw_combo_row_get_selected (ADW_COMBO_ROW (widget));
      const char * const *values = g_object_get_data (G_OBJECT (widget), "values");
      guint n = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), "n-values"));

      if (widget == GTK_WIDGET (self->gpu_row))
        {
          guint count;
          const guint *gib = gml_lab_gpu_presets (&count);

          value = i < count ? g_strdup_printf ("%uG", gib[i]) : NULL;
        }
      else if (i < n)
        value = g_strdup (values[i]);
      if (widget == GTK_WIDGET (self->model_row) && g_strcmp0 (value, "custom") == 0)
        {
          /* The shape as it is, now one's own: open it to edit. */
          if (self->config.arch != GML_LAB_ARCH_MLP)
            self->config.model = "custom";
          adw_expander_row_set_expanded (self->shape_row, TRUE);
          sync_widgets (self);
          schedule_run (self);
          return;
        }
      if (widget == GTK_WIDGET (self->checkpointing_row) && g_strcmp0 (value, "every") == 0)
        {
          g_free (value);
          value = g_strdup_printf ("every-%d", gtk_spin_button_get_value_as_int (self->every_spin));
        }
    }
  else if (ADW_IS_ENTRY_ROW (widget))
    value = g_strdup (gtk_editable_get_text (GTK_EDITABLE (widget)));
  if (value == NULL)
    return;

  if (widget == GTK_WIDGET (self->every_spin))
    {
      g_free (value);
      value = g_strdup_printf ("every-%d", gtk_spin_button_get_value_as_int (self->every_spin));
    }

  if (!gml_lab_config_set (&self->config, knob, value, &error))
    {
      show_status (self, error->message);
      return;
    }
  show_status (self, NULL);
  sync_widgets (self);
  schedule_run (self);
}

static void
spin_changed_cb (GtkSpinButton *spin,
                 GmlLabPage    *self)
{
  knob_changed (self, GTK_WIDGET (spin));
}

static void
combo_changed_cb (AdwComboRow *row,
                  GParamSpec  *pspec,
                  GmlLabPage  *self)
{
  knob_changed (self, GTK_WIDGET (row));
}

static void
conf_applied_cb (AdwEntryRow *row,
                 GmlLabPage  *self)
{
  knob_changed (self, GTK_WIDGET (row));
}

/* The command line typed or pasted: all knobs at once. */
static void
args_applied_cb (AdwEntryRow *row,
                 GmlLabPage  *self)
{
  g_autoptr(GError) error = NULL;

  if (!gml_lab_page_open_config (self, gtk_editable_get_text (GTK_EDITABLE (row)), &error))
    show_status (self, error->message);
}

static void
knob (GtkWidget          *widget,
      const char         *name,
      const char * const *values,
      guint               n_values)
{
  g_object_set_data (G_OBJECT (widget), "knob", (gpointer) name);
  g_object_set_data (G_OBJECT (widget), "values", (gpointer) values);
  g_object_set_data (G_OBJECT (widget), "n-values", GUINT_TO_POINTER (n_values));
}

/* ------------------------------------------------------------------------- */
/* Results                                                                   */

static void
update_picture_position (GmlLabPage *self)
{
  GmlScenario *sc;
  guint step, n;

  if (self->picture == NULL)
    return;
  sc = gml_picture_get_scenario (self->picture);
  step = gml_picture_get_step (self->picture);
  n = gml_scenario_get_n_steps (sc);
  gtk_label_set_label (self->caption_label, gml_scenario_get_step (sc, step)->caption);
  self->updating = TRUE;
  gtk_adjustment_configure (self->step_adjustment, step, 0, MAX (n - 1, 1), 1, MAX (n / 10, 1), 0);
  self->updating = FALSE;
  gml_picture_view_changed (self->picture_view);
}

static void
update_ab (GmlLabPage *self)
{
  g_autofree char *args_a = NULL;
  g_autofree char *args_b = NULL;
  g_autofree char *difference = NULL;
  g_autofree char *text = NULL;

  gtk_widget_set_visible (self->ab_box, self->pinned != NULL && self->run != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lab.unpin", self->pinned != NULL);
  if (self->pinned == NULL || self->run == NULL)
    return;
  args_a = gml_lab_config_to_args (gml_lab_run_get_config (self->pinned));
  args_b = gml_lab_config_to_args (gml_lab_run_get_config (self->run));
  difference = gml_lab_describe_difference (self->pinned, self->run);
  /* Translators: A's knobs, B's knobs, then what changed. */
  text = g_strdup_printf (_("A: %s\nB: %s\n%s"), args_a, args_b, difference);
  gtk_label_set_label (self->ab_label, text);
}

static void
show_results (GmlLabPage *self)
{
  const GmlLabResult *r = gml_lab_run_get_result (self->run);
  const GmlLabConfig *c = gml_lab_run_get_config (self->run);
  g_autofree char *gpu = gml_format_size_short (c->gpu_memory);
  g_autofree char *verdict = NULL;
  g_autofree char *params = gml_format_grouped (r->parameters);
  g_autoptr(GPtrArray) notes = gml_lab_run_dup_notes (self->run);
  g_autoptr(GString) text = g_string_new (NULL);
  guint64 formula[GML_N_CATEGORIES] = { 0 };

  /* A new result is read from its verdict, at the top, wherever the last one was scrolled. */
  gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (self->results_scroller), 0);
  verdict = r->fits ? g_strdup_printf (_("Fits in %s"), gpu)
                    : g_strdup_printf (_("Does not fit in %s"), gpu);
  gtk_label_set_label (self->verdict_label, verdict);
  /* Out of memory: the figures at the error, as the map beside them and PyTorch's
   * message show them (the peak before it may have been higher, earlier). */
  gtk_label_set_label (self->allocated_caption,
                       r->fits ? _("Peak allocated") : _("Allocated at the error"));
  gtk_label_set_label (self->reserved_caption,
                       r->fits ? _("Peak reserved") : _("Reserved at the error"));
  gml_accessible_set_bytes (self->allocated_label,
                            r->fits ? r->peak_allocated : r->allocated_at_peak);
  gml_accessible_set_bytes (self->reserved_label, r->fits ? r->peak_reserved : r->reserved_at_peak);
  gtk_label_set_label (self->params_label, params);

  formula[GML_CATEGORY_WEIGHTS] = r->formula.weights;
  formula[GML_CATEGORY_GRADIENTS] = c->mode == GML_LAB_TRAIN ? r->formula.gradients : 0;
  formula[GML_CATEGORY_OPTIMIZER_STATE] = c->mode == GML_LAB_TRAIN ? r->formula.optimizer_state : 0;
  formula[GML_CATEGORY_ACTIVATIONS] = r->formula.activations;
  formula[GML_CATEGORY_KV_CACHE] = r->formula.kv_cache;
  for (guint i = 0; i < G_N_ELEMENTS (category_order); i++)
    {
      GmlCategory cat = category_order[i];

      gml_accessible_set_bytes (self->category_values[i], r->by_category[cat]);
      if (cat == GML_CATEGORY_TEMPORARY)
        {
          gtk_label_set_label (self->category_formulas[i], "—");
          gtk_accessible_update_property (GTK_ACCESSIBLE (self->category_formulas[i]),
                                          GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("No formula"), -1);
        }
      else
        gml_accessible_set_bytes (self->category_formulas[i], formula[cat]);
    }

  /* The first step, said against the steady step in one sentence. */
  gtk_widget_set_visible (GTK_WIDGET (self->step_label), r->step_difference != NULL);
  gtk_label_set_label (self->step_label, r->step_difference != NULL ? r->step_difference : "");

  gtk_widget_set_visible (self->oom_box, !r->fits);
  gtk_label_set_label (self->oom_label, r->oom_message != NULL ? r->oom_message : "");

  for (guint i = 0; i < notes->len; i++)
    g_string_append_printf (text, "%s• %s", i > 0 ? "\n" : "",
                            (const char *) g_ptr_array_index (notes, i));
  gtk_label_set_label (self->notes_label, text->str);

  /* The picture: at the peak, or where it ran out of memory. */
  gml_picture_view_set_picture (self->picture_view, NULL);
  g_clear_pointer (&self->picture, gml_picture_free);
  self->picture = gml_picture_new (gml_lab_run_get_scenario (self->run));
  gml_picture_set_step (self->picture,
                        gml_scenario_get_focus_step (gml_lab_run_get_scenario (self->run)));
  gml_picture_view_set_picture (self->picture_view, self->picture);
  for (guint v = 0; v < N_LAB_VIEWS; v++)
    gtk_widget_set_visible (GTK_WIDGET (self->view_buttons[v]),
                            gml_picture_offers_view (self->picture, lab_views[v]));
  update_picture_position (self);
  gtk_widget_set_visible (self->figures_box, TRUE);
  update_ab (self);
}

/* "Predict, then run": how close the guess was, kept like an answer. */
static void
judge_guess (GmlLabPage *self)
{
  const GmlLabResult *r = gml_lab_run_get_result (self->run);
  double peak_gib = r->peak_allocated / (double) (G_GUINT64_CONSTANT (1) << 30);
  double off = peak_gib > 0 ? 100.0 * (self->guess_gib - peak_gib) / peak_gib : 0;
  g_autofree char *peak = gml_format_size_short (r->peak_allocated);
  g_autofree char *fits_text = NULL;
  g_autofree char *peak_text = NULL;
  g_autofree char *guess = NULL;
  g_autofree char *text = NULL;
  g_autofree char *args = gml_lab_config_to_args (gml_lab_run_get_config (self->run));
  g_autoptr(GError) error = NULL;

  if (self->guess_fits == r->fits)
    fits_text = g_strdup (r->fits ? _("You said it fits: right.")
                                  : _("You said it runs out of memory: right."));
  else
    fits_text = g_strdup (r->fits ? _("You said it runs out of memory, but it fits.")
                                  : _("You said it fits, but it runs out of memory."));
  /* The guess in the language's numbers, not the system locale's. */
  guess = gml_format_number (self->guess_gib, 1);
  if (fabs (off) < 10)
    /* Translators: the guess in GiB, the difference in percent, the engine's peak. */
    peak_text = g_strdup_printf (_("Your peak, %s GiB, is within %.0f %% of the engine’s %s."),
                                 guess,
                                 MAX (fabs (off), 1.0), peak);
  else
    /* Translators: the guess in GiB, "too high" or "too low" by a percentage, the peak. */
    peak_text =
        g_strdup_printf (off > 0 ? _("Your peak, %s GiB, is %.0f %% too high: the engine’s is %s.")
                                         : _("Your peak, %s GiB, is %.0f %% too low: the engine’s "
                                             "is %s."),
                         guess, fabs (off), peak);
  text = g_strdup_printf ("%s %s", fits_text, peak_text);
  gtk_label_set_label (self->guess_result_label, text);

  if (self->progress != NULL &&
      !gml_progress_record_guess (self->progress, args, self->guess_fits,
                                  (guint64) llround (ldexp (self->guess_gib, 30)),
                                  r->fits, r->peak_allocated, g_get_real_time () / G_USEC_PER_SEC,
                                  &error))
    show_status (self, error->message);
}

/* A run past SPINNER_DELAY_MS: the spinner, and how far it is, every tenth of
 * a second, once the run says (a long inference: one step per token). */
static gboolean
show_spinner_cb (gpointer user_data)
{
  GmlLabPage *self = user_data;
  guint per_mille = self->run_progress != NULL ? (guint) g_atomic_int_get (self->run_progress) : 0;

  gtk_spinner_start (self->spinner);
  if (per_mille > 0 && per_mille < 1000)
    {
      /* Translators: how far a long run is, e.g. "Running… 40 %". */
      g_autofree char *text = g_strdup_printf (_("Running… %u %%"), per_mille / 10);

      show_status (self, text);
    }
  else
    show_status (self, _("Running…"));
  return G_SOURCE_CONTINUE;
}

static void
stop_spinner (GmlLabPage *self)
{
  g_clear_handle_id (&self->spinner_source, g_source_remove);
  gtk_spinner_stop (self->spinner);
}

/* The page's workers hold it weakly (gml-weak-ref.h): a page that is closed is
 * disposed at once, its dispose cancels them, and a callback that finds it gone,
 * or its task cancelled, drops what the worker made. */
static GTask *
page_task_new (GmlLabPage          *self,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback)
{
  return g_task_new (NULL, cancellable, callback, gml_weak_ref_new (self));
}

/* The page a task was made for, or NULL when it is gone or the task was
 * cancelled; takes the task's reference to it. */
static GmlLabPage *
page_task_steal_page (GAsyncResult *result,
                      gpointer      user_data)
{
  GmlLabPage *self = gml_weak_ref_steal (user_data);

  if (self != NULL && g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))))
    g_clear_object (&self);
  return self;
}

typedef struct
{
  GmlLabConfig config;
  guint        generation;
  gint        *progress;     /* per mille, shared with the page (g_rc_box) */
} RunData;

static void
run_data_free (gpointer data)
{
  RunData *d = data;

  gml_lab_config_clear (&d->config);
  g_rc_box_release (d->progress);
  g_free (d);
}

static void
run_thread (GTask        *task,
            gpointer      source,
            gpointer      task_data,
            GCancellable *cancellable)
{
  RunData *d = task_data;
  GError *error = NULL;
  GmlLabRun *run = gml_lab_run_new_full (&d->config, GML_LAB_RUN_DEFAULT, cancellable,
                                         d->progress, &error);

  if (run == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, run, (GDestroyNotify) gml_lab_run_free);
}

static void
run_done_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GmlLabPage) self = page_task_steal_page (result, user_data);
  RunData *d = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  GmlLabRun *run = g_task_propagate_pointer (G_TASK (result), &error);

  /* Only the newest run is shown. */
  if (self == NULL || d->generation != self->generation)
    {
      g_clear_pointer (&run, gml_lab_run_free);
      return;
    }
  stop_spinner (self);
  if (run == NULL)
    {
      show_status (self, error->message);
      return;
    }
  show_status (self, NULL);
  gml_picture_view_set_picture (self->picture_view, NULL);
  g_clear_pointer (&self->picture, gml_picture_free);
  g_clear_pointer (&self->run, gml_lab_run_free);
  self->run = run;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lab.pin", TRUE);
  show_results (self);
  if (self->guess_pending)
    {
      self->guess_pending = FALSE;
      judge_guess (self);
    }
}

static void
start_run (GmlLabPage *self)
{
  g_autoptr(GTask) task = NULL;
  RunData *d;
  g_autoptr(GError) error = NULL;

  self->run_source = 0;
  if (!gml_lab_config_check (&self->config, &error))
    {
      stop_spinner (self);
      show_status (self, error->message);
      return;
    }
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();

  d = g_new0 (RunData, 1);
  gml_lab_config_copy (&d->config, &self->config);
  d->generation = ++self->generation;
  d->progress = g_rc_box_new0 (gint);
  g_clear_pointer (&self->run_progress, g_rc_box_release);
  self->run_progress = g_rc_box_acquire (d->progress);
  task = page_task_new (self, self->cancellable, run_done_cb);
  g_task_set_task_data (task, d, run_data_free);
  g_task_set_source_tag (task, start_run);
  g_task_run_in_thread (task, run_thread);
  if (self->spinner_source == 0)
    self->spinner_source = g_timeout_add (SPINNER_DELAY_MS, show_spinner_cb, self);
}

/* ------------------------------------------------------------------------- */
/* Largest batch that fits                                                   */

typedef struct
{
  GmlLabConfig config;
  guint        max_batch;
  guint        probes;
  guint        generation;
} SearchData;

static void
search_data_free (gpointer data)
{
  SearchData *d = data;

  gml_lab_config_clear (&d->config);
  g_free (d);
}

static void
search_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  SearchData *d = task_data;
  GError *error = NULL;

  if (gml_lab_find_max_batch (&d->config, GML_LAB_MAX_BATCH_SEARCH, &d->max_batch, &d->probes,
                              cancellable,
                              &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
search_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GmlLabPage) self = page_task_steal_page (result, user_data);
  SearchData *d = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error) || self == NULL)
    {
      if (self == NULL)
        return;
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_status (self, error->message);
      return;
    }
  if (d->generation != self->generation)
    return;
  stop_spinner (self);
  show_status (self, NULL);
  if (d->max_batch == 0)
    /* Translators: the number of runs through the allocator. */
    text =
        g_strdup_printf (_("Not even a batch of 1 fits with these knobs (%u runs through the "
                           "allocator)."),
                         d->probes);
  else
    /* Translators: a batch size, then the number of runs through the allocator. */
    text =
        g_strdup_printf (_("Largest batch that fits: %u (found in %u runs through the allocator: "
                           "doubling, then halving the gap)."), d->max_batch, d->probes);
  gtk_label_set_label (self->max_batch_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->max_batch_label), TRUE);
}

static void
max_batch_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  GmlLabPage *self = GML_LAB_PAGE (widget);
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  SearchData *d;

  if (!gml_lab_config_check (&self->config, &error))
    {
      show_status (self, error->message);
      return;
    }
  if (self->search_cancellable != NULL)
    g_cancellable_cancel (self->search_cancellable);
  g_clear_object (&self->search_cancellable);
  self->search_cancellable = g_cancellable_new ();
  d = g_new0 (SearchData, 1);
  gml_lab_config_copy (&d->config, &self->config);
  d->generation = self->generation;
  task = page_task_new (self, self->search_cancellable, search_done_cb);
  g_task_set_task_data (task, d, search_data_free);
  g_task_run_in_thread (task, search_thread);
  gtk_spinner_start (self->spinner);
  show_status (self, _("Searching…"));
}

/* ------------------------------------------------------------------------- */
/* Live run                                                                  */

/* The same step on the application's GPU, scaled into the lab's share of it,
 * and the simulator at the same scale beside it, in a worker: a step of a big
 * model takes a while on a real GPU, and the window goes on meanwhile. The
 * device is not thread-safe; gml_lab_run_live() holds it for the whole run
 * (gml_device_begin_run()), so the quiz picture's runs wait for it. */
typedef struct
{
  GmlLabConfig  config;
  GmlDevice    *device;
  GmlLabLive    live;
  guint         generation;
} LiveData;

static void
live_data_free (gpointer data)
{
  LiveData *d = data;

  gml_lab_config_clear (&d->config);
  g_clear_pointer (&d->device, gml_device_unref);
  gml_lab_live_clear (&d->live);
  g_free (d);
}

static void
live_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LiveData *d = task_data;
  GError *error = NULL;

  if (gml_lab_run_live (&d->config, d->device, &d->live, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
live_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GmlLabPage) self = page_task_steal_page (result, user_data);
  LiveData *d = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);

  if (self == NULL || g_task_get_cancellable (G_TASK (result)) != self->live_cancellable)
    return;   /* the page is gone */
  g_clear_object (&self->live_cancellable);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lab.live", TRUE);

  /* The knobs moved while it ran: its figures are for another step. */
  if (d->generation != self->generation)
    return;
  if (!ok)
    text = g_strdup (error->message);
  else
    {
      text = gml_lab_live_describe (&d->live);
      g_debug ("gml-lab-live scale=%" G_GUINT64_FORMAT " allocated=%" G_GUINT64_FORMAT
               " reserved=%" G_GUINT64_FORMAT " driver=%" G_GUINT64_FORMAT " agrees=%d",
               d->live.scale, d->live.peak_allocated, d->live.peak_reserved, d->live.driver_peak,
               d->live.agrees);
    }
  gtk_label_set_label (self->live_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->live_label), TRUE);
}

static void
live_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  GmlLabPage *self = GML_LAB_PAGE (widget);
  GApplication *app = g_application_get_default ();
  GmlDevice *device = NULL;
  g_autoptr(GTask) task = NULL;
  LiveData *d;

  if (self->live_cancellable != NULL)
    return;   /* one at a time: the action is off meanwhile */
  if (GML_IS_APPLICATION (app))
    device = gml_application_peek_device (GML_APPLICATION (app), NULL);
  if (device == NULL)
    {
      gtk_label_set_label (self->live_label,
                           _("A live run needs an NVIDIA GPU; this computer’s GPU is simulated."));
      gtk_widget_set_visible (GTK_WIDGET (self->live_label), TRUE);
      return;
    }

  d = g_new0 (LiveData, 1);
  gml_lab_config_copy (&d->config, &self->config);
  d->device = gml_device_ref (device);
  d->generation = self->generation;
  self->live_cancellable = g_cancellable_new ();
  task = page_task_new (self, self->live_cancellable, live_done_cb);
  g_task_set_task_data (task, d, live_data_free);
  g_task_set_source_tag (task, live_action);
  g_task_run_in_thread (task, live_thread);

  gtk_widget_action_set_enabled (widget, "lab.live", FALSE);
  gtk_label_set_label (self->live_label, _("Running the step on the GPU…"));
  gtk_widget_set_visible (GTK_WIDGET (self->live_label), TRUE);
}

/* ------------------------------------------------------------------------- */
/* Actions                                                                   */

static void
run_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  GmlLabPage *self = GML_LAB_PAGE (widget);

  g_clear_handle_id (&self->run_source, g_source_remove);
  if (gtk_toggle_button_get_active (self->predict_button))
    {
      self->guess_pending = TRUE;
      self->guess_fits = gtk_toggle_button_get_active (self->guess_fits_button);
      self->guess_gib = gtk_spin_button_get_value (self->guess_spin);
    }
  start_run (self);
}

static void
pin_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  GmlLabPage *self = GML_LAB_PAGE (widget);

  if (self->run == NULL)
    return;
  /* The run shown is A now: the same one (runs are immutable and shared), not
   * run again on the main loop; the next run replaces only the shown one. */
  g_clear_pointer (&self->pinned, gml_lab_run_free);
  self->pinned = gml_lab_run_ref (self->run);
  update_ab (self);
}

static void
unpin_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  GmlLabPage *self = GML_LAB_PAGE (widget);

  g_clear_pointer (&self->pinned, gml_lab_run_free);
  update_ab (self);
}

static void
predict_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  GmlLabPage *self = GML_LAB_PAGE (widget);

  gtk_toggle_button_set_active (self->predict_button,
                                !gtk_toggle_button_get_active (self->predict_button));
}

static void
edit_args_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  GmlLabPage *self = GML_LAB_PAGE (widget);

  gtk_widget_grab_focus (GTK_WIDGET (self->args_row));
}

static void
step_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  GmlLabPage *self = GML_LAB_PAGE (widget);
  int step, n;

  if (self->picture == NULL)
    return;
  n = gml_scenario_get_n_steps (gml_picture_get_scenario (self->picture));
  step = gml_picture_get_step (self->picture);
  if (g_str_equal (action_name, "lab.step-forward"))
    step++;
  else if (g_str_equal (action_name, "lab.step-back"))
    step--;
  else if (g_str_equal (action_name, "lab.step-first"))
    step = 0;
  else if (g_str_equal (action_name, "lab.step-last"))
    step = n - 1;
  else
    step = gml_scenario_get_focus_step (gml_picture_get_scenario (self->picture));
  gml_picture_set_step (self->picture, CLAMP (step, 0, n - 1));
  update_picture_position (self);
}

static void
predict_toggled_cb (GmlLabPage      *self,
                    GtkToggleButton *button)
{
  gboolean on = gtk_toggle_button_get_active (button);

  gtk_widget_set_visible (self->predict_box, on);
  gtk_label_set_label (self->guess_result_label, "");
  if (on)
    schedule_run (self);
}

static void
view_toggled_cb (GmlLabPage      *self,
                 GtkToggleButton *button)
{
  if (!gtk_toggle_button_get_active (button))
    return;
  for (guint v = 0; v < N_LAB_VIEWS; v++)
    if (self->view_buttons[v] == button)
      gml_picture_view_set_view (self->picture_view, lab_views[v]);
}

static void
step_scale_changed_cb (GmlLabPage    *self,
                       GtkAdjustment *adjustment)
{
  if (self->updating || self->picture == NULL)
    return;
  gml_picture_set_step (self->picture, (guint) gtk_adjustment_get_value (adjustment));
  update_picture_position (self);
}

static void
step_activated_cb (GmlLabPage     *self,
                   guint           step,
                   GmlPictureView *view)
{
  if (self->picture == NULL)
    return;
  gml_picture_set_step (self->picture, step);
  update_picture_position (self);
}

/* ------------------------------------------------------------------------- */
/* Public                                                                    */

void
gml_lab_page_set_progress (GmlLabPage  *self,
                           GmlProgress *progress)
{
  g_return_if_fail (GML_IS_LAB_PAGE (self));
  self->progress = progress;
}

gboolean
gml_lab_page_open_config (GmlLabPage  *self,
                          const char  *args,
                          GError     **error)
{
  GmlLabConfig config;

  g_return_val_if_fail (GML_IS_LAB_PAGE (self), FALSE);

  gml_lab_config_init (&config);
  if (!gml_lab_config_parse_args (&config, args, error) || !gml_lab_config_check (&config, error))
    {
      gml_lab_config_clear (&config);
      return FALSE;
    }
  gml_lab_config_copy (&self->config, &config);
  gml_lab_config_clear (&config);
  show_status (self, NULL);
  sync_widgets (self);
  schedule_run (self);
  return TRUE;
}

const char *
gml_lab_page_get_subtitle (GmlLabPage *self)
{
  g_return_val_if_fail (GML_IS_LAB_PAGE (self), NULL);
  return self->subtitle;
}

GmlLabRun *
gml_lab_page_get_run (GmlLabPage *self)
{
  g_return_val_if_fail (GML_IS_LAB_PAGE (self), NULL);
  return self->run;
}

/* ------------------------------------------------------------------------- */
/* Construction                                                              */

static void
build_category_grid (GmlLabPage *self)
{
  self->peak_header = GTK_LABEL (gtk_label_new (NULL));
  self->formula_header = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->peak_header, 0);
  gtk_label_set_xalign (self->formula_header, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->peak_header), "heading");
  gtk_widget_add_css_class (GTK_WIDGET (self->formula_header), "heading");
  gtk_grid_attach (self->category_grid, GTK_WIDGET (self->peak_header), 1, 0, 1, 1);
  gtk_grid_attach (self->category_grid, GTK_WIDGET (self->formula_header), 2, 0, 1, 1);
  for (guint i = 0; i < G_N_ELEMENTS (category_order); i++)
    {
      self->category_names[i] = GTK_LABEL (gtk_label_new (NULL));
      self->category_values[i] = GTK_LABEL (gtk_label_new (NULL));
      self->category_formulas[i] = GTK_LABEL (gtk_label_new (NULL));
      gtk_label_set_xalign (self->category_names[i], 0);
      gtk_label_set_xalign (self->category_values[i], 0);
      gtk_label_set_xalign (self->category_formulas[i], 0);
      gtk_label_set_selectable (self->category_values[i], TRUE);
      gtk_widget_add_css_class (GTK_WIDGET (self->category_values[i]), "numeric");
      gtk_widget_add_css_class (GTK_WIDGET (self->category_formulas[i]), "numeric");
      gtk_widget_add_css_class (GTK_WIDGET (self->category_formulas[i]), "dim-label");
      gtk_grid_attach (self->category_grid, GTK_WIDGET (self->category_names[i]), 0, i + 1, 1, 1);
      gtk_grid_attach (self->category_grid, GTK_WIDGET (self->category_values[i]), 1, i + 1, 1, 1);
      gtk_grid_attach (self->category_grid, GTK_WIDGET (self->category_formulas[i]), 2, i + 1, 1,
                       1);
    }
}

/* A button with a mnemonic is named by its label without the underscore, as
 * it reads on screen (GTK 4.8 would otherwise give it "_Run"). */
static void
label_button (GtkWidget *button)
{
  const char *label = gtk_button_get_label (GTK_BUTTON (button));
  g_autofree char *plain = NULL;

  if (label == NULL)
    return;
  plain = gml_accessible_strip_mnemonic (label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, plain,
                                  -1);
}

/* Accessible names in code, set again when the language changes. The rows'
 * titles are translated by the language switch first. */
static void
set_accessible_labels (GmlLabPage *self)
{
  GtkWidget *buttons[] = {
    self->run_button, self->max_batch_button, self->live_button, self->pin_button,
    GTK_WIDGET (self->predict_button),
    GTK_WIDGET (self->guess_fits_button), GTK_WIDGET (self->guess_oom_button),
  };
  static const char *view_labels[N_LAB_VIEWS] = { N_("Memory map view"), N_("Fragmentation view"),
                                                  N_("Timeline view") };

  /* The rows name their spin buttons, combo boxes and text fields themselves
   * (AdwActionRow's activatable widget, AdwComboRow, AdwEntryRow). */
  for (guint i = 0; i < G_N_ELEMENTS (buttons); i++)
    label_button (buttons[i]);
  for (guint v = 0; v < N_LAB_VIEWS; v++)
    gtk_accessible_update_property (GTK_ACCESSIBLE (self->view_buttons[v]),
                                    GTK_ACCESSIBLE_PROPERTY_LABEL,
                                    _(view_labels[v]), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->guess_spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Your guess of the peak allocated, in GiB"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->step_scale), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Moment of the step"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->unpin_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Forget A"), -1);
  gtk_label_set_label (self->peak_header, _("At the peak"));
  gtk_label_set_label (self->formula_header, _("Formula"));
  /* A screen reader reads each figure after its caption, and the exact bytes
   * in its description (gml_accessible_set_bytes()). */
  for (guint i = 0; i < G_N_ELEMENTS (category_order); i++)
    gtk_label_set_label (self->category_names[i], gml_lab_category_name (category_order[i]));
}

static void
language_changed_cb (GtkWidget *widget)
{
  GmlLabPage *self = GML_LAB_PAGE (widget);

  fill_choices (self);
  sync_widgets (self);
  set_accessible_labels (self);
  /* Captions and notes are written when a run is made: run again. */
  if (self->run != NULL)
    schedule_run (self);
}

static void
gml_lab_page_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  GmlLabPage *self = GML_LAB_PAGE (object);

  switch (prop_id)
    {
    case PROP_SUBTITLE:
      g_value_set_string (value, self->subtitle);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_lab_page_dispose (GObject *object)
{
  GmlLabPage *self = GML_LAB_PAGE (object);

  g_clear_handle_id (&self->run_source, g_source_remove);
  g_clear_handle_id (&self->spinner_source, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  if (self->search_cancellable != NULL)
    g_cancellable_cancel (self->search_cancellable);
  if (self->live_cancellable != NULL)
    g_cancellable_cancel (self->live_cancellable);
  if (self->picture_view != NULL)
    gml_picture_view_set_picture (self->picture_view, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_LAB_PAGE);
  self->picture_view = NULL;
  g_clear_object (&self->cancellable);
  g_clear_object (&self->search_cancellable);
  g_clear_object (&self->live_cancellable);

  G_OBJECT_CLASS (gml_lab_page_parent_class)->dispose (object);
}

static void
gml_lab_page_finalize (GObject *object)
{
  GmlLabPage *self = GML_LAB_PAGE (object);

  g_clear_pointer (&self->picture, gml_picture_free);
  g_clear_pointer (&self->run, gml_lab_run_free);
  g_clear_pointer (&self->pinned, gml_lab_run_free);
  g_clear_pointer (&self->run_progress, g_rc_box_release);
  g_clear_pointer (&self->subtitle, g_free);
  gml_lab_config_clear (&self->config);

  G_OBJECT_CLASS (gml_lab_page_parent_class)->finalize (object);
}

static void
bind (GtkWidgetClass *widget_class,
      guint           keyval,
      GdkModifierType mods,
      const char     *action)
{
  gtk_widget_class_add_binding_action (widget_class, keyval, mods, action, NULL);
}

#define CHILD(name) gtk_widget_class_bind_template_child (widget_class, GmlLabPage, name)

static void
gml_lab_page_map (GtkWidget *widget)
{
  GmlLabPage *self = GML_LAB_PAGE (widget);

  GTK_WIDGET_CLASS (gml_lab_page_parent_class)->map (widget);
  if (self->first_run_pending)
    schedule_run (self);
}

static void
gml_lab_page_class_init (GmlLabPageClass *klass)
{
  /* In the order of the view enumeration. */
  static const char * const view_button_names[] = {
    "map_button", "fragmentation_button", "timeline_button", NULL
  };
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = gml_lab_page_dispose;
  object_class->finalize = gml_lab_page_finalize;
  object_class->get_property = gml_lab_page_get_property;
  widget_class->map = gml_lab_page_map;

  properties[PROP_SUBTITLE] =
    g_param_spec_string ("subtitle", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (GML_TYPE_PICTURE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_BASE "/gml-lab-page.ui");
  CHILD (paned);
  CHILD (results_scroller);
  CHILD (model_row);
  CHILD (shape_row);
  CHILD (layers_spin);
  CHILD (hidden_spin);
  CHILD (heads_row);
  CHILD (heads_spin);
  CHILD (ffn_row);
  CHILD (ffn_spin);
  CHILD (vocab_spin);
  CHILD (mode_row);
  CHILD (batch_spin);
  CHILD (seq_row);
  CHILD (seq_spin);
  CHILD (tokens_row);
  CHILD (tokens_spin);
  CHILD (precision_row);
  CHILD (training_group);
  CHILD (optimizer_row);
  CHILD (step_row);
  CHILD (checkpointing_row);
  CHILD (every_row);
  CHILD (every_spin);
  CHILD (accumulation_spin);
  CHILD (zero_row);
  CHILD (gpus_spin);
  CHILD (gpu_row);
  CHILD (conf_row);
  CHILD (args_row);
  CHILD (verdict_label);
  CHILD (spinner);
  CHILD (status_label);
  CHILD (run_button);
  CHILD (max_batch_button);
  CHILD (live_button);
  CHILD (pin_button);
  CHILD (predict_button);
  CHILD (predict_box);
  CHILD (guess_fits_button);
  CHILD (guess_oom_button);
  CHILD (guess_spin);
  CHILD (guess_result_label);
  CHILD (figures_box);
  CHILD (allocated_label);
  CHILD (reserved_label);
  CHILD (params_label);
  CHILD (allocated_caption);
  CHILD (reserved_caption);
  CHILD (params_caption);
  CHILD (max_batch_label);
  CHILD (live_label);
  CHILD (step_label);
  CHILD (category_grid);
  CHILD (oom_box);
  CHILD (oom_label);
  CHILD (ab_box);
  CHILD (ab_label);
  CHILD (unpin_button);
  CHILD (picture_view);
  CHILD (caption_label);
  CHILD (step_scale);
  CHILD (step_adjustment);
  CHILD (notes_label);
  gml_template_bind_children (widget_class, G_STRUCT_OFFSET (GmlLabPage, view_buttons),
                              view_button_names);
  G_STATIC_ASSERT (G_N_ELEMENTS (view_button_names) == N_LAB_VIEWS + 1);

  gtk_widget_class_install_action (widget_class, "lab.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "lab.max-batch", NULL, max_batch_action);
  gtk_widget_class_install_action (widget_class, "lab.live", NULL, live_action);
  gtk_widget_class_install_action (widget_class, "lab.pin", NULL, pin_action);
  gtk_widget_class_install_action (widget_class, "lab.unpin", NULL, unpin_action);
  gtk_widget_class_install_action (widget_class, "lab.predict", NULL, predict_action);
  gtk_widget_class_install_action (widget_class, "lab.edit-args", NULL, edit_args_action);
  gtk_widget_class_install_action (widget_class, "lab.step-forward", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "lab.step-back", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "lab.step-first", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "lab.step-last", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "lab.step-peak", NULL, step_action);

  /* Keys work wherever the focus is inside the page; a text field keeps the
   * characters it takes ([ and ] step only outside one). */
  bind (widget_class, GDK_KEY_Return, GDK_CONTROL_MASK, "lab.run");
  bind (widget_class, GDK_KEY_KP_Enter, GDK_CONTROL_MASK, "lab.run");
  bind (widget_class, GDK_KEY_b, GDK_CONTROL_MASK, "lab.max-batch");
  bind (widget_class, GDK_KEY_Return, GDK_CONTROL_MASK | GDK_SHIFT_MASK, "lab.live");
  bind (widget_class, GDK_KEY_KP_Enter, GDK_CONTROL_MASK | GDK_SHIFT_MASK, "lab.live");
  bind (widget_class, GDK_KEY_p, GDK_CONTROL_MASK, "lab.pin");
  bind (widget_class, GDK_KEY_g, GDK_CONTROL_MASK, "lab.predict");
  bind (widget_class, GDK_KEY_l, GDK_CONTROL_MASK, "lab.edit-args");
  bind (widget_class, GDK_KEY_bracketright, 0, "lab.step-forward");
  bind (widget_class, GDK_KEY_bracketleft, 0, "lab.step-back");
  bind (widget_class, GDK_KEY_Home, GDK_CONTROL_MASK, "lab.step-first");
  bind (widget_class, GDK_KEY_End, GDK_CONTROL_MASK, "lab.step-last");
  bind (widget_class, GDK_KEY_k, GDK_CONTROL_MASK, "lab.step-peak");

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "labpage");
}

static void
gml_lab_page_init (GmlLabPage *self)
{
  static const char *spin_knobs[] = {
    "layers", "hidden", "heads", "ffn", "vocab", "batch", "seq", "tokens", "checkpointing",
    "accumulation", "gpus",
  };
  AdwComboRow *combos[8];

  gtk_widget_init_template (GTK_WIDGET (self));
  gml_lab_config_init (&self->config);
  build_category_grid (self);
  fill_choices (self);

  {
    GtkSpinButton *all[] = {
      self->layers_spin, self->hidden_spin, self->heads_spin, self->ffn_spin, self->vocab_spin,
      self->batch_spin, self->seq_spin, self->tokens_spin, self->every_spin,
      self->accumulation_spin, self->gpus_spin,
    };

    G_STATIC_ASSERT (G_N_ELEMENTS (all) == G_N_ELEMENTS (spin_knobs));
    for (guint i = 0; i < G_N_ELEMENTS (all); i++)
      {
        knob (GTK_WIDGET (all[i]), spin_knobs[i], NULL, 0);
        g_signal_connect_object (all[i], "value-changed", G_CALLBACK (spin_changed_cb), self, 0);
      }
  }

  knob (GTK_WIDGET (self->model_row), "model", model_values, G_N_ELEMENTS (model_values));
  knob (GTK_WIDGET (self->mode_row), "mode", mode_values, G_N_ELEMENTS (mode_values));
  knob (GTK_WIDGET (self->precision_row), "precision", precision_values,
        G_N_ELEMENTS (precision_values));
  knob (GTK_WIDGET (self->optimizer_row), "optimizer", optimizer_values,
        G_N_ELEMENTS (optimizer_values));
  knob (GTK_WIDGET (self->step_row), "step", step_values, G_N_ELEMENTS (step_values));
  knob (GTK_WIDGET (self->checkpointing_row), "checkpointing", checkpointing_values,
        G_N_ELEMENTS (checkpointing_values));
  knob (GTK_WIDGET (self->zero_row), "zero", zero_values, G_N_ELEMENTS (zero_values));
  knob (GTK_WIDGET (self->gpu_row), "gpu-memory", NULL, 0);
  knob (GTK_WIDGET (self->conf_row), "alloc-conf", NULL, 0);
  combos[0] = self->model_row;
  combos[1] = self->mode_row;
  combos[2] = self->precision_row;
  combos[3] = self->optimizer_row;
  combos[4] = self->checkpointing_row;
  combos[5] = self->zero_row;
  combos[6] = self->gpu_row;
  combos[7] = self->step_row;
  for (guint i = 0; i < G_N_ELEMENTS (combos); i++)
    {
      gml_combo_row_show_whole_choices (combos[i]);
      g_signal_connect_object (combos[i], "notify::selected", G_CALLBACK (combo_changed_cb), self,
                               0);
    }
  g_signal_connect_object (self->conf_row, "apply", G_CALLBACK (conf_applied_cb), self, 0);
  g_signal_connect_object (self->args_row, "apply", G_CALLBACK (args_applied_cb), self, 0);
  g_signal_connect_object (self->args_row, "entry-activated", G_CALLBACK (args_applied_cb), self,
                           0);
  g_signal_connect_object (self->predict_button, "toggled", G_CALLBACK (predict_toggled_cb), self,
                           G_CONNECT_SWAPPED);
  for (guint v = 0; v < N_LAB_VIEWS; v++)
    g_signal_connect_object (self->view_buttons[v], "toggled", G_CALLBACK (view_toggled_cb), self,
                             G_CONNECT_SWAPPED);
  g_signal_connect_object (self->step_adjustment, "value-changed",
                           G_CALLBACK (step_scale_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->picture_view, "step-activated", G_CALLBACK (step_activated_cb),
                           self,
                           G_CONNECT_SWAPPED);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lab.pin", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lab.unpin", FALSE);
  gtk_widget_set_visible (self->figures_box, FALSE);
  gtk_label_set_label (self->verdict_label, _("Running the step…"));
  set_accessible_labels (self);
  sync_widgets (self);

  gml_language_follow (GTK_WIDGET (self), language_changed_cb);
  /* Nothing runs while the view is not shown: the window starts with the quiz,
   * and a whole training step on the other core would slow its first frame. */
  self->first_run_pending = TRUE;
}

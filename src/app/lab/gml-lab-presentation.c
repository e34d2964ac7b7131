/* gml-lab-presentation.c — the Experiment view's result on the projector.
 *
 * F5 in the Experiment view: the lab's current knobs run again (the result is
 * the engine's, the same figures the view shows) and the window shows what a
 * lecture hall needs to read from the back row: the peaks, the verdict or
 * PyTorch's out-of-memory message, the bytes by category at the peak, and the
 * memory map at the peak, drawn by the same render code with larger type.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-lab-presentation"

#include "config.h"

#include "gml-lab-presentation.h"
#include "gml-weak-ref.h"

#include "gml-accessible.h"
#include "gml-i18n.h"
#include "gml-language.h"
#include "gml-render.h"

/* The picture's type against the window's, for the back row. */
#define PICTURE_FONT_SCALE 1.8

static const GmlCategory category_order[] = {
  GML_CATEGORY_WEIGHTS, GML_CATEGORY_GRADIENTS, GML_CATEGORY_OPTIMIZER_STATE,
  GML_CATEGORY_ACTIVATIONS, GML_CATEGORY_TEMPORARY, GML_CATEGORY_KV_CACHE,
};

struct _GmlLabPresentation
{
  AdwWindow        parent_instance;

  /* Template widgets */
  GtkLabel        *title_label;
  GtkLabel        *status_label;
  GtkWidget       *result_box;
  GtkLabel        *allocated_caption;
  GtkLabel        *allocated_label;
  GtkLabel        *reserved_caption;
  GtkLabel        *reserved_label;
  GtkLabel        *verdict_label;
  GtkLabel        *oom_label;
  GtkLabel        *step_label;
  GtkGrid         *category_grid;
  GtkDrawingArea  *picture_area;

  /* Owned */
  GmlLabConfig     config;
  GmlLabRun       *run;
  GmlPicture      *picture;
  GCancellable    *cancellable;
};

G_DEFINE_FINAL_TYPE (GmlLabPresentation, gml_lab_presentation, ADW_TYPE_WINDOW)

static void
draw_picture (GtkDrawingArea *area,
              cairo_t        *cr,
              int             width,
              int             height,
              gpointer        user_data)
{
  GmlLabPresentation *self = user_data;
  AdwStyleManager *manager = adw_style_manager_get_default ();
  GmlRenderStyle style;

  if (self->picture == NULL || width <= 0 || height <= 0)
    return;
  gml_render_style_init (&style, gml_theme_for (adw_style_manager_get_dark (manager),
                                               adw_style_manager_get_high_contrast (manager)));
  style.font_size *= PICTURE_FONT_SCALE;
  gml_render_picture (cr, self->picture, GML_VIEW_MEMORY_MAP, &style, width, height);
}

static void
show_result (GmlLabPresentation *self)
{
  const GmlLabResult *r = gml_lab_run_get_result (self->run);
  GmlScenario *sc = gml_lab_run_get_scenario (self->run);
  g_autofree char *gpu = gml_format_size_short (self->config.gpu_memory);
  g_autofree char *verdict = NULL;
  g_autofree char *description = NULL;
  GtkWidget *child;
  guint row = 0;

  gml_accessible_set_bytes (self->allocated_label, r->peak_allocated);
  gml_accessible_set_bytes (self->reserved_label, r->peak_reserved);
  verdict = r->fits ? g_strdup_printf (_("Fits in %s"), gpu)
                    : g_strdup_printf (_("Does not fit in %s"), gpu);
  gtk_label_set_label (self->verdict_label, verdict);
  gtk_widget_set_visible (GTK_WIDGET (self->oom_label), !r->fits);
  gtk_label_set_label (self->oom_label, r->oom_message != NULL ? r->oom_message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->step_label), r->step_difference != NULL);
  gtk_label_set_label (self->step_label, r->step_difference != NULL ? r->step_difference : "");

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->category_grid))) != NULL)
    gtk_grid_remove (self->category_grid, child);
  for (guint i = 0; i < G_N_ELEMENTS (category_order); i++)
    {
      GtkWidget *name, *value;

      if (r->by_category[category_order[i]] == 0)
        continue;
      name = gtk_label_new (gml_lab_category_name (category_order[i]));
      value = gtk_label_new (NULL);
      gtk_label_set_xalign (GTK_LABEL (name), 0);
      gtk_label_set_xalign (GTK_LABEL (value), 1);
      gtk_widget_add_css_class (value, "numeric");
      gml_accessible_set_bytes (GTK_LABEL (value), r->by_category[category_order[i]]);
      gtk_grid_attach (self->category_grid, name, 0, row, 1, 1);
      gtk_grid_attach (self->category_grid, value, 1, row, 1, 1);
      row++;
    }

  g_clear_pointer (&self->picture, gml_picture_free);
  self->picture = gml_picture_new (sc);
  gml_picture_set_step (self->picture, gml_scenario_get_focus_step (sc));
  description = gml_picture_describe_full (self->picture, GML_VIEW_MEMORY_MAP);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->picture_area),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  description, -1);
  gtk_widget_queue_draw (GTK_WIDGET (self->picture_area));

  gtk_widget_set_visible (GTK_WIDGET (self->status_label), FALSE);
  gtk_widget_set_visible (self->result_box, TRUE);
}

static void
run_thread (GTask        *task,
            gpointer      source,
            gpointer      task_data,
            GCancellable *cancellable)
{
  GError *error = NULL;
  GmlLabRun *run = gml_lab_run_new_cancellable (task_data, GML_LAB_RUN_DEFAULT, cancellable,
                                                &error);

  if (run == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, run, (GDestroyNotify) gml_lab_run_free);
}

static void
config_free (gpointer data)
{
  gml_lab_config_clear (data);
  g_free (data);
}

static void
run_done_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GmlLabPresentation) self = gml_weak_ref_steal (user_data);
  g_autoptr(GError) error = NULL;
  GmlLabRun *run = g_task_propagate_pointer (G_TASK (result), &error);

  /* A closed window, or a newer run (the language changed). */
  if (self == NULL || g_task_get_cancellable (G_TASK (result)) != self->cancellable ||
      g_cancellable_is_cancelled (self->cancellable))
    {
      g_clear_pointer (&run, gml_lab_run_free);
      return;
    }
  if (run == NULL)
    {
      gtk_label_set_label (self->status_label, error->message);
      return;
    }
  g_clear_pointer (&self->run, gml_lab_run_free);
  self->run = run;
  show_result (self);
}

static void
gml_lab_presentation_dispose (GObject *object)
{
  GmlLabPresentation *self = GML_LAB_PRESENTATION (object);

  /* The run holds the presentation weakly: its callback finds it gone. */
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_LAB_PRESENTATION);
  G_OBJECT_CLASS (gml_lab_presentation_parent_class)->dispose (object);
}

static void
gml_lab_presentation_finalize (GObject *object)
{
  GmlLabPresentation *self = GML_LAB_PRESENTATION (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->picture, gml_picture_free);
  g_clear_pointer (&self->run, gml_lab_run_free);
  gml_lab_config_clear (&self->config);
  G_OBJECT_CLASS (gml_lab_presentation_parent_class)->finalize (object);
}

static void
gml_lab_presentation_class_init (GmlLabPresentationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = gml_lab_presentation_dispose;
  object_class->finalize = gml_lab_presentation_finalize;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/gpumemorylab/GpuMemoryLab/"
                                               "gml-lab-presentation.ui");
#define CHILD(name) gtk_widget_class_bind_template_child (widget_class, GmlLabPresentation, name)
  CHILD (title_label);
  CHILD (status_label);
  CHILD (result_box);
  CHILD (allocated_caption);
  CHILD (allocated_label);
  CHILD (reserved_caption);
  CHILD (reserved_label);
  CHILD (verdict_label);
  CHILD (oom_label);
  CHILD (step_label);
  CHILD (category_grid);
  CHILD (picture_area);
#undef CHILD
  /* Escape leaves, as it leaves the quiz's presentation; Ctrl+W too, as in every window. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close",
                                       NULL);
}

static void
gml_lab_presentation_init (GmlLabPresentation *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gml_language_localize_widget (GTK_WIDGET (self), NULL);
  gml_lab_config_init (&self->config);
  gtk_drawing_area_set_draw_func (self->picture_area, draw_picture, self, NULL);
}

/* Runs the knobs (again): the figures and sentences come in the current language. */
static void
start_run (GmlLabPresentation *self)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *title = gml_lab_config_describe (&self->config);
  GmlLabConfig *copy;

  gtk_label_set_label (self->title_label, title);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  copy = g_new0 (GmlLabConfig, 1);
  gml_lab_config_copy (copy, &self->config);
  task = g_task_new (NULL, self->cancellable, run_done_cb, gml_weak_ref_new (self));
  g_task_set_task_data (task, copy, config_free);
  g_task_set_source_tag (task, start_run);
  g_task_run_in_thread (task, run_thread);
}

static void
language_changed_cb (GtkWidget *widget)
{
  start_run (GML_LAB_PRESENTATION (widget));
}

GtkWindow *
gml_lab_presentation_new (GtkWindow *parent,
                          GmlLabRun *run)
{
  GmlLabPresentation *self;
  GtkApplication *app = parent != NULL ? gtk_window_get_application (parent) : NULL;
  g_autofree char *title = NULL;

  g_return_val_if_fail (run != NULL, NULL);

  self = g_object_new (GML_TYPE_LAB_PRESENTATION, "transient-for", parent, "application", app,
                       NULL);
  gml_lab_config_copy (&self->config, gml_lab_run_get_config (run));
  gml_language_follow (GTK_WIDGET (self), language_changed_cb);
  /* The Experiment view's own run, shared: nothing runs again until the language
   * changes (the run's sentences are in the language it was made in). */
  self->run = gml_lab_run_ref (run);
  title = gml_lab_config_describe (&self->config);
  gtk_label_set_label (self->title_label, title);
  show_result (self);
  return GTK_WINDOW (self);
}

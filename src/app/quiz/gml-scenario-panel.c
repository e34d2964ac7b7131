/* gml-scenario-panel.c — a question's picture script with its controls, beside the question.
 *
 * Each question names its own picture script; the panel runs it once (on the
 * application's device, live or simulated), shows its setup before the answer
 * and the state the question is about after it. Only the views that show
 * something for this picture script are offered, so no state leaves a blank card.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-scenario-panel"

#include "config.h"

#include <math.h>
#include "gml-accessible.h"
#include "gml-i18n.h"
#include "gml-language.h"

#include "gml-application.h"
#include "gml-export-chooser.h"
#include "gml-picture-run.h"
#include "gml-picture-view.h"
#include "gml-scenario-panel.h"
#include "gml-scrub-keys.h"
#include "gml-template.h"
#include "gml-weak-ref.h"

/* Any picture script plays in about this long at 1×, whatever its number of steps. */
#define PLAY_DURATION_MS 15000.0
#define MIN_TICK_MS      40.0

static const double speeds[] = { 0.5, 1.0, 2.0, 4.0 };

struct _GmlScenarioPanel
{
  GtkWidget        parent_instance;

  /* Template widgets */
  GtkWidget       *box;
  GtkLabel        *title_label;
  GtkLabel        *source_label;
  GtkToggleButton *view_buttons[GML_N_VIEWS];
  GmlPictureView  *picture_view;
  GtkLabel        *caption_label;
  GtkRevealer     *controls_revealer;
  GtkScale        *step_scale;
  GtkAdjustment   *step_adjustment;
  GtkLabel        *step_label;
  GtkButton       *restart_button;
  GtkButton       *back_button;
  GtkButton       *play_button;
  GtkButton       *forward_button;
  GtkButton       *export_button;
  GtkDropDown     *speed_dropdown;
  GtkToggleButton *by_size_button;

  /* Owned */
  GHashTable      *scenarios;          /* picture script string -> GmlScenario, run once each */
  GmlPicture      *picture;
  GmlDevice       *fallback;           /* the simulator, after a CUDA failure */
  char            *fallback_reason;
  GtkFileChooserNative *chooser;

  /* State */
  const GmlQuestion *question;         /* borrowed from the bank */
  char            *key;                /* the shown picture script's string */
  GmlPictureRun    run;                /* the picture script running in a worker, if any */
  gboolean         pending_point;      /* answered before its picture came */
  guint            play_source;
  guint            play_stride;        /* steps per tick */
  gboolean         updating_scale;
};

G_DEFINE_FINAL_TYPE (GmlScenarioPanel, gml_scenario_panel, GTK_TYPE_WIDGET)

enum {
  MESSAGE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

GtkWidget *
gml_scenario_panel_new (void)
{
  return g_object_new (GML_TYPE_SCENARIO_PANEL, NULL);
}

static GmlDevice *
current_device (GmlScenarioPanel  *self,
                const char       **reason)
{
  GApplication *app = g_application_get_default ();

  if (self->fallback != NULL)
    {
      *reason = self->fallback_reason;
      return self->fallback;
    }
  /* NULL while the application still opens it: the first question must not
   * wait for the CUDA driver; GmlApplication::device-changed reloads. */
  if (GML_IS_APPLICATION (app))
    return gml_application_peek_device (GML_APPLICATION (app), reason);

  /* Without the application (widget tests), the simulator. */
  self->fallback = gml_device_sim_new (GML_SCENARIO_SIM_CAPACITY, 0);
  *reason = NULL;
  return self->fallback;
}

/* One short line a learner can read ("Simulated GPU", "NVIDIA H200 — live");
 * why no GPU was used is for the curious, in the tooltip and in About. */
static void
update_source_label (GmlScenarioPanel *self)
{
  const char *reason = NULL;
  GmlDevice *device = current_device (self, &reason);

  if (device == NULL)
    {
      /* Not known yet: nothing that could be wrong. */
      gtk_label_set_label (self->source_label, "…");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->source_label), NULL);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->source_label),
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("Finding the GPU…"),
                                      -1);
      return;
    }
  if (g_str_equal (gml_device_get_id (device), "cuda"))
    {
      g_autofree char *text = NULL;
      g_autofree char *budget = gml_format_size_short (gml_device_get_budget (device));
      g_autofree char *tip = NULL;

      /* Translators: %s is the GPU's name, e.g. "NVIDIA H200 — live". */
      text = g_strdup_printf (_("%s — live"), gml_device_get_name (device));
      /* Translators: %s is a size such as "1 GiB". */
      tip = g_strdup_printf (_("The pictures run on this GPU’s real memory, within the lab’s "
                               "budget of %s."), budget);
      gtk_label_set_label (self->source_label, text);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->source_label), tip);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->source_label),
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, tip, -1);
    }
  else
    {
      const char *why = reason != NULL ? reason : _("The simulator was chosen in the preferences.");

      gtk_label_set_label (self->source_label, gml_device_get_name (device));
      /* A screen reader gets the tooltip's sentence too. */
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->source_label), why);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->source_label),
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, why, -1);
    }
}

static void
update (GmlScenarioPanel *self)
{
  GmlScenario *sc;
  guint step, n;
  gboolean unlocked;
  g_autofree char *position = NULL;

  if (self->picture == NULL)
    return;
  sc = gml_picture_get_scenario (self->picture);
  step = gml_picture_get_step (self->picture);
  n = gml_scenario_get_n_steps (sc);

  /* Translators: the picture script's position, e.g. "Step 3 of 12". */
  position = g_strdup_printf (_("Step %u of %u"), step, n - 1);
  gtk_label_set_label (self->step_label, position);
  gtk_label_set_label (self->caption_label, gml_scenario_get_step (sc, step)->caption);
  self->updating_scale = TRUE;
  gtk_adjustment_configure (self->step_adjustment, step, 0, MAX (n - 1, 1), 1, 1, 0);
  self->updating_scale = FALSE;
  /* Before the answer the steps stay where they are: stepping on would show the
   * state the question asks about. */
  unlocked = gml_picture_get_pointing (self->picture);
  gtk_widget_set_sensitive (GTK_WIDGET (self->step_scale), unlocked && n > 1);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "scenario.back", unlocked && step > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "scenario.restart", unlocked && step > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "scenario.forward", unlocked && step + 1 < n);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "scenario.play", unlocked && n > 1);
  gml_picture_view_changed (self->picture_view);
}

static void
stop_playing (GmlScenarioPanel *self)
{
  g_clear_handle_id (&self->play_source, g_source_remove);
  gtk_button_set_icon_name (self->play_button, "media-playback-start-symbolic");
}

/* ------------------------------------------------------------------------- */
/* The picture script, run in a worker                                       */

/* gml-picture-run.c says how the runs share the device and end. */

static void show_scenario (GmlScenarioPanel *self,
                           GmlScenario      *sc);

static void
run_done_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GmlScenarioPanel) self = gml_weak_ref_steal (user_data);
  g_autofree char *key = NULL;
  g_autofree char *why = NULL;
  g_autoptr(GmlDevice) fallback = NULL;
  g_autoptr(GError) error = NULL;
  GmlScenario *sc = gml_scenario_new_picture_script_finish (result, &fallback, &why, &error);

  /* Gone, or reloaded (another device, another language), since it started. */
  if (self == NULL || self->picture_view == NULL ||
      !gml_picture_run_end (&self->run, result, &key))
    {
      g_clear_pointer (&sc, gml_scenario_free);
      return;
    }

  if (self->fallback == NULL && fallback != NULL)
    {
      /* A CUDA call failed in the middle: tell why, and go on simulated. */
      self->fallback = g_steal_pointer (&fallback);
      self->fallback_reason = g_strdup_printf (_("The GPU failed (%s), so the pictures are "
                                                 "simulated."), why);
      g_hash_table_remove_all (self->scenarios);
      update_source_label (self);
    }
  if (sc == NULL)
    {
      g_warning ("Experiment %s: %s", key, error->message);
      return;
    }
  g_hash_table_insert (self->scenarios, g_strdup (key), sc);
  if (g_strcmp0 (self->key, key) == 0 && self->picture == NULL)
    show_scenario (self, sc);
}

/* The scenario of @key, if it has run; else it starts running (once the device
 * is known) and the picture comes when it is done. */
static GmlScenario *
get_scenario (GmlScenarioPanel  *self,
              const GmlQuestion *q,
              const char        *key)
{
  GmlScenario *sc = g_hash_table_lookup (self->scenarios, key);
  const char *reason = NULL;
  GmlDevice *device;

  if (sc != NULL)
    return sc;
  if (gml_picture_run_is_running (&self->run, key))
    return NULL;

  gml_picture_run_cancel (&self->run);
  device = current_device (self, &reason);
  if (device == NULL)
    return NULL;   /* the picture comes once the device is open */

  /* e2e-startup reads this: no picture script runs before the window's first frame. */
  g_debug ("gml-picture-run %s", key);
  /* A panel that goes away cancels the run in its dispose. */
  gml_picture_run_start (&self->run, self, q->picture_script, key, device, self->fallback,
                         run_done_cb);
  return NULL;
}

/* Offers the views that show something for @sc, and selects @view. */
static void
show_views (GmlScenarioPanel *self,
            GmlScenario      *sc,
            GmlView           view)
{
  for (guint v = 0; v < GML_N_VIEWS; v++)
    gtk_widget_set_visible (GTK_WIDGET (self->view_buttons[v]),
                            gml_picture_offers_view (self->picture, v));
  if (!gml_picture_offers_view (self->picture, view))
    view = gml_scenario_get_focus_view (sc);
  /* The toggle's notify handler changes the picture's view; set it in any case,
   * since the toggle may already be active. */
  gtk_toggle_button_set_active (self->view_buttons[view], TRUE);
  gml_picture_view_set_view (self->picture_view, view);
}

static void show_setup (GmlScenarioPanel *self);

void
gml_scenario_panel_set_question (GmlScenarioPanel  *self,
                                 const GmlQuestion *question)
{
  g_autofree char *key = NULL;
  GmlScenario *sc;

  g_return_if_fail (GML_IS_SCENARIO_PANEL (self));
  g_return_if_fail (question != NULL);

  key = gml_picture_script_to_string (question->picture_script);
  self->question = question;
  stop_playing (self);

  self->pending_point = FALSE;
  if (self->picture == NULL || g_strcmp0 (self->key, key) != 0)
    {
      gml_picture_view_set_picture (self->picture_view, NULL);
      g_clear_pointer (&self->picture, gml_picture_free);
      g_free (self->key);
      self->key = g_strdup (key);
      sc = get_scenario (self, question, key);
      update_source_label (self);
      if (sc == NULL)
        {
          gtk_label_set_label (self->title_label, "…");
          return;
        }
      show_scenario (self, sc);
      return;
    }
  show_setup (self);
}

/* The setup, unmarked: what the question is about comes with the answer. */
static void
show_setup (GmlScenarioPanel *self)
{
  GmlScenario *sc = gml_picture_get_scenario (self->picture);

  gtk_label_set_label (self->title_label, gml_scenario_get_title (sc));
  gml_picture_set_pointing (self->picture, FALSE);
  gml_picture_set_hide_future (self->picture, TRUE);
  gml_picture_set_step (self->picture, gml_scenario_get_setup_step (sc));
  show_views (self, sc, gml_scenario_get_setup_view (sc));
  update (self);
}

/* The shown question's scenario has run: its picture, at the setup, or at what
 * the question is about when it was answered meanwhile. */
static void
show_scenario (GmlScenarioPanel *self,
               GmlScenario      *sc)
{
  self->picture = gml_picture_new (sc);
  gml_picture_set_by_size (self->picture, gtk_toggle_button_get_active (self->by_size_button));
  gml_picture_view_set_picture (self->picture_view, self->picture);
  show_setup (self);
  /* Shown with the first picture and kept: the next question's controls keep their place. */
  gtk_revealer_set_reveal_child (self->controls_revealer, TRUE);
  if (self->pending_point)
    gml_scenario_panel_point (self);
}

void
gml_scenario_panel_point (GmlScenarioPanel *self)
{
  GmlScenario *sc;

  g_return_if_fail (GML_IS_SCENARIO_PANEL (self));
  if (self->picture == NULL)
    {
      /* Its scenario still runs: point once it comes. */
      self->pending_point = self->key != NULL;
      return;
    }

  self->pending_point = FALSE;
  stop_playing (self);
  sc = gml_picture_get_scenario (self->picture);
  gml_picture_set_pointing (self->picture, TRUE);
  gml_picture_set_hide_future (self->picture, FALSE);
  gml_picture_set_step (self->picture, gml_scenario_get_focus_step (sc));
  show_views (self, sc, gml_scenario_get_focus_view (sc));
  update (self);
}

/* Whether the steps may move: only once the question is answered. */
gboolean
gml_scenario_panel_can_step (GmlScenarioPanel *self)
{
  g_return_val_if_fail (GML_IS_SCENARIO_PANEL (self), FALSE);
  return self->picture != NULL && gml_picture_get_pointing (self->picture);
}

void
gml_scenario_panel_step (GmlScenarioPanel *self,
                         int               delta)
{
  int step, n;

  if (!gml_scenario_panel_can_step (self))
    return;
  n = gml_scenario_get_n_steps (gml_picture_get_scenario (self->picture));
  step = CLAMP ((int) gml_picture_get_step (self->picture) + delta, 0, n - 1);
  gml_picture_set_step (self->picture, step);
  update (self);
}

void
gml_scenario_panel_reload (GmlScenarioPanel *self)
{
  const GmlQuestion *question = self->question;
  gboolean pointing = self->pending_point ||
                      (self->picture != NULL && gml_picture_get_pointing (self->picture));

  stop_playing (self);
  gml_picture_run_cancel (&self->run);
  gml_picture_view_set_picture (self->picture_view, NULL);
  g_clear_pointer (&self->picture, gml_picture_free);
  g_clear_pointer (&self->key, g_free);
  g_hash_table_remove_all (self->scenarios);
  if (question != NULL)
    {
      gml_scenario_panel_set_question (self, question);
      if (pointing)
        gml_scenario_panel_point (self);
    }
}

static double
current_speed (GmlScenarioPanel *self)
{
  guint selected = gtk_drop_down_get_selected (self->speed_dropdown);

  return speeds[MIN (selected, G_N_ELEMENTS (speeds) - 1)];
}

static gboolean
play_tick_cb (gpointer user_data)
{
  GmlScenarioPanel *self = user_data;
  guint n = gml_scenario_get_n_steps (gml_picture_get_scenario (self->picture));

  if (gml_picture_get_step (self->picture) + 1 >= n)
    {
      self->play_source = 0;
      stop_playing (self);
      return G_SOURCE_REMOVE;
    }
  gml_scenario_panel_step (self, (int) self->play_stride);
  return G_SOURCE_CONTINUE;
}

/* About PLAY_DURATION_MS for the whole picture script at 1×: long picture scripts move
 * several steps a tick rather than ticking faster than the eye follows. */
static void
start_playing (GmlScenarioPanel *self)
{
  guint n = gml_scenario_get_n_steps (gml_picture_get_scenario (self->picture));
  double interval = PLAY_DURATION_MS / current_speed (self) / MAX (n - 1, 1);

  self->play_stride = 1;
  if (interval < MIN_TICK_MS)
    {
      self->play_stride = (guint) ceil (MIN_TICK_MS / interval);
      interval *= self->play_stride;
    }
  g_clear_handle_id (&self->play_source, g_source_remove);
  self->play_source = g_timeout_add ((guint) MIN (interval, 2000), play_tick_cb, self);
  gtk_button_set_icon_name (self->play_button, "media-playback-pause-symbolic");
}

static void
speed_changed_cb (GmlScenarioPanel *self)
{
  if (self->play_source != 0)
    start_playing (self);
}

static void
scenario_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  GmlScenarioPanel *self = GML_SCENARIO_PANEL (widget);

  if (!gml_scenario_panel_can_step (self))
    return;
  if (g_str_equal (action_name, "scenario.forward"))
    {
      stop_playing (self);
      gml_scenario_panel_step (self, 1);
    }
  else if (g_str_equal (action_name, "scenario.back"))
    {
      stop_playing (self);
      gml_scenario_panel_step (self, -1);
    }
  else if (g_str_equal (action_name, "scenario.restart"))
    {
      stop_playing (self);
      gml_picture_set_step (self->picture, 0);
      update (self);
    }
  else if (g_str_equal (action_name, "scenario.play"))
    {
      if (self->play_source != 0)
        stop_playing (self);
      else
        {
          GmlScenario *sc = gml_picture_get_scenario (self->picture);

          if (gml_picture_get_step (self->picture) + 1 >= gml_scenario_get_n_steps (sc))
            {
              gml_picture_set_step (self->picture, 0);
              update (self);
            }
          start_playing (self);
        }
    }
}

static void
step_scale_changed_cb (GmlScenarioPanel *self,
                       GtkAdjustment    *adjustment)
{
  guint step;

  if (self->updating_scale || !gml_scenario_panel_can_step (self))
    return;
  step = (guint) round (gtk_adjustment_get_value (adjustment));
  if (step == gml_picture_get_step (self->picture))
    return;
  stop_playing (self);
  gml_picture_set_step (self->picture, step);
  update (self);
}

/* The picture as shown, at the export's size. */
static GmlExportDrawing *
draw_for_export (GtkWidget *owner,
                 int        width,
                 int        height)
{
  GmlScenarioPanel *self = GML_SCENARIO_PANEL (owner);
  GmlRenderStyle style;

  if (self->picture == NULL)
    return NULL;
  gml_picture_view_get_style (self->picture_view, &style);
  return gml_picture_draw_for_export (self->picture, gml_picture_view_get_view (self->picture_view),
                                      &style, width, height);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  GmlScenarioPanel *self = GML_SCENARIO_PANEL (widget);
  g_autofree char *stem = NULL;

  if (self->picture == NULL || self->chooser != NULL)
    return;
  /* A name that says which question and view; the format chosen adds its extension. */
  stem = g_strdup_printf ("%s-%s",
                          self->question != NULL
                            ? self->question->id
                            : gml_scenario_get_name (gml_picture_get_scenario (self->picture)),
                          gml_view_to_string (gml_picture_view_get_view (self->picture_view)));
  gml_export_chooser_open (widget, &self->chooser, stem, draw_for_export);
}

static void
view_toggled_cb (GmlScenarioPanel *self,
                 GtkToggleButton  *button)
{
  if (!gtk_toggle_button_get_active (button))
    return;
  for (guint v = 0; v < GML_N_VIEWS; v++)
    if (self->view_buttons[v] == button)
      gml_picture_view_set_view (self->picture_view, v);
}

static void
by_size_toggled_cb (GmlScenarioPanel *self,
                    GtkToggleButton  *button)
{
  if (self->picture == NULL)
    return;
  gml_picture_set_by_size (self->picture, gtk_toggle_button_get_active (button));
  gml_picture_view_changed (self->picture_view);
}

static void
step_activated_cb (GmlScenarioPanel *self,
                   guint             step,
                   GmlPictureView   *view)
{
  if (!gml_scenario_panel_can_step (self))
    return;
  stop_playing (self);
  gml_picture_set_step (self->picture, step);
  update (self);
}

static void
gml_scenario_panel_dispose (GObject *object)
{
  GmlScenarioPanel *self = GML_SCENARIO_PANEL (object);

  g_clear_handle_id (&self->play_source, g_source_remove);
  gml_picture_run_cancel (&self->run);
  if (self->picture_view != NULL)
    gml_picture_view_set_picture (self->picture_view, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_SCENARIO_PANEL);
  self->picture_view = NULL;
  g_clear_object (&self->chooser);

  G_OBJECT_CLASS (gml_scenario_panel_parent_class)->dispose (object);
}

static void
gml_scenario_panel_finalize (GObject *object)
{
  GmlScenarioPanel *self = GML_SCENARIO_PANEL (object);

  g_clear_pointer (&self->picture, gml_picture_free);
  g_clear_pointer (&self->scenarios, g_hash_table_unref);
  g_clear_pointer (&self->fallback, gml_device_destroy);
  g_clear_pointer (&self->fallback_reason, g_free);
  g_clear_pointer (&self->key, g_free);

  G_OBJECT_CLASS (gml_scenario_panel_parent_class)->finalize (object);
}

static void
gml_scenario_panel_class_init (GmlScenarioPanelClass *klass)
{
  /* In the order of the view enumeration. */
  static const char * const view_button_names[] = {
    "map_button", "fragmentation_button", "timeline_button", "checkpointing_button",
    "comparison_button", NULL
  };
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = gml_scenario_panel_dispose;
  object_class->finalize = gml_scenario_panel_finalize;

  /**
   * GmlScenarioPanel::message:
   * @message: a translated sentence for a toast
   *
   * Something the user should know that has no place in the panel (an export failed).
   */
  signals[MESSAGE] = g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  g_type_ensure (GML_TYPE_PICTURE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE "/gml-scenario-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, box);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, title_label);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, source_label);
  gml_template_bind_children (widget_class, G_STRUCT_OFFSET (GmlScenarioPanel, view_buttons),
                              view_button_names);
  G_STATIC_ASSERT (G_N_ELEMENTS (view_button_names) == GML_N_VIEWS + 1);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, picture_view);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, caption_label);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, step_scale);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, step_adjustment);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, controls_revealer);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, step_label);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, restart_button);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, back_button);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, play_button);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, forward_button);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, export_button);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, speed_dropdown);
  gtk_widget_class_bind_template_child (widget_class, GmlScenarioPanel, by_size_button);

  gtk_widget_class_install_action (widget_class, "scenario.forward", NULL, scenario_action);
  gtk_widget_class_install_action (widget_class, "scenario.back", NULL, scenario_action);
  gtk_widget_class_install_action (widget_class, "scenario.restart", NULL, scenario_action);
  gtk_widget_class_install_action (widget_class, "scenario.play", NULL, scenario_action);
  gtk_widget_class_install_action (widget_class, "scenario.export", NULL, export_action);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "scenariopanel");
}

/* The icon buttons' names are set here, not with <accessibility> in the template:
 * GtkBuilder would translate them in gettext's default domain, which is not the
 * lab's, and gml-language can carry only GObject properties into a new language
 * (GTK 4.8 has no getter for an accessible property). So they are set again when
 * the language changes. The view tabs are labelled by their visible labels
 * (labelled-by in the template). */
static void
set_accessible_labels (GmlScenarioPanel *self)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->by_size_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Pack segments by size"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->play_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Play or pause the picture"),
                                  -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->forward_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Step forward"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->back_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Step back"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->restart_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Restart the picture"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->export_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Export picture…"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->speed_dropdown),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Playback speed"), -1);
  /* GTK 4.8's drop-down shows the accessibility tree its own toggle button, unnamed.
   * It is an internal child of the drop-down, which no template can name, so it is
   * found among the drop-down's children. */
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->speed_dropdown));
       child != NULL; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_TOGGLE_BUTTON (child))
      gtk_accessible_update_property (GTK_ACCESSIBLE (child),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, _("Playback speed"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->step_scale),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Step of the picture"), -1);
}

/* Captions, titles and the pictures' own text are translated when they are made:
 * rebuild the picture script (its steps are cheap to replay) and draw again. */
static void
language_changed_cb (GtkWidget *widget)
{
  GmlScenarioPanel *self = GML_SCENARIO_PANEL (widget);

  set_accessible_labels (self);
  gml_scenario_panel_reload (self);
}

static void
gml_scenario_panel_init (GmlScenarioPanel *self)
{
  GtkEventController *shortcuts;

  gtk_widget_init_template (GTK_WIDGET (self));

  gml_language_localize_widget (GTK_WIDGET (self), NULL);

  gml_accessible_name_buttons (GTK_WIDGET (self));
  /* 1×: the model is set after any "selected" a template could hold. */
  gtk_drop_down_set_selected (self->speed_dropdown, 1);
  self->scenarios = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) gml_scenario_free);

  for (guint v = 0; v < GML_N_VIEWS; v++)
    g_signal_connect_object (self->view_buttons[v], "toggled", G_CALLBACK (view_toggled_cb), self,
                             G_CONNECT_SWAPPED);
  g_signal_connect_object (self->by_size_button, "toggled", G_CALLBACK (by_size_toggled_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->picture_view, "step-activated", G_CALLBACK (step_activated_cb),
                           self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->step_adjustment, "value-changed",
                           G_CALLBACK (step_scale_changed_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->speed_dropdown, "notify::selected", G_CALLBACK (speed_changed_cb),
                           self, G_CONNECT_SWAPPED);

  /* Global scope: the keys step the picture wherever the focus is (a binding action
   * on the panel would need it inside the panel, and it is usually on the quiz's
   * options), and none of them is a quiz key (1–4, a–d, Enter, Space, ←, →). The Ctrl
   * ones in the capture phase: bubbling, they would never arrive from inside the quiz's
   * scrolled window, whose own Ctrl+arrow and Ctrl+Home bindings scroll it. [ and ]
   * bubble, so that a focused text field keeps them. */
  shortcuts = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                     GTK_SHORTCUT_SCOPE_GLOBAL);
  gtk_event_controller_set_propagation_phase (shortcuts, GTK_PHASE_CAPTURE);
  gml_scrub_keys_add_shortcut (shortcuts, "<Control>Right", "scenario.forward");
  gml_scrub_keys_add_shortcut (shortcuts, "<Control>Left", "scenario.back");
  gml_scrub_keys_add_shortcut (shortcuts, "<Control>Home", "scenario.restart");
  gml_scrub_keys_add_shortcut (shortcuts, "<Control>period", "scenario.play");
  gml_scrub_keys_add_shortcut (shortcuts, "<Control><Shift>e", "scenario.export");
  gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);
  shortcuts = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                     GTK_SHORTCUT_SCOPE_GLOBAL);
  gml_scrub_keys_add_shortcut (shortcuts, "bracketright", "scenario.forward");
  gml_scrub_keys_add_shortcut (shortcuts, "bracketleft", "scenario.back");
  gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);

  set_accessible_labels (self);

  /* The application exists when the panel is built inside its window. */
  gml_language_follow (GTK_WIDGET (self), language_changed_cb);
  if (GML_IS_APPLICATION (g_application_get_default ()))
    {
      /* Another backend in the preferences: the picture scripts run again on it. */
      g_signal_connect_object (g_application_get_default (), "device-changed",
                               G_CALLBACK (gml_scenario_panel_reload), self, G_CONNECT_SWAPPED);
    }
}

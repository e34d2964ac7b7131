/* gml-window.c — the main window: header bar, filter, toasts, and the views:
 * the quiz, the Snapshot view (opening files: gml-window-snapshot.c), the
 * Experiment view (gml-window-lab.c) and the Live view (watching a program:
 * gml-window-live.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-window"

#include "config.h"

#include "gml-accessible.h"
#include "gml-i18n.h"

#include "gml-language.h"
#include "gml-presentation-window.h"
#include "gml-window-private.h"

G_DEFINE_FINAL_TYPE (GmlWindow, gml_window, ADW_TYPE_APPLICATION_WINDOW)

void
_gml_window_toast (GmlWindow  *self,
                   const char *message)
{
  AdwToast *toast = adw_toast_new (message);

  adw_toast_set_timeout (toast, 8);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* ------------------------------------------------------------------------- */
/* File choosers                                                             */

static void
chooser_response_cb (GtkNativeDialog *chooser,
                     int              response,
                     GmlWindow       *self)
{
  GmlWindowFileFunc chosen = g_object_get_data (G_OBJECT (chooser), "gml-chosen");
  g_autoptr(GFile) file = NULL;

  /* The chooser is kept, hidden, for the next time (it remembers the folder).
   * Destroying GTK's fallback dialog here, while a screen reader walks the
   * accessibility tree, made GTK 4.8 send a NULL object path (a critical). */
  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  if (file != NULL)
    chosen (self, file);
}

/* Shows the chooser kept in *@chooser, making it the first time: @filter
 * first, then all files. GtkFileChooserNative goes through the file chooser
 * portal inside the Flatpak (the sandbox has no file system access of its
 * own) and falls back to GTK's own dialog where there is no portal. @chosen
 * gets the file once one is chosen. */
void
_gml_window_choose_file (GmlWindow             *self,
                         GtkFileChooserNative **chooser,
                         const char            *title,
                         const char            *accept,
                         GtkFileFilter         *filter,
                         GmlWindowFileFunc      chosen)
{
  g_autoptr(GtkFileFilter) all = NULL;

  if (*chooser != NULL)
    {
      if (!gtk_native_dialog_get_visible (GTK_NATIVE_DIALOG (*chooser)))
        gtk_native_dialog_show (GTK_NATIVE_DIALOG (*chooser));
      return;
    }

  *chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
                                          accept, _("_Cancel"));
  all = gtk_file_filter_new ();
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (*chooser), filter);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (*chooser), all);
  gtk_file_chooser_set_filter (GTK_FILE_CHOOSER (*chooser), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (*chooser), TRUE);
  g_object_set_data (G_OBJECT (*chooser), "gml-chosen", chosen);
  g_signal_connect_object (*chooser, "response", G_CALLBACK (chooser_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (*chooser));
}

void
_gml_window_drop_chooser (GtkFileChooserNative **chooser)
{
  if (*chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (*chooser));
  g_clear_object (chooser);
}

static void
quiz_page_message_cb (GmlWindow   *self,
                      const char  *message,
                      GmlQuizPage *page)
{
  _gml_window_toast (self, message);
}

static void filter_changed_cb (GmlWindow *self);
static void start_filtered_round (GmlWindow *self);

static const char *
selected_topic (GmlWindow *self)
{
  guint selected = self->filter_topic;

  if (selected == 0 || self->topics == NULL || selected > self->topics->len)
    return NULL;
  return g_ptr_array_index (self->topics, selected - 1);
}

/* @topic's position in the filter's topic list (after "All topics"), 0 if it has none. */
static guint
topic_position (GmlWindow  *self,
                const char *topic)
{
  for (guint i = 0; self->topics != NULL && i < self->topics->len; i++)
    if (g_str_equal (g_ptr_array_index (self->topics, i), topic))
      return i + 1;
  return 0;
}

/* The filter's drop-downs, once built, show the lists and the choices; setting
 * them is no new round. */
static void
sync_filter_dropdowns (GmlWindow *self)
{
  if (self->topic_dropdown == NULL)
    return;
  g_signal_handlers_block_by_func (self->topic_dropdown, filter_changed_cb, self);
  g_signal_handlers_block_by_func (self->difficulty_dropdown, filter_changed_cb, self);
  if (gtk_drop_down_get_model (self->topic_dropdown) != G_LIST_MODEL (self->topic_names))
    gtk_drop_down_set_model (self->topic_dropdown, G_LIST_MODEL (self->topic_names));
  if (gtk_drop_down_get_model (self->difficulty_dropdown) != G_LIST_MODEL (self->difficulty_names))
    gtk_drop_down_set_model (self->difficulty_dropdown, G_LIST_MODEL (self->difficulty_names));
  gtk_drop_down_set_selected (self->topic_dropdown, self->filter_topic);
  gtk_drop_down_set_selected (self->difficulty_dropdown, self->filter_difficulty);
  g_signal_handlers_unblock_by_func (self->topic_dropdown, filter_changed_cb, self);
  g_signal_handlers_unblock_by_func (self->difficulty_dropdown, filter_changed_cb, self);
}

/* The names the drop-downs offer, in the language of the moment. */
static void
build_filter_names (GmlWindow *self)
{
  g_clear_object (&self->topic_names);
  g_clear_object (&self->difficulty_names);
  self->topic_names = gtk_string_list_new (NULL);
  self->difficulty_names = gtk_string_list_new (NULL);

  gtk_string_list_append (self->topic_names, _("All topics"));
  for (guint i = 0; self->topics != NULL && i < self->topics->len; i++)
    gtk_string_list_append (self->topic_names,
                            gml_i18n_gettext (g_ptr_array_index (self->topics, i)));
  gtk_string_list_append (self->difficulty_names, _("All difficulties"));
  for (int d = 1; d <= 3; d++)
    {
      g_autofree char *name = g_strdup_printf (_("Difficulty %d"), d);

      gtk_string_list_append (self->difficulty_names, name);
    }
  sync_filter_dropdowns (self);
}

static void
update_subtitle (GmlWindow *self)
{
  const char *topic = selected_topic (self);
  guint difficulty = self->filter_difficulty;
  g_autofree char *subtitle = NULL;
  g_autofree char *level = NULL;

  const char *round_name = gml_quiz_page_get_round_name (self->quiz_page);

  if (difficulty != 0)
    level = g_strdup_printf (_("Difficulty %d"), (int) difficulty);

  /* A review round is not the filter's: it says what it is. */
  if (round_name != NULL)
    subtitle = g_strdup (gml_i18n_gettext (round_name));
  else if (topic != NULL && level != NULL)
    subtitle = g_strdup_printf ("%s · %s", gml_i18n_gettext (topic), level);
  else if (topic != NULL)
    subtitle = g_strdup (gml_i18n_gettext (topic));
  else if (level != NULL)
    subtitle = g_strdup_printf ("%s · %s", _("All topics"), level);
  else
    subtitle = g_strdup (_("All topics"));

  g_free (self->quiz_subtitle);
  self->quiz_subtitle = g_steal_pointer (&subtitle);
  _gml_window_update_title (self);
}

static gboolean
showing_quiz (GmlWindow *self)
{
  const char *name = adw_view_stack_get_visible_child_name (self->view_stack);

  return name == NULL || g_str_equal (name, "quiz");
}

static gboolean
showing_view (GmlWindow  *self,
              const char *view)
{
  return g_strcmp0 (adw_view_stack_get_visible_child_name (self->view_stack), view) == 0;
}

gboolean
_gml_window_showing_view (GmlWindow  *self,
                          const char *name)
{
  return showing_view (self, name);
}

/* Puts a view built on first use in its place in the stack, as the window's
 * template would have: its strings in the current language (they are looked
 * up again on a language switch like the rest of the window), its buttons
 * named, and out of the accessibility tree unless it is the view shown. */
void
_gml_window_adopt_view (GmlWindow  *self,
                        AdwBin     *bin,
                        GtkWidget  *page,
                        const char *name)
{
  gtk_widget_set_vexpand (page, TRUE);
  gml_language_localize_widget (page, NULL);
  gml_accessible_name_buttons (page);
  gtk_accessible_update_state (GTK_ACCESSIBLE (page), GTK_ACCESSIBLE_STATE_HIDDEN,
                               !showing_view (self, name), -1);
  adw_bin_set_child (bin, page);
  /* Read by tests/e2e/test_startup.py: which views the window built, and when. */
  g_debug ("gml-view-built %s", name);
}

/* The switcher's title and subtitle show when the window is too narrow for
 * the switcher itself: the quiz's filter, the snapshot's file and device, or
 * the watched program and its GPU. */
void
_gml_window_update_title (GmlWindow *self)
{
  gboolean quiz = showing_quiz (self);
  gboolean lab = _gml_window_showing_lab (self);
  gboolean live = showing_view (self, "live");
  const char *title = quiz ? NULL
                      : lab ? _("Experiment")
                      : live ? gml_live_page_get_title (_gml_window_ensure_live_page (self))
                      : gml_snapshot_page_get_title (_gml_window_ensure_snapshot_page (self));
  const char *subtitle = quiz ? self->quiz_subtitle
                         : lab ? gml_lab_page_get_subtitle (_gml_window_ensure_lab_page (self))
                         : live ? gml_live_page_get_subtitle (_gml_window_ensure_live_page (self))
                         : gml_snapshot_page_get_subtitle (_gml_window_ensure_snapshot_page (self));

  adw_view_switcher_title_set_title (self->switcher_title,
                                     title != NULL ? title : _("GPU Memory Lab"));
  adw_view_switcher_title_set_subtitle (self->switcher_title, subtitle);
  gtk_widget_set_visible (GTK_WIDGET (self->filter_button), quiz);
  gtk_widget_set_visible (GTK_WIDGET (self->review_button), quiz);
  gtk_widget_set_visible (GTK_WIDGET (self->open_button), !quiz && !lab && !live);
}

/* "Practise: fragmentation" in the Snapshot view: the quiz, filtered to @topic. */
void
_gml_window_practise_topic (GmlWindow  *self,
                            const char *topic)
{
  guint position = topic_position (self, topic);

  if (position == 0)
    return;

  /* One new round, not one per drop-down. */
  self->filter_topic = position;
  self->filter_difficulty = 0;
  sync_filter_dropdowns (self);
  start_filtered_round (self);
  adw_view_stack_set_visible_child_name (self->view_stack, "quiz");
}

/* A round of the bank's INDEXES named NAME (untranslated, N_()), in the Quiz view:
 * the presentation's Review These. */
void
gml_window_start_review (GmlWindow  *self,
                         GArray     *indexes,
                         const char *name)
{
  g_return_if_fail (GML_IS_WINDOW (self));
  gml_quiz_page_start_named_round (self->quiz_page, indexes, name);
  update_subtitle (self);
  adw_view_stack_set_visible_child_name (self->view_stack, "quiz");
}

static void
start_filtered_round (GmlWindow *self)
{
  const char *topic = selected_topic (self);
  guint difficulty = self->filter_difficulty;
  g_autoptr(GArray) indexes = NULL;

  g_settings_set_string (self->settings, "filter-topic", topic != NULL ? topic : "");
  g_settings_set_int (self->settings, "filter-difficulty", (int) difficulty);

  indexes = gml_question_bank_filter (self->bank, topic, (int) difficulty);
  gml_quiz_page_start_round (self->quiz_page, indexes);
  update_subtitle (self);
}

static void
filter_changed_cb (GmlWindow *self)
{
  guint topic = gtk_drop_down_get_selected (self->topic_dropdown);
  guint difficulty = gtk_drop_down_get_selected (self->difficulty_dropdown);

  self->filter_topic = topic == GTK_INVALID_LIST_POSITION ? 0 : topic;
  self->filter_difficulty = difficulty == GTK_INVALID_LIST_POSITION ? 0 : difficulty;
  start_filtered_round (self);
}

static GtkWidget *
filter_heading_new (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "heading");
  return label;
}

/* Ctrl+F or a click: the filter's popover, built the first time (it is not on
 * the first screen), in the language of that moment. */
static void
filter_create_popup_cb (GtkMenuButton *button,
                        gpointer       user_data)
{
  GmlWindow *self = user_data;
  GtkWidget *popover, *box;

  if (gtk_menu_button_get_popover (button) != NULL)
    return;
  g_debug ("gml-popover-built filter");

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  self->topic_heading = GTK_LABEL (filter_heading_new (_("Topic")));
  self->topic_dropdown = GTK_DROP_DOWN (gtk_drop_down_new (NULL, NULL));
  self->difficulty_heading = GTK_LABEL (filter_heading_new (_("Difficulty")));
  self->difficulty_dropdown = GTK_DROP_DOWN (gtk_drop_down_new (NULL, NULL));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->topic_heading));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->topic_dropdown));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->difficulty_heading));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->difficulty_dropdown));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->topic_dropdown),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Topic"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->difficulty_dropdown),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Difficulty"), -1);

  popover = gtk_popover_new ();
  gtk_popover_set_child (GTK_POPOVER (popover), box);
  gtk_menu_button_set_popover (button, popover);

  sync_filter_dropdowns (self);
  g_signal_connect_object (self->topic_dropdown, "notify::selected",
                           G_CALLBACK (filter_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->difficulty_dropdown, "notify::selected",
                           G_CALLBACK (filter_changed_cb), self, G_CONNECT_SWAPPED);
}

static void
restart_toast_dismissed_cb (AdwToast  *toast,
                            GmlWindow *self)
{
  if (self->restart_toast != toast)
    return;
  self->restart_toast = NULL;
  g_clear_pointer (&self->restarted_round, gml_quiz_round_free);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.undo-restart", FALSE);
}

/* Ctrl+R: a new round of the filter's questions. The round it replaces, when it
 * had answers or had moved on, can be had back from the toast for a while. */
static void
win_restart_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  GmlWindow *self = GML_WINDOW (widget);
  g_autoptr(GmlQuizRound) previous = NULL;
  AdwToast *toast;

  if (gml_quiz_page_round_has_progress (self->quiz_page))
    previous = gml_quiz_page_save_round (self->quiz_page);
  if (self->restart_toast != NULL)
    adw_toast_dismiss (self->restart_toast);
  start_filtered_round (self);
  adw_view_stack_set_visible_child_name (self->view_stack, "quiz");
  if (previous == NULL)
    return;

  self->restarted_round = g_steal_pointer (&previous);
  toast = adw_toast_new (_("A new round started."));
  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_action_name (toast, "win.undo-restart");
  adw_toast_set_timeout (toast, 10);
  g_signal_connect_object (toast, "dismissed", G_CALLBACK (restart_toast_dismissed_cb), self, 0);
  self->restart_toast = toast;
  gtk_widget_action_set_enabled (widget, "win.undo-restart", TRUE);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* A new round with nothing to undo: after the progress was reset, the rounds
 * on screen and kept for undo show answers that are gone. */
static void
win_restart_fresh_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  GmlWindow *self = GML_WINDOW (widget);

  g_clear_pointer (&self->restarted_round, gml_quiz_round_free);
  if (self->restart_toast != NULL)
    adw_toast_dismiss (self->restart_toast);
  start_filtered_round (self);
}

static void
win_undo_restart_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  GmlWindow *self = GML_WINDOW (widget);
  g_autoptr(GmlQuizRound) round = g_steal_pointer (&self->restarted_round);

  if (round == NULL)
    return;
  gml_quiz_page_restore_round (self->quiz_page, round);
  update_subtitle (self);
  adw_view_stack_set_visible_child_name (self->view_stack, "quiz");
  if (self->restart_toast != NULL)
    adw_toast_dismiss (self->restart_toast);
}

static void
win_show_filter_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  gtk_menu_button_popup (GML_WINDOW (widget)->filter_button);
}

/* The shortcuts window, in the language chosen now (a widget test measures it in
 * both). The caller owns it: a toplevel, as GtkBuilder leaves it. */
GtkShortcutsWindow *
gml_window_new_shortcuts_window (void)
{
  g_autoptr(GtkBuilder) builder =
      gtk_builder_new_from_resource (RESOURCE_BASE "/shortcuts-window.ui");
  GtkShortcutsWindow *shortcuts =
      GTK_SHORTCUTS_WINDOW (gtk_builder_get_object (builder, "help_overlay"));

  /* The builder's strings are the source strings: see gml-language.c. */
  gml_language_localize_widget (GTK_WIDGET (shortcuts), "shortcut window");
  gtk_window_set_title (GTK_WINDOW (shortcuts), _("Keyboard Shortcuts"));
  return shortcuts;
}

/* Ctrl+?: the shortcuts window, built the first time it is asked for (nothing of
 * it before the first frame). GtkApplication would build it at start-up for every
 * window: a hidden window whose accessible GTK 4.8 never realizes, and hands out
 * for a stale child index of the application (a critical, a crash under
 * fatal-criticals). Once shown, it stays realized. */
static void
win_show_help_overlay_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  GtkApplicationWindow *window = GTK_APPLICATION_WINDOW (widget);
  GtkShortcutsWindow *shortcuts = gtk_application_window_get_help_overlay (window);

  if (shortcuts == NULL)
    {
      shortcuts = gml_window_new_shortcuts_window ();
      /* The window's help overlay: transient for it and hidden on close. Its app.* entries
       * take their keys from the application's accelerators; the others name theirs. */
      gtk_application_window_set_help_overlay (window, shortcuts);
    }
  gtk_window_present (GTK_WINDOW (shortcuts));
}

/* F5: the round as it stands goes on the projector, from the current question
 * (the Experiment view's result when that view is shown). */
static void
win_present_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  GmlWindow *self = GML_WINDOW (widget);
  guint n = gml_quiz_page_get_n_items (self->quiz_page);
  g_autoptr(GArray) slides = g_array_sized_new (FALSE, TRUE, sizeof (GmlSlide), n);
  guint start = gml_quiz_page_get_position (self->quiz_page);
  GmlApplication *app;

  /* In the Experiment view, F5 puts the lab's result on the projector. */
  if (_gml_window_showing_lab (self))
    {
      _gml_window_present_lab (self);
      return;
    }
  for (guint i = 0; i < n; i++)
    {
      GmlSlide slide = { 0 };

      slide.question = gml_quiz_page_get_item (self->quiz_page, i, slide.order);
      g_array_append_val (slides, slide);
    }
  app = GML_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
  if (!gml_presentation_window_start (GTK_WINDOW (self), app, slides, start >= n ? 0 : start))
    _gml_window_toast (self,
                       _("There are no questions to present. Choose another topic or difficulty."));
}

static void
update_accessible_labels (GmlWindow *self)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->filter_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Choose topic and difficulty"),
                                  -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->menu_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Main menu"), -1);
  if (self->topic_dropdown != NULL)
    {
      gtk_label_set_label (self->topic_heading, _("Topic"));
      gtk_label_set_label (self->difficulty_heading, _("Difficulty"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->topic_dropdown),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, _("Topic"), -1);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->difficulty_dropdown),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, _("Difficulty"), -1);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->present_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Present"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->open_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Open snapshot…"), -1);
}

/* The language changed: template strings are looked up again (see gml-language.c),
 * and what this window formatted itself is formatted again. */
static void
language_changed_cb (GtkWidget *widget)
{
  GmlWindow *self = GML_WINDOW (widget);

  update_accessible_labels (self);
  /* The view stack's page titles come from the template: the walk that
   * gml_language_follow() runs has translated them already. */
  _gml_window_snapshot_retranslate (self);
  if (gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (self)) != NULL)
    {
      GtkWindow *shortcuts =
          GTK_WINDOW (gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (self)));

      gml_language_retranslate_widget (GTK_WIDGET (shortcuts));
      gtk_window_set_title (shortcuts, _("Keyboard Shortcuts"));
    }

  /* New names for the same choices: this is no new round. */
  build_filter_names (self);

  update_subtitle (self);
  gml_quiz_page_refresh (self->quiz_page);
}

static void
set_view_hidden (GtkWidget *page,
                 gboolean   hidden)
{
  if (page != NULL)
    gtk_accessible_update_state (GTK_ACCESSIBLE (page), GTK_ACCESSIBLE_STATE_HIDDEN, hidden, -1);
}

static void
visible_view_changed_cb (GmlWindow *self)
{
  gboolean quiz = showing_quiz (self);

  /* A view is built the first time it is shown (the view switcher, its keys). */
  if (showing_view (self, "snapshot"))
    _gml_window_ensure_snapshot_page (self);
  else if (_gml_window_showing_lab (self))
    _gml_window_ensure_lab_page (self);
  else if (showing_view (self, "live"))
    _gml_window_ensure_live_page (self);

  _gml_window_update_title (self);
  /* The view not shown is out of the accessibility tree too, as it is out of
   * sight: a screen reader (and a test) finds the quiz's buttons only in the
   * quiz, the snapshot's only in the Snapshot view. */
  set_view_hidden (GTK_WIDGET (self->quiz_page), !quiz);
  set_view_hidden (GTK_WIDGET (self->snapshot_page), !showing_view (self, "snapshot"));
  set_view_hidden (GTK_WIDGET (self->lab_page), !_gml_window_showing_lab (self));
  set_view_hidden (GTK_WIDGET (self->live_page), !showing_view (self, "live"));
  _gml_window_live_view_changed (self, showing_view (self, "live"));
}

/* The views in the switcher's order: Alt+1…4 and Ctrl+Page Up/Down go through them. */
static const char * const view_names[] = { "quiz", "snapshot", "lab", "live" };

static void
win_show_view_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  GmlWindow *self = GML_WINDOW (widget);
  const char *name = g_variant_get_string (parameter, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (view_names); i++)
    if (g_str_equal (name, view_names[i]))
      adw_view_stack_set_visible_child_name (self->view_stack, name);
}

static void
win_cycle_view_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  GmlWindow *self = GML_WINDOW (widget);
  const char *shown = adw_view_stack_get_visible_child_name (self->view_stack);
  guint n = G_N_ELEMENTS (view_names);
  guint at = 0;

  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (shown, view_names[i]) == 0)
      at = i;
  at = g_str_equal (action_name, "win.next-view") ? (at + 1) % n : (at + n - 1) % n;
  adw_view_stack_set_visible_child_name (self->view_stack, view_names[at]);
}

/* A folded-away bar is no control: out of the accessibility tree with it. */
static void
switcher_bar_revealed_cb (GmlWindow *self)
{
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->switcher_bar), GTK_ACCESSIBLE_STATE_HIDDEN,
                               !adw_view_switcher_bar_get_reveal (self->switcher_bar), -1);
}

static void
populate_filters (GmlWindow *self)
{
  g_autofree char *saved_topic = g_settings_get_string (self->settings, "filter-topic");
  int saved_difficulty = g_settings_get_int (self->settings, "filter-difficulty");

  g_clear_pointer (&self->topics, g_ptr_array_unref);
  self->topics = gml_question_bank_dup_topics (self->bank);
  self->filter_topic = topic_position (self, saved_topic);
  self->filter_difficulty = (guint) CLAMP (saved_difficulty, 0, 3);
  build_filter_names (self);
}

/* The bank has new topics (Import Questions…): the list offers them, the
 * choice and the round on screen stay. */
void
_gml_window_refresh_topics (GmlWindow *self)
{
  populate_filters (self);
}

/* "application" is not a construct property, so this runs after g_object_new(). */
static void
gml_window_setup (GmlWindow      *self,
                  GmlApplication *app)
{
  g_autoptr(GPtrArray) messages = NULL;

  self->settings = g_object_ref (gml_application_get_settings (app));
  self->bank = gml_application_get_bank (app);

  g_settings_bind (self->settings, "window-width", self, "default-width", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-height", self, "default-height",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-maximized", self, "maximized", G_SETTINGS_BIND_DEFAULT);

  gml_quiz_page_set_sources (self->quiz_page, self->bank, gml_application_get_progress (app),
                             self->settings);
  gml_language_follow (GTK_WIDGET (self), language_changed_cb);
  g_signal_connect_object (app, "message", G_CALLBACK (_gml_window_toast), self, G_CONNECT_SWAPPED);
  populate_filters (self);
  start_filtered_round (self);

  self->review = gml_review_new (GTK_WINDOW (self), app, self->quiz_page, self->review_button,
                                 self->toast_overlay);
  _gml_window_lab_setup (self, app);

  messages = gml_application_steal_startup_messages (app);
  for (guint i = 0; i < messages->len; i++)
    _gml_window_toast (self, g_ptr_array_index (messages, i));
  _gml_window_live_setup (self, app);
}

/* The main menu is built the first time it opens (a click, F10 or the keyboard),
 * not with the window: its popover, built from the template and then again from
 * the translated copy of its model, was on the first frame's path. GTK calls this
 * each time the button opens; the menu is made once, in the current language, and
 * from then on gml_language_retranslate_widget() keeps it up to date. The recent
 * snapshots are read then too. */
static void
main_menu_create_popup_cb (GtkMenuButton *button,
                           gpointer       user_data)
{
  GmlWindow *self = user_data;
  g_autoptr(GMenuModel) menu = NULL;

  if (gtk_menu_button_get_menu_model (button) != NULL)
    return;
  menu = gml_language_localize_menu (self->primary_menu, NULL);
  gtk_menu_button_set_menu_model (button, menu);
  _gml_window_snapshot_menu_created (self);
}

/* For bench/startup: report when the first frame has been painted, then quit. */
static void
first_frame_painted_cb (GdkFrameClock *clock,
                        GmlWindow     *self)
{
  g_print ("first-frame %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  g_signal_handlers_disconnect_by_func (clock, first_frame_painted_cb, self);
  g_application_quit (g_application_get_default ());
}

static void
gml_window_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (gml_window_parent_class)->map (widget);
  gml_bench_mark ("mapped");
}

static void
gml_window_realize (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (gml_window_parent_class)->realize (widget);

  if (g_getenv ("GML_BENCH_FIRST_FRAME") != NULL)
    g_signal_connect_object (gtk_widget_get_frame_clock (widget), "after-paint",
                             G_CALLBACK (first_frame_painted_cb), widget, 0);
}

static void
gml_window_dispose (GObject *object)
{
  GmlWindow *self = GML_WINDOW (object);

  _gml_window_snapshot_dispose (self);
  _gml_window_import_dispose (self);
  /* The stack changes its visible child as it goes: that must build no view now. */
  if (self->view_stack != NULL)
    g_signal_handlers_disconnect_by_data (self->view_stack, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_WINDOW);
  self->snapshot_page = NULL;
  self->lab_page = NULL;
  self->live_page = NULL;
  g_clear_object (&self->settings);
  g_clear_pointer (&self->quiz_subtitle, g_free);
  g_clear_pointer (&self->restarted_round, gml_quiz_round_free);
  self->restart_toast = NULL;
  g_clear_object (&self->review);
  g_clear_pointer (&self->topics, g_ptr_array_unref);
  g_clear_object (&self->topic_names);
  g_clear_object (&self->difficulty_names);
  self->topic_dropdown = self->difficulty_dropdown = NULL;

  G_OBJECT_CLASS (gml_window_parent_class)->dispose (object);
}

static void
gml_window_class_init (GmlWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = gml_window_dispose;
  widget_class->realize = gml_window_realize;
  widget_class->map = gml_window_map;

  g_type_ensure (GML_TYPE_QUIZ_PAGE);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_BASE "/gml-window.ui");
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, switcher_title);
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, switcher_bar);
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, open_button);
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, filter_button);
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, menu_button);
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, primary_menu);
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, present_button);
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, review_button);
  gtk_widget_class_bind_template_child (widget_class, GmlWindow, quiz_page);

  gtk_widget_class_install_action (widget_class, "win.restart", NULL, win_restart_action);
  gtk_widget_class_install_action (widget_class, "win.undo-restart", NULL, win_undo_restart_action);
  gtk_widget_class_install_action (widget_class, "win.restart-fresh", NULL,
                                   win_restart_fresh_action);
  gtk_widget_class_install_action (widget_class, "win.show-filter", NULL, win_show_filter_action);
  gtk_widget_class_install_action (widget_class, "win.present", NULL, win_present_action);
  gtk_widget_class_install_action (widget_class, "win.show-help-overlay", NULL,
                                   win_show_help_overlay_action);
  gtk_widget_class_install_action (widget_class, "win.show-view", "s", win_show_view_action);
  gtk_widget_class_install_action (widget_class, "win.next-view", NULL, win_cycle_view_action);
  gtk_widget_class_install_action (widget_class, "win.previous-view", NULL, win_cycle_view_action);
  /* On the window, below every page's own keys: a focused control keeps its keys. */
  for (guint i = 0; i < G_N_ELEMENTS (view_names); i++)
    gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1 + i, GDK_ALT_MASK, "win.show-view",
                                         "s", view_names[i]);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Down, GDK_CONTROL_MASK,
                                       "win.next-view", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Up, GDK_CONTROL_MASK,
                                       "win.previous-view", NULL);
  /* The window's own keys are binding actions here, not application accelerators: those
   * are for app.* actions only, and would run before a focused control had its say. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_question, GDK_CONTROL_MASK,
                                       "win.show-help-overlay", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK, "win.restart",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "win.show-filter",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "win.present", NULL);
  /* The review.* group is GmlReview's, inserted on this window in gml_window_setup (). */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_d, GDK_CONTROL_MASK,
                                       "review.start-due", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_z, GDK_CONTROL_MASK, "review.undo",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_i, GDK_CONTROL_MASK,
                                       "review.statistics", NULL);
  _gml_window_snapshot_class_init (widget_class);
  _gml_window_import_class_init (widget_class);
  _gml_window_lab_class_init (widget_class);
  _gml_window_live_class_init (widget_class);
}

static void
gml_window_init (GmlWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  gml_language_localize_widget (GTK_WIDGET (self), NULL);
  gtk_menu_button_set_create_popup_func (self->menu_button, main_menu_create_popup_cb, self, NULL);
  gtk_menu_button_set_create_popup_func (self->filter_button, filter_create_popup_cb, self, NULL);

  gml_accessible_name_buttons (GTK_WIDGET (self));

  g_signal_connect_object (self->quiz_page, "message", G_CALLBACK (quiz_page_message_cb), self,
                           G_CONNECT_SWAPPED);
  /* The narrow layout: the switcher moves to the bottom when the title shows. */
  g_object_bind_property (self->switcher_title, "title-visible", self->switcher_bar, "reveal",
                          G_BINDING_SYNC_CREATE);
  g_signal_connect_object (self->switcher_bar, "notify::reveal",
                           G_CALLBACK (switcher_bar_revealed_cb), self,
                           G_CONNECT_SWAPPED);
  switcher_bar_revealed_cb (self);
  g_signal_connect_object (self->view_stack, "notify::visible-child-name",
                           G_CALLBACK (visible_view_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->quiz_page, "notify::round-name", G_CALLBACK (update_subtitle),
                           self,
                           G_CONNECT_SWAPPED);
  visible_view_changed_cb (self);
  _gml_window_snapshot_init (self);

  update_accessible_labels (self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.undo-restart", FALSE);
  /* The zoom (Ctrl+plus, Ctrl+minus, Ctrl+0) applies to this window's text. */
  gtk_widget_add_css_class (GTK_WIDGET (self), "gml-main");
}

GmlWindow *
gml_window_new (GmlApplication *application)
{
  GmlWindow *self = g_object_new (GML_TYPE_WINDOW, "application", application, NULL);
  gml_window_setup (self, application);
  return self;
}

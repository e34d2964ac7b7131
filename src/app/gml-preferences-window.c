/* gml-preferences-window.c — the lab's settings, kept in GSettings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-preferences-window"

#include "config.h"

#include "gml-accessible.h"
#include "gml-combo-row.h"
#include "gml-i18n.h"

#include "gml-language.h"
#include "gml-preferences-window.h"

/* A combo row shows translated names for a string key's values. The names are built
 * in code so they can be built again when the language changes. */
typedef struct
{
  const char *key;
  const char *values[5];
  const char *names[5];    /* N_(); NULL entries are language names, shown untranslated */
} Choice;

enum { CHOICE_LANGUAGE, CHOICE_STYLE, CHOICE_BACKEND, N_CHOICES };

static const Choice choices[N_CHOICES] = {
  { "language", { "system", "tr", "en", NULL }, { N_("Follow the System"), NULL, NULL, NULL } },
  { "style", { "system", "light", "dark", "high-contrast", NULL },
    { N_("Follow the System"), N_("Light"), N_("Dark"), N_("High Contrast"), NULL } },
  { "backend", { "auto", "sim", "cuda", NULL },
    { N_("Automatic: the GPU when one answers"), N_("Simulated GPU"), N_("CUDA (NVIDIA GPU)"),
      NULL } },
};

/* Each language in its own name, so it can be found whatever the current language. */
static const char *language_names[] = { NULL, "Türkçe", "English" };

struct _GmlPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  /* Template widgets */
  AdwComboRow          *language_row;
  AdwComboRow          *style_row;
  AdwComboRow          *backend_row;
  AdwActionRow         *bilingual_row;
  GtkSwitch            *bilingual_switch;
  AdwActionRow         *shuffle_row;
  GtkSwitch            *shuffle_switch;
  AdwActionRow         *timer_row;
  GtkSpinButton        *timer_spin;
  AdwActionRow         *budget_row;
  GtkSpinButton        *budget_spin;
  AdwActionRow         *capacity_row;
  GtkSpinButton        *capacity_spin;

  /* Owned */
  GSettings            *settings;
};

G_DEFINE_FINAL_TYPE (GmlPreferencesWindow, gml_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

static AdwComboRow *
row_for (GmlPreferencesWindow *self,
         guint                 choice)
{
  AdwComboRow *rows[N_CHOICES] = { self->language_row, self->style_row, self->backend_row };

  return rows[choice];
}

/* The setting's string as the row's position; a value the row does not list
 * (an older schema's) shows as the first choice without being written back. */
static gboolean
value_to_selected (GValue   *value,
                   GVariant *variant,
                   gpointer  user_data)
{
  const Choice *c = user_data;
  const char *str = g_variant_get_string (variant, NULL);

  g_value_set_uint (value, 0);
  for (guint i = 0; c->values[i] != NULL; i++)
    if (g_str_equal (c->values[i], str))
      g_value_set_uint (value, i);
  return TRUE;
}

static GVariant *
selected_to_value (const GValue       *value,
                   const GVariantType *expected_type,
                   gpointer            user_data)
{
  const Choice *c = user_data;
  guint selected = g_value_get_uint (value);

  for (guint i = 0; c->values[i] != NULL; i++)
    if (i == selected)
      return g_variant_new_string (c->values[i]);
  return NULL;   /* nothing selected: leave the setting alone */
}

/* (Re)builds a row's translated names and binds it to its setting. The binding
 * is dropped while the model is replaced, so the row's passing through "nothing
 * selected" is never written to the setting. */
static void
build_row (GmlPreferencesWindow *self,
           guint                 choice)
{
  const Choice *c = &choices[choice];
  AdwComboRow *row = row_for (self, choice);
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);

  g_settings_unbind (row, "selected");
  for (guint i = 0; c->values[i] != NULL; i++)
    gtk_string_list_append (names, c->names[i] != NULL ? _(c->names[i]) : language_names[i]);
  adw_combo_row_set_model (row, G_LIST_MODEL (names));
  g_settings_bind_with_mapping (self->settings, c->key, row, "selected", G_SETTINGS_BIND_DEFAULT,
                                value_to_selected, selected_to_value, (gpointer) c, NULL);
}

static void
language_changed_cb (GtkWidget *widget)
{
  GmlPreferencesWindow *self = GML_PREFERENCES_WINDOW (widget);

  for (guint choice = 0; choice < N_CHOICES; choice++)
    build_row (self, choice);
}

static void
gml_preferences_window_dispose (GObject *object)
{
  GmlPreferencesWindow *self = GML_PREFERENCES_WINDOW (object);

  g_clear_object (&self->settings);
  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_PREFERENCES_WINDOW);

  G_OBJECT_CLASS (gml_preferences_window_parent_class)->dispose (object);
}

static void
gml_preferences_window_class_init (GmlPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = gml_preferences_window_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE "/gml-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, language_row);
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, style_row);
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, backend_row);
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, bilingual_row);
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, bilingual_switch);
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, shuffle_row);
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, shuffle_switch);
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, timer_row);
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, timer_spin);
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, budget_row);
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, budget_spin);
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, capacity_row);
  gtk_widget_class_bind_template_child (widget_class, GmlPreferencesWindow, capacity_spin);

  /* Ctrl+W closes it, as it closes the main window. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close",
                                       NULL);
}

static void
gml_preferences_window_init (GmlPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gml_language_localize_widget (GTK_WIDGET (self), NULL);
  gml_accessible_name_buttons (GTK_WIDGET (self));

  /* A switch or spin button reads as its row's title for a screen reader (the
   * template says why this is code). */
  gml_accessible_name_by_row (GTK_WIDGET (self->bilingual_switch),
                              GTK_WIDGET (self->bilingual_row));
  gml_accessible_name_by_row (GTK_WIDGET (self->shuffle_switch), GTK_WIDGET (self->shuffle_row));
  gml_accessible_name_by_row (GTK_WIDGET (self->timer_spin), GTK_WIDGET (self->timer_row));
  gml_accessible_name_by_row (GTK_WIDGET (self->budget_spin), GTK_WIDGET (self->budget_row));
  gml_accessible_name_by_row (GTK_WIDGET (self->capacity_spin), GTK_WIDGET (self->capacity_row));
  for (guint i = 0; i < N_CHOICES; i++)
    gml_combo_row_show_whole_choices (row_for (self, i));
}

GmlPreferencesWindow *
gml_preferences_window_new (GmlApplication *app,
                            GtkWindow      *parent)
{
  GmlPreferencesWindow *self = g_object_new (GML_TYPE_PREFERENCES_WINDOW,
                                             "application", app,
                                             "transient-for", parent,
                                             NULL);
  struct { GtkWidget *widget; const char *key; const char *property; } bindings[] = {
    { GTK_WIDGET (self->bilingual_switch), "bilingual", "active" },
    { GTK_WIDGET (self->shuffle_switch), "shuffle-options", "active" },
    { GTK_WIDGET (self->timer_spin), "question-timer", "value" },
    { GTK_WIDGET (self->budget_spin), "cuda-budget-mib", "value" },
    { GTK_WIDGET (self->capacity_spin), "sim-capacity-mib", "value" },
  };

  self->settings = g_object_ref (gml_application_get_settings (app));
  for (guint i = 0; i < G_N_ELEMENTS (bindings); i++)
    g_settings_bind (self->settings, bindings[i].key, bindings[i].widget, bindings[i].property,
                     G_SETTINGS_BIND_DEFAULT);
  for (guint choice = 0; choice < N_CHOICES; choice++)
    build_row (self, choice);
  gml_language_follow (GTK_WIDGET (self), language_changed_cb);
  return self;
}

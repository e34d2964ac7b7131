/* test-preferences.c — the preferences' choice rows follow their settings both
 * ways, and rebuilding them for a new language writes nothing; each switch and
 * spin button reads as its row's title, in either language.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "gml-application.h"
#include "gml-i18n.h"
#include "gml-preferences-window.h"

/* The combo row whose title (with its mnemonic) is @title. */
static AdwComboRow *
find_row (GtkWidget  *widget,
          const char *title)
{
  if (ADW_IS_COMBO_ROW (widget) &&
      g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), title) == 0)
    return ADW_COMBO_ROW (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      AdwComboRow *row = find_row (child, title);

      if (row != NULL)
        return row;
    }
  return NULL;
}

static const char *
item (AdwComboRow *row,
      guint        position)
{
  GListModel *model = adw_combo_row_get_model (row);
  g_autoptr(GtkStringObject) object = g_list_model_get_item (model, position);

  return gtk_string_object_get_string (object);
}

/* One application for every case: its name stays on the session bus a while
 * after it is gone, so a second one could not register. */
static GmlApplication *app;

static void
test_choice_rows (void)
{
  GSettings *settings = gml_application_get_settings (app);
  GmlPreferencesWindow *window;
  AdwComboRow *style_row, *language_row, *backend_row;

  g_settings_set_string (settings, "style", "dark");
  g_settings_set_string (settings, "backend", "sim");
  g_settings_set_string (settings, "language", "system");

  window = g_object_ref (gml_preferences_window_new (app, NULL));
  style_row = find_row (GTK_WIDGET (window), _("St_yle"));
  language_row = find_row (GTK_WIDGET (window), _("_Language"));
  backend_row = find_row (GTK_WIDGET (window), _("_Backend"));
  g_assert_nonnull (style_row);
  g_assert_nonnull (language_row);
  g_assert_nonnull (backend_row);

  /* The rows open on the settings' values. */
  g_assert_cmpuint (adw_combo_row_get_selected (style_row), ==, 2);
  g_assert_cmpuint (adw_combo_row_get_selected (backend_row), ==, 1);
  g_assert_cmpuint (adw_combo_row_get_selected (language_row), ==, 0);

  /* A setting changed elsewhere (gsettings, another window) moves the row. */
  g_settings_set_string (settings, "style", "high-contrast");
  g_assert_cmpuint (adw_combo_row_get_selected (style_row), ==, 3);

  /* Choosing in the row writes the setting. */
  adw_combo_row_set_selected (backend_row, 0);
  adw_combo_row_set_selected (style_row, 1);
  {
    g_autofree char *style = g_settings_get_string (settings, "style");
    g_assert_cmpstr (style, ==, "light");
  }

  /* A new language rebuilds the names; no setting is touched on the way. */
  gml_i18n_set_language ("tr");
  g_signal_emit_by_name (app, "language-changed", "en");
  g_assert_cmpstr (item (style_row, 0), ==, "Sistemi izle");
  g_assert_cmpstr (item (language_row, 1), ==, "Türkçe");
  g_assert_cmpuint (adw_combo_row_get_selected (style_row), ==, 1);
  g_assert_cmpuint (adw_combo_row_get_selected (backend_row), ==, 0);
  {
    g_autofree char *style = g_settings_get_string (settings, "style");
    g_autofree char *backend = g_settings_get_string (settings, "backend");
    g_autofree char *language = g_settings_get_string (settings, "language");

    g_assert_cmpstr (style, ==, "light");
    g_assert_cmpstr (backend, ==, "auto");
    g_assert_cmpstr (language, ==, "system");
  }
  gml_i18n_set_language ("en");

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (window);
}

/* The action rows that hold a switch or a spin button, in the window's order. */
static void
collect_control_rows (GtkWidget *widget,
                      GPtrArray *rows)
{
  if (ADW_IS_ACTION_ROW (widget))
    {
      GtkWidget *control = adw_action_row_get_activatable_widget (ADW_ACTION_ROW (widget));

      if (GTK_IS_SWITCH (control) || GTK_IS_SPIN_BUTTON (control))
        g_ptr_array_add (rows, widget);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_control_rows (child, rows);
}

/* Every row's control is named after the row's title without its mnemonic, and
 * named again when the language changes (GTK 4.8 leaves a control labelled-by its
 * AdwActionRow unnamed). */
static void
test_control_names (void)
{
  static const char *english[] = {
    "Bilingual Mode", "Shuffle Options", "Seconds per Question", "CUDA Budget (MiB)",
    "Simulated GPU Size (MiB)",
  };
  static const char *turkish[] = {
    "İki Dilli Kip", "Seçenekleri Karıştır", "Soru Başına Saniye", "CUDA Bütçesi (MiB)",
    "Benzetilmiş GPU Boyutu (MiB)",
  };
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  GmlPreferencesWindow *window;

  window = g_object_ref (gml_preferences_window_new (app, NULL));
  collect_control_rows (GTK_WIDGET (window), rows);
  g_assert_cmpuint (rows->len, ==, G_N_ELEMENTS (english));

  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *control = adw_action_row_get_activatable_widget (rows->pdata[i]);

      gtk_test_accessible_assert_property (GTK_ACCESSIBLE (control), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                           english[i]);
    }

  gml_i18n_set_language ("tr");
  g_signal_emit_by_name (app, "language-changed", "en");
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *control = adw_action_row_get_activatable_widget (rows->pdata[i]);

      gtk_test_accessible_assert_property (GTK_ACCESSIBLE (control), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                           turkish[i]);
    }
  gml_i18n_set_language ("en");

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (window);
}

int
main (int    argc,
      char **argv)
{
  int status;

  gml_i18n_init ();
  gml_i18n_set_language ("en");
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/widgets/preferences/choice-rows", test_choice_rows);
  g_test_add_func ("/widgets/preferences/control-names", test_control_names);

  app = gml_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  status = g_test_run ();
  g_clear_object (&app);
  return status;
}

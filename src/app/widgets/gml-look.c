/* gml-look.c — the one palette every canvas of the app draws with.
 *
 * Three canvases used to work the theme out for themselves, and the statistics
 * chart forgot the Preferences' high contrast. Now each asks this object, which
 * reads the setting once per change instead of once per frame.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-look"

#include "config.h"

#include <adwaita.h>

#include "gml-look.h"

struct _GmlLook
{
  GObject    parent_instance;

  GSettings *settings;          /* NULL where the schema has no "style" key */
  GmlTheme   theme;
};

enum { PROP_0, PROP_THEME, N_PROPS };

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GmlLook, gml_look, G_TYPE_OBJECT)

static void
update (GmlLook *self)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();
  gboolean high_contrast = adw_style_manager_get_high_contrast (manager);
  GmlTheme theme;

  if (self->settings != NULL)
    {
      g_autofree char *forced = g_settings_get_string (self->settings, "style");

      high_contrast = high_contrast || g_str_equal (forced, "high-contrast");
    }
  theme = gml_theme_for (adw_style_manager_get_dark (manager), high_contrast);
  if (theme == self->theme)
    return;
  self->theme = theme;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_THEME]);
}

static void
gml_look_get_property (GObject    *object,
                       guint       prop_id,
                       GValue     *value,
                       GParamSpec *pspec)
{
  GmlLook *self = GML_LOOK (object);

  switch (prop_id)
    {
    case PROP_THEME:
      g_value_set_int (value, self->theme);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_look_dispose (GObject *object)
{
  GmlLook *self = GML_LOOK (object);

  g_clear_object (&self->settings);
  G_OBJECT_CLASS (gml_look_parent_class)->dispose (object);
}

static void
gml_look_class_init (GmlLookClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = gml_look_get_property;
  object_class->dispose = gml_look_dispose;

  /* A GmlTheme. */
  properties[PROP_THEME] =
    g_param_spec_int ("theme", NULL, NULL, 0, GML_N_THEMES - 1, GML_THEME_LIGHT,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gml_look_init (GmlLook *self)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = source != NULL
    ? g_settings_schema_source_lookup (source, APPLICATION_ID, TRUE) : NULL;

  /* The preferences may force high contrast; older schemas have no such key. */
  if (schema != NULL && g_settings_schema_has_key (schema, "style"))
    {
      self->settings = g_settings_new (APPLICATION_ID);
      g_signal_connect_object (self->settings, "changed::style", G_CALLBACK (update), self,
                               G_CONNECT_SWAPPED);
    }
  g_signal_connect_object (manager, "notify::dark", G_CALLBACK (update), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (manager, "notify::high-contrast", G_CALLBACK (update), self,
                           G_CONNECT_SWAPPED);
  self->theme = GML_N_THEMES;
  update (self);
}

GmlLook *
gml_look_get_default (void)
{
  static GmlLook *look;

  /* Lives as long as the process, as libadwaita's style manager does. */
  if (look == NULL)
    look = g_object_new (GML_TYPE_LOOK, NULL);
  return look;
}

GmlTheme
gml_look_get_theme (GmlLook *self)
{
  g_return_val_if_fail (GML_IS_LOOK (self), GML_THEME_LIGHT);
  return self->theme;
}

gboolean
gml_look_is_dark (GmlLook *self)
{
  GmlTheme theme = gml_look_get_theme (self);

  return theme == GML_THEME_DARK || theme == GML_THEME_HIGH_CONTRAST_DARK;
}

gboolean
gml_look_is_high_contrast (GmlLook *self)
{
  GmlTheme theme = gml_look_get_theme (self);

  return theme == GML_THEME_HIGH_CONTRAST || theme == GML_THEME_HIGH_CONTRAST_DARK;
}

void
gml_look_redraw_on_change (GmlLook  *self,
                           gpointer  widget)
{
  g_return_if_fail (GML_IS_LOOK (self));
  g_signal_connect_object (self, "notify::theme", G_CALLBACK (gtk_widget_queue_draw), widget,
                           G_CONNECT_SWAPPED);
}

/* gml-language.c — the language of templates, and of windows that are already open.
 *
 * The lab's text domain is not gettext's default domain, so GtkBuilder builds the
 * lab's templates with their English source strings. gml_language_localize_widget()
 * walks a freshly built tree: each string property that holds a source string of the
 * lab's catalogue gets its catalogue key remembered on the object, and the text in
 * the current language. When the language changes, gml_language_retranslate_widget()
 * looks every remembered key up again; nothing is ever mapped back from a translated
 * text (two source strings may share one translation). A property the code has set to
 * something else since is the code's: it is left alone, and that code sets it again in
 * the refresh function it gave gml_language_follow(), the one way a window or page
 * follows GmlApplication::language-changed.
 *
 * Menus from templates are copied with each label's key as an extra attribute;
 * AdwViewStack and GtkStack pages, which are no widgets, are walked too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-language"

#include "config.h"

#include <adwaita.h>

#include "gml-i18n.h"
#include "gml-language.h"

/* The menu attribute that keeps a label's catalogue key. */
#define MENU_KEY_ATTRIBUTE "gml-label-key"

static const char *properties[] = {
  "label", "title", "subtitle", "description", "tooltip-text", "placeholder-text",
};

typedef struct
{
  const char *key;     /* the catalogue's, which lives as long as the process */
  char       *shown;   /* the text last set from it */
} Record;

static void
record_free (gpointer data)
{
  Record *record = data;

  g_free (record->shown);
  g_free (record);
}

static GQuark
record_quark (guint property)
{
  static GQuark quarks[G_N_ELEMENTS (properties)];

  if (quarks[property] == 0)
    {
      g_autofree char *name = g_strconcat ("gml-language-", properties[property], NULL);

      quarks[property] = g_quark_from_string (name);
    }
  return quarks[property];
}

/* The language the other half of a bilingual class sees. */
const char *
gml_language_other (void)
{
  return g_str_equal (gml_i18n_get_language (), "tr") ? "en" : "tr";
}

static gboolean
is_string_property (GObject    *object,
                    const char *name)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (object), name);

  return pspec != NULL && pspec->value_type == G_TYPE_STRING &&
         (pspec->flags & G_PARAM_READWRITE) == G_PARAM_READWRITE &&
         (pspec->flags & G_PARAM_CONSTRUCT_ONLY) == 0;
}

static void
set_from_key (GObject    *object,
              guint       property,
              Record     *record,
              const char *current)
{
  const char *text = gml_i18n_lookup (gml_i18n_get_language (), record->key);

  g_free (record->shown);
  record->shown = g_strdup (text);
  if (g_strcmp0 (current, text) != 0)
    g_object_set (object, properties[property], text, NULL);
}

static void
localize_object (GObject    *object,
                 const char *context)
{
  for (guint i = 0; i < G_N_ELEMENTS (properties); i++)
    {
      g_autofree char *text = NULL;
      const char *key;
      Record *record;

      if (g_object_get_qdata (object, record_quark (i)) != NULL ||
          !is_string_property (object, properties[i]))
        continue;
      g_object_get (object, properties[i], &text, NULL);
      key = gml_i18n_key_for_source (text, context);
      if (key == NULL)
        continue;
      record = g_new0 (Record, 1);
      record->key = key;
      g_object_set_qdata_full (object, record_quark (i), record, record_free);
      set_from_key (object, i, record, text);
    }
}

static void
retranslate_object (GObject *object)
{
  for (guint i = 0; i < G_N_ELEMENTS (properties); i++)
    {
      Record *record = g_object_get_qdata (object, record_quark (i));
      g_autofree char *text = NULL;

      if (record == NULL)
        continue;
      g_object_get (object, properties[i], &text, NULL);
      if (g_strcmp0 (text, record->shown) != 0)
        {
          /* The code set its own text: from now on the code keeps it up to date. */
          g_object_set_qdata (object, record_quark (i), NULL);
          continue;
        }
      set_from_key (object, i, record, text);
    }
}

/* A copy of @model with each label in the current language. @localize: the labels
 * are source strings from a template (their keys are looked up and kept); otherwise
 * the keys kept before are used. */
static GMenuModel *
translate_menu (GMenuModel *model,
                const char *context,
                gboolean    localize)
{
  GMenu *menu = g_menu_new ();
  int n = g_menu_model_get_n_items (model);

  for (int i = 0; i < n; i++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (NULL, NULL);
      g_autoptr(GMenuAttributeIter) attributes = g_menu_model_iterate_item_attributes (model, i);
      g_autoptr(GMenuLinkIter) links = g_menu_model_iterate_item_links (model, i);
      g_autoptr(GVariant) kept = g_menu_model_get_item_attribute_value (model, i,
                                                                        MENU_KEY_ATTRIBUTE,
                                                                        G_VARIANT_TYPE_STRING);
      const char *key = kept != NULL ? g_variant_get_string (kept, NULL) : NULL;
      const char *name;
      GVariant *value;
      GMenuModel *link;

      while (g_menu_attribute_iter_get_next (attributes, &name, &value))
        {
          if (localize && key == NULL && g_str_equal (name, G_MENU_ATTRIBUTE_LABEL) &&
              g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
            key = gml_i18n_key_for_source (g_variant_get_string (value, NULL), context);
          g_menu_item_set_attribute_value (item, name, value);
          g_variant_unref (value);
        }
      if (key != NULL)
        {
          g_menu_item_set_attribute (item, MENU_KEY_ATTRIBUTE, "s", key);
          g_menu_item_set_label (item, gml_i18n_lookup (gml_i18n_get_language (), key));
        }
      while (g_menu_link_iter_get_next (links, &name, &link))
        {
          g_autoptr(GMenuModel) copy = translate_menu (link, context, localize);

          g_menu_item_set_link (item, name, copy);
          g_object_unref (link);
        }
      g_menu_append_item (menu, item);
    }
  return G_MENU_MODEL (menu);
}

GMenuModel *
gml_language_localize_menu (GMenuModel *model,
                            const char *context)
{
  g_return_val_if_fail (G_IS_MENU_MODEL (model), NULL);
  return translate_menu (model, context, TRUE);
}

GMenuModel *
gml_language_retranslate_menu (GMenuModel *model)
{
  g_return_val_if_fail (G_IS_MENU_MODEL (model), NULL);
  return translate_menu (model, NULL, FALSE);
}

static void
walk (GtkWidget  *widget,
      const char *context,
      gboolean    localize)
{
  if (localize)
    localize_object (G_OBJECT (widget), context);
  else
    retranslate_object (G_OBJECT (widget));

  if (GTK_IS_MENU_BUTTON (widget) &&
      gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget)) != NULL)
    {
      g_autoptr(GMenuModel) menu =
          translate_menu (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget)),
                          context, localize);

      gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (widget), menu);
    }

  /* Stack pages hold their titles; they are no widgets. */
  if (ADW_IS_VIEW_STACK (widget) || GTK_IS_STACK (widget))
    {
      g_autoptr(GListModel) pages = ADW_IS_VIEW_STACK (widget)
        ? G_LIST_MODEL (adw_view_stack_get_pages (ADW_VIEW_STACK (widget)))
        : G_LIST_MODEL (gtk_stack_get_pages (GTK_STACK (widget)));

      for (guint i = 0; i < g_list_model_get_n_items (pages); i++)
        {
          g_autoptr(GObject) page = g_list_model_get_item (pages, i);

          if (localize)
            localize_object (page, context);
          else
            retranslate_object (page);
        }
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    walk (child, context, localize);
}

/* Call on a tree GtkBuilder has just built (a template, the shortcuts window), with
 * the translation context of its strings if they have one. */
void
gml_language_localize_widget (GtkWidget  *root,
                              const char *context)
{
  g_return_if_fail (GTK_IS_WIDGET (root));
  walk (root, context, TRUE);
}

/* Call on GmlApplication::language-changed. */
void
gml_language_retranslate_widget (GtkWidget *root)
{
  g_return_if_fail (GTK_IS_WIDGET (root));
  walk (root, NULL, FALSE);
}

static GQuark
refresh_quark (void)
{
  return g_quark_from_static_string ("gml-language-refresh");
}

static void
follow_cb (GtkWidget    *root,
           const char   *previous,
           GApplication *app)
{
  GmlLanguageRefreshFunc refresh = g_object_get_qdata (G_OBJECT (root), refresh_quark ());

  gml_language_retranslate_widget (root);
  if (refresh != NULL)
    refresh (root);
}

/* The one way a window or page keeps its language: on the application's
 * language-changed, every template string below @root is translated again, then
 * @refresh (or NULL) sets what the code set (accessible names, figures, sentences
 * built with numbers). Call once, after gml_language_localize_widget(); it lasts
 * as long as @root. Outside the application (a widget test) it does nothing. */
void
gml_language_follow (GtkWidget              *root,
                     GmlLanguageRefreshFunc  refresh)
{
  GApplication *app = g_application_get_default ();

  g_return_if_fail (GTK_IS_WIDGET (root));

  if (app == NULL || g_signal_lookup ("language-changed", G_OBJECT_TYPE (app)) == 0)
    return;
  g_object_set_qdata (G_OBJECT (root), refresh_quark (), (gpointer) refresh);
  g_signal_connect_object (app, "language-changed", G_CALLBACK (follow_cb), root,
                           G_CONNECT_SWAPPED);
}

/* A question's string as the other language of a bilingual class has it: the bank
 * translates at display time, so the lookup runs in that language for this thread
 * for a moment — the same code path, placeholders and user banks included. */
char *
gml_language_format_other (const GmlQuestion *question,
                           const char        *source,
                           const guint        order[GML_N_OPTIONS])
{
  const char *saved = gml_i18n_push_language (gml_language_other ());
  char *text = gml_question_format (question, source, order);

  gml_i18n_pop_language (saved);
  return text;
}

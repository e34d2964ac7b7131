/* gml-language.c — switching the language of windows that are already open.
 *
 * GtkBuilder translates a template's strings once, when the widget is built, and
 * keeps no message ids. Rebuilding the windows would lose the state of the quiz and
 * the pictures, so instead the widget tree is walked: each string property that holds
 * a text of the lab's catalogue in the previous language is mapped back to its
 * catalogue key (gml_i18n_key_for_text() reads the compiled catalogue directly) and
 * looked up again in the new language. Texts that are not in the catalogue (numbers,
 * formatted sentences, what the user typed) are left alone; the code that formatted
 * them sets them again on GmlApplication::language-changed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-language"

#include "config.h"

#include <glib/gi18n.h>

#include "gml-i18n.h"
#include "gml-language.h"

/* The language a bilingual class sees in smaller text. */
const char *
gml_language_other (void)
{
  return g_str_equal (gml_i18n_get_language (), "tr") ? "en" : "tr";
}

static const char *
retranslate_text (const char *text,
                  const char *previous)
{
  const char *key = gml_i18n_key_for_text (previous, text);

  if (key == NULL)
    return NULL;
  /* Offset 0: the key may carry a context before \004; g_dpgettext strips it when
   * there is no translation. */
  return g_dpgettext (GETTEXT_PACKAGE, key, 0);
}

static void
retranslate_property (GObject    *object,
                      const char *name,
                      const char *previous)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (object), name);
  g_autofree char *text = NULL;
  const char *translated;

  if (pspec == NULL || pspec->value_type != G_TYPE_STRING ||
      (pspec->flags & G_PARAM_READWRITE) != G_PARAM_READWRITE ||
      (pspec->flags & G_PARAM_CONSTRUCT_ONLY) != 0)
    return;

  g_object_get (object, name, &text, NULL);
  translated = retranslate_text (text, previous);
  if (translated != NULL && !g_str_equal (translated, text))
    g_object_set (object, name, translated, NULL);
}

GMenuModel *
gml_language_retranslate_menu (GMenuModel *model,
                               const char *previous)
{
  GMenu *menu = g_menu_new ();
  int n = g_menu_model_get_n_items (model);

  for (int i = 0; i < n; i++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (NULL, NULL);
      g_autoptr(GMenuAttributeIter) attributes = g_menu_model_iterate_item_attributes (model, i);
      g_autoptr(GMenuLinkIter) links = g_menu_model_iterate_item_links (model, i);
      const char *name;
      GVariant *value;
      GMenuModel *link;

      while (g_menu_attribute_iter_get_next (attributes, &name, &value))
        {
          const char *translated = NULL;

          if (g_str_equal (name, G_MENU_ATTRIBUTE_LABEL) &&
              g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
            translated = retranslate_text (g_variant_get_string (value, NULL), previous);
          if (translated != NULL)
            g_menu_item_set_attribute (item, name, "s", translated);
          else
            g_menu_item_set_attribute_value (item, name, value);
          g_variant_unref (value);
        }
      while (g_menu_link_iter_get_next (links, &name, &link))
        {
          g_autoptr(GMenuModel) copy = gml_language_retranslate_menu (link, previous);

          g_menu_item_set_link (item, name, copy);
          g_object_unref (link);
        }
      g_menu_append_item (menu, item);
    }
  return G_MENU_MODEL (menu);
}

/* Call after gml_i18n_set_language(), with the language in effect before it. */
void
gml_language_retranslate_widget (GtkWidget  *root,
                                 const char *previous)
{
  static const char *properties[] = {
    "label", "title", "subtitle", "description", "tooltip-text", "placeholder-text",
  };

  g_return_if_fail (GTK_IS_WIDGET (root));

  if (previous == NULL || g_str_equal (previous, gml_i18n_get_language ()))
    return;

  for (guint i = 0; i < G_N_ELEMENTS (properties); i++)
    retranslate_property (G_OBJECT (root), properties[i], previous);

  if (GTK_IS_MENU_BUTTON (root) && gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (root)) != NULL)
    {
      g_autoptr(GMenuModel) menu =
        gml_language_retranslate_menu (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (root)), previous);

      gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (root), menu);
    }

  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    gml_language_retranslate_widget (child, previous);
}

/* A question's string as the other language of a bilingual class has it. The bank
 * translates through gettext at display time, so the lookup runs with that language
 * in effect for a moment: the same code path, placeholders and user banks included. */
char *
gml_language_format_other (const GmlQuestion *question,
                           const char        *source,
                           const guint        order[GML_N_OPTIONS])
{
  char *saved = gml_i18n_push_language (gml_language_other ());
  char *text = gml_question_format (question, source, order);

  gml_i18n_pop_language (saved);
  return text;
}

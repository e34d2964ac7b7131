/* gml-accessible.c — accessible names that read as the visible labels, and
 * figures whose description gives the exact number.
 *
 * GTK 4.8 gives a button whose label has a mnemonic two names at once: its label
 * property as written ("_Previous") and, through the labelled-by relation the label
 * sets up for its mnemonic, the label as shown ("Previous"); a screen reader says
 * "_Previous Previous". Such buttons keep only the relation, which reads as the
 * visible label, whenever their label changes. This stays code, walking the tree:
 * GtkButton sets its label property again on every new label (a new language
 * sets one), and a template can add accessible properties, not take one away.
 *
 * Names a template can give (labelled-by a visible label) are given there, with
 * <accessibility> on the template child; names that must follow the language are
 * set in code, because GtkBuilder translates <accessibility> text in gettext's
 * default domain, not the lab's, and gml-language cannot read an accessible
 * property back (GTK 4.8 has no getter) to translate it again.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-accessible"

#include "config.h"

#include "gml-accessible.h"
#include "gml-i18n.h"
#include "gml-scenario.h"

static void
button_label_changed_cb (GtkButton *button)
{
  if (gtk_button_get_use_underline (button) && gtk_button_get_label (button) != NULL)
    gtk_accessible_reset_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL);
}

static void
name_button (GtkButton *button)
{
  static GQuark quark;

  if (quark == 0)
    quark = g_quark_from_static_string ("gml-accessible-named");
  if (g_object_get_qdata (G_OBJECT (button), quark) == NULL)
    {
      g_object_set_qdata (G_OBJECT (button), quark, GINT_TO_POINTER (TRUE));
      g_signal_connect_after (button, "notify::label", G_CALLBACK (button_label_changed_cb), NULL);
      g_signal_connect_after (button, "notify::use-underline", G_CALLBACK (button_label_changed_cb),
                              NULL);
    }
  button_label_changed_cb (button);
}

/* Call on a tree once it is built; buttons added later need a call of their own. */
void
gml_accessible_name_buttons (GtkWidget *root)
{
  g_return_if_fail (GTK_IS_WIDGET (root));

  if (GTK_IS_BUTTON (root))
    name_button (GTK_BUTTON (root));
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    gml_accessible_name_buttons (child);
}

/* "_Bilingual Mode" as a screen reader should say it: "Bilingual Mode" ("__" is "_"). */
char *
gml_accessible_strip_mnemonic (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text != NULL ? text : ""; *p != '\0'; p++)
    {
      if (*p == '_')
        {
          if (p[1] != '_')
            continue;
          p++;
        }
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static void
row_title_changed_cb (GObject    *row,
                      GParamSpec *pspec,
                      GtkWidget  *control)
{
  g_autofree char *title = NULL;
  g_autofree char *name = NULL;

  g_object_get (row, "title", &title, NULL);
  name = gml_accessible_strip_mnemonic (title);
  gtk_accessible_update_property (GTK_ACCESSIBLE (control), GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                  -1);
}

/* A switch or spin button in a preferences row reads as the row's title, also after
 * the title changes (a new language). GTK 4.8 named a switch labelled by its row
 * "GtkSwitch": the row itself has no name of its own. */
void
gml_accessible_name_by_row (GtkWidget *control,
                            GtkWidget *row)
{
  g_return_if_fail (GTK_IS_WIDGET (control));
  g_return_if_fail (g_object_class_find_property (G_OBJECT_GET_CLASS (row), "title") != NULL);

  g_signal_connect_object (row, "notify::title", G_CALLBACK (row_title_changed_cb), control, 0);
  row_title_changed_cb (G_OBJECT (row), NULL, control);
}

/* A figure shown short ("2.4 GiB") whose tooltip and accessible description
 * give the exact bytes ("2,576,980,378 bytes"). */
void
gml_accessible_set_bytes (GtkLabel *label,
                          guint64   bytes)
{
  g_autofree char *text = gml_format_size_short (bytes);
  g_autofree char *exact = gml_format_grouped (bytes);
  /* Translators: an exact number of bytes, for a screen reader and the tooltip. */
  g_autofree char *description = g_strdup_printf (_("%s bytes"), exact);

  g_return_if_fail (GTK_IS_LABEL (label));

  gtk_label_set_label (label, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (label), description);
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  description, -1);
}

/* Shows the page's state @name. The others stay in the stack but are hidden
 * from the accessibility tree: a screen reader has no use for a loaded view's
 * hundred widgets while the page says how to make a snapshot or attach. */
void
gml_accessible_show_state (GtkStack   *stack,
                           const char *name)
{
  GtkWidget *visible;

  gtk_stack_set_visible_child_name (stack, name);
  visible = gtk_stack_get_visible_child (stack);
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (stack));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    gtk_accessible_update_state (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_STATE_HIDDEN,
                                 child != visible, -1);
}

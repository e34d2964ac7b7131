/* gml-combo-row.c — combo rows whose list shows each choice whole.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-combo-row"

#include "config.h"

#include "gml-combo-row.h"

/* What a list item keeps between bind and unbind. */
#define LABEL_KEY "gml-combo-label"
#define CHECK_KEY "gml-combo-check"
#define HANDLER_KEY "gml-combo-handler"

static void
update_check (GtkListItem *item,
              AdwComboRow *row)
{
  GtkWidget *check = g_object_get_data (G_OBJECT (item), CHECK_KEY);
  gboolean selected = adw_combo_row_get_selected (row) == gtk_list_item_get_position (item);

  /* Opacity, not visibility: the list keeps its width as the choice moves. */
  gtk_widget_set_opacity (check, selected ? 1.0 : 0.0);
}

static void
selected_changed_cb (AdwComboRow *row,
                     GParamSpec  *pspec,
                     GtkListItem *item)
{
  update_check (item, row);
}

static char *
choice_text (AdwComboRow *row,
             gpointer     choice)
{
  GtkExpression *expression = adw_combo_row_get_expression (row);
  g_auto(GValue) value = G_VALUE_INIT;

  if (GTK_IS_STRING_OBJECT (choice))
    return g_strdup (gtk_string_object_get_string (choice));
  if (expression != NULL && gtk_expression_evaluate (expression, choice, &value) &&
      G_VALUE_HOLDS_STRING (&value))
    return g_value_dup_string (&value);
  return g_strdup ("");
}

static void
setup_cb (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          AdwComboRow              *row)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *check = gtk_image_new_from_icon_name ("object-select-symbolic");

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 40);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), check);
  g_object_set_data (G_OBJECT (item), LABEL_KEY, label);
  g_object_set_data (G_OBJECT (item), CHECK_KEY, check);
  gtk_list_item_set_child (item, box);
}

static void
bind_cb (GtkSignalListItemFactory *factory,
         GtkListItem              *item,
         AdwComboRow              *row)
{
  GtkLabel *label = g_object_get_data (G_OBJECT (item), LABEL_KEY);
  g_autofree char *text = choice_text (row, gtk_list_item_get_item (item));
  gulong handler;

  gtk_label_set_label (label, text);
  handler = g_signal_connect_object (row, "notify::selected", G_CALLBACK (selected_changed_cb),
                                     item, 0);
  g_object_set_data (G_OBJECT (item), HANDLER_KEY, GSIZE_TO_POINTER (handler));
  update_check (item, row);
}

static void
unbind_cb (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           AdwComboRow              *row)
{
  gulong handler = GPOINTER_TO_SIZE (g_object_steal_data (G_OBJECT (item), HANDLER_KEY));

  if (handler != 0)
    g_signal_handler_disconnect (row, handler);
}

void
gml_combo_row_show_whole_choices (AdwComboRow *row)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();

  g_return_if_fail (ADW_IS_COMBO_ROW (row));

  /* The row outlives its factory's items: the row owns the factory. */
  g_signal_connect (factory, "setup", G_CALLBACK (setup_cb), row);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cb), row);
  g_signal_connect (factory, "unbind", G_CALLBACK (unbind_cb), row);
  adw_combo_row_set_list_factory (row, factory);
}

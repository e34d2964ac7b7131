/* gml-option-row.c — one option of a question: its letter, its text and its state.
 *
 * The quiz page, the presentation and the presenter view all show a question's four
 * options; this is the one row they share. It reads, for a screen reader, as it reads
 * on screen ("b. Because …"), and says in words what its colour says once the answer
 * is known ("The right answer", "Your answer, wrong").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-option-row"

#include "config.h"

#include "gml-i18n.h"

#include "gml-language.h"
#include "gml-option-row.h"

struct _GmlOptionRow
{
  GtkWidget  parent_instance;

  /* Template widgets */
  GtkLabel  *letter_label;
  GtkLabel  *text_label;
  GtkLabel  *other_label;
  GtkLabel  *feedback_label;

  /* State */
  gboolean   revealed;
  gboolean   correct;
  gboolean   selected;
};

enum {
  PROP_0,
  PROP_LETTER,
  PROP_TEXT,
  PROP_OTHER,
  PROP_FEEDBACK,
  PROP_REVEALED,
  PROP_CORRECT,
  PROP_SELECTED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GmlOptionRow, gml_option_row, GTK_TYPE_WIDGET)

/* A second line under @shown in the other language, hidden where there is none or
 * where it says the same. */
void
gml_label_set_other (GtkLabel   *label,
                     const char *shown,
                     const char *other)
{
  gboolean visible = other != NULL && *other != '\0' && g_strcmp0 (other, shown) != 0;

  g_return_if_fail (GTK_IS_LABEL (label));

  gtk_label_set_label (label, visible ? other : "");
  gtk_widget_set_visible (GTK_WIDGET (label), visible);
}

static void
update_accessible (GmlOptionRow *self)
{
  g_autofree char *name = NULL;
  const char *description = "";

  name = g_strdup_printf ("%s. %s", gtk_label_get_label (self->letter_label),
                          gtk_label_get_label (self->text_label));
  if (self->revealed && self->correct)
    description = _("The right answer");
  else if (self->revealed && self->selected)
    description = _("Your answer, wrong");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);
}

static void
update_classes (GmlOptionRow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  const char *classes[] = { "revealed", "correct", "not-correct", "wrong", "selected" };
  gboolean on[] = {
    self->revealed,
    self->revealed && self->correct,
    self->revealed && !self->correct,
    self->revealed && self->selected && !self->correct,
    self->selected,
  };

  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    {
      if (on[i])
        gtk_widget_add_css_class (widget, classes[i]);
      else
        gtk_widget_remove_css_class (widget, classes[i]);
    }
}

static void
set_label (GmlOptionRow *self,
           GtkLabel     *label,
           const char   *text,
           guint         prop_id)
{
  if (g_strcmp0 (gtk_label_get_label (label), text != NULL ? text : "") == 0)
    return;
  gtk_label_set_label (label, text);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop_id]);
}

const char *
gml_option_row_get_letter (GmlOptionRow *self)
{
  g_return_val_if_fail (GML_IS_OPTION_ROW (self), NULL);
  return gtk_label_get_label (self->letter_label);
}

void
gml_option_row_set_letter (GmlOptionRow *self,
                           const char   *letter)
{
  g_return_if_fail (GML_IS_OPTION_ROW (self));
  set_label (self, self->letter_label, letter, PROP_LETTER);
  update_accessible (self);
}

const char *
gml_option_row_get_text (GmlOptionRow *self)
{
  g_return_val_if_fail (GML_IS_OPTION_ROW (self), NULL);
  return gtk_label_get_label (self->text_label);
}

void
gml_option_row_set_text (GmlOptionRow *self,
                         const char   *text)
{
  g_return_if_fail (GML_IS_OPTION_ROW (self));
  set_label (self, self->text_label, text, PROP_TEXT);
  update_accessible (self);
}

/* Bilingual mode: the option in the other language, under it; NULL hides it. */
void
gml_option_row_set_other (GmlOptionRow *self,
                          const char   *other)
{
  g_return_if_fail (GML_IS_OPTION_ROW (self));

  if (g_strcmp0 (gtk_label_get_label (self->other_label), other != NULL ? other : "") == 0)
    return;
  gml_label_set_other (self->other_label, gtk_label_get_label (self->text_label), other);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OTHER]);
}

/* The presenter's view: why the option is right or wrong, under it; NULL hides it. */
void
gml_option_row_set_feedback (GmlOptionRow *self,
                             const char   *feedback)
{
  g_return_if_fail (GML_IS_OPTION_ROW (self));
  set_label (self, self->feedback_label, feedback, PROP_FEEDBACK);
  gtk_widget_set_visible (GTK_WIDGET (self->feedback_label), feedback != NULL && *feedback != '\0');
}

/* @revealed: the answer is known; @correct: this is the right option; @selected:
 * the one chosen. */
void
gml_option_row_set_state (GmlOptionRow *self,
                          gboolean      revealed,
                          gboolean      correct,
                          gboolean      selected)
{
  gboolean values[] = { !!revealed, !!correct, !!selected };
  gboolean *fields[] = { &self->revealed, &self->correct, &self->selected };
  guint props[] = { PROP_REVEALED, PROP_CORRECT, PROP_SELECTED };

  g_return_if_fail (GML_IS_OPTION_ROW (self));

  g_object_freeze_notify (G_OBJECT (self));
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    if (*fields[i] != values[i])
      {
        *fields[i] = values[i];
        g_object_notify_by_pspec (G_OBJECT (self), properties[props[i]]);
      }
  update_classes (self);
  update_accessible (self);
  g_object_thaw_notify (G_OBJECT (self));
}

/* The option shown at @shown of @question in the order @order: its letter, its text
 * with the letters of other options resolved, and in bilingual mode the other
 * language's text. */
void
gml_option_row_set_option (GmlOptionRow      *self,
                           const GmlQuestion *question,
                           const guint        order[GML_N_OPTIONS],
                           guint              shown,
                           gboolean           bilingual)
{
  const GmlOption *option;
  g_autofree char *letter = NULL;
  g_autofree char *text = NULL;
  g_autofree char *other = NULL;

  g_return_if_fail (GML_IS_OPTION_ROW (self));
  g_return_if_fail (question != NULL && shown < GML_N_OPTIONS);

  option = &question->options[order[shown]];
  letter = g_strdup_printf ("%c", gml_option_letter (shown));
  text = gml_question_format (question, option->text, order);
  other = bilingual ? gml_language_format_other (question, option->text, order) : NULL;

  g_object_freeze_notify (G_OBJECT (self));
  gml_option_row_set_letter (self, letter);
  gml_option_row_set_text (self, text);
  gml_option_row_set_other (self, other);
  g_object_thaw_notify (G_OBJECT (self));
}

/* For a template with one child per option named @prefix and its letter
 * ("option_row_a" … "option_row_d"): binds them to the array of GML_N_OPTIONS
 * pointers at @offset in the instance struct. */
void
gml_option_row_bind_template_children (GtkWidgetClass *widget_class,
                                       const char     *prefix,
                                       gsize           offset)
{
  for (guint shown = 0; shown < GML_N_OPTIONS; shown++)
    {
      g_autofree char *name = g_strdup_printf ("%s%c", prefix, gml_option_letter (shown));

      gtk_widget_class_bind_template_child_full (widget_class, name, FALSE,
                                                 offset + shown * sizeof (gpointer));
    }
}

static void
gml_option_row_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  GmlOptionRow *self = GML_OPTION_ROW (object);

  switch (prop_id)
    {
    case PROP_LETTER:
      g_value_set_string (value, gtk_label_get_label (self->letter_label));
      break;

    case PROP_TEXT:
      g_value_set_string (value, gtk_label_get_label (self->text_label));
      break;

    case PROP_OTHER:
      g_value_set_string (value, gtk_label_get_label (self->other_label));
      break;

    case PROP_FEEDBACK:
      g_value_set_string (value, gtk_label_get_label (self->feedback_label));
      break;

    case PROP_REVEALED:
      g_value_set_boolean (value, self->revealed);
      break;

    case PROP_CORRECT:
      g_value_set_boolean (value, self->correct);
      break;

    case PROP_SELECTED:
      g_value_set_boolean (value, self->selected);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_option_row_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  GmlOptionRow *self = GML_OPTION_ROW (object);

  switch (prop_id)
    {
    case PROP_LETTER:
      gml_option_row_set_letter (self, g_value_get_string (value));
      break;

    case PROP_TEXT:
      gml_option_row_set_text (self, g_value_get_string (value));
      break;

    case PROP_OTHER:
      gml_option_row_set_other (self, g_value_get_string (value));
      break;

    case PROP_FEEDBACK:
      gml_option_row_set_feedback (self, g_value_get_string (value));
      break;

    case PROP_REVEALED:
      gml_option_row_set_state (self, g_value_get_boolean (value), self->correct, self->selected);
      break;

    case PROP_CORRECT:
      gml_option_row_set_state (self, self->revealed, g_value_get_boolean (value), self->selected);
      break;

    case PROP_SELECTED:
      gml_option_row_set_state (self, self->revealed, self->correct, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_option_row_dispose (GObject *object)
{
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (object), GML_TYPE_OPTION_ROW);
  /* The box of texts is not a bound child: GTK 4.8 leaves it to its parent. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (gml_option_row_parent_class)->dispose (object);
}

static void
gml_option_row_class_init (GmlOptionRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = gml_option_row_dispose;
  object_class->get_property = gml_option_row_get_property;
  object_class->set_property = gml_option_row_set_property;

  properties[PROP_LETTER] = g_param_spec_string ("letter", NULL, NULL, NULL, flags);
  properties[PROP_TEXT] = g_param_spec_string ("text", NULL, NULL, NULL, flags);
  properties[PROP_OTHER] = g_param_spec_string ("other", NULL, NULL, NULL, flags);
  properties[PROP_FEEDBACK] = g_param_spec_string ("feedback", NULL, NULL, NULL, flags);
  properties[PROP_REVEALED] = g_param_spec_boolean ("revealed", NULL, NULL, FALSE, flags);
  properties[PROP_CORRECT] = g_param_spec_boolean ("correct", NULL, NULL, FALSE, flags);
  properties[PROP_SELECTED] = g_param_spec_boolean ("selected", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_BASE "/gml-option-row.ui");
  gtk_widget_class_bind_template_child (widget_class, GmlOptionRow, letter_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOptionRow, text_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOptionRow, other_label);
  gtk_widget_class_bind_template_child (widget_class, GmlOptionRow, feedback_label);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_GRID_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "optionrow");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
gml_option_row_init (GmlOptionRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  update_accessible (self);
}

GtkWidget *
gml_option_row_new (void)
{
  return g_object_new (GML_TYPE_OPTION_ROW, NULL);
}

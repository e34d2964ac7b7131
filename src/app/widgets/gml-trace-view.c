/* gml-trace-view.c — a snapshot's pictures with the scrubber that moves through its trace.
 *
 * The Snapshot and Live views show one: the view switcher (memory map,
 * timeline, active memory, fragmentation), the canvas, the buttons and slider
 * that move through the trace, and the line that says which entry is shown.
 * The position is the document's "at" property; everything here follows it.
 *
 * The keys (←/→, Page Up/Down, Home/End) are binding actions of this class, so
 * they work wherever the focus is inside the view; a focused widget sees them
 * first (the slider moves itself, a button keeps Enter and Space).
 *
 * A live trace grows while it is shown. There End means "follow the program":
 * "follow" turns TRUE, and moving anywhere else turns it FALSE. The page that
 * holds the view decides what following means (the Live view shows each newer
 * document the session builds).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-trace-view"

#include "config.h"

#include "gml-i18n.h"

#include "gml-language.h"
#include "gml-scrub-keys.h"
#include "gml-template.h"
#include "gml-trace-view.h"

struct _GmlTraceView
{
  GtkWidget            parent_instance;

  /* Template widgets */
  GtkToggleButton     *view_buttons[GML_N_SNAPSHOT_VIEWS];
  GtkStack            *canvas_stack;
  GtkLabel            *waiting_label;
  GmlSnapshotCanvas   *canvas;
  GtkButton           *first_button;
  GtkButton           *back_button;
  GtkScale            *scale;
  GtkAdjustment       *adjustment;
  GtkButton           *forward_button;
  GtkButton           *last_button;
  GtkLabel            *entry_label;

  GmlSnapshotDocument *document;
  gboolean             live;
  gboolean             follow;
  gboolean             updating_scale;
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  PROP_LIVE,
  PROP_FOLLOW,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GmlTraceView, gml_trace_view, GTK_TYPE_WIDGET)

static void
update_position (GmlTraceView *self)
{
  g_autofree char *entry = NULL;
  gboolean have = self->document != NULL;
  gsize at = 0, n = 0;

  if (have)
    {
      at = gml_snapshot_document_get_at (self->document);
      n = gml_snapshot_document_get_n_entries (self->document);
      entry = gml_snapshot_document_describe_entry (self->document, at);
      if ((gsize) gtk_adjustment_get_value (self->adjustment) != at)
        {
          self->updating_scale = TRUE;
          gtk_adjustment_set_value (self->adjustment, (double) at);
          self->updating_scale = FALSE;
        }
    }
  gtk_label_set_label (self->entry_label, entry != NULL ? entry : "");
  gtk_widget_set_visible (GTK_WIDGET (self->entry_label), entry != NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->scale), GTK_ACCESSIBLE_PROPERTY_VALUE_TEXT,
                                  entry != NULL ? entry : "", -1);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "trace.first", have && at > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "trace.back", have && at > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "trace.page-back", have && at > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "trace.forward", have && at < n);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "trace.page-forward", have && at < n);
  /* Following a program is always one key away; a file's end only when not there. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "trace.last", have && (self->live || at < n));
}

/* Accessible names are not properties the templates' translation reaches: they
 * are set here, and again in gml_trace_view_refresh() when the language changes. */
static void
set_accessible_labels (GmlTraceView *self)
{
  static const char *view_labels[GML_N_SNAPSHOT_VIEWS] = {
    N_("Memory map view"), N_("Timeline view"), N_("Active memory view"), N_("Fragmentation view"),
  };
  static const struct { gsize offset; const char *label; } buttons[] = {
    { G_STRUCT_OFFSET (GmlTraceView, first_button), N_("Before the first entry") },
    { G_STRUCT_OFFSET (GmlTraceView, back_button), N_("One entry back") },
    { G_STRUCT_OFFSET (GmlTraceView, forward_button), N_("One entry forward") },
  };

  for (guint v = 0; v < GML_N_SNAPSHOT_VIEWS; v++)
    gtk_accessible_update_property (GTK_ACCESSIBLE (self->view_buttons[v]),
                                    GTK_ACCESSIBLE_PROPERTY_LABEL, _(view_labels[v]), -1);
  for (guint i = 0; i < G_N_ELEMENTS (buttons); i++)
    gtk_accessible_update_property (G_STRUCT_MEMBER (GtkAccessible *, self, buttons[i].offset),
                                    GTK_ACCESSIBLE_PROPERTY_LABEL, _(buttons[i].label), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->last_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  self->live ? _("The newest entry, following the program")
                                             : _("The end of the trace"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->scale), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Position in the trace"), -1);
}


static void
document_at_changed_cb (GmlTraceView *self)
{
  update_position (self);
}

static void
view_toggled_cb (GmlTraceView    *self,
                 GtkToggleButton *button)
{
  if (!gtk_toggle_button_get_active (button))
    return;
  for (guint v = 0; v < GML_N_SNAPSHOT_VIEWS; v++)
    if (self->view_buttons[v] == button)
      gml_snapshot_canvas_set_view (self->canvas, v);
}

static void
scale_value_changed_cb (GmlTraceView  *self,
                        GtkAdjustment *adjustment)
{
  double value = gtk_adjustment_get_value (adjustment);

  if (self->updating_scale || self->document == NULL)
    return;
  /* Moving through a live trace holds the picture still. */
  gml_trace_view_set_follow (self, FALSE);
  gml_snapshot_document_set_at (self->document, (gsize) MAX (value + 0.5, 0.0));
}

static void
scrub_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  GmlTraceView *self = GML_TRACE_VIEW (widget);
  gsize at, n, page;

  if (self->document == NULL)
    return;
  at = gml_snapshot_document_get_at (self->document);
  n = gml_snapshot_document_get_n_entries (self->document);
  page = gml_snapshot_document_get_page (self->document);

  if (g_str_equal (action_name, "trace.last"))
    {
      gml_snapshot_document_set_at (self->document, n);
      gml_trace_view_set_follow (self, TRUE);
      return;
    }
  if (g_str_equal (action_name, "trace.back"))
    at = at > 0 ? at - 1 : 0;
  else if (g_str_equal (action_name, "trace.forward"))
    at = MIN (at + 1, n);
  else if (g_str_equal (action_name, "trace.page-back"))
    at = at > page ? at - page : 0;
  else if (g_str_equal (action_name, "trace.page-forward"))
    at = MIN (at + page, n);
  else if (g_str_equal (action_name, "trace.first"))
    at = 0;
  gml_trace_view_set_follow (self, FALSE);
  gml_snapshot_document_set_at (self->document, at);
}

GmlSnapshotDocument *
gml_trace_view_get_document (GmlTraceView *self)
{
  g_return_val_if_fail (GML_IS_TRACE_VIEW (self), NULL);
  return self->document;
}

/* Shows @document at its own position; NULL shows the waiting text instead. */
void
gml_trace_view_set_document (GmlTraceView        *self,
                             GmlSnapshotDocument *document)
{
  gsize n;

  g_return_if_fail (GML_IS_TRACE_VIEW (self));
  g_return_if_fail (document == NULL || GML_IS_SNAPSHOT_DOCUMENT (document));

  if (document == self->document)
    return;
  if (self->document != NULL)
    g_signal_handlers_disconnect_by_func (self->document, document_at_changed_cb, self);
  g_set_object (&self->document, document);
  gml_snapshot_canvas_set_document (self->canvas, document);
  if (document == NULL)
    {
      gtk_stack_set_visible_child_name (self->canvas_stack, "waiting");
      update_position (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
      return;
    }
  g_signal_connect_object (document, "notify::at", G_CALLBACK (document_at_changed_cb), self,
                           G_CONNECT_SWAPPED);
  n = gml_snapshot_document_get_n_entries (document);
  self->updating_scale = TRUE;
  gtk_adjustment_configure (self->adjustment, (double) gml_snapshot_document_get_at (document), 0,
                            (double) n, 1, (double) gml_snapshot_document_get_page (document), 0);
  self->updating_scale = FALSE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->scale), n > 0);
  gtk_stack_set_visible_child_name (self->canvas_stack, "canvas");
  update_position (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

gboolean
gml_trace_view_get_live (GmlTraceView *self)
{
  g_return_val_if_fail (GML_IS_TRACE_VIEW (self), FALSE);
  return self->live;
}

gboolean
gml_trace_view_get_follow (GmlTraceView *self)
{
  g_return_val_if_fail (GML_IS_TRACE_VIEW (self), FALSE);
  return self->follow;
}

/* Following (a live trace only): the page shows each newer document at its end. */
void
gml_trace_view_set_follow (GmlTraceView *self,
                           gboolean      follow)
{
  g_return_if_fail (GML_IS_TRACE_VIEW (self));

  follow = self->live && follow;
  if (self->follow == follow)
    return;
  self->follow = follow;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FOLLOW]);
}

/* The language changed: what the code wrote (accessible names, the entry line)
 * is written again; the template's own strings follow by themselves. */
void
gml_trace_view_refresh (GmlTraceView *self)
{
  g_return_if_fail (GML_IS_TRACE_VIEW (self));

  set_accessible_labels (self);
  update_position (self);
}

GmlSnapshotCanvas *
gml_trace_view_get_canvas (GmlTraceView *self)
{
  g_return_val_if_fail (GML_IS_TRACE_VIEW (self), NULL);
  return self->canvas;
}

/* Switches to @view as its button would. */
void
gml_trace_view_set_view (GmlTraceView    *self,
                         GmlSnapshotView  view)
{
  g_return_if_fail (GML_IS_TRACE_VIEW (self));
  g_return_if_fail (view < GML_N_SNAPSHOT_VIEWS);
  gtk_toggle_button_set_active (self->view_buttons[view], TRUE);
}

/* What the canvas's place says while there is no document to draw. */
void
gml_trace_view_set_waiting_text (GmlTraceView *self,
                                 const char   *text)
{
  g_return_if_fail (GML_IS_TRACE_VIEW (self));
  gtk_label_set_label (self->waiting_label, text);
}

static gboolean
gml_trace_view_grab_focus (GtkWidget *widget)
{
  GmlTraceView *self = GML_TRACE_VIEW (widget);

  return gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

static void
gml_trace_view_constructed (GObject *object)
{
  GmlTraceView *self = GML_TRACE_VIEW (object);

  G_OBJECT_CLASS (gml_trace_view_parent_class)->constructed (object);

  /* The source string, set before the template's strings are localised, so it
   * is translated with them (and again when the language changes). */
  if (self->live)
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->last_button),
                                 N_("The Newest, and Follow the Program (End)"));
  gml_language_localize_widget (GTK_WIDGET (self), NULL);
  set_accessible_labels (self);
  update_position (self);
}

static void
gml_trace_view_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  GmlTraceView *self = GML_TRACE_VIEW (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    case PROP_LIVE:
      g_value_set_boolean (value, self->live);
      break;
    case PROP_FOLLOW:
      g_value_set_boolean (value, self->follow);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_trace_view_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  GmlTraceView *self = GML_TRACE_VIEW (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      gml_trace_view_set_document (self, g_value_get_object (value));
      break;
    case PROP_LIVE:
      self->live = g_value_get_boolean (value);
      break;
    case PROP_FOLLOW:
      gml_trace_view_set_follow (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_trace_view_dispose (GObject *object)
{
  GmlTraceView *self = GML_TRACE_VIEW (object);

  if (self->document != NULL)
    g_signal_handlers_disconnect_by_func (self->document, document_at_changed_cb, self);
  g_clear_object (&self->document);
  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_TRACE_VIEW);
  /* The rows the template gave no name to are children too. */
  for (GtkWidget *child; (child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL;)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (gml_trace_view_parent_class)->dispose (object);
}

static void
add_binding (GtkWidgetClass *widget_class,
             guint           keyval,
             guint           keypad,
             const char     *action)
{
  gtk_widget_class_add_binding_action (widget_class, keyval, 0, action, NULL);
  gtk_widget_class_add_binding_action (widget_class, keypad, 0, action, NULL);
}

static void
gml_trace_view_class_init (GmlTraceViewClass *klass)
{
  /* In the order of the view enumeration. */
  static const char * const view_button_names[] = {
    "map_button", "timeline_button", "active_button", "fragmentation_button", NULL
  };
  static const char * const scrub_actions[] = {
    "trace.first", "trace.back", "trace.page-back", "trace.forward", "trace.page-forward",
    "trace.last",
  };
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = gml_trace_view_constructed;
  object_class->get_property = gml_trace_view_get_property;
  object_class->set_property = gml_trace_view_set_property;
  object_class->dispose = gml_trace_view_dispose;
  widget_class->grab_focus = gml_trace_view_grab_focus;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, GML_TYPE_SNAPSHOT_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The trace grows while it is shown (a running program's): End follows it. */
  properties[PROP_LIVE] =
    g_param_spec_boolean ("live", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FOLLOW] =
    g_param_spec_boolean ("follow", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (GML_TYPE_SNAPSHOT_CANVAS);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/gpumemorylab/GpuMemoryLab/"
                                               "gml-trace-view.ui");
  gml_template_bind_children (widget_class, G_STRUCT_OFFSET (GmlTraceView, view_buttons),
                              view_button_names);
  G_STATIC_ASSERT (G_N_ELEMENTS (view_button_names) == GML_N_SNAPSHOT_VIEWS + 1);
  gtk_widget_class_bind_template_child (widget_class, GmlTraceView, canvas_stack);
  gtk_widget_class_bind_template_child (widget_class, GmlTraceView, waiting_label);
  gtk_widget_class_bind_template_child (widget_class, GmlTraceView, canvas);
  gtk_widget_class_bind_template_child (widget_class, GmlTraceView, first_button);
  gtk_widget_class_bind_template_child (widget_class, GmlTraceView, back_button);
  gtk_widget_class_bind_template_child (widget_class, GmlTraceView, scale);
  gtk_widget_class_bind_template_child (widget_class, GmlTraceView, adjustment);
  gtk_widget_class_bind_template_child (widget_class, GmlTraceView, forward_button);
  gtk_widget_class_bind_template_child (widget_class, GmlTraceView, last_button);
  gtk_widget_class_bind_template_child (widget_class, GmlTraceView, entry_label);

  for (guint i = 0; i < G_N_ELEMENTS (scrub_actions); i++)
    gtk_widget_class_install_action (widget_class, scrub_actions[i], NULL, scrub_action);
  add_binding (widget_class, GDK_KEY_Left, GDK_KEY_KP_Left, "trace.back");
  add_binding (widget_class, GDK_KEY_Right, GDK_KEY_KP_Right, "trace.forward");
  add_binding (widget_class, GDK_KEY_Page_Up, GDK_KEY_KP_Page_Up, "trace.page-back");
  add_binding (widget_class, GDK_KEY_Page_Down, GDK_KEY_KP_Page_Down, "trace.page-forward");
  add_binding (widget_class, GDK_KEY_Home, GDK_KEY_KP_Home, "trace.first");
  add_binding (widget_class, GDK_KEY_End, GDK_KEY_KP_End, "trace.last");

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "traceview");
}

static void
gml_trace_view_init (GmlTraceView *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 8);

  for (guint v = 0; v < GML_N_SNAPSHOT_VIEWS; v++)
    g_signal_connect_object (self->view_buttons[v], "toggled", G_CALLBACK (view_toggled_cb), self,
                             G_CONNECT_SWAPPED);
  gml_scrub_keys_route_page_keys (self->scale, "trace.page-back", "trace.page-forward");
  g_signal_connect_object (self->adjustment, "value-changed", G_CALLBACK (scale_value_changed_cb),
                           self, G_CONNECT_SWAPPED);
}

/* gml-snapshot-canvas.c — a snapshot's picture at the document's position.
 *
 * A thin widget over gml_render_snapshot(), like GmlPictureView over the
 * scenario pictures: when the document's position changes the widget queues
 * a draw and says the new numbers in its accessible label. Hovering a block
 * of the memory map shows what it is and where it was allocated, and a click
 * chooses it for the page's details ("block-selected"); hovering a band of
 * the active-memory view names that allocation; on the timelines a click or
 * a drag moves the position to the entry under the pointer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot-canvas"

#include "config.h"

#include <adwaita.h>
#include "gml-i18n.h"

#include "gml-snapshot-canvas.h"
#include "gml-look.h"

struct _GmlSnapshotCanvas
{
  GtkWidget            parent_instance;

  /* Owned */
  GmlSnapshotDocument *document;
  char                *description;

  /* State */
  GmlSnapshotView      view;
  double               drag_x;
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  PROP_VIEW,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  BLOCK_SELECTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GmlSnapshotCanvas, gml_snapshot_canvas, GTK_TYPE_WIDGET)

void
gml_snapshot_canvas_get_style (GmlSnapshotCanvas *self,
                               GmlRenderStyle    *style)
{
  gml_render_style_init (style, gml_look_get_theme (gml_look_get_default ()));
}

void
gml_snapshot_canvas_refresh (GmlSnapshotCanvas *self)
{
  g_return_if_fail (GML_IS_SNAPSHOT_CANVAS (self));

  g_clear_pointer (&self->description, g_free);
  if (self->document != NULL)
    self->description =
        gml_snapshot_picture_describe (gml_snapshot_document_get_picture (self->document),
                                       self->view);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  self->description != NULL ? self->description : "", -1);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
gml_snapshot_canvas_snapshot (GtkWidget   *widget,
                              GtkSnapshot *snapshot)
{
  GmlSnapshotCanvas *self = GML_SNAPSHOT_CANVAS (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  GmlRenderStyle style;
  cairo_t *cr;

  if (self->document == NULL || width <= 0 || height <= 0)
    return;

  gml_snapshot_canvas_get_style (self, &style);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  gml_render_snapshot (cr, gml_snapshot_document_get_picture (self->document), self->view, &style,
                       width, height);
  cairo_destroy (cr);
}

static gboolean
is_timeline (GmlSnapshotCanvas *self)
{
  return self->view == GML_SNAPSHOT_VIEW_TIMELINE || self->view == GML_SNAPSHOT_VIEW_ACTIVE;
}

static gsize
entry_at_x (GmlSnapshotCanvas *self,
            double             x)
{
  GmlRenderStyle style;

  gml_snapshot_canvas_get_style (self, &style);
  return gml_snapshot_picture_entry_at_x (gml_snapshot_document_get_picture (self->document),
                                          self->view, &style,
                                          gtk_widget_get_width (GTK_WIDGET (self)),
                                          gtk_widget_get_height (GTK_WIDGET (self)), x);
}

static gboolean
query_tooltip_cb (GmlSnapshotCanvas *self,
                  int                x,
                  int                y,
                  gboolean           keyboard,
                  GtkTooltip        *tooltip)
{
  GmlSnapshotPicture *picture;
  g_autofree char *text = NULL;

  if (self->document == NULL || keyboard)
    return FALSE;
  picture = gml_snapshot_document_get_picture (self->document);

  if (self->view == GML_SNAPSHOT_VIEW_MEMORY_MAP)
    {
      const GmlSnapshotLayoutBlock *block;
      GmlRenderStyle style;

      gml_snapshot_canvas_get_style (self, &style);
      block = gml_snapshot_picture_block_at (picture, &style,
                                             gtk_widget_get_width (GTK_WIDGET (self)),
                                             gtk_widget_get_height (GTK_WIDGET (self)), x, y);
      if (block == NULL)
        return FALSE;
      text = gml_snapshot_picture_describe_block (picture, block);
    }
  else if (is_timeline (self))
    {
      g_autofree char *entry = gml_snapshot_document_describe_entry (self->document,
                                                                     entry_at_x (self, x));
      g_autofree char *band = NULL;

      if (self->view == GML_SNAPSHOT_VIEW_ACTIVE)
        {
          int width = gtk_widget_get_width (GTK_WIDGET (self));
          int height = gtk_widget_get_height (GTK_WIDGET (self));
          GmlRenderStyle style;

          gml_snapshot_canvas_get_style (self, &style);
          band = gml_snapshot_picture_describe_allocation_at (picture, &style, width, height, x, y);
        }
      text = band != NULL ? g_strconcat (band, "\n\n", entry, NULL) : g_steal_pointer (&entry);
    }
  else
    return FALSE;

  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

/* On the timelines, pressing and dragging moves through the trace. */
static void
drag_begin_cb (GmlSnapshotCanvas *self,
               double             x,
               double             y,
               GtkGestureDrag    *gesture)
{
  if (self->document == NULL || !is_timeline (self))
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  self->drag_x = x;
  gtk_widget_grab_focus (GTK_WIDGET (self));
  gml_snapshot_document_set_at (self->document, entry_at_x (self, x));
}

static void
drag_update_cb (GmlSnapshotCanvas *self,
                double             dx,
                double             dy,
                GtkGestureDrag    *gesture)
{
  if (self->document == NULL || !is_timeline (self))
    return;
  gml_snapshot_document_set_at (self->document, entry_at_x (self, self->drag_x + dx));
}

/* On the memory map, a click chooses the block under the pointer. */
static void
click_released_cb (GmlSnapshotCanvas *self,
                   int                n_press,
                   double             x,
                   double             y,
                   GtkGestureClick   *gesture)
{
  const GmlSnapshotLayoutBlock *block;
  GmlRenderStyle style;

  if (self->document == NULL || self->view != GML_SNAPSHOT_VIEW_MEMORY_MAP)
    return;
  gml_snapshot_canvas_get_style (self, &style);
  block = gml_snapshot_picture_block_at (gml_snapshot_document_get_picture (self->document), &style,
                                         gtk_widget_get_width (GTK_WIDGET (self)),
                                         gtk_widget_get_height (GTK_WIDGET (self)), x, y);
  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (block != NULL && block->state != GML_SNAP_BLOCK_INACTIVE)
    g_signal_emit (self, signals[BLOCK_SELECTED], 0, (guint64) block->address);
}

static void
document_at_changed_cb (GmlSnapshotCanvas *self)
{
  gml_snapshot_canvas_refresh (self);
}

GmlSnapshotDocument *
gml_snapshot_canvas_get_document (GmlSnapshotCanvas *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_CANVAS (self), NULL);
  return self->document;
}

void
gml_snapshot_canvas_set_document (GmlSnapshotCanvas   *self,
                                  GmlSnapshotDocument *document)
{
  g_return_if_fail (GML_IS_SNAPSHOT_CANVAS (self));
  g_return_if_fail (document == NULL || GML_IS_SNAPSHOT_DOCUMENT (document));

  if (self->document == document)
    return;
  if (self->document != NULL)
    g_signal_handlers_disconnect_by_func (self->document, document_at_changed_cb, self);
  g_set_object (&self->document, document);
  if (document != NULL)
    g_signal_connect_object (document, "notify::at", G_CALLBACK (document_at_changed_cb), self,
                             G_CONNECT_SWAPPED);
  gml_snapshot_canvas_refresh (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

GmlSnapshotView
gml_snapshot_canvas_get_view (GmlSnapshotCanvas *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_CANVAS (self), GML_SNAPSHOT_VIEW_MEMORY_MAP);
  return self->view;
}

void
gml_snapshot_canvas_set_view (GmlSnapshotCanvas *self,
                              GmlSnapshotView    view)
{
  g_return_if_fail (GML_IS_SNAPSHOT_CANVAS (self));
  g_return_if_fail (view < GML_N_SNAPSHOT_VIEWS);

  if (self->view == view)
    return;
  self->view = view;
  gml_snapshot_canvas_refresh (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW]);
}

const char *
gml_snapshot_canvas_get_description (GmlSnapshotCanvas *self)
{
  g_return_val_if_fail (GML_IS_SNAPSHOT_CANVAS (self), NULL);
  return self->description;
}

static void
gml_snapshot_canvas_measure (GtkWidget      *widget,
                             GtkOrientation  orientation,
                             int             for_size,
                             int            *minimum,
                             int            *natural,
                             int            *minimum_baseline,
                             int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 280 : 200;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 640 : 400;
}

static void
gml_snapshot_canvas_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  GmlSnapshotCanvas *self = GML_SNAPSHOT_CANVAS (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    case PROP_VIEW:
      g_value_set_uint (value, self->view);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_snapshot_canvas_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  GmlSnapshotCanvas *self = GML_SNAPSHOT_CANVAS (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      gml_snapshot_canvas_set_document (self, g_value_get_object (value));
      break;
    case PROP_VIEW:
      gml_snapshot_canvas_set_view (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_snapshot_canvas_dispose (GObject *object)
{
  GmlSnapshotCanvas *self = GML_SNAPSHOT_CANVAS (object);

  if (self->document != NULL)
    g_signal_handlers_disconnect_by_func (self->document, document_at_changed_cb, self);
  g_clear_object (&self->document);

  G_OBJECT_CLASS (gml_snapshot_canvas_parent_class)->dispose (object);
}

static void
gml_snapshot_canvas_finalize (GObject *object)
{
  GmlSnapshotCanvas *self = GML_SNAPSHOT_CANVAS (object);

  g_clear_pointer (&self->description, g_free);

  G_OBJECT_CLASS (gml_snapshot_canvas_parent_class)->finalize (object);
}

static void
gml_snapshot_canvas_class_init (GmlSnapshotCanvasClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = gml_snapshot_canvas_dispose;
  object_class->finalize = gml_snapshot_canvas_finalize;
  object_class->get_property = gml_snapshot_canvas_get_property;
  object_class->set_property = gml_snapshot_canvas_set_property;
  widget_class->snapshot = gml_snapshot_canvas_snapshot;
  widget_class->measure = gml_snapshot_canvas_measure;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, GML_TYPE_SNAPSHOT_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_VIEW] =
    g_param_spec_uint ("view", NULL, NULL, 0, GML_N_SNAPSHOT_VIEWS - 1,
                       GML_SNAPSHOT_VIEW_MEMORY_MAP,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * GmlSnapshotCanvas::block-selected:
   * @address: the block's address
   *
   * A block of the memory map was clicked: its details are wanted.
   */
  signals[BLOCK_SELECTED] = g_signal_new ("block-selected", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT64);

  gtk_widget_class_set_css_name (widget_class, "snapshotcanvas");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
gml_snapshot_canvas_init (GmlSnapshotCanvas *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkGesture *click;
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = source != NULL
    ? g_settings_schema_source_lookup (source, APPLICATION_ID, TRUE) : NULL;

  /* Focusable, so the scrubbing keys reach the page while the picture has the focus. */
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);

  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect_object (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag, "drag-update", G_CALLBACK (drag_update_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect_object (click, "released", G_CALLBACK (click_released_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  gml_look_redraw_on_change (gml_look_get_default (), self);
}

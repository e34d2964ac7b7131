/* gml-picture-view.c — a thin widget over the render functions.
 *
 * Like Sysprof's charts: when the data changes the widget queues a draw, and
 * snapshot() hands a Cairo context to the same pure function the render verb
 * uses. The accessible label is the picture's description in words.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-picture-view"

#include "config.h"

#include <adwaita.h>
#include "gml-i18n.h"
#include "gml-lab.h"

#include "gml-picture-view.h"
#include "gml-look.h"

struct _GmlPictureView
{
  GtkWidget   parent_instance;

  GmlPicture *picture;        /* borrowed from the panel */
  GmlView     view;
  char       *description;
};

enum {
  STEP_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GmlPictureView, gml_picture_view, GTK_TYPE_WIDGET)

GtkWidget *
gml_picture_view_new (void)
{
  return g_object_new (GML_TYPE_PICTURE_VIEW, NULL);
}

void
gml_picture_view_get_style (GmlPictureView *self,
                            GmlRenderStyle *style)
{
  gml_render_style_init (style, gml_look_get_theme (gml_look_get_default ()));
}

static void
gml_picture_view_snapshot (GtkWidget   *widget,
                           GtkSnapshot *snapshot)
{
  GmlPictureView *self = GML_PICTURE_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  GmlRenderStyle style;
  cairo_t *cr;

  if (self->picture == NULL || width <= 0 || height <= 0)
    return;

  gml_picture_view_get_style (self, &style);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  gml_render_picture (cr, self->picture, self->view, &style, width, height);
  cairo_destroy (cr);
}

static gboolean
query_tooltip_cb (GmlPictureView *self,
                  int             x,
                  int             y,
                  gboolean        keyboard,
                  GtkTooltip     *tooltip)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  GmlRenderStyle style;

  if (self->picture == NULL || keyboard)
    return FALSE;
  gml_picture_view_get_style (self, &style);

  if (self->view == GML_VIEW_MEMORY_MAP)
    {
      GmlMemoryMapData data;
      GmlBlockInfo block;
      g_autofree char *address = NULL;
      g_autofree char *size = NULL;
      g_autofree char *requested = NULL;
      g_autofree char *text = NULL;
      g_autofree char *state = NULL;

      gml_picture_memory_map_data (self->picture, &data);
      if (!gml_render_memory_map_hit (&data, &style, width, height, x, y, &block))
        return FALSE;
      address = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", block.address);
      size = gml_format_size_short (block.size);
      requested = gml_format_size_short (block.requested_size);
      switch (block.state)
        {
        case GML_BLOCK_ALLOCATED:
          /* Translators: tooltip of a block: address, size, requested size, tensor, category. */
          text = g_strdup_printf (_("Address %s\nSize %s (requested %s)\nTensor %s\nCategory: %s"),
                                  address, size, requested, block.label ? block.label : "—",
                                  gml_lab_category_name (block.category));
          break;
        case GML_BLOCK_PENDING_FREE:
        case GML_BLOCK_FREE:
        case GML_BLOCK_UNUSED:
        default:
          {
            /* The legend's words for the block's kind, then what they mean. */
            GmlMemoryKind kind = gml_memory_state_block_kind (data.state, block.id);
            const char *meaning = kind == GML_MEMORY_KIND_PENDING_FREE
                                  ? _("freed, waiting for its stream")
                                  : kind == GML_MEMORY_KIND_INACTIVE_SPLIT
                                  ? _("free, but its segment still holds a tensor, so "
                                      "empty_cache() cannot give it back")
                                  : _("free, kept in the cache; empty_cache() can give its segment "
                                      "back");

            /* Translators: a kind of memory as the legend names it, then what it means. */
            state = g_strdup_printf (_("%s: %s"), gml_memory_kind_name (kind), meaning);
            text = g_strdup_printf (_("Address %s\nSize %s\n%s"), address, size, state);
          }
          break;
        }
      gtk_tooltip_set_text (tooltip, text);
      return TRUE;
    }
  if (self->view == GML_VIEW_TIMELINE)
    {
      GmlTimelineData data;
      gsize point;

      gml_picture_timeline_data (self->picture, &data);
      point = gml_timeline_point_at_x (&data, &style, width, height, x);
      gtk_tooltip_set_text (tooltip,
                            gml_scenario_get_step (gml_picture_get_scenario (self->picture),
                                                   point)->caption);
      return TRUE;
    }
  return FALSE;
}

static void
click_released_cb (GmlPictureView  *self,
                   int              n_press,
                   double           x,
                   double           y,
                   GtkGestureClick *gesture)
{
  GmlTimelineData data;
  GmlRenderStyle style;
  gsize point;

  if (self->picture == NULL || self->view != GML_VIEW_TIMELINE)
    return;
  gml_picture_view_get_style (self, &style);
  gml_picture_timeline_data (self->picture, &data);
  point = gml_timeline_point_at_x (&data, &style, gtk_widget_get_width (GTK_WIDGET (self)),
                                   gtk_widget_get_height (GTK_WIDGET (self)), x);
  g_signal_emit (self, signals[STEP_ACTIVATED], 0, (guint) point);
}

void
gml_picture_view_changed (GmlPictureView *self)
{
  g_return_if_fail (GML_IS_PICTURE_VIEW (self));

  g_clear_pointer (&self->description, g_free);
  if (self->picture != NULL)
    self->description = gml_picture_describe_full (self->picture, self->view);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  self->description != NULL ? self->description : "",
                                  -1);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
gml_picture_view_set_picture (GmlPictureView *self,
                              GmlPicture     *picture)
{
  g_return_if_fail (GML_IS_PICTURE_VIEW (self));

  self->picture = picture;
  gml_picture_view_changed (self);
}

void
gml_picture_view_set_view (GmlPictureView *self,
                           GmlView         view)
{
  g_return_if_fail (GML_IS_PICTURE_VIEW (self));

  self->view = view;
  gml_picture_view_changed (self);
}

GmlView
gml_picture_view_get_view (GmlPictureView *self)
{
  return self->view;
}

const char *
gml_picture_view_get_description (GmlPictureView *self)
{
  return self->description;
}

static void
gml_picture_view_measure (GtkWidget      *widget,
                          GtkOrientation  orientation,
                          int             for_size,
                          int            *minimum,
                          int            *natural,
                          int            *minimum_baseline,
                          int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 240 : 200;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 520 : 360;
}

static void
gml_picture_view_finalize (GObject *object)
{
  GmlPictureView *self = GML_PICTURE_VIEW (object);

  g_clear_pointer (&self->description, g_free);

  G_OBJECT_CLASS (gml_picture_view_parent_class)->finalize (object);
}

static void
gml_picture_view_class_init (GmlPictureViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = gml_picture_view_finalize;
  widget_class->snapshot = gml_picture_view_snapshot;
  widget_class->measure = gml_picture_view_measure;

  /**
   * GmlPictureView::step-activated:
   * @step: the scenario step under the click
   *
   * The timeline was clicked: the user wants to see that step.
   */
  signals[STEP_ACTIVATED] = g_signal_new ("step-activated", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_set_css_name (widget_class, "picture-view");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
gml_picture_view_init (GmlPictureView *self)
{
  GtkGesture *click = gtk_gesture_click_new ();

  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);
  g_signal_connect_object (click, "released", G_CALLBACK (click_released_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  gml_look_redraw_on_change (gml_look_get_default (), self);
}

/* gml-audience-view.c — audience mode on the projector.
 *
 * Above the question: the address the room opens on their phones, as text and
 * as a QR code big enough to be read from the middle of the room, and how many
 * have joined and answered. Below it, once the answer is revealed: the room's
 * split, a bar per option, the right one in the accent colour with a hatch so
 * that it tells without colour too. The presentation window says what to show
 * (gml_audience_view_show) whenever its server or its slide changes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-audience-view"

#include "config.h"

#include <math.h>
#include <string.h>

#include "gml-i18n.h"

#include "gml-audience-view.h"
#include "gml-qr.h"

struct _GmlAudienceView
{
  GtkWidget          parent_instance;

  /* Template widgets */
  GtkWidget         *header_box;
  GtkWidget         *qr_area;
  GtkLabel          *url_label;
  GtkLabel          *counts_label;
  GtkWidget         *bars_area;

  GmlAudienceServer *server;     /* what the bars draw, while it runs */
  guint8            *qr;         /* the address as a QR code, qr_size² modules */
  guint              qr_size;
  char              *qr_text;    /* what it encodes */
};

G_DEFINE_FINAL_TYPE (GmlAudienceView, gml_audience_view, GTK_TYPE_WIDGET)

static void
draw_bars (GtkDrawingArea *area,
           cairo_t        *cr,
           int             width,
           int             height,
           gpointer        user_data)
{
  GmlAudienceView *self = user_data;
  GmlAudienceRoom *room = self->server != NULL ? gml_audience_server_get_room (self->server) : NULL;
  GmlAudienceResult result;
  PangoLayout *layout;
  GdkRGBA fg;
  guint most = 1;
  double row, label_w;

  if (room == NULL ||
      !gml_audience_room_get_result (room, gml_audience_room_get_question (room), &result))
    return;
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
  for (guint i = 0; i < GML_AUDIENCE_N_OPTIONS; i++)
    most = MAX (most, result.counts[i]);
  row = height / (double) GML_AUDIENCE_N_OPTIONS;
  label_w = MIN (width * 0.25, row * 4);
  layout = gtk_widget_create_pango_layout (GTK_WIDGET (area), NULL);
  for (guint i = 0; i < GML_AUDIENCE_N_OPTIONS; i++)
    {
      gboolean right = result.revealed && result.right == i;
      double y = i * row + row * 0.15, h = row * 0.7;
      double w = (width - label_w - 8) * result.counts[i] / (double) most;
      g_autofree char *text = g_strdup_printf ("%c  %u%s", g_ascii_toupper (gml_option_letter (i)),
                                               result.counts[i], right ? "  ✓" : "");
      PangoFontDescription *font = pango_font_description_new ();

      pango_font_description_set_absolute_size (font, h * 0.7 * PANGO_SCALE);
      pango_font_description_set_weight (font, right ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
      pango_layout_set_font_description (layout, font);
      pango_font_description_free (font);
      pango_layout_set_text (layout, text, -1);
      gdk_cairo_set_source_rgba (cr, &fg);
      cairo_move_to (cr, 0, y);
      pango_cairo_show_layout (cr, layout);

      cairo_rectangle (cr, label_w, y, MAX (w, 2), h);
      if (right)
        cairo_set_source_rgb (cr, 0.15, 0.64, 0.41);
      else
        cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.45);
      cairo_fill_preserve (cr);
      if (right)
        {
          cairo_save (cr);
          cairo_clip (cr);
          cairo_set_source_rgba (cr, 1, 1, 1, 0.5);
          cairo_set_line_width (cr, 3);
          for (double x = label_w - h; x < label_w + w; x += 12)
            {
              cairo_move_to (cr, x, y + h);
              cairo_line_to (cr, x + h, y);
            }
          cairo_stroke (cr);
          cairo_restore (cr);
        }
      cairo_new_path (cr);
    }
  g_object_unref (layout);
}

/* The address as a QR code, dark on light whatever the style (readers want it so),
 * with the four-module light margin. */
static void
draw_qr (GtkDrawingArea *area,
         cairo_t        *cr,
         int             width,
         int             height,
         gpointer        user_data)
{
  GmlAudienceView *self = user_data;
  guint n = self->qr_size + 8;
  double module, x0, y0;

  if (self->qr == NULL)
    return;
  module = floor (MIN (width, height) / (double) n);
  if (module < 1)
    return;
  x0 = floor ((width - module * n) / 2);
  y0 = floor ((height - module * n) / 2);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_rectangle (cr, x0, y0, module * n, module * n);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, 0, 0, 0);
  for (guint y = 0; y < self->qr_size; y++)
    for (guint x = 0; x < self->qr_size; x++)
      if (self->qr[y * self->qr_size + x])
        cairo_rectangle (cr, x0 + (x + 4) * module, y0 + (y + 4) * module, module, module);
  cairo_fill (cr);
}

static void
set_qr (GmlAudienceView *self,
        const char      *url)
{
  if (g_strcmp0 (url, self->qr_text) == 0)
    return;
  g_clear_pointer (&self->qr, g_free);
  g_free (self->qr_text);
  self->qr_text = g_strdup (url);
  self->qr_size = 0;
  if (url != NULL)
    self->qr = gml_qr_encode (url, strlen (url), &self->qr_size);
  gtk_widget_set_visible (self->qr_area, self->qr != NULL);
  if (self->qr != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (self->qr_area),
                                    GTK_ACCESSIBLE_PROPERTY_LABEL, _("QR code of the address"),
                                    GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, url, -1);
  gtk_widget_queue_draw (self->qr_area);
}

/* Shows @server's address, counts and (unless @hide_split: the round's end is
 * not the question's slide) the split once revealed; with no running server,
 * @error if there is one, else nothing. */
void
gml_audience_view_show (GmlAudienceView   *self,
                        GmlAudienceServer *server,
                        const char        *error,
                        gboolean           hide_split)
{
  gboolean running;
  GmlAudienceRoom *room;
  GmlAudienceResult result = { 0 };

  g_return_if_fail (GML_IS_AUDIENCE_VIEW (self));

  running = server != NULL && gml_audience_server_is_running (server);
  if (!running)
    server = NULL;
  g_set_object (&self->server, server);
  gtk_widget_set_visible (self->header_box, running || error != NULL);
  if (!running)
    {
      gtk_widget_set_visible (self->bars_area, FALSE);
      set_qr (self, NULL);
      if (error != NULL)
        {
          gtk_label_set_label (self->url_label, error);
          gtk_label_set_label (self->counts_label, "");
        }
      return;
    }
  room = gml_audience_server_get_room (server);
  gtk_label_set_label (self->url_label, gml_audience_server_get_url (server));
  set_qr (self, gml_audience_server_get_url (server));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->url_label),
                               _("Open this address on a phone in the room, on the same network"));
  gml_audience_room_get_result (room, gml_audience_room_get_question (room), &result);
  {
    guint joined = gml_audience_room_get_joined (room);
    /* Translators: how many phones have opened the page. */
    g_autofree char *j = g_strdup_printf (ngettext ("%u joined", "%u joined", joined), joined);
    /* Translators: how many of them have answered the question shown. */
    g_autofree char *a = g_strdup_printf (ngettext ("%u answered", "%u answered", result.answered),
                                          result.answered);
    /* Translators: "12 joined · 9 answered". */
    g_autofree char *line = g_strdup_printf (_("%s · %s"), j, a);

    gtk_label_set_label (self->counts_label, line);
  }
  if (hide_split)
    result.revealed = FALSE;
  gtk_widget_set_visible (self->bars_area, result.revealed);
  if (result.revealed)
    {
      g_autofree char *split = gml_audience_server_describe_split (server);

      gtk_accessible_update_property (GTK_ACCESSIBLE (self->bars_area),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, _("How the room answered"),
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, split, -1);
      gtk_widget_queue_draw (self->bars_area);
    }
}

/* The QR code's side in pixels: the projector scales it with the slide. */
void
gml_audience_view_set_qr_size (GmlAudienceView *self,
                               int              size)
{
  g_return_if_fail (GML_IS_AUDIENCE_VIEW (self));

  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (self->qr_area), size);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->qr_area), size);
}

static void
gml_audience_view_dispose (GObject *object)
{
  GmlAudienceView *self = GML_AUDIENCE_VIEW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), GML_TYPE_AUDIENCE_VIEW);
  g_clear_object (&self->server);

  G_OBJECT_CLASS (gml_audience_view_parent_class)->dispose (object);
}

static void
gml_audience_view_finalize (GObject *object)
{
  GmlAudienceView *self = GML_AUDIENCE_VIEW (object);

  g_clear_pointer (&self->qr, g_free);
  g_clear_pointer (&self->qr_text, g_free);

  G_OBJECT_CLASS (gml_audience_view_parent_class)->finalize (object);
}

static void
gml_audience_view_class_init (GmlAudienceViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = gml_audience_view_dispose;
  object_class->finalize = gml_audience_view_finalize;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_BASE "/gml-audience-view.ui");
  gtk_widget_class_bind_template_child (widget_class, GmlAudienceView, header_box);
  gtk_widget_class_bind_template_child (widget_class, GmlAudienceView, qr_area);
  gtk_widget_class_bind_template_child (widget_class, GmlAudienceView, url_label);
  gtk_widget_class_bind_template_child (widget_class, GmlAudienceView, counts_label);
  gtk_widget_class_bind_template_child (widget_class, GmlAudienceView, bars_area);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
}

static void
gml_audience_view_init (GmlAudienceView *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->bars_area), draw_bars, self, NULL);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->qr_area), draw_qr, self, NULL);
}

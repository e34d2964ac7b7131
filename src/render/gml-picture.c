/* gml-picture.c — a scenario at one step, turned into the data each view draws.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-render"

#include "config.h"

#include <math.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include "gml-i18n.h"

#include "gml-render-private.h"

struct _GmlPicture
{
  GmlScenario *scenario;      /* borrowed */
  guint        step;
  GmlMemState *state;         /* the state after `step`, reused when scrubbing */
  gboolean     by_size;
  gboolean     pointing;
  gboolean     hide_future;
  GArray      *allocated;     /* guint64 per step */
  GArray      *reserved;
  GByteArray  *marks;
};

GmlPicture *
gml_picture_new (GmlScenario *scenario)
{
  GmlPicture *self = g_new0 (GmlPicture, 1);
  guint n = gml_scenario_get_n_steps (scenario);

  self->scenario = scenario;
  self->allocated = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n);
  self->reserved = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n);
  self->marks = g_byte_array_sized_new (n);
  for (guint i = 0; i < n; i++)
    {
      const GmlScenarioStep *step = gml_scenario_get_step (scenario, i);
      guint64 a = step->stats.allocated_bytes[GML_STAT_ALL].current;
      guint64 r = step->stats.reserved_bytes[GML_STAT_ALL].current;
      guint8 mark = (step->oom ? GML_TIMELINE_MARK_OOM : 0)
                    | (step->empty_cache ? GML_TIMELINE_MARK_EMPTY_CACHE : 0);

      g_array_append_val (self->allocated, a);
      g_array_append_val (self->reserved, r);
      g_byte_array_append (self->marks, &mark, 1);
    }
  self->state = gml_scenario_state_at (scenario, 0);
  return self;
}

void
gml_picture_free (GmlPicture *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->state, gml_mem_state_free);
  g_array_unref (self->allocated);
  g_array_unref (self->reserved);
  g_byte_array_unref (self->marks);
  g_free (self);
}

GmlScenario *
gml_picture_get_scenario (GmlPicture *self)
{
  return self->scenario;
}

void
gml_picture_set_step (GmlPicture *self,
                      guint       step)
{
  step = MIN (step, gml_scenario_get_n_steps (self->scenario) - 1);
  self->step = step;
  gml_scenario_state_at_into (self->scenario, step, self->state);
}

guint
gml_picture_get_step (GmlPicture *self)
{
  return self->step;
}

void
gml_picture_set_by_size (GmlPicture *self,
                         gboolean    by_size)
{
  self->by_size = by_size;
}

void
gml_picture_set_pointing (GmlPicture *self,
                          gboolean    pointing)
{
  self->pointing = pointing;
}

void
gml_picture_set_hide_future (GmlPicture *self,
                             gboolean    hide)
{
  self->hide_future = hide;
}

gboolean
gml_picture_get_pointing (GmlPicture *self)
{
  return self->pointing;
}

const GmlMemState *
gml_picture_get_state (GmlPicture *self)
{
  return self->state;
}

void
gml_picture_memory_map_data (GmlPicture       *self,
                             GmlMemoryMapData *data)
{
  const GmlScenarioStep *step = gml_scenario_get_step (self->scenario, self->step);

  memset (data, 0, sizeof *data);
  data->state = self->state;
  /* Each run has its own device: a setting, a GPU of several, an arena. */
  data->capacity = gml_scenario_get_run_capacity (self->scenario, step->run);
  data->other_in_use = gml_scenario_get_run_other_in_use (self->scenario, step->run);
  data->device_name = gml_scenario_get_device_name (self->scenario);
  data->by_size = self->by_size;
  data->highlight = self->pointing ? gml_scenario_get_focus_category (self->scenario)
                                   : GML_CATEGORY_NONE;
  data->failed_request = step->oom ? step->request : 0;
}

void
gml_picture_timeline_data (GmlPicture      *self,
                           GmlTimelineData *data)
{
  memset (data, 0, sizeof *data);
  data->n_points = self->allocated->len;
  data->allocated = (const guint64 *) self->allocated->data;
  data->reserved = (const guint64 *) self->reserved->data;
  data->marks = self->marks->data;
  data->cursor = self->step;
  data->n_drawn = self->hide_future ? (gsize) self->step + 1 : 0;
  /* The device's size is the ceiling a story about running out of memory
   * needs; elsewhere it would flatten what grows, so the scale fits the data. */
  data->capacity = 0;
  if (gml_scenario_get_failed_request (self->scenario, NULL, NULL) ||
      gml_scenario_name_is_known (gml_scenario_get_name (self->scenario)))
    for (guint r = 0; r < gml_scenario_get_n_runs (self->scenario); r++)
      data->capacity = MAX (data->capacity, gml_scenario_get_run_capacity (self->scenario, r));
  data->highlight = self->pointing;
}

static void
fragmentation_data (GmlPicture           *self,
                    GmlFragmentationData *data)
{
  const GmlScenarioStep *step = gml_scenario_get_step (self->scenario, self->step);
  guint64 failed = 0;
  guint failed_step = 0;

  memset (data, 0, sizeof *data);
  data->state = self->state;
  data->device_free = step->device_free;
  data->request = step->request;
  data->request_failed = step->oom;
  /* Before the failing request is made, compare with it anyway: that is the question. */
  if (data->request == 0 && gml_scenario_get_failed_request (self->scenario, &failed, &failed_step)
      && self->step < failed_step)
    data->request = failed;
}

/* The marks the scenario asks for, as rectangles of the memory map: only when
 * the picture points at the step the question is about. */
typedef struct
{
  guint64      address;
  guint64      size;
  const char  *text;
} MarkPlace;

typedef struct
{
  const GmlMark *mark;
  MarkPlace     *place;
  gboolean       found;
} FindMark;

static void
find_mark_cb (const GmlSegmentInfo *segment,
              const GmlBlockInfo   *block,
              gpointer              user_data)
{
  FindMark *d = user_data;
  const GmlMark *mark = d->mark;

  if (d->found)
    return;
  if ((mark->label != NULL && block->state == GML_BLOCK_ALLOCATED &&
       g_strcmp0 (block->label, mark->label) == 0) ||
      (mark->label == NULL && block->address == mark->address))
    {
      d->found = TRUE;
      d->place->address = mark->segment ? segment->address : block->address;
      d->place->size = mark->segment ? segment->size : block->size;
    }
}

static gboolean
find_mark (GmlPicture    *self,
           const GmlMark *mark,
           MarkPlace     *place)
{
  FindMark d = { mark, place, FALSE };

  place->text = mark->text;
  gml_mem_state_foreach_block (self->state, find_mark_cb, &d);
  return d.found;
}

static gboolean
marks_apply (GmlPicture *self)
{
  return self->pointing && self->step == gml_scenario_get_focus_step (self->scenario) &&
         gml_scenario_get_n_marks (self->scenario) > 0;
}

static void
draw_marks (cairo_t              *cr,
            GmlPicture           *self,
            const GmlRenderStyle *style,
            int                   width,
            int                   height)
{
  GmlMemoryMapData data;
  GmlMapLayout layout = { 0 };
  const GmlPalette *pal = &style->palette;
  double label_bottom = 0;

  if (!marks_apply (self))
    return;
  gml_picture_memory_map_data (self, &data);
  gml_map_layout_compute (&layout, &data, style, width, height);
  for (guint i = 0; i < gml_scenario_get_n_marks (self->scenario); i++)
    {
      MarkPlace place;
      GmlRect rect;
      double tw, th, tx, ty;

      if (!find_mark (self, gml_scenario_get_mark (self->scenario, i), &place) ||
          !gml_map_layout_block_rect (&layout, &data, place.address, place.size, &rect))
        continue;
      cairo_save (cr);
      cairo_set_line_width (cr, 3 * style->line_width);
      _gml_set_color (cr, &pal->highlight);
      cairo_rectangle (cr, rect.x + 1.5, rect.y + 1.5, MAX (rect.width - 3, 1),
                       MAX (rect.height - 3, 1));
      cairo_stroke (cr);

      /* The label: inside the box's top if it fits there, else just below its top
       * edge, kept inside the map and clear of the previous label. */
      _gml_text_size (cr, style, place.text, 1.0, GML_TEXT_BOLD, &tw, &th);
      tx = CLAMP (rect.x + 6, layout.map.x + 2,
                  MAX (layout.map.x + layout.map.width - tw - 10, layout.map.x + 2));
      ty = MAX (rect.y + 6, label_bottom + 4);
      ty = MIN (ty, layout.map.y + layout.map.height - th - 6);
      _gml_set_color (cr, &pal->background);
      cairo_rectangle (cr, tx - 4, ty - 2, tw + 8, th + 4);
      cairo_fill_preserve (cr);
      cairo_set_line_width (cr, 1.5 * style->line_width);
      _gml_set_color (cr, &pal->highlight);
      cairo_stroke (cr);
      _gml_text (cr, style, place.text, tx, ty, 1.0, GML_TEXT_BOLD, &pal->foreground, 0);
      label_bottom = ty + th + 2;
      cairo_restore (cr);
    }
  gml_map_layout_clear (&layout);
}

static char *
describe_marks (GmlPicture *self)
{
  GString *out;

  if (!marks_apply (self))
    return NULL;
  out = g_string_new (NULL);
  for (guint i = 0; i < gml_scenario_get_n_marks (self->scenario); i++)
    {
      MarkPlace place;

      if (!find_mark (self, gml_scenario_get_mark (self->scenario, i), &place))
        continue;
      g_string_append_printf (out, "%s%s", out->len > 0 ? "; " : "", place.text);
    }
  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

void
gml_render_picture (cairo_t              *cr,
                    GmlPicture           *self,
                    GmlView               view,
                    const GmlRenderStyle *style,
                    int                   width,
                    int                   height)
{
  switch (view)
    {
    case GML_VIEW_FRAGMENTATION:
      {
        GmlFragmentationData d;

        fragmentation_data (self, &d);
        gml_render_fragmentation (cr, &d, style, width, height);
      }
      break;
    case GML_VIEW_TIMELINE:
      {
        GmlTimelineData d;

        gml_picture_timeline_data (self, &d);
        gml_render_timeline (cr, &d, style, width, height);
      }
      break;
    case GML_VIEW_CHECKPOINTING:
      {
        GmlCheckpointData d = { self->scenario, self->step, self->pointing };

        gml_render_checkpointing (cr, &d, style, width, height);
      }
      break;
    case GML_VIEW_COMPARISON:
      {
        GmlBarsData d = { self->scenario, self->step, self->pointing };

        gml_render_bars (cr, &d, style, width, height);
      }
      break;
    case GML_VIEW_MEMORY_MAP:
    case GML_N_VIEWS:
    default:
      {
        GmlMemoryMapData d;

        gml_picture_memory_map_data (self, &d);
        gml_render_memory_map (cr, &d, style, width, height);
        draw_marks (cr, self, style, width, height);
      }
      break;
    }
}

char *
gml_picture_describe (GmlPicture *self,
                      GmlView     view)
{
  switch (view)
    {
    case GML_VIEW_FRAGMENTATION:
      {
        GmlFragmentationData d;

        fragmentation_data (self, &d);
        return gml_describe_fragmentation (&d);
      }
    case GML_VIEW_TIMELINE:
      {
        GmlTimelineData d;

        gml_picture_timeline_data (self, &d);
        return gml_describe_timeline (&d);
      }
    case GML_VIEW_CHECKPOINTING:
      {
        GmlCheckpointData d = { self->scenario, self->step, self->pointing };

        return gml_describe_checkpointing (&d);
      }
    case GML_VIEW_COMPARISON:
      {
        GmlBarsData d = { self->scenario, self->step, self->pointing };

        return gml_describe_bars (&d);
      }
    case GML_VIEW_MEMORY_MAP:
    case GML_N_VIEWS:
    default:
      {
        GmlMemoryMapData d;
        g_autofree char *map = NULL;
        g_autofree char *marks = describe_marks (self);

        gml_picture_memory_map_data (self, &d);
        map = gml_describe_memory_map (&d);
        if (marks == NULL)
          return g_steal_pointer (&map);
        /* Translators: the map's description, then what it outlines. */
        return g_strdup_printf (_("%s Marked: %s."), map, marks);
      }
    }
}

char *
gml_picture_describe_full (GmlPicture *self,
                           GmlView     view)
{
  g_autofree char *picture = gml_picture_describe (self, view);
  const char *caption = gml_scenario_get_step (self->scenario, self->step)->caption;

  return g_strdup_printf ("%s %s", caption, picture);
}

struct _GmlExportDrawing
{
  cairo_surface_t *recording;
  int              width;
  int              height;
};

/* Draws @draw at @width × @height once, into a recording: the drawing is taken
 * where the picture lives (the main loop, which may change it the next moment),
 * and written anywhere after. */
GmlExportDrawing *
_gml_export_drawing_new (GmlExportDrawFunc  draw,
                         gconstpointer      data,
                         int                width,
                         int                height)
{
  GmlExportDrawing *self = g_new0 (GmlExportDrawing, 1);
  cairo_rectangle_t extents = { 0, 0, width, height };
  cairo_t *cr;

  self->width = width;
  self->height = height;
  self->recording = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, &extents);
  cr = cairo_create (self->recording);
  draw (cr, data, width, height);
  cairo_destroy (cr);
  return self;
}

void
gml_export_drawing_free (GmlExportDrawing *self)
{
  if (self == NULL)
    return;
  cairo_surface_destroy (self->recording);
  g_free (self);
}

/* Cairo's stream surfaces write through this: the file's GIO stream, keeping the
 * first error (GLib's, translated) for the message. */
typedef struct
{
  GOutputStream *stream;
  GError        *error;
} ExportSink;

static cairo_status_t
sink_write (void                *closure,
            const unsigned char *data,
            unsigned int         length)
{
  ExportSink *sink = closure;

  if (sink->error != NULL)
    return CAIRO_STATUS_WRITE_ERROR;
  if (!g_output_stream_write_all (sink->stream, data, length, NULL, NULL, &sink->error))
    return CAIRO_STATUS_WRITE_ERROR;
  return CAIRO_STATUS_SUCCESS;
}

/* Writes the drawing into @path as @format: the one place that knows how each
 * format's surface is made and written. The file is replaced whole or not at all
 * (GIO writes a temporary file and renames it), so a failed export never leaves
 * half a picture, nor destroys the file it was to replace. It touches nothing but
 * the drawing, so a worker may call it (PNG compression and the disk take the
 * time). */
gboolean
gml_export_drawing_write (GmlExportDrawing *self,
                          const char       *path,
                          GmlExportFormat   format,
                          GError          **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GCancellable) abandon = NULL;
  g_autoptr(GError) local_error = NULL;
  ExportSink sink = { NULL, NULL };
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;

  g_return_val_if_fail (self != NULL, FALSE);

  /* GLib's message names the file already. */
  stream = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, NULL, error);
  if (stream == NULL)
    return FALSE;
  sink.stream = G_OUTPUT_STREAM (stream);

  status = cairo_surface_status (self->recording);
  switch (format)
    {
    case GML_EXPORT_SVG:
      surface = cairo_svg_surface_create_for_stream (sink_write, &sink, self->width, self->height);
      break;
    case GML_EXPORT_PDF:
      surface = cairo_pdf_surface_create_for_stream (sink_write, &sink, self->width, self->height);
      break;
    case GML_EXPORT_PNG:
    default:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, self->width, self->height);
      break;
    }
  cr = cairo_create (surface);
  cairo_set_source_surface (cr, self->recording, 0, 0);
  cairo_paint (cr);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && format == GML_EXPORT_PNG)
    status = cairo_surface_write_to_png_stream (surface, sink_write, &sink);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);

  if (sink.error != NULL)
    local_error = g_steal_pointer (&sink.error);
  else if (status != CAIRO_STATUS_SUCCESS)
    local_error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED,
                                       cairo_status_to_string (status));
  else if (g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &local_error))
    return TRUE;

  /* Closed with a cancelled cancellable, the temporary file goes and the old
   * file, if any, stays. */
  abandon = g_cancellable_new ();
  g_cancellable_cancel (abandon);
  g_output_stream_close (G_OUTPUT_STREAM (stream), abandon, NULL);
  {
    g_autofree char *display = g_filename_display_name (path);

    /* Translators: the first %s is the file, the second the reason. */
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not write “%s”: %s"), display,
                 local_error->message);
  }
  return FALSE;
}

typedef struct
{
  GmlPicture           *picture;
  GmlView               view;
  const GmlRenderStyle *style;
} PictureExport;

static void
draw_picture (cairo_t       *cr,
              gconstpointer  data,
              int            width,
              int            height)
{
  const PictureExport *e = data;

  gml_render_picture (cr, e->picture, e->view, e->style, width, height);
}

GmlExportDrawing *
gml_picture_draw_for_export (GmlPicture           *self,
                             GmlView               view,
                             const GmlRenderStyle *style,
                             int                   width,
                             int                   height)
{
  PictureExport e = { self, view, style };

  return _gml_export_drawing_new (draw_picture, &e, width, height);
}

gboolean
gml_export_format_for_path (const char      *path,
                            GmlExportFormat *format)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  if (g_str_has_suffix (lower, ".png"))
    *format = GML_EXPORT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *format = GML_EXPORT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    *format = GML_EXPORT_PDF;
  else
    return FALSE;
  return TRUE;
}

const char *
gml_export_format_extension (GmlExportFormat format)
{
  switch (format)
    {
    case GML_EXPORT_SVG:
      return ".svg";
    case GML_EXPORT_PDF:
      return ".pdf";
    case GML_EXPORT_PNG:
    default:
      return ".png";
    }
}

char *
gml_export_path_for_format (const char      *path,
                            GmlExportFormat  chosen,
                            GmlExportFormat *format)
{
  g_return_val_if_fail (path != NULL, NULL);

  if (gml_export_format_for_path (path, format))
    return g_strdup (path);
  *format = chosen;
  return g_strconcat (path, gml_export_format_extension (chosen), NULL);
}

gboolean
gml_picture_offers_view (GmlPicture *self,
                         GmlView     view)
{
  /* The picture script names the views it means to show; of those, only the ones
   * its data fills are offered. */
  if (!gml_scenario_has_view (self->scenario, view))
    return FALSE;
  switch (view)
    {
    case GML_VIEW_MEMORY_MAP:
      return TRUE;
    case GML_VIEW_FRAGMENTATION:
      /* Free cached memory at some step, or a request that failed: else the
       * gauge would only ever say 0 %. */
      for (guint i = 0; i < gml_scenario_get_n_steps (self->scenario); i++)
        {
          const GmlScenarioStep *step = gml_scenario_get_step (self->scenario, i);

          if (step->oom || step->largest_free > 0 ||
              step->stats.reserved_bytes[GML_STAT_ALL].current >
              step->stats.allocated_bytes[GML_STAT_ALL].current)
            return TRUE;
        }
      return FALSE;
    case GML_VIEW_TIMELINE:
      return gml_scenario_get_n_steps (self->scenario) > 1;
    case GML_VIEW_CHECKPOINTING:
      return gml_scenario_get_n_strategies (self->scenario) > 0;
    case GML_VIEW_COMPARISON:
      return gml_scenario_get_n_bars (self->scenario) > 0;
    case GML_N_VIEWS:
      return FALSE;
    default:
      /* A view this function does not know yet is offered. */
      return view < GML_N_VIEWS;
    }
}

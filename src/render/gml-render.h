/* gml-render.h — pure Cairo pictures of GPU memory.
 *
 * Every render function takes (cairo_t *, const data *, const GmlRenderStyle *,
 * width, height) and nothing else: the same code draws the widgets, exports
 * PNG/SVG/PDF and is pixel-tested on image surfaces without a display. The
 * layout functions say where things are drawn, for hover, clicks and tests.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <gio/gio.h>

#include "gml-scenario.h"
#include "gml-trace.h"

G_BEGIN_DECLS

typedef enum
{
  GML_THEME_LIGHT,
  GML_THEME_DARK,
  GML_THEME_HIGH_CONTRAST,
  GML_N_THEMES
} GmlTheme;

typedef struct
{
  double red, green, blue, alpha;
} GmlColor;

typedef struct
{
  GmlColor background;
  GmlColor foreground;
  GmlColor dim;              /* secondary text, axes */
  GmlColor grid;
  GmlColor segment_border;
  GmlColor free_fill;        /* cached free block, under its hatching */
  GmlColor hatch;
  GmlColor inactive;         /* hatching of an inactive split piece */
  GmlColor waste;            /* rounding waste inside an allocated block */
  GmlColor category[GML_N_CATEGORIES];
  GmlColor other_processes;
  GmlColor allocated;        /* timeline lines */
  GmlColor reserved;
  GmlColor oom;
  GmlColor empty_cache;
  GmlColor cursor;
  GmlColor highlight;
} GmlPalette;

typedef struct
{
  GmlTheme    theme;
  GmlPalette  palette;
  const char *font_family;
  double      font_size;       /* pixels */
  double      line_width;      /* 1 normally, 2 in high contrast */
} GmlRenderStyle;

typedef struct
{
  double x, y, width, height;
} GmlRect;

void         gml_render_style_init      (GmlRenderStyle *style,
                                         GmlTheme        theme);
gboolean     gml_theme_from_string      (const char     *str,
                                         GmlTheme       *theme);
const char  *gml_category_display_name  (GmlCategory     category);

/* ------------------------------------------------------------------------- */
/* Memory map                                                                */

typedef struct
{
  const GmlMemState *state;
  guint64            capacity;        /* what the lab may use: budget or device total */
  guint64            other_in_use;    /* other processes and the context (CUDA), else 0 */
  const char        *device_name;
  gboolean           by_size;         /* pack segments largest first, not in address order */
  GmlCategory        highlight;       /* blocks of this category are outlined; NONE = none */
  guint64            failed_request;  /* drawn in the legend line; 0 = none */
} GmlMemoryMapData;

/* One row span of a segment box (a segment wider than a row continues on the next). */
typedef struct
{
  guint   segment;                    /* index in address order */
  guint64 address;                    /* segment address */
  guint64 offset;                     /* first byte of the segment in this span */
  guint64 length;
  GmlRect rect;
} GmlMapPiece;

typedef struct
{
  GmlRect  device_bar;
  GmlRect  map;
  GmlRect  legend;
  double   bytes_per_px;
  double   row_height;
  GArray  *pieces;                    /* GmlMapPiece, in drawing order */
  GArray  *first_piece;               /* guint per segment (address order) */
  GArray  *segments;                  /* private: the segments in address order */
  double   gap;                       /* pixels between segment boxes */
} GmlMapLayout;

void         gml_map_layout_compute     (GmlMapLayout           *layout,
                                         const GmlMemoryMapData *data,
                                         const GmlRenderStyle   *style,
                                         int                     width,
                                         int                     height);
void         gml_map_layout_clear       (GmlMapLayout           *layout);
/* The first span of the block at [address, address + size), or FALSE. */
gboolean     gml_map_layout_block_rect  (const GmlMapLayout     *layout,
                                         const GmlMemoryMapData *data,
                                         guint64                 address,
                                         guint64                 size,
                                         GmlRect                *rect);
void         gml_render_memory_map      (cairo_t                *cr,
                                         const GmlMemoryMapData *data,
                                         const GmlRenderStyle   *style,
                                         int                     width,
                                         int                     height);
/* Which block is under (x, y); FALSE over no block. */
gboolean     gml_render_memory_map_hit  (const GmlMemoryMapData *data,
                                         const GmlRenderStyle   *style,
                                         int                     width,
                                         int                     height,
                                         double                  x,
                                         double                  y,
                                         GmlBlockInfo           *block);
char        *gml_describe_memory_map    (const GmlMemoryMapData *data);

/* ------------------------------------------------------------------------- */
/* Fragmentation gauge                                                       */

typedef struct
{
  const GmlMemState *state;
  guint64            device_free;     /* what the device could still give */
  guint64            request;         /* the request to compare with, 0 = none */
  gboolean           request_failed;
} GmlFragmentationData;

void         gml_render_fragmentation   (cairo_t                    *cr,
                                         const GmlFragmentationData *data,
                                         const GmlRenderStyle       *style,
                                         int                         width,
                                         int                         height);
char        *gml_describe_fragmentation (const GmlFragmentationData *data);

/* ------------------------------------------------------------------------- */
/* Timeline                                                                  */

#define GML_TIMELINE_MARK_EMPTY_CACHE 0x1
#define GML_TIMELINE_MARK_OOM         0x2

typedef struct
{
  gsize          n_points;
  const guint64 *allocated;
  const guint64 *reserved;
  const guint8  *marks;               /* GML_TIMELINE_MARK_* per point, or NULL */
  gsize          cursor;              /* G_MAXSIZE = none */
  guint64        capacity;            /* top of the scale; 0 = the largest value */
  gboolean       highlight;           /* emphasise the cursor's markers */
} GmlTimelineData;

void         gml_timeline_layout        (const GmlTimelineData *data,
                                         const GmlRenderStyle  *style,
                                         int                    width,
                                         int                    height,
                                         GmlRect               *plot,
                                         guint64               *top);
gsize        gml_timeline_point_at_x    (const GmlTimelineData *data,
                                         const GmlRenderStyle  *style,
                                         int                    width,
                                         int                    height,
                                         double                 x);
void         gml_render_timeline        (cairo_t               *cr,
                                         const GmlTimelineData *data,
                                         const GmlRenderStyle  *style,
                                         int                    width,
                                         int                    height);
char        *gml_describe_timeline      (const GmlTimelineData *data);

/* ------------------------------------------------------------------------- */
/* Checkpointing chart                                                       */

typedef struct
{
  GmlScenario *scenario;              /* the checkpointing scenario (its strategies) */
  guint        step;                  /* cursor */
  gboolean     highlight;
} GmlCheckpointData;

/* Where strategy @index's chart is drawn and the bytes at its top; FALSE when
 * there is no such strategy. Step i of the strategy is the column
 * plot->x + i * plot->width / (number of steps). */
gboolean     gml_checkpointing_layout   (const GmlCheckpointData *data,
                                         const GmlRenderStyle    *style,
                                         int                      width,
                                         int                      height,
                                         guint                    index,
                                         GmlRect                 *plot,
                                         guint64                 *top);
/* The fill of @layer's band (0-based): alternating shades of the activations
 * colour, of the temporaries colour (and hatched) where it was recomputed. */
void         gml_checkpointing_layer_color (const GmlRenderStyle *style,
                                            guint                 layer,
                                            gboolean              recomputed,
                                            GmlColor             *color);
void         gml_render_checkpointing   (cairo_t                 *cr,
                                         const GmlCheckpointData *data,
                                         const GmlRenderStyle    *style,
                                         int                      width,
                                         int                      height);
char        *gml_describe_checkpointing (const GmlCheckpointData *data);

/* ------------------------------------------------------------------------- */
/* Comparison bars                                                           */

typedef struct
{
  GmlScenario *scenario;              /* its bars */
  guint        step;                  /* cursor: bars measured later are drawn empty */
  gboolean     pointing;              /* after the answer: breakdowns and the marked bar */
} GmlBarsData;

/* The legend's name of a bar part (a GmlCategory or a GmlBarPart). */
const char  *gml_bar_part_display_name  (guint                    part);
void         gml_render_bars            (cairo_t                 *cr,
                                         const GmlBarsData       *data,
                                         const GmlRenderStyle    *style,
                                         int                      width,
                                         int                      height);
char        *gml_describe_bars          (const GmlBarsData       *data);

/* ------------------------------------------------------------------------- */
/* A scenario at a step, ready for any view                                  */

typedef struct _GmlPicture GmlPicture;

GmlPicture  *gml_picture_new            (GmlScenario          *scenario);
void         gml_picture_free           (GmlPicture           *self);
GmlScenario *gml_picture_get_scenario   (GmlPicture           *self);
void         gml_picture_set_step       (GmlPicture           *self,
                                         guint                 step);
guint        gml_picture_get_step       (GmlPicture           *self);
void         gml_picture_set_by_size    (GmlPicture           *self,
                                         gboolean              by_size);
/* After an answer: outline what the question was about. */
void         gml_picture_set_pointing   (GmlPicture           *self,
                                         gboolean              pointing);
const GmlMemState *gml_picture_get_state (GmlPicture          *self);
void         gml_picture_memory_map_data (GmlPicture          *self,
                                          GmlMemoryMapData    *data);
void         gml_picture_timeline_data  (GmlPicture           *self,
                                         GmlTimelineData      *data);
void         gml_render_picture         (cairo_t              *cr,
                                         GmlPicture           *self,
                                         GmlView               view,
                                         const GmlRenderStyle *style,
                                         int                   width,
                                         int                   height);
char        *gml_picture_describe       (GmlPicture           *self,
                                         GmlView               view);
/* The step's caption, then the view's description: what a screen reader gets,
 * and what `render --describe` prints. */
char        *gml_picture_describe_full  (GmlPicture           *self,
                                         GmlView               view);
gboolean     gml_picture_get_pointing   (GmlPicture           *self);

typedef enum
{
  GML_EXPORT_PNG,
  GML_EXPORT_SVG,
  GML_EXPORT_PDF,
} GmlExportFormat;

gboolean     gml_export_format_for_path (const char           *path,
                                         GmlExportFormat      *format);
/* Writes the picture to @path (PNG pixels; SVG and PDF in points). */
gboolean     gml_picture_export         (GmlPicture           *self,
                                         GmlView               view,
                                         const GmlRenderStyle *style,
                                         const char           *path,
                                         GmlExportFormat       format,
                                         int                   width,
                                         int                   height,
                                         GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlPicture, gml_picture_free)

G_END_DECLS

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
  GML_THEME_HIGH_CONTRAST_DARK,   /* the desktop's high contrast with a dark scheme */
  GML_N_THEMES
} GmlTheme;

typedef struct
{
  double red, green, blue, alpha;
} GmlColor;

/* One palette per theme. Every kind of memory has one look everywhere it is
 * drawn (overview bar, map, fragmentation rows, legend): a solid colour for
 * allocated memory by category, a pattern over a ground for the rest, so that
 * no state is told by colour alone. */
typedef struct
{
  GmlColor background;
  GmlColor foreground;
  GmlColor dim;              /* secondary text, axes */
  GmlColor grid;
  GmlColor segment_border;
  GmlColor free_fill;        /* ground of free memory, under its pattern */
  GmlColor hatch;            /* diagonal lines of a free, cached block */
  GmlColor inactive;         /* cross-hatching of an inactive split block */
  GmlColor waste;            /* ground of rounding waste, under dark back-diagonals */
  GmlColor category[GML_N_CATEGORIES];
  GmlColor other_processes;
  GmlColor allocated;        /* timeline lines */
  GmlColor reserved;
  GmlColor oom;              /* failure only: a failed request, an out-of-memory step */
  GmlColor empty_cache;
  GmlColor device_free;      /* comparison bars: what the device could still give */
  GmlColor pinned;           /* comparison bars: page-locked host memory */
  GmlColor cursor;
  GmlColor highlight;        /* the outline of what the question is about (not a failure) */
} GmlPalette;

typedef struct
{
  GmlTheme    theme;
  GmlPalette  palette;
  const char *font_family;
  double      font_size;       /* pixels */
  double      line_width;      /* 1 normally, 2 in high contrast */
  /* When not NULL, every line of text drawn is appended here as a GmlLabel
   * (gml_label_log_new()): tests read where the labels went. NULL normally. */
  GArray     *label_log;
} GmlRenderStyle;

typedef struct
{
  double x, y, width, height;
} GmlRect;

/* One line of text as drawn, in canvas pixels (device space). */
typedef struct
{
  char     *text;
  GmlRect   ink;             /* the glyphs' ink */
  GmlRect   owner;           /* the box the label was placed in (a block, a legend, the canvas) */
  GmlRect   clip;            /* the clip in force */
  GmlRect   canvas;          /* the picture's whole area */
  gboolean  split_word;      /* a wrapped line that ends inside a word */
  gboolean  ellipsized;      /* cut short with "…" to fit its width */
} GmlLabel;

/* A GArray of GmlLabel that frees their text. */
GArray      *gml_label_log_new          (void);

/* Every kind of memory the pictures show. The first GML_N_CATEGORIES values
 * are allocated memory by category, equal to GmlCategory. */
typedef enum
{
  GML_MEMORY_KIND_OTHER = GML_CATEGORY_NONE,
  GML_MEMORY_KIND_WEIGHTS = GML_CATEGORY_WEIGHTS,
  GML_MEMORY_KIND_ACTIVATIONS = GML_CATEGORY_ACTIVATIONS,
  GML_MEMORY_KIND_GRADIENTS = GML_CATEGORY_GRADIENTS,
  GML_MEMORY_KIND_OPTIMIZER_STATE = GML_CATEGORY_OPTIMIZER_STATE,
  GML_MEMORY_KIND_TEMPORARY = GML_CATEGORY_TEMPORARY,
  GML_MEMORY_KIND_KV_CACHE = GML_CATEGORY_KV_CACHE,
  GML_MEMORY_KIND_FREE_CACHED = GML_N_CATEGORIES,  /* free, in a segment with nothing active */
  GML_MEMORY_KIND_INACTIVE_SPLIT,   /* free, in a segment that still holds a tensor */
  GML_MEMORY_KIND_PENDING_FREE,     /* freed, waiting for its stream */
  GML_MEMORY_KIND_ROUNDING_WASTE,   /* bytes of an allocated block beyond the request */
  GML_MEMORY_KIND_NOT_RESERVED,     /* within the capacity, not reserved by the allocator */
  GML_MEMORY_KIND_OTHER_PROCESSES,  /* other processes and the CUDA context */
  GML_N_MEMORY_KINDS
} GmlMemoryKind;

/* The legend's words for @kind (translated). */
const char  *gml_memory_kind_name       (GmlMemoryKind   kind);
/* Fills the current path the way every picture draws @kind, and clears the path. */
void         gml_render_memory_kind_fill (cairo_t              *cr,
                                          const GmlRenderStyle *style,
                                          GmlMemoryKind         kind);
/* The kind of the block in slot @block of @state, as the map draws it. */
GmlMemoryKind gml_memory_state_block_kind (const GmlMemState *state,
                                           guint              block);

void         gml_render_style_init      (GmlRenderStyle *style,
                                         GmlTheme        theme);
/* The theme for a window's scheme and contrast (libadwaita's style manager). */
GmlTheme     gml_theme_for              (gboolean        dark,
                                         gboolean        high_contrast);
gboolean     gml_theme_from_string      (const char     *str,
                                         GmlTheme       *theme);

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
  guint64            failed_request;  /* said after the device line; 0 = none */
  gboolean           uncategorised;   /* blocks carry no category: the legend says
                                       * "Allocated", not the five categories */
  gboolean           inferred;        /* the categories were inferred (a snapshot's): the
                                       * legend names those present, the snapshot's way
                                       * ("Parameters"), and says they are inferred */
  gboolean           capacity_is_peak; /* @capacity is the most reserved over the trace
                                        * (a snapshot, which does not record the GPU's
                                        * size), not the device's: the line says so */
} GmlMemoryMapData;

/* The box of one segment. Every segment is one box, never split: a segment
 * wider than a row is drawn as a taller box over several rows, its area still
 * proportional to its bytes, and its blocks are columns of it. (offset is
 * always 0 and length the segment's size; the fields stay for callers that
 * read them.) */
typedef struct
{
  guint   segment;                    /* index in address order */
  guint64 address;                    /* segment address */
  guint64 offset;                     /* 0 */
  guint64 length;                     /* the segment's size */
  GmlRect rect;
} GmlMapPiece;

typedef struct
{
  GmlRect  device_bar;
  GmlRect  map;
  GmlRect  legend;
  double   bytes_per_px;              /* along a row, in a box one row high */
  double   row_height;
  GArray  *pieces;                    /* GmlMapPiece, one per segment, in drawing order */
  GArray  *first_piece;               /* guint per segment (address order): its piece */
  GArray  *segments;                  /* private: the segments in address order */
  double   gap;                       /* pixels between segment boxes */
  GmlRect  header;                    /* the device line (and the failed request) */
  GmlRect  scale;                     /* the scale bar's line under the map */
  guint    n_rows;
  guint64  kind_bytes[GML_N_MEMORY_KINDS]; /* bytes of each kind in the state (and the bar) */
  guint    n_unplaced;                /* segments that did not fit (absurdly many); 0 normally */
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
  gboolean           device_free_unknown; /* nothing recorded what the GPU had left */
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

/* A labelled range of points: a snapshot's record_function region. */
typedef struct
{
  gsize       start;                  /* first point inside */
  gsize       end;                    /* first point after it */
  const char *label;
  guint       depth;                  /* 0 = outermost; nested regions go below */
} GmlTimelineSpan;

/* The same run replayed under other settings (a what-if): its reserved bytes
 * at each of the run's points. */
typedef struct
{
  const guint64 *reserved;
  gsize          n_points;
  const char    *label;               /* the settings, as PYTORCH_CUDA_ALLOC_CONF text */
} GmlTimelineReplay;

#define GML_TIMELINE_MAX_REPLAYS 8

typedef struct
{
  gsize          n_points;
  const guint64 *allocated;
  const guint64 *reserved;
  const guint8  *marks;               /* GML_TIMELINE_MARK_* per point, or NULL */
  gsize          cursor;              /* G_MAXSIZE = none */
  guint64        capacity;            /* top of the scale; 0 = the largest value */
  gboolean       highlight;           /* emphasise the cursor's markers */
  gboolean       trace_entries;       /* the points are a snapshot's trace entries, not steps:
                                       * the axis gets ticks at round entry numbers */
  /* With trace entries: point i's time in µs (the file's time_us), shown as
   * seconds under the ticks; NULL when the file has no times. */
  gint64       (*point_time_us) (gsize point, gconstpointer user_data);
  gconstpointer  point_time_data;
  gsize          n_drawn;             /* points drawn from the left (the rest is the future
                                       * a question asks about); 0 = all */
  gboolean       show_peak;           /* mark the peak of allocated at point @peak */
  gsize          peak;
  const GmlTimelineSpan *spans;       /* drawn above the plot, or NULL */
  guint          n_spans;
  /* A second run drawn over the same axis (its points from the same x),
   * dashed: a comparison. NULL = none. */
  const guint64 *other_allocated;
  const guint64 *other_reserved;
  gsize          other_n_points;
  const char    *label;               /* the first run's name in the legend, with other_label */
  const char    *other_label;
  /* Replays drawn over the same axis, each in its own colour and dash pattern,
   * named in the legend; at most GML_TIMELINE_MAX_REPLAYS. */
  const GmlTimelineReplay *replays;
  guint          n_replays;
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
/* Whether @view has something to show for this picture's data: the
 * checkpointing chart only for data with checkpointing strategies, the
 * fragmentation gauge only where memory is cached free or a request fails at
 * some step, the timeline only with more than one step. The app offers only
 * these views. */
gboolean     gml_picture_offers_view    (GmlPicture           *self,
                                         GmlView               view);
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
/* Before an answer: the timeline stops at the shown step, drawing nothing of
 * what comes after it. */
void         gml_picture_set_hide_future (GmlPicture          *self,
                                          gboolean             hide);

typedef enum
{
  GML_EXPORT_PNG,
  GML_EXPORT_SVG,
  GML_EXPORT_PDF,
} GmlExportFormat;

gboolean     gml_export_format_for_path (const char           *path,
                                         GmlExportFormat      *format);
const char  *gml_export_format_extension (GmlExportFormat     format);
/* The file an export writes: @path itself when it ends in .png, .svg or .pdf (the
 * name decides), else @path with @chosen's extension appended. */
char        *gml_export_path_for_format (const char           *path,
                                         GmlExportFormat       chosen,
                                         GmlExportFormat      *format);
/* A picture drawn once, to be written to a file later, in any thread: the
 * window draws it on the main loop and writes it in a worker; the command
 * line draws and writes at once. PNG in pixels; SVG and PDF in points. */
typedef struct _GmlExportDrawing GmlExportDrawing;

GmlExportDrawing *gml_picture_draw_for_export (GmlPicture           *self,
                                               GmlView               view,
                                               const GmlRenderStyle *style,
                                               int                   width,
                                               int                   height);
gboolean     gml_export_drawing_write   (GmlExportDrawing     *self,
                                         const char           *path,
                                         GmlExportFormat       format,
                                         GError              **error);
void         gml_export_drawing_free    (GmlExportDrawing     *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlExportDrawing, gml_export_drawing_free)

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlPicture, gml_picture_free)

G_END_DECLS

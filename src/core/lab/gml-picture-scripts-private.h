/* gml-picture-scripts-private.h — what the picture scripts share: the
 * helpers every script uses, and the scripts the table in
 * gml-picture-scripts.c names from the other files (training memory in
 * gml-picture-script-training.c; expandable segments, views, CUDA graphs,
 * torch.compile, offloading and limits in gml-picture-script-features.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gml-picture-script-private.h"
#include "gml-lab-private.h"
#include "gml-i18n.h"

G_BEGIN_DECLS

#define MiB GML_MiB
#define GiB GML_GiB

#define V(name)  _gml_picture_script_value (e, name)
#define IS(name, word) _gml_picture_script_is (e, name, word)

/* ------------------------------------------------------------------------- */
/* Helpers                                                                   */

static inline guint64
round_up (guint64 value,
          guint64 multiple)
{
  return (value + multiple - 1) / multiple * multiple;
}

static inline guint64
round_down (guint64 value,
            guint64 multiple)
{
  return value / multiple * multiple;
}

static inline gint
compare_guint64 (gconstpointer a,
                 gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* What a picture script's arena may take: the device's free memory within the
 * budget, and never more than the lab's default simulated GPU, so that the
 * window and the render verb tell the same story on every machine. */
static inline guint64
lab_arena (GmlScript *r)
{
  return MIN (gml_device_available (r->sc->device), GML_SCENARIO_SIM_CAPACITY);
}

/* The smallest round scale (1, 2, 4, 5, 8, 10, 16, 20, 25, …: powers of two
 * times powers of five) at which @needed bytes fit in @available and, if
 * possible, every value of @exact divides into whole @quantum units, so that
 * the engine's figures times the scale are the question's exactly. */
static inline guint64
choose_scale (guint64        needed,
              guint64        available,
              const guint64 *exact,
              guint          n_exact,
              guint64        quantum)
{
  g_autoptr(GArray) candidates = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 first_fit = 0;

  for (guint64 two = 1; two <= (G_GUINT64_CONSTANT (1) << 40); two *= 2)
    for (guint64 five = 1; five <= G_GUINT64_CONSTANT (1000000000000) / two; five *= 5)
      {
        guint64 c = two * five;
        g_array_append_val (candidates, c);
      }
  g_array_sort (candidates, compare_guint64);

  for (guint c = 0; c < candidates->len; c++)
    {
      guint64 s = g_array_index (candidates, guint64, c);
      gboolean whole = TRUE;

      /* A sixteenth is left for rounding: each tensor may take up to 2 MiB more. */
      if (needed / s > available - available / 16)
        continue;
      if (first_fit == 0)
        first_fit = s;
      for (guint i = 0; i < n_exact && whole; i++)
        whole = exact[i] % s == 0 && (exact[i] / s) % quantum == 0;
      if (whole)
        return s;
      if (s >= first_fit * 64)
        break;
    }
  return MAX (first_fit, 1);
}

/* Sizes below 1 MiB as exact bytes ("1024 B"), as the rounding rules need. */
static inline char *
exact_size (GmlScript *r,
            guint64    bytes)
{
  if (bytes * r->sc->scale < MiB)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes * r->sc->scale);
  return _gml_script_size (r, bytes);
}

/* "7 billion", "33.6 million": a parameter count in words. */
static inline char *
format_count (guint64 n)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char *end;

  if (n >= 1000000000)
    {
      g_ascii_formatd (buf, sizeof buf, "%.1f", n / 1e9);
      if ((end = strstr (buf, ".0")) != NULL && end[2] == '\0')
        *end = '\0';
      /* Translators: %s is a number such as 7 or 1.5. */
      return g_strdup_printf (_("%s billion"), gml_format_localise_point (buf));
    }
  if (n >= 1000000)
    {
      g_ascii_formatd (buf, sizeof buf, "%.1f", n / 1e6);
      if ((end = strstr (buf, ".0")) != NULL && end[2] == '\0')
        *end = '\0';
      /* Translators: %s is a number such as 33.6. */
      return g_strdup_printf (_("%s million"), gml_format_localise_point (buf));
    }
  return g_strdup_printf ("%" G_GUINT64_FORMAT, n);
}

/* "1.9", "4": a ratio for captions. */
static inline char *
format_ratio (double ratio)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char *end;

  g_ascii_formatd (buf, sizeof buf, "%.1f", ratio);
  if ((end = strstr (buf, ".0")) != NULL && end[2] == '\0')
    *end = '\0';
  return g_strdup (gml_format_localise_point (buf));
}

static inline const GmlScenarioStep *
step_at (GmlScript *r,
         guint      step)
{
  return gml_scenario_get_step (r->sc, step);
}

static inline const GmlStats *
stats_at (GmlScript *r,
          guint      step)
{
  return &step_at (r, step)->stats;
}

static inline guint64
allocated_at (GmlScript *r,
              guint      step)
{
  return stats_at (r, step)->allocated_bytes[GML_STAT_ALL].current;
}

static inline guint64
reserved_at (GmlScript *r,
             guint      step)
{
  return stats_at (r, step)->reserved_bytes[GML_STAT_ALL].current;
}

/* The last out-of-memory event of the current run: the segment size it tried to
 * get and the device's free bytes then. */
static inline gboolean
last_oom (GmlScript *r,
          guint64   *segment,
          guint64   *device_free)
{
  GmlTrace *trace = gml_allocator_get_trace (r->run->allocator);

  for (gsize i = gml_trace_get_n_events (trace); i-- > 0;)
    {
      const GmlTraceEvent *ev = gml_trace_get_event (trace, i);

      if (ev->kind == GML_EVENT_OOM)
        {
          *segment = ev->size;
          *device_free = ev->address;
          return TRUE;
        }
    }
  return FALSE;
}

static inline char *
category_size (GmlScript         *r,
               const GmlMemState *state,
               GmlCategory        category)
{
  return _gml_script_size (r, gml_mem_state_allocated_by_category (state, category));
}

static inline guint64
allocated_now (GmlScript *r)
{
  return _gml_script_stats (r)->allocated_bytes[GML_STAT_ALL].current;
}

static inline guint64
reserved_now (GmlScript *r)
{
  return _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current;
}

static inline guint64
requested_now (GmlScript *r)
{
  return _gml_script_stats (r)->requested_bytes[GML_STAT_ALL].current;
}

static inline void
start (GmlScript  *r,
       const char *title,
       GmlView     focus_view)
{
  r->sc->title = g_strdup (title);
  r->sc->focus_view = focus_view;
}

static inline void
set_scale (GmlScript *r,
           guint64    scale)
{
  r->sc->scale = MAX (scale, 1);
  g_clear_pointer (&r->sc->bar_unit, g_free);
  if (r->sc->scale > 1)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, r->sc->scale);

      /* Translators: both %s are a number such as 64. */
      r->sc->bar_unit = g_strdup_printf (_("Run at 1:%s scale: the bars show the engine’s figures "
                                           "× %s."), n, n);
    }
}

/* Adds the scale to a caption that ran scaled down. Takes @caption. */
static inline char *
with_scale (GmlScript *r,
            char      *caption)
{
  g_autofree char *note = _gml_script_scale_note (r);
  char *joined;

  if (note == NULL)
    return caption;
  joined = g_strconcat (caption, " ", note, NULL);
  g_free (caption);
  return joined;
}

static inline void
first_step (GmlScript *r)
{
  _gml_script_end_step (r, g_strdup (_("Start: nothing is allocated yet.")));
}

/* ------------------------------------------------------------------------- */
/* Scripts defined in the other files                                        */

gboolean _gml_kind_check_lab           (const GmlPictureScript *e, char **field, char **reason);
void     _gml_kind_checkpointing_depth (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_compile_saved       (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_expandable          (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_fraction            (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_fsdp_gather         (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_grad_accum          (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_graph_pool          (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_held_references     (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_kv_cache            (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_model_state         (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_no_grad             (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_offload_activations (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_placement           (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_tied_embeddings     (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_view_storage        (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_zero                (GmlScript *r, const GmlPictureScript *e);
void     _gml_kind_zero_grad           (GmlScript *r, const GmlPictureScript *e);

G_END_DECLS

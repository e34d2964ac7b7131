/* test-labels.c — every text label of every picture, where it was drawn.
 *
 * Renders every view of every picture source at every step, in the language
 * given on the command line (tr or en), at the sizes the window gives its
 * picture panel at 1040×720 (the default), 1024×768, 1280×800 and 1920×1080
 * and at those whole sizes (an exported picture), in the light, dark and
 * high-contrast styles, and reads the label log the render layer keeps when
 * asked (GmlRenderStyle.label_log). It fails on a label that lies outside the
 * canvas, its clip or the box it was placed in (a clipped label), on a wrapped
 * line that ends inside a word (a truncated one), on two labels whose glyphs
 * overlap, on a tensor's name drawn more often than it has blocks, and on a
 * legend that lacks one of its entries. Then the same for a snapshot's four
 * views (a synthetic training run from make_snapshots.py, its categories,
 * record_function regions and a second run compared in the timeline).
 *
 *   test-labels LANG [MAKE_SNAPSHOTS.PY]
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "gml-i18n.h"
#include "gml-render.h"
#include "gml-snapshot-picture.h"

/* The picture panel's size in the window, measured under Xvfb through the
 * accessibility tree (the panel's width differs a little by language, its
 * height with the caption's lines), then the window's whole size. */
static const struct
{
  int         width, height;
  const char *what;
} sizes[] = {
  { 443, 450, "panel, window 1040×720, tr" },
  { 454, 450, "panel, window 1040×720, en" },
  { 435, 458, "panel, window 1024×768, tr, three-line caption" },
  { 447, 498, "panel, window 1024×768, en" },
  { 553, 544, "panel, window 1280×800, tr" },
  { 567, 504, "panel, window 1280×800, en, three-line caption" },
  { 845, 841, "panel, window 1920×1080, tr" },
  { 866, 801, "panel, window 1920×1080, en, three-line caption" },
  { 1024, 768, "whole 1024×768" },
  { 1280, 800, "whole 1280×800" },
  { 1920, 1080, "whole 1920×1080" },
};

/* ------------------------------------------------------------------------- */
/* Picture sources: what the window can show a picture of. To test a new     */
/* kind (per-question experiments), add a source that opens its scenario.    */

typedef GmlScenario *(*OpenFunc) (GmlDevice   *device,
                                  const char  *arg,
                                  GError     **error);

typedef struct
{
  char     *name;     /* for messages */
  OpenFunc  open;
  char     *arg;
} Source;

static GmlScenario *
open_named_scenario (GmlDevice   *device,
                     const char  *arg,
                     GError     **error)
{
  return gml_scenario_new (arg, device, error);
}

static void
source_free (gpointer data)
{
  Source *s = data;

  g_free (s->name);
  g_free (s->arg);
  g_free (s);
}

static GPtrArray *
collect_sources (void)
{
  GPtrArray *sources = g_ptr_array_new_with_free_func (source_free);
  const char * const *names = gml_scenario_names ();

  for (guint i = 0; names[i] != NULL; i++)
    {
      Source *s = g_new0 (Source, 1);

      s->name = g_strdup_printf ("scenario %s", names[i]);
      s->open = open_named_scenario;
      s->arg = g_strdup (names[i]);
      g_ptr_array_add (sources, s);
    }
  return sources;
}

/* ------------------------------------------------------------------------- */

typedef struct
{
  GString *problems;
  guint    n_problems;
  guint    n_renders;
  guint    n_labels;
  const char *lang;
} Run;

static void
problem (Run        *run,
         const char *context,
         const char *format,
         ...) G_GNUC_PRINTF (3, 4);

static void
problem (Run        *run,
         const char *context,
         const char *format,
         ...)
{
  va_list args;

  run->n_problems++;
  if (run->n_problems > 40)
    return;
  g_string_append_printf (run->problems, "%s: ", context);
  va_start (args, format);
  g_string_append_vprintf (run->problems, format, args);
  va_end (args);
  g_string_append_c (run->problems, '\n');
}

static gboolean
inside (const GmlRect *outer,
        const GmlRect *inner)
{
  const double slack = 0.5;

  return inner->x >= outer->x - slack && inner->y >= outer->y - slack &&
         inner->x + inner->width <= outer->x + outer->width + slack &&
         inner->y + inner->height <= outer->y + outer->height + slack;
}

static gboolean
overlap (const GmlRect *a,
         const GmlRect *b)
{
  const double slack = 0.5;

  return a->x + a->width > b->x + slack && b->x + b->width > a->x + slack &&
         a->y + a->height > b->y + slack && b->y + b->height > a->y + slack;
}

static char *
rect_str (const GmlRect *r)
{
  return g_strdup_printf ("(%.1f,%.1f %.1f×%.1f)", r->x, r->y, r->width, r->height);
}

/* All lines of the log joined, with runs of spaces made one: a wrapped
 * legend entry reads whole again. */
static char *
joined_text (GArray *log)
{
  GString *s = g_string_new (" ");

  for (guint i = 0; i < log->len; i++)
    {
      const char *t = g_array_index (log, GmlLabel, i).text;

      for (; *t != '\0'; t++)
        if (*t != ' ' || s->str[s->len - 1] != ' ')
          g_string_append_c (s, *t);
      if (s->str[s->len - 1] != ' ')
        g_string_append_c (s, ' ');
    }
  return g_string_free (s, FALSE);
}

static void
expect_text (Run        *run,
             const char *context,
             const char *all,
             const char *msgid)
{
  const char *text = _(msgid);
  g_autofree char *needle = g_strdup_printf (" %s ", text);

  if (strstr (all, needle) == NULL)
    problem (run, context, "legend or axis text “%s” missing", text);
}

typedef struct
{
  GHashTable *blocks_per_name;
} Names;

static void
count_name_cb (const GmlSegmentInfo *segment,
               const GmlBlockInfo   *block,
               gpointer              user_data)
{
  GHashTable *names = user_data;

  if (block->label != NULL && block->state == GML_BLOCK_ALLOCATED)
    g_hash_table_insert (names, (gpointer) block->label,
                         GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (names, block->label)) + 1));
}

static void
free_id_cb (const GmlSegmentInfo *segment,
            const GmlBlockInfo   *block,
            gpointer              user_data)
{
  if (block->state == GML_BLOCK_FREE)
    g_array_append_val ((GArray *) user_data, block->id);
}

static void
check_log (Run          *run,
           const char   *context,
           GArray       *log,
           GmlPicture   *picture,
           GmlView       view,
           gboolean      pointing)
{
  g_autofree char *all = joined_text (log);

  run->n_labels += log->len;
  for (guint i = 0; i < log->len; i++)
    {
      const GmlLabel *l = &g_array_index (log, GmlLabel, i);
      g_autofree char *ink = rect_str (&l->ink);

      if (!inside (&l->canvas, &l->ink))
        problem (run, context, "“%s” %s leaves the picture", l->text, ink);
      else if (!inside (&l->clip, &l->ink))
        problem (run, context, "“%s” %s is clipped", l->text, ink);
      else if (!inside (&l->owner, &l->ink))
        {
          g_autofree char *owner = rect_str (&l->owner);

          problem (run, context, "“%s” %s leaves its box %s", l->text, ink, owner);
        }
      if (l->split_word)
        problem (run, context, "“%s” ends inside a word", l->text);
      for (guint j = i + 1; j < log->len; j++)
        {
          const GmlLabel *m = &g_array_index (log, GmlLabel, j);

          if (overlap (&l->ink, &m->ink))
            {
              g_autofree char *other = rect_str (&m->ink);

              problem (run, context, "“%s” %s and “%s” %s overlap", l->text, ink, m->text, other);
            }
        }
    }

  switch (view)
    {
    case GML_VIEW_MEMORY_MAP:
      {
        g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
        static const GmlMemoryKind categories[] = {
          GML_MEMORY_KIND_WEIGHTS, GML_MEMORY_KIND_ACTIVATIONS, GML_MEMORY_KIND_GRADIENTS,
          GML_MEMORY_KIND_OPTIMIZER_STATE, GML_MEMORY_KIND_TEMPORARY,
        };
        const GmlMemState *state = gml_picture_get_state (picture);

        /* The legend lists a category exactly when the map draws a block of it. */
        for (guint k = 0; k < G_N_ELEMENTS (categories); k++)
          {
            g_autofree char *needle = g_strdup_printf (" %s ",
                                                       gml_memory_kind_name (categories[k]));
            gboolean drawn = gml_mem_state_allocated_by_category (state,
                                                                  (GmlCategory) categories[k]) > 0;
            gboolean listed = strstr (all, needle) != NULL;

            if (drawn && !listed)
              problem (run, context, "legend entry “%s” missing",
                       gml_memory_kind_name (categories[k]));
            else if (!drawn && listed)
              problem (run, context, "legend entry “%s” for nothing drawn",
                       gml_memory_kind_name (categories[k]));
          }
        if (pointing && gml_scenario_get_focus_category (gml_picture_get_scenario (picture)) != GML_CATEGORY_NONE)
          expect_text (run, context, all, "Outlined: what the question is about");

        /* One tensor, one label: a name is never drawn more often than there
         * are blocks of that name. */
        gml_mem_state_foreach_block (gml_picture_get_state (picture), count_name_cb, names);
        for (guint i = 0; i < log->len; i++)
          {
            const char *text = g_array_index (log, GmlLabel, i).text;
            guint drawn = 0;

            if (!g_hash_table_contains (names, text))
              continue;
            for (guint j = 0; j < log->len; j++)
              drawn += g_str_equal (g_array_index (log, GmlLabel, j).text, text);
            if (drawn > GPOINTER_TO_UINT (g_hash_table_lookup (names, text)))
              problem (run, context, "“%s” drawn %u times for %u block(s)", text, drawn,
                       GPOINTER_TO_UINT (g_hash_table_lookup (names, text)));
          }
      }
      break;
    case GML_VIEW_FRAGMENTATION:
      {
        const GmlMemState *state = gml_picture_get_state (picture);

        /* Every kind of hole drawn, and what the device could still give. */
        expect_text (run, context, all, "Not reserved");
        g_autoptr(GArray) free_ids = g_array_new (FALSE, FALSE, sizeof (guint));

        gml_mem_state_foreach_block (state, free_id_cb, free_ids);
        for (guint b = 0; b < free_ids->len; b++)
          {
            GmlMemoryKind kind = gml_memory_state_block_kind (state,
                                                              g_array_index (free_ids, guint, b));
            g_autofree char *needle = g_strdup_printf (" %s ", gml_memory_kind_name (kind));

            if (strstr (all, needle) == NULL)
              problem (run, context, "legend entry “%s” missing", gml_memory_kind_name (kind));
          }
      }
      break;
    case GML_VIEW_TIMELINE:
      expect_text (run, context, all, "Reserved");
      expect_text (run, context, all, "Allocated");
      expect_text (run, context, all, "Free, cached");
      expect_text (run, context, all, "This step");
      {
        /* The OOM marker's entry only where a marker is drawn: up to the
         * step shown (the pictures render whole here, as after an answer). */
        GmlTimelineData d;
        gboolean oom = FALSE;

        gml_picture_timeline_data (picture, &d);
        for (gsize i = 0; d.marks != NULL && i < d.n_points; i++)
          oom = oom || (d.marks[i] & GML_TIMELINE_MARK_OOM) != 0;
        g_autofree char *needle = g_strdup_printf (" %s ", _("Out of memory"));

        if (oom)
          expect_text (run, context, all, "Out of memory");
        else if (strstr (all, needle) != NULL)
          problem (run, context, "legend entry “Out of memory” for nothing drawn");
      }
      break;
    case GML_VIEW_CHECKPOINTING:
      if (gml_scenario_get_n_strategies (gml_picture_get_scenario (picture)) == 0)
        break;
      expect_text (run, context, all, "Weights");
      expect_text (run, context, all, "Stored activations, one band per layer");
      expect_text (run, context, all, "Recomputed activations, hatched");
      expect_text (run, context, all, "Peak of the strategy");
      expect_text (run, context, all, "This step");
      expect_text (run, context, all, "Allocated memory of each strategy, step by step");
      expect_text (run, context, all,
                   "Steps of one training iteration: forward pass, then backward pass");
      if (pointing)
        expect_text (run, context, all, "Outlined: what the question is about");
      break;
    case GML_N_VIEWS:
    default:
      break;
    }
}

static void
render_source (Run          *run,
               const Source *source,
               GmlDevice    *device)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlScenario) scenario = source->open (device, source->arg, &error);
  g_autoptr(GmlPicture) picture = NULL;
  guint n_steps;

  g_assert_no_error (error);
  picture = gml_picture_new (scenario);
  n_steps = gml_scenario_get_n_steps (scenario);

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, sizes[i].width,
                                                             sizes[i].height);

      for (guint step = 0; step < n_steps; step++)
        {
          /* After an answer the picture points at the question's subject;
           * half the steps are drawn so, and some packed by size. */
          gboolean pointing = step % 2 == 1;

          gml_picture_set_step (picture, step);
          gml_picture_set_pointing (picture, pointing);
          gml_picture_set_by_size (picture, step % 3 == 2);
          for (GmlView view = 0; view < GML_N_VIEWS; view++)
            for (GmlTheme theme = 0; theme < GML_N_THEMES; theme++)
              {
                GmlRenderStyle style;
                g_autoptr(GArray) log = gml_label_log_new ();
                g_autofree char *context = NULL;
                cairo_t *cr;

                gml_render_style_init (&style, theme);
                style.label_log = log;
                cr = cairo_create (surface);
                gml_render_picture (cr, picture, view, &style, sizes[i].width, sizes[i].height);
                g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
                cairo_destroy (cr);
                run->n_renders++;

                context = g_strdup_printf ("%s, step %u, %s, %s, %d×%d (%s), theme %d%s",
                                           source->name, step,
                                           gml_view_to_string (view), run->lang, sizes[i].width,
                                           sizes[i].height, sizes[i].what, theme,
                                           pointing ? ", pointing" : "");
                check_log (run, context, log, picture, view, pointing);
              }
        }
      cairo_surface_destroy (surface);
    }
}

static const char *lang;
static const char *make_snapshots;

/* A snapshot's views at the start, a third in, the peak and the end, at every
 * size and in every style; the timeline once with a second run over it. */
static void
test_snapshot_labels (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gml-labels-XXXXXX", NULL);
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *path_a = NULL, *path_b = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlSnapshot) a = NULL, b = NULL;
  g_autoptr(GmlSnapshotTimeline) tl_a = NULL, tl_b = NULL;
  g_autoptr(GmlSnapshotPicture) picture = NULL;
  Run run = { g_string_new (NULL), 0, 0, 0, lang };
  const char *cmd[] = { python, make_snapshots, "cases", dir, NULL };
  int status = 0;
  gsize n;

  g_assert_nonnull (dir);
  g_assert_nonnull (python);
  g_spawn_sync (NULL, (char **) cmd, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status,
                &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  path_a = g_build_filename (dir, "training.pickle", NULL);
  path_b = g_build_filename (dir, "training-sgd.pickle", NULL);
  a = gml_snapshot_load (path_a, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  b = gml_snapshot_load (path_b, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  tl_a = gml_snapshot_timeline_new (a, 0, NULL, &error);
  g_assert_no_error (error);
  tl_b = gml_snapshot_timeline_new (b, 0, NULL, &error);
  g_assert_no_error (error);
  picture = gml_snapshot_picture_new (tl_a);
  n = gml_snapshot_timeline_get_n_entries (tl_a);

  gml_i18n_set_language (lang);
  if (g_str_equal (lang, "tr"))
    g_assert_cmpstr (gml_snapshot_category_name (GML_CATEGORY_WEIGHTS), !=, "Parameters");
  for (guint compared = 0; compared < 2; compared++)
    {
      const gsize ats[] = { 0, n / 3, gml_snapshot_picture_get_peak (picture), n };

      gml_snapshot_picture_set_compare (picture, compared ? tl_b : NULL, "A", "B");
      for (guint k = 0; k < G_N_ELEMENTS (ats); k++)
        for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
          for (GmlSnapshotView view = 0; view < GML_N_SNAPSHOT_VIEWS; view++)
            for (GmlTheme theme = 0; theme < GML_N_THEMES; theme++)
              {
                cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                                       sizes[i].width,
                                                                       sizes[i].height);
                g_autoptr(GArray) log = gml_label_log_new ();
                g_autofree char *context = NULL;
                GmlRenderStyle style;
                cairo_t *cr = cairo_create (surface);

                if (compared && view != GML_SNAPSHOT_VIEW_TIMELINE)
                  {
                    cairo_destroy (cr);
                    cairo_surface_destroy (surface);
                    continue;
                  }
                gml_snapshot_picture_set_at (picture, ats[k]);
                gml_render_style_init (&style, theme);
                style.label_log = log;
                gml_render_snapshot (cr, picture, view, &style, sizes[i].width, sizes[i].height);
                g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
                cairo_destroy (cr);
                cairo_surface_destroy (surface);
                run.n_renders++;
                context = g_strdup_printf ("snapshot %s at %zu%s, %s, %d×%d (%s), theme %d",
                                           gml_snapshot_view_to_string (view), ats[k],
                                           compared ? ", compared" : "", lang, sizes[i].width,
                                           sizes[i].height, sizes[i].what, theme);
                /* Only the checks every picture shares: no view of the scenarios'. */
                check_log (&run, context, log, NULL, GML_N_VIEWS, FALSE);
              }
    }
  g_test_message ("%u snapshot pictures, %u labels, %u problems", run.n_renders, run.n_labels,
                  run.n_problems);
  if (run.n_problems > 0)
    g_test_message ("%s%s", run.problems->str, run.n_problems > 40 ? "…\n" : "");
  g_assert_cmpuint (run.n_problems, ==, 0);
  g_string_free (run.problems, TRUE);
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;

    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *file = g_build_filename (dir, name, NULL);

        g_unlink (file);
      }
    g_rmdir (dir);
  }
}

static void
test_every_label (void)
{
  g_autoptr(GPtrArray) sources = collect_sources ();
  GmlDevice *device = gml_device_sim_new (GML_SCENARIO_SIM_CAPACITY, 0);
  Run run = { g_string_new (NULL), 0, 0, 0, lang };

  gml_i18n_set_language (lang);
  /* Turkish must really be Turkish: without the catalogue the test would
   * measure English words twice. */
  if (g_str_equal (lang, "tr"))
    g_assert_cmpstr (_("Free, cached"), !=, "Free, cached");
  for (guint i = 0; i < sources->len; i++)
    render_source (&run, g_ptr_array_index (sources, i), device);
  g_test_message ("%u pictures, %u labels, %u problems", run.n_renders, run.n_labels,
                  run.n_problems);
  if (run.n_problems > 0)
    g_test_message ("%s%s", run.problems->str, run.n_problems > 40 ? "…\n" : "");
  g_assert_cmpuint (run.n_renders, >, 1000);
  g_assert_cmpuint (run.n_problems, ==, 0);
  g_string_free (run.problems, TRUE);
  gml_device_destroy (device);
}

/* The test itself must see a bad label: one drawn outside its box, one over
 * another, and one cut inside a word. */
static void
test_checks_can_fail (void)
{
  Run run = { g_string_new (NULL), 0, 0, 0, "en" };
  g_autoptr(GArray) log = gml_label_log_new ();
  GmlLabel a = { g_strdup ("act5"), { 10, 10, 30, 10 }, { 0, 0, 20, 40 }, { 0, 0, 100, 100 },
                 { 0, 0, 100, 100 }, FALSE };
  GmlLabel b = { g_strdup ("64 MiB"), { 30, 12, 30, 10 }, { 0, 0, 100, 100 }, { 0, 0, 100, 100 },
                 { 0, 0, 100, 100 }, FALSE };
  GmlLabel c = { g_strdup ("…a request for 160 MiB d"), { 0, 80, 90, 10 }, { 0, 0, 100, 100 },
                 { 0, 0, 100, 100 }, { 0, 0, 100, 100 }, TRUE };

  g_array_append_val (log, a);
  g_array_append_val (log, b);
  g_array_append_val (log, c);
  check_log (&run, "made up", log, NULL, GML_N_VIEWS, FALSE);
  g_assert_cmpuint (run.n_problems, ==, 3);
  g_assert_nonnull (strstr (run.problems->str, "leaves its box"));
  g_assert_nonnull (strstr (run.problems->str, "overlap"));
  g_assert_nonnull (strstr (run.problems->str, "inside a word"));
  g_string_free (run.problems, TRUE);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  g_test_init (&argc, &argv, NULL);
  lang = argc > 1 ? argv[1] : "en";
  make_snapshots = argc > 2 ? argv[2] : NULL;

  g_test_add_func ("/render/labels/checks-can-fail", test_checks_can_fail);
  g_test_add_func ("/render/labels/every-picture", test_every_label);
  if (make_snapshots != NULL)
    g_test_add_func ("/render/labels/snapshot", test_snapshot_labels);
  return g_test_run ();
}

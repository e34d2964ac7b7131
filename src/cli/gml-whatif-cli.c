/* gml-whatif-cli.c — `snapshot FILE --what-if CONF … [--fits]`: the recorded
 * run replayed under other settings, as JSON members or a table.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-whatif-cli"

#include "config.h"

#include "gml-i18n.h"
#include "gml-snapshot-whatif.h"
#include "gml-whatif-cli.h"

struct _GmlWhatIfReport
{
  GmlWhatIfGpuSource gpu_source;
  gsize              gpu_oom_index;
  guint64            gpu_memory;
  GArray            *runs;                 /* GmlWhatIfRun: as recorded, then one per CONF */
  gboolean           fits;
  guint64            smallest;             /* as recorded */
  GArray            *smallest_by_conf;     /* guint64, one per CONF */
};

void
gml_what_if_report_free (GmlWhatIfReport *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; self->runs != NULL && i < self->runs->len; i++)
    gml_what_if_run_clear (&g_array_index (self->runs, GmlWhatIfRun, i));
  g_clear_pointer (&self->runs, g_array_unref);
  g_clear_pointer (&self->smallest_by_conf, g_array_unref);
  g_free (self);
}

GmlWhatIfReport *
gml_what_if_report_new (GmlSnapshotTimeline  *timeline,
                        const char * const   *confs,
                        guint64               gpu_memory,
                        gboolean              fits,
                        GError              **error)
{
  g_autoptr(GmlWhatIfReport) self = g_new0 (GmlWhatIfReport, 1);
  g_autoptr(GmlWhatIf) what_if = gml_what_if_new (timeline, error);
  g_autoptr(GArray) parsed = g_array_new (FALSE, FALSE, sizeof (GmlAllocConf));
  guint n_confs = confs != NULL ? g_strv_length ((char **) confs) : 0;
  GmlWhatIfRun run;

  if (what_if == NULL)
    return NULL;
  /* Every setting is read before anything is replayed. */
  for (guint i = 0; i < n_confs; i++)
    {
      GmlAllocConf conf;

      gml_alloc_conf_init (&conf);
      if (!gml_alloc_conf_parse (&conf, confs[i], error))
        {
          g_prefix_error (error, "--what-if “%s”: ", confs[i]);
          return NULL;
        }
      g_array_append_val (parsed, conf);
    }

  if (gpu_memory > 0)
    self->gpu_source = GML_WHAT_IF_GPU_GIVEN;
  else
    gpu_memory = gml_what_if_infer_gpu_memory (what_if, &self->gpu_source, &self->gpu_oom_index);
  self->gpu_memory = gpu_memory;

  self->runs = g_array_new (FALSE, TRUE, sizeof (GmlWhatIfRun));
  if (!gml_what_if_run (what_if, NULL, NULL, gpu_memory, FALSE, &run, NULL, error))
    return NULL;
  g_array_append_val (self->runs, run);
  for (guint i = 0; i < n_confs; i++)
    {
      if (!gml_what_if_run (what_if, &g_array_index (parsed, GmlAllocConf, i), confs[i], gpu_memory,
                            FALSE, &run, NULL, error))
        return NULL;
      g_array_append_val (self->runs, run);
    }

  self->fits = fits;
  if (fits)
    {
      self->smallest_by_conf = g_array_new (FALSE, TRUE, sizeof (guint64));
      if (!gml_what_if_smallest_gpu (what_if, NULL, &self->smallest, NULL, error))
        return NULL;
      for (guint i = 0; i < n_confs; i++)
        {
          guint64 bytes = 0;

          if (!gml_what_if_smallest_gpu (what_if, &g_array_index (parsed, GmlAllocConf, i), &bytes,
                                         NULL,
                                         error))
            return NULL;
          g_array_append_val (self->smallest_by_conf, bytes);
        }
    }
  return g_steal_pointer (&self);
}

static char *
gpu_source_text (GmlWhatIfReport *self)
{
  switch (self->gpu_source)
    {
    case GML_WHAT_IF_GPU_FROM_OOM:
      return g_strdup_printf ("from the OOM at entry %" G_GSIZE_FORMAT, self->gpu_oom_index);
    case GML_WHAT_IF_GPU_GIVEN:
      return g_strdup ("given");
    case GML_WHAT_IF_GPU_FROM_RETRY:
      return g_strdup_printf ("from the retry at entry %" G_GSIZE_FORMAT, self->gpu_oom_index);
    case GML_WHAT_IF_GPU_UNBOUNDED:
    default:
      return g_strdup ("unbounded");
    }
}

void
gml_what_if_report_to_json (GmlWhatIfReport *self,
                            JsonObject      *root)
{
  JsonArray *list = json_array_new ();
  g_autofree char *source = gpu_source_text (self);

  json_object_set_string_member (root, "gpu_memory_source", source);
  for (guint i = 0; i < self->runs->len; i++)
    {
      const GmlWhatIfRun *r = &g_array_index (self->runs, GmlWhatIfRun, i);
      JsonObject *o = json_object_new ();

      json_object_set_boolean_member (o, "as_recorded", r->as_recorded);
      json_object_set_string_member (o, "alloc_conf", r->alloc_conf != NULL ? r->alloc_conf : "");
      if (r->gpu_memory > 0)
        json_object_set_int_member (o, "gpu_memory_bytes", (gint64) r->gpu_memory);
      else
        json_object_set_null_member (o, "gpu_memory_bytes");
      json_object_set_int_member (o, "peak_reserved_bytes", (gint64) r->peak_reserved);
      json_object_set_int_member (o, "peak_allocated_bytes", (gint64) r->peak_allocated);
      json_object_set_int_member (o, "ooms", r->ooms);
      if (r->has_first_oom)
        json_object_set_int_member (o, "first_oom_index", (gint64) r->first_oom_index);
      else
        json_object_set_null_member (o, "first_oom_index");
      json_object_set_double_member (o, "fragmentation_at_peak", r->fragmentation_at_peak);
      json_object_set_int_member (o, "segments_at_peak", r->segments_at_peak);
      json_object_set_int_member (o, "num_alloc_retries", (gint64) r->num_alloc_retries);
      json_array_add_object_element (list, o);
    }
  json_object_set_array_member (root, "what_if", list);
  if (self->fits)
    {
      json_object_set_int_member (root, "smallest_gpu_bytes", (gint64) self->smallest);
      if (self->smallest_by_conf->len > 0)
        {
          JsonObject *by = json_object_new ();

          for (guint i = 0; i < self->smallest_by_conf->len; i++)
            json_object_set_int_member (by,
                                        g_array_index (self->runs, GmlWhatIfRun, i + 1).alloc_conf,
                                        (gint64) g_array_index (self->smallest_by_conf, guint64,
                                                                i));
          json_object_set_object_member (root, "smallest_gpu_bytes_by_conf", by);
        }
    }
}

char *
gml_what_if_report_to_text (GmlWhatIfReport *self)
{
  GString *out = g_string_new (NULL);
  g_autofree char *gpu = self->gpu_memory > 0 ? gml_format_size (self->gpu_memory) : NULL;

  g_string_append_c (out, '\n');
  switch (self->gpu_source)
    {
    case GML_WHAT_IF_GPU_FROM_OOM:
      /* Translators: a size, then a trace entry's index. */
      g_string_append_printf (out,
                              _("What if (replayed on a GPU of %s, inferred from the out of memory "
                                "at entry %lu):"), gpu, (gulong) self->gpu_oom_index);
      break;
    case GML_WHAT_IF_GPU_GIVEN:
      /* Translators: a size. */
      g_string_append_printf (out, _("What if (replayed on a GPU of %s):"), gpu);
      break;
    case GML_WHAT_IF_GPU_FROM_RETRY:
      /* Translators: a size, then a trace entry's index. */
      g_string_append_printf (out,
                              _("What if (replayed on a GPU of %s, the recorded peak: from entry "
                                "%lu on, the allocator gave cached segments back before it got a "
                                "new one, as it does when the GPU refuses one):"),
                              gpu, (gulong) self->gpu_oom_index);
      break;
    case GML_WHAT_IF_GPU_UNBOUNDED:
    default:
      g_string_append (out, _("What if (replayed on a GPU with no limit: the trace has no out of "
                              "memory to tell the GPU’s size):"));
      break;
    }
  g_string_append_c (out, '\n');
  for (guint i = 0; i < self->runs->len; i++)
    {
      const GmlWhatIfRun *r = &g_array_index (self->runs, GmlWhatIfRun, i);
      g_autofree char *reserved = gml_format_size (r->peak_reserved);
      g_autofree char *allocated = gml_format_size (r->peak_allocated);
      g_autofree char *fragmentation = gml_format_number (100.0 * r->fragmentation_at_peak, 0);
      const char *conf = r->alloc_conf != NULL && *r->alloc_conf != '\0' ? r->alloc_conf
                                                                          : _("the defaults");

      if (r->as_recorded)
        /* Translators: the settings' text. */
        g_string_append_printf (out, _("  As recorded (%s):"), conf);
      else
        g_string_append_printf (out, "  %s:", conf);
      /* Translators: sizes, a count, a percentage. */
      g_string_append_printf (out, _(" peak reserved %s, peak allocated %s, %u out of memory, "
                                     "fragmentation at the peak %s %%"),
                              reserved, allocated, r->ooms, fragmentation);
      if (r->has_first_oom)
        /* Translators: a trace entry's index. */
        g_string_append_printf (out, _(" (first at entry %lu)"), (gulong) r->first_oom_index);
      g_string_append_c (out, '\n');
    }
  if (self->fits)
    {
      g_autofree char *smallest = gml_format_size (self->smallest);

      /* Translators: a size. */
      g_string_append_printf (out, _("  The smallest GPU that replays it with no out of memory, as "
                                     "recorded: %s\n"), smallest);
      for (guint i = 0; i < self->smallest_by_conf->len; i++)
        {
          g_autofree char *bytes = gml_format_size (g_array_index (self->smallest_by_conf, guint64,
                                                                   i));

          /* Translators: the settings' text, then a size. */
          g_string_append_printf (out, _("  The smallest with %s: %s\n"),
                                  g_array_index (self->runs, GmlWhatIfRun, i + 1).alloc_conf,
                                  bytes);
        }
    }
  g_string_append (out,
                   _("  A replay starts where the recorded window starts, and a real program may "
                     "have behaved differently after an out of memory it caught.\n"));
  return g_string_free (out, FALSE);
}

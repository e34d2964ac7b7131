/* gml-picture-script.c — reading and checking a question's picture script.
 *
 * The kinds and their scripts are in gml-picture-scripts.c; this file reads
 * "experiment" objects from a bank, says precisely what is wrong with a bad one,
 * and runs the script of a good one.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-picture-script"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gml-i18n.h"

#include "gml-picture-script-private.h"
#include "gml-lab-private.h"

static const char * const *
kind_names (void)
{
  static gsize once = 0;
  static const char **names = NULL;

  if (g_once_init_enter (&once))
    {
      names = g_new0 (const char *, _gml_picture_script_n_kind_defs + 1);
      for (guint i = 0; i < _gml_picture_script_n_kind_defs; i++)
        names[i] = _gml_picture_script_kind_defs[i].name;
      g_once_init_leave (&once, 1);
    }
  return names;
}

const char * const *
gml_picture_script_kinds (void)
{
  return kind_names ();
}

static const GmlKindDef *
find_kind (const char *name)
{
  for (guint i = 0; i < _gml_picture_script_n_kind_defs; i++)
    if (g_strcmp0 (_gml_picture_script_kind_defs[i].name, name) == 0)
      return &_gml_picture_script_kind_defs[i];
  return NULL;
}

gboolean
gml_picture_script_kind_is_known (const char *kind)
{
  return find_kind (kind) != NULL;
}

/* ------------------------------------------------------------------------- */
/* The named scenarios: the kinds with a story                               */

static const GmlKindDef *
find_scenario (const char *name)
{
  const GmlKindDef *kind = find_kind (name);

  return kind != NULL && kind->scenario.story != NULL ? kind : NULL;
}

const char * const *
gml_scenario_names (void)
{
  static gsize once = 0;
  static const char **names = NULL;

  if (g_once_init_enter (&once))
    {
      guint n = 0;

      names = g_new0 (const char *, _gml_picture_script_n_kind_defs + 1);
      for (guint i = 0; i < _gml_picture_script_n_kind_defs; i++)
        if (_gml_picture_script_kind_defs[i].scenario.story != NULL)
          names[n++] = _gml_picture_script_kind_defs[i].name;
      g_once_init_leave (&once, 1);
    }
  return names;
}

gboolean
gml_scenario_name_is_known (const char *name)
{
  return find_scenario (name) != NULL;
}

const char *
gml_scenario_title (const char *name)
{
  const GmlKindDef *kind = find_scenario (name);

  return kind != NULL ? _(kind->scenario.title) : NULL;
}

GmlView
gml_scenario_focus_view (const char *name)
{
  const GmlKindDef *kind = find_scenario (name);

  return kind != NULL ? kind->scenario.focus_view : GML_VIEW_MEMORY_MAP;
}

void
_gml_picture_script_begin_scenario (GmlScript              *r,
                                    const GmlPictureScript *e,
                                    guint64                 capacity)
{
  const GmlScenarioDef *def = &e->kind->scenario;

  g_return_if_fail (def->story != NULL);

  g_free (r->sc->title);
  r->sc->title = g_strdup (_(def->title));
  r->sc->focus_view = def->focus_view;
  r->sc->views |= def->extra_views;
  _gml_script_begin_run (r, NULL, capacity, 0, NULL, FALSE);
  _gml_script_end_step (r, g_strdup (_("Start: nothing is allocated yet.")));
}

static guint
n_params (const GmlKindDef *kind)
{
  guint n = 0;

  while (n < GML_PICTURE_SCRIPT_MAX_PARAMS && kind->params[n].name != NULL)
    n++;
  return n;
}

static int
param_index (const GmlKindDef *kind,
             const char       *name)
{
  for (guint i = 0; i < n_params (kind); i++)
    if (g_str_equal (kind->params[i].name, name))
      return (int) i;
  return -1;
}

guint64
_gml_picture_script_value (const GmlPictureScript *e,
                           const char             *name)
{
  int i = param_index (e->kind, name);

  g_return_val_if_fail (i >= 0, 0);
  return e->values[i];
}

const char *
_gml_picture_script_text (const GmlPictureScript *e,
                          const char             *name)
{
  int i = param_index (e->kind, name);

  g_return_val_if_fail (i >= 0, NULL);
  return e->texts[i];
}

gboolean
_gml_picture_script_given (const GmlPictureScript *e,
                           const char             *name)
{
  int i = param_index (e->kind, name);

  g_return_val_if_fail (i >= 0, FALSE);
  return e->given[i];
}

static int
choice_index (const char *choices,
              const char *word)
{
  g_auto(GStrv) list = g_strsplit (choices, "|", -1);

  for (guint i = 0; list[i] != NULL; i++)
    if (g_str_equal (list[i], word))
      return (int) i;
  return -1;
}

gboolean
_gml_picture_script_is (const GmlPictureScript *e,
                        const char             *name,
                        const char             *word)
{
  int i = param_index (e->kind, name);

  g_return_val_if_fail (i >= 0 && e->kind->params[i].type == GML_PARAM_CHOICE, FALSE);
  return choice_index (e->kind->params[i].choices, word) == (int) e->values[i];
}

/* ------------------------------------------------------------------------- */
/* Sizes                                                                     */

/* ------------------------------------------------------------------------- */
/* Reading                                                                   */

static char *
field_name (const char *param)
{
  return param != NULL ? g_strdup_printf ("experiment.%s", param) : g_strdup ("experiment");
}

static gboolean
fail (char      **field,
      char      **reason,
      const char *param,
      char       *text)
{
  *field = field_name (param);
  *reason = text;
  return FALSE;
}

static gboolean
read_value (const GmlParamDef *def,
            JsonNode          *node,
            guint64           *value,
            char             **text,
            gboolean          *decimal,
            char             **field,
            char             **reason)
{
  GType type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;

  switch (def->type)
    {
    case GML_PARAM_TEXT:
      if (type != G_TYPE_STRING)
        return fail (field, reason, def->name, g_strdup (_("must be a string")));
      g_free (*text);
      *text = g_strdup (json_node_get_string (node));
      return TRUE;

    case GML_PARAM_SIZE:
      {
        g_autofree char *min = gml_format_size_short (def->min);
        g_autofree char *max = gml_format_size_short (def->max);
        gboolean dec = FALSE;

        if (type == G_TYPE_INT64 && json_node_get_int (node) >= 0)
          *value = (guint64) json_node_get_int (node);
        else if (type != G_TYPE_STRING ||
                 !gml_parse_size (json_node_get_string (node), GML_SIZE_UNITS, value, &dec))
          return fail (field, reason, def->name,
                       /* Translators: keep “3 MiB” and “6 GB” as written. */
                       g_strdup (_("must be a size such as “3 MiB” or “6 GB”, or a number of "
                                   "bytes")));
        if (*value < def->min || *value > def->max)
          /* Translators: both %s are sizes. */
          return fail (field, reason, def->name,
                       g_strdup_printf (_("must be between %s and %s"), min, max));
        *decimal = *decimal || dec;
        return TRUE;
      }

    case GML_PARAM_COUNT:
      {
        g_autofree char *min = g_strdup_printf ("%" G_GUINT64_FORMAT, def->min);
        g_autofree char *max = g_strdup_printf ("%" G_GUINT64_FORMAT, def->max);

        if (type != G_TYPE_INT64)
          return fail (field, reason, def->name, g_strdup (_("must be a whole number")));
        if (json_node_get_int (node) < (gint64) def->min ||
            (guint64) json_node_get_int (node) > def->max)
          /* Translators: both %s are numbers. */
          return fail (field, reason, def->name,
                       g_strdup_printf (_("must be a whole number from %s to %s"), min, max));
        *value = (guint64) json_node_get_int (node);
        return TRUE;
      }

    case GML_PARAM_CHOICE:
      {
        g_auto(GStrv) words = g_strsplit (def->choices, "|", -1);
        g_autofree char *list = g_strjoinv (", ", words);
        int index;

        if (type != G_TYPE_STRING)
          /* Translators: %s is a list of words such as “reserved, unallocated”. */
          return fail (field, reason, def->name,
                       g_strdup_printf (_("must be one of: %s"), list));
        index = choice_index (def->choices, json_node_get_string (node));
        if (index < 0)
          /* Translators: the first %s is a word, the second a list of words. */
          return fail (field, reason, def->name,
                       g_strdup_printf (_("“%s” is not one of: %s"), json_node_get_string (node),
                                        list));
        *value = (guint64) index;
        return TRUE;
      }

    case GML_PARAM_BOOL:
    default:
      if (type != G_TYPE_BOOLEAN)
        return fail (field, reason, def->name, g_strdup (_("must be true or false")));
      *value = json_node_get_boolean (node);
      return TRUE;
    }
}

/* The default of a parameter, read as the bank would write it. */
static void
set_default (GmlPictureScript *e,
             guint             i)
{
  const GmlParamDef *def = &e->kind->params[i];
  gboolean dec = FALSE;

  switch (def->type)
    {
    case GML_PARAM_TEXT:
      g_free (e->texts[i]);
      e->texts[i] = g_strdup (def->def);
      break;
    case GML_PARAM_SIZE:
      if (!gml_parse_size (def->def, GML_SIZE_UNITS, &e->values[i], &dec))
        g_error ("bad default %s for %s", def->def, def->name);
      break;
    case GML_PARAM_COUNT:
      e->values[i] = g_ascii_strtoull (def->def, NULL, 10);
      break;
    case GML_PARAM_CHOICE:
      e->values[i] = (guint64) MAX (choice_index (def->choices, def->def), 0);
      break;
    case GML_PARAM_BOOL:
    default:
      e->values[i] = g_str_equal (def->def, "true");
      break;
    }
}

GmlPictureScript *
gml_picture_script_new_from_json (JsonNode  *node,
                                  char     **field,
                                  char     **reason)
{
  g_autoptr(GmlPictureScript) e = NULL;
  JsonObject *object;
  JsonNode *kind_node;
  const GmlKindDef *kind;
  g_autoptr(GList) members = NULL;

  g_return_val_if_fail (field != NULL && reason != NULL, NULL);
  *field = NULL;
  *reason = NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (field, reason, NULL,
            g_strdup (_("must be an object such as { \"kind\": \"rounding\", \"request\": \"11 "
                        "MiB\" }")));
      return NULL;
    }
  object = json_node_get_object (node);
  kind_node = json_object_get_member (object, "kind");
  if (kind_node == NULL || JSON_NODE_HOLDS_NULL (kind_node))
    {
      fail (field, reason, "kind", g_strdup (_("missing")));
      return NULL;
    }
  if (!JSON_NODE_HOLDS_VALUE (kind_node) || json_node_get_value_type (kind_node) != G_TYPE_STRING)
    {
      fail (field, reason, "kind", g_strdup (_("must be a string")));
      return NULL;
    }
  kind = find_kind (json_node_get_string (kind_node));
  if (kind == NULL)
    {
      g_autofree char *list = g_strjoinv (", ", (char **) kind_names ());

      fail (field, reason, "kind", g_strdup_printf (_("“%s” is not one of: %s"),
                                                    json_node_get_string (kind_node), list));
      return NULL;
    }

  e = g_new0 (GmlPictureScript, 1);
  e->kind = kind;

  /* Every member must be a parameter of this kind: a misspelt one would
   * otherwise be ignored in silence. */
  members = json_object_get_members (object);
  for (GList *l = members; l != NULL; l = l->next)
    if (!g_str_equal (l->data, "kind") && param_index (kind, l->data) < 0)
      {
        g_autoptr(GPtrArray) names = g_ptr_array_new ();
        g_autofree char *list = NULL;

        for (guint i = 0; i < n_params (kind); i++)
          g_ptr_array_add (names, (char *) kind->params[i].name);
        g_ptr_array_add (names, NULL);
        list = names->len > 1 ? g_strjoinv (", ", (char **) names->pdata) : g_strdup ("—");
        /* Translators: %s is the experiment's kind (the bank's "experiment" member), the
         * second %s a list of names. */
        fail (field, reason, l->data,
              g_strdup_printf (_("the “%s” experiment has no such parameter (it has: %s)"),
                               kind->name, list));
        return NULL;
      }

  for (guint i = 0; i < n_params (kind); i++)
    {
      const GmlParamDef *def = &kind->params[i];
      JsonNode *member = json_object_get_member (object, def->name);

      if (member == NULL || JSON_NODE_HOLDS_NULL (member))
        {
          if (def->def == NULL)
            {
              fail (field, reason, def->name, g_strdup (_("missing")));
              return NULL;
            }
          set_default (e, i);
          continue;
        }
      if (!read_value (def, member, &e->values[i], &e->texts[i], &e->decimal, field, reason))
        return NULL;
      e->given[i] = TRUE;
    }

  if (kind->check != NULL && !kind->check (e, field, reason))
    return NULL;

  return g_steal_pointer (&e);
}

GmlPictureScript *
gml_picture_script_new_default (const char *scenario)
{
  const GmlKindDef *kind = find_kind (scenario);
  GmlPictureScript *e;

  /* Only a kind whose every parameter has a default can stand for a scenario. */
  for (guint i = 0; kind != NULL && i < n_params (kind); i++)
    if (kind->params[i].def == NULL)
      kind = NULL;
  if (kind == NULL)
    kind = find_kind ("oom");
  e = g_new0 (GmlPictureScript, 1);
  e->kind = kind;
  for (guint i = 0; i < n_params (kind); i++)
    set_default (e, i);
  return e;
}

GmlPictureScript *
gml_picture_script_copy (const GmlPictureScript *self)
{
  GmlPictureScript *copy;

  if (self == NULL)
    return NULL;
  copy = g_memdup2 (self, sizeof *self);
  for (guint i = 0; i < GML_PICTURE_SCRIPT_MAX_PARAMS; i++)
    copy->texts[i] = g_strdup (self->texts[i]);
  return copy;
}

void
gml_picture_script_free (GmlPictureScript *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < GML_PICTURE_SCRIPT_MAX_PARAMS; i++)
    g_free (self->texts[i]);
  g_free (self);
}

const char *
gml_picture_script_get_lab_config (const GmlPictureScript *self)
{
  if (self == NULL || !g_str_equal (self->kind->name, "lab"))
    return NULL;
  return _gml_picture_script_text (self, "config");
}

const char *
gml_picture_script_get_kind (const GmlPictureScript *self)
{
  return self->kind->name;
}

static char *
value_to_string (const GmlParamDef *def,
                 guint64            value)
{
  switch (def->type)
    {
    case GML_PARAM_CHOICE:
      {
        g_auto(GStrv) words = g_strsplit (def->choices, "|", -1);

        return g_strdup (value < g_strv_length (words) ? words[value] : "?");
      }
    case GML_PARAM_BOOL:
      return g_strdup (value ? "true" : "false");
    case GML_PARAM_SIZE:
    case GML_PARAM_COUNT:
    default:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, value);
    }
}

char *
gml_picture_script_to_string (const GmlPictureScript *self)
{
  GString *out = g_string_new (self->kind->name);

  for (guint i = 0; i < n_params (self->kind); i++)
    {
      g_autofree char *value = self->kind->params[i].type == GML_PARAM_TEXT
                               ? g_strdup (self->texts[i] != NULL ? self->texts[i] : "")
                               : value_to_string (&self->kind->params[i], self->values[i]);

      g_string_append_printf (out, " %s=%s", self->kind->params[i].name, value);
    }
  if (self->decimal)
    g_string_append (out, " units=decimal");
  return g_string_free (out, FALSE);
}

void
gml_picture_script_to_json (const GmlPictureScript *self,
                            JsonBuilder            *builder)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "kind");
  json_builder_add_string_value (builder, self->kind->name);
  for (guint i = 0; i < n_params (self->kind); i++)
    {
      const GmlParamDef *def = &self->kind->params[i];

      json_builder_set_member_name (builder, def->name);
      switch (def->type)
        {
        case GML_PARAM_TEXT:
          json_builder_add_string_value (builder, self->texts[i] != NULL ? self->texts[i] : "");
          break;
        case GML_PARAM_CHOICE:
          {
            g_autofree char *word = value_to_string (def, self->values[i]);

            json_builder_add_string_value (builder, word);
          }
          break;
        case GML_PARAM_BOOL:
          json_builder_add_boolean_value (builder, self->values[i] != 0);
          break;
        case GML_PARAM_SIZE:
        case GML_PARAM_COUNT:
        default:
          json_builder_add_int_value (builder,
                                      (gint64) MIN (self->values[i], (guint64) G_MAXINT64));
          break;
        }
    }
  json_builder_end_object (builder);
}

GmlScenario *
gml_scenario_new (const char  *name,
                  GmlDevice   *device,
                  GError     **error)
{
  g_autoptr(GmlPictureScript) e = NULL;
  GmlScenario *sc;
  GmlScript r;

  g_return_val_if_fail (device != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!gml_scenario_name_is_known (name))
    {
      g_autofree char *list = g_strjoinv (", ", (char **) gml_scenario_names ());
      /* Translators: %s is a name, the second %s the list of known names. */
      g_set_error (error, GML_SCENARIO_ERROR, GML_SCENARIO_ERROR_UNKNOWN,
                   _("Unknown scenario “%s”. Known scenarios: %s."), name, list);
      return NULL;
    }

  /* The scenario's own numbers are its kind's defaults (batch 32 and 128, 16
   * layers): a question that names no picture script gets the same ones. */
  e = gml_picture_script_new_default (name);
  g_assert (g_str_equal (e->kind->name, name));

  gml_device_begin_run ();
  sc = _gml_scenario_create (name, device, &r);
  _gml_picture_script_begin_scenario (&r, e, 0);
  e->kind->scenario.story (&r, e);
  sc = _gml_scenario_finish (sc, &r, error);
  gml_device_end_run ();
  return sc;
}

GmlScenario *
gml_scenario_new_picture_script (const GmlPictureScript *self,
                                 GmlDevice              *device,
                                 GError                **error)
{
  GmlScenario *sc;
  GmlScript r;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (device != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* The experiment lab runs on a GPU of the configuration's size, its own. */
  if (g_str_equal (self->kind->name, "lab"))
    return _gml_lab_scenario_new (_gml_picture_script_text (self, "config"), error);

  gml_device_begin_run ();
  sc = _gml_scenario_create (self->kind->name, device, &r);
  sc->decimal = self->decimal;
  self->kind->script (&r, self);
  sc = _gml_scenario_finish (sc, &r, error);
  gml_device_end_run ();
  return sc;
}

GmlScenario *
gml_scenario_new_picture_script_or_simulate (const GmlPictureScript *self,
                                             GmlDevice              *device,
                                             GmlDevice             **fallback,
                                             char                  **why,
                                             GError                **error)
{
  g_autoptr(GError) local_error = NULL;
  GmlScenario *sc;

  g_return_val_if_fail (fallback != NULL && why != NULL, NULL);

  if (*fallback != NULL)
    return gml_scenario_new_picture_script (self, *fallback, error);

  sc = gml_scenario_new_picture_script (self, device, &local_error);
  if (sc == NULL && g_error_matches (local_error, GML_SCENARIO_ERROR, GML_SCENARIO_ERROR_DEVICE))
    {
      g_free (*why);
      *why = g_strdup (local_error->message);
      *fallback = gml_device_sim_new (GML_SCENARIO_SIM_CAPACITY, 0);
      g_clear_error (&local_error);
      sc = gml_scenario_new_picture_script (self, *fallback, &local_error);
    }
  if (sc == NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return sc;
}

/* The run in a worker, on its own copy of the picture script: the caller may let
 * go of the question (and of itself) while the run goes on. */
typedef struct
{
  GmlPictureScript *picture_script;
  GmlDevice        *device;
  GmlDevice        *fallback;       /* in: the caller's; out: a new one after a failure */
  char             *why;
} PictureRun;

static void
picture_run_free (gpointer data)
{
  PictureRun *run = data;

  g_clear_pointer (&run->picture_script, gml_picture_script_free);
  g_clear_pointer (&run->device, gml_device_unref);
  g_clear_pointer (&run->fallback, gml_device_unref);
  g_free (run->why);
  g_free (run);
}

static void
picture_run_thread (GTask        *task,
                       gpointer      source_object,
                       gpointer      task_data,
                       GCancellable *cancellable)
{
  PictureRun *run = task_data;
  GError *error = NULL;
  GmlScenario *sc;

  /* Superseded while it waited for the device (runs come one after another). */
  if (g_task_return_error_if_cancelled (task))
    return;
  if (cancellable != NULL)
    g_cancellable_push_current (cancellable);
  sc = gml_scenario_new_picture_script_or_simulate (run->picture_script, run->device,
                                                    &run->fallback, &run->why, &error);
  if (cancellable != NULL)
    g_cancellable_pop_current (cancellable);
  if (sc == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, sc, (GDestroyNotify) gml_scenario_free);
}

void
gml_scenario_new_picture_script_async (gpointer                source_object,
                                       const GmlPictureScript *self,
                                       GmlDevice              *device,
                                       GmlDevice              *fallback,
                                       GCancellable           *cancellable,
                                       GAsyncReadyCallback     callback,
                                       gpointer                user_data)
{
  g_autoptr(GTask) task = NULL;
  PictureRun *run;

  g_return_if_fail (self != NULL);
  g_return_if_fail (device != NULL || fallback != NULL);

  run = g_new0 (PictureRun, 1);
  run->picture_script = gml_picture_script_copy (self);
  run->device = device != NULL ? gml_device_ref (device) : NULL;
  run->fallback = fallback != NULL ? gml_device_ref (fallback) : NULL;
  task = g_task_new (source_object, cancellable, callback, user_data);
  g_task_set_source_tag (task, gml_scenario_new_picture_script_async);
  g_task_set_task_data (task, run, picture_run_free);
  g_task_run_in_thread (task, picture_run_thread);
}

GmlScenario *
gml_scenario_new_picture_script_finish (GAsyncResult  *result,
                                        GmlDevice    **fallback,
                                        char         **why,
                                        GError       **error)
{
  PictureRun *run;

  g_return_val_if_fail (G_IS_TASK (result), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        gml_scenario_new_picture_script_async, NULL);

  run = g_task_get_task_data (G_TASK (result));
  if (fallback != NULL)
    *fallback = run->fallback != NULL ? gml_device_ref (run->fallback) : NULL;
  if (why != NULL)
    *why = g_strdup (run->why);
  return g_task_propagate_pointer (G_TASK (result), error);
}

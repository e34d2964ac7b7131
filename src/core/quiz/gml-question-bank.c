/* gml-question-bank.c — loading, validating, translating and shuffling questions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-question-bank"

#include "config.h"

#include "gml-i18n.h"
#include <json-glib/json-glib.h>

#include "gml-input.h"
#include "gml-question-bank.h"

struct _GmlQuestionBank
{
  GPtrArray  *questions;   /* GmlQuestion*, owned */
  GHashTable *by_id;       /* id -> index + 1 */
};

G_DEFINE_QUARK (gml-bank-error-quark, gml_bank_error)

/* A question's "scenario" is one of the named scenarios, the lab's list of them. */
gboolean
gml_scenario_is_known (const char *scenario)
{
  return gml_scenario_name_is_known (scenario);
}

static void
gml_question_free (GmlQuestion *q)
{
  g_free (q->id);
  g_free (q->topic);
  g_free (q->scenario);
  for (guint i = 0; i < q->n_sources; i++)
    {
      g_free (q->sources[i].title);
      g_free (q->sources[i].url);
    }
  g_free (q->sources);
  g_clear_pointer (&q->picture_script, gml_picture_script_free);
  g_free (q->text);
  g_free (q->explanation);
  g_free (q->origin);
  for (guint i = 0; i < GML_N_OPTIONS; i++)
    {
      g_free (q->options[i].id);
      g_free (q->options[i].text);
      g_free (q->options[i].feedback);
    }
  g_free (q);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlQuestion, gml_question_free)

GmlQuestionBank *
gml_question_bank_new (void)
{
  GmlQuestionBank *self = g_new0 (GmlQuestionBank, 1);

  self->questions = g_ptr_array_new_with_free_func ((GDestroyNotify) gml_question_free);
  self->by_id = g_hash_table_new (g_str_hash, g_str_equal);
  return self;
}

void
gml_question_bank_free (GmlQuestionBank *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->by_id);
  g_ptr_array_unref (self->questions);
  g_free (self);
}

/* Every complaint names the file, the question and the field, so a teacher with a
 * broken bank knows exactly where to look. */
static gboolean G_GNUC_PRINTF (5, 6)
invalid (GError    **error,
         const char *origin,
         const char *question,
         const char *field,
         const char *format,
         ...)
{
  g_autofree char *reason = NULL;
  va_list args;

  va_start (args, format);
  reason = g_strdup_vprintf (format, args);
  va_end (args);

  /* Translators: %1$s is a file, %2$s a question id, %3$s a field name, %4$s the problem. */
  g_set_error (error, GML_BANK_ERROR, GML_BANK_ERROR_INVALID,
               _("%1$s: question “%2$s”, field “%3$s”: %4$s"),
               origin, question, field, reason);
  return FALSE;
}

static gboolean
id_is_valid (const char *id)
{
  if (id == NULL || *id == '\0')
    return FALSE;
  for (const char *p = id; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_' && *p != '.')
      return FALSE;
  return TRUE;
}

static gboolean
is_blank (const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isspace (*p))
      return FALSE;
  return TRUE;
}

static gboolean
read_string (JsonObject  *object,
             const char  *member,
             gboolean     required,
             char       **out,
             const char  *origin,
             const char  *qid,
             const char  *field,
             GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);
  const char *value;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (!required)
        return TRUE;
      return invalid (error, origin, qid, field, "%s", _("missing"));
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return invalid (error, origin, qid, field, "%s", _("must be a string"));

  value = json_node_get_string (node);
  if (value == NULL || is_blank (value))
    return invalid (error, origin, qid, field, "%s", _("must not be empty"));

  *out = g_strdup (value);
  return TRUE;
}

/* Placeholders such as {c} must name an option of the same question. */
static gboolean
check_placeholders (GmlQuestion *q,
                    const char  *text,
                    const char  *field,
                    GError     **error)
{
  for (const char *p = strchr (text, '{'); p != NULL; p = strchr (p + 1, '{'))
    {
      const char *end = strchr (p, '}');
      g_autofree char *key = NULL;
      gboolean found = FALSE;

      if (end == NULL)
        break;
      key = g_strndup (p + 1, end - p - 1);
      for (guint i = 0; i < GML_N_OPTIONS; i++)
        found |= g_str_equal (key, q->options[i].id);
      if (!found)
        return invalid (error, q->origin, q->id, field,
                        _("names option “%s”, which this question does not have"), key);
    }
  return TRUE;
}

/* An https:// address with a host name, no user name and nothing a browser would have
 * to guess at (spaces, quotes, angle brackets, control characters). */
static gboolean
https_url_is_valid (const char *url)
{
  g_autoptr(GUri) uri = NULL;
  const char *host;
  gboolean has_dot = FALSE;

  if (!g_str_has_prefix (url, "https://") || strlen (url) > 2000)
    return FALSE;
  for (const char *p = url; *p != '\0'; p++)
    if (*p <= ' ' || *p >= 0x7f || strchr ("\"<>\\^`{|}", *p) != NULL)
      return FALSE;

  uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL || g_uri_get_userinfo (uri) != NULL || g_uri_get_port (uri) != -1)
    return FALSE;
  host = g_uri_get_host (uri);
  if (host == NULL || *host == '\0' || *host == '.' || *host == '-')
    return FALSE;
  for (const char *p = host; *p != '\0'; p++)
    {
      if (!g_ascii_isalnum (*p) && *p != '-' && *p != '.')
        return FALSE;
      has_dot |= *p == '.';
    }
  return has_dot;
}

/* "arXiv:" and an identifier of either scheme: 1910.02054 (with an optional version,
 * 1910.02054v3) or the old archive/number form, cs/0112017. */
static const char *
arxiv_id (const char *url)
{
  const char *id;
  const char *p;
  guint digits = 0;

  if (g_ascii_strncasecmp (url, "arXiv:", 6) != 0)
    return NULL;
  id = url + 6;

  for (p = id; g_ascii_isdigit (*p); p++)
    digits++;
  if (digits == 4 && *p == '.')
    {
      digits = 0;
      for (p++; g_ascii_isdigit (*p); p++)
        digits++;
      if (digits != 4 && digits != 5)
        return NULL;
    }
  else
    {
      for (p = id; g_ascii_islower (*p) || *p == '-'; p++)
        ;
      if (p == id)
        return NULL;
      if (*p == '.')
        for (p++; g_ascii_isupper (*p); p++)
          ;
      if (*p++ != '/')
        return NULL;
      for (digits = 0; g_ascii_isdigit (*p); p++)
        digits++;
      if (digits != 7)
        return NULL;
    }
  if (*p == 'v')
    {
      const char *version = ++p;

      while (g_ascii_isdigit (*p))
        p++;
      if (p == version)
        return NULL;
    }
  return *p == '\0' ? id : NULL;
}

#define PYTORCH_REPO "pytorch/pytorch/"

/* "pytorch/pytorch/" and a relative path of plain names: no "." or ".." parts, no
 * empty parts, nothing but letters, digits, "-", "_" and ".". */
static const char *
pytorch_path (const char *url)
{
  const char *path;
  gboolean part_start = TRUE;

  if (!g_str_has_prefix (url, PYTORCH_REPO))
    return NULL;
  path = url + strlen (PYTORCH_REPO);
  if (*path == '\0' || strlen (path) > 500)
    return NULL;

  for (const char *p = path; *p != '\0'; p++)
    {
      if (*p == '/')
        {
          if (part_start)
            return NULL;
          part_start = TRUE;
          continue;
        }
      if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_' && *p != '.')
        return NULL;
      if (part_start && *p == '.' && (p[1] == '/' || p[1] == '\0' ||
                                      (p[1] == '.' && (p[2] == '/' || p[2] == '\0'))))
        return NULL;
      part_start = FALSE;
    }
  return part_start ? NULL : path;
}

gboolean
gml_source_url_is_valid (const char *url)
{
  return url != NULL && (https_url_is_valid (url) || arxiv_id (url) != NULL ||
                         pytorch_path (url) != NULL);
}

/* The address a browser opens: the https:// address itself, the arXiv abstract page,
 * or the file on GitHub. NULL when @source's url is not valid. */
char *
gml_source_dup_link (const GmlSource *source)
{
  const char *part;

  g_return_val_if_fail (source != NULL, NULL);

  if (source->url == NULL)
    return NULL;
  if (https_url_is_valid (source->url))
    return g_strdup (source->url);
  if ((part = arxiv_id (source->url)) != NULL)
    return g_strconcat ("https://arxiv.org/abs/", part, NULL);
  if ((part = pytorch_path (source->url)) != NULL)
    return g_strconcat ("https://github.com/pytorch/pytorch/blob/main/", part, NULL);
  return NULL;
}

/* "sources": [{"title": …, "url": …}, …], optional in a user's bank, required in the
 * built-in one. */
static gboolean
parse_sources (GmlQuestion *q,
               JsonObject  *object,
               GError     **error)
{
  JsonNode *member = json_object_get_member (object, "sources");
  JsonArray *array;
  guint n;

  if (member == NULL || JSON_NODE_HOLDS_NULL (member))
    {
      if (q->builtin)
        return invalid (error, q->origin, q->id, "sources", "%s",
                        _("every built-in question must name at least one source"));
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_ARRAY (member))
    return invalid (error, q->origin, q->id, "sources", "%s", _("must be a list of sources"));

  array = json_node_get_array (member);
  n = json_array_get_length (array);
  if (n == 0)
    return invalid (error, q->origin, q->id, "sources", "%s",
                    _("must name at least one source, or be left out"));
  if (n > GML_MAX_SOURCES)
    return invalid (error, q->origin, q->id, "sources",
                    _("names %u sources; at most %u are allowed"), n, GML_MAX_SOURCES);

  q->sources = g_new0 (GmlSource, n);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      GmlSource *source = &q->sources[q->n_sources];
      g_autofree char *field = g_strdup_printf ("sources[%u]", i);
      g_autofree char *title_field = g_strdup_printf ("sources[%u].title", i);
      g_autofree char *url_field = g_strdup_printf ("sources[%u].url", i);
      JsonObject *source_object;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        return invalid (error, q->origin, q->id, field, "%s",
                        _("each source must be an object with a “title” and a “url”"));
      source_object = json_node_get_object (node);

      /* Counted before reading, so a half-read source is freed with the question. */
      q->n_sources++;
      if (!read_string (source_object, "title", TRUE, &source->title, q->origin, q->id,
                        title_field, error) ||
          !read_string (source_object, "url", TRUE, &source->url, q->origin, q->id,
                        url_field, error))
        return FALSE;
      if (!gml_source_url_is_valid (source->url))
        return invalid (error, q->origin, q->id, url_field,
                        _("“%s” is neither an https:// address, nor an arXiv id such as "
                          "arXiv:1910.02054, nor a file of PyTorch such as "
                          "pytorch/pytorch/c10/cuda/CUDACachingAllocator.cpp"),
                        source->url);
    }
  return TRUE;
}

static GmlQuestion *
parse_question (JsonNode   *node,
                guint       index,
                const char *origin,
                gboolean    builtin,
                GError    **error)
{
  g_autoptr(GmlQuestion) q = g_new0 (GmlQuestion, 1);
  g_autofree char *position = g_strdup_printf ("#%u", index + 1);
  JsonObject *object;
  JsonNode *member;
  JsonArray *options;
  guint n_correct = 0;

  q->origin = g_strdup (origin);
  q->builtin = builtin;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      invalid (error, origin, position, "questions", "%s", _("each question must be an object"));
      return NULL;
    }
  object = json_node_get_object (node);

  if (!read_string (object, "id", TRUE, &q->id, origin, position, "id", error))
    return NULL;
  if (!id_is_valid (q->id))
    {
      invalid (error, origin, position, "id", "%s",
               _("may only contain letters, digits, “-”, “_” and “.”"));
      return NULL;
    }

  if (!read_string (object, "topic", TRUE, &q->topic, origin, q->id, "topic", error) ||
      !read_string (object, "text", TRUE, &q->text, origin, q->id, "text", error) ||
      !read_string (object, "explanation", TRUE, &q->explanation, origin, q->id, "explanation",
                    error) ||
      !read_string (object, "scenario", TRUE, &q->scenario, origin, q->id, "scenario", error) ||
      !parse_sources (q, object, error))
    return NULL;
  /* Banks of earlier versions (and the lab's own imports, before "imported_from") may
   * have a free-text "source"; it is accepted and not shown. */

  if (!gml_scenario_is_known (q->scenario))
    {
      g_autofree char *list = g_strjoinv (", ", (char **) gml_scenario_names ());
      invalid (error, origin, q->id, "scenario", _("“%s” is not one of: %s"), q->scenario, list);
      return NULL;
    }

  /* The picture script beside the question: its own, or its scenario's. */
  member = json_object_get_member (object, "experiment");
  if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
    {
      g_autofree char *field = NULL;
      g_autofree char *reason = NULL;

      q->picture_script = gml_picture_script_new_from_json (member, &field, &reason);
      if (q->picture_script == NULL)
        {
          invalid (error, origin, q->id, field, "%s", reason);
          return NULL;
        }
    }
  else
    q->picture_script = gml_picture_script_new_default (q->scenario);

  member = json_object_get_member (object, "difficulty");
  if (member == NULL)
    {
      invalid (error, origin, q->id, "difficulty", "%s", _("missing"));
      return NULL;
    }
  if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_INT64 ||
      json_node_get_int (member) < 1 || json_node_get_int (member) > 3)
    {
      invalid (error, origin, q->id, "difficulty", "%s", _("must be 1, 2 or 3"));
      return NULL;
    }
  q->difficulty = (int) json_node_get_int (member);

  member = json_object_get_member (object, "options");
  if (member == NULL || !JSON_NODE_HOLDS_ARRAY (member))
    {
      invalid (error, origin, q->id, "options", "%s", _("must be a list of four options"));
      return NULL;
    }
  options = json_node_get_array (member);
  if (json_array_get_length (options) != GML_N_OPTIONS)
    {
      invalid (error, origin, q->id, "options", _("must have exactly four options, not %u"),
               json_array_get_length (options));
      return NULL;
    }

  for (guint i = 0; i < GML_N_OPTIONS; i++)
    {
      JsonNode *option_node = json_array_get_element (options, i);
      GmlOption *option = &q->options[i];
      g_autofree char *field = g_strdup_printf ("options[%u]", i);
      g_autofree char *text_field = g_strdup_printf ("options[%u].text", i);
      g_autofree char *feedback_field = g_strdup_printf ("options[%u].feedback", i);
      g_autofree char *id_field = g_strdup_printf ("options[%u].id", i);
      g_autofree char *correct_field = g_strdup_printf ("options[%u].correct", i);
      JsonObject *option_object;
      JsonNode *correct;

      if (!JSON_NODE_HOLDS_OBJECT (option_node))
        {
          invalid (error, origin, q->id, field, "%s", _("each option must be an object"));
          return NULL;
        }
      option_object = json_node_get_object (option_node);

      if (!read_string (option_object, "id", TRUE, &option->id, origin, q->id, id_field, error) ||
          !read_string (option_object, "text", TRUE, &option->text, origin, q->id, text_field,
                        error) ||
          !read_string (option_object, "feedback", TRUE, &option->feedback, origin, q->id,
                        feedback_field, error))
        return NULL;

      if (!id_is_valid (option->id))
        {
          invalid (error, origin, q->id, id_field, "%s",
                   _("may only contain letters, digits, “-”, “_” and “.”"));
          return NULL;
        }
      for (guint j = 0; j < i; j++)
        if (g_str_equal (q->options[j].id, option->id))
          {
            invalid (error, origin, q->id, id_field, _("“%s” is used by two options"), option->id);
            return NULL;
          }

      correct = json_object_get_member (option_object, "correct");
      if (correct == NULL || !JSON_NODE_HOLDS_VALUE (correct) ||
          json_node_get_value_type (correct) != G_TYPE_BOOLEAN)
        {
          invalid (error, origin, q->id, correct_field, "%s", _("must be true or false"));
          return NULL;
        }
      option->correct = json_node_get_boolean (correct);
      n_correct += option->correct ? 1 : 0;
    }

  if (n_correct != 1)
    {
      invalid (error, origin, q->id, "options",
               _("exactly one option must be correct, but %u are"), n_correct);
      return NULL;
    }

  if (!check_placeholders (q, q->explanation, "explanation", error))
    return NULL;
  for (guint i = 0; i < GML_N_OPTIONS; i++)
    {
      g_autofree char *feedback_field = g_strdup_printf ("options[%u].feedback", i);

      if (!check_placeholders (q, q->options[i].feedback, feedback_field, error))
        return NULL;
    }

  return g_steal_pointer (&q);
}

gboolean
gml_question_bank_load_data (GmlQuestionBank *self,
                             const char      *data,
                             gsize            length,
                             const char      *origin,
                             gboolean         builtin,
                             GError         **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GPtrArray) parsed = g_ptr_array_new_with_free_func ((GDestroyNotify) gml_question_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;
  JsonNode *questions;
  JsonArray *array;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (origin != NULL, FALSE);

  if (length == 0)
    {
      g_set_error (error, GML_BANK_ERROR, GML_BANK_ERROR_PARSE,
                   _("%s: the file is empty"), origin);
      return FALSE;
    }
  if (!g_utf8_validate_len (data, length, NULL))
    {
      g_set_error (error, GML_BANK_ERROR, GML_BANK_ERROR_PARSE,
                   _("%s: the file is not valid UTF-8 text"), origin);
      return FALSE;
    }
  if (!gml_input_check_json_depth (data, length, GML_MAX_JSON_DEPTH, &local_error))
    {
      g_set_error (error, GML_BANK_ERROR, GML_BANK_ERROR_PARSE,
                   _("%s: not a valid question file: %s"), origin, local_error->message);
      return FALSE;
    }
  if (!json_parser_load_from_data (parser, data, length, &local_error))
    {
      g_set_error (error, GML_BANK_ERROR, GML_BANK_ERROR_PARSE,
                   _("%s: not a valid question file: %s"), origin, local_error->message);
      return FALSE;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
      (questions = json_object_get_member (json_node_get_object (root), "questions")) == NULL ||
      !JSON_NODE_HOLDS_ARRAY (questions))
    {
      g_set_error (error, GML_BANK_ERROR, GML_BANK_ERROR_PARSE,
                   _("%s: expected an object with a “questions” list"), origin);
      return FALSE;
    }

  array = json_node_get_array (questions);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      GmlQuestion *q = parse_question (json_array_get_element (array, i), i, origin, builtin,
                                       error);

      if (q == NULL)
        return FALSE;
      if (g_hash_table_contains (self->by_id, q->id) || g_hash_table_contains (seen, q->id))
        {
          invalid (error, origin, q->id, "id", "%s", _("another question already has this id"));
          gml_question_free (q);
          return FALSE;
        }
      g_hash_table_add (seen, q->id);
      g_ptr_array_add (parsed, q);
    }

  /* All or nothing: a file with one bad question adds none of its questions. */
  for (guint i = 0; i < parsed->len; i++)
    {
      GmlQuestion *q = g_ptr_array_index (parsed, i);

      g_ptr_array_add (self->questions, q);
      g_hash_table_insert (self->by_id, q->id, GUINT_TO_POINTER (self->questions->len));
    }
  g_ptr_array_set_free_func (parsed, NULL);

  return TRUE;
}

gboolean
gml_question_bank_load_file (GmlQuestionBank *self,
                             GFile           *file,
                             gboolean         builtin,
                             GError         **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *origin = g_file_get_parse_name (file);
  g_autoptr(GError) local_error = NULL;
  gsize length = 0;

  /* A local file is read with a size limit; a big one is refused before it is read. */
  if (g_file_peek_path (file) != NULL
      ? !gml_input_read_file (g_file_peek_path (file), GML_MAX_BANK_SIZE, &contents, &length,
                              &local_error)
      : !g_file_load_contents (file, NULL, &contents, &length, NULL, &local_error))
    {
      g_set_error (error, GML_BANK_ERROR, GML_BANK_ERROR_PARSE,
                   _("%s: could not be read: %s"), origin, local_error->message);
      return FALSE;
    }
  return gml_question_bank_load_data (self, contents, length, origin, builtin, error);
}

/* Moves every question of @other into @self, all or none: a question whose id
 * @self already has keeps both banks as they were. A bank read in a worker (an
 * import) joins the window's bank this way, without being parsed again. */
gboolean
gml_question_bank_take_all (GmlQuestionBank *self,
                            GmlQuestionBank *other,
                            GError         **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (other != NULL && other != self, FALSE);

  for (guint i = 0; i < other->questions->len; i++)
    {
      const GmlQuestion *q = g_ptr_array_index (other->questions, i);

      if (g_hash_table_contains (self->by_id, q->id))
        {
          invalid (error, q->origin, q->id, "id", "%s", _("another question already has this id"));
          return FALSE;
        }
    }
  for (guint i = 0; i < other->questions->len; i++)
    {
      GmlQuestion *q = g_ptr_array_index (other->questions, i);

      g_ptr_array_add (self->questions, q);
      g_hash_table_insert (self->by_id, q->id, GUINT_TO_POINTER (self->questions->len));
    }
  g_hash_table_remove_all (other->by_id);
  g_ptr_array_set_free_func (other->questions, NULL);
  g_ptr_array_set_size (other->questions, 0);
  g_ptr_array_set_free_func (other->questions, (GDestroyNotify) gml_question_free);
  return TRUE;
}

gboolean
gml_question_bank_load_builtin (GmlQuestionBank *self,
                                GError         **error)
{
  g_autoptr(GBytes) bytes = NULL;
  gsize length = 0;
  const char *data;

  bytes = g_resources_lookup_data (RESOURCE_BASE "/questions/gpu-memory.json",
                                   G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (bytes == NULL)
    return FALSE;
  data = g_bytes_get_data (bytes, &length);
  return gml_question_bank_load_data (self, data, length, "gpu-memory.json", TRUE, error);
}

char *
gml_user_questions_dir (void)
{
  return g_build_filename (g_get_user_data_dir (), GETTEXT_PACKAGE, "questions", NULL);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Loads every *.json in @directory, in name order. A broken file is skipped as a whole
 * and its message appended to @errors; the others still load. */
guint
gml_question_bank_load_user_dir (GmlQuestionBank *self,
                                 const char      *directory,
                                 GPtrArray       *errors)
{
  g_autoptr(GDir) dir = g_dir_open (directory, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  guint before = self->questions->len;
  const char *name;

  if (dir == NULL)
    return 0;

  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".json"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (directory, g_ptr_array_index (names, i), NULL);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GError) error = NULL;

      if (!gml_question_bank_load_file (self, file, FALSE, &error) && errors != NULL)
        g_ptr_array_add (errors, g_strdup (error->message));
    }

  return self->questions->len - before;
}

guint
gml_question_bank_get_n_questions (GmlQuestionBank *self)
{
  return self->questions->len;
}

const GmlQuestion *
gml_question_bank_get (GmlQuestionBank *self,
                       guint            index)
{
  g_return_val_if_fail (index < self->questions->len, NULL);
  return g_ptr_array_index (self->questions, index);
}

int
gml_question_bank_index_of (GmlQuestionBank *self,
                            const char      *id)
{
  return GPOINTER_TO_INT (g_hash_table_lookup (self->by_id, id)) - 1;
}

const GmlQuestion *
gml_question_bank_lookup (GmlQuestionBank *self,
                          const char      *id)
{
  int index = gml_question_bank_index_of (self, id);

  return index < 0 ? NULL : g_ptr_array_index (self->questions, index);
}

/* Topics in the order they first appear (source strings). */
GPtrArray *
gml_question_bank_dup_topics (GmlQuestionBank *self)
{
  GPtrArray *topics = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < self->questions->len; i++)
    {
      const GmlQuestion *q = g_ptr_array_index (self->questions, i);

      if (!g_ptr_array_find_with_equal_func (topics, q->topic, g_str_equal, NULL))
        g_ptr_array_add (topics, g_strdup (q->topic));
    }
  return topics;
}

/* Indexes (guint) of the questions of @topic (NULL: all) and @difficulty (0: all). */
GArray *
gml_question_bank_filter (GmlQuestionBank *self,
                          const char      *topic,
                          int              difficulty)
{
  GArray *indexes = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < self->questions->len; i++)
    {
      const GmlQuestion *q = g_ptr_array_index (self->questions, i);

      if (topic != NULL && *topic != '\0' && !g_str_equal (topic, q->topic))
        continue;
      if (difficulty != 0 && difficulty != q->difficulty)
        continue;
      g_array_append_val (indexes, i);
    }
  return indexes;
}

const char *
gml_question_translate (const GmlQuestion *question,
                        const char        *source)
{
  if (question->builtin)
    return gml_i18n_gettext (source);
  return source;
}

char
gml_option_letter (guint shown)
{
  g_return_val_if_fail (shown < GML_N_OPTIONS, '?');
  return 'a' + shown;
}

void
gml_question_identity_order (guint order[GML_N_OPTIONS])
{
  for (guint i = 0; i < GML_N_OPTIONS; i++)
    order[i] = i;
}

/* Fisher–Yates over the four positions. */
void
gml_question_shuffle_order (guint  order[GML_N_OPTIONS],
                            GRand *rand)
{
  gml_question_identity_order (order);
  for (guint i = GML_N_OPTIONS - 1; i > 0; i--)
    {
      guint j = g_rand_int_range (rand, 0, i + 1);
      guint tmp = order[i];

      order[i] = order[j];
      order[j] = tmp;
    }
}

guint
gml_question_correct_position (const GmlQuestion *question,
                               const guint        order[GML_N_OPTIONS])
{
  for (guint shown = 0; shown < GML_N_OPTIONS; shown++)
    if (question->options[order[shown]].correct)
      return shown;
  g_return_val_if_reached (0);
}

/* Translates @source and resolves {a}..{d} to the letters the options have on screen. */
char *
gml_question_format (const GmlQuestion *question,
                     const char        *source,
                     const guint        order[GML_N_OPTIONS])
{
  const char *text = gml_question_translate (question, source);
  GString *out = g_string_sized_new (strlen (text) + 8);
  const char *p = text;

  while (*p != '\0')
    {
      const char *end;
      gboolean replaced = FALSE;

      if (*p == '{' && (end = strchr (p, '}')) != NULL)
        {
          for (guint shown = 0; shown < GML_N_OPTIONS; shown++)
            {
              const char *id = question->options[order[shown]].id;

              if (strlen (id) == (gsize) (end - p - 1) && strncmp (p + 1, id, end - p - 1) == 0)
                {
                  g_string_append_c (out, gml_option_letter (shown));
                  p = end + 1;
                  replaced = TRUE;
                  break;
                }
            }
        }
      if (!replaced)
        g_string_append_c (out, *p++);
    }

  return g_string_free (out, FALSE);
}

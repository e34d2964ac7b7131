/* gml-moodle-import.c — imported questions as read, checked and turned into the lab's bank JSON.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-moodle"

#include "config.h"

#include "gml-i18n.h"
#include <json-glib/json-glib.h>
#include <string.h>

#include "gml-moodle-private.h"

G_DEFINE_QUARK (gml-moodle-error-quark, gml_moodle_error)

/* g_set_str() is GLib 2.76; this is 2.74. */
void
_gml_moodle_replace_str (char       **target,
                         const char  *value)
{
  char *copy = g_strdup (value);

  g_free (*target);
  *target = copy;
}

static void
option_free (GmlMoodleOption *option)
{
  g_free (option->text);
  g_free (option->feedback);
  g_free (option);
}

static void
source_free (GmlSource *source)
{
  g_free (source->title);
  g_free (source->url);
  g_free (source);
}

GmlMoodleImported *
_gml_moodle_imported_new (guint line)
{
  GmlMoodleImported *q = g_new0 (GmlMoodleImported, 1);

  q->line = line;
  q->options = g_ptr_array_new_with_free_func ((GDestroyNotify) option_free);
  q->sources = g_ptr_array_new_with_free_func ((GDestroyNotify) source_free);
  return q;
}

void
_gml_moodle_imported_free (GmlMoodleImported *q)
{
  g_free (q->id);
  g_free (q->topic);
  g_free (q->text);
  g_free (q->explanation);
  g_free (q->scenario);
  g_ptr_array_unref (q->options);
  g_ptr_array_unref (q->sources);
  g_free (q);
}

gboolean
_gml_moodle_fail (GError    **error,
                  int         code,
                  const char *origin,
                  guint       line,
                  const char *format,
                  ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  /* Like a compiler: FILE:LINE: problem. */
  g_set_error (error, GML_MOODLE_ERROR, code, "%s:%u: %s", origin, line, message);
  return FALSE;
}

/* Reads a tag (difficulty-N, scenario-X; others are kept by Moodle and ignored here). */
gboolean
_gml_moodle_apply_tag (GmlMoodleImported  *q,
                       const char         *tag,
                       const char         *origin,
                       guint               line,
                       GError            **error)
{
  if (g_ascii_strncasecmp (tag, "difficulty-", 11) == 0)
    {
      const char *n = tag + 11;

      if (!(n[0] >= '1' && n[0] <= '3' && n[1] == '\0'))
        return _gml_moodle_fail (error, GML_MOODLE_ERROR_INVALID, origin, line,
                                 _("the tag “%s” must be difficulty-1, difficulty-2 or "
                                   "difficulty-3"), tag);
      q->difficulty = n[0] - '0';
    }
  else if (g_ascii_strncasecmp (tag, "scenario-", 9) == 0)
    {
      g_free (q->scenario);
      q->scenario = g_strdup (tag + 9);
    }
  return TRUE;
}

/* The last level of a category path, "//" read as a "/" inside a name. */
char *
_gml_moodle_category_topic (const char *path)
{
  g_autoptr(GString) part = g_string_new (NULL);

  for (const char *p = path; *p != '\0'; p++)
    {
      if (p[0] == '/' && p[1] == '/')
        {
          g_string_append_c (part, '/');
          p++;
        }
      else if (*p == '/')
        g_string_truncate (part, 0);
      else
        g_string_append_c (part, *p);
    }
  g_strstrip (part->str);
  part->len = strlen (part->str);
  return part->len > 0 ? g_string_free (g_steal_pointer (&part), FALSE) : NULL;
}

static gboolean
id_char_ok (char c)
{
  return g_ascii_isalnum (c) || c == '-' || c == '_' || c == '.';
}

static char *
sanitize_id (const char *text)
{
  g_autoptr(GString) id = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    {
      char c = id_char_ok (*p) ? *p : '-';

      if (c == '-' && id->len > 0 && id->str[id->len - 1] == '-')
        continue;
      g_string_append_c (id, c);
    }
  while (id->len > 0 && id->str[id->len - 1] == '-')
    g_string_truncate (id, id->len - 1);
  return g_string_free (g_steal_pointer (&id), FALSE);
}

static gboolean
is_valid_id (const char *text)
{
  if (text == NULL || *text == '\0')
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (!id_char_ok (*p))
      return FALSE;
  return TRUE;
}

/* Minimal HTML to text for what Moodle editors write: <br> and paragraph breaks
 * become new lines, other tags go, entities are decoded. Raw line breaks in HTML
 * are only layout, so they become spaces. */
char *
_gml_moodle_html_to_text (const char *html)
{
  g_autoptr(GString) out = g_string_new (NULL);
  const char *p = html;

  while (*p != '\0')
    {
      if (*p == '<')
        {
          const char *end = strchr (p, '>');
          g_autofree char *tag = NULL;

          if (end == NULL)
            {
              g_string_append (out, p);
              break;
            }
          tag = g_ascii_strdown (p + 1, end - p - 1);
          g_strstrip (tag);
          if (g_str_has_prefix (tag, "br") && (tag[2] == '\0' || tag[2] == '/' || tag[2] == ' '))
            g_string_append_c (out, '\n');
          else if (g_str_has_prefix (tag, "li") && (tag[2] == '\0' || tag[2] == ' '))
            {
              /* A list item becomes a line of its own starting with "- ". */
              if (out->len > 0 && out->str[out->len - 1] != '\n')
                g_string_append_c (out, '\n');
              g_string_append (out, "- ");
            }
          else if (g_str_equal (tag, "/p") || g_str_equal (tag, "/div"))
            {
              if (out->len > 0)
                g_string_append (out, "\n\n");
            }
          p = end + 1;
        }
      else if (*p == '&')
        {
          static const struct { const char *name; const char *text; } entities[] = {
            { "&lt;", "<" }, { "&gt;", ">" }, { "&amp;", "&" }, { "&quot;", "\"" },
            { "&apos;", "'" }, { "&nbsp;", "\xC2\xA0" },
          };
          gboolean done = FALSE;

          for (guint i = 0; i < G_N_ELEMENTS (entities) && !done; i++)
            if (g_str_has_prefix (p, entities[i].name))
              {
                g_string_append (out, entities[i].text);
                p += strlen (entities[i].name);
                done = TRUE;
              }
          if (!done && p[1] == '#')
            {
              char *end = NULL;
              gunichar c = p[2] == 'x' || p[2] == 'X'
                ? (gunichar) g_ascii_strtoull (p + 3, &end, 16)
                : (gunichar) g_ascii_strtoull (p + 2, &end, 10);

              if (end != NULL && *end == ';' && g_unichar_validate (c) && c != 0)
                {
                  g_string_append_unichar (out, c);
                  p = end + 1;
                  done = TRUE;
                }
            }
          if (!done)
            g_string_append_c (out, *p++);
        }
      else if (*p == '\n' || *p == '\r')
        {
          g_string_append_c (out, ' ');
          p++;
        }
      else
        g_string_append_c (out, *p++);
    }

  /* Paragraph ends leave line breaks at the end. */
  g_strstrip (out->str);
  out->len = strlen (out->str);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Reads "- TITLE: URL" (URL being a source the bank accepts); NULL otherwise. */
static GmlSource *
parse_source_line (const char *line)
{
  g_autofree char *title = NULL;
  const char *space;
  const char *url;
  gsize title_length;

  if (!g_str_has_prefix (line, "- "))
    return NULL;
  space = strrchr (line, ' ');
  url = space + 1;
  if (space < line + 2 || !gml_source_url_is_valid (url))
    return NULL;
  /* The title ends in ":" just before the space. */
  title_length = space - (line + 2);
  if (title_length < 2 || line[2 + title_length - 1] != ':')
    return NULL;
  title = g_strstrip (g_strndup (line + 2, title_length - 1));
  if (*title == '\0')
    return NULL;

  {
    GmlSource *source = g_new0 (GmlSource, 1);

    source->title = g_steal_pointer (&title);
    source->url = g_strdup (url);
    return source;
  }
}

/* The general feedback may end with the block the export writes: a blank line, a
 * heading ending in ":" (in whatever language the file was exported in) and one or
 * more "- TITLE: URL" lines. That block becomes the question's sources. */
static void
take_sources (GmlMoodleImported *q)
{
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) found = NULL;
  guint n, first, heading;

  if (q->explanation == NULL)
    return;
  lines = g_strsplit (q->explanation, "\n", -1);
  n = g_strv_length (lines);
  found = g_ptr_array_new_with_free_func ((GDestroyNotify) source_free);

  for (first = n; first > 0; first--)
    {
      g_autofree char *line = g_strstrip (g_strdup (lines[first - 1]));
      GmlSource *source = parse_source_line (line);

      if (source == NULL)
        break;
      g_ptr_array_insert (found, 0, source);
    }
  if (found->len == 0 || found->len > GML_MAX_SOURCES || first == 0)
    return;

  heading = first - 1;
  g_strstrip (lines[heading]);
  if (!g_str_has_suffix (lines[heading], ":") ||
      (heading > 0 && *g_strstrip (lines[heading - 1]) != '\0'))
    return;

  g_free (lines[heading]);
  lines[heading] = NULL;
  g_free (q->explanation);
  q->explanation = g_strstrip (g_strjoinv ("\n", lines));
  /* g_strfreev must still free the lines after the cut. */
  lines[heading] = g_strdup ("");
  g_ptr_array_extend_and_steal (q->sources, g_steal_pointer (&found));
}

/* Turns the parsed questions into the lab's JSON, filling what Moodle files lack, and
 * validates each one through the bank loader with "ORIGIN:LINE" as its origin. */
char *
_gml_moodle_finish (GPtrArray  *questions,
                    const char *origin,
                    const char *default_topic,
                    guint      *n_questions,
                    GError    **error)
{
  g_autoptr(JsonBuilder) all = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GHashTable) lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *base = NULL;
  g_autofree char *base_id = NULL;

  {
    g_autofree char *name = g_path_get_basename (origin);
    char *dot = strrchr (name, '.');

    if (dot != NULL && dot != name)
      *dot = '\0';
    base = g_strdup (name);
    base_id = sanitize_id (name);
    if (*base_id == '\0')
      _gml_moodle_replace_str (&base_id, "imported");
  }

  if (questions->len == 0)
    return _gml_moodle_fail (error, GML_MOODLE_ERROR_INVALID, origin, 1, "%s",
                             _("the file has no multiple-choice questions")), NULL;

  json_builder_begin_object (all);
  json_builder_set_member_name (all, "questions");
  json_builder_begin_array (all);

  for (guint i = 0; i < questions->len; i++)
    {
      GmlMoodleImported *q = g_ptr_array_index (questions, i);
      g_autoptr(JsonBuilder) one = json_builder_new ();
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GmlQuestionBank) scratch = gml_question_bank_new ();
      g_autofree char *where = g_strdup_printf ("%s:%u", origin, q->line);
      g_autofree char *data = NULL;
      g_autofree char *id = NULL;
      g_autoptr(GError) local_error = NULL;
      const GmlMoodleOption *right = NULL;
      guint n_right = 0;
      gsize length = 0;

      if (q->options->len != GML_N_OPTIONS)
        return _gml_moodle_fail (error, GML_MOODLE_ERROR_INVALID, origin, q->line,
                                 _("the question has %u options; the lab needs exactly four"),
                                 q->options->len), NULL;
      for (guint o = 0; o < q->options->len; o++)
        {
          const GmlMoodleOption *option = g_ptr_array_index (q->options, o);

          if (option->correct)
            {
              n_right++;
              right = option;
            }
        }
      if (n_right == 0)
        return _gml_moodle_fail (error, GML_MOODLE_ERROR_INVALID, origin, q->line, "%s",
                                 _("the question has no right answer")), NULL;
      if (n_right > 1)
        return _gml_moodle_fail (error, GML_MOODLE_ERROR_INVALID, origin, q->line,
                                 _("the question has %u right answers; the lab needs exactly one"),
                                 n_right), NULL;

      id = is_valid_id (q->id) ? g_strdup (q->id) : g_strdup_printf ("%s-%u", base_id, i + 1);
      if (g_hash_table_contains (lines, id))
        return _gml_moodle_fail (error, GML_MOODLE_ERROR_INVALID, origin, q->line,
                                 _("the id “%s” is already used by the question on line %u"), id,
                                 GPOINTER_TO_UINT (g_hash_table_lookup (lines, id))), NULL;
      g_hash_table_insert (lines, g_strdup (id), GUINT_TO_POINTER (q->line));

      json_builder_begin_object (one);
      json_builder_set_member_name (one, "id");
      json_builder_add_string_value (one, id);
      json_builder_set_member_name (one, "topic");
      json_builder_add_string_value (one,
                                     q->topic != NULL ? q->topic
                                                      : default_topic != NULL ? default_topic
                                                                              : base);
      json_builder_set_member_name (one, "difficulty");
      json_builder_add_int_value (one,
                                  q->difficulty != 0 ? q->difficulty
                                                     : GML_MOODLE_DEFAULT_DIFFICULTY);
      json_builder_set_member_name (one, "scenario");
      json_builder_add_string_value (one,
                                     q->scenario != NULL ? q->scenario
                                                         : GML_MOODLE_DEFAULT_SCENARIO);
      /* Where it came from: named in the message when its id is taken already. */
      json_builder_set_member_name (one, "imported_from");
      json_builder_add_string_value (one, where);
      take_sources (q);
      if (q->sources->len > 0)
        {
          json_builder_set_member_name (one, "sources");
          json_builder_begin_array (one);
          for (guint s = 0; s < q->sources->len; s++)
            {
              const GmlSource *source = g_ptr_array_index (q->sources, s);

              json_builder_begin_object (one);
              json_builder_set_member_name (one, "title");
              json_builder_add_string_value (one, source->title);
              json_builder_set_member_name (one, "url");
              json_builder_add_string_value (one, source->url);
              json_builder_end_object (one);
            }
          json_builder_end_array (one);
        }
      json_builder_set_member_name (one, "text");
      json_builder_add_string_value (one, q->text != NULL ? q->text : "");
      json_builder_set_member_name (one, "options");
      json_builder_begin_array (one);
      for (guint o = 0; o < q->options->len; o++)
        {
          const GmlMoodleOption *option = g_ptr_array_index (q->options, o);
          char option_id[2] = { 'a' + o, '\0' };
          const char *feedback = option->feedback;

          if (feedback == NULL || *feedback == '\0')
            feedback = option->correct ? _("This is the right answer.")
                                       : _("This is not the right answer.");
          json_builder_begin_object (one);
          json_builder_set_member_name (one, "id");
          json_builder_add_string_value (one, option_id);
          json_builder_set_member_name (one, "text");
          json_builder_add_string_value (one, option->text != NULL ? option->text : "");
          json_builder_set_member_name (one, "feedback");
          json_builder_add_string_value (one, feedback);
          json_builder_set_member_name (one, "correct");
          json_builder_add_boolean_value (one, option->correct);
          json_builder_end_object (one);
        }
      json_builder_end_array (one);
      json_builder_set_member_name (one, "explanation");
      if (q->explanation != NULL && *q->explanation != '\0')
        json_builder_add_string_value (one, q->explanation);
      else
        {
          /* Translators: the explanation of an imported question that has none; %s is
           * the text of its right option. */
          g_autofree char *explanation = g_strdup_printf (_("The right answer is: %s"),
                                                          right->text != NULL ? right->text : "");
          json_builder_add_string_value (one, explanation);
        }
      json_builder_end_object (one);

      /* Validate this question alone, so the error carries its line. */
      node = json_builder_get_root (one);
      {
        g_autoptr(JsonBuilder) wrap = json_builder_new ();
        g_autoptr(JsonNode) wrapped = NULL;

        json_builder_begin_object (wrap);
        json_builder_set_member_name (wrap, "questions");
        json_builder_begin_array (wrap);
        json_builder_add_value (wrap, json_node_copy (node));
        json_builder_end_array (wrap);
        json_builder_end_object (wrap);
        wrapped = json_builder_get_root (wrap);
        json_generator_set_root (generator, wrapped);
        data = json_generator_to_data (generator, &length);
      }
      if (!gml_question_bank_load_data (scratch, data, length, where, FALSE, &local_error))
        {
          g_set_error_literal (error, GML_MOODLE_ERROR, GML_MOODLE_ERROR_INVALID,
                               local_error->message);
          return NULL;
        }

      json_builder_add_value (all, g_steal_pointer (&node));
    }

  json_builder_end_array (all);
  json_builder_end_object (all);

  root = json_builder_get_root (all);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  if (n_questions != NULL)
    *n_questions = questions->len;
  return json_generator_to_data (generator, NULL);
}

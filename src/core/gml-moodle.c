/* gml-moodle.c — Moodle GIFT and Moodle XML export; GIFT, Moodle XML and Aiken import.
 *
 * Mapping (Moodle's GIFT and XML formats, https://docs.moodle.org/en/GIFT_format and
 * https://docs.moodle.org/en/Moodle_XML_format):
 *   topic        → category ($CATEGORY: / <question type="category">), last path part
 *   difficulty   → tag difficulty-N          scenario → tag scenario-X
 *   id           → GIFT title and [id:X] / XML <name> and <idnumber>
 *   option feedback → answer feedback
 *   explanation and sources → general feedback: the explanation, a blank line, a
 *                  heading ("Sources:") and one line "- TITLE: URL" per source (in XML
 *                  a list with the URL as a link); import takes such a last block
 *                  back out of the general feedback as the question's sources.
 * Export resolves the {a}..{d} placeholders to the letters of the options in source
 * order and asks Moodle not to shuffle (XML), so "(c)" in a feedback stays right.
 *
 * Import builds the lab's own bank JSON and validates each question with
 * gml_question_bank_load_data(), with "FILE:LINE" as the origin, so every complaint
 * names the line the question starts on. What Moodle files often lack is filled in:
 * option feedback ("This is the right answer." / "This is not the right answer."),
 * an explanation naming the right option, difficulty and scenario (see the header),
 * the id (FILE-N) and the topic (the file's name).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-moodle"

#include "config.h"

#include "gml-i18n.h"
#include <json-glib/json-glib.h>
#include <string.h>

#include "gml-moodle.h"

G_DEFINE_QUARK (gml-moodle-error-quark, gml_moodle_error)

/* g_set_str() is GLib 2.76; this is 2.74. */
static void
replace_str (char       **target,
             const char  *value)
{
  char *copy = g_strdup (value);

  g_free (*target);
  *target = copy;
}

GmlMoodleFormat
gml_moodle_format_from_name (const char *name)
{
  if (name == NULL)
    return GML_MOODLE_FORMAT_UNKNOWN;
  if (g_str_equal (name, "gift"))
    return GML_MOODLE_FORMAT_GIFT;
  if (g_str_equal (name, "moodle-xml") || g_str_equal (name, "xml"))
    return GML_MOODLE_FORMAT_XML;
  if (g_str_equal (name, "aiken"))
    return GML_MOODLE_FORMAT_AIKEN;
  return GML_MOODLE_FORMAT_UNKNOWN;
}

static gboolean
has_suffix_ascii (const char *name,
                  const char *suffix)
{
  gsize n = strlen (name), m = strlen (suffix);

  return n >= m && g_ascii_strcasecmp (name + n - m, suffix) == 0;
}

/* By extension first (.gift, .xml, .aiken), then by content: XML starts with "<",
 * Aiken has "ANSWER:" lines, GIFT has answers in braces. */
GmlMoodleFormat
gml_moodle_detect_format (const char *filename,
                          const char *data,
                          gsize       length)
{
  g_autofree char *text = NULL;
  const char *p;

  if (filename != NULL)
    {
      if (has_suffix_ascii (filename, ".gift"))
        return GML_MOODLE_FORMAT_GIFT;
      if (has_suffix_ascii (filename, ".xml"))
        return GML_MOODLE_FORMAT_XML;
      if (has_suffix_ascii (filename, ".aiken"))
        return GML_MOODLE_FORMAT_AIKEN;
    }
  if (data == NULL)
    return GML_MOODLE_FORMAT_UNKNOWN;

  text = g_strndup (data, length);
  p = text;
  if (g_str_has_prefix (p, "\xEF\xBB\xBF"))
    p += 3;
  while (g_ascii_isspace (*p))
    p++;
  if (*p == '<')
    return GML_MOODLE_FORMAT_XML;

  for (const char *line = p; line != NULL && *line != '\0';)
    {
      const char *end = strchr (line, '\n');

      while (*line == ' ' || *line == '\t')
        line++;
      if (g_ascii_strncasecmp (line, "ANSWER:", 7) == 0)
        return GML_MOODLE_FORMAT_AIKEN;
      line = end != NULL ? end + 1 : NULL;
    }
  if (strchr (p, '{') != NULL)
    return GML_MOODLE_FORMAT_GIFT;
  return GML_MOODLE_FORMAT_UNKNOWN;
}

/* ------------------------------------------------------------------------------ */
/* Export                                                                          */
/* ------------------------------------------------------------------------------ */

static void
gift_escape (GString    *out,
             const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    {
      switch (*p)
        {
        case '~': case '=': case '#': case '{': case '}': case ':': case '\\':
          g_string_append_c (out, '\\');
          g_string_append_c (out, *p);
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          break;
        default:
          g_string_append_c (out, *p);
        }
    }
}

static void
append_category_name (GString    *path,
                      const char *name)
{
  for (const char *p = name; *p != '\0'; p++)
    {
      if (*p == '/')
        g_string_append_c (path, '/');
      g_string_append_c (path, *p);
    }
}

/* Category paths separate levels with "/"; a "/" inside a name is written "//". */
static char *
category_path (const char *topic)
{
  g_autoptr(GString) path = g_string_new ("$course$/top/");

  append_category_name (path, _("GPU Memory Lab"));
  g_string_append_c (path, '/');
  append_category_name (path, topic);
  return g_string_free (g_steal_pointer (&path), FALSE);
}

/* The general feedback in plain text: the explanation, then the sources, one a line. */
static char *
general_feedback_text (const GmlQuestion *q,
                       const guint        order[GML_N_OPTIONS])
{
  g_autofree char *explanation = gml_question_format (q, q->explanation, order);
  GString *out = g_string_new (explanation);

  if (q->n_sources > 0)
    g_string_append_printf (out, "\n\n%s", _("Sources:"));
  for (guint i = 0; i < q->n_sources; i++)
    {
      g_autofree char *link = gml_source_dup_link (&q->sources[i]);

      g_string_append_printf (out, "\n- %s: %s", q->sources[i].title, link);
    }
  return g_string_free (out, FALSE);
}

static void
export_gift_question (GString           *out,
                      const GmlQuestion *q,
                      const guint        order[GML_N_OPTIONS])
{
  g_autofree char *text = gml_question_format (q, q->text, order);
  g_autofree char *explanation = general_feedback_text (q, order);

  g_string_append_printf (out, "// [id:%s] [tag:difficulty-%d] [tag:scenario-%s]\n",
                          q->id, q->difficulty, q->scenario);
  g_string_append (out, "::");
  gift_escape (out, q->id);
  g_string_append (out, "::");
  gift_escape (out, text);
  g_string_append (out, " {\n");
  for (guint i = 0; i < GML_N_OPTIONS; i++)
    {
      const GmlOption *option = &q->options[order[i]];
      g_autofree char *option_text = gml_question_format (q, option->text, order);
      g_autofree char *feedback = gml_question_format (q, option->feedback, order);

      g_string_append (out, option->correct ? "  =" : "  ~");
      gift_escape (out, option_text);
      g_string_append (out, " #");
      gift_escape (out, feedback);
      g_string_append_c (out, '\n');
    }
  g_string_append (out, "  ####");
  gift_escape (out, explanation);
  g_string_append (out, "\n}\n\n");
}

/* Plain text as the HTML Moodle shows: escaped, line breaks as <br>. */
static char *
text_to_html (const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  g_auto(GStrv) lines = g_strsplit (escaped, "\n", -1);

  return g_strjoinv ("<br>", lines);
}

/* Writes HTML into an XML element: as CDATA when it holds markup, as it is otherwise. */
static void
xml_text (GString    *out,
          const char *html)
{
  if (strpbrk (html, "<&>") == NULL)
    {
      g_string_append_printf (out, "<text>%s</text>", html);
      return;
    }
  g_string_append (out, "<text><![CDATA[");
  for (const char *p = html; *p != '\0'; p++)
    {
      /* "]]>" would end the section early: split it across two sections. */
      if (g_str_has_prefix (p, "]]>"))
        {
          g_string_append (out, "]]]]><![CDATA[>");
          p += 2;
        }
      else
        g_string_append_c (out, *p);
    }
  g_string_append (out, "]]></text>");
}

static void
xml_plain (GString    *out,
           const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);

  g_string_append_printf (out, "<text>%s</text>", escaped);
}

/* The general feedback in HTML: the explanation, then the sources as a list of links. */
static char *
general_feedback_html (const GmlQuestion *q,
                       const guint        order[GML_N_OPTIONS])
{
  g_autofree char *explanation = gml_question_format (q, q->explanation, order);
  g_autofree char *explanation_html = text_to_html (explanation);
  g_autofree char *heading = NULL;
  GString *out = g_string_new (explanation_html);

  if (q->n_sources == 0)
    return g_string_free (out, FALSE);

  heading = g_markup_escape_text (_("Sources:"), -1);
  g_string_append_printf (out, "<br><br>%s<ul>", heading);
  for (guint i = 0; i < q->n_sources; i++)
    {
      g_autofree char *link = gml_source_dup_link (&q->sources[i]);
      g_autofree char *title = g_markup_escape_text (q->sources[i].title, -1);
      g_autofree char *href = g_markup_escape_text (link, -1);

      /* The address is shown as well as linked, so the text reads "TITLE: URL". */
      g_string_append_printf (out, "<li>%s: <a href=\"%s\">%s</a></li>", title, href, href);
    }
  g_string_append (out, "</ul>");
  return g_string_free (out, FALSE);
}

static void
export_xml_question (GString           *out,
                     const GmlQuestion *q,
                     const guint        order[GML_N_OPTIONS])
{
  g_autofree char *text = gml_question_format (q, q->text, order);
  g_autofree char *text_html = text_to_html (text);
  g_autofree char *explanation_html = general_feedback_html (q, order);
  g_autofree char *id = g_markup_escape_text (q->id, -1);
  g_autofree char *scenario = g_markup_escape_text (q->scenario, -1);

  g_string_append (out, "  <question type=\"multichoice\">\n    <name>");
  xml_plain (out, q->id);
  g_string_append (out, "</name>\n    <questiontext format=\"html\">");
  xml_text (out, text_html);
  g_string_append (out, "</questiontext>\n    <generalfeedback format=\"html\">");
  xml_text (out, explanation_html);
  g_string_append_printf (out, "</generalfeedback>\n"
                          "    <idnumber>%s</idnumber>\n"
                          "    <single>true</single>\n"
                          "    <shuffleanswers>0</shuffleanswers>\n"
                          "    <answernumbering>abc</answernumbering>\n", id);
  for (guint i = 0; i < GML_N_OPTIONS; i++)
    {
      const GmlOption *option = &q->options[order[i]];
      g_autofree char *option_text = gml_question_format (q, option->text, order);
      g_autofree char *feedback = gml_question_format (q, option->feedback, order);
      g_autofree char *option_html = text_to_html (option_text);
      g_autofree char *feedback_html = text_to_html (feedback);

      g_string_append_printf (out, "    <answer fraction=\"%d\" format=\"html\">",
                              option->correct ? 100 : 0);
      xml_text (out, option_html);
      g_string_append (out, "<feedback format=\"html\">");
      xml_text (out, feedback_html);
      g_string_append (out, "</feedback></answer>\n");
    }
  g_string_append_printf (out, "    <tags><tag><text>difficulty-%d</text></tag>"
                          "<tag><text>scenario-%s</text></tag></tags>\n"
                          "  </question>\n", q->difficulty, scenario);
}

char *
gml_moodle_export (GmlQuestionBank *bank,
                   GmlMoodleFormat  format,
                   gsize           *length)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *topic = NULL;
  guint order[GML_N_OPTIONS];

  g_return_val_if_fail (format == GML_MOODLE_FORMAT_GIFT || format == GML_MOODLE_FORMAT_XML, NULL);

  gml_question_identity_order (order);
  if (format == GML_MOODLE_FORMAT_XML)
    g_string_append (out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<quiz>\n");
  else
    g_string_append_printf (out, "// %s\n\n", _("GPU Memory Lab questions in Moodle GIFT format"));

  for (guint i = 0; i < gml_question_bank_get_n_questions (bank); i++)
    {
      const GmlQuestion *q = gml_question_bank_get (bank, i);
      const char *shown_topic = gml_question_translate (q, q->topic);

      if (topic == NULL || !g_str_equal (topic, shown_topic))
        {
          g_autofree char *path = category_path (shown_topic);

          g_free (topic);
          topic = g_strdup (shown_topic);
          if (format == GML_MOODLE_FORMAT_XML)
            {
              g_string_append (out, "  <question type=\"category\">\n    <category>");
              xml_plain (out, path);
              g_string_append (out, "</category>\n  </question>\n");
            }
          else
            g_string_append_printf (out, "$CATEGORY: %s\n\n", path);
        }

      if (format == GML_MOODLE_FORMAT_XML)
        export_xml_question (out, q, order);
      else
        export_gift_question (out, q, order);
    }

  if (format == GML_MOODLE_FORMAT_XML)
    g_string_append (out, "</quiz>\n");
  if (length != NULL)
    *length = out->len;
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* ------------------------------------------------------------------------------ */
/* Import: the questions as read, before they become the lab's JSON                */
/* ------------------------------------------------------------------------------ */

typedef struct
{
  char     *text;
  char     *feedback;
  gboolean  correct;
} Option;

typedef struct
{
  guint      line;
  char      *id;
  char      *topic;
  char      *text;
  char      *explanation;
  char      *scenario;
  int        difficulty;    /* 0: not given */
  GPtrArray *options;       /* Option* */
  GPtrArray *sources;       /* GmlSource*, taken from the end of the general feedback */
} Imported;

static void
option_free (Option *option)
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

static Imported *
imported_new (guint line)
{
  Imported *q = g_new0 (Imported, 1);

  q->line = line;
  q->options = g_ptr_array_new_with_free_func ((GDestroyNotify) option_free);
  q->sources = g_ptr_array_new_with_free_func ((GDestroyNotify) source_free);
  return q;
}

static void
imported_free (Imported *q)
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

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Imported, imported_free)

static gboolean G_GNUC_PRINTF (5, 6)
fail (GError    **error,
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
static gboolean
apply_tag (Imported   *q,
           const char *tag,
           const char *origin,
           guint       line,
           GError    **error)
{
  if (g_ascii_strncasecmp (tag, "difficulty-", 11) == 0)
    {
      const char *n = tag + 11;

      if (!(n[0] >= '1' && n[0] <= '3' && n[1] == '\0'))
        return fail (error, GML_MOODLE_ERROR_INVALID, origin, line,
                     _("the tag “%s” must be difficulty-1, difficulty-2 or difficulty-3"), tag);
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
static char *
category_topic (const char *path)
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
static char *
html_to_text (const char *html)
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
take_sources (Imported *q)
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
  if (!g_str_has_suffix (lines[heading], ":") || (heading > 0 && *g_strstrip (lines[heading - 1]) != '\0'))
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
static char *
finish (GPtrArray  *questions,
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
      replace_str (&base_id, "imported");
  }

  if (questions->len == 0)
    return fail (error, GML_MOODLE_ERROR_INVALID, origin, 1, "%s",
                 _("the file has no multiple-choice questions")), NULL;

  json_builder_begin_object (all);
  json_builder_set_member_name (all, "questions");
  json_builder_begin_array (all);

  for (guint i = 0; i < questions->len; i++)
    {
      Imported *q = g_ptr_array_index (questions, i);
      g_autoptr(JsonBuilder) one = json_builder_new ();
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GmlQuestionBank) scratch = gml_question_bank_new ();
      g_autofree char *where = g_strdup_printf ("%s:%u", origin, q->line);
      g_autofree char *data = NULL;
      g_autofree char *id = NULL;
      g_autoptr(GError) local_error = NULL;
      const Option *right = NULL;
      guint n_right = 0;
      gsize length = 0;

      if (q->options->len != GML_N_OPTIONS)
        return fail (error, GML_MOODLE_ERROR_INVALID, origin, q->line,
                     _("the question has %u options; the lab needs exactly four"),
                     q->options->len), NULL;
      for (guint o = 0; o < q->options->len; o++)
        {
          const Option *option = g_ptr_array_index (q->options, o);

          if (option->correct)
            {
              n_right++;
              right = option;
            }
        }
      if (n_right == 0)
        return fail (error, GML_MOODLE_ERROR_INVALID, origin, q->line, "%s",
                     _("the question has no right answer")), NULL;
      if (n_right > 1)
        return fail (error, GML_MOODLE_ERROR_INVALID, origin, q->line,
                     _("the question has %u right answers; the lab needs exactly one"),
                     n_right), NULL;

      id = is_valid_id (q->id) ? g_strdup (q->id) : g_strdup_printf ("%s-%u", base_id, i + 1);
      if (g_hash_table_contains (lines, id))
        return fail (error, GML_MOODLE_ERROR_INVALID, origin, q->line,
                     _("the id “%s” is already used by the question on line %u"), id,
                     GPOINTER_TO_UINT (g_hash_table_lookup (lines, id))), NULL;
      g_hash_table_insert (lines, g_strdup (id), GUINT_TO_POINTER (q->line));

      json_builder_begin_object (one);
      json_builder_set_member_name (one, "id");
      json_builder_add_string_value (one, id);
      json_builder_set_member_name (one, "topic");
      json_builder_add_string_value (one, q->topic != NULL ? q->topic : default_topic != NULL ? default_topic : base);
      json_builder_set_member_name (one, "difficulty");
      json_builder_add_int_value (one, q->difficulty != 0 ? q->difficulty : GML_MOODLE_DEFAULT_DIFFICULTY);
      json_builder_set_member_name (one, "scenario");
      json_builder_add_string_value (one, q->scenario != NULL ? q->scenario : GML_MOODLE_DEFAULT_SCENARIO);
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
          const Option *option = g_ptr_array_index (q->options, o);
          char option_id[2] = { 'a' + o, '\0' };
          const char *feedback = option->feedback;

          if (feedback == NULL || *feedback == '\0')
            feedback = option->correct ? _("This is the right answer.") : _("This is not the right answer.");
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
          g_set_error_literal (error, GML_MOODLE_ERROR, GML_MOODLE_ERROR_INVALID, local_error->message);
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

/* ------------------------------------------------------------------------------ */
/* GIFT                                                                            */
/* ------------------------------------------------------------------------------ */

typedef struct
{
  GString *text;      /* the block's lines without comments, joined with "\n" */
  GArray  *starts;    /* guint: offset in text where each joined line starts */
  GArray  *numbers;   /* guint: that line's number in the file */
} Block;

static guint
block_line_at (Block *block,
               gsize  offset)
{
  guint line = g_array_index (block->numbers, guint, 0);

  for (guint i = 0; i < block->starts->len; i++)
    if (g_array_index (block->starts, guint, i) <= offset)
      line = g_array_index (block->numbers, guint, i);
  return line;
}

/* The offset of the first unescaped @needle in [from, to), or -1. */
static gssize
find_unescaped (const char *s,
                gsize       from,
                gsize       to,
                const char *needle)
{
  gsize n = strlen (needle);

  for (gsize i = from; i < to; i++)
    {
      if (s[i] == '\\')
        {
          i++;
          continue;
        }
      if (i + n <= to && strncmp (s + i, needle, n) == 0)
        return (gssize) i;
    }
  return -1;
}

static char *
gift_unescape (const char *s,
               gsize       from,
               gsize       to)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *piece = g_strndup (s + from, to - from);

  g_strstrip (piece);
  for (const char *p = piece; *p != '\0'; p++)
    {
      if (p[0] == '\\' && p[1] != '\0' && strchr ("~=#{}:\\", p[1]) != NULL)
        g_string_append_c (out, *++p);
      else if (p[0] == '\\' && p[1] == 'n')
        {
          g_string_append_c (out, '\n');
          p++;
        }
      else
        g_string_append_c (out, *p);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Moodle lets a text start with its format: [html], [moodle], [plain] or [markdown]. */
static char *
gift_text (const char *s,
           gsize       from,
           gsize       to)
{
  g_autofree char *text = gift_unescape (s, from, to);

  if (g_str_has_prefix (text, "[html]"))
    return html_to_text (text + 6);
  if (g_str_has_prefix (text, "[moodle]") || g_str_has_prefix (text, "[plain]") ||
      g_str_has_prefix (text, "[markdown]"))
    {
      const char *rest = strchr (text, ']') + 1;

      return g_strstrip (g_strdup (rest));
    }
  return g_steal_pointer (&text);
}

static gboolean
parse_gift_block (Block      *block,
                  const char *category,
                  const char *id,
                  GPtrArray  *tags,
                  GPtrArray  *questions,
                  const char *origin,
                  GError    **error)
{
  const char *s = block->text->str;
  gsize len = block->text->len;
  gsize start = 0;
  gssize open, close, general;
  guint first_line = block_line_at (block, 0);
  g_autoptr(Imported) q = NULL;
  gssize pos;

  while (start < len && g_ascii_isspace (s[start]))
    start++;
  q = imported_new (block_line_at (block, start));

  if (g_str_has_prefix (s + start, "::"))
    {
      gssize end = find_unescaped (s, start + 2, len, "::");
      g_autofree char *title = NULL;

      if (end < 0)
        return fail (error, GML_MOODLE_ERROR_PARSE, origin, first_line, "%s",
                     _("the question title is not closed with “::”"));
      title = gift_unescape (s, start + 2, end);
      q->id = g_steal_pointer (&title);
      start = end + 2;
    }
  if (id != NULL)
    replace_str (&q->id, id);

  open = find_unescaped (s, start, len, "{");
  if (open < 0)
    return fail (error, GML_MOODLE_ERROR_PARSE, origin, first_line, "%s",
                 _("the question has no answers: “{” is missing"));
  close = find_unescaped (s, open + 1, len, "}");
  if (close < 0)
    return fail (error, GML_MOODLE_ERROR_PARSE, origin, block_line_at (block, open), "%s",
                 _("“{” is not closed with “}” before the next blank line"));

  q->text = gift_text (s, start, open);
  {
    g_autofree char *after = gift_text (s, close + 1, len);

    /* "Missing word" questions go on after the braces. */
    if (*after != '\0')
      {
        g_autofree char *joined = g_strdup_printf ("%s _____ %s", q->text, after);

        replace_str (&q->text, joined);
      }
  }

  general = find_unescaped (s, open + 1, close, "####");
  if (general >= 0)
    q->explanation = gift_text (s, general + 4, close);
  else
    general = close;

  pos = open + 1;
  while (pos < general && g_ascii_isspace (s[pos]))
    pos++;
  /* Like Moodle: answers with a "~" are multiple choice; without one they are
   * short-answer, true/false, numerical or matching questions. */
  if (pos >= general || (s[pos] != '=' && s[pos] != '~') ||
      find_unescaped (s, open + 1, general, "~") < 0)
    return fail (error, GML_MOODLE_ERROR_INVALID, origin, block_line_at (block, open), "%s",
                 _("only multiple-choice questions (answers starting with “=” or “~”) can be imported"));

  while (pos < general)
    {
      gssize next_right = find_unescaped (s, pos + 1, general, "=");
      gssize next_wrong = find_unescaped (s, pos + 1, general, "~");
      gsize end = general;
      gsize text_start = pos + 1;
      gssize hash;
      Option *option = g_new0 (Option, 1);
      guint line = block_line_at (block, pos);

      g_ptr_array_add (q->options, option);
      if (next_right >= 0)
        end = MIN (end, (gsize) next_right);
      if (next_wrong >= 0)
        end = MIN (end, (gsize) next_wrong);

      option->correct = s[pos] == '=';
      if (s[text_start] == '%')
        {
          gssize weight_end = find_unescaped (s, text_start + 1, end, "%");
          g_autofree char *weight = NULL;
          double value;

          if (weight_end < 0)
            return fail (error, GML_MOODLE_ERROR_PARSE, origin, line,
                         _("a weight such as “%%50%%” is not closed with “%%”"));
          weight = g_strndup (s + text_start + 1, weight_end - text_start - 1);
          value = g_ascii_strtod (weight, NULL);
          if (value > 0 && value < 100)
            return fail (error, GML_MOODLE_ERROR_INVALID, origin, line,
                         _("partial credit (%s%%) is not supported: an option is right (100%%) or wrong"),
                         weight);
          option->correct = value >= 100;
          text_start = weight_end + 1;
        }

      hash = find_unescaped (s, text_start, end, "#");
      if (hash >= 0)
        {
          option->text = gift_text (s, text_start, hash);
          option->feedback = gift_text (s, hash + 1, end);
        }
      else
        option->text = gift_text (s, text_start, end);

      pos = end;
    }

  if (category != NULL)
    q->topic = g_strdup (category);
  for (guint i = 0; i < tags->len; i++)
    if (!apply_tag (q, g_ptr_array_index (tags, i), origin, q->line, error))
      return FALSE;

  g_ptr_array_add (questions, g_steal_pointer (&q));
  return TRUE;
}

/* Collects [id:X] and [tag:Y] from a comment line. */
static void
read_comment (const char  *line,
              char       **id,
              GPtrArray   *tags)
{
  for (const char *p = strchr (line, '['); p != NULL; p = strchr (p + 1, '['))
    {
      const char *end = strchr (p, ']');

      if (end == NULL)
        break;
      if (g_str_has_prefix (p, "[id:"))
        {
          g_free (*id);
          *id = g_strstrip (g_strndup (p + 4, end - p - 4));
        }
      else if (g_str_has_prefix (p, "[tag:"))
        g_ptr_array_add (tags, g_strstrip (g_strndup (p + 5, end - p - 5)));
    }
}

static char *
import_gift (const char *data,
             const char *origin,
             const char *default_topic,
             guint      *n_questions,
             GError    **error)
{
  g_auto(GStrv) lines = g_strsplit (data, "\n", -1);
  g_autoptr(GPtrArray) questions = g_ptr_array_new_with_free_func ((GDestroyNotify) imported_free);
  g_autoptr(GPtrArray) tags = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *category = NULL;
  g_autofree char *id = NULL;
  Block block = {
    .text = g_string_new (NULL),
    .starts = g_array_new (FALSE, FALSE, sizeof (guint)),
    .numbers = g_array_new (FALSE, FALSE, sizeof (guint)),
  };
  gboolean ok = TRUE;

  for (guint i = 0; ok && (lines[i] != NULL || block.starts->len > 0 || id != NULL || tags->len > 0); i++)
    {
      char *line = lines[i];
      const char *trimmed;

      if (line != NULL)
        {
          gsize n = strlen (line);

          if (n > 0 && line[n - 1] == '\r')
            line[n - 1] = '\0';
        }
      trimmed = line != NULL ? line : "";
      while (*trimmed == ' ' || *trimmed == '\t')
        trimmed++;

      if (line == NULL || *trimmed == '\0')
        {
          /* A blank line ends the block. */
          if (block.starts->len > 0)
            {
              const char *first = block.text->str;

              while (g_ascii_isspace (*first))
                first++;
              if (g_str_has_prefix (first, "$CATEGORY:"))
                {
                  g_autofree char *path = g_strstrip (g_strdup (first + 10));

                  g_free (category);
                  category = category_topic (path);
                }
              else
                ok = parse_gift_block (&block, category, id, tags, questions, origin, error);
            }
          g_string_truncate (block.text, 0);
          g_array_set_size (block.starts, 0);
          g_array_set_size (block.numbers, 0);
          g_clear_pointer (&id, g_free);
          g_ptr_array_set_size (tags, 0);
          if (line == NULL)
            break;
          continue;
        }

      if (g_str_has_prefix (trimmed, "//"))
        {
          read_comment (trimmed, &id, tags);
          continue;
        }

      {
        guint start = block.text->len;
        guint number = i + 1;

        if (block.starts->len > 0)
          {
            g_string_append_c (block.text, '\n');
            start++;
          }
        g_string_append (block.text, line);
        g_array_append_val (block.starts, start);
        g_array_append_val (block.numbers, number);
      }
    }

  g_string_free (block.text, TRUE);
  g_array_unref (block.starts);
  g_array_unref (block.numbers);
  if (!ok)
    return NULL;
  return finish (questions, origin, default_topic, n_questions, error);
}

/* ------------------------------------------------------------------------------ */
/* Aiken                                                                           */
/* ------------------------------------------------------------------------------ */

static gboolean
aiken_option (const char *line,
              char       *letter,
              const char **text)
{
  if (g_ascii_isupper (line[0]) && (line[1] == ')' || line[1] == '.') &&
      (line[2] == ' ' || line[2] == '\t'))
    {
      *letter = line[0];
      *text = line + 3;
      return TRUE;
    }
  return FALSE;
}

static char *
import_aiken (const char *data,
              const char *origin,
              const char *default_topic,
              guint      *n_questions,
              GError    **error)
{
  g_auto(GStrv) lines = g_strsplit (data, "\n", -1);
  g_autoptr(GPtrArray) questions = g_ptr_array_new_with_free_func ((GDestroyNotify) imported_free);
  g_autoptr(Imported) q = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) letters = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *line = g_strstrip (g_strdup (lines[i]));
      const char *option_text;
      char letter;

      if (*line == '\0')
        continue;

      if (g_ascii_strncasecmp (line, "ANSWER:", 7) == 0)
        {
          g_autofree char *answer = g_strstrip (g_strdup (line + 7));
          const char *at;

          if (q == NULL || q->options->len == 0)
            return fail (error, GML_MOODLE_ERROR_PARSE, origin, i + 1, "%s",
                         _("“ANSWER:” comes before any options")), NULL;
          if (strlen (answer) != 1 || (at = strchr (letters->str, answer[0])) == NULL)
            return fail (error, GML_MOODLE_ERROR_PARSE, origin, i + 1,
                         _("“ANSWER: %s” does not name one of the options %s"), answer,
                         letters->str), NULL;
          ((Option *) g_ptr_array_index (q->options, at - letters->str))->correct = TRUE;
          g_ptr_array_add (questions, g_steal_pointer (&q));
          g_string_truncate (text, 0);
          g_string_truncate (letters, 0);
          continue;
        }

      if (q != NULL && q->options->len > 0 && aiken_option (line, &letter, &option_text))
        {
          Option *option = g_new0 (Option, 1);

          option->text = g_strstrip (g_strdup (option_text));
          g_ptr_array_add (q->options, option);
          g_string_append_c (letters, letter);
          continue;
        }
      if (q != NULL && q->options->len > 0)
        return fail (error, GML_MOODLE_ERROR_PARSE, origin, q->line, "%s",
                     _("the question has no “ANSWER:” line after its options")), NULL;

      if (q == NULL)
        q = imported_new (i + 1);
      if (aiken_option (line, &letter, &option_text))
        {
          Option *option;

          if (text->len == 0)
            return fail (error, GML_MOODLE_ERROR_PARSE, origin, i + 1, "%s",
                         _("an option comes before the question's text")), NULL;
          option = g_new0 (Option, 1);
          option->text = g_strstrip (g_strdup (option_text));
          g_ptr_array_add (q->options, option);
          g_string_append_c (letters, letter);
          g_free (q->text);
          q->text = g_strdup (text->str);
          continue;
        }
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, line);
    }

  if (q != NULL)
    return fail (error, GML_MOODLE_ERROR_PARSE, origin, q->line, "%s",
                 _("the question has no “ANSWER:” line after its options")), NULL;
  return finish (questions, origin, default_topic, n_questions, error);
}

/* ------------------------------------------------------------------------------ */
/* Moodle XML, read with GMarkup                                                   */
/* ------------------------------------------------------------------------------ */

typedef struct
{
  const char *origin;
  GPtrArray  *questions;
  GPtrArray  *stack;         /* element names (borrowed from GMarkup for the element's life: copied) */
  GPtrArray  *formats;       /* the format attribute of each open element, or NULL */
  GString    *text;
  gboolean    in_text;
  char       *category;
  Imported   *current;
  Option     *option;
  gboolean    is_category;
  const char *source;        /* the document, to find where each element starts */
  const char *cursor;        /* just past the last element found */
  guint       cursor_line;
  guint       element_line;  /* line of the element being started */
} XmlState;

static const char *
stack_at (XmlState *st,
          guint     from_top)
{
  if (st->stack->len <= from_top)
    return "";
  return g_ptr_array_index (st->stack, st->stack->len - 1 - from_top);
}

static const char *
format_at (XmlState *st,
           guint     from_top)
{
  if (st->formats->len <= from_top)
    return NULL;
  return g_ptr_array_index (st->formats, st->formats->len - 1 - from_top);
}

/* GMarkup reports positions after the tag (often the next line), so the line where
 * an element starts is found in the source: elements come in document order. */
static guint
element_line (XmlState   *st,
              const char *element)
{
  gsize n = strlen (element);

  for (const char *p = strchr (st->cursor, '<'); p != NULL; p = strchr (p + 1, '<'))
    if (strncmp (p + 1, element, n) == 0 &&
        (p[n + 1] == '>' || p[n + 1] == '/' || g_ascii_isspace (p[n + 1])))
      {
        for (const char *c = st->cursor; c < p; c++)
          st->cursor_line += *c == '\n';
        st->cursor = p + 1;
        return st->cursor_line;
      }
  return st->cursor_line;
}

static guint
xml_line (GMarkupParseContext *context)
{
  int line = 0, column = 0;

  g_markup_parse_context_get_position (context, &line, &column);
  return (guint) line;
}

static void
xml_start (GMarkupParseContext  *context,
           const char           *element,
           const char          **names,
           const char          **values,
           gpointer              user_data,
           GError              **error)
{
  XmlState *st = user_data;
  const char *format = NULL;
  const char *type = NULL;
  const char *fraction = NULL;

  st->element_line = element_line (st, element);
  for (guint i = 0; names[i] != NULL; i++)
    {
      if (g_str_equal (names[i], "format"))
        format = values[i];
      else if (g_str_equal (names[i], "type"))
        type = values[i];
      else if (g_str_equal (names[i], "fraction"))
        fraction = values[i];
    }

  if (g_str_equal (element, "question") && st->stack->len == 1)
    {
      if (type == NULL)
        type = "";
      if (g_str_equal (type, "category"))
        st->is_category = TRUE;
      else if (g_str_equal (type, "multichoice"))
        {
          st->current = imported_new (st->element_line);
          if (st->category != NULL)
            st->current->topic = g_strdup (st->category);
        }
      else
        {
          fail (error, GML_MOODLE_ERROR_INVALID, st->origin, st->element_line,
                _("questions of type “%s” cannot be imported; only multichoice can"), type);
          return;
        }
    }
  else if (g_str_equal (element, "answer") && st->current != NULL &&
           g_str_equal (stack_at (st, 0), "question"))
    {
      double value = fraction != NULL ? g_ascii_strtod (fraction, NULL) : 0;

      if (value > 0 && value < 100)
        {
          fail (error, GML_MOODLE_ERROR_INVALID, st->origin, st->element_line,
                _("partial credit (%s%%) is not supported: an option is right (100%%) or wrong"),
                fraction);
          return;
        }
      st->option = g_new0 (Option, 1);
      st->option->correct = value >= 100;
      g_ptr_array_add (st->current->options, st->option);
    }

  g_ptr_array_add (st->stack, g_strdup (element));
  g_ptr_array_add (st->formats, g_strdup (format));
  if (g_str_equal (element, "text") || g_str_equal (element, "idnumber"))
    {
      st->in_text = TRUE;
      g_string_truncate (st->text, 0);
    }
}

static char *
xml_content (XmlState *st,
             guint     format_level)
{
  const char *format = format_at (st, format_level);

  if (format != NULL && g_str_equal (format, "html"))
    return html_to_text (st->text->str);
  return g_strstrip (g_strdup (st->text->str));
}

/* Stores @value in *@slot, freeing what was there (a file may repeat an element). */
static void
take_str (char **slot,
          char  *value)
{
  g_free (*slot);
  *slot = value;
}

static void
xml_end (GMarkupParseContext  *context,
         const char           *element,
         gpointer              user_data,
         GError              **error)
{
  XmlState *st = user_data;
  Imported *q = st->current;

  if (g_str_equal (element, "text"))
    {
      const char *parent = stack_at (st, 1);
      const char *grand = stack_at (st, 2);

      st->in_text = FALSE;
      if (st->is_category && g_str_equal (parent, "category"))
        {
          g_autofree char *path = g_strstrip (g_strdup (st->text->str));

          g_free (st->category);
          st->category = category_topic (path);
        }
      else if (q != NULL && g_str_equal (parent, "name") && g_str_equal (grand, "question"))
        {
          if (q->id == NULL)
            q->id = g_strstrip (g_strdup (st->text->str));
        }
      /* A repeated element replaces the earlier one. */
      else if (q != NULL && g_str_equal (parent, "questiontext"))
        take_str (&q->text, xml_content (st, 1));
      else if (q != NULL && g_str_equal (parent, "generalfeedback"))
        take_str (&q->explanation, xml_content (st, 1));
      else if (q != NULL && st->option != NULL && g_str_equal (parent, "answer"))
        take_str (&st->option->text, xml_content (st, 1));
      else if (q != NULL && st->option != NULL && g_str_equal (parent, "feedback") &&
               g_str_equal (grand, "answer"))
        take_str (&st->option->feedback, xml_content (st, 1));
      else if (q != NULL && g_str_equal (parent, "tag"))
        {
          g_autofree char *tag = g_strstrip (g_strdup (st->text->str));

          apply_tag (q, tag, st->origin, st->element_line, error);
        }
    }
  else if (g_str_equal (element, "idnumber") && q != NULL && g_str_equal (stack_at (st, 1), "question"))
    {
      g_autofree char *id = g_strstrip (g_strdup (st->text->str));

      st->in_text = FALSE;
      if (*id != '\0')
        replace_str (&q->id, id);
    }
  else if (g_str_equal (element, "answer"))
    st->option = NULL;
  else if (g_str_equal (element, "question") && st->stack->len == 2)
    {
      if (st->current != NULL)
        g_ptr_array_add (st->questions, g_steal_pointer (&st->current));
      st->is_category = FALSE;
    }

  g_ptr_array_remove_index (st->stack, st->stack->len - 1);
  g_ptr_array_remove_index (st->formats, st->formats->len - 1);
}

static void
xml_text_cb (GMarkupParseContext  *context,
             const char           *text,
             gsize                 length,
             gpointer              user_data,
             GError              **error)
{
  XmlState *st = user_data;

  if (st->in_text)
    g_string_append_len (st->text, text, length);
}

static char *
import_xml (const char *data,
            gsize       length,
            const char *origin,
            const char *default_topic,
            guint      *n_questions,
            GError    **error)
{
  static const GMarkupParser parser = { xml_start, xml_end, xml_text_cb, NULL, NULL };
  g_autoptr(GPtrArray) questions = g_ptr_array_new_with_free_func ((GDestroyNotify) imported_free);
  XmlState st = {
    .origin = origin,
    .questions = questions,
    .stack = g_ptr_array_new_with_free_func (g_free),
    .formats = g_ptr_array_new_with_free_func (g_free),
    .text = g_string_new (NULL),
    .source = data,
    .cursor = data,
    .cursor_line = 1,
  };
  g_autoptr(GMarkupParseContext) context =
    g_markup_parse_context_new (&parser, G_MARKUP_TREAT_CDATA_AS_TEXT, &st, NULL);
  g_autoptr(GError) local_error = NULL;
  gboolean ok;

  ok = g_markup_parse_context_parse (context, data, length, &local_error) &&
       g_markup_parse_context_end_parse (context, &local_error);
  if (!ok)
    {
      if (local_error->domain == GML_MOODLE_ERROR)
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        fail (error, GML_MOODLE_ERROR_PARSE, origin, xml_line (context), "%s", local_error->message);
    }
  else if (st.stack->len != 0 || questions->len == 0)
    {
      /* Not a <quiz> with questions at all. */
      ok = FALSE;
      fail (error, GML_MOODLE_ERROR_PARSE, origin, xml_line (context), "%s",
            _("no <quiz> with multichoice questions was found"));
    }

  g_clear_pointer (&st.current, imported_free);
  g_free (st.category);
  g_ptr_array_unref (st.stack);
  g_ptr_array_unref (st.formats);
  g_string_free (st.text, TRUE);
  if (!ok)
    return NULL;
  return finish (questions, origin, default_topic, n_questions, error);
}

char *
gml_moodle_import (const char      *data,
                   gsize            length,
                   GmlMoodleFormat  format,
                   const char      *origin,
                   const char      *default_topic,
                   guint           *n_questions,
                   GError         **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (origin != NULL, NULL);

  if (n_questions != NULL)
    *n_questions = 0;
  if (!g_utf8_validate_len (data, length, NULL))
    {
      g_set_error (error, GML_MOODLE_ERROR, GML_MOODLE_ERROR_PARSE,
                   _("%s: the file is not valid UTF-8 text"), origin);
      return NULL;
    }
  if (length >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0)
    {
      data += 3;
      length -= 3;
    }
  if (memchr (data, '\0', length) != NULL)
    {
      g_set_error (error, GML_MOODLE_ERROR, GML_MOODLE_ERROR_PARSE,
                   _("%s: the file is not valid UTF-8 text"), origin);
      return NULL;
    }
  text = g_strndup (data, length);

  switch (format)
    {
    case GML_MOODLE_FORMAT_GIFT:
      return import_gift (text, origin, default_topic, n_questions, error);
    case GML_MOODLE_FORMAT_AIKEN:
      return import_aiken (text, origin, default_topic, n_questions, error);
    case GML_MOODLE_FORMAT_XML:
      return import_xml (text, length, origin, default_topic, n_questions, error);
    case GML_MOODLE_FORMAT_UNKNOWN:
    default:
      g_set_error (error, GML_MOODLE_ERROR, GML_MOODLE_ERROR_PARSE,
                   _("%s: not a GIFT, Moodle XML or Aiken file"), origin);
      return NULL;
    }
}

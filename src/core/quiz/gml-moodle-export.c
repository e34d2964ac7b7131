/* gml-moodle-export.c — questions written as Moodle GIFT and Moodle XML (mapping in gml-moodle.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-moodle"

#include "config.h"

#include "gml-i18n.h"
#include <json-glib/json-glib.h>
#include <string.h>

#include "gml-moodle-private.h"

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

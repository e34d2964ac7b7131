/* gml-moodle.c — Moodle formats: their names, telling them apart, and import's entry point.
 *
 * The work is split by concern: gml-moodle-export.c writes GIFT and Moodle XML;
 * gml-moodle-import.c holds the questions as read and turns them into the lab's JSON;
 * gml-moodle-gift.c, gml-moodle-aiken.c and gml-moodle-xml.c read each format.
 *
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

#include "gml-moodle-private.h"

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
      return _gml_moodle_import_gift (text, origin, default_topic, n_questions, error);
    case GML_MOODLE_FORMAT_AIKEN:
      return _gml_moodle_import_aiken (text, origin, default_topic, n_questions, error);
    case GML_MOODLE_FORMAT_XML:
      return _gml_moodle_import_xml (text, length, origin, default_topic, n_questions, error);
    case GML_MOODLE_FORMAT_UNKNOWN:
    default:
      g_set_error (error, GML_MOODLE_ERROR, GML_MOODLE_ERROR_PARSE,
                   _("%s: not a GIFT, Moodle XML or Aiken file"), origin);
      return NULL;
    }
}


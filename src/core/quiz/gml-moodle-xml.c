/* gml-moodle-xml.c — reading Moodle XML with GMarkup
 * (https://docs.moodle.org/en/Moodle_XML_format).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-moodle"

#include "config.h"

#include "gml-i18n.h"
#include <json-glib/json-glib.h>
#include <string.h>

#include "gml-moodle-private.h"


typedef struct
{
  const char         *origin;
  GPtrArray          *questions;
  GPtrArray          *stack;         /* element names (borrowed from GMarkup for the element's life:
                                      * copied) */
  GPtrArray          *formats;       /* the format attribute of each open element, or NULL */
  GString            *text;
  gboolean            in_text;
  char               *category;
  GmlMoodleImported  *current;
  GmlMoodleOption    *option;
  gboolean            is_category;
  const char         *source;        /* the document, to find where each element starts */
  const char         *cursor;        /* just past the last element found */
  guint               cursor_line;
  guint               element_line;  /* line of the element being started */
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
          st->current = _gml_moodle_imported_new (st->element_line);
          if (st->category != NULL)
            st->current->topic = g_strdup (st->category);
        }
      else
        {
          _gml_moodle_fail (error, GML_MOODLE_ERROR_INVALID, st->origin, st->element_line,
                            _("questions of type “%s” cannot be imported; only multichoice can"),
                            type);
          return;
        }
    }
  else if (g_str_equal (element, "answer") && st->current != NULL &&
           g_str_equal (stack_at (st, 0), "question"))
    {
      double value = fraction != NULL ? g_ascii_strtod (fraction, NULL) : 0;

      if (value > 0 && value < 100)
        {
          _gml_moodle_fail (error, GML_MOODLE_ERROR_INVALID, st->origin, st->element_line,
                            _("partial credit (%s%%) is not supported: an option is right (100%%) "
                              "or wrong"),
                            fraction);
          return;
        }
      st->option = g_new0 (GmlMoodleOption, 1);
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
    return _gml_moodle_html_to_text (st->text->str);
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
  GmlMoodleImported *q = st->current;

  if (g_str_equal (element, "text"))
    {
      const char *parent = stack_at (st, 1);
      const char *grand = stack_at (st, 2);

      st->in_text = FALSE;
      if (st->is_category && g_str_equal (parent, "category"))
        {
          g_autofree char *path = g_strstrip (g_strdup (st->text->str));

          g_free (st->category);
          st->category = _gml_moodle_category_topic (path);
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

          _gml_moodle_apply_tag (q, tag, st->origin, st->element_line, error);
        }
    }
  else if (g_str_equal (element, "idnumber") && q != NULL &&
           g_str_equal (stack_at (st, 1), "question"))
    {
      g_autofree char *id = g_strstrip (g_strdup (st->text->str));

      st->in_text = FALSE;
      if (*id != '\0')
        _gml_moodle_replace_str (&q->id, id);
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

char *
_gml_moodle_import_xml (const char *data,
                        gsize       length,
                        const char *origin,
                        const char *default_topic,
                        guint      *n_questions,
                        GError    **error)
{
  static const GMarkupParser parser = { xml_start, xml_end, xml_text_cb, NULL, NULL };
  g_autoptr(GPtrArray) questions =
      g_ptr_array_new_with_free_func ((GDestroyNotify) _gml_moodle_imported_free);
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
        _gml_moodle_fail (error, GML_MOODLE_ERROR_PARSE, origin, xml_line (context), "%s",
                          local_error->message);
    }
  else if (st.stack->len != 0 || questions->len == 0)
    {
      /* Not a <quiz> with questions at all. */
      ok = FALSE;
      _gml_moodle_fail (error, GML_MOODLE_ERROR_PARSE, origin, xml_line (context), "%s",
                        _("no <quiz> with multichoice questions was found"));
    }

  g_clear_pointer (&st.current, _gml_moodle_imported_free);
  g_free (st.category);
  g_ptr_array_unref (st.stack);
  g_ptr_array_unref (st.formats);
  g_string_free (st.text, TRUE);
  if (!ok)
    return NULL;
  return _gml_moodle_finish (questions, origin, default_topic, n_questions, error);
}

/* gml-moodle-gift.c — reading Moodle GIFT (https://docs.moodle.org/en/GIFT_format).
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
    return _gml_moodle_html_to_text (text + 6);
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
  g_autoptr(GmlMoodleImported) q = NULL;
  gssize pos;

  while (start < len && g_ascii_isspace (s[start]))
    start++;
  q = _gml_moodle_imported_new (block_line_at (block, start));

  if (g_str_has_prefix (s + start, "::"))
    {
      gssize end = find_unescaped (s, start + 2, len, "::");
      g_autofree char *title = NULL;

      if (end < 0)
        return _gml_moodle_fail (error, GML_MOODLE_ERROR_PARSE, origin, first_line, "%s",
                                 _("the question title is not closed with “::”"));
      title = gift_unescape (s, start + 2, end);
      q->id = g_steal_pointer (&title);
      start = end + 2;
    }
  if (id != NULL)
    _gml_moodle_replace_str (&q->id, id);

  open = find_unescaped (s, start, len, "{");
  if (open < 0)
    return _gml_moodle_fail (error, GML_MOODLE_ERROR_PARSE, origin, first_line, "%s",
                             _("the question has no answers: “{” is missing"));
  close = find_unescaped (s, open + 1, len, "}");
  if (close < 0)
    return _gml_moodle_fail (error, GML_MOODLE_ERROR_PARSE, origin, block_line_at (block, open),
                             "%s",
                             _("“{” is not closed with “}” before the next blank line"));

  q->text = gift_text (s, start, open);
  {
    g_autofree char *after = gift_text (s, close + 1, len);

    /* "Missing word" questions go on after the braces. */
    if (*after != '\0')
      {
        g_autofree char *joined = g_strdup_printf ("%s _____ %s", q->text, after);

        _gml_moodle_replace_str (&q->text, joined);
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
    return _gml_moodle_fail (error, GML_MOODLE_ERROR_INVALID, origin, block_line_at (block, open),
                             "%s",
                             _("only multiple-choice questions (answers starting with “=” or “~”) "
                               "can be imported"));

  while (pos < general)
    {
      gssize next_right = find_unescaped (s, pos + 1, general, "=");
      gssize next_wrong = find_unescaped (s, pos + 1, general, "~");
      gsize end = general;
      gsize text_start = pos + 1;
      gssize hash;
      GmlMoodleOption *option = g_new0 (GmlMoodleOption, 1);
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
            return _gml_moodle_fail (error, GML_MOODLE_ERROR_PARSE, origin, line,
                                     _("a weight such as “%%50%%” is not closed with “%%”"));
          weight = g_strndup (s + text_start + 1, weight_end - text_start - 1);
          value = g_ascii_strtod (weight, NULL);
          if (value > 0 && value < 100)
            return _gml_moodle_fail (error, GML_MOODLE_ERROR_INVALID, origin, line,
                                     _("partial credit (%s%%) is not supported: an option is right "
                                       "(100%%) or wrong"),
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
    if (!_gml_moodle_apply_tag (q, g_ptr_array_index (tags, i), origin, q->line, error))
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

char *
_gml_moodle_import_gift (const char *data,
                         const char *origin,
                         const char *default_topic,
                         guint      *n_questions,
                         GError    **error)
{
  g_auto(GStrv) lines = g_strsplit (data, "\n", -1);
  g_autoptr(GPtrArray) questions =
      g_ptr_array_new_with_free_func ((GDestroyNotify) _gml_moodle_imported_free);
  g_autoptr(GPtrArray) tags = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *category = NULL;
  g_autofree char *id = NULL;
  Block block = {
    .text = g_string_new (NULL),
    .starts = g_array_new (FALSE, FALSE, sizeof (guint)),
    .numbers = g_array_new (FALSE, FALSE, sizeof (guint)),
  };
  gboolean ok = TRUE;

  for (guint i = 0; ok &&
       (lines[i] != NULL || block.starts->len > 0 || id != NULL || tags->len > 0); i++)
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
                  category = _gml_moodle_category_topic (path);
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
  return _gml_moodle_finish (questions, origin, default_topic, n_questions, error);
}

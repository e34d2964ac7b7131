/* gml-moodle-aiken.c — reading Aiken (https://docs.moodle.org/en/Aiken_format).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-moodle"

#include "config.h"

#include "gml-i18n.h"
#include <json-glib/json-glib.h>
#include <string.h>

#include "gml-moodle-private.h"

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

char *
_gml_moodle_import_aiken (const char *data,
                          const char *origin,
                          const char *default_topic,
                          guint      *n_questions,
                          GError    **error)
{
  g_auto(GStrv) lines = g_strsplit (data, "\n", -1);
  g_autoptr(GPtrArray) questions =
      g_ptr_array_new_with_free_func ((GDestroyNotify) _gml_moodle_imported_free);
  g_autoptr(GmlMoodleImported) q = NULL;
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
            return _gml_moodle_fail (error, GML_MOODLE_ERROR_PARSE, origin, i + 1, "%s",
                                     _("“ANSWER:” comes before any options")), NULL;
          if (strlen (answer) != 1 || (at = strchr (letters->str, answer[0])) == NULL)
            return _gml_moodle_fail (error, GML_MOODLE_ERROR_PARSE, origin, i + 1,
                                     _("“ANSWER: %s” does not name one of the options %s"), answer,
                                     letters->str), NULL;
          ((GmlMoodleOption *) g_ptr_array_index (q->options, at - letters->str))->correct = TRUE;
          g_ptr_array_add (questions, g_steal_pointer (&q));
          g_string_truncate (text, 0);
          g_string_truncate (letters, 0);
          continue;
        }

      if (q != NULL && q->options->len > 0 && aiken_option (line, &letter, &option_text))
        {
          GmlMoodleOption *option = g_new0 (GmlMoodleOption, 1);

          option->text = g_strstrip (g_strdup (option_text));
          g_ptr_array_add (q->options, option);
          g_string_append_c (letters, letter);
          continue;
        }
      if (q != NULL && q->options->len > 0)
        return _gml_moodle_fail (error, GML_MOODLE_ERROR_PARSE, origin, q->line, "%s",
                                 _("the question has no “ANSWER:” line after its options")), NULL;

      if (q == NULL)
        q = _gml_moodle_imported_new (i + 1);
      if (aiken_option (line, &letter, &option_text))
        {
          GmlMoodleOption *option;

          if (text->len == 0)
            return _gml_moodle_fail (error, GML_MOODLE_ERROR_PARSE, origin, i + 1, "%s",
                                     _("an option comes before the question's text")), NULL;
          option = g_new0 (GmlMoodleOption, 1);
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
    return _gml_moodle_fail (error, GML_MOODLE_ERROR_PARSE, origin, q->line, "%s",
                             _("the question has no “ANSWER:” line after its options")), NULL;
  return _gml_moodle_finish (questions, origin, default_topic, n_questions, error);
}

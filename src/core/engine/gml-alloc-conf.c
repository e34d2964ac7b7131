/* gml-alloc-conf.c — PYTORCH_CUDA_ALLOC_CONF, the parts of it the lab models:
 * max_split_size_mb, roundup_power2_divisions and expandable_segments, read the
 * way c10's CUDAAllocatorConfig reads them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-allocator"

#include "config.h"

#include <string.h>

#include "gml-i18n.h"

#include "gml-alloc-conf.h"
#include "gml-allocator.h"
#include "gml-allocator-private.h"

#define MB G_GUINT64_CONSTANT (1048576)

void
gml_alloc_conf_init (GmlAllocConf *conf)
{
  memset (conf, 0, sizeof *conf);
  conf->max_split_size = G_MAXUINT64;
}

/* PyTorch's lexArgs(): ',', ':', '[' and ']' are tokens of their own; spaces vanish. */
static GPtrArray *
lex_conf (const char *str)
{
  GPtrArray *tokens = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) buf = g_string_new (NULL);

  for (const char *p = str; *p; p++)
    {
      if (*p == ',' || *p == ':' || *p == '[' || *p == ']')
        {
          if (buf->len > 0)
            {
              g_ptr_array_add (tokens, g_strdup (buf->str));
              g_string_truncate (buf, 0);
            }
          g_ptr_array_add (tokens, g_strndup (p, 1));
        }
      else if (*p != ' ')
        {
          g_string_append_c (buf, *p);
        }
    }
  if (buf->len > 0)
    g_ptr_array_add (tokens, g_strdup (buf->str));

  return tokens;
}

static const char *
token_at (GPtrArray *tokens,
          guint      i)
{
  return i < tokens->len ? g_ptr_array_index (tokens, i) : "";
}

static gboolean
expect_token (GPtrArray  *tokens,
              guint       i,
              const char *want,
              GError    **error)
{
  if (i < tokens->len && g_str_equal (token_at (tokens, i), want))
    return TRUE;

  g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
               _("Expected “%s” after “%s” in the allocator settings."),
               want, i > 0 ? token_at (tokens, i - 1) : "");
  return FALSE;
}

static gboolean
parse_unsigned (const char  *token,
                const char  *option,
                guint64     *value,
                GError     **error)
{
  if (!g_ascii_string_to_unsigned (token, 10, 0, G_MAXUINT64, value, NULL))
    {
      g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                   _("Invalid value “%s” for the allocator setting “%s”."), token, option);
      return FALSE;
    }
  return TRUE;
}

/* parseRoundUpPower2Divisions() (c10/core/AllocatorConfig.cpp), including its
 * "[256:1,512:2,>:8]" form whose keys are in MB: the first key also sets every
 * interval below it, and ">" sets every interval above the last key. */
static gboolean
parse_divisions (GmlAllocConf *conf,
                 GPtrArray    *tokens,
                 guint        *pi,
                 GError      **error)
{
  const char *option = "roundup_power2_divisions";
  guint i = *pi;

  if (!expect_token (tokens, ++i, ":", error))
    return FALSE;

  if (++i >= tokens->len)
    {
      g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                   _("Invalid value “%s” for the allocator setting “%s”."), "", option);
      return FALSE;
    }

  if (g_str_equal (token_at (tokens, i), "["))
    {
      gboolean first = TRUE;
      guint last_index = 0;

      while (++i < tokens->len && !g_str_equal (token_at (tokens, i), "]"))
        {
          const char *key = token_at (tokens, i);
          guint64 divisions;

          if (!expect_token (tokens, ++i, ":", error) ||
              !parse_unsigned (token_at (tokens, ++i), option, &divisions, error))
            return FALSE;
          if (divisions != 0 && !is_power_of_2 (divisions))
            {
              g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                           _("roundup_power2_divisions: %s is not a power of two."),
                           token_at (tokens, i));
              return FALSE;
            }

          if (g_str_equal (key, ">"))
            {
              for (guint k = last_index + 1; k < GML_N_ROUNDUP_INTERVALS; k++)
                conf->roundup_power2_divisions[k] = divisions;
            }
          else
            {
              guint64 interval_mb;
              guint index;

              if (!parse_unsigned (key, option, &interval_mb, error))
                return FALSE;
              if (!is_power_of_2 (interval_mb))
                {
                  g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                               _("roundup_power2_divisions: %s is not a power of two."), key);
                  return FALSE;
                }
              index = MIN (log2_floor (interval_mb), GML_N_ROUNDUP_INTERVALS - 1);
              if (first)
                {
                  for (guint k = 0; k < index; k++)
                    conf->roundup_power2_divisions[k] = divisions;
                  first = FALSE;
                }
              conf->roundup_power2_divisions[index] = divisions;
              last_index = index;
            }

          if (!g_str_equal (token_at (tokens, i + 1), "]") &&
              !expect_token (tokens, ++i, ",", error))
            return FALSE;
        }
      if (i >= tokens->len)
        return expect_token (tokens, i, "]", error);
    }
  else
    {
      guint64 divisions;

      if (!parse_unsigned (token_at (tokens, i), option, &divisions, error))
        return FALSE;
      if (!is_power_of_2 (divisions))
        {
          g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                       _("roundup_power2_divisions: %s is not a power of two."),
                       token_at (tokens, i));
          return FALSE;
        }
      for (guint k = 0; k < GML_N_ROUNDUP_INTERVALS; k++)
        conf->roundup_power2_divisions[k] = divisions;
    }

  *pi = i;
  return TRUE;
}

/* Parses PYTORCH_CUDA_ALLOC_CONF syntax into @conf (which keeps the settings
 * the string does not mention). */
gboolean
gml_alloc_conf_parse (GmlAllocConf *conf,
                      const char   *str,
                      GError      **error)
{
  g_autoptr(GPtrArray) tokens = NULL;
  GmlAllocConf result = *conf;

  g_return_val_if_fail (str != NULL, FALSE);

  tokens = lex_conf (str);
  for (guint i = 0; i < tokens->len; i++)
    {
      const char *key = token_at (tokens, i);

      if (g_str_equal (key, "max_split_size_mb"))
        {
          guint64 mb;

          if (!expect_token (tokens, ++i, ":", error) ||
              !parse_unsigned (token_at (tokens, ++i), key, &mb, error))
            return FALSE;
          if (mb <= GML_LARGE_BUFFER / MB)
            {
              g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                           _("max_split_size_mb must be greater than 20 (it is %s)."),
                           token_at (tokens, i));
              return FALSE;
            }
          mb = MIN (mb, G_MAXUINT64 / MB);
          result.max_split_size = mb * MB;
        }
      else if (g_str_equal (key, "roundup_power2_divisions"))
        {
          if (!parse_divisions (&result, tokens, &i, error))
            return FALSE;
        }
      else if (g_str_equal (key, "expandable_segments"))
        {
          const char *value;

          if (!expect_token (tokens, ++i, ":", error))
            return FALSE;
          value = token_at (tokens, ++i);
          /* parseExpandableSegments(): exactly True or False. */
          if (g_str_equal (value, "True"))
            result.expandable_segments = TRUE;
          else if (g_str_equal (value, "False"))
            result.expandable_segments = FALSE;
          else
            {
              g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                           _("Invalid value “%s” for the allocator setting “%s”."), value,
                           "expandable_segments");
              return FALSE;
            }
        }
      else if (g_str_equal (key, "garbage_collection_threshold") ||
               g_str_equal (key, "release_lock_on_cudamalloc") ||
               g_str_equal (key, "pinned_use_cuda_host_register") ||
               g_str_equal (key, "pinned_num_register_threads") ||
               g_str_equal (key, "backend"))
        {
          g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                       _("The allocator setting “%s” is not modelled by the lab yet."), key);
          return FALSE;
        }
      else
        {
          g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                       _("Unknown allocator setting “%s”; the lab understands "
                         "max_split_size_mb, roundup_power2_divisions and expandable_segments."), key);
          return FALSE;
        }

      if (i + 1 < tokens->len && !expect_token (tokens, ++i, ",", error))
        return FALSE;
    }

  *conf = result;
  return TRUE;
}

/* CUDAAllocatorConfig::roundup_power2_divisions(size): one setting per power of
 * two from 1 MiB (everything smaller shares the first) to 64 GiB. */
guint64
gml_alloc_conf_divisions_for_size (const GmlAllocConf *conf,
                                   guint64             size)
{
  int index;

  if (size == 0)
    return conf->roundup_power2_divisions[0];

  index = (int) log2_floor (size) - 20;
  index = CLAMP (index, 0, GML_N_ROUNDUP_INTERVALS - 1);
  return conf->roundup_power2_divisions[index];
}

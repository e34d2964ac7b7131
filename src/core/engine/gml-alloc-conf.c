/* gml-alloc-conf.c — PYTORCH_ALLOC_CONF (formerly PYTORCH_CUDA_ALLOC_CONF), read
 * the way c10's AcceleratorAllocatorConfig and CUDAAllocatorConfig read it: every key of the
 * native allocator is accepted with PyTorch's own checks; the ones that change which block a
 * request gets are modelled (gml-allocator.c), the others kept.
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
  conf->max_non_split_rounding_size = GML_LARGE_BUFFER;
  conf->per_process_memory_fraction = 1.0;
  conf->pinned_num_register_threads = 1;
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

/* A True or False value: ConfigTokenizer::toBool() takes exactly these two words. */
static gboolean
parse_bool (GPtrArray   *tokens,
            guint       *pi,
            const char  *option,
            gboolean    *value,
            GError     **error)
{
  const char *token;

  if (!expect_token (tokens, ++(*pi), ":", error))
    return FALSE;
  token = token_at (tokens, ++(*pi));
  if (g_str_equal (token, "True") || g_str_equal (token, "False"))
    {
      *value = g_str_equal (token, "True");
      return TRUE;
    }
  g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
               _("The allocator setting “%s” takes True or False (it is “%s”)."), option, token);
  return FALSE;
}

/* parseMaxSplitSize() and parseMaxNonSplitRoundingSize(): megabytes, at least
 * kLargeBuffer (20 MiB): "val_env >= min_allowed_split_size_mb" in
 * AcceleratorAllocatorConfig (c10/core/AllocatorConfig.cpp). Older releases
 * wanted more than 20 for max_split_size_mb while their message said ">= 20". */
static gboolean
parse_megabytes_from_20 (GPtrArray   *tokens,
                         guint       *pi,
                         const char  *option,
                         guint64     *bytes,
                         GError     **error)
{
  guint64 mb;

  if (!expect_token (tokens, ++(*pi), ":", error) ||
      !parse_unsigned (token_at (tokens, ++(*pi)), option, &mb, error))
    return FALSE;
  if (mb < GML_LARGE_BUFFER / MB)
    {
      g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                   _("%s must be at least 20 (it is %s)."), option, token_at (tokens, *pi));
      return FALSE;
    }
  *bytes = MIN (mb, G_MAXUINT64 / MB) * MB;
  return TRUE;
}

/* A decimal fraction, as std::stod() reads it in the C locale, but the whole
 * token: "0.5" and "5e-1", not "0,5" nor "0.5x". */
static gboolean
parse_fraction (GPtrArray   *tokens,
                guint       *pi,
                const char  *option,
                double      *value,
                GError     **error)
{
  const char *token;
  char *end = NULL;

  if (!expect_token (tokens, ++(*pi), ":", error))
    return FALSE;
  token = token_at (tokens, ++(*pi));
  *value = g_ascii_strtod (token, &end);
  if (*token == '\0' || end == NULL || *end != '\0' || *value != *value)
    {
      g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                   _("Invalid value “%s” for the allocator setting “%s”."), token, option);
      return FALSE;
    }
  return TRUE;
}

/* One key and its value, at tokens[*pi]; *pi is left on the value's last token.
 * The keys and checks of AcceleratorAllocatorConfig::parseArgs()
 * (c10/core/AllocatorConfig.cpp) and CUDAAllocatorConfig::parseArgs()
 * (c10/cuda/CUDAAllocatorConfig.cpp), PyTorch 2.9; the messages say what
 * PyTorch's own say. */
static gboolean
parse_key (GmlAllocConf *conf,
           GPtrArray    *tokens,
           guint        *pi,
           GError      **error)
{
  const char *key = token_at (tokens, *pi);

  if (g_str_equal (key, "max_split_size_mb"))
    return parse_megabytes_from_20 (tokens, pi, key, &conf->max_split_size, error);

  if (g_str_equal (key, "max_non_split_rounding_mb"))
    return parse_megabytes_from_20 (tokens, pi, key, &conf->max_non_split_rounding_size, error);

  if (g_str_equal (key, "roundup_power2_divisions"))
    return parse_divisions (conf, tokens, pi, error);

  if (g_str_equal (key, "expandable_segments"))
    return parse_bool (tokens, pi, key, &conf->expandable_segments, error);

  if (g_str_equal (key, "garbage_collection_threshold"))
    {
      double threshold;

      if (!parse_fraction (tokens, pi, key, &threshold, error))
        return FALSE;
      /* parseGarbageCollectionThreshold(): "set it in (0.0, 1.0)". */
      if (!(threshold > 0.0 && threshold < 1.0))
        {
          g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                       _("garbage_collection_threshold must be more than 0 and less than 1 "
                         "(it is %s)."), token_at (tokens, *pi));
          return FALSE;
        }
      conf->garbage_collection_threshold = threshold;
      return TRUE;
    }

  if (g_str_equal (key, "per_process_memory_fraction"))
    {
      double fraction;

      if (!parse_fraction (tokens, pi, key, &fraction, error))
        return FALSE;
      /* parsePerProcessMemoryFraction() (newest PyTorch): "set it in [0.0, 1.0]". */
      if (!(fraction >= 0.0 && fraction <= 1.0))
        {
          g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                       _("per_process_memory_fraction must be from 0 to 1 (it is %s)."),
                       token_at (tokens, *pi));
          return FALSE;
        }
      conf->per_process_memory_fraction = fraction;
      return TRUE;
    }

  /* The ROCm spellings are accepted by PyTorch too. */
  if (g_str_equal (key, "release_lock_on_cudamalloc") ||
      g_str_equal (key, "release_lock_on_hipmalloc"))
    return parse_bool (tokens, pi, key, &conf->release_lock_on_cudamalloc, error);

  if (g_str_equal (key, "pinned_use_cuda_host_register") ||
      g_str_equal (key, "pinned_use_hip_host_register"))
    return parse_bool (tokens, pi, key, &conf->pinned_use_cuda_host_register, error);

  if (g_str_equal (key, "pinned_use_background_threads"))
    return parse_bool (tokens, pi, key, &conf->pinned_use_background_threads, error);

  if (g_str_equal (key, "graph_capture_record_stream_reuse"))
    return parse_bool (tokens, pi, key, &conf->graph_capture_record_stream_reuse, error);

  if (g_str_equal (key, "pinned_num_register_threads"))
    {
      guint64 threads;

      if (!expect_token (tokens, ++(*pi), ":", error) ||
          !parse_unsigned (token_at (tokens, ++(*pi)), key, &threads, error))
        return FALSE;
      /* parsePinnedNumRegisterThreads(): a power of two, at most
       * pinned_max_register_threads(), which is 128. */
      if (!is_power_of_2 (threads) || threads > 128)
        {
          g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                       _("pinned_num_register_threads must be a power of two from 1 to 128 "
                         "(it is %s)."), token_at (tokens, *pi));
          return FALSE;
        }
      conf->pinned_num_register_threads = threads;
      return TRUE;
    }

  if (g_str_equal (key, "pinned_reserve_segment_size_mb"))
    {
      guint64 mb;

      if (!expect_token (tokens, ++(*pi), ":", error) ||
          !parse_unsigned (token_at (tokens, ++(*pi)), key, &mb, error))
        return FALSE;
      if (mb == 0)
        {
          g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                       _("pinned_reserve_segment_size_mb must be more than 0."));
          return FALSE;
        }
      conf->pinned_reserve_segment_size_mb = mb;
      return TRUE;
    }

  if (g_str_equal (key, "backend"))
    {
      const char *value;

      if (!expect_token (tokens, ++(*pi), ":", error))
        return FALSE;
      value = token_at (tokens, ++(*pi));
      /* parseAllocatorConfig(): native or cudaMallocAsync. The second hands
       * every request to the driver's own pool, which the lab does not model. */
      if (g_str_equal (value, "native"))
        return TRUE;
      if (g_str_equal (value, "cudaMallocAsync"))
        g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                     _("backend:cudaMallocAsync is not modelled: the lab follows PyTorch’s "
                       "native caching allocator (backend:native)."));
      else
        g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                     _("Unknown allocator backend “%s”: the choices are native and "
                       "cudaMallocAsync."), value);
      return FALSE;
    }

  g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
               _("Unknown allocator setting “%s”; the lab understands "
                 "max_split_size_mb, max_non_split_rounding_mb, roundup_power2_divisions, "
                 "expandable_segments, garbage_collection_threshold, "
                 "per_process_memory_fraction, release_lock_on_cudamalloc, backend and the "
                 "pinned_* settings."), key);
  return FALSE;
}

/* Parses PYTORCH_ALLOC_CONF syntax into @conf (which keeps the settings the
 * string does not mention). A line pasted from a shell, with the variable's
 * name in front (PYTORCH_ALLOC_CONF=…, the newer name PyTorch reads first, or
 * PYTORCH_CUDA_ALLOC_CONF=…, the older one it still reads), is read as its
 * value. Separators are checked as the older consumeToken() did (newer
 * releases let a wrong one pass): a ',' between settings, a ':' after each
 * key. */
gboolean
gml_alloc_conf_parse (GmlAllocConf *conf,
                      const char   *str,
                      GError      **error)
{
  static const char * const names[] = {
    "PYTORCH_ALLOC_CONF=", "PYTORCH_CUDA_ALLOC_CONF=", "PYTORCH_HIP_ALLOC_CONF=",
  };
  g_autoptr(GPtrArray) tokens = NULL;
  GmlAllocConf result = *conf;

  g_return_val_if_fail (str != NULL, FALSE);

  while (*str == ' ')
    str++;
  for (guint n = 0; n < G_N_ELEMENTS (names); n++)
    if (g_str_has_prefix (str, names[n]))
      {
        str += strlen (names[n]);
        break;
      }

  tokens = lex_conf (str);
  for (guint i = 0; i < tokens->len; i++)
    {
      if (!parse_key (&result, tokens, &i, error))
        return FALSE;
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

/* gml-allocator.c — PyTorch's CUDA caching allocator, on top of a GmlDevice.
 *
 * The structure follows DeviceCachingAllocator in c10/cuda/CUDACachingAllocator.cpp
 * so that each function here can be read beside its PyTorch counterpart:
 * malloc → get_free_block → alloc_block → release_available_cached_blocks →
 * release_cached_blocks, alloc_found_block (split), free_block (merge).
 *
 * Modelled: rounding, roundup_power2_divisions, pools, segment sizes, best fit
 * per stream, splitting and merging, max_split_size_mb, the retry sequence,
 * empty_cache, statistics, the OOM message, a per-process limit (the device's
 * budget, like set_per_process_memory_fraction).
 * Left out: expandable segments, CUDA graphs and private pools, cross-stream
 * record_stream() (frees complete at once), garbage_collection_threshold, the
 * free-memory callbacks, the oversize_* statistics and the cumulative
 * ".allocated"/".freed" counters.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-allocator"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "gml-allocator.h"

#define MB G_GUINT64_CONSTANT (1048576)

/* One entry of a pool's ordered set of free blocks. The order is PyTorch's
 * BlockComparatorSize: stream, then size, then address. */
typedef struct
{
  guint32 stream;
  gint32  slot;
  guint64 size;
  guint64 address;
} FreeKey;

typedef struct
{
  FreeKey *keys;
  guint    len;
  guint    alloc;
} FreeIndex;

struct _GmlAllocator
{
  GmlDevice    *device;     /* borrowed */
  GmlAllocConf  conf;
  GmlMemState  *state;
  GmlTrace     *trace;
  FreeIndex     pools[GML_N_POOLS];
  char         *last_oom_message;
  gsize         n_events;   /* emitted, whether the trace keeps them or not */
  gboolean      keep_trace;
};

G_DEFINE_QUARK (gml-allocator-error-quark, gml_allocator_error)

/* ------------------------------------------------------------------------- */
/* Configuration                                                             */

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

static gboolean
is_power_of_2 (guint64 v)
{
  return v != 0 && (v & (v - 1)) == 0;
}

static guint
log2_floor (guint64 v)
{
  return 63 - __builtin_clzll (v);
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
          /* False is the default, so accepting it changes nothing. */
          if (!expect_token (tokens, ++i, ":", error))
            return FALSE;
          if (!g_str_equal (token_at (tokens, ++i), "False"))
            {
              g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_BAD_CONF,
                           _("The allocator setting “%s” is not modelled by the lab yet."),
                           "expandable_segments:True");
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
                         "max_split_size_mb and roundup_power2_divisions."), key);
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

/* ------------------------------------------------------------------------- */
/* Size rules                                                                */

guint64
gml_roundup_power2_next_division (guint64 size,
                                  guint64 divisions)
{
  guint64 power2_floor, power2_division, floor;

  if (is_power_of_2 (size))
    return size;
  g_return_val_if_fail (divisions >= 2, size);

  power2_floor = G_GUINT64_CONSTANT (1) << log2_floor (size);
  power2_division = power2_floor >> log2_floor (divisions);
  if (power2_division == 0)
    return power2_floor << 1;

  floor = size & ~(power2_division - 1);
  return floor == size ? size : floor + power2_division;
}

/* round_size(). Note the condition size > 512 × divisions, which is in the
 * source: below it the request keeps plain 512-byte rounding (so 1200 B with
 * 4 divisions becomes 1536 B, while 1200 KiB becomes 1280 KiB). */
guint64
gml_round_size (const GmlAllocConf *conf,
                guint64             size)
{
  guint64 divisions;

  if (size < GML_MIN_BLOCK_SIZE)
    return GML_MIN_BLOCK_SIZE;

  divisions = gml_alloc_conf_divisions_for_size (conf, size);
  /* 512 × divisions overflows from 2^55 divisions on; no size is bigger than that. */
  if (divisions > 1 && divisions < G_MAXUINT64 / GML_MIN_BLOCK_SIZE &&
      size > GML_MIN_BLOCK_SIZE * divisions)
    return gml_roundup_power2_next_division (size, divisions);

  return GML_MIN_BLOCK_SIZE * ((size + GML_MIN_BLOCK_SIZE - 1) / GML_MIN_BLOCK_SIZE);
}

/* get_allocation_size(): the segment a pool miss asks the device for. */
guint64
gml_allocation_size (guint64 size)
{
  if (size <= GML_SMALL_SIZE)
    return GML_SMALL_BUFFER;
  if (size < GML_MIN_LARGE_ALLOC)
    return GML_LARGE_BUFFER;
  return GML_ROUND_LARGE * ((size + GML_ROUND_LARGE - 1) / GML_ROUND_LARGE);
}

GmlPool
gml_pool_for_size (guint64 rounded_size)
{
  return rounded_size <= GML_SMALL_SIZE ? GML_POOL_SMALL : GML_POOL_LARGE;
}

/* c10's format_size(): "N bytes" up to 1024, then two decimals. Uses
 * g_ascii_formatd so that a Turkish locale does not print a decimal comma. */
char *
gml_format_size (guint64 size)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (size <= 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " bytes", size);
  if (size <= G_GUINT64_CONSTANT (1048576))
    return g_strconcat (g_ascii_formatd (buf, sizeof buf, "%.2f", (double) size / 1024.0),
                        " KiB", NULL);
  if (size <= G_GUINT64_CONSTANT (1073741824))
    return g_strconcat (g_ascii_formatd (buf, sizeof buf, "%.2f", (double) size / 1048576.0),
                        " MiB", NULL);
  return g_strconcat (g_ascii_formatd (buf, sizeof buf, "%.2f", (double) size / 1073741824.0),
                      " GiB", NULL);
}

/* ------------------------------------------------------------------------- */
/* The ordered sets of free blocks                                           */

static inline int
key_compare (const FreeKey *a,
             const FreeKey *b)
{
  if (a->stream != b->stream)
    return a->stream < b->stream ? -1 : 1;
  if (a->size != b->size)
    return a->size < b->size ? -1 : 1;
  if (a->address != b->address)
    return a->address < b->address ? -1 : 1;
  return 0;
}

/* First position whose key is not less than @key. */
static guint
index_lower_bound (const FreeIndex *index,
                   const FreeKey   *key)
{
  guint lo = 0, hi = index->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (key_compare (&index->keys[mid], key) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static inline FreeKey
key_for_block (const GmlBlock *b,
               gint32          slot)
{
  FreeKey key = { b->stream, slot, b->size, b->address };
  return key;
}

static void
index_insert (FreeIndex      *index,
              const GmlBlock *b,
              gint32          slot)
{
  FreeKey key = key_for_block (b, slot);
  guint pos = index_lower_bound (index, &key);

  if (index->len == index->alloc)
    {
      index->alloc = MAX (64, index->alloc * 2);
      index->keys = g_renew (FreeKey, index->keys, index->alloc);
    }
  memmove (&index->keys[pos + 1], &index->keys[pos], (index->len - pos) * sizeof (FreeKey));
  index->keys[pos] = key;
  index->len++;
}

static void
index_remove_at (FreeIndex *index,
                 guint      pos)
{
  memmove (&index->keys[pos], &index->keys[pos + 1], (index->len - pos - 1) * sizeof (FreeKey));
  index->len--;
}

static void
index_remove (FreeIndex      *index,
              const GmlBlock *b,
              gint32          slot)
{
  FreeKey key = key_for_block (b, slot);
  guint pos = index_lower_bound (index, &key);

  g_assert (pos < index->len && index->keys[pos].slot == slot);
  index_remove_at (index, pos);
}

/* ------------------------------------------------------------------------- */
/* The allocator                                                             */

GmlAllocator *
gml_allocator_new (GmlDevice          *device,
                   const GmlAllocConf *conf)
{
  GmlAllocator *self;

  g_return_val_if_fail (device != NULL, NULL);

  self = g_new0 (GmlAllocator, 1);
  self->device = device;
  if (conf)
    self->conf = *conf;
  else
    gml_alloc_conf_init (&self->conf);
  self->trace = gml_trace_new (0);
  self->state = gml_mem_state_new (gml_trace_get_labels (self->trace));
  self->keep_trace = TRUE;

  return self;
}

void
gml_allocator_destroy (GmlAllocator *self)
{
  if (self == NULL)
    return;

  /* Give every segment back, live tensors or not: the lab is closing. The
   * trace is not told; it ends where the program stopped. */
  for (guint s = 0; s < gml_mem_state_get_n_segment_slots (self->state); s++)
    {
      const GmlSegment *seg = gml_mem_state_get_segment (self->state, s);

      if (seg != NULL)
        gml_device_free (self->device, seg->address, NULL);
    }

  g_clear_pointer (&self->state, gml_mem_state_free);
  g_clear_pointer (&self->trace, gml_trace_free);
  g_free (self->pools[0].keys);
  g_free (self->pools[1].keys);
  g_free (self->last_oom_message);
  g_free (self);
}

/* Writes @ev to the trace and applies it: the only way the state changes. */
static gint32
emit (GmlAllocator  *self,
      GmlTraceEvent *ev)
{
  if (self->keep_trace)
    gml_trace_append (self->trace, self->state, ev);
  self->n_events++;
  return gml_mem_state_apply (self->state, ev);
}

void
gml_allocator_set_keep_trace (GmlAllocator *self,
                              gboolean      keep_trace)
{
  g_return_if_fail (self != NULL);
  /* A trace with a gap would rebuild wrong states after it. */
  g_return_if_fail (self->n_events == 0);

  self->keep_trace = !!keep_trace;
}

static inline const GmlBlock *
block_at (GmlAllocator *self,
          gint32        slot)
{
  return gml_mem_state_get_block (self->state, slot);
}

static inline gboolean
is_whole_segment (const GmlBlock *b)
{
  return b->prev < 0 && b->next < 0;
}

/* get_free_block(): the best fit on the same stream, with the max_split_size
 * limits. Only the single best fit is looked at, as in PyTorch. */
static gint
find_free_block (GmlAllocator *self,
                 GmlPool       pool,
                 guint32       stream,
                 guint64       size)
{
  FreeIndex *index = &self->pools[pool];
  FreeKey key = { stream, -1, size, 0 };
  guint64 max_split = self->conf.max_split_size;
  guint pos = index_lower_bound (index, &key);
  const FreeKey *found;

  if (pos >= index->len || index->keys[pos].stream != stream)
    return -1;
  found = &index->keys[pos];

  /* Do not hand an oversize block to a small request ... */
  if (size < max_split && found->size >= max_split)
    return -1;
  /* ... and round an oversize request up by less than 20 MiB only. */
  if (size >= max_split && found->size >= size + GML_LARGE_BUFFER)
    return -1;

  return (gint) pos;
}

static gint32
get_free_block (GmlAllocator *self,
                GmlPool       pool,
                guint32       stream,
                guint64       size)
{
  gint pos = find_free_block (self, pool, stream, size);
  gint32 slot;

  if (pos < 0)
    return -1;
  slot = self->pools[pool].keys[pos].slot;
  index_remove_at (&self->pools[pool], pos);
  return slot;
}

/* alloc_block(): a new segment from the device. Returns its block slot, or -1
 * when the device (or the per-process limit) has no room. Other device errors
 * are reported through @error. */
static gint32
alloc_block (GmlAllocator *self,
             GmlPool       pool,
             guint32       stream,
             guint64       alloc_size,
             gboolean      is_retry,
             GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  GmlTraceEvent ev = { 0 };
  guint64 budget = gml_device_get_budget (self->device);
  guint64 reserved = gml_mem_state_get_stats (self->state)->reserved_bytes[GML_STAT_ALL].current;
  guint64 address;

  /* set_per_process_memory_fraction: past the limit, the device is not asked. */
  if (budget > 0 && reserved + alloc_size > budget)
    return -1;

  if (!gml_device_alloc (self->device, alloc_size, &address, &local_error))
    {
      if (!g_error_matches (local_error, GML_DEVICE_ERROR, GML_DEVICE_ERROR_OUT_OF_MEMORY))
        g_propagate_error (error, g_steal_pointer (&local_error));
      return -1;
    }

  ev.kind = GML_EVENT_SEGMENT_ALLOC;
  ev.pool = pool;
  ev.flags = is_retry ? GML_EVENT_FLAG_RETRY : 0;
  ev.stream = stream;
  ev.block = -1;
  ev.address = address;
  ev.size = alloc_size;
  return emit (self, &ev);
}

/* release_block(): returns a whole free segment to the device. */
static void
release_block (GmlAllocator *self,
               gint32        slot)
{
  const GmlBlock *b = block_at (self, slot);
  GmlTraceEvent ev = { 0 };
  g_autoptr(GError) error = NULL;

  g_assert (b->state == GML_BLOCK_FREE && is_whole_segment (b));

  ev.kind = GML_EVENT_SEGMENT_FREE;
  ev.pool = b->pool;
  ev.stream = b->stream;
  ev.block = slot;
  ev.address = b->address;
  ev.size = b->size;

  if (!gml_device_free (self->device, b->address, &error))
    g_warning ("Could not return a segment to the device: %s", error->message);

  emit (self, &ev);
}

/* release_available_cached_blocks(): with max_split_size set, free oversize
 * cached blocks of this pool and stream, the largest first, until the request
 * would fit. PyTorch releases them as whole segments; a free oversize block is
 * always one, and a split one (which PyTorch would mishandle) is skipped. */
static gboolean
release_available_cached_blocks (GmlAllocator *self,
                                 GmlPool       pool,
                                 guint32       stream,
                                 guint64       size)
{
  FreeIndex *index = &self->pools[pool];
  guint64 max_split = self->conf.max_split_size;
  FreeKey key = { stream, -1, MAX (size, max_split), 0 };
  guint pos;

  if (max_split == G_MAXUINT64)
    return FALSE;

  pos = index_lower_bound (index, &key);
  if (pos >= index->len || index->keys[pos].stream != stream)
    {
      guint64 released = 0;
      guint it;

      /* No single block is large enough: free oversize blocks, largest first. */
      if (pos == 0)
        return FALSE;
      it = pos - 1;
      while (released < key.size &&
             index->keys[it].size >= max_split &&
             index->keys[it].stream == stream)
        {
          guint cur = it;
          gboolean is_first = cur == 0;
          gint32 slot = index->keys[cur].slot;
          guint64 cur_size = index->keys[cur].size;

          if (!is_first)
            it--;
          if (is_whole_segment (block_at (self, slot)))
            {
              index_remove_at (index, cur);
              release_block (self, slot);
              released += cur_size;
            }
          if (is_first)
            break;
        }
      if (released < key.size)
        return FALSE;
    }
  else
    {
      gint32 slot = index->keys[pos].slot;

      if (!is_whole_segment (block_at (self, slot)))
        return FALSE;
      index_remove_at (index, pos);
      release_block (self, slot);
    }

  return TRUE;
}

/* release_blocks() for one pool: every cached block that is a whole segment,
 * in the pool's order. */
static void
release_pool (GmlAllocator *self,
              GmlPool       pool)
{
  FreeIndex *index = &self->pools[pool];
  guint i = 0;

  while (i < index->len)
    {
      gint32 slot = index->keys[i].slot;

      if (is_whole_segment (block_at (self, slot)))
        {
          index_remove_at (index, i);
          release_block (self, slot);
        }
      else
        {
          i++;
        }
    }
}

/* release_cached_blocks(): the large pool first, then the small one. */
static void
release_cached_blocks (GmlAllocator *self)
{
  release_pool (self, GML_POOL_LARGE);
  release_pool (self, GML_POOL_SMALL);
}

static char *
format_oom_message (GmlAllocator *self,
                    guint64       alloc_size,
                    guint64       device_free,
                    guint64       device_total)
{
  const GmlStats *stats = gml_mem_state_get_stats (self->state);
  guint64 allocated = stats->allocated_bytes[GML_STAT_ALL].current;
  guint64 reserved = stats->reserved_bytes[GML_STAT_ALL].current;
  guint64 budget = gml_device_get_budget (self->device);
  g_autofree char *tried = gml_format_size (alloc_size);
  g_autofree char *total = gml_format_size (device_total);
  g_autofree char *free_ = gml_format_size (device_free);
  g_autofree char *allowed = budget > 0 ? gml_format_size (budget) : NULL;
  g_autofree char *by_pytorch = gml_format_size (allocated);
  g_autofree char *unallocated = gml_format_size (reserved - allocated);

  /* PyTorch's text, deliberately not translated: it is what a student will
   * see (and search for) in their own training run. The process-memory
   * sentence ("Including non-PyTorch memory, …") needs NVML, so it is left
   * out, as PyTorch does when it cannot tell. */
  return g_strconcat ("CUDA out of memory. Tried to allocate ", tried,
                      ". GPU 0 has a total capacity of ", total,
                      " of which ", free_, " is free. ",
                      allowed ? allowed : "", allowed ? " allowed; " : "",
                      "Of the allocated memory ", by_pytorch,
                      " is allocated by PyTorch, and ", unallocated,
                      " is reserved by PyTorch but unallocated."
                      " If reserved but unallocated memory is large try setting"
                      " PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid"
                      " fragmentation.  See documentation for Memory Management "
                      " (https://docs.pytorch.org/docs/stable/notes/cuda.html"
                      "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)",
                      NULL);
}

gboolean
gml_allocator_malloc (GmlAllocator *self,
                      guint64       orig_size,
                      guint32       stream,
                      const char   *label,
                      GmlCategory   category,
                      gint32       *block_id,
                      GError      **error)
{
  GError *device_error = NULL;
  GmlTraceEvent ev = { 0 };
  guint64 size, alloc_size, remaining;
  GmlPool pool;
  gint32 slot, rest;
  const GmlBlock *b;
  gboolean split;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (category < GML_N_CATEGORIES, FALSE);

  if (block_id)
    *block_id = -1;

  /* PyTorch hands out a null pointer for 0 bytes and touches nothing. */
  if (orig_size == 0)
    return TRUE;

  size = gml_round_size (&self->conf, orig_size);
  pool = gml_pool_for_size (size);
  alloc_size = gml_allocation_size (size);

  slot = get_free_block (self, pool, stream, size);

  if (slot < 0)
    {
      slot = alloc_block (self, pool, stream, alloc_size, FALSE, &device_error);
      if (slot < 0 && device_error == NULL &&
          release_available_cached_blocks (self, pool, stream, size))
        slot = alloc_block (self, pool, stream, alloc_size, FALSE, &device_error);
      if (slot < 0 && device_error == NULL)
        {
          release_cached_blocks (self);
          slot = alloc_block (self, pool, stream, alloc_size, TRUE, &device_error);
        }
      if (device_error != NULL)
        {
          g_propagate_error (error, device_error);
          return FALSE;
        }
    }

  if (slot < 0)
    {
      guint64 device_free = 0, device_total = 0;
      g_autoptr(GError) info_error = NULL;

      if (!gml_device_mem_get_info (self->device, &device_free, &device_total, &info_error))
        g_debug ("mem_get_info failed: %s", info_error->message);

      ev.kind = GML_EVENT_OOM;
      ev.pool = pool;
      ev.category = category;
      ev.stream = stream;
      ev.block = -1;
      ev.label = gml_trace_intern_label (self->trace, label);
      ev.address = device_free;
      ev.size = alloc_size;
      ev.requested_size = orig_size;
      emit (self, &ev);

      g_free (self->last_oom_message);
      self->last_oom_message = format_oom_message (self, alloc_size, device_free, device_total);
      g_set_error_literal (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_OUT_OF_MEMORY,
                           self->last_oom_message);
      return FALSE;
    }

  /* alloc_found_block(): split by should_split(), the allocation keeping the
   * low address. */
  b = block_at (self, slot);
  remaining = b->size - size;
  if (pool == GML_POOL_SMALL)
    split = remaining >= GML_MIN_BLOCK_SIZE;
  else
    split = size < self->conf.max_split_size && remaining > GML_SMALL_SIZE;

  ev.kind = GML_EVENT_ALLOC;
  ev.pool = pool;
  ev.category = category;
  ev.stream = stream;
  ev.block = slot;
  ev.label = gml_trace_intern_label (self->trace, label);
  ev.address = b->address;
  ev.size = split ? size : b->size;
  ev.requested_size = orig_size;
  rest = emit (self, &ev);
  if (rest >= 0)
    index_insert (&self->pools[pool], block_at (self, rest), rest);

  if (block_id)
    *block_id = slot;
  return TRUE;
}

gboolean
gml_allocator_free_requested (GmlAllocator *self,
                              gint32        block_id,
                              GError      **error)
{
  GmlTraceEvent ev = { 0 };
  const GmlBlock *b;

  g_return_val_if_fail (self != NULL, FALSE);

  b = block_id >= 0 ? block_at (self, block_id) : NULL;
  if (b == NULL || b->state != GML_BLOCK_ALLOCATED)
    {
      g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_INVALID_BLOCK,
                   _("Block %d is not allocated."), block_id);
      return FALSE;
    }

  ev.kind = GML_EVENT_FREE_REQUESTED;
  ev.pool = b->pool;
  ev.category = b->category;
  ev.stream = b->stream;
  ev.block = block_id;
  ev.label = b->label;
  ev.address = b->address;
  ev.size = b->size;
  ev.requested_size = b->requested_size;
  emit (self, &ev);
  return TRUE;
}

gboolean
gml_allocator_free_completed (GmlAllocator *self,
                              gint32        block_id,
                              GError      **error)
{
  GmlTraceEvent ev = { 0 };
  const GmlBlock *b;
  FreeIndex *index;
  gint32 neighbours[2];

  g_return_val_if_fail (self != NULL, FALSE);

  b = block_id >= 0 ? block_at (self, block_id) : NULL;
  if (b == NULL || b->state != GML_BLOCK_PENDING_FREE)
    {
      g_set_error (error, GML_ALLOCATOR_ERROR, GML_ALLOCATOR_ERROR_INVALID_BLOCK,
                   _("Block %d is not waiting to be freed."), block_id);
      return FALSE;
    }

  /* free_block(): the free neighbours it swallows leave the pool's ordered
   * set first, the merged block goes back in. */
  index = &self->pools[b->pool];
  neighbours[0] = b->prev;
  neighbours[1] = b->next;
  for (guint i = 0; i < 2; i++)
    if (neighbours[i] >= 0 && block_at (self, neighbours[i])->state == GML_BLOCK_FREE)
      index_remove (index, block_at (self, neighbours[i]), neighbours[i]);

  ev.kind = GML_EVENT_FREE_COMPLETED;
  ev.pool = b->pool;
  ev.category = b->category;
  ev.stream = b->stream;
  ev.block = block_id;
  ev.label = b->label;
  ev.address = b->address;
  ev.size = b->size;
  ev.requested_size = b->requested_size;
  emit (self, &ev);
  index_insert (index, block_at (self, block_id), block_id);
  return TRUE;
}

gboolean
gml_allocator_free (GmlAllocator *self,
                    gint32        block_id,
                    GError      **error)
{
  /* No other stream used the block (record_stream() is not modelled), so
   * free_block() follows free() at once. */
  return gml_allocator_free_requested (self, block_id, error) &&
         gml_allocator_free_completed (self, block_id, error);
}

gboolean
gml_allocator_would_reuse (GmlAllocator *self,
                           guint64       size,
                           guint32       stream)
{
  guint64 rounded;

  g_return_val_if_fail (self != NULL, FALSE);

  if (size == 0)
    return TRUE;
  rounded = gml_round_size (&self->conf, size);
  return find_free_block (self, gml_pool_for_size (rounded), stream, rounded) >= 0;
}

gint32
gml_allocator_add_segment (GmlAllocator       *self,
                           guint64             address,
                           guint32             stream,
                           GmlPool             pool,
                           const GmlBlockSpec *blocks,
                           guint               n_blocks)
{
  gint32 segment;
  gint32 slot;

  g_return_val_if_fail (self != NULL, -1);
  /* The trace starts from the state as it is at its first event. */
  g_return_val_if_fail (self->n_events == 0, -1);

  segment = gml_mem_state_add_segment (self->state, address, stream, pool, blocks, n_blocks);
  if (segment < 0)
    return -1;
  for (slot = gml_mem_state_get_segment (self->state, segment)->first_block; slot >= 0;
       slot = block_at (self, slot)->next)
    if (block_at (self, slot)->state == GML_BLOCK_FREE)
      index_insert (&self->pools[pool], block_at (self, slot), slot);
  return segment;
}

void
gml_allocator_empty_cache (GmlAllocator *self)
{
  GmlTraceEvent ev = { 0 };

  g_return_if_fail (self != NULL);

  ev.kind = GML_EVENT_EMPTY_CACHE;
  ev.block = -1;
  emit (self, &ev);
  release_cached_blocks (self);
}

GmlDevice *
gml_allocator_get_device (GmlAllocator *self)
{
  return self->device;
}

const GmlAllocConf *
gml_allocator_get_conf (GmlAllocator *self)
{
  return &self->conf;
}

const GmlStats *
gml_allocator_get_stats (GmlAllocator *self)
{
  return gml_mem_state_get_stats (self->state);
}

const GmlMemState *
gml_allocator_get_state (GmlAllocator *self)
{
  return self->state;
}

GmlTrace *
gml_allocator_get_trace (GmlAllocator *self)
{
  return self->trace;
}

const char *
gml_allocator_get_last_oom_message (GmlAllocator *self)
{
  return self->last_oom_message;
}

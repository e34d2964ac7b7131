/* gml-snapshot-frames.c — whose code a stack frame is, and the user's line.
 *
 * Every stack PyTorch records with C++ frames starts with its own capture
 * machinery (torch::unwind::unwind(), torch::CapturedTraceback::gather,
 * gather_with_cpp(), the caching allocator), then the operator or the
 * autograd engine, then the interpreter's C frames, and only then the Python
 * frames, innermost first. What a person looking for "who allocated this"
 * wants is the innermost Python frame of their own code:
 *
 *   1. the innermost Python frame outside the torch package and outside
 *      installed libraries (site-packages, dist-packages, the standard
 *      library);
 *   2. else the innermost Python frame outside torch (a library's);
 *   3. else any Python frame (torch's own);
 *   4. else, for a stack with only C++ frames, the autograd node that ran
 *      (MeanBackward0::apply): backward runs on the engine's own thread, so
 *      gradients often carry no Python frame at all;
 *   5. else the first C++ frame past the capture machinery.
 *
 * Each frame is looked at once, when the file has been read, and each
 * distinct frame list once: a real file shares its few thousand stacks
 * between hundreds of thousands of entries. What is kept per frame list is
 * also what the categories need (gml-snapshot-category.c): whether the stack
 * runs in the optimizer, in backward, in a module's forward, or makes a
 * parameter.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-snapshot"

#include "config.h"

#include <string.h>

#include "gml-i18n.h"

#include "gml-snapshot-private.h"

/* ------------------------------------------------------------------------- */
/* One frame                                                                 */

static gboolean
ends_with_ci (const char *str,
              gsize       len,
              const char *suffix)
{
  gsize n = strlen (suffix);

  return len >= n && g_ascii_strncasecmp (str + len - n, suffix, n) == 0;
}

/* Whether @path has the directory @dir ("torch", "torch/optim") in it, with
 * either kind of slash: "/…/torch/nn/…", "C:\…\torch\optim\…", "torch/…". */
static gboolean
path_has_dir (const char *path,
              const char *dir)
{
  gsize n = strlen (dir);

  for (const char *p = path; *p != '\0'; p++)
    {
      gboolean at_start = p == path || p[-1] == '/' || p[-1] == '\\';
      gsize i;

      if (!at_start)
        continue;
      for (i = 0; i < n; i++)
        {
          char c = p[i], d = dir[i];

          if (c == '\0')
            break;
          if (d == '/' ? (c != '/' && c != '\\') : c != d)
            break;
        }
      if (i == n && (p[n] == '/' || p[n] == '\\'))
        return TRUE;
    }
  return FALSE;
}

/* Python's own library: /usr/lib/python3.11/…, …/lib/python3.10/ of a conda
 * or virtual environment, C:\Python310\Lib\…, …\cpython-3.10…\lib\… (uv). */
static gboolean
is_standard_library (const char *path)
{
  if (strstr (path, "/lib/python") != NULL || strstr (path, "/lib/pypy") != NULL ||
      strstr (path, "\\Lib\\") != NULL)
    return TRUE;
  for (const char *p = strchr (path, '\\'); p != NULL; p = strchr (p + 1, '\\'))
    {
      const char *start = p;

      if (g_ascii_strncasecmp (p, "\\lib\\", 5) != 0)
        continue;
      /* The component before "\lib\" names a Python installation. */
      while (start > path && start[-1] != '\\' && start[-1] != '/' && start[-1] != ':')
        start--;
      if (g_ascii_strncasecmp (start, "python", 6) == 0 ||
          g_ascii_strncasecmp (start, "cpython", 7) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Names of the Python functions that make a model's parameters: a module's
 * construction, moving it (.to(), .cuda(), _apply), loading weights into it
 * (load_state_dict, torch.load with a CUDA map_location, the loaders of
 * transformers and accelerate). */
static const char * const parameter_functions[] = {
  "__init__", "to", "cuda", "_apply", "load_state_dict", "_load_from_state_dict", "from_pretrained",
  "set_module_tensor_to_device", "_rebuild_tensor", "_rebuild_tensor_v2", "restore_location",
  "_cuda_deserialize", "reset_parameters", "_load_state_dict_into_meta_model", "dispatch_model",
  "load_checkpoint_and_dispatch",
};

/* PyTorch's stack capture and the allocator: the innermost frames of every
 * C++ stack, never the answer to "who allocated this". */
static const char * const capture_machinery[] = {
  "torch::unwind::", "torch::CapturedTraceback::", "gather_with_cpp",
  "c10::cuda::CUDACachingAllocator::", "c10::CachingDeviceAllocator::", "c10::cuda::CUDAAllocator",
  "c10::CachingAllocator",
};

static gboolean
contains_any (const char         *str,
              const char * const *needles,
              guint               n)
{
  for (guint i = 0; i < n; i++)
    if (strstr (str, needles[i]) != NULL)
      return TRUE;
  return FALSE;
}

static guint
classify_frame (GmlSnapshot            *self,
                const GmlSnapshotFrame *frame)
{
  const char *file = gml_snapshot_get_string (self, frame->filename);
  const char *name = gml_snapshot_get_string (self, frame->name);
  gsize len;
  guint flags = 0;

  if (file == NULL)
    file = "";
  if (name == NULL)
    name = "";
  len = strlen (file);

  if (ends_with_ci (file, len, ".py") || ends_with_ci (file, len, ".pyw") ||
      (len >= 2 && file[0] == '<' && file[len - 1] == '>'))
    {
      flags |= GML_SNAP_FRAME_PYTHON;
      if (path_has_dir (file, "torch"))
        flags |= GML_SNAP_FRAME_TORCH;
      else if (strstr (file, "site-packages") != NULL || strstr (file, "dist-packages") != NULL ||
               is_standard_library (file) || g_str_has_prefix (file, "<frozen") ||
               g_str_has_prefix (file, "<string>") || g_str_has_prefix (file, "<built-in"))
        flags |= GML_SNAP_FRAME_LIBRARY;
      if (path_has_dir (file, "torch/optim"))
        flags |= GML_SNAP_FRAME_OPTIM;
      /* loss.backward() and torch.autograd.grad() on the calling thread. */
      if ((path_has_dir (file, "torch/autograd") &&
           (g_str_equal (name, "backward") || g_str_equal (name, "grad") ||
            g_str_equal (name, "_engine_run_backward"))) ||
          ((ends_with_ci (file, len, "torch/_tensor.py") ||
            ends_with_ci (file, len, "torch\\_tensor.py")) && g_str_equal (name, "backward")))
        flags |= GML_SNAP_FRAME_BACKWARD;
      for (guint i = 0; i < G_N_ELEMENTS (parameter_functions); i++)
        if (g_str_equal (name, parameter_functions[i]))
          flags |= GML_SNAP_FRAME_PARAMETER;
      if (path_has_dir (file, "torch") && strstr (file, "serialization.py") != NULL)
        flags |= GML_SNAP_FRAME_PARAMETER;
      if (g_str_equal (name, "zero_grad"))
        flags |= GML_SNAP_FRAME_ZERO_GRAD;
      return flags;
    }

  /* C++, or the interpreter's own C frames (ceval.c, call.c): PyTorch's side. */
  if (contains_any (name, capture_machinery, G_N_ELEMENTS (capture_machinery)))
    flags |= GML_SNAP_FRAME_CAPTURE;
  if (strstr (name, "torch::autograd::Engine::") != NULL ||
      strstr (name, "torch::autograd::python::PythonEngine::") != NULL)
    flags |= GML_SNAP_FRAME_BACKWARD;
  if ((strstr (name, "torch::autograd::generated::") != NULL &&
       strstr (name, "::apply(") != NULL) ||
      strstr (name, "torch::autograd::AccumulateGrad::apply(") != NULL)
    flags |= GML_SNAP_FRAME_NODE;
  if (strstr (name, "THPVariable_cuda(") != NULL)
    flags |= GML_SNAP_FRAME_PARAMETER;
  return flags;
}

/* ------------------------------------------------------------------------- */
/* Frame lists                                                               */

static guint32
find_where (GmlSnapshot   *self,
            const guint32 *ids,
            guint          n)
{
  guint32 library = 0, torch = 0, node = 0, past_capture = 0, any = 0;

  for (guint i = 0; i < n; i++)
    {
      guint32 id = ids[i];
      guint flags;

      if (id == 0 || id >= self->frames->len)
        continue;
      flags = self->frame_flags[id];
      if (any == 0)
        any = id;
      if (flags & GML_SNAP_FRAME_PYTHON)
        {
          if (!(flags & (GML_SNAP_FRAME_TORCH | GML_SNAP_FRAME_LIBRARY)))
            return id;
          if (!(flags & GML_SNAP_FRAME_TORCH) && library == 0)
            library = id;
          if (torch == 0)
            torch = id;
          continue;
        }
      if ((flags & GML_SNAP_FRAME_NODE) && node == 0)
        node = id;
      if (!(flags & GML_SNAP_FRAME_CAPTURE) && past_capture == 0)
        past_capture = id;
    }
  if (library != 0)
    return library;
  if (torch != 0)
    return torch;
  if (node != 0)
    return node;
  return past_capture != 0 ? past_capture : any;
}

static guint8
list_flags (GmlSnapshot   *self,
            const guint32 *ids,
            guint          n)
{
  guint all = 0;
  guint8 out;

  for (guint i = 0; i < n; i++)
    if (ids[i] != 0 && ids[i] < self->frames->len)
      all |= self->frame_flags[ids[i]];
  if (all & GML_SNAP_FRAME_OPTIM)
    out = GML_SNAP_PHASE_OPTIMIZER;
  else if (all & GML_SNAP_FRAME_BACKWARD)
    out = GML_SNAP_PHASE_BACKWARD;
  else if (all & GML_SNAP_FRAME_PYTHON)
    out = GML_SNAP_PHASE_FORWARD;
  else
    out = GML_SNAP_PHASE_NONE;
  if (all & GML_SNAP_FRAME_PARAMETER)
    out |= GML_SNAP_LIST_PARAMETER;
  if (n > 0)
    out |= GML_SNAP_LIST_HAS_FRAMES;
  if (all & GML_SNAP_FRAME_ZERO_GRAD)
    out |= GML_SNAP_LIST_ZERO_GRAD;
  return out;
}

void
gml_snapshot_classify_frames (GmlSnapshot *self)
{
  guint n_lists = self->frame_lists->len / 2;

  self->frame_flags = g_renew (guint16, self->frame_flags, self->frames->len);
  for (guint i = 0; i < self->frames->len; i++)
    self->frame_flags[i] = i == 0 ? 0 : classify_frame (self, &g_array_index (self->frames,
                                                                              GmlSnapshotFrame, i));

  self->list_where = g_renew (guint32, self->list_where, MAX (n_lists, 1));
  self->list_flags = g_renew (guint8, self->list_flags, MAX (n_lists, 1));
  for (guint l = 0; l < n_lists; l++)
    {
      guint n;
      const guint32 *ids = gml_snapshot_get_frame_list (self, l, &n);

      self->list_where[l] = find_where (self, ids, n);
      self->list_flags[l] = list_flags (self, ids, n);
    }
  self->n_classified_lists = n_lists;
}

guint8
gml_snapshot_get_list_flags (GmlSnapshot *self,
                             guint32      frames)
{
  return frames < self->n_classified_lists ? self->list_flags[frames] : 0;
}

/* ------------------------------------------------------------------------- */
/* Words                                                                     */

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');
  const char *backslash = strrchr (path, '\\');

  if (backslash != NULL && (slash == NULL || backslash > slash))
    slash = backslash;
  return slash ? slash + 1 : path;
}

/* A C++ name without its return type and its parameters:
 * "at::TensorBase at::detail::_empty_generic<long>(c10::ArrayRef<long>, …)"
 * → "at::detail::_empty_generic<long>"; an autograd node loses its namespace. */
static char *
short_cpp_name (const char *name)
{
  const char *start = name, *end = NULL;
  int depth = 0;
  char *out;

  for (const char *p = name; *p != '\0'; p++)
    {
      if (*p == '<')
        depth++;
      else if (*p == '>' && depth > 0)
        depth--;
      else if (*p == ' ' && depth == 0 && end == NULL)
        start = p + 1;
      else if (*p == '(' && depth == 0 && p != name)
        {
          end = p;
          break;
        }
    }
  /* "(anonymous namespace)" is part of a name, not its parameters. */
  while (end != NULL && g_str_has_prefix (end, "(anonymous namespace)"))
    {
      const char *next = strchr (end + 1, '(');

      end = next;
    }
  if (end == NULL || end < start)
    end = name + strlen (name);
  out = g_strndup (start, end - start);
  if (g_str_has_prefix (out, "torch::autograd::generated::"))
    {
      char *shorter = g_strdup (out + strlen ("torch::autograd::generated::"));

      g_free (out);
      out = shorter;
    }
  return out;
}

char *
gml_snapshot_format_frame (GmlSnapshot *self,
                           guint32      frame_id)
{
  const GmlSnapshotFrame *frame = gml_snapshot_get_frame (self, frame_id);
  const char *name, *file;

  if (frame == NULL)
    return NULL;
  name = gml_snapshot_get_string (self, frame->name);
  file = gml_snapshot_get_string (self, frame->filename);
  if (name == NULL || name[0] == '\0')
    name = "??";
  if (!(self->frame_flags[frame_id] & GML_SNAP_FRAME_PYTHON))
    {
      if (file != NULL && file[0] != '\0' && !g_str_equal (file, "??") && frame->line > 0)
        return g_strdup_printf ("%s:%d %s", base_name (file), frame->line, name);
      return short_cpp_name (name);
    }
  if (frame->line <= 0)
    return g_strdup_printf ("%s %s", base_name (file), name);
  return g_strdup_printf ("%s:%d %s", base_name (file), frame->line, name);
}

GmlSnapshotFrameGroup
gml_snapshot_get_frame_group (GmlSnapshot *self,
                              guint32      frame_id)
{
  guint flags;

  if (frame_id == 0 || frame_id >= self->frames->len)
    return GML_SNAP_FRAME_GROUP_INTERNAL;
  flags = self->frame_flags[frame_id];
  if (!(flags & GML_SNAP_FRAME_PYTHON) || (flags & GML_SNAP_FRAME_TORCH))
    return GML_SNAP_FRAME_GROUP_INTERNAL;
  if (flags & GML_SNAP_FRAME_LIBRARY)
    return GML_SNAP_FRAME_GROUP_LIBRARY;
  return GML_SNAP_FRAME_GROUP_USER;
}

guint32
gml_snapshot_get_where_frame (GmlSnapshot *self,
                              guint32      frames)
{
  return frames < self->n_classified_lists ? self->list_where[frames] : 0;
}

char *
gml_snapshot_describe_frames (GmlSnapshot *self,
                              guint32      frames)
{
  return gml_snapshot_format_frame (self, gml_snapshot_get_where_frame (self, frames));
}

char *
gml_snapshot_format_stack (GmlSnapshot *self,
                           guint32      frames,
                           guint        max_frames)
{
  GString *out = g_string_new (NULL);
  guint n, shown = 0, internal = 0, skipped = 0;
  const guint32 *ids = gml_snapshot_get_frame_list (self, frames, &n);

  /* The user's frames, then the libraries', innermost first; PyTorch's and
   * the C++ ones only counted. */
  for (int group = GML_SNAP_FRAME_GROUP_USER; group <= GML_SNAP_FRAME_GROUP_LIBRARY; group++)
    for (guint i = 0; i < n; i++)
      {
        g_autofree char *text = NULL;

        if (gml_snapshot_get_frame (self, ids[i]) == NULL ||
            (int) gml_snapshot_get_frame_group (self, ids[i]) != group)
          continue;
        if (shown >= max_frames)
          {
            skipped++;
            continue;
          }
        text = gml_snapshot_format_frame (self, ids[i]);
        if (out->len > 0)
          g_string_append_c (out, '\n');
        g_string_append (out, text);
        shown++;
      }
  for (guint i = 0; i < n; i++)
    if (gml_snapshot_get_frame (self, ids[i]) != NULL &&
        gml_snapshot_get_frame_group (self, ids[i]) == GML_SNAP_FRAME_GROUP_INTERNAL)
      internal++;
  if (shown == 0 && internal > 0)
    {
      /* Only PyTorch's frames: the line chosen for it, then the count. */
      g_autofree char *where = gml_snapshot_describe_frames (self, frames);

      g_string_append (out, where);
      internal--;
    }
  if (skipped > 0)
    {
      if (out->len > 0)
        g_string_append_c (out, '\n');
      /* Translators: %u is a number of stack frames of the program and its libraries not shown. */
      g_string_append_printf (out, ngettext ("… and %u more frame", "… and %u more frames",
                                             skipped), skipped);
    }
  if (internal > 0)
    {
      if (out->len > 0)
        g_string_append_c (out, '\n');
      /* Translators: %u is a number of stack frames inside PyTorch and its C++ code, not shown. */
      g_string_append_printf (out, ngettext ("… and %u frame inside PyTorch (C++ and Python)",
                                             "… and %u frames inside PyTorch (C++ and Python)",
                                             internal), internal);
    }
  return g_string_free (out, out->len == 0);
}

/* gml-input.c — limits on what the lab reads from files it did not write.
 *
 * A question bank, an answer log or a trace can be anything: a 2 GB file, a device
 * that never ends, JSON nested 100 000 levels deep. These checks refuse such input
 * cheaply and with a sentence a person can act on, before a parser sees it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-input"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gml-i18n.h"
#include <glib/gstdio.h>

#include "gml-format.h"
#include "gml-input.h"

G_DEFINE_QUARK (gml-input-error-quark, gml_input_error)

/* @exact: @size is the file's size (a regular file); otherwise only that more than
 * the limit could be read (a pipe, a device). */
static gboolean
too_big (GError  **error,
         guint64   size,
         gsize     max_size,
         gboolean  exact)
{
  g_autofree char *size_text = gml_format_size (size);
  g_autofree char *limit_text = gml_format_size (max_size);

  if (exact)
    /* Translators: %1$s is the file's size, %2$s the limit, e.g. "2.00 GiB", "16.00 MiB". */
    g_set_error (error, GML_INPUT_ERROR, GML_INPUT_ERROR_TOO_BIG,
                 _("the file is too big (%1$s; the limit is %2$s)"), size_text, limit_text);
  else
    /* Translators: %s is the limit, e.g. "16.00 MiB". */
    g_set_error (error, GML_INPUT_ERROR, GML_INPUT_ERROR_TOO_BIG,
                 _("the file is bigger than the limit of %s"), limit_text);
  return FALSE;
}

static gboolean
read_failed (GError **error,
             int      saved_errno)
{
  g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                       g_strerror (saved_errno));
  return FALSE;
}

/* Opens @path for reading, refusing a directory and a regular file bigger than
 * @max_size (from its size, before reading a byte). */
static gboolean
open_checked (const char   *path,
              gsize         max_size,
              int          *fd_out,
              struct stat  *st,
              GError      **error)
{
  int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);

  if (fd < 0)
    return read_failed (error, errno);

  if (fstat (fd, st) != 0)
    {
      int saved_errno = errno;

      g_close (fd, NULL);
      return read_failed (error, saved_errno);
    }
  if (S_ISDIR (st->st_mode))
    {
      g_close (fd, NULL);
      return read_failed (error, EISDIR);
    }
  if (S_ISREG (st->st_mode) && (guint64) st->st_size > max_size)
    {
      g_close (fd, NULL);
      return too_big (error, st->st_size, max_size, TRUE);
    }

  *fd_out = fd;
  return TRUE;
}

/* Like g_file_get_contents(), but refuses a file bigger than @max_size before
 * reading it (from its size when it is a regular file, and while reading when it is
 * not, so /dev/zero is refused too). The contents are NUL-terminated. A missing
 * file gives G_FILE_ERROR_NOENT, as g_file_get_contents() does. */
gboolean
gml_input_read_file (const char  *path,
                     gsize        max_size,
                     char       **contents,
                     gsize       *length,
                     GError     **error)
{
  g_autofree char *buffer = NULL;
  gsize allocated = 0, used = 0;
  struct stat st;
  int fd;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (contents != NULL, FALSE);

  if (!open_checked (path, max_size, &fd, &st, error))
    return FALSE;

  allocated = S_ISREG (st.st_mode) ? (gsize) st.st_size + 1 : 4096;
  buffer = g_malloc (allocated);
  for (;;)
    {
      gssize n;

      if (used + 1 >= allocated)
        {
          allocated = MIN (allocated * 2, max_size + 2);
          buffer = g_realloc (buffer, allocated);
        }
      n = read (fd, buffer + used, allocated - used - 1);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved_errno = errno;

          g_close (fd, NULL);
          return read_failed (error, saved_errno);
        }
      if (n == 0)
        break;
      used += n;
      /* The file grew while it was read, or it is not a regular file. */
      if (used > max_size)
        {
          g_close (fd, NULL);
          return too_big (error, used, max_size, FALSE);
        }
    }
  g_close (fd, NULL);

  buffer[used] = '\0';
  if (length != NULL)
    *length = used;
  *contents = g_steal_pointer (&buffer);
  return TRUE;
}

struct _GmlInputReader
{
  int     fd;
  gsize   max_size;
  guint64 n_read;
};

GmlInputReader *
gml_input_reader_open (const char  *path,
                       gsize        max_size,
                       GError     **error)
{
  GmlInputReader *self;
  struct stat st;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  if (!open_checked (path, max_size, &fd, &st, error))
    return NULL;

  self = g_new0 (GmlInputReader, 1);
  self->fd = fd;
  self->max_size = max_size;
  return self;
}

gssize
gml_input_reader_read (GmlInputReader  *self,
                       char            *buffer,
                       gsize            size,
                       GError         **error)
{
  gssize n;

  g_return_val_if_fail (self != NULL && self->fd >= 0, -1);

  do
    n = read (self->fd, buffer, MIN (size, G_MAXSSIZE));
  while (n < 0 && errno == EINTR);

  if (n < 0)
    {
      read_failed (error, errno);
      return -1;
    }

  self->n_read += n;
  /* The file grew while it was read, or it is not a regular file. */
  if (self->n_read > self->max_size)
    {
      too_big (error, self->n_read, self->max_size, FALSE);
      return -1;
    }
  return n;
}

void
gml_input_reader_close (GmlInputReader *self)
{
  if (self == NULL)
    return;

  if (self->fd >= 0)
    g_close (self->fd, NULL);
  g_free (self);
}

/* The length of the UTF-8 character @lead starts, 0 when no character starts
 * so (a continuation byte, an overlong two-byte form, beyond U+10FFFF). */
static guint
utf8_sequence_length (guchar lead)
{
  if (lead >= 0xc2 && lead <= 0xdf)
    return 2;
  if (lead >= 0xe0 && lead <= 0xef)
    return 3;
  if (lead >= 0xf0 && lead <= 0xf4)
    return 4;
  return 0;
}

void
gml_utf8_check_init (GmlUtf8Check *self)
{
  memset (self, 0, sizeof *self);
}

/* The end of a piece: valid, or cut inside a character whose start is kept. */
static gboolean
utf8_check_tail (GmlUtf8Check *self,
                 const char   *data,
                 gsize         length)
{
  const char *valid_end;
  gsize rest;
  guint need;

  if (g_utf8_validate_len (data, length, &valid_end))
    return TRUE;

  rest = data + length - valid_end;
  need = utf8_sequence_length ((guchar) *valid_end);
  if (need == 0 || rest >= need)
    return FALSE;
  for (gsize i = 1; i < rest; i++)
    if (((guchar) valid_end[i] & 0xc0) != 0x80)
      return FALSE;

  memcpy (self->pending, valid_end, rest);
  self->n_pending = rest;
  self->need = need;
  return TRUE;
}

#define ONES  G_GUINT64_CONSTANT (0x0101010101010101)
#define HIGHS G_GUINT64_CONSTANT (0x8080808080808080)

gboolean
gml_utf8_check_feed (GmlUtf8Check *self,
                     const char   *data,
                     gsize         length)
{
  const char *p = data, *end = data + length;

  /* First the character the last piece ended inside: validated whole, so that
   * glib judges overlong forms and surrogates as it would in one piece. */
  while (self->n_pending > 0 && p < end)
    {
      self->pending[self->n_pending++] = *p++;
      if (self->n_pending == self->need)
        {
          if (!g_utf8_validate_len ((const char *) self->pending, self->need, NULL))
            return FALSE;
          self->n_pending = 0;
        }
    }

  while (p < end)
    {
      const char *run;

      /* ASCII, most of any trace, eight bytes at a time; a word with a byte
       * from 0x80 on or a NUL byte is left to the loop below. */
      while (end - p >= 8)
        {
          guint64 word;

          memcpy (&word, p, sizeof word);
          if ((word & HIGHS) != 0 || ((word - ONES) & ~word & HIGHS) != 0)
            break;
          p += 8;
        }
      while (p < end && (guchar) *p < 0x80 && *p != '\0')
        p++;
      if (p == end)
        return TRUE;
      if (*p == '\0')
        return FALSE;

      /* A run of bytes from 0x80 on. An ASCII byte cannot be part of a
       * longer character, so the run holds whole characters, unless it goes
       * on to the end of the piece. */
      run = p;
      while (p < end && (guchar) *p >= 0x80)
        p++;
      if (p == end)
        return utf8_check_tail (self, run, p - run);
      if (!g_utf8_validate_len (run, p - run, NULL))
        return FALSE;
    }
  return TRUE;
}

gboolean
gml_utf8_check_finish (GmlUtf8Check *self)
{
  return self->n_pending == 0;
}

/* Counts how deep brackets nest, outside strings and comments, without parsing.
 * It follows json-glib's scanner, which also takes 'single-quoted' strings (no
 * escapes) and C comments, so that nothing json-glib would nest can hide from it.
 * Text that is not JSON passes: the parser itself says what is wrong with it. */
gboolean
gml_input_check_json_depth (const char *data,
                            gssize      length,
                            guint       max_depth,
                            GError    **error)
{
  enum { CODE, DOUBLE_QUOTED, SINGLE_QUOTED, COMMENT } state = CODE;
  const char *end;
  guint depth = 0;

  if (length < 0)
    length = strlen (data);
  end = data + length;

  for (const char *p = data; p < end; p++)
    {
      switch (state)
        {
        case DOUBLE_QUOTED:
          if (*p == '\\')
            p++;
          else if (*p == '"')
            state = CODE;
          continue;
        case SINGLE_QUOTED:
          if (*p == '\'')
            state = CODE;
          continue;
        case COMMENT:
          if (*p == '*' && p + 1 < end && p[1] == '/')
            {
              p++;
              state = CODE;
            }
          continue;
        case CODE:
        default:
          break;
        }

      switch (*p)
        {
        case '"':
          state = DOUBLE_QUOTED;
          break;
        case '\'':
          state = SINGLE_QUOTED;
          break;
        case '/':
          if (p + 1 < end && p[1] == '*')
            {
              p++;
              state = COMMENT;
            }
          break;
        case '[':
        case '{':
          if (++depth > max_depth)
            {
              /* Translators: %u is the most levels of [ ] and { } a file may nest. */
              g_set_error (error, GML_INPUT_ERROR, GML_INPUT_ERROR_TOO_DEEP,
                           _("the JSON is nested more than %u levels deep"), max_depth);
              return FALSE;
            }
          break;
        case ']':
        case '}':
          if (depth > 0)
            depth--;
          break;
        default:
          break;
        }
    }
  return TRUE;
}

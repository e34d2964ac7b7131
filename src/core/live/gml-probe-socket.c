/* gml-probe-socket.c — the directory the lab and the probes meet in.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-probe-socket"

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gunixsocketaddress.h>
#include "gml-i18n.h"
#include <glib/gstdio.h>

#include "gml-probe-socket.h"

#define MAX_HELLO 65536

/* $XDG_RUNTIME_DIR/gpu-memory-lab; inside a Flatpak, where the sandbox has its
 * own $XDG_RUNTIME_DIR, the one folder of it the host sees too:
 * $XDG_RUNTIME_DIR/app/$FLATPAK_ID/gpu-memory-lab, the same path on both sides,
 * so a program running outside the sandbox finds the lab there. */
static char *
socket_dir_path (void)
{
  const char *app_id = g_getenv ("FLATPAK_ID");

  if (app_id != NULL && *app_id != '\0' && strchr (app_id, '/') == NULL &&
      strcmp (app_id, "..") != 0)
    return g_build_filename (g_get_user_runtime_dir (), "app", app_id, "gpu-memory-lab", NULL);
  return g_build_filename (g_get_user_runtime_dir (), "gpu-memory-lab", NULL);
}

char *
gml_probe_socket_dir (GError **error)
{
  g_autofree char *dir = socket_dir_path ();
  GStatBuf st;

  if (g_mkdir_with_parents (dir, 0700) != 0 || g_lstat (dir, &st) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Could not make “%s”: %s"),
                   dir,
                   g_strerror (saved));
      return NULL;
    }
  if (st.st_uid != getuid () || !S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("“%s” belongs to another user; the lab will not listen there."), dir);
      return NULL;
    }
  if ((st.st_mode & 0077) != 0 && g_chmod (dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not make “%s” private: %s"),
                   dir, g_strerror (saved));
      return NULL;
    }
  return g_steal_pointer (&dir);
}

char *
gml_probe_default_socket_path (void)
{
  g_autofree char *dir = socket_dir_path ();

  return g_build_filename (dir, "probe.sock", NULL);
}

GSocketService *
gml_probe_listen (const char  *path,
                  GError     **error)
{
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocketService) service = NULL;

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autoptr(GSocket) other = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM,
                                               G_SOCKET_PROTOCOL_DEFAULT, NULL);
      g_autoptr(GSocketAddress) there = g_unix_socket_address_new (path);

      if (other != NULL && g_socket_connect (other, there, NULL, NULL))
        {
          g_socket_close (other, NULL);
          /* Translators: %s is a socket's path. */
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE,
                       _("Another program listens on “%s”."), path);
          return NULL;
        }
      /* Nobody does: a lab that was killed left it. */
      g_unlink (path);
    }
  address = g_unix_socket_address_new (path);
  service = g_socket_service_new ();
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (service), address, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_DEFAULT, NULL, NULL, error))
    return NULL;
  g_chmod (path, 0600);
  return g_steal_pointer (&service);
}

void
gml_probe_unlisten (GSocketService *service,
                    const char     *path)
{
  if (service != NULL)
    {
      g_socket_service_stop (service);
      g_socket_listener_close (G_SOCKET_LISTENER (service));
    }
  if (path != NULL)
    g_unlink (path);
}

/* Whether this process is the program in the build folder, not an installed one. */
static gboolean
running_uninstalled (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = exe != NULL ? g_path_get_dirname (exe) : NULL;
  /* realpath(): the kernel's link names the real folder, the build's may hold a link. */
  g_autofree char *build = realpath (GML_UNINSTALLED_DIR, NULL);

  return dir != NULL && build != NULL && g_str_equal (dir, build);
}

char *
gml_probe_module_dir (void)
{
  const char *dir = g_getenv ("GML_PYTHON_DIR");

  if (dir != NULL && *dir != '\0')
    return g_strdup (dir);
  /* Not installed yet: the probe is still in the source tree. */
  if (running_uninstalled ())
    return g_build_filename (GML_SOURCE_DATADIR, "python", NULL);
  return g_strdup (PKGDATADIR "/python");
}

void
gml_probe_waiting_free (GmlProbeWaiting *waiting)
{
  if (waiting == NULL)
    return;
  g_free (waiting->path);
  g_clear_pointer (&waiting->hello, gml_probe_message_free);
  g_free (waiting->problem);
  g_free (waiting);
}

GSocket *
gml_probe_connect (const char       *path,
                   guint             timeout_ms,
                   GmlProbeMessage **hello,
                   GError          **error)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GByteArray) buffer = g_byte_array_new ();
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  char chunk[4096];
  guint8 *newline = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  socket = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
                         error);
  if (socket == NULL)
    return NULL;
  address = g_unix_socket_address_new (path);
  if (!g_socket_connect (socket, address, NULL, error))
    return NULL;
  g_socket_set_blocking (socket, FALSE);
  while (newline == NULL)
    {
      gint64 left = deadline - g_get_monotonic_time ();
      gssize n;

      if (left <= 0 || !g_socket_condition_timed_wait (socket, G_IO_IN, left, NULL, NULL))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                               _("The program did not say who it is in time."));
          return NULL;
        }
      n = g_socket_receive (socket, chunk, sizeof chunk, NULL, error);
      if (n < 0)
        return NULL;
      if (n == 0)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED,
                               _("The program closed the connection before saying who it is."));
          return NULL;
        }
      g_byte_array_append (buffer, (const guint8 *) chunk, (guint) n);
      newline = memchr (buffer->data, '\n', buffer->len);
      if (newline == NULL && buffer->len > MAX_HELLO)
        {
          g_set_error_literal (error, GML_PROBE_ERROR, GML_PROBE_ERROR_TOO_LARGE,
                               _("a message longer than any the probe sends; the connection is "
                                 "closed."));
          return NULL;
        }
    }
  {
    g_autoptr(GmlProbeMessage) m = gml_probe_message_parse ((const char *) buffer->data,
                                                            (gsize) (newline - buffer->data),
                                                            error);

    if (m == NULL)
      return NULL;
    if (m->type != GML_PROBE_HELLO)
      {
        g_set_error_literal (error, GML_PROBE_ERROR, GML_PROBE_ERROR_TYPE,
                             _("The program did not begin with a hello: it is not a probe of this "
                               "lab."));
        return NULL;
      }
    if (hello != NULL)
      *hello = g_steal_pointer (&m);
  }
  g_socket_set_blocking (socket, TRUE);
  return g_steal_pointer (&socket);
}

/* "probe-1234.sock" → 1234; -1 for any other name. */
static gint64
probe_pid (const char *name)
{
  guint64 pid = 0;
  const char *digits;
  g_autofree char *number = NULL;

  if (!g_str_has_prefix (name, "probe-") || !g_str_has_suffix (name, ".sock"))
    return -1;
  digits = name + strlen ("probe-");
  number = g_strndup (digits, strlen (digits) - strlen (".sock"));
  if (*number == '\0' || !g_ascii_string_to_unsigned (number, 10, 1, G_MAXINT32, &pid, NULL))
    return -1;
  return (gint64) pid;
}

static int
by_pid (gconstpointer a,
        gconstpointer b)
{
  const GmlProbeWaiting *x = *(GmlProbeWaiting **) a, *y = *(GmlProbeWaiting **) b;

  return x->pid < y->pid ? -1 : (x->pid > y->pid);
}

GPtrArray *
gml_probe_list_waiting (GCancellable  *cancellable,
                        GError       **error)
{
  g_autofree char *dir_path = gml_probe_socket_dir (error);
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) out = NULL;
  const char *name;

  if (dir_path == NULL)
    return NULL;
  dir = g_dir_open (dir_path, 0, error);
  if (dir == NULL)
    return NULL;
  out = g_ptr_array_new_with_free_func ((GDestroyNotify) gml_probe_waiting_free);
  while ((name = g_dir_read_name (dir)) != NULL && !g_cancellable_is_cancelled (cancellable))
    {
      gint64 pid = probe_pid (name);
      g_autoptr(GError) local = NULL;
      g_autoptr(GSocket) socket = NULL;
      GmlProbeWaiting *w;
      GStatBuf st;

      if (pid < 0)
        continue;
      w = g_new0 (GmlProbeWaiting, 1);
      w->path = g_build_filename (dir_path, name, NULL);
      w->pid = pid;
      g_ptr_array_add (out, w);
      if (g_lstat (w->path, &st) != 0 || !S_ISSOCK (st.st_mode) || st.st_uid != getuid ())
        {
          w->problem = g_strdup (_("Not a socket of yours: left alone."));
          continue;
        }
      socket = gml_probe_connect (w->path, 1000, &w->hello, &local);
      if (socket != NULL)
        {
          g_socket_close (socket, NULL);
          continue;
        }
      /* Nobody listens: the program ended without removing its socket (it was
       * killed). The file is of no use to anyone. */
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED) ||
          g_error_matches (local, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          w->stale = TRUE;
          g_unlink (w->path);
        }
      else
        w->problem = g_strdup (local->message);
    }
  g_ptr_array_sort (out, by_pid);
  return g_steal_pointer (&out);
}

void
gml_probe_setup_launcher (GSubprocessLauncher *launcher,
                          const char          *socket_path,
                          double               interval,
                          const char          *snapshot_dir)
{
  g_autofree char *probe = gml_probe_module_dir ();
  g_autofree char *python_path = NULL;
  const char *old_python_path = g_getenv ("PYTHONPATH");
  char interval_text[G_ASCII_DTOSTR_BUF_SIZE];

  python_path = g_strdup_printf ("%s/watch:%s%s%s", probe, probe,
                                 old_python_path && *old_python_path ? ":" : "",
                                 old_python_path ? old_python_path : "");
  g_subprocess_launcher_setenv (launcher, "PYTHONPATH", python_path, TRUE);
  g_subprocess_launcher_setenv (launcher, "GML_PROBE_SOCKET", socket_path, TRUE);
  if (snapshot_dir != NULL)
    g_subprocess_launcher_setenv (launcher, "GML_PROBE_SNAPSHOT_DIR", snapshot_dir, TRUE);
  /* The probe reads it with float(): no decimal comma, whatever the locale. */
  g_ascii_formatd (interval_text, sizeof interval_text, "%.3f", interval);
  g_subprocess_launcher_setenv (launcher, "GML_PROBE_INTERVAL", interval_text, TRUE);
}

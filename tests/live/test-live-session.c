/* test-live-session.c — the Live view's model, headless: a program the session
 * starts and that ends without its probe ever speaking says so, instead of
 * waiting on for a probe that will not come; a request to a probe that is not
 * reading is queued, not waited for on the main loop, and goes once it reads.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gml-i18n.h"
#include "gml-live-session.h"
#include "gml-probe-message.h"
#include "gml-test-common.h"

static void
changed_cb (GmlLiveSession *session,
            GMainLoop      *loop)
{
  if (gml_live_session_get_status (session) == GML_LIVE_ENDED)
    g_main_loop_quit (loop);
}

static gboolean
timeout_cb (gpointer data)
{
  g_assert_not_reached ();
  return G_SOURCE_REMOVE;
}

static void
test_ended_without_probe (void)
{
  g_autofree char *run = gml_test_make_tmp_dir ("gml-live-XXXXXX");
  const char *argv[] = { "true", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GmlLiveSession) session = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autofree char *waiting = NULL;
  g_autofree char *ended = NULL;
  guint timeout;

  g_setenv ("XDG_RUNTIME_DIR", run, TRUE);
  session = gml_live_session_new_for_command (argv, 0.1, NULL, &error);
  g_assert_no_error (error);
  waiting = gml_live_session_describe_source (session);
  g_assert_cmpstr (waiting, ==, "Waiting for the program’s probe…");

  g_signal_connect (session, "changed", G_CALLBACK (changed_cb), loop);
  timeout = g_timeout_add_seconds (30, timeout_cb, NULL);
  g_main_loop_run (loop);
  g_source_remove (timeout);

  g_assert_cmpint (gml_live_session_get_exit_status (session), ==, 0);
  ended = gml_live_session_describe_source (session);
  g_assert_cmpstr (ended, !=, waiting);
  g_assert_nonnull (strstr (ended, "torch"));
  g_assert_cmpuint (gml_live_session_get_gpu_total (session), ==, 0);
  gml_live_session_close (session);
  gml_test_remove_tree (run);
}

/* Everything the peer has been sent so far, read without waiting. */
static void
drain (int         fd,
       GByteArray *into)
{
  guint8 buffer[65536];
  ssize_t n;

  while ((n = recv (fd, buffer, sizeof buffer, MSG_DONTWAIT)) > 0)
    g_byte_array_append (into, buffer, (guint) n);
}

static void
test_request_to_busy_probe (void)
{
  g_autofree char *dir = gml_test_make_tmp_dir ("gml-live-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "saved.pickle", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GmlLiveSession) session = NULL;
  GSocket *socket;
  g_autoptr(GByteArray) received = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *request = NULL;
  static const char filler[4096] = { 0 };
  gint64 deadline;
  guint64 id;
  int fds[2];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM, 0, fds), ==, 0);
  socket = g_socket_new_from_fd (fds[0], &error);
  g_assert_no_error (error);
  session = gml_live_session_new_for_socket (socket, NULL);   /* takes the socket */
  g_assert_cmpint (gml_live_session_get_status (session), ==, GML_LIVE_CONNECTED);

  /* The probe is busy (a long step): it reads nothing, and the way to it fills. */
  while (send (fds[0], filler, sizeof filler, MSG_DONTWAIT | MSG_NOSIGNAL) > 0)
    ;
  g_assert_true (errno == EAGAIN || errno == EWOULDBLOCK);

  /* Save Snapshot… is asked for: queued at once, not refused after a wait. */
  id = gml_live_session_save_snapshot (session, file);
  g_assert_cmpuint (id, >, 0);
  request = gml_probe_request_dump (id);

  /* The probe reads again: the request reaches it whole, after what came before. */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline &&
         (received->len < strlen (request) ||
          memcmp (received->data + received->len - strlen (request), request,
                  strlen (request)) != 0))
    {
      drain (fds[1], received);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_cmpuint (received->len, >=, strlen (request));
  g_assert_cmpmem (received->data + received->len - strlen (request), strlen (request), request,
                   strlen (request));

  gml_live_session_close (session);
  close (fds[1]);
  gml_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  gml_i18n_set_language ("en");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/live-session/ended-without-probe", test_ended_without_probe);
  g_test_add_func ("/model/live-session/request-to-busy-probe", test_request_to_busy_probe);
  return g_test_run ();
}

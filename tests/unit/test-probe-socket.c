/* test-probe-socket.c — the one way the lab listens for a probe: the Live view,
 * a program the app starts and `watch` all use gml_probe_listen().
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <sys/stat.h>

#include <glib/gstdio.h>

#include "gml-i18n.h"
#include "gml-probe-socket.h"
#include "gml-test-common.h"

static void
test_listen (void)
{
  g_autofree char *dir = gml_test_make_tmp_dir ("gml-socket-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "probe.sock", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketService) service = NULL;
  g_autoptr(GSocketService) second = NULL;
  struct stat st;

  service = gml_probe_listen (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (service);
  g_socket_service_start (service);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  /* Someone listens there: the file is kept, and the caller told why. */
  second = gml_probe_listen (path, &error);
  g_assert_null (second);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE);
  g_clear_error (&error);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));

  gml_probe_unlisten (service, path);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  gml_test_remove_tree (dir);
}

/* A lab that was killed leaves its socket file: the next one takes the place. */
static void
test_stale (void)
{
  g_autofree char *dir = gml_test_make_tmp_dir ("gml-socket-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "probe.sock", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketService) dead = gml_probe_listen (path, &error);
  g_autoptr(GSocketService) service = NULL;

  g_assert_no_error (error);
  /* Closed without removing the file, as a killed process leaves it. */
  gml_probe_unlisten (dead, NULL);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));

  service = gml_probe_listen (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (service);
  gml_probe_unlisten (service, path);
  gml_probe_unlisten (NULL, NULL);
  gml_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  gml_i18n_init ();
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/probe-socket/listen", test_listen);
  g_test_add_func ("/core/probe-socket/stale", test_stale);
  return g_test_run ();
}

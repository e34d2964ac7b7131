/* test-attach-dialog.c — Attach… on its own: closed while it is still looking at a
 * program that has not answered yet, the dialog goes at once (its worker holds it
 * weakly, so closing it disposes it and cancels the look), and the worker's late
 * answer finds it gone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "gml-attach-dialog.h"
#include "gml-i18n.h"

static void
spin (guint ms)
{
  gint64 until = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < until)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (10000);
    }
}

static void
test_closed_while_looking (void)
{
  g_autofree char *dir = g_build_filename (g_get_user_runtime_dir (), "gpu-memory-lab", NULL);
  g_autofree char *name = g_strdup_printf ("probe-%d.sock", (int) getpid ());
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocket) silent = NULL;
  g_autoptr(GError) error = NULL;
  GmlAttachDialog *dialog;
  gpointer weak;

  /* A program that takes the connection and never says hello: the look waits. */
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  silent = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
                         &error);
  g_assert_no_error (error);
  address = g_unix_socket_address_new (path);
  g_assert_true (g_socket_bind (silent, address, FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (g_socket_listen (silent, &error));
  g_assert_no_error (error);

  dialog = gml_attach_dialog_new (NULL);
  weak = dialog;
  g_object_add_weak_pointer (G_OBJECT (dialog), &weak);
  gtk_window_present (GTK_WINDOW (dialog));
  spin (100);
  g_assert_nonnull (weak);
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_assert_null (weak);

  /* The look gives up on the silent program after a second; its answer comes
   * to nobody. */
  spin (1500);
  g_socket_close (silent, NULL);
  g_unlink (path);
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *runtime = NULL;
  g_autoptr(GError) error = NULL;
  int result;

  /* A runtime folder of the test's own, set before GLib reads it. */
  runtime = g_dir_make_tmp ("gml-attach-dialog-XXXXXX", &error);
  g_assert_no_error (error);
  g_setenv ("XDG_RUNTIME_DIR", runtime, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  gml_i18n_init ();
  gml_i18n_set_language ("en");
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/widgets/attach-dialog/closed-while-looking", test_closed_while_looking);
  result = g_test_run ();
  g_rmdir (runtime);
  return result;
}

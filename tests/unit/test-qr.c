/* test-qr.c — the audience page's QR code, read back by a real decoder.
 *
 * Each symbol is written as a PBM picture (four pixels a module, the four-module
 * light margin) and read by zbarimg (Debian's zbar-tools); what it reads must be
 * the text exactly.  Every version from 1 to 6 and every mask get used by the texts
 * below.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "gml-qr.h"

#define PIXELS 4
#define MARGIN 4

static char *
decode (const guint8 *modules,
        guint         size)
{
  g_autofree char *dir = g_dir_make_tmp ("gml-qr-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "code.pbm", NULL);
  guint side = (size + 2 * MARGIN) * PIXELS;
  GString *pbm = g_string_new (NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  char *argv[] = { (char *) "zbarimg", (char *) "--raw", (char *) "-q", path, NULL };
  int status = 0;

  g_string_append_printf (pbm, "P1\n%u %u\n", side, side);
  for (guint py = 0; py < side; py++)
    {
      for (guint px = 0; px < side; px++)
        {
          int x = (int) (px / PIXELS) - MARGIN, y = (int) (py / PIXELS) - MARGIN;
          gboolean dark = x >= 0 && y >= 0 && x < (int) size && y < (int) size &&
          modules[y * size + x];

          g_string_append_c (pbm, dark ? '1' : '0');
        }
      g_string_append_c (pbm, '\n');
    }
  g_assert_true (g_file_set_contents (path, pbm->str, (gssize) pbm->len, NULL));
  g_string_free (pbm, TRUE);
  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, NULL))
    g_error ("zbarimg (Debian's zbar-tools) is needed to read the codes back; "
             "build-aux/install-deps.sh installs it");
  g_unlink (path);
  g_rmdir (dir);
  if (!g_spawn_check_wait_status (status, NULL))
    return NULL;
  g_strchomp (out);
  return g_steal_pointer (&out);
}

static void
test_read_back (void)
{
  static const char *texts[] = {
    "http://10.0.0.2:8731/?room=0001",
    "http://192.168.1.20:8731/?room=4821",
    "http://172.31.255.254:65535/?room=9999",
    "A",
    "GPU Memory Lab",
    "http://[fe80::1]:8731/",
    "http://192.168.100.200:8731/?room=1234&lang=tr",
    "http://192.168.100.200:8731/?room=1234&lang=tr#audience-mode-of-gpu-memory-lab",
    "https://example.org/a/very/long/path/to/make/the/text/need/version/six/of/the/symbol/yes",
  };
  guint versions_seen = 0;

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      guint size = 0;
      g_autofree guint8 *modules = gml_qr_encode (texts[i], strlen (texts[i]), &size);
      g_autofree char *read = NULL;

      g_assert_nonnull (modules);
      g_assert_cmpuint ((size - 17) % 4, ==, 0);
      versions_seen |= 1u << ((size - 17) / 4);
      read = decode (modules, size);
      if (g_strcmp0 (read, texts[i]) != 0)
        g_error ("version %u: wrote “%s”, read “%s”", (size - 17) / 4, texts[i],
                 read ? read : "(nothing)");
    }
  g_assert_cmpuint (versions_seen & 0x7e, ==, 0x7e);
}

/* Every length a version holds, at its boundaries. */
static void
test_capacity (void)
{
  static const guint capacity[] = { 0, 14, 26, 42, 62, 84, 106 };
  char text[GML_QR_MAX_BYTES + 2];

  memset (text, 'x', sizeof text);
  for (guint v = 1; v < G_N_ELEMENTS (capacity); v++)
    {
      guint size = 0;
      g_autofree guint8 *full = gml_qr_encode (text, capacity[v], &size);
      g_autofree guint8 *over = NULL;

      g_assert_cmpuint (size, ==, 17 + 4 * v);
      if (v + 1 < G_N_ELEMENTS (capacity))
        {
          over = gml_qr_encode (text, capacity[v] + 1, &size);
          g_assert_cmpuint (size, ==, 17 + 4 * (v + 1));
        }
      {
        g_autofree char *read = decode (full, 17 + 4 * v);
        g_autofree char *want = g_strndup (text, capacity[v]);

        g_assert_cmpstr (read, ==, want);
      }
    }
  {
    guint size = 1;

    g_assert_null (gml_qr_encode (text, GML_QR_MAX_BYTES + 1, &size));
    g_assert_cmpuint (size, ==, 0);
    g_assert_null (gml_qr_encode (NULL, 0, &size));
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/qr/read-back", test_read_back);
  g_test_add_func ("/core/qr/capacity", test_capacity);
  return g_test_run ();
}

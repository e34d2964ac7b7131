/* replay-driver.c — runs gml_replay_main() the way src/main.c does for
 * `gpu-memory-lab replay …`, so the command can be tested on its own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>

#include <glib/gi18n.h>

#include "gml-replay.h"

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2 || !g_str_equal (argv[1], "replay"))
    {
      g_printerr ("usage: %s replay TRACE.jsonl [options]\n", argv[0]);
      return 2;
    }

  return gml_replay_main (argc - 1, argv + 1);
}

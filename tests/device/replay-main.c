/* replay-main.c — `replay` without the GTK application, for run-device-checks.sh.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A GPU machine may have GLib and json-glib but not GTK 4 and libadwaita; this lets
 * the device script build the very same verb (src/cli) and replay (src/core) with a plain C
 * compiler.
 * Usage is that of `gpu-memory-lab replay`, the verb included:
 *   gml-replay replay TRACE.jsonl [--capacity BYTES] [--backend ...] [--alloc-conf ...]
 */

#include "config.h"

#include <locale.h>

#include <glib.h>

#include "gml-replay-cli.h"

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");

  if (argc < 2 || !g_str_equal (argv[1], "replay"))
    {
      g_printerr ("usage: %s replay TRACE.jsonl [options]\n", argv[0]);
      return 2;
    }

  return gml_replay_main (argc - 1, argv + 1);
}

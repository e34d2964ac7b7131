/* gml-watch-cli.h — the `gpu-memory-lab watch` command.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* argv[0] is "watch". Returns the watched program's exit status. */
int gml_watch_main (int    argc,
                    char **argv);

G_END_DECLS

/* gml-snapshot-cli.h — the `gpu-memory-lab snapshot` command.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* argv[0] is "snapshot". Returns the process exit status. */
int gml_snapshot_main (int    argc,
                       char **argv);

/* `render FILE.pickle …`: argv[0] is "render", argv[1] the snapshot. */
int      gml_render_snapshot_main  (int         argc,
                                    char      **argv);
/* Whether `render WHAT` names a snapshot file rather than a scenario. */
gboolean gml_render_is_snapshot    (const char *what);

G_END_DECLS

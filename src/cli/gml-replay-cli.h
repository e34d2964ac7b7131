/* gml-replay-cli.h — `gpu-memory-lab replay TRACE.jsonl`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* argv[0] is "replay". Returns the process exit status. */
int gml_replay_main (int    argc,
                     char **argv);

G_END_DECLS

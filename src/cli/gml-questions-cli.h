/* gml-questions-cli.h — the `gpu-memory-lab questions` command.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* argv[0] is "questions". Returns the process exit status. */
int gml_questions_main (int    argc,
                        char **argv);

G_END_DECLS

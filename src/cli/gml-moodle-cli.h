/* gml-moodle-cli.h — `gpu-memory-lab export` and `gpu-memory-lab import`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* argv[0] is "export" / "import". Return the process exit status. */
int gml_moodle_export_main (int    argc,
                            char **argv);
int gml_moodle_import_main (int    argc,
                            char **argv);

G_END_DECLS

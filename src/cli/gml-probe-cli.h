/* gml-probe-cli.h — `gpu-memory-lab probe`: where the probe module is, a copy
 * of it, and the programs whose probe waits for a lab.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* argv[0] is "probe". */
int gml_probe_main (int    argc,
                    char **argv);

G_END_DECLS

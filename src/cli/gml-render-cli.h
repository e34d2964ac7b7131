/* gml-render-cli.h — the `render` and `scenarios` verbs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

int gml_render_main    (int    argc,
                        char **argv);
int gml_scenarios_main (int    argc,
                        char **argv);

G_END_DECLS

/* gml-lab-cli.h — `gpu-memory-lab experiment`: one training or inference step in the lab.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "gml-lab.h"

G_BEGIN_DECLS

int   gml_lab_main          (int                 argc,
                             char              **argv);
/* The result as the verb's JSON (also what the window's tests compare with). */
char *gml_lab_result_to_json (GmlLabRun         *run,
                              gboolean           with_max_batch,
                              guint              max_batch,
                              const GmlLabLive  *live);

G_END_DECLS

/* gml-lab-page.h — the Experiment view: the knobs of a training or inference
 * step on one side, what the caching allocator made of it on the other.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-lab.h"
#include "gml-progress.h"

G_BEGIN_DECLS

#define GML_TYPE_LAB_PAGE (gml_lab_page_get_type ())

G_DECLARE_FINAL_TYPE (GmlLabPage, gml_lab_page, GML, LAB_PAGE, GtkWidget)

/* Where "Predict, then run" keeps the guesses (borrowed; may be NULL). */
void                gml_lab_page_set_progress (GmlLabPage *self,
                                               GmlProgress *progress);
/* Sets the knobs from a command line ("--model gpt2 --batch 8 …") and runs. */
gboolean            gml_lab_page_open_config  (GmlLabPage *self,
                                               const char *args,
                                               GError    **error);
/* "gpt2 · batch 8 · fp32 · 24 GiB": what the window's title shows. */
const char         *gml_lab_page_get_subtitle (GmlLabPage *self);
/* The run shown, or NULL while none has finished. */
GmlLabRun          *gml_lab_page_get_run      (GmlLabPage *self);

G_END_DECLS

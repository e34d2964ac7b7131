/* gml-lab-presentation.h — the Experiment view's result on the projector (F5).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-lab.h"

G_BEGIN_DECLS

#define GML_TYPE_LAB_PRESENTATION (gml_lab_presentation_get_type ())

G_DECLARE_FINAL_TYPE (GmlLabPresentation, gml_lab_presentation, GML, LAB_PRESENTATION, AdwWindow)

/* A fullscreen window over @parent showing the result of @config: it runs the
 * same knobs again in a thread (the page's run is replaced as knobs move) and
 * shows the peaks, whether it fits, the bytes by category and the memory map
 * at the peak, in type large enough for a lecture hall. Escape closes it. */
/* The projected form of @run (a reference is taken). */
GtkWindow *gml_lab_presentation_new (GtkWindow          *parent,
                                     GmlLabRun          *run);

G_END_DECLS

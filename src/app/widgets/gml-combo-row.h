/* gml-combo-row.h — combo rows whose list shows each choice whole.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* The row's pop-up lists each choice whole, wrapped where it is long, with the
 * selected one ticked: libadwaita 1.2's own list cuts them at 20 characters
 * ("Mixed precision, fp16 …"). The row itself still shows the choice as before. */
void gml_combo_row_show_whole_choices (AdwComboRow *row);

G_END_DECLS

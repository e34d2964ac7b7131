/* gml-i18n.h — which language the lab speaks, and switching it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

void        gml_i18n_init          (void);
void        gml_i18n_set_language  (const char *lang);
const char *gml_i18n_get_language  (void);
gboolean    gml_i18n_is_known_language (const char *lang);

G_END_DECLS

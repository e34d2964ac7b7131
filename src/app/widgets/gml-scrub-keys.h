/* gml-scrub-keys.h — Page Up and Page Down on a trace's slider move the way
 * they move everywhere else on the page.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* While @scale has the focus, Page Up activates @back and Page Down @forward
 * (actions reachable from @scale, such as the page's "snapshot.page-back"),
 * instead of GtkRange's own page keys, whose direction on a horizontal scale
 * is the opposite of the page's. */
void gml_scrub_keys_route_page_keys (GtkScale   *scale,
                                     const char *back,
                                     const char *forward);

/* Adds to @controller a shortcut: @accel, in gtk_accelerator_parse()'s
 * syntax, activates the action named @action. */
void gml_scrub_keys_add_shortcut (GtkEventController *controller,
                                  const char         *accel,
                                  const char         *action);

G_END_DECLS

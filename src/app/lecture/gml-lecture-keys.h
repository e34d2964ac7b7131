/* gml-lecture-keys.h — the lecture's keys: actions on each window class, triggered from one
 * capture-phase table of keys.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "gml-presentation.h"

G_BEGIN_DECLS

/* Installs the lecture.* actions on @widget_class; gml_lecture_keys_attach() gives a
 * window the keys that trigger them:
 *
 *   lecture.advance    Space, Enter        reveal the answer, then go on
 *   lecture.next       →, Page Down        the next question (a clicker's keys)
 *   lecture.previous   ←, Page Up          the previous one
 *   lecture.first      Home                lecture.last    End
 *   lecture.end        Esc                 leave the presentation
 *   lecture.zoom (i)   Ctrl+plus / minus / 0
 *
 * @get_model gives the window's GmlPresentation. Both lecture windows call both, so
 * the keys are the same on the projector and on the lecturer's screen. They are one
 * table of shortcuts to actions, not keyvals in the model, which knows no toolkit. */
void gml_lecture_keys_install (GtkWidgetClass   *widget_class,
                               GmlPresentation *(*get_model) (GtkWidget *widget));
void gml_lecture_keys_attach  (GtkWidget        *window);

G_END_DECLS

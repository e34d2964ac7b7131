/* gml-scrub-keys.c — one direction for Page Up and Page Down on a trace's page.
 *
 * GtkRange binds Page Up and Page Down itself, and on a horizontal scale its
 * Page Down lowers the value: with the slider focused the trace went back,
 * with the picture focused forward. A key controller in the capture phase
 * sees the keys before the range does and runs the page's own actions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "gml-scrub-keys.h"

typedef struct
{
  char *back;
  char *forward;
} PageKeys;

static void
page_keys_free (gpointer data)
{
  PageKeys *keys = data;

  g_free (keys->back);
  g_free (keys->forward);
  g_free (keys);
}

static gboolean
key_pressed_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                gpointer               user_data)
{
  PageKeys *keys = user_data;
  GtkWidget *widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  const char *action = NULL;

  if ((state & gtk_accelerator_get_default_mod_mask ()) != 0)
    return FALSE;
  if (keyval == GDK_KEY_Page_Up || keyval == GDK_KEY_KP_Page_Up)
    action = keys->back;
  else if (keyval == GDK_KEY_Page_Down || keyval == GDK_KEY_KP_Page_Down)
    action = keys->forward;
  if (action == NULL)
    return FALSE;
  gtk_widget_activate_action (widget, action, NULL);
  return TRUE;
}

void
gml_scrub_keys_route_page_keys (GtkScale   *scale,
                                const char *back,
                                const char *forward)
{
  GtkEventController *controller;
  PageKeys *keys;

  g_return_if_fail (GTK_IS_SCALE (scale));
  g_return_if_fail (back != NULL && forward != NULL);

  keys = g_new0 (PageKeys, 1);
  keys->back = g_strdup (back);
  keys->forward = g_strdup (forward);
  controller = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  g_signal_connect_data (controller, "key-pressed", G_CALLBACK (key_pressed_cb), keys,
                         (GClosureNotify) (void (*) (void)) page_keys_free, 0);
  gtk_widget_add_controller (GTK_WIDGET (scale), controller);
}

void
gml_scrub_keys_add_shortcut (GtkEventController *controller,
                             const char         *accel,
                             const char         *action)
{
  g_return_if_fail (GTK_IS_SHORTCUT_CONTROLLER (controller));

  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (gtk_shortcut_trigger_parse_string (accel),
                                                          gtk_named_action_new (action)));
}

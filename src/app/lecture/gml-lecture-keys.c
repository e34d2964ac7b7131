/* gml-lecture-keys.c — the lecture's keys: actions on each window class, triggered from one
 * capture-phase table of keys.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-lecture-keys"

#include "config.h"

#include <string.h>

#include "gml-lecture-keys.h"

/* One getter per window class: the quark holds it on the class. */
static GQuark
getter_quark (void)
{
  return g_quark_from_static_string ("gml-lecture-keys-get-model");
}

static GmlPresentation *
model_of (GtkWidget *widget)
{
  GmlPresentation *(*get_model) (GtkWidget *) =
    g_type_get_qdata (G_OBJECT_TYPE (widget), getter_quark ());

  return get_model != NULL ? get_model (widget) : NULL;
}

static void
lecture_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  GmlPresentation *model = model_of (widget);
  const char *what = action_name + strlen ("lecture.");

  if (model == NULL)
    return;
  if (g_str_equal (what, "advance"))
    gml_presentation_advance (model);
  else if (g_str_equal (what, "next"))
    gml_presentation_next (model);
  else if (g_str_equal (what, "previous"))
    gml_presentation_previous (model);
  else if (g_str_equal (what, "first"))
    gml_presentation_first (model);
  else if (g_str_equal (what, "last"))
    gml_presentation_last (model);
  else if (g_str_equal (what, "end"))
    gml_presentation_end (model);
  else if (g_str_equal (what, "zoom"))
    gml_presentation_zoom (model, g_variant_get_int32 (parameter));
}

/* A key, or several, and the action they trigger. */
static void
add_shortcuts (GtkShortcutController *controller,
               const guint           *keyvals,
               guint                  n,
               GdkModifierType        mods,
               const char            *action,
               GVariant              *argument)
{
  g_autoptr(GVariant) arg = argument != NULL ? g_variant_ref_sink (argument) : NULL;

  for (guint i = 0; i < n; i++)
    {
      GtkShortcutAction *activate = action != NULL ? gtk_named_action_new (action)
                                                   : g_object_ref (gtk_nothing_action_get ());
      GtkShortcut *shortcut = gtk_shortcut_new (gtk_keyval_trigger_new (keyvals[i], mods),
                                                activate);

      if (arg != NULL)
        gtk_shortcut_set_arguments (shortcut, arg);
      gtk_shortcut_controller_add_shortcut (controller, shortcut);
    }
}

void
gml_lecture_keys_install (GtkWidgetClass   *widget_class,
                          GmlPresentation *(*get_model) (GtkWidget *widget))
{
  static const char * const actions[] = { "advance", "next", "previous", "first", "last", "end" };

  g_type_set_qdata (G_TYPE_FROM_CLASS (widget_class), getter_quark (), get_model);
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    {
      g_autofree char *name = g_strconcat ("lecture.", actions[i], NULL);

      gtk_widget_class_install_action (widget_class, name, NULL, lecture_action);
    }
  gtk_widget_class_install_action (widget_class, "lecture.zoom", "i", lecture_action);
  /* Ctrl+W closes a lecture window as it closes the main window. It needs no capture
   * phase: no control in these windows takes it. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close",
                                       NULL);
}

void
gml_lecture_keys_attach (GtkWidget *window)
{
  static const guint advance[] = { GDK_KEY_space, GDK_KEY_Return, GDK_KEY_KP_Enter,
                                   GDK_KEY_ISO_Enter };
  static const guint next[] = { GDK_KEY_Right, GDK_KEY_KP_Right, GDK_KEY_Page_Down,
                                GDK_KEY_KP_Page_Down };
  static const guint previous[] = { GDK_KEY_Left, GDK_KEY_KP_Left, GDK_KEY_Page_Up,
                                    GDK_KEY_KP_Page_Up };
  static const guint first[] = { GDK_KEY_Home, GDK_KEY_KP_Home };
  static const guint last[] = { GDK_KEY_End, GDK_KEY_KP_End };
  static const guint end[] = { GDK_KEY_Escape };
  static const guint larger[] = { GDK_KEY_plus, GDK_KEY_equal, GDK_KEY_KP_Add };
  static const guint smaller[] = { GDK_KEY_minus, GDK_KEY_KP_Subtract };
  static const guint normal[] = { GDK_KEY_0, GDK_KEY_KP_0 };
  static const guint f5[] = { GDK_KEY_F5 };
  static const guint f6[] = { GDK_KEY_F6 };
  GtkEventController *controller = gtk_shortcut_controller_new ();
  GtkShortcutController *shortcuts = GTK_SHORTCUT_CONTROLLER (controller);

  /* The capture phase, before GtkWindow's own bindings (Space activates the focus,
   * the arrows move it) and a focused button's: on a projector every key is the
   * lecture's. Binding actions on the window class would run after both, in the bubble
   * phase, so these keys stay one controller. */
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  add_shortcuts (shortcuts, advance, G_N_ELEMENTS (advance), 0, "lecture.advance", NULL);
  add_shortcuts (shortcuts, next, G_N_ELEMENTS (next), 0, "lecture.next", NULL);
  add_shortcuts (shortcuts, previous, G_N_ELEMENTS (previous), 0, "lecture.previous", NULL);
  add_shortcuts (shortcuts, first, G_N_ELEMENTS (first), 0, "lecture.first", NULL);
  add_shortcuts (shortcuts, last, G_N_ELEMENTS (last), 0, "lecture.last", NULL);
  add_shortcuts (shortcuts, end, G_N_ELEMENTS (end), 0, "lecture.end", NULL);
  /* Zoom, as in a browser: Ctrl+plus (or the = key under it), Ctrl+minus, Ctrl+0. */
  add_shortcuts (shortcuts, larger, G_N_ELEMENTS (larger), GDK_CONTROL_MASK, "lecture.zoom",
                 g_variant_new_int32 (1));
  add_shortcuts (shortcuts, smaller, G_N_ELEMENTS (smaller), GDK_CONTROL_MASK, "lecture.zoom",
                 g_variant_new_int32 (-1));
  add_shortcuts (shortcuts, normal, G_N_ELEMENTS (normal), GDK_CONTROL_MASK, "lecture.zoom",
                 g_variant_new_int32 (0));
  /* F5 again while presenting: nothing, rather than a second presentation. */
  add_shortcuts (shortcuts, f5, G_N_ELEMENTS (f5), 0, NULL, NULL);
  /* Audience mode, on the projector's window (the presenter's has no such action). */
  add_shortcuts (shortcuts, f6, G_N_ELEMENTS (f6), 0, "lecture.audience", NULL);
  gtk_widget_add_controller (window, controller);
}

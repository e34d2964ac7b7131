/* test-renderer.c — the renderer the app asks GTK for: Cairo where OpenGL is a
 * software rasterizer, GTK's own choice elsewhere, and the person's choice always.
 * Runs on the test session's Xvfb, whose OpenGL is Mesa's llvmpipe: the case of a
 * machine without a GPU renderer, checked down to the renderer a realized window
 * gets. meson runs it twice: as GTK starts on Xvfb (GLX), and with GDK_DEBUG=gl-egl
 * (EGL, as on Wayland and on most X11 desktops).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <gtk/gtk.h>

#include "gml-renderer.h"

/* GL_RENDERER strings as drivers write them, and EGL driver names. */
static void
test_names (void)
{
  /* Mesa's software rasterizers. */
  g_assert_true (gml_renderer_is_software_gl ("llvmpipe (LLVM 15.0.6, 256 bits)"));
  g_assert_true (gml_renderer_is_software_gl ("softpipe"));
  g_assert_true (gml_renderer_is_software_gl ("Software Rasterizer"));
  /* GPUs, one of them through Mesa's LLVM-compiled radeonsi, which is no software. */
  g_assert_false (gml_renderer_is_software_gl ("NVIDIA H200/PCIe/SSE2"));
  g_assert_false (gml_renderer_is_software_gl ("Mesa Intel(R) UHD Graphics 620 (KBL GT2)"));
  g_assert_false (gml_renderer_is_software_gl ("AMD Radeon RX 6800 XT (navi21, LLVM 15.0.6, DRM "
                                               "3.49, 6.1.0-13-amd64)"));
  g_assert_true (gml_renderer_is_software_gl ("swrast"));
  g_assert_true (gml_renderer_is_software_gl ("kms_swrast"));
  g_assert_false (gml_renderer_is_software_gl ("iris"));
  g_assert_false (gml_renderer_is_software_gl ("radeonsi"));
  g_assert_false (gml_renderer_is_software_gl ("virtio_gpu"));
  g_assert_false (gml_renderer_is_software_gl (""));
  g_assert_false (gml_renderer_is_software_gl (NULL));
}

/* GSK_RENDERER set by the person, or a renderer the display already has: left
 * alone, and OpenGL is not even asked. */
static void
test_chosen_elsewhere (void)
{
  GdkDisplay *display = gdk_display_get_default ();
  char *gl_renderer = (char *) "unset";

  g_setenv ("GSK_RENDERER", "gl", TRUE);
  g_assert_null (gml_renderer_choose (display, &gl_renderer));
  g_assert_null (gl_renderer);
  g_assert_null (g_object_get_data (G_OBJECT (display), "gsk-renderer"));
  g_unsetenv ("GSK_RENDERER");

  /* An empty GSK_RENDERER is no choice: OpenGL is asked. */
  g_setenv ("GSK_RENDERER", "", TRUE);
  gml_renderer_choose (display, &gl_renderer);
  g_assert_nonnull (gl_renderer);
  g_clear_pointer (&gl_renderer, g_free);
  g_object_set_data (G_OBJECT (display), "gsk-renderer", NULL);
  g_unsetenv ("GSK_RENDERER");

  g_object_set_data_full (G_OBJECT (display), "gsk-renderer", g_strdup ("gl"), g_free);
  gl_renderer = (char *) "unset";
  g_assert_null (gml_renderer_choose (display, &gl_renderer));
  g_assert_null (gl_renderer);
  g_assert_cmpstr (g_object_get_data (G_OBJECT (display), "gsk-renderer"), ==, "gl");
  g_object_set_data (G_OBJECT (display), "gsk-renderer", NULL);
}

static void
realized_cb (GtkWidget *window,
             gboolean  *realized)
{
  *realized = TRUE;
}

/* Nobody chose: OpenGL is asked what it is, and a window realized after that is
 * drawn with Cairo if and only if it is a software rasterizer. */
static void
test_choice_reaches_windows (void)
{
  GdkDisplay *display = gdk_display_get_default ();
  g_autofree char *gl_renderer = NULL;
  const char *chosen;
  GtkWidget *window;
  GskRenderer *renderer;
  gboolean realized = FALSE;

  chosen = gml_renderer_choose (display, &gl_renderer);
  g_test_message ("OpenGL: %s; chosen: %s", gl_renderer, chosen ? chosen : "GTK's choice");
  /* The session's Xvfb has Mesa's OpenGL: the question was asked and answered,
   * by GLX with the renderer's name, by EGL with the driver's. */
  g_assert_nonnull (gl_renderer);
  if (g_strcmp0 (g_getenv ("GDK_DEBUG"), "gl-egl") == 0)
    g_assert_cmpstr (gl_renderer, ==, "swrast");
  else
    g_assert_true (g_str_has_prefix (gl_renderer, "llvmpipe"));
  if (gml_renderer_is_software_gl (gl_renderer))
    {
      g_assert_cmpstr (chosen, ==, "cairo");
      g_assert_cmpstr (g_object_get_data (G_OBJECT (display), "gsk-renderer"), ==, "cairo");
    }
  else
    {
      g_assert_null (chosen);
      g_assert_null (g_object_get_data (G_OBJECT (display), "gsk-renderer"));
    }

  window = gtk_window_new ();
  g_signal_connect (window, "realize", G_CALLBACK (realized_cb), &realized);
  gtk_widget_realize (window);
  g_assert_true (realized);
  renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  g_assert_nonnull (renderer);
  g_test_message ("the window's renderer: %s", G_OBJECT_TYPE_NAME (renderer));
  g_assert_cmpint (GSK_IS_CAIRO_RENDERER (renderer), ==, g_strcmp0 (chosen, "cairo") == 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Restores an environment variable as it was. */
static void
restore (const char *name,
         const char *value)
{
  if (value != NULL)
    g_setenv (name, value, TRUE);
  else
    g_unsetenv (name);
}

/* Whether the X server GTK would open offers direct rendering: this session's Xvfb
 * offers none (no DRI3, DRI2 or NVIDIA GLX), so its OpenGL can only be Mesa's
 * software one; a Wayland display, another backend or no display at all is not
 * asked about. */
static void
test_direct_rendering (void)
{
  g_autofree char *display = g_strdup (g_getenv ("DISPLAY"));
  g_autofree char *wayland = g_strdup (g_getenv ("WAYLAND_DISPLAY"));
  g_autofree char *backend = g_strdup (g_getenv ("GDK_BACKEND"));

  g_assert_nonnull (display);
  g_unsetenv ("WAYLAND_DISPLAY");
  g_unsetenv ("GDK_BACKEND");
  g_assert_true (gml_renderer_x11_without_direct_rendering ());
  g_setenv ("GDK_BACKEND", "x11", TRUE);
  g_assert_true (gml_renderer_x11_without_direct_rendering ());

  /* GTK would open the Wayland display, or was told to. */
  g_setenv ("WAYLAND_DISPLAY", "wayland-0", TRUE);
  g_assert_true (gml_renderer_x11_without_direct_rendering ());
  g_unsetenv ("GDK_BACKEND");
  g_assert_false (gml_renderer_x11_without_direct_rendering ());
  g_unsetenv ("WAYLAND_DISPLAY");
  g_setenv ("GDK_BACKEND", "wayland", TRUE);
  g_assert_false (gml_renderer_x11_without_direct_rendering ());
  g_unsetenv ("GDK_BACKEND");

  /* No display, or one that does not answer. */
  g_unsetenv ("DISPLAY");
  g_assert_false (gml_renderer_x11_without_direct_rendering ());
  g_setenv ("DISPLAY", ":4242", TRUE);
  g_assert_false (gml_renderer_x11_without_direct_rendering ());

  restore ("DISPLAY", display);
  restore ("WAYLAND_DISPLAY", wayland);
  restore ("GDK_BACKEND", backend);
}

/* OpenGL is left out only where nobody chose a renderer or set GDK_DEBUG. */
static void
test_leave_out_gl (void)
{
  g_autofree char *debug = g_strdup (g_getenv ("GDK_DEBUG"));
  g_autofree char *wayland = g_strdup (g_getenv ("WAYLAND_DISPLAY"));
  g_autofree char *backend = g_strdup (g_getenv ("GDK_BACKEND"));

  g_unsetenv ("GDK_DEBUG");
  g_unsetenv ("WAYLAND_DISPLAY");
  g_unsetenv ("GDK_BACKEND");
  g_assert_true (gml_renderer_can_leave_out_gl ());
  g_setenv ("GSK_RENDERER", "", TRUE);
  g_assert_true (gml_renderer_can_leave_out_gl ());
  g_setenv ("GSK_RENDERER", "gl", TRUE);
  g_assert_false (gml_renderer_can_leave_out_gl ());
  g_unsetenv ("GSK_RENDERER");
  g_setenv ("GDK_DEBUG", "nograbs", TRUE);
  g_assert_false (gml_renderer_can_leave_out_gl ());

  restore ("GDK_DEBUG", debug);
  restore ("WAYLAND_DISPLAY", wayland);
  restore ("GDK_BACKEND", backend);
}

/* Told that OpenGL could only be software: Cairo for every window, Mesa not asked. */
static void
test_choose_cairo (void)
{
  GdkDisplay *display = gdk_display_get_default ();
  GtkWidget *window;

  g_object_set_data (G_OBJECT (display), "gsk-renderer", NULL);
  gml_renderer_choose_cairo (display);
  g_assert_cmpstr (g_object_get_data (G_OBJECT (display), "gsk-renderer"), ==, "cairo");
  window = gtk_window_new ();
  gtk_widget_realize (window);
  g_assert_true (GSK_IS_CAIRO_RENDERER (gtk_native_get_renderer (GTK_NATIVE (window))));
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_set_data (G_OBJECT (display), "gsk-renderer", NULL);
}

int
main (int    argc,
      char **argv)
{
  /* What the person's environment says is the case under test, not the test's. */
  g_unsetenv ("GSK_RENDERER");
  gtk_test_init (&argc, &argv, NULL);

  g_test_add_func ("/renderer/names", test_names);
  g_test_add_func ("/renderer/chosen-elsewhere", test_chosen_elsewhere);
  g_test_add_func ("/renderer/choice-reaches-windows", test_choice_reaches_windows);
  g_test_add_func ("/renderer/direct-rendering", test_direct_rendering);
  g_test_add_func ("/renderer/leave-out-gl", test_leave_out_gl);
  g_test_add_func ("/renderer/choose-cairo", test_choose_cairo);
  return g_test_run ();
}

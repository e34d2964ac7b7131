/* gml-renderer.c — draw with Cairo where OpenGL is only a software rasterizer.
 *
 * GTK 4.8 draws with OpenGL whenever it can create a context, even when that
 * context is Mesa's llvmpipe: a virtual machine, a remote desktop, a computer
 * whose GPU has no driver yet. There every shader GTK uses is compiled by LLVM
 * before it first draws, and every frame is rasterized on the CPU's cores
 * through a GPU's pipeline. Measured on a 2-core machine (see the README's speed
 * table), the window's first frame came about 250 ms later than with GTK's Cairo
 * renderer, and resizing the window cost four times the CPU time. GTK itself
 * stopped choosing its newer renderers for llvmpipe in 4.14.
 *
 * So, before the first window is realized: unless the person chose a renderer
 * with GSK_RENDERER, ask Mesa which of its drivers serves this display (no GL
 * context is needed: GLX_MESA_query_renderer names the renderer as GL_RENDERER
 * would, EGL_MESA_query_driver names the driver), and if it is a software
 * rasterizer, tell GTK to draw this display with Cairo (the display's
 * "gsk-renderer" data, which GTK reads before GSK_RENDERER). An OpenGL that is
 * not Mesa's (NVIDIA's) answers neither question and is a GPU's; there, and
 * where there is no OpenGL at all, GTK chooses as it always does.
 *
 * Where the X server offers no direct rendering at all, the answer is known
 * before GTK opens the display, and the application has GTK leave OpenGL out
 * (gml_renderer_x11_without_direct_rendering() says why that is worth it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-renderer"

#include "config.h"

#include "gml-renderer.h"

/* After GTK's headers, which say which windowing systems it has. */
#include <epoxy/egl.h>
#ifdef GDK_WINDOWING_X11
#include <epoxy/glx.h>
#include <gdk/x11/gdkx.h>
#endif
#ifdef GDK_WINDOWING_WAYLAND
#include <gdk/wayland/gdkwayland.h>
#endif

/* What Mesa's software rasterizers call themselves: in GL_RENDERER (and
 * GLX_RENDERER_DEVICE_ID_MESA) "llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe"
 * or the old swrast's name; as an EGL driver, "swrast" or "kms_swrast". */
static const char * const software_renderers[] = {
  "llvmpipe",
  "softpipe",
  "Software Rasterizer",
};
static const char * const software_drivers[] = {
  "swrast",
  "kms_swrast",
};

/**
 * gml_renderer_is_software_gl:
 * @name: (nullable): a renderer's name as GL_RENDERER gives it, or an EGL
 *   driver's name
 *
 * Returns: whether @name is one of Mesa's software rasterizers
 */
gboolean
gml_renderer_is_software_gl (const char *name)
{
  if (name == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (software_renderers); i++)
    if (strstr (name, software_renderers[i]) != NULL)
      return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (software_drivers); i++)
    if (g_str_equal (name, software_drivers[i]))
      return TRUE;
  return FALSE;
}

/* The Mesa driver behind @egl, or NULL where it is not Mesa's. */
static char *
egl_driver (EGLDisplay egl)
{
  const char *(*get_driver_name) (EGLDisplay);

  if (egl == NULL || !epoxy_has_egl_extension (egl, "EGL_MESA_query_driver"))
    return NULL;
  /* Looked up by hand: libepoxy's own dispatch refuses this display extension. */
  get_driver_name = (const char *(*) (EGLDisplay)) eglGetProcAddress ("eglGetDisplayDriverName");
  return get_driver_name != NULL ? g_strdup (get_driver_name (egl)) : NULL;
}

#ifdef GDK_WINDOWING_X11
/* GLX's renderer on @display's screen, or NULL where it is not Mesa's. */
static char *
glx_renderer (GdkDisplay *display)
{
  Display *xdisplay = gdk_x11_display_get_xdisplay (display);
  int screen = gdk_x11_screen_get_screen_number (gdk_x11_display_get_screen (display));

  if (!epoxy_has_glx_extension (xdisplay, screen, "GLX_MESA_query_renderer"))
    return NULL;
  return g_strdup (glXQueryRendererStringMESA (xdisplay, screen, 0, GLX_RENDERER_DEVICE_ID_MESA));
}
#endif

/* What Mesa calls the renderer or driver that would draw @display, or NULL
 * when there is no OpenGL or it is not Mesa's. */
static char *
ask_mesa (GdkDisplay *display)
{
  g_autoptr(GError) error = NULL;

  /* On X11 GTK has done this already, to choose the windows' visual. */
  if (!gdk_display_prepare_gl (display, &error))
    {
      g_debug ("gml-renderer no OpenGL: %s", error->message);
      return NULL;
    }
#ifdef GDK_WINDOWING_X11
  if (GDK_IS_X11_DISPLAY (display))
    {
      EGLDisplay egl = gdk_x11_display_get_egl_display (display);

      return egl != NULL ? egl_driver (egl) : glx_renderer (display);
    }
#endif
#ifdef GDK_WINDOWING_WAYLAND
  if (GDK_IS_WAYLAND_DISPLAY (display))
    return egl_driver (gdk_wayland_display_get_egl_display (display));
#endif
  return NULL;
}

/* Whether the person chose how to draw: GSK_RENDERER (empty is no choice). */
static gboolean
renderer_asked (void)
{
  const char *asked = g_getenv ("GSK_RENDERER");

  return asked != NULL && *asked != '\0';
}

/* Has GTK draw @display with Cairo; @why is the debug line's OpenGL part. */
static void
use_cairo (GdkDisplay *display,
           const char *why)
{
  g_object_set_data_full (G_OBJECT (display), "gsk-renderer", g_strdup ("cairo"), g_free);
  g_debug ("gml-renderer cairo, OpenGL: %s", why);
}

/**
 * gml_renderer_x11_without_direct_rendering:
 *
 * Before GTK opens the display. Where GTK will open an X11 display (DISPLAY, and
 * no Wayland display unless GDK_BACKEND asks for X11), asks its server which of
 * the extensions it has that give OpenGL a GPU: DRI3 and DRI2, through which
 * Mesa's hardware drivers draw, and NV-GLX, NVIDIA's. With none of them, any
 * OpenGL there is a software rasterizer (Mesa draws on the CPU: Xvfb, Xvnc and
 * many remote desktops), so the window is to be drawn with Cairo whatever Mesa
 * would say, and GTK need not prepare OpenGL when it opens the display, as it
 * does on X11 to choose the windows' visual: loading Mesa's driver and LLVM and
 * making a context, a quarter of the app's instructions to its first frame on
 * such a display. One request to the server, on a connection of its own.
 *
 * Returns: whether the display GTK will open offers no direct rendering
 */
gboolean
gml_renderer_x11_without_direct_rendering (void)
{
#ifdef GDK_WINDOWING_X11
  static const char * const direct[] = { "DRI3", "DRI2", "NV-GLX" };
  const char *backend = g_getenv ("GDK_BACKEND");
  gboolean x11_asked = g_strcmp0 (backend, "x11") == 0;
  gboolean found = FALSE;
  Display *xdisplay;
  char **names;
  int n_names = 0;

  if ((backend != NULL && *backend != '\0' && !x11_asked) ||
      (g_getenv ("WAYLAND_DISPLAY") != NULL && !x11_asked) || g_getenv ("DISPLAY") == NULL)
    return FALSE;
  if ((xdisplay = XOpenDisplay (NULL)) == NULL)
    return FALSE;
  names = XListExtensions (xdisplay, &n_names);
  for (int i = 0; i < n_names && !found; i++)
    for (guint j = 0; j < G_N_ELEMENTS (direct) && !found; j++)
      found = g_str_equal (names[i], direct[j]);
  if (names != NULL)
    XFreeExtensionList (names);
  XCloseDisplay (xdisplay);
  return !found;
#else
  return FALSE;
#endif
}

/**
 * gml_renderer_can_leave_out_gl:
 *
 * Before GTK opens the display: whether GTK may be told to leave OpenGL out
 * (GDK_DEBUG=gl-disable), because nobody chose a renderer or set GDK_DEBUG and
 * gml_renderer_x11_without_direct_rendering() says OpenGL could only be software.
 */
gboolean
gml_renderer_can_leave_out_gl (void)
{
  return !renderer_asked () && g_getenv ("GDK_DEBUG") == NULL &&
         gml_renderer_x11_without_direct_rendering ();
}

/**
 * gml_renderer_choose_cairo:
 * @display: the display, opened without OpenGL, before any of its windows is
 *   realized
 *
 * Makes GTK draw @display with Cairo, where gml_renderer_x11_without_direct_rendering()
 * found that its OpenGL could only be a software rasterizer; Mesa is not asked.
 */
void
gml_renderer_choose_cairo (GdkDisplay *display)
{
  g_return_if_fail (GDK_IS_DISPLAY (display));

  use_cairo (display, "not asked, the X server offers no direct rendering");
}

/**
 * gml_renderer_choose:
 * @display: the display, before any of its windows is realized
 * @gl_renderer: (out) (optional) (transfer full): Mesa's name for the renderer
 *   or driver, or %NULL when it was not asked, or there is no OpenGL, or it is
 *   not Mesa's
 *
 * Makes GTK draw @display with Cairo when its OpenGL is a software rasterizer
 * and nobody chose a renderer (GSK_RENDERER, or the display's own choice).
 *
 * Returns: (nullable): "cairo" when it did, %NULL when GTK chooses
 */
const char *
gml_renderer_choose (GdkDisplay  *display,
                     char       **gl_renderer)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (GDK_IS_DISPLAY (display), NULL);

  if (gl_renderer != NULL)
    *gl_renderer = NULL;
  if (renderer_asked () ||
      g_object_get_data (G_OBJECT (display), "gsk-renderer") != NULL)
    {
      g_debug ("gml-renderer GTK's choice, OpenGL: not asked");
      return NULL;
    }

  name = ask_mesa (display);
  if (gl_renderer != NULL)
    *gl_renderer = g_strdup (name);
  if (!gml_renderer_is_software_gl (name))
    {
      g_debug ("gml-renderer GTK's choice, OpenGL: %s", name != NULL ? name : "none or not Mesa's");
      return NULL;
    }
  use_cairo (display, name);
  return "cairo";
}

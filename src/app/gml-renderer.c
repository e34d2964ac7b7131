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
 * with GSK_RENDERER, ask OpenGL what it is, and if it is a software rasterizer,
 * tell GTK to draw this display with Cairo (the display's "gsk-renderer" data,
 * which GTK reads before GSK_RENDERER). With a GPU's OpenGL, or none at all,
 * GTK chooses as it always does.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-renderer"

#include "config.h"

#include <epoxy/gl.h>

#include "gml-renderer.h"

/* What Mesa's software rasterizers call themselves in GL_RENDERER:
 * "llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe", and the old swrast. */
static const char * const software_rasterizers[] = {
  "llvmpipe",
  "softpipe",
  "Software Rasterizer",
};

/**
 * gml_renderer_is_software_gl:
 * @gl_renderer: (nullable): OpenGL's GL_RENDERER string
 *
 * Returns: whether @gl_renderer names a software rasterizer
 */
gboolean
gml_renderer_is_software_gl (const char *gl_renderer)
{
  if (gl_renderer == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (software_rasterizers); i++)
    if (strstr (gl_renderer, software_rasterizers[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* GL_RENDERER of a context made for the question and dropped after it, or
 * NULL when there is no OpenGL here. */
static char *
probe_gl_renderer (GdkDisplay *display)
{
  g_autoptr(GdkGLContext) context = NULL;
  g_autoptr(GError) error = NULL;
  const char *name;
  char *copy;

  context = gdk_display_create_gl_context (display, &error);
  if (context == NULL || !gdk_gl_context_realize (context, &error))
    {
      g_debug ("gml-renderer no OpenGL: %s", error != NULL ? error->message : "");
      return NULL;
    }
  gdk_gl_context_make_current (context);
  name = (const char *) glGetString (GL_RENDERER);
  copy = g_strdup (name);
  gdk_gl_context_clear_current ();
  return copy;
}

/**
 * gml_renderer_choose:
 * @display: the display, before any of its windows is realized
 * @gl_renderer: (out) (optional) (transfer full): OpenGL's GL_RENDERER, or
 *   %NULL when OpenGL was not asked or is not there
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
  const char *asked = g_getenv ("GSK_RENDERER");
  g_autofree char *name = NULL;

  g_return_val_if_fail (GDK_IS_DISPLAY (display), NULL);

  if (gl_renderer != NULL)
    *gl_renderer = NULL;
  if ((asked != NULL && *asked != '\0') ||
      g_object_get_data (G_OBJECT (display), "gsk-renderer") != NULL)
    {
      g_debug ("gml-renderer GTK's choice, OpenGL: not asked");
      return NULL;
    }

  name = probe_gl_renderer (display);
  if (gl_renderer != NULL)
    *gl_renderer = g_strdup (name);
  if (!gml_renderer_is_software_gl (name))
    {
      g_debug ("gml-renderer GTK's choice, OpenGL: %s", name != NULL ? name : "none");
      return NULL;
    }
  g_object_set_data_full (G_OBJECT (display), "gsk-renderer", g_strdup ("cairo"), g_free);
  g_debug ("gml-renderer cairo, OpenGL: %s", name);
  return "cairo";
}

/* gml-test-subprocess.h — a test case that runs in a subprocess of its own (one
 * that loads a fake driver, changes the environment or may crash). Header-only:
 * tests/device/run-device-checks.sh compiles test-cuda-backend.c without meson.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

/* Returns TRUE in the child, which then does the work; in the parent it runs the
 * calling test in a child, checks that the child passed and returns FALSE. The
 * child's own assertion message reaches stderr; failing here (rather than
 * aborting) lets the other cases still run and report. */
static inline gboolean
gml_test_in_subprocess (void)
{
  if (g_test_subprocess ())
    return TRUE;

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  if (!g_test_trap_has_passed ())
    g_test_fail_printf ("the subprocess for %s failed", g_test_get_path ());
  return FALSE;
}

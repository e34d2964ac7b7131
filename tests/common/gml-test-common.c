/* gml-test-common.c — fixtures the test programs share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>

#include <glib/gstdio.h>
#include <gio/gio.h>

#include "gml-test-common.h"

/* A path below the source tree (GML_SOURCE_ROOT, set by meson for every test);
 * NULL-terminated elements, as g_build_filename() takes them. */
char *
gml_test_source_path (const char *first_element,
                      ...)
{
  const char *root = g_getenv ("GML_SOURCE_ROOT");
  g_autoptr(GPtrArray) elements = g_ptr_array_new ();
  va_list args;

  g_assert_nonnull (root);
  g_ptr_array_add (elements, (gpointer) root);
  va_start (args, first_element);
  for (const char *e = first_element; e != NULL; e = va_arg (args, const char *))
    g_ptr_array_add (elements, (gpointer) e);
  va_end (args);
  g_ptr_array_add (elements, NULL);

  return g_build_filenamev ((char **) elements->pdata);
}

char *
gml_test_fixture_path (const char *name)
{
  const char *dir = g_getenv ("GML_SNAPSHOT_FIXTURES");
  g_autofree char *path = NULL;

  if (dir == NULL || *dir == '\0')
    return NULL;
  path = g_build_filename (dir, name, NULL);
  return g_file_test (path, G_FILE_TEST_IS_REGULAR) ? g_steal_pointer (&path) : NULL;
}

char *
gml_test_require_fixture (const char *name)
{
  char *path = gml_test_fixture_path (name);

  if (path == NULL)
    {
      g_print ("SKIP: %s is not in GML_SNAPSHOT_FIXTURES (%s): the real snapshots are not "
               "here\n", name,
               g_getenv ("GML_SNAPSHOT_FIXTURES") ? g_getenv ("GML_SNAPSHOT_FIXTURES")
                                                                  : "not set");
      exit (GML_TEST_SKIPPED);
    }
  return path;
}

/* The built-in bank read from its file in the source tree (the one the app
 * compiles into its resources), as a user bank is read. */
GmlQuestionBank *
gml_test_load_bank_file (void)
{
  g_autofree char *path = gml_test_source_path ("data", "questions", "gpu-memory.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GmlQuestionBank *bank = gml_question_bank_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (gml_question_bank_load_file (bank, file, TRUE, &error));
  g_assert_no_error (error);
  return bank;
}

/* A new empty directory; remove it with gml_test_remove_tree(). */
char *
gml_test_make_tmp_dir (const char *tmpl)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp (tmpl, &error);

  g_assert_no_error (error);
  g_assert_nonnull (dir);
  return dir;
}

/* Removes @path and everything below it; a path that is not there is no error. */
void
gml_test_remove_tree (const char *path)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (path == NULL)
    return;
  /* Not into a link to a directory: only the link goes. */
  if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    dir = g_dir_open (path, 0, NULL);
  if (dir != NULL)
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);

        gml_test_remove_tree (child);
      }
  g_remove (path);
}

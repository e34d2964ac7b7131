/* fuzz-main.c — runs a fuzz target over files without libFuzzer.
 *
 * Where the compiler is not clang (or libFuzzer is not asked for) the fuzz targets
 * are linked with this main instead, so the seed corpora and every input a fuzzer
 * once crashed on (tests/fuzz/regressions/) still run in the ordinary test suite.
 * Arguments are files or directories (each file in them, in name order); arguments
 * starting with "-" are libFuzzer options and are ignored, so the same test line
 * works with both.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv) __attribute__ ((weak));

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
run_file (const char *path)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &contents, &length, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return FALSE;
    }
  fprintf (stderr, "running %s (%zu bytes)\n", path, length);
  /* A copy of exactly @length bytes, so a read past the end is caught by the
   * sanitizer (or valgrind) as it would be under libFuzzer. */
  {
    g_autofree uint8_t *copy = g_memdup2 (contents, length);

    LLVMFuzzerTestOneInput (copy, length);
  }
  return TRUE;
}

int
main (int    argc,
      char **argv)
{
  guint n_run = 0;

  if (LLVMFuzzerInitialize != NULL)
    LLVMFuzzerInitialize (&argc, &argv);

  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];

      if (arg[0] == '-')
        continue;
      if (g_file_test (arg, G_FILE_TEST_IS_DIR))
        {
          g_autoptr(GDir) dir = g_dir_open (arg, 0, NULL);
          g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
          const char *name;

          while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
            if (name[0] != '.' && !g_str_has_suffix (name, ".md"))
              g_ptr_array_add (names, g_build_filename (arg, name, NULL));
          g_ptr_array_sort (names, compare_names);
          for (guint j = 0; j < names->len; j++)
            {
              if (!run_file (g_ptr_array_index (names, j)))
                return 1;
              n_run++;
            }
        }
      else
        {
          if (!run_file (arg))
            return 1;
          n_run++;
        }
    }

  fprintf (stderr, "%u inputs ran without a crash\n", n_run);
  return n_run > 0 ? 0 : 1;
}

/* gml-test-common.h — fixtures the test programs share: paths in the source tree,
 * the built-in question bank as a file, and temporary directories.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "gml-question-bank.h"

G_BEGIN_DECLS

char            *gml_test_source_path      (const char *first_element,
                                            ...) G_GNUC_NULL_TERMINATED;
GmlQuestionBank *gml_test_load_bank_file   (void);
char            *gml_test_make_tmp_dir     (const char *tmpl);
void             gml_test_remove_tree      (const char *path);

/* The exit status meson reads as "skipped". */
#define GML_TEST_SKIPPED 77

/* A real PyTorch snapshot from the folder GML_SNAPSHOT_FIXTURES names (they are
 * never copied into this repository), or NULL when the folder is not given or
 * lacks the file. */
char            *gml_test_fixture_path     (const char *name);
/* For a test program that needs the real snapshots: the path of @name, or, when
 * there is none, a line saying why and exit (GML_TEST_SKIPPED). */
char            *gml_test_require_fixture  (const char *name);

G_END_DECLS

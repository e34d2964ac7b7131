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

G_END_DECLS

/* gml-memory.h — large arrays: asking the kernel for huge pages.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Asks for transparent huge pages over the whole aligned 2 MiB pieces of
 * @data (@size bytes): an array of millions of entries, filled once, then
 * takes a page fault per 2 MiB instead of per 4 KiB. A hint only: an array
 * without such a piece, or a kernel that says no, stays as it is. */
void gml_advise_huge_pages (gpointer data,
                            gsize    size);

G_END_DECLS

/* gml-memory.c — large arrays: asking the kernel for huge pages.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <sys/mman.h>

#include "gml-memory.h"

#define HUGE_PAGE ((gsize) 2 << 20)

void
gml_advise_huge_pages (gpointer data,
                       gsize    size)
{
#ifdef MADV_HUGEPAGE
  guintptr start = ((guintptr) data + HUGE_PAGE - 1) & ~(guintptr) (HUGE_PAGE - 1);
  guintptr end = ((guintptr) data + size) & ~(guintptr) (HUGE_PAGE - 1);

  if (data != NULL && end > start)
    madvise ((void *) start, end - start, MADV_HUGEPAGE);
#endif
}

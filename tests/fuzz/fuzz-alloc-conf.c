/* fuzz-alloc-conf.c — the PYTORCH_CUDA_ALLOC_CONF reader (gml_alloc_conf_parse).
 *
 * A setting that parses must give rounding rules that hold for every size:
 * never smaller than asked, a multiple of 512 bytes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "fuzz-common.h"
#include "gml-alloc-conf.h"
#include "gml-allocator.h"   /* gml_round_size () */

FUZZ_DEFINE_QUIET_INITIALIZE ()

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static const guint64 sizes[] = {
    1, 511, 512, 1200, 1048575, 1048576, 1228800, 3000000, 10485761, 20971520,
    G_GUINT64_CONSTANT (1) << 33, (G_GUINT64_CONSTANT (1) << 36) + 12345, G_MAXINT64,
  };
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  GmlAllocConf conf;

  /* The setting comes from a command line or an environment variable: a C string. */
  if (memchr (data, '\0', size) != NULL)
    return 0;
  text = fuzz_strndup (data, size);

  gml_alloc_conf_init (&conf);
  if (!gml_alloc_conf_parse (&conf, text, &error))
    {
      if (error == NULL || *error->message == '\0')
        abort ();
      return 0;
    }

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      guint64 rounded = gml_round_size (&conf, sizes[i]);

      if (rounded < sizes[i] || rounded % 512 != 0)
        {
          /* fprintf: fuzz_quiet() silences g_printerr. */
          fprintf (stderr, "round_size (%" G_GUINT64_FORMAT ") = %" G_GUINT64_FORMAT "\n",
                   sizes[i], rounded);
          abort ();
        }
    }
  return 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */

#define G_LOG_DOMAIN "gml-replay"

#include "config.h"

#include <glib/gi18n.h>

#include "gml-replay.h"

int
gml_replay_main (int    argc,
                 char **argv)
{
  g_printerr ("%s\n", _("replay is not implemented yet"));
  return 1;
}

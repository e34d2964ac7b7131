/* gml-watch-cli.h — the `gpu-memory-lab watch` command.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  GML_WATCH_WINDOW,   /* the app's Live view (main.c starts the application) */
  GML_WATCH_TEXT,     /* one line of text per update */
  GML_WATCH_JSON,     /* one JSON object per update */
} GmlWatchMode;

typedef struct
{
  GmlWatchMode  mode;
  double        interval;
  char         *snapshot_dir;
  char        **command;
} GmlWatchOptions;

void     gml_watch_options_clear (GmlWatchOptions  *options);
/* argv[0] is "watch". FALSE, with the exit status in @status, when there is
 * nothing to run (a usage error, said on stderr). */
gboolean gml_watch_parse         (int               argc,
                                  char            **argv,
                                  GmlWatchOptions  *options,
                                  int              *status);
/* Runs the program and reports on the terminal (GML_WATCH_TEXT or _JSON);
 * returns the program's exit status. */
int      gml_watch_run           (const GmlWatchOptions *options);
/* Parse and run on the terminal, text in place of the window. */
int      gml_watch_main          (int               argc,
                                  char            **argv);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (GmlWatchOptions, gml_watch_options_clear)

G_END_DECLS

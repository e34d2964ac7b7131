/* gml-picture-run.h — a question's picture script run in a worker for a widget that
 * shows it: the quiz's picture panel and the projector's window.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "gml-picture-script.h"

G_BEGIN_DECLS

/* One run at a time, kept in the widget that started it. */
typedef struct
{
  GCancellable *cancellable;   /* the run under way, or NULL */
  char         *key;           /* its picture script's string */
} GmlPictureRun;

gboolean gml_picture_run_is_running (const GmlPictureRun    *run,
                                     const char             *key);
void     gml_picture_run_start      (GmlPictureRun          *run,
                                     gpointer                owner,
                                     const GmlPictureScript *script,
                                     const char             *key,
                                     GmlDevice              *device,
                                     GmlDevice              *fallback,
                                     GAsyncReadyCallback     callback);
gboolean gml_picture_run_end        (GmlPictureRun          *run,
                                     GAsyncResult           *result,
                                     char                  **key);
void     gml_picture_run_cancel     (GmlPictureRun          *run);

G_END_DECLS

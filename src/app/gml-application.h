/* gml-application.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "gml-progress.h"
#include "gml-question-bank.h"
#include "gml-scenario.h"

G_BEGIN_DECLS

#define GML_TYPE_APPLICATION (gml_application_get_type ())

/* How long the backend settings must stay unchanged before the device is rebuilt. */
#define GML_DEVICE_SETTLE_MS 300

G_DECLARE_FINAL_TYPE (GmlApplication, gml_application, GML, APPLICATION, AdwApplication)

GmlApplication  *gml_application_new          (void);
/* `gpu-memory-lab watch -- COMMAND…`: an instance of its own whose window
 * opens on the Live view running @command. */
GmlApplication  *gml_application_new_for_watch (char          **command,
                                                double          interval,
                                                const char     *snapshot_dir);
/* The watched program's exit status (128 + signal when killed), or 0 while it
 * has not ended; the window sets it. */
int              gml_application_get_watch_status (GmlApplication *self);
void             _gml_application_set_watch_status (GmlApplication *self,
                                                    int             status);
/* The command a `watch` instance was started for, or NULL; taken by the first window. */
char           **_gml_application_steal_watch_command (GmlApplication *self,
                                                       double         *interval,
                                                       char          **snapshot_dir);
GmlQuestionBank *gml_application_get_bank     (GmlApplication *self);
GmlProgress     *gml_application_get_progress (GmlApplication *self);
GSettings       *gml_application_get_settings (GmlApplication *self);
guint            gml_application_get_audience_port (GmlApplication *self);
GPtrArray       *gml_application_steal_startup_messages (GmlApplication *self);
GmlDevice       *gml_application_get_device   (GmlApplication *self,
                                               const char    **reason);
GmlDevice       *gml_application_peek_device  (GmlApplication *self,
                                               const char    **reason);

/* For bench/startup: with GML_BENCH_FIRST_FRAME set, prints "bench WHAT TIME"
 * (the monotonic clock, µs), so that the start-up can be split into parts. */
void            gml_bench_mark                        (const char      *what);

G_END_DECLS

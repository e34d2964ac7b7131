/* gml-live-session.h — one running PyTorch program watched through its probe.
 *
 * A session reads the probe's messages in a thread of its own: each line is
 * parsed (gml_probe_message_parse), the trace entries and the allocator's
 * state gathered (GmlLiveRecord), and when a new state came a snapshot
 * document is built there too, so the main loop only receives finished
 * pieces: the figures of each update, a document to show, an out-of-memory
 * error, a refused message, the end.
 *
 * Three ways a session starts: the app runs the program itself
 * (gml_live_session_new_for_command: it listens on a socket of its own and
 * shows the program's output), a probe that waits is attached
 * (gml_live_session_new_for_socket), or a probe connects to the Live view's
 * socket (gml_live_session_new_for_connection).
 *
 * No GTK here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "gml-probe-message.h"
#include "gml-snapshot-document.h"

G_BEGIN_DECLS

#define GML_TYPE_LIVE_SESSION (gml_live_session_get_type ())

G_DECLARE_FINAL_TYPE (GmlLiveSession, gml_live_session, GML, LIVE_SESSION, GObject)

typedef enum
{
  GML_LIVE_WAITING,      /* the program runs; its probe has not connected yet */
  GML_LIVE_CONNECTED,    /* messages arrive */
  GML_LIVE_ENDED,        /* the program ended, or the connection closed */
} GmlLiveStatus;

/* The figures of the latest update: torch.cuda.memory_stats() in the program. */
typedef struct
{
  gboolean valid;
  double   time;
  guint    device;
  guint64  allocated_bytes;
  guint64  reserved_bytes;
  guint64  active_bytes;
  guint64  segments;
  guint64  allocations;
  guint64  trace_entries;
} GmlLiveFigures;

/* The entries the live trace keeps, like PyTorch's ring buffer (max_entries). */
#define GML_LIVE_MAX_ENTRIES 200000
/* Requests to the probe not yet taken by its socket (each is a short line). */
#define GML_LIVE_MAX_OUTGOING (64 * 1024)

GmlLiveSession      *gml_live_session_new_for_command    (const char * const *argv,
                                                          double              interval,
                                                          const char         *snapshot_dir,
                                                          GError            **error);
/* @socket: connected to a waiting probe that has sent @hello (both taken). */
GmlLiveSession      *gml_live_session_new_for_socket     (GSocket            *socket,
                                                          GmlProbeMessage    *hello);
GmlLiveSession      *gml_live_session_new_for_connection (GSocketConnection  *connection);

GmlLiveStatus        gml_live_session_get_status         (GmlLiveSession     *self);
gboolean             gml_live_session_has_program        (GmlLiveSession     *self);
gboolean             gml_live_session_program_running    (GmlLiveSession     *self);
/* The program's exit status (128 + signal when killed); -1 while it runs or
 * when the session did not start it. */
int                  gml_live_session_get_exit_status    (GmlLiveSession     *self);
/* The GPU's total memory as the probe's hello said it; 0 before the hello. */
guint64              gml_live_session_get_gpu_total      (GmlLiveSession     *self);
/* "python3 train.py --batch 64", from the command or the probe's hello. */
const char          *gml_live_session_get_title          (GmlLiveSession     *self);
/* The GPU's name and PyTorch's version, when the probe said them. */
char                *gml_live_session_describe_source    (GmlLiveSession     *self);
/* Why the session ended, in words, in the current language; NULL while it runs. */
char                *gml_live_session_describe_end       (GmlLiveSession     *self);
const GmlLiveFigures *gml_live_session_get_figures       (GmlLiveSession     *self);
/* The newest picture (NULL before the first state). */
GmlSnapshotDocument *gml_live_session_get_document       (GmlLiveSession     *self);
guint                gml_live_session_get_n_refused      (GmlLiveSession     *self);
/* Entries the live trace let go (older than GML_LIVE_MAX_ENTRIES, or before a gap). */
guint64              gml_live_session_get_dropped        (GmlLiveSession     *self);
gboolean             gml_live_session_state_omitted      (GmlLiveSession     *self);

/* Asks the probe for torch.cuda.memory._snapshot() as a pickle and writes it
 * to @file. Done when ::dump-done is emitted with the returned id; 0 when it
 * cannot be asked (not connected). */
guint64              gml_live_session_save_snapshot      (GmlLiveSession     *self,
                                                          GFile              *file);
/* SIGTERM to the program the session started. */
void                 gml_live_session_stop_program       (GmlLiveSession     *self);
/* Stops reading (the probe goes back to waiting for a lab) and stops the
 * program the session started. */
void                 gml_live_session_close              (GmlLiveSession     *self);

G_END_DECLS

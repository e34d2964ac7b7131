/* gml-probe-socket.h — where the lab and the probes of running programs meet.
 *
 * Everything is in $XDG_RUNTIME_DIR/gpu-memory-lab, a directory only the user
 * can enter (made 0700 and checked to be the user's own):
 *
 *   probe.sock        the app listens here while its Live view is open; a
 *                     program calling gml_probe.start() connects to it
 *   probe-PID.sock    a program whose probe waits for a lab to attach
 *   watch-PID.sock    `gpu-memory-lab watch` listens here for its program
 *   live-PID-N.sock   the app listens here for a program it started
 *
 * Inside the Flatpak the folder is $XDG_RUNTIME_DIR/app/$FLATPAK_ID/gpu-memory-lab,
 * which Flatpak shares with the host at that same path; the probe, outside,
 * looks there too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "gml-probe-message.h"

G_BEGIN_DECLS

typedef struct
{
  char            *path;
  gint64           pid;       /* from the file name */
  gboolean         stale;     /* nobody listens: the program is gone (the file is removed) */
  GmlProbeMessage *hello;     /* what the probe says of itself; NULL when stale or silent */
  char            *problem;   /* why it could not be read, translated; NULL when it could */
} GmlProbeWaiting;

/* The directory, made if need be and closed to others; NULL and @error when it
 * belongs to someone else or cannot be made. */
char      *gml_probe_socket_dir          (GError       **error);
/* The Live view's socket (the directory is not made). */
char      *gml_probe_default_socket_path (void);
/* A socket service listening at @path, closed to others (0600), not yet started:
 * connect "incoming", then g_socket_service_start(). A file left at @path by a
 * lab that was killed is replaced; one someone still listens on is kept, and the
 * error is G_IO_ERROR_ADDRESS_IN_USE. */
GSocketService *gml_probe_listen         (const char    *path,
                                          GError       **error);
/* Stops @service (may be NULL) and removes its socket file @path (may be NULL). */
void       gml_probe_unlisten            (GSocketService *service,
                                          const char    *path);
/* The directory of gml_probe.py: GML_PYTHON_DIR when set; the source tree's when
 * the program runs from its build folder; else the installed one. */
char      *gml_probe_module_dir          (void);

/* The probes waiting in the directory, each asked for its hello (a second at
 * most each). Sockets nobody listens on are removed and listed as stale.
 * Blocks: call it in a thread. */
GPtrArray *gml_probe_list_waiting        (GCancellable  *cancellable,
                                          GError       **error);
void       gml_probe_waiting_free        (GmlProbeWaiting *waiting);

/* Connects to @path and reads its first line (at most 64 KiB, @timeout_ms):
 * the hello a waiting probe sends. The socket stays open on success. */
GSocket   *gml_probe_connect             (const char    *path,
                                          guint          timeout_ms,
                                          GmlProbeMessage **hello,
                                          GError       **error);

/* The environment a program needs to run with the probe: gml_probe on its
 * PYTHONPATH (and the sitecustomize that starts it when torch is imported),
 * the socket to connect to, the interval between updates, where out-of-memory
 * snapshots go (NULL: the probe's default). */
void       gml_probe_setup_launcher      (GSubprocessLauncher *launcher,
                                          const char    *socket_path,
                                          double         interval,
                                          const char    *snapshot_dir);

G_END_DECLS

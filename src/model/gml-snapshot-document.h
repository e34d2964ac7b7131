/* gml-snapshot-document.h — one PyTorch memory snapshot opened in the app.
 *
 * The document is the Snapshot view's model: the file, the device whose trace
 * is shown, and the position N in that trace ("at"), as properties the view
 * binds to. It is made off the main loop: reading the file and walking its
 * trace run in a GTask thread, and the main loop only receives the finished
 * document, so the window stays responsive for a file of any size.
 *
 * No GTK here: the document is tested headless.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "gml-snapshot-picture.h"
#include "gml-snapshot-summary.h"

G_BEGIN_DECLS

#define GML_TYPE_SNAPSHOT_DOCUMENT (gml_snapshot_document_get_type ())

G_DECLARE_FINAL_TYPE (GmlSnapshotDocument, gml_snapshot_document, GML, SNAPSHOT_DOCUMENT, GObject)

typedef enum
{
  GML_SNAPSHOT_LOAD_READING,     /* the file is read: @fraction of its bytes */
  GML_SNAPSHOT_LOAD_WALKING,     /* the trace is walked: no fraction (-1) */
} GmlSnapshotLoadPhase;

/* Called on the main context of the caller of _load_async(), at most ten
 * times a second, never after the load was cancelled or its result delivered. */
typedef void (*GmlSnapshotLoadProgress) (GmlSnapshotLoadPhase phase,
                                         double               fraction,
                                         gpointer             user_data);

/* @device: the device whose trace to show, or -1 for the snapshot's default. */
void                 gml_snapshot_document_load_async       (GFile                   *file,
                                                             int                      device,
                                                             GCancellable            *cancellable,
                                                             GmlSnapshotLoadProgress  progress,
                                                             gpointer                 progress_data,
                                                             GAsyncReadyCallback      callback,
                                                             gpointer                 user_data);
GmlSnapshotDocument *gml_snapshot_document_load_finish      (GAsyncResult            *result,
                                                             GError                 **error);
/* The same file, another device: the snapshot is shared, only the trace of
 * @device is walked (in a thread). */
void                 gml_snapshot_document_switch_device_async (GmlSnapshotDocument *self,
                                                                guint                device,
                                                                GCancellable        *cancellable,
                                                                GAsyncReadyCallback  callback,
                                                                gpointer             user_data);
GmlSnapshotDocument *gml_snapshot_document_switch_device_finish (GAsyncResult       *result,
                                                                 GError            **error);

/* A document of a snapshot made in memory (the Live view's, from a running
 * program's probe): @snapshot is taken; the timeline is walked here, so call
 * it in a thread. It has no file (get_file() is NULL). */
GmlSnapshotDocument *gml_snapshot_document_new_live        (GmlSnapshot             *snapshot,
                                                             guint                    device,
                                                             const char              *display_name,
                                                             GCancellable            *cancellable,
                                                             GError                 **error);

GFile               *gml_snapshot_document_get_file         (GmlSnapshotDocument *self);
/* The file's name as the user knows it ("snapshot.pickle"). */
const char          *gml_snapshot_document_get_display_name (GmlSnapshotDocument *self);
guint                gml_snapshot_document_get_device       (GmlSnapshotDocument *self);
guint                gml_snapshot_document_get_n_devices    (GmlSnapshotDocument *self);
gsize                gml_snapshot_document_get_n_entries    (GmlSnapshotDocument *self);
gsize                gml_snapshot_document_get_at           (GmlSnapshotDocument *self);
void                 gml_snapshot_document_set_at           (GmlSnapshotDocument *self,
                                                             gsize                at);
/* One step of scrubbing: 1 % of the trace, at least one entry. */
gsize                gml_snapshot_document_get_page         (GmlSnapshotDocument *self);

GmlSnapshot         *gml_snapshot_document_get_snapshot     (GmlSnapshotDocument *self);
GmlSnapshotTimeline *gml_snapshot_document_get_timeline     (GmlSnapshotDocument *self);
GmlSnapshotPicture  *gml_snapshot_document_get_picture      (GmlSnapshotDocument *self);

/* What trace entry @at is (the last one applied at N = @at), in words, in the
 * current language: "Entry 2500 of 5163: alloc of 2 MiB on stream 0, 1.250 s
 * into the trace, in forward, model.py:54"; at 0, that no entry is applied yet. */
char                *gml_snapshot_document_describe_entry   (GmlSnapshotDocument *self,
                                                             gsize                at);
/* "cuda:0 · 5163 trace entries", for the header. */
char                *gml_snapshot_document_describe_source  (GmlSnapshotDocument *self);
/* "cuda:1 — 596 entries, 1 OOM", for the device chooser. */
char                *gml_snapshot_document_describe_device  (GmlSnapshotDocument *self,
                                                             guint                device);

/* The peak of allocated memory, by category and by line (made with the document). */
const GmlSnapshotPeak *gml_snapshot_document_get_peak       (GmlSnapshotDocument *self);

/* Another run to compare with (B; this one is A), or NULL: its timeline is
 * drawn over this one's, and the lines whose bytes at the two peaks differ
 * are the comparison. */
void                 gml_snapshot_document_set_compare      (GmlSnapshotDocument *self,
                                                             GmlSnapshotDocument *other);
GmlSnapshotDocument *gml_snapshot_document_get_compare      (GmlSnapshotDocument *self);
/* GmlSnapshotWhereDiff, the largest difference first; NULL without a comparison. */
GArray              *gml_snapshot_document_get_comparison   (GmlSnapshotDocument *self);

G_END_DECLS

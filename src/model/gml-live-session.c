/* gml-live-session.c — one running PyTorch program watched through its probe.
 *
 * The reader thread owns the socket's reading side, the live record and the
 * snapshots being received; the main loop owns everything else. The thread
 * hands over finished things through g_main_context_invoke_full(), one batch
 * of lines at a time, so a probe that sends fast costs the main loop one
 * handful of callbacks per read, never one per line. Requests to the probe
 * are written from the main loop on the same socket (a send and a receive at
 * once are fine on a socket; the GSocket object itself is only read from the
 * thread, the main loop writes on its file descriptor).
 *
 * What arrives is untrusted: lines are bounded (GML_PROBE_MAX_LINE), parsed
 * by the checking parser, and a program that sends more than
 * GML_PROBE_MAX_BAD_LINES refused lines is disconnected. A snapshot being
 * received is bounded by what its dump-begin announced.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-live-session"

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gio/gunixsocketaddress.h>
#include "gml-i18n.h"
#include <glib/gstdio.h>

#include "gml-live-record.h"
#include "gml-live-session.h"
#include "gml-probe-socket.h"

#define READ_CHUNK    65536
#define MAX_OUTPUT    65536     /* bytes of the program's output handed over at once */

typedef struct
{
  guint64            id;
  GFile             *file;       /* where it goes when it is complete */
  GFile             *tmp;        /* where it is written meanwhile (the lab's cache) */
  GFileOutputStream *out;
  guint64            expected;
  guint64            received;
  gboolean           begun;
  char              *error;
} Transfer;

struct _GmlLiveSession
{
  GObject              parent_instance;

  /* Main loop */
  GmlLiveStatus        status;
  char                *title;
  char                *device_name;
  guint64              gpu_total;        /* the hello's total_bytes; 0 before it */
  char                *torch_version;
  gboolean             saw_bye;
  gboolean             closed_by_us;
  char                *close_reason;     /* translated, when the connection broke */
  GmlLiveFigures       figures;
  GmlSnapshotDocument *document;
  guint                n_refused;
  guint64              dropped;
  gboolean             omitted;
  guint64              next_dump_id;

  GSubprocess         *child;
  gboolean             child_done;
  int                  child_status;
  int                  child_signal;
  GSocketService      *service;          /* for the program the session started */
  GByteArray          *outgoing;         /* requests the socket has not taken yet */
  GSource             *out_source;       /* says when it has room for them */
  char                *socket_path;
  GCancellable        *cancellable;
  GMainContext        *context;

  /* Shared with the thread */
  GMutex               lock;
  GSocket             *socket;
  GHashTable          *transfers;        /* id → Transfer */
  GThread             *thread;
  gboolean             oom_snapshot_wanted;
};

enum {
  CHANGED,
  FIGURES,
  DOCUMENT,
  OOM,
  OOM_SNAPSHOT,
  REFUSED,
  PROBE_ERROR,
  OUTPUT,
  DUMP_PROGRESS,
  DUMP_DONE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GmlLiveSession, gml_live_session, G_TYPE_OBJECT)

static void
transfer_free (gpointer data)
{
  Transfer *t = data;

  /* Not complete: what was written is thrown away, never left as a broken
   * pickle, and the destination is untouched. */
  if (t->out != NULL)
    g_output_stream_close (G_OUTPUT_STREAM (t->out), NULL, NULL);
  g_clear_object (&t->out);
  if (t->tmp != NULL)
    g_file_delete (t->tmp, NULL, NULL);
  g_clear_object (&t->tmp);
  g_clear_object (&t->file);
  g_free (t->error);
  g_free (t);
}

/* ------------------------------------------------------------------------- */
/* From the thread to the main loop                                          */

typedef enum
{
  POST_HELLO,
  POST_FIGURES,
  POST_DOCUMENT,
  POST_OOM,
  POST_REFUSED,
  POST_PROBE_ERROR,
  POST_BYE,
  POST_DUMP_PROGRESS,
  POST_DUMP_DONE,
  POST_CLOSED,
} PostKind;

typedef struct
{
  GmlLiveSession      *session;
  PostKind             kind;
  GmlProbeMessage     *message;
  GmlLiveFigures       figures;
  GmlSnapshotDocument *document;
  char                *text;
  guint64              id;
  guint64              done;
  guint64              total;
  GFile               *file;
  guint64              dropped;
  gboolean             omitted;
} Post;

static void
post_free (gpointer data)
{
  Post *p = data;

  g_object_unref (p->session);
  g_clear_pointer (&p->message, gml_probe_message_free);
  g_clear_object (&p->document);
  g_clear_object (&p->file);
  g_free (p->text);
  g_free (p);
}

static void
set_status (GmlLiveSession *self,
            GmlLiveStatus   status)
{
  if (self->status == status)
    return;
  self->status = status;
  g_signal_emit (self, signals[CHANGED], 0);
}

static gboolean
post_cb (gpointer data)
{
  Post *p = data;
  GmlLiveSession *self = p->session;

  switch (p->kind)
    {
    case POST_HELLO:
      if (p->message->argv != NULL && p->message->argv[0] != NULL && self->child == NULL)
        {
          g_free (self->title);
          self->title = g_strjoinv (" ", p->message->argv);
        }
      g_free (self->device_name);
      self->device_name = g_strdup (p->message->device_name);
      self->gpu_total = p->message->total_bytes;
      g_free (self->torch_version);
      self->torch_version = g_strdup (p->message->torch_version);
      if (self->status == GML_LIVE_WAITING)
        self->status = GML_LIVE_CONNECTED;
      g_signal_emit (self, signals[CHANGED], 0);
      break;
    case POST_FIGURES:
      self->figures = p->figures;
      self->dropped = p->dropped;
      self->omitted = p->omitted;
      if (self->status == GML_LIVE_WAITING)
        set_status (self, GML_LIVE_CONNECTED);
      g_signal_emit (self, signals[FIGURES], 0);
      break;
    case POST_DOCUMENT:
      g_set_object (&self->document, p->document);
      g_signal_emit (self, signals[DOCUMENT], 0);
      break;
    case POST_OOM:
      g_signal_emit (self, signals[OOM], 0, p->message);
      break;
    case POST_REFUSED:
      self->n_refused++;
      g_signal_emit (self, signals[REFUSED], 0, p->text);
      break;
    case POST_PROBE_ERROR:
      g_signal_emit (self, signals[PROBE_ERROR], 0, p->text);
      break;
    case POST_BYE:
      self->saw_bye = TRUE;
      break;
    case POST_DUMP_PROGRESS:
      g_signal_emit (self, signals[DUMP_PROGRESS], 0, p->id, p->done, p->total);
      break;
    case POST_DUMP_DONE:
      if (p->id == 0)
        g_signal_emit (self, signals[OOM_SNAPSHOT], 0, p->file, p->text);
      else
        g_signal_emit (self, signals[DUMP_DONE], 0, p->id, p->file, p->text);
      break;
    case POST_CLOSED:
      g_clear_pointer (&self->close_reason, g_free);
      self->close_reason = g_steal_pointer (&p->text);
      /* A program the session started ends the session when it exits. */
      if (self->child == NULL || self->child_done)
        set_status (self, GML_LIVE_ENDED);
      g_signal_emit (self, signals[CHANGED], 0);
      break;
    default:
      break;
    }
  return G_SOURCE_REMOVE;
}

static Post *
post_new (GmlLiveSession *self,
          PostKind        kind)
{
  Post *p = g_new0 (Post, 1);

  p->session = g_object_ref (self);
  p->kind = kind;
  return p;
}

static void
post (Post *p)
{
  g_main_context_invoke_full (p->session->context, G_PRIORITY_DEFAULT, post_cb, p, post_free);
}

static void
post_text (GmlLiveSession *self,
           PostKind        kind,
           char           *text)
{
  Post *p = post_new (self, kind);

  p->text = text;
  post (p);
}

/* ------------------------------------------------------------------------- */
/* The reader thread                                                         */

typedef struct
{
  GmlLiveSession *session;
  GSocket        *socket;
  GCancellable   *cancellable;
  GmlLiveRecord  *record;
  GByteArray     *buffer;
  guint           line;
  guint           bad;
  gboolean        state_changed;
  gboolean        figures_changed;
  GmlLiveFigures  figures;
  char           *title;
  char           *cache_dir;    /* $XDG_CACHE_HOME/gpu-memory-lab/live */
} Reader;

static void
refuse (Reader     *r,
        const char *why)
{
  r->bad++;
  /* Translators: %u counts the program's messages from 1; %s says what is wrong. */
  post_text (r->session, POST_REFUSED,
             g_strdup_printf (_("Message %u from the program was refused: %s"),
                              r->line, why));
}

static Transfer *
find_transfer (Reader  *r,
               guint64  id)
{
  Transfer *t;

  g_mutex_lock (&r->session->lock);
  t = g_hash_table_lookup (r->session->transfers, &id);
  if (t == NULL && id == 0 && r->session->oom_snapshot_wanted)
    {
      /* The out-of-memory snapshot comes unasked, after the oom message. */
      g_autofree char *name = g_strdup_printf ("oom-%d-%" G_GINT64_FORMAT ".pickle",
                                               (int) getpid (),
                                               g_get_real_time () / 1000);

      t = g_new0 (Transfer, 1);
      t->id = 0;
      t->file = g_file_new_build_filename (r->cache_dir, name, NULL);
      g_hash_table_insert (r->session->transfers, &t->id, t);
    }
  g_mutex_unlock (&r->session->lock);
  return t;
}

static void
finish_transfer (Reader   *r,
                 Transfer *t,
                 char     *error)
{
  Post *p = post_new (r->session, POST_DUMP_DONE);
  guint64 id = t->id;

  p->id = id;
  if (error == NULL && t->out != NULL)
    {
      g_autoptr(GError) local = NULL;

      /* Complete: moved into place (a copy where the destination is elsewhere,
       * e.g. a file the portal lends the sandbox). */
      if (!g_output_stream_close (G_OUTPUT_STREAM (t->out), NULL, &local) ||
          !g_file_move (t->tmp, t->file, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, &local))
        error = g_strdup (local->message);
      else
        g_clear_object (&t->tmp);
      g_clear_object (&t->out);
    }
  if (error == NULL)
    p->file = g_object_ref (t->file);
  p->text = error;
  g_mutex_lock (&r->session->lock);
  g_hash_table_remove (r->session->transfers, &id);
  g_mutex_unlock (&r->session->lock);
  post (p);
}

static void
handle_dump (Reader                *r,
             const GmlProbeMessage *m)
{
  Transfer *t = find_transfer (r, m->id);
  g_autoptr(GError) error = NULL;

  if (t == NULL)
    {
      refuse (r, _("a snapshot nobody asked for."));
      return;
    }
  switch (m->type)
    {
    case GML_PROBE_DUMP_BEGIN:
      if (t->begun)
        {
          finish_transfer (r, t, g_strdup (_("The program began the same snapshot twice.")));
          return;
        }
      t->begun = TRUE;
      t->expected = m->bytes;
      {
        g_autofree char *name =
            g_strdup_printf ("receiving-%d-%" G_GUINT64_FORMAT "-%" G_GINT64_FORMAT ".part",
                             (int) getpid (), t->id, g_get_real_time ());
        g_autoptr(GFile) dir = g_file_new_for_path (r->cache_dir);

        g_file_make_directory_with_parents (dir, NULL, NULL);
        t->tmp = g_file_get_child (dir, name);
      }
      t->out = g_file_replace (t->tmp, NULL, FALSE, G_FILE_CREATE_PRIVATE, NULL, &error);
      if (t->out == NULL)
        finish_transfer (r, t, g_strdup (error->message));
      break;
    case GML_PROBE_DUMP_DATA:
      {
        gsize n = g_bytes_get_size (m->data);

        if (!t->begun || t->out == NULL)
          return;
        if (n > t->expected - t->received)
          {
            finish_transfer (r, t,
                             g_strdup (_("The program sent more of the snapshot than it "
                                         "announced.")));
            return;
          }
        if (!g_output_stream_write_all (G_OUTPUT_STREAM (t->out), g_bytes_get_data (m->data, NULL),
                                        n, NULL,
                                        NULL, &error))
          {
            finish_transfer (r, t, g_strdup (error->message));
            return;
          }
        t->received += n;
        {
          Post *p = post_new (r->session, POST_DUMP_PROGRESS);

          p->id = t->id;
          p->done = t->received;
          p->total = t->expected;
          post (p);
        }
      }
      break;
    case GML_PROBE_DUMP_END:
      if (!t->begun || t->received != t->expected)
        finish_transfer (r, t, g_strdup (_("The snapshot ended before all its bytes arrived.")));
      else
        finish_transfer (r, t, NULL);
      break;
    case GML_PROBE_DUMP_FAILED:
      /* Translators: %s is the program's own message (Python's, in English). */
      finish_transfer (r, t, g_strdup_printf (_("The program could not take the snapshot: %s"),
                                              m->message != NULL ? m->message : ""));
      break;
    default:
      break;
    }
}

static void
handle_line (Reader     *r,
             const char *line,
             gsize       length)
{
  g_autoptr(GmlProbeMessage) m = NULL;
  g_autoptr(GError) error = NULL;

  r->line++;
  if (length == 0)
    return;
  m = gml_probe_message_parse (line, length, &error);
  if (m == NULL)
    {
      refuse (r, error->message);
      return;
    }
  switch (m->type)
    {
    case GML_PROBE_HELLO:
      {
        Post *p = post_new (r->session, POST_HELLO);

        p->message = g_steal_pointer (&m);
        post (p);
      }
      break;
    case GML_PROBE_UPDATE:
      r->figures.valid = TRUE;
      r->figures.time = m->time;
      r->figures.device = m->device;
      r->figures.allocated_bytes = m->allocated_bytes;
      r->figures.reserved_bytes = m->reserved_bytes;
      r->figures.active_bytes = m->active_bytes;
      r->figures.segments = m->segments;
      r->figures.allocations = m->allocations;
      r->figures.trace_entries = m->trace_entries;
      r->figures_changed = TRUE;
      gml_live_record_add (r->record, m);
      break;
    case GML_PROBE_ENTRIES:
      gml_live_record_add (r->record, m);
      break;
    case GML_PROBE_STATE:
      if (gml_live_record_add (r->record, m))
        r->state_changed = TRUE;
      r->figures_changed = TRUE;
      break;
    case GML_PROBE_OOM:
      {
        Post *p = post_new (r->session, POST_OOM);

        p->message = g_steal_pointer (&m);
        post (p);
      }
      break;
    case GML_PROBE_ERROR_MESSAGE:
      post_text (r->session, POST_PROBE_ERROR, g_strdup (m->message != NULL ? m->message : ""));
      break;
    case GML_PROBE_BYE:
      post (post_new (r->session, POST_BYE));
      break;
    case GML_PROBE_DUMP_BEGIN:
    case GML_PROBE_DUMP_DATA:
    case GML_PROBE_DUMP_END:
    case GML_PROBE_DUMP_FAILED:
      handle_dump (r, m);
      break;
    default:
      break;
    }
}

/* A new picture from the record, built here, off the main loop. */
static void
build_document (Reader *r)
{
  g_autoptr(GError) error = NULL;
  GmlSnapshot *snapshot = gml_live_record_build_snapshot (r->record);
  GmlSnapshotDocument *document;
  Post *p;

  if (snapshot == NULL)
    return;
  document = gml_snapshot_document_new_live (snapshot, gml_live_record_get_device (r->record),
                                             r->title,
                                             r->cancellable, &error);
  if (document == NULL)
    return;
  p = post_new (r->session, POST_DOCUMENT);
  p->document = document;
  post (p);
}

static gpointer
read_thread (gpointer data)
{
  Reader *r = data;
  g_autofree char *chunk = g_malloc (READ_CHUNK);
  g_autoptr(GError) error = NULL;
  char *reason = NULL;

  for (;;)
    {
      gssize n = g_socket_receive (r->socket, chunk, READ_CHUNK, r->cancellable, &error);
      gsize start = 0, first = r->buffer->len;

      if (n <= 0)
        {
          /* A program that dies with bytes of ours unread resets the
           * connection: that is an end like any other, said by the session. */
          if (n < 0 && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
              !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED) &&
              !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE))
            /* Translators: %s is the system's message. */
            reason = g_strdup_printf (_("Reading from the program failed: %s"), error->message);
          break;
        }
      g_byte_array_append (r->buffer, (const guint8 *) chunk, (guint) n);
      for (gsize i = first; i < r->buffer->len; i++)
        if (r->buffer->data[i] == '\n')
          {
            handle_line (r, (const char *) r->buffer->data + start, i - start);
            start = i + 1;
          }
      g_byte_array_remove_range (r->buffer, 0, (guint) start);

      if (r->state_changed)
        build_document (r);
      if (r->figures_changed)
        {
          Post *p = post_new (r->session, POST_FIGURES);

          p->figures = r->figures;
          p->dropped = gml_live_record_get_dropped (r->record);
          p->omitted = gml_live_record_state_omitted (r->record);
          post (p);
        }
      r->state_changed = r->figures_changed = FALSE;

      if (r->buffer->len > GML_PROBE_MAX_LINE)
        {
          r->line++;
          refuse (r, _("a message longer than any the probe sends; the connection is closed."));
          reason = g_strdup (_("The program sent a message longer than any the probe sends."));
          break;
        }
      if (r->bad > GML_PROBE_MAX_BAD_LINES)
        {
          reason =
              g_strdup (_("The program sent too many messages the lab refused: it is not a probe "
                          "of this lab, or a different version of it."));
          break;
        }
    }

  /* Snapshots still coming will not. */
  g_mutex_lock (&r->session->lock);
  {
    GHashTableIter iter;
    gpointer value;
    g_autoptr(GPtrArray) open = g_ptr_array_new ();

    g_hash_table_iter_init (&iter, r->session->transfers);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      g_ptr_array_add (open, value);
    g_mutex_unlock (&r->session->lock);
    for (guint i = 0; i < open->len; i++)
      finish_transfer (r, g_ptr_array_index (open, i),
                       g_strdup (_("The connection closed before the snapshot arrived.")));
  }
  post_text (r->session, POST_CLOSED, reason);

  g_socket_close (r->socket, NULL);
  g_object_unref (r->socket);
  g_object_unref (r->cancellable);
  gml_live_record_free (r->record);
  g_byte_array_unref (r->buffer);
  g_free (r->title);
  g_free (r->cache_dir);
  g_object_unref (r->session);
  g_free (r);
  return NULL;
}

/* ------------------------------------------------------------------------- */
/* Starting                                                                  */

/* Sends what is queued, as far as the socket takes it now; the rest goes when
 * there is room (a program busy in a long step reads its requests late). Never
 * waits: this runs on the main loop. */
static gboolean flush_outgoing (GmlLiveSession *self);

static gboolean
socket_writable_cb (GSocket      *socket,
                    GIOCondition  condition,
                    gpointer      user_data)
{
  GmlLiveSession *self = user_data;

  g_clear_pointer (&self->out_source, g_source_unref);
  if (condition & (G_IO_ERR | G_IO_HUP | G_IO_NVAL))
    {
      /* The reader sees the connection end and says so. */
      g_byte_array_set_size (self->outgoing, 0);
      return G_SOURCE_REMOVE;
    }
  flush_outgoing (self);
  return G_SOURCE_REMOVE;
}

static gboolean
flush_outgoing (GmlLiveSession *self)
{
  gboolean ok = TRUE;
  int fd;

  g_mutex_lock (&self->lock);
  fd = self->socket != NULL && !g_socket_is_closed (self->socket)
           ? g_socket_get_fd (self->socket) : -1;
  g_mutex_unlock (&self->lock);

  while (fd >= 0 && self->outgoing->len > 0)
    {
      ssize_t n = send (fd, self->outgoing->data, self->outgoing->len,
                        MSG_NOSIGNAL | MSG_DONTWAIT);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        {
          if (self->out_source == NULL)
            {
              self->out_source = g_socket_create_source (self->socket, G_IO_OUT, NULL);
              g_source_set_callback (self->out_source, G_SOURCE_FUNC (socket_writable_cb), self,
                                     NULL);
              g_source_attach (self->out_source, self->context);
            }
          return TRUE;
        }
      if (n <= 0)
        {
          ok = FALSE;
          break;
        }
      g_byte_array_remove_range (self->outgoing, 0, (guint) n);
    }
  if (fd < 0)
    ok = FALSE;
  if (!ok)
    g_byte_array_set_size (self->outgoing, 0);
  return ok;
}

/* Queues @line for the probe and sends what the socket takes now. FALSE when
 * there is no connection, it broke, or the probe has not read the requests
 * already queued (GML_LIVE_MAX_OUTGOING bytes of them). */
static gboolean
send_line (GmlLiveSession *self,
           const char     *line)
{
  gsize length = strlen (line);

  if (self->outgoing->len + length > GML_LIVE_MAX_OUTGOING)
    return FALSE;
  g_byte_array_append (self->outgoing, (const guint8 *) line, (guint) length);
  return flush_outgoing (self);
}

static void
start_reading (GmlLiveSession *self,
               GSocket        *socket)
{
  Reader *r = g_new0 (Reader, 1);
  g_autofree char *watch = gml_probe_request_watch (TRUE, TRUE);

  g_mutex_lock (&self->lock);
  self->socket = g_object_ref (socket);
  self->oom_snapshot_wanted = TRUE;
  g_mutex_unlock (&self->lock);
  g_socket_set_blocking (socket, TRUE);
  g_socket_set_timeout (socket, 0);

  r->session = g_object_ref (self);
  r->socket = g_object_ref (socket);
  r->cancellable = g_object_ref (self->cancellable);
  r->record = gml_live_record_new (GML_LIVE_MAX_ENTRIES);
  r->buffer = g_byte_array_new ();
  r->title = g_strdup (self->title != NULL ? self->title : _("Live"));
  r->cache_dir = g_build_filename (g_get_user_cache_dir (), "gpu-memory-lab", "live", NULL);

  /* Start sending, with the allocator's state and the out-of-memory snapshot. */
  send_line (self, watch);
  self->thread = g_thread_new ("gml-live-reader", read_thread, r);
}

static void
gml_live_session_init (GmlLiveSession *self)
{
  g_mutex_init (&self->lock);
  self->outgoing = g_byte_array_new ();
  self->transfers = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, transfer_free);
  self->cancellable = g_cancellable_new ();
  self->context = g_main_context_ref_thread_default ();
  self->next_dump_id = 1;
}

GmlLiveSession *
gml_live_session_new_for_socket (GSocket         *socket,
                                 GmlProbeMessage *hello)
{
  GmlLiveSession *self = g_object_new (GML_TYPE_LIVE_SESSION, NULL);
  Post *p;

  g_return_val_if_fail (G_IS_SOCKET (socket), NULL);

  self->status = GML_LIVE_CONNECTED;
  if (hello != NULL)
    {
      p = post_new (self, POST_HELLO);
      p->message = hello;
      post_cb (p);
      post_free (p);
    }
  start_reading (self, socket);
  g_object_unref (socket);
  return self;
}

GmlLiveSession *
gml_live_session_new_for_connection (GSocketConnection *connection)
{
  GmlLiveSession *self = g_object_new (GML_TYPE_LIVE_SESSION, NULL);

  self->status = GML_LIVE_WAITING;
  /* The socket is read in the thread; the connection object is not used again. */
  g_object_set_data_full (G_OBJECT (self), "gml-connection", g_object_ref (connection),
                          g_object_unref);
  start_reading (self, g_socket_connection_get_socket (connection));
  return self;
}

/* The program's output, a chunk at a time, as text. */
typedef struct
{
  GmlLiveSession *session;
  GInputStream   *stream;
  int             which;     /* 1 = stdout, 2 = stderr */
} OutputReader;

static void read_output (OutputReader *o);

static void
output_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  OutputReader *o = user_data;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result,
                                                              NULL);

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      g_object_unref (o->session);
      g_object_unref (o->stream);
      g_free (o);
      return;
    }
  {
    g_autofree char *text = g_utf8_make_valid (g_bytes_get_data (bytes, NULL),
                                               (gssize) g_bytes_get_size (bytes));

    g_signal_emit (o->session, signals[OUTPUT], 0, o->which, text);
  }
  read_output (o);
}

static void
read_output (OutputReader *o)
{
  g_input_stream_read_bytes_async (o->stream, MAX_OUTPUT, G_PRIORITY_DEFAULT_IDLE,
                                   o->session->cancellable,
                                   output_cb, o);
}

static void
watch_output (GmlLiveSession *self,
              GInputStream   *stream,
              int             which)
{
  OutputReader *o = g_new0 (OutputReader, 1);

  o->session = g_object_ref (self);
  o->stream = g_object_ref (stream);
  o->which = which;
  read_output (o);
}

static void
child_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GmlLiveSession) self = user_data;
  GSubprocess *child = G_SUBPROCESS (source);

  if (!g_subprocess_wait_finish (child, result, NULL))
    return;
  self->child_done = TRUE;
  if (g_subprocess_get_if_signaled (child))
    {
      self->child_signal = g_subprocess_get_term_sig (child);
      self->child_status = 128 + self->child_signal;
    }
  else
    self->child_status = g_subprocess_get_exit_status (child);
  gml_probe_unlisten (self->service, self->socket_path);
  g_clear_object (&self->service);
  set_status (self, GML_LIVE_ENDED);
  g_signal_emit (self, signals[CHANGED], 0);
}

static gboolean
incoming_cb (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source,
             gpointer           user_data)
{
  GmlLiveSession *self = user_data;

  /* One program, one probe: a second connection (a subprocess of the
   * program) is not this session's. */
  if (self->socket != NULL)
    return FALSE;
  g_object_set_data_full (G_OBJECT (self), "gml-connection", g_object_ref (connection),
                          g_object_unref);
  start_reading (self, g_socket_connection_get_socket (connection));
  set_status (self, GML_LIVE_CONNECTED);
  return TRUE;
}

GmlLiveSession *
gml_live_session_new_for_command (const char * const *argv,
                                  double              interval,
                                  const char         *snapshot_dir,
                                  GError            **error)
{
  g_autoptr(GmlLiveSession) self = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autofree char *dir = NULL;
  static guint counter;

  g_return_val_if_fail (argv != NULL && argv[0] != NULL, NULL);

  dir = gml_probe_socket_dir (error);
  if (dir == NULL)
    return NULL;
  self = g_object_new (GML_TYPE_LIVE_SESSION, NULL);
  self->status = GML_LIVE_WAITING;
  self->title = g_strjoinv (" ", (char **) argv);
  self->socket_path = g_strdup_printf ("%s/live-%d-%u.sock", dir, (int) getpid (), ++counter);
  self->service = gml_probe_listen (self->socket_path, error);
  if (self->service == NULL)
    return NULL;
  g_signal_connect (self->service, "incoming", G_CALLBACK (incoming_cb), self);
  g_socket_service_start (self->service);

  launcher =
      g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  gml_probe_setup_launcher (launcher, self->socket_path, interval, snapshot_dir);
  /* Python buffers a pipe's output by the block; a person watching wants lines. */
  g_subprocess_launcher_setenv (launcher, "PYTHONUNBUFFERED", "1", FALSE);
  self->child = g_subprocess_launcher_spawnv (launcher, argv, error);
  if (self->child == NULL)
    {
      g_autofree char *message = g_strdup ((*error)->message);

      g_clear_error (error);
      /* Translators: %s is a command, then the system's message. */
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, _("Could not start “%s”: %s"),
                   argv[0], message);
      return NULL;
    }
  watch_output (self, g_subprocess_get_stdout_pipe (self->child), 1);
  watch_output (self, g_subprocess_get_stderr_pipe (self->child), 2);
  g_subprocess_wait_async (self->child, NULL, child_done_cb, g_object_ref (self));
  return g_steal_pointer (&self);
}

/* ------------------------------------------------------------------------- */
/* Accessors and requests                                                    */

GmlLiveStatus
gml_live_session_get_status (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), GML_LIVE_ENDED);
  return self->status;
}

gboolean
gml_live_session_has_program (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), FALSE);
  return self->child != NULL;
}

gboolean
gml_live_session_program_running (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), FALSE);
  return self->child != NULL && !self->child_done;
}

int
gml_live_session_get_exit_status (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), -1);
  return self->child != NULL && self->child_done ? self->child_status : -1;
}

guint64
gml_live_session_get_gpu_total (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), 0);
  return self->gpu_total;
}

const char *
gml_live_session_get_title (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), NULL);
  return self->title != NULL ? self->title : "";
}

char *
gml_live_session_describe_source (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), NULL);

  if (self->device_name != NULL && self->torch_version != NULL)
    /* Translators: a GPU's name, then PyTorch's version ("2.5.1+cu124"). */
    return g_strdup_printf (_("%s · PyTorch %s"), self->device_name, self->torch_version);
  if (self->device_name != NULL)
    return g_strdup (self->device_name);
  /* It ended without a word from its probe: nothing is being waited for any more. */
  if (self->status == GML_LIVE_ENDED)
    return g_strdup (_("No probe spoke: did the program import torch and see a CUDA device?"));
  return g_strdup (_("Waiting for the program’s probe…"));
}

char *
gml_live_session_describe_end (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), NULL);

  if (self->status != GML_LIVE_ENDED)
    return NULL;
  if (self->child != NULL && self->child_done)
    {
      if (self->child_signal != 0)
        /* Translators: %d is a signal number (9 for SIGKILL). */
        return g_strdup_printf (_("The program was killed (signal %d). What arrived before stays "
                                  "here."),
                                self->child_signal);
      if (!self->figures.valid)
        /* Translators: %d is the program's exit status. */
        return g_strdup_printf (_("The program ended with exit status %d before its probe sent "
                                  "anything: did it import torch and see a CUDA device?"),
                                self->child_status);
      return g_strdup_printf (_("The program ended with exit status %d."), self->child_status);
    }
  if (self->closed_by_us)
    return g_strdup (_("Disconnected. The program goes on, and its probe waits for a lab again."));
  if (self->close_reason != NULL)
    return g_strdup (self->close_reason);
  if (self->saw_bye)
    return g_strdup (_("The program ended."));
  return g_strdup (_("The connection closed without a goodbye: the program was killed or crashed. "
                     "What arrived before stays here."));
}

const GmlLiveFigures *
gml_live_session_get_figures (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), NULL);
  return &self->figures;
}

GmlSnapshotDocument *
gml_live_session_get_document (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), NULL);
  return self->document;
}

guint
gml_live_session_get_n_refused (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), 0);
  return self->n_refused;
}

guint64
gml_live_session_get_dropped (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), 0);
  return self->dropped;
}

gboolean
gml_live_session_state_omitted (GmlLiveSession *self)
{
  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), FALSE);
  return self->omitted;
}

guint64
gml_live_session_save_snapshot (GmlLiveSession *self,
                                GFile          *file)
{
  g_autofree char *request = NULL;
  Transfer *t;
  guint64 id;

  g_return_val_if_fail (GML_IS_LIVE_SESSION (self), 0);
  g_return_val_if_fail (G_IS_FILE (file), 0);

  if (self->status != GML_LIVE_CONNECTED)
    return 0;
  id = self->next_dump_id++;
  t = g_new0 (Transfer, 1);
  t->id = id;
  t->file = g_object_ref (file);
  g_mutex_lock (&self->lock);
  g_hash_table_insert (self->transfers, &t->id, t);
  g_mutex_unlock (&self->lock);
  request = gml_probe_request_dump (id);
  if (!send_line (self, request))
    {
      g_mutex_lock (&self->lock);
      g_hash_table_remove (self->transfers, &id);
      g_mutex_unlock (&self->lock);
      return 0;
    }
  return id;
}

void
gml_live_session_stop_program (GmlLiveSession *self)
{
  g_return_if_fail (GML_IS_LIVE_SESSION (self));

  if (self->child != NULL && !self->child_done)
    g_subprocess_send_signal (self->child, SIGTERM);
}

void
gml_live_session_close (GmlLiveSession *self)
{
  g_return_if_fail (GML_IS_LIVE_SESSION (self));

  if (self->status != GML_LIVE_ENDED)
    self->closed_by_us = TRUE;
  gml_live_session_stop_program (self);
  g_cancellable_cancel (self->cancellable);
  gml_probe_unlisten (self->service, self->socket_path);
  g_clear_object (&self->service);
  if (self->out_source != NULL)
    {
      g_source_destroy (self->out_source);
      g_clear_pointer (&self->out_source, g_source_unref);
    }
}

/* ------------------------------------------------------------------------- */
/* GObject                                                                   */

static void
gml_live_session_dispose (GObject *object)
{
  GmlLiveSession *self = GML_LIVE_SESSION (object);

  /* The thread holds a reference until it ends: disposing means it has. */
  if (self->thread != NULL)
    {
      g_thread_unref (self->thread);
      self->thread = NULL;
    }
  gml_live_session_close (self);
  g_clear_object (&self->document);
  g_clear_object (&self->child);

  G_OBJECT_CLASS (gml_live_session_parent_class)->dispose (object);
}

static void
gml_live_session_finalize (GObject *object)
{
  GmlLiveSession *self = GML_LIVE_SESSION (object);

  g_clear_object (&self->socket);
  g_clear_pointer (&self->outgoing, g_byte_array_unref);
  g_clear_pointer (&self->transfers, g_hash_table_unref);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_free (self->title);
  g_free (self->device_name);
  g_free (self->torch_version);
  g_free (self->close_reason);
  g_free (self->socket_path);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (gml_live_session_parent_class)->finalize (object);
}

static void
gml_live_session_class_init (GmlLiveSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gml_live_session_dispose;
  object_class->finalize = gml_live_session_finalize;

  /* The status, the title or where the program runs changed. */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                   NULL,
                                   NULL, G_TYPE_NONE, 0);
  /* New figures (gml_live_session_get_figures()). */
  signals[FIGURES] = g_signal_new ("figures", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                   NULL,
                                   NULL, G_TYPE_NONE, 0);
  /* A new picture (gml_live_session_get_document()). */
  signals[DOCUMENT] = g_signal_new ("document", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL,
                                    NULL, G_TYPE_NONE, 0);
  /* The program ran out of memory: the oom message (a const GmlProbeMessage *). */
  signals[OOM] = g_signal_new ("oom", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                               NULL,
                               G_TYPE_NONE, 1, G_TYPE_POINTER);
  /* The snapshot saved at the out-of-memory error arrived (a GFile), or did not (NULL, why). */
  signals[OOM_SNAPSHOT] = g_signal_new ("oom-snapshot", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL,
                                        NULL, NULL, G_TYPE_NONE, 2, G_TYPE_FILE, G_TYPE_STRING);
  /* A message was refused: a translated sentence saying which and why. */
  signals[REFUSED] = g_signal_new ("refused", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                   NULL,
                                   NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* The probe reported an error of its own (Python's text). */
  signals[PROBE_ERROR] = g_signal_new ("probe-error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                       0, NULL,
                                       NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* The program's output: 1 = stdout, 2 = stderr, and the text. */
  signals[OUTPUT] = g_signal_new ("output", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                  NULL, NULL,
                                  G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
  signals[DUMP_PROGRESS] = g_signal_new ("dump-progress", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_UINT64,
                                         G_TYPE_UINT64,
                                         G_TYPE_UINT64);
  /* A requested snapshot was written (the GFile), or not (NULL, why). */
  signals[DUMP_DONE] = g_signal_new ("dump-done", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL,
                                     NULL, G_TYPE_NONE, 3, G_TYPE_UINT64, G_TYPE_FILE,
                                     G_TYPE_STRING);
}

/* gml-watch-cli.c — `gpu-memory-lab watch [--json] -- python3 train.py …`:
 * runs a PyTorch program with the lab's probe loaded and reports its GPU
 * memory as it runs.
 *
 * The probe (data/python/gml_probe.py) is started inside the program by a
 * sitecustomize module put first on its PYTHONPATH, as soon as the program
 * imports torch; nothing in the program changes. It talks to this process
 * over a Unix socket in $XDG_RUNTIME_DIR/gpu-memory-lab (a directory only the
 * user can enter), one JSON object a line. What arrives is treated like any
 * file from outside: lines are bounded, nested no deeper than a message can
 * be, checked field by field, and a malformed one is reported and skipped.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-watch"

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "gml-i18n.h"
#include "gml-input.h"
#include "gml-probe-message.h"
#include "gml-probe-socket.h"
#include "gml-snapshot-state.h"
#include "gml-watch-cli.h"

#define READ_CHUNK      65536

typedef struct
{
  GMainLoop       *loop;
  gboolean         json;
  gboolean         child_done;
  int              child_status;      /* exit status, or 128 + signal */
  int              child_signal;      /* 0 when it exited */
  guint            open_connections;
  guint            grace_source;
  guint64          updates;
  guint            bad_lines;
  GPtrArray       *connections;       /* Connection * */
} Watch;

typedef struct
{
  Watch             *watch;
  GSocketConnection *connection;
  GInputStream      *input;
  GByteArray        *buffer;
  GCancellable      *cancellable;
  guint              line;
  gboolean           closed;
  guint64            gpu_total;       /* the GPU's memory, from the probe's hello; 0 before */
} Connection;

static void read_more (Connection *c);

static void
emit_json (JsonBuilder *builder)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = json_builder_get_root (builder);
  g_autofree char *text = NULL;

  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);
  g_print ("%s\n", text);
  fflush (stdout);
}

static void
bad_line (Connection *c,
          const char *message)
{
  c->watch->bad_lines++;
  /* Translators: %u is a line number of the probe's messages, %s what is wrong. */
  g_printerr (_("gpu-memory-lab watch: message %u from the probe was refused: %s\n"), c->line,
              message);
}

static void
handle_update (Connection            *c,
               const GmlProbeMessage *m)
{
  static const char * const keys[] = {
    "device", "allocated_bytes", "reserved_bytes", "active_bytes", "segments", "allocations",
    "trace_entries",
  };
  guint64 values[G_N_ELEMENTS (keys)] = {
    m->device, m->allocated_bytes, m->reserved_bytes, m->active_bytes, m->segments, m->allocations,
    m->trace_entries,
  };

  c->watch->updates++;
  if (c->watch->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "time");
      json_builder_add_double_value (b, m->time);
      for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
        {
          json_builder_set_member_name (b, keys[i]);
          json_builder_add_int_value (b, (gint64) values[i]);
        }
      json_builder_set_member_name (b, "oom");
      json_builder_add_null_value (b);
      json_builder_end_object (b);
      emit_json (b);
    }
  else
    {
      g_autofree char *allocated = gml_format_size (m->allocated_bytes);
      g_autofree char *reserved = gml_format_size (m->reserved_bytes);

      /* Translators: seconds, then sizes, then a count. */
      g_print (_("%6.1f s  allocated %s, reserved %s, %u live allocations\n"), m->time, allocated,
               reserved,
               (guint) m->allocations);
    }
}

static void
handle_oom (Connection            *c,
            const GmlProbeMessage *m)
{
  /* PyTorch's text for that state, as the engine writes it. The GPU's total is
   * the hello's: PyTorch gives its observers the per-process limit instead when
   * one is set, and its message the device's total. */
  guint64 total = c->gpu_total > 0 ? c->gpu_total : m->device_total;
  g_autofree char *message = gml_snapshot_format_oom_message (m->device, m->size, m->device_free,
                                                              total, m->allocated_bytes,
                                                              m->reserved_bytes);

  if (c->watch->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "time");
      json_builder_add_double_value (b, m->time);
      json_builder_set_member_name (b, "device");
      json_builder_add_int_value (b, (gint64) m->device);
      json_builder_set_member_name (b, "allocated_bytes");
      json_builder_add_int_value (b, (gint64) m->allocated_bytes);
      json_builder_set_member_name (b, "reserved_bytes");
      json_builder_add_int_value (b, (gint64) m->reserved_bytes);
      json_builder_set_member_name (b, "oom");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "size");
      json_builder_add_int_value (b, (gint64) m->size);
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, message);
      json_builder_set_member_name (b, "snapshot");
      if (m->snapshot != NULL)
        json_builder_add_string_value (b, m->snapshot);
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
      json_builder_end_object (b);
      emit_json (b);
    }
  else
    {
      /* Translators: seconds, then PyTorch's message (English), then a file. */
      g_print (_("%6.1f s  out of memory: %s\n"), m->time, message);
      if (m->snapshot != NULL)
        g_print (_("         snapshot saved: %s\n"), m->snapshot);
    }
}

/* The same reader as the app's Live view (gml_probe_message_parse); this
 * command shows the figures and out-of-memory errors, and has no use for the
 * other messages. */
static void
handle_line (Connection *c,
             const char *line,
             gsize       length)
{
  g_autoptr(GmlProbeMessage) m = NULL;
  g_autoptr(GError) error = NULL;

  c->line++;
  if (length == 0)
    return;
  m = gml_probe_message_parse (line, length, &error);
  if (m == NULL)
    bad_line (c, error->message);
  else if (m->type == GML_PROBE_HELLO)
    c->gpu_total = m->total_bytes;
  else if (m->type == GML_PROBE_UPDATE)
    handle_update (c, m);
  else if (m->type == GML_PROBE_OOM)
    handle_oom (c, m);
}

static void
maybe_quit (Watch *w)
{
  if (w->child_done && w->open_connections == 0)
    g_main_loop_quit (w->loop);
}

static void
connection_close (Connection *c)
{
  if (c->closed)
    return;
  c->closed = TRUE;
  g_io_stream_close (G_IO_STREAM (c->connection), NULL, NULL);
  c->watch->open_connections--;
  maybe_quit (c->watch);
}

static void
read_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Connection *c = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result,
                                                              &error);
  gsize start = 0;
  /* Only the new bytes can hold a newline: a long line is not scanned again. */
  gsize first = c->buffer->len;

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      connection_close (c);
      return;
    }
  g_byte_array_append (c->buffer, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  for (gsize i = first; i < c->buffer->len; i++)
    if (c->buffer->data[i] == '\n')
      {
        handle_line (c, (const char *) c->buffer->data + start, i - start);
        start = i + 1;
      }
  g_byte_array_remove_range (c->buffer, 0, start);
  if (c->buffer->len > GML_PROBE_MAX_LINE)
    {
      c->line++;
      bad_line (c, _("a message longer than any the probe sends; the connection is closed."));
      connection_close (c);
      return;
    }
  if (c->watch->bad_lines > GML_PROBE_MAX_BAD_LINES)
    {
      g_printerr ("%s\n",
                  _("gpu-memory-lab watch: too many refused messages; the connection is closed."));
      connection_close (c);
      return;
    }
  read_more (c);
}

static void
read_more (Connection *c)
{
  g_input_stream_read_bytes_async (c->input, READ_CHUNK, G_PRIORITY_DEFAULT, c->cancellable,
                                   read_cb, c);
}

static void
connection_free (gpointer data)
{
  Connection *c = data;

  g_cancellable_cancel (c->cancellable);
  g_clear_object (&c->cancellable);
  g_clear_object (&c->connection);
  g_byte_array_unref (c->buffer);
  g_free (c);
}

static gboolean
incoming_cb (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source,
             gpointer           user_data)
{
  Watch *w = user_data;
  Connection *c = g_new0 (Connection, 1);

  c->watch = w;
  c->connection = g_object_ref (connection);
  c->input = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  c->buffer = g_byte_array_new ();
  c->cancellable = g_cancellable_new ();
  w->open_connections++;
  g_ptr_array_add (w->connections, c);
  read_more (c);
  return TRUE;
}

static gboolean
grace_cb (gpointer user_data)
{
  Watch *w = user_data;

  /* The program is gone; what its probe still had to say has had its time. */
  w->grace_source = 0;
  g_main_loop_quit (w->loop);
  return G_SOURCE_REMOVE;
}

static void
child_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Watch *w = user_data;
  GSubprocess *child = G_SUBPROCESS (source);

  g_subprocess_wait_finish (child, result, NULL);
  w->child_done = TRUE;
  if (g_subprocess_get_if_signaled (child))
    {
      w->child_signal = g_subprocess_get_term_sig (child);
      w->child_status = 128 + w->child_signal;
    }
  else
    w->child_status = g_subprocess_get_exit_status (child);
  w->grace_source = g_timeout_add_seconds (2, grace_cb, w);
  maybe_quit (w);
}

void
gml_watch_options_clear (GmlWatchOptions *options)
{
  g_clear_pointer (&options->snapshot_dir, g_free);
  g_clear_pointer (&options->command, g_strfreev);
}

gboolean
gml_watch_parse (int              argc,
                 char           **argv,
                 GmlWatchOptions *options,
                 int             *status)
{
  g_autofree char *lang = NULL;
  gboolean json = FALSE, text = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      N_("Print one JSON object per update instead of opening the window"), NULL },
    { "text", 0, 0, G_OPTION_ARG_NONE, &text,
      N_("Print one line of text per update instead of opening the window"), NULL },
    { "interval", 0, 0, G_OPTION_ARG_DOUBLE, &options->interval,
      N_("Seconds between updates (default 0.5)"), "SECONDS" },
    { "snapshot-dir", 0, 0, G_OPTION_ARG_FILENAME, &options->snapshot_dir,
      N_("Where to save the snapshot of an out-of-memory (default: "
         "~/.cache/gpu-memory-lab/snapshots)"), "DIR" },
    { "lang", 0, 0, G_OPTION_ARG_STRING, &lang, N_("Language of the text: tr or en"), "LANG" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &options->command, NULL,
      N_("-- COMMAND ARGS…") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;

  memset (options, 0, sizeof *options);
  options->interval = 0.5;
  *status = 0;
  g_option_context_set_summary (context,
                                _("Run a PyTorch program with the lab’s probe and watch its GPU "
                                  "memory as it runs: in the window’s Live view, or with --json or "
                                  "--text on the terminal."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translate_func (context, (GTranslateFunc) gml_i18n_translate_func, NULL,
                                       NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("gpu-memory-lab watch: %s\n", error->message);
      *status = 2;
      return FALSE;
    }
  if (lang != NULL)
    {
      if (!gml_i18n_is_known_language (lang))
        {
          g_printerr (_("gpu-memory-lab %s: unknown language “%s” (use tr or en)\n"), "watch",
                      lang);
          *status = 2;
          return FALSE;
        }
      gml_i18n_set_language (lang);
    }
  if (options->command == NULL || options->command[0] == NULL)
    {
      g_printerr ("gpu-memory-lab watch: %s\n",
                  _("Give the program to run after --, e.g. -- python3 train.py"));
      *status = 2;
      return FALSE;
    }
  if (!(options->interval >= 0.01 && options->interval <= 3600))
    {
      g_printerr ("gpu-memory-lab watch: %s\n",
                  _("--interval must be between 0.01 and 3600 seconds."));
      *status = 2;
      return FALSE;
    }
  if (json && text)
    {
      g_printerr ("gpu-memory-lab watch: %s\n", _("--json and --text cannot be used together."));
      *status = 2;
      return FALSE;
    }
  options->mode = json ? GML_WATCH_JSON : text ? GML_WATCH_TEXT : GML_WATCH_WINDOW;
  return TRUE;
}

int
gml_watch_run (const GmlWatchOptions *options)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketService) service = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  gboolean json = options->mode == GML_WATCH_JSON;
  Watch w = { 0 };
  int out_fd;

  dir = gml_probe_socket_dir (&error);
  if (dir == NULL)
    {
      g_printerr ("gpu-memory-lab watch: %s\n", error->message);
      return 1;
    }
  path = g_strdup_printf ("%s/watch-%d.sock", dir, (int) getpid ());
  service = gml_probe_listen (path, &error);
  if (service == NULL)
    {
      g_printerr (_("gpu-memory-lab watch: could not listen on “%s”: %s\n"), path, error->message);
      return 1;
    }

  loop = g_main_loop_new (NULL, FALSE);
  w.loop = loop;
  w.json = json;
  w.connections = g_ptr_array_new_with_free_func (connection_free);
  g_signal_connect (service, "incoming", G_CALLBACK (incoming_cb), &w);
  g_socket_service_start (service);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  gml_probe_setup_launcher (launcher, path, options->interval, options->snapshot_dir);
  /* With --json, stdout is ours: the program writes to stderr. */
  if (json && (out_fd = dup (STDERR_FILENO)) >= 0)
    g_subprocess_launcher_take_stdout_fd (launcher, out_fd);

  child = g_subprocess_launcher_spawnv (launcher, (const char * const *) options->command, &error);
  if (child == NULL)
    {
      g_printerr (_("gpu-memory-lab watch: could not start “%s”: %s\n"), options->command[0],
                  error->message);
      gml_probe_unlisten (service, path);
      g_ptr_array_unref (w.connections);
      return 127;
    }
  g_subprocess_wait_async (child, NULL, child_done_cb, &w);
  g_main_loop_run (loop);

  gml_probe_unlisten (service, path);
  if (w.grace_source != 0)
    g_source_remove (w.grace_source);

  if (json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "exit_status");
      json_builder_add_int_value (b, w.child_status);
      json_builder_set_member_name (b, "signal");
      if (w.child_signal != 0)
        json_builder_add_int_value (b, w.child_signal);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "updates");
      json_builder_add_int_value (b, (gint64) w.updates);
      json_builder_end_object (b);
      emit_json (b);
    }
  else if (w.child_signal != 0)
    /* Translators: %d is a signal number. */
    g_print (_("The program was killed (signal %d).\n"), w.child_signal);
  else
    /* Translators: %d is the program's exit status. */
    g_print (_("The program ended with exit status %d.\n"), w.child_status);
  if (w.updates == 0)
    g_printerr ("%s\n",
                _("gpu-memory-lab watch: no update came from the probe (did the program import "
                  "torch and see a CUDA device?)."));
  g_ptr_array_unref (w.connections);
  return w.child_status;
}

int
gml_watch_main (int    argc,
                char **argv)
{
  g_auto(GmlWatchOptions) options = { 0 };
  int status = 0;

  if (!gml_watch_parse (argc, argv, &options, &status))
    return status;
  if (options.mode == GML_WATCH_WINDOW)
    options.mode = GML_WATCH_TEXT;
  return gml_watch_run (&options);
}

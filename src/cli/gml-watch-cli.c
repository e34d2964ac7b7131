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
#include "gml-snapshot-state.h"
#include "gml-watch-cli.h"

#define PROTOCOL        1
#define MAX_LINE        ((gsize) 4 << 20)   /* an update carries at most 2000 entries */
#define MAX_BAD_LINES   100
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
  guint64          last_total;        /* device_total from hello, for messages */
  char            *device_name;
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

static gboolean
member_uint (JsonObject *object,
             const char *name,
             guint64    *value)
{
  JsonNode *node = json_object_get_member (object, name);
  gint64 v;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  v = json_node_get_int (node);
  if (v < 0)
    return FALSE;
  *value = (guint64) v;
  return TRUE;
}

static const char *
member_string (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static gboolean
member_number (JsonObject *object,
               const char *name,
               double     *value)
{
  JsonNode *node = json_object_get_member (object, name);
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *value = (double) json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    *value = json_node_get_double (node);
  else
    return FALSE;
  return TRUE;
}

G_GNUC_PRINTF (2, 3)
static void
bad_line (Connection *c,
          const char *format,
          ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  c->watch->bad_lines++;
  /* Translators: %u is a line number of the probe's messages, %s what is wrong. */
  g_printerr (_("gpu-memory-lab watch: message %u from the probe was refused: %s\n"), c->line, message);
}

static void
handle_update (Connection *c,
               JsonObject *object)
{
  static const char * const keys[] = {
    "device", "allocated_bytes", "reserved_bytes", "active_bytes", "segments", "allocations",
    "trace_entries",
  };
  guint64 values[G_N_ELEMENTS (keys)];
  double time = 0;

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (!member_uint (object, keys[i], &values[i]))
      {
        bad_line (c, _("“%s” should be a whole number of 0 or more."), keys[i]);
        return;
      }
  if (!member_number (object, "time", &time))
    {
      bad_line (c, _("“%s” should be a number."), "time");
      return;
    }
  c->watch->updates++;
  if (c->watch->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "time");
      json_builder_add_double_value (b, time);
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
      g_autofree char *allocated = gml_format_size (values[1]);
      g_autofree char *reserved = gml_format_size (values[2]);

      /* Translators: seconds, then sizes, then a count. */
      g_print (_("%6.1f s  allocated %s, reserved %s, %u live allocations\n"), time, allocated, reserved,
               (guint) values[5]);
    }
}

static void
handle_oom (Connection *c,
            JsonObject *object)
{
  guint64 device = 0, size = 0, device_free = 0, device_total = 0, allocated = 0, reserved = 0;
  double time = 0;
  const char *snapshot = NULL;
  g_autofree char *message = NULL;

  if (!member_uint (object, "device", &device) || !member_uint (object, "size", &size) ||
      !member_uint (object, "device_free", &device_free) ||
      !member_uint (object, "device_total", &device_total) ||
      !member_uint (object, "allocated_bytes", &allocated) ||
      !member_uint (object, "reserved_bytes", &reserved) || !member_number (object, "time", &time) ||
      device > 1024)
    {
      bad_line (c, "%s", _("an out-of-memory message without its figures."));
      return;
    }
  snapshot = member_string (object, "snapshot");
  /* PyTorch's text for that state, as the engine writes it. */
  message = gml_snapshot_format_oom_message ((guint) device, size, device_free, device_total, allocated,
                                             reserved);
  if (c->watch->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "time");
      json_builder_add_double_value (b, time);
      json_builder_set_member_name (b, "device");
      json_builder_add_int_value (b, (gint64) device);
      json_builder_set_member_name (b, "allocated_bytes");
      json_builder_add_int_value (b, (gint64) allocated);
      json_builder_set_member_name (b, "reserved_bytes");
      json_builder_add_int_value (b, (gint64) reserved);
      json_builder_set_member_name (b, "oom");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "size");
      json_builder_add_int_value (b, (gint64) size);
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, message);
      json_builder_set_member_name (b, "snapshot");
      if (snapshot != NULL)
        json_builder_add_string_value (b, snapshot);
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
      json_builder_end_object (b);
      emit_json (b);
    }
  else
    {
      /* Translators: seconds, then PyTorch's message (English), then a file. */
      g_print (_("%6.1f s  out of memory: %s\n"), time, message);
      if (snapshot != NULL)
        g_print (_("         snapshot saved: %s\n"), snapshot);
    }
}

static void
handle_line (Connection *c,
             const char *line,
             gsize       length)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) error = NULL;
  JsonObject *object;
  JsonNode *root;
  guint64 version = 0;
  const char *type;

  c->line++;
  if (length == 0)
    return;
  if (!g_utf8_validate_len (line, length, NULL))
    {
      bad_line (c, "%s", _("not UTF-8 text."));
      return;
    }
  if (!gml_input_check_json_depth (line, length, 8, &error) ||
      !json_parser_load_from_data (parser, line, length, &error))
    {
      bad_line (c, _("not valid JSON: %s"), error->message);
      return;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      bad_line (c, "%s", _("each message must be one JSON object."));
      return;
    }
  object = json_node_get_object (root);
  if (!member_uint (object, "v", &version) || version != PROTOCOL)
    {
      bad_line (c, _("protocol version %u expected."), PROTOCOL);
      return;
    }
  type = member_string (object, "type");
  if (type == NULL)
    bad_line (c, "%s", _("the “type” member is missing."));
  else if (g_str_equal (type, "update"))
    handle_update (c, object);
  else if (g_str_equal (type, "oom"))
    handle_oom (c, object);
  else if (g_str_equal (type, "hello"))
    {
      guint64 total = 0;

      if (member_uint (object, "total_bytes", &total))
        c->watch->last_total = total;
      g_clear_pointer (&c->watch->device_name, g_free);
      c->watch->device_name = g_strdup (member_string (object, "device_name"));
    }
  else if (g_str_equal (type, "bye") || g_str_equal (type, "error"))
    ;
  else
    bad_line (c, _("unknown message type “%s”."), type);
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
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  gsize start = 0;

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      connection_close (c);
      return;
    }
  g_byte_array_append (c->buffer, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  for (gsize i = 0; i < c->buffer->len; i++)
    if (c->buffer->data[i] == '\n')
      {
        handle_line (c, (const char *) c->buffer->data + start, i - start);
        start = i + 1;
      }
  g_byte_array_remove_range (c->buffer, 0, start);
  if (c->buffer->len > MAX_LINE)
    {
      c->line++;
      bad_line (c, "%s", _("a message longer than any the probe sends; the connection is closed."));
      connection_close (c);
      return;
    }
  if (c->watch->bad_lines > MAX_BAD_LINES)
    {
      g_printerr ("%s\n", _("gpu-memory-lab watch: too many refused messages; the connection is closed."));
      connection_close (c);
      return;
    }
  read_more (c);
}

static void
read_more (Connection *c)
{
  g_input_stream_read_bytes_async (c->input, READ_CHUNK, G_PRIORITY_DEFAULT, c->cancellable, read_cb, c);
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

/* The probe's directory: installed under PKGDATADIR, or GML_PYTHON_DIR for
 * the uninstalled build and the tests. */
static char *
probe_dir (void)
{
  const char *dir = g_getenv ("GML_PYTHON_DIR");

  return g_strdup (dir != NULL && *dir != '\0' ? dir : PKGDATADIR "/python");
}

/* $XDG_RUNTIME_DIR/gpu-memory-lab, made if need be and closed to others. */
static char *
socket_dir (GError **error)
{
  g_autofree char *dir = g_build_filename (g_get_user_runtime_dir (), "gpu-memory-lab", NULL);
  GStatBuf st;

  if (g_mkdir_with_parents (dir, 0700) != 0 || g_stat (dir, &st) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Could not make “%s”: %s"), dir,
                   g_strerror (saved));
      return NULL;
    }
  if (st.st_uid != getuid ())
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("“%s” belongs to another user; the lab will not listen there."), dir);
      return NULL;
    }
  if ((st.st_mode & 0077) != 0 && g_chmod (dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Could not make “%s” private: %s"),
                   dir, g_strerror (saved));
      return NULL;
    }
  return g_steal_pointer (&dir);
}

int
gml_watch_main (int    argc,
                char **argv)
{
  g_autofree char *lang = NULL;
  g_autofree char *snapshot_dir = NULL;
  double interval = 0.5;
  gboolean json = FALSE;
  g_auto(GStrv) command = NULL;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object per update instead of a line of text"), NULL },
    { "interval", 0, 0, G_OPTION_ARG_DOUBLE, &interval, N_("Seconds between updates (default 0.5)"), "SECONDS" },
    { "snapshot-dir", 0, 0, G_OPTION_ARG_FILENAME, &snapshot_dir, N_("Where to save the snapshot of an out-of-memory (default: ~/.cache/gpu-memory-lab/snapshots)"), "DIR" },
    { "lang", 0, 0, G_OPTION_ARG_STRING, &lang, N_("Language of the text: tr or en"), "LANG" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &command, NULL, N_("-- COMMAND ARGS…") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketService) service = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *probe = NULL;
  g_autofree char *python_path = NULL;
  g_autofree char *interval_text = NULL;
  const char *old_python_path;
  Watch w = { 0 };
  int out_fd;

  g_option_context_set_summary (context, _("Run a PyTorch program with the lab’s probe and report its GPU "
                                           "memory as it runs."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translate_func (context, (GTranslateFunc) gml_i18n_translate_func, NULL, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("gpu-memory-lab watch: %s\n", error->message);
      return 2;
    }
  if (lang != NULL)
    {
      if (!gml_i18n_is_known_language (lang))
        {
          g_printerr (_("gpu-memory-lab %s: unknown language “%s” (use tr or en)\n"), "watch", lang);
          return 2;
        }
      gml_i18n_set_language (lang);
    }
  if (command == NULL || command[0] == NULL)
    {
      g_printerr ("gpu-memory-lab watch: %s\n", _("Give the program to run after --, e.g. -- python3 train.py"));
      return 2;
    }
  if (!(interval >= 0.01 && interval <= 3600))
    {
      g_printerr ("gpu-memory-lab watch: %s\n", _("--interval must be between 0.01 and 3600 seconds."));
      return 2;
    }

  dir = socket_dir (&error);
  if (dir == NULL)
    {
      g_printerr ("gpu-memory-lab watch: %s\n", error->message);
      return 1;
    }
  path = g_strdup_printf ("%s/watch-%d.sock", dir, (int) getpid ());
  g_unlink (path);
  address = g_unix_socket_address_new (path);
  service = g_socket_service_new ();
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (service), address, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_DEFAULT, NULL, NULL, &error))
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

  probe = probe_dir ();
  old_python_path = g_getenv ("PYTHONPATH");
  python_path = g_strdup_printf ("%s/watch:%s%s%s", probe, probe,
                                 old_python_path && *old_python_path ? ":" : "",
                                 old_python_path ? old_python_path : "");
  interval_text = g_strdup_printf ("%.3f", interval);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_setenv (launcher, "PYTHONPATH", python_path, TRUE);
  g_subprocess_launcher_setenv (launcher, "GML_PROBE_SOCKET", path, TRUE);
  if (snapshot_dir != NULL)
    g_subprocess_launcher_setenv (launcher, "GML_PROBE_SNAPSHOT_DIR", snapshot_dir, TRUE);
  /* With --json, stdout is ours: the program writes to stderr. */
  if (json && (out_fd = dup (STDERR_FILENO)) >= 0)
    g_subprocess_launcher_take_stdout_fd (launcher, out_fd);
  /* The probe reads it with float(): no decimal comma, whatever the locale. */
  for (char *p = interval_text; *p; p++)
    if (*p == ',')
      *p = '.';
  g_subprocess_launcher_setenv (launcher, "GML_PROBE_INTERVAL", interval_text, TRUE);

  child = g_subprocess_launcher_spawnv (launcher, (const char * const *) command, &error);
  if (child == NULL)
    {
      g_printerr (_("gpu-memory-lab watch: could not start “%s”: %s\n"), command[0], error->message);
      g_socket_service_stop (service);
      g_unlink (path);
      g_ptr_array_unref (w.connections);
      return 127;
    }
  g_subprocess_wait_async (child, NULL, child_done_cb, &w);
  g_main_loop_run (loop);

  g_socket_service_stop (service);
  g_socket_listener_close (G_SOCKET_LISTENER (service));
  g_unlink (path);
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
    g_printerr ("%s\n", _("gpu-memory-lab watch: no update came from the probe (did the program import "
                          "torch and see a CUDA device?)."));
  g_ptr_array_unref (w.connections);
  g_clear_pointer (&w.device_name, g_free);
  return w.child_status;
}

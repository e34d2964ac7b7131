/* gml-audience-server.c — audience mode: the room answers from its phones.
 *
 * The lecturer's laptop serves a small page on the room's network (libsoup's
 * SoupServer, in the main loop) and the phones in the room answer the question on
 * the projector.  The page is in the app's resources and needs nothing from the
 * internet; it asks GET /api/state about once a second and sends its answer with
 * POST /api/answer.  What the room answered is a GmlAudienceRoom, kept in memory
 * for the round.
 *
 * Only the presentation moves the room: when it shows another question the room
 * asks it, when it reveals the answer the room's vote closes.  A phone can only
 * join and answer the question shown now.  Options are sent in the order the
 * projector shows them, so that A–D mean the same on every phone as on the screen.
 *
 *   GET  /                         the page
 *   GET  /api/state?room=&client=&lang=
 *        {"question": ID or null, "open", "options": ["a","b","c","d"], "text",
 *         "option_texts", "revealed", "right", "explanation", "answer"}
 *   GET  /api/strings?lang=        the page's own words, from the app's catalogue
 *   POST /api/answer?lang=         {"room", "client", "question", "option"}
 *        200 {"option"}, or 400/403/409/413/429 {"error"} in the page's language
 *   GET  /api/live?room=           a WebSocket: {"type": "state"} whenever the
 *        lecturer moves, so the page need not wait for its next poll
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-audience-server"

#include "config.h"

#include <ifaddrs.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <string.h>

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "gml-i18n.h"

#include "gml-audience-server.h"

struct _GmlAudienceServer
{
  GObject          parent_instance;

  GmlPresentation *presentation;
  GmlAudienceRoom *room;
  SoupServer      *server;
  char            *url;
  guint            changed_id;      /* a "changed" to come, coalescing a burst of answers */
  GPtrArray       *sockets;         /* SoupWebsocketConnection: the phones told of each move */
};

G_DEFINE_FINAL_TYPE (GmlAudienceServer, gml_audience_server, G_TYPE_OBJECT)

enum { CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- the presentation moves the room ----------------------------------------- */

/* The shown letter of the right option of slide INDEX. */
static guint
shown_right (GmlPresentation *presentation,
             guint            index)
{
  const GmlSlide *slide = gml_presentation_get_slide (presentation, index);
  const GmlQuestion *q = gml_presentation_get_question (presentation, index);

  for (guint shown = 0; shown < GML_N_OPTIONS; shown++)
    if (q->options[slide->order[shown]].correct)
      return shown;
  return 0;
}

static void tell_phones (GmlAudienceServer *self);

static void
sync_room (GmlAudienceServer *self)
{
  GmlPresentation *p = self->presentation;
  guint position = gml_presentation_get_position (p);

  if (gml_presentation_get_at_end (p) || gml_presentation_get_ended (p) ||
      position >= gml_presentation_get_n_questions (p))
    {
      gml_audience_room_close_vote (self->room);
    }
  else
    {
      const GmlQuestion *q = gml_presentation_get_question (p, position);

      if (g_strcmp0 (gml_audience_room_get_question (self->room), q->id) != 0)
        gml_audience_room_ask (self->room, q->id, shown_right (p, position));
      if (gml_presentation_get_revealed (p))
        gml_audience_room_reveal (self->room);
    }
  tell_phones (self);
  g_signal_emit (self, signals[CHANGED], 0);
}

/* Many phones answer at once: the window hears of them at most every
 * CHANGED_COALESCE_MS, well within the 200 ms the projector's bars have. */
#define CHANGED_COALESCE_MS 50

static gboolean
emit_changed_cb (gpointer user_data)
{
  GmlAudienceServer *self = user_data;

  self->changed_id = 0;
  g_signal_emit (self, signals[CHANGED], 0);
  return G_SOURCE_REMOVE;
}

static void
changed_soon (GmlAudienceServer *self)
{
  if (self->changed_id == 0)
    self->changed_id = g_timeout_add (CHANGED_COALESCE_MS, emit_changed_cb, self);
}

/* ---- answers to the page ----------------------------------------------------- */

static void
respond_json (SoupServerMessage *msg,
              guint              status,
              JsonBuilder       *builder)
{
  g_autoptr(JsonNode) root = json_builder_get_root (builder);
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  gsize length;
  char *text;

  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, &length);
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Cache-Control",
                                "no-store");
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json; charset=utf-8", SOUP_MEMORY_TAKE, text,
                                    length);
}

static void
respond_error (SoupServerMessage *msg,
               guint              status,
               const char        *message)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "error");
  json_builder_add_string_value (builder, message);
  json_builder_end_object (builder);
  respond_json (msg, status, builder);
}

/* The page's language: ?lang= when the app knows it, else English. */
static const char *
page_language (GHashTable *query)
{
  const char *lang = query != NULL ? g_hash_table_lookup (query, "lang") : NULL;

  return lang != NULL && gml_i18n_is_known_language (lang) ? lang : "en";
}

/* Runs RESPOND with the lab's strings in the page's language (?lang=). */
typedef void (*Responder) (GmlAudienceServer *self,
                           SoupServerMessage *msg,
                           GHashTable        *query);

static void
in_page_language (GmlAudienceServer *self,
                  SoupServerMessage *msg,
                  GHashTable        *query,
                  Responder          respond)
{
  const char *saved = gml_i18n_push_language (page_language (query));

  respond (self, msg, query);
  gml_i18n_pop_language (saved);
}

static void
add_string (JsonBuilder *builder,
            const char  *name,
            const char  *value)
{
  json_builder_set_member_name (builder, name);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

static void
add_letter (JsonBuilder *builder,
            const char  *name,
            gint         shown)
{
  char letter[2] = { 0, 0 };

  letter[0] = shown >= 0 ? (char) ('a' + shown) : 0;
  add_string (builder, name, shown >= 0 ? letter : NULL);
}

static void
state_respond (GmlAudienceServer *self,
               SoupServerMessage *msg,
               GHashTable        *query)
{
  GmlPresentation *p = self->presentation;
  const char *room = query != NULL ? g_hash_table_lookup (query, "room") : NULL;
  const char *client = query != NULL ? g_hash_table_lookup (query, "client") : NULL;
  const char *question = gml_audience_room_get_question (self->room);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(GError) error = NULL;
  guint before = gml_audience_room_get_joined (self->room);

  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      respond_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, _("Only GET is answered here."));
      return;
    }
  if (g_strcmp0 (room, gml_audience_room_get_code (self->room)) != 0)
    {
      respond_error (msg, SOUP_STATUS_FORBIDDEN,
                     _("This is not the code of the room: look at the projected slide again."));
      return;
    }
  if (client != NULL && !gml_audience_room_join (self->room, client, &error))
    {
      respond_error (msg, gml_audience_error_status (error), error->message);
      return;
    }

  json_builder_begin_object (builder);
  add_string (builder, "question", question);
  json_builder_set_member_name (builder, "open");
  json_builder_add_boolean_value (builder, gml_audience_room_is_open (self->room));
  json_builder_set_member_name (builder, "options");
  json_builder_begin_array (builder);
  for (guint shown = 0; shown < GML_AUDIENCE_N_OPTIONS; shown++)
    {
      char letter[2] = { (char) ('a' + shown), 0 };

      json_builder_add_string_value (builder, letter);
    }
  json_builder_end_array (builder);
  if (question != NULL)
    {
      guint position = gml_presentation_get_position (p);
      const GmlSlide *slide = gml_presentation_get_slide (p, position);
      const GmlQuestion *q = gml_presentation_get_question (p, position);
      gboolean revealed = gml_audience_room_is_revealed (self->room);
      g_autofree char *text = gml_question_format (q, q->text, slide->order);
      g_autofree char *explanation = revealed ? gml_question_format (q, q->explanation,
                                                                     slide->order) : NULL;

      add_string (builder, "text", text);
      json_builder_set_member_name (builder, "option_texts");
      json_builder_begin_array (builder);
      for (guint shown = 0; shown < GML_N_OPTIONS; shown++)
        {
          g_autofree char *option = gml_question_format (q, q->options[slide->order[shown]].text,
                                                         slide->order);

          json_builder_add_string_value (builder, option);
        }
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "revealed");
      json_builder_add_boolean_value (builder, revealed);
      add_letter (builder, "right", revealed ? (gint) shown_right (p, position) : -1);
      add_string (builder, "explanation", explanation);
      add_letter (builder, "answer", gml_audience_room_answer_of (self->room, client, question));
    }
  else
    {
      add_string (builder, "text", NULL);
      json_builder_set_member_name (builder, "revealed");
      json_builder_add_boolean_value (builder, FALSE);
    }
  json_builder_end_object (builder);
  respond_json (msg, SOUP_STATUS_OK, builder);
  if (gml_audience_room_get_joined (self->room) != before)
    changed_soon (self);
}

static void
state_cb (SoupServer        *server,
          SoupServerMessage *msg,
          const char        *path,
          GHashTable        *query,
          gpointer           user_data)
{
  in_page_language (user_data, msg, query, state_respond);
}

static void
answer_respond (GmlAudienceServer *self,
                SoupServerMessage *msg,
                GHashTable        *query)
{
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GError) error = NULL;
  GmlAudienceAnswer answer;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_POST)
    {
      respond_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, _("Answers are sent with POST."));
      return;
    }
  body = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  if (!gml_audience_answer_parse (g_bytes_get_data (body, NULL), g_bytes_get_size (body), &answer,
                                  &error) ||
      !gml_audience_room_answer (self->room, &answer, g_get_monotonic_time (), &error))
    {
      respond_error (msg, gml_audience_error_status (error), error->message);
    }
  else
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      json_builder_begin_object (builder);
      add_letter (builder, "option", (gint) answer.option);
      json_builder_end_object (builder);
      respond_json (msg, SOUP_STATUS_OK, builder);
      changed_soon (self);
    }
  gml_audience_answer_clear (&answer);
}

static void
answer_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  in_page_language (user_data, msg, query, answer_respond);
}

/* Before the body is read: an answer larger than the limit, or of no stated size,
 * is refused unread, so that no phone can make the app hold more than that. */
static void
answer_early_cb (SoupServer        *server,
                 SoupServerMessage *msg,
                 const char        *path,
                 GHashTable        *query,
                 gpointer           user_data)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *saved;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_POST)
    return;
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH &&
      soup_message_headers_get_content_length (headers) <= GML_AUDIENCE_MAX_BODY)
    return;
  saved = gml_i18n_push_language (page_language (query));
  {
    g_autofree char *message = g_strdup_printf (_("The answer is larger than %u bytes."),
                                                (guint) GML_AUDIENCE_MAX_BODY);

    respond_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, message);
  }
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Connection",
                                "close");
  gml_i18n_pop_language (saved);
}

/* ---- live updates ------------------------------------------------------------ */

/* A phone's page keeps a WebSocket open on /api/live?room=CODE; when the lecturer
 * moves (another question, the vote closed, the answer revealed) every open socket
 * gets {"type": "state"}, and the page asks /api/state at once instead of waiting for
 * its next poll.  The sockets carry nothing from the phones: what they send is
 * dropped, and more than a small message closes the socket. */
#define MAX_SOCKETS GML_AUDIENCE_MAX_CLIENTS

static void
tell_phones (GmlAudienceServer *self)
{
  static const char message[] = "{\"type\":\"state\"}";

  for (guint i = 0; self->sockets != NULL && i < self->sockets->len; i++)
    {
      SoupWebsocketConnection *ws = g_ptr_array_index (self->sockets, i);

      if (soup_websocket_connection_get_state (ws) == SOUP_WEBSOCKET_STATE_OPEN)
        soup_websocket_connection_send_text (ws, message);
    }
}

static void
socket_closed_cb (SoupWebsocketConnection *ws,
                  GmlAudienceServer       *self)
{
  g_signal_handlers_disconnect_by_data (ws, self);
  g_ptr_array_remove_fast (self->sockets, ws);
}

static void
live_cb (SoupServer              *server,
         SoupServerMessage       *msg,
         const char              *path,
         SoupWebsocketConnection *ws,
         gpointer                 user_data)
{
  GmlAudienceServer *self = user_data;

  if (self->sockets->len >= MAX_SOCKETS)
    {
      soup_websocket_connection_close (ws, SOUP_WEBSOCKET_CLOSE_POLICY_VIOLATION, NULL);
      return;
    }
  soup_websocket_connection_set_max_incoming_payload_size (ws, 256);
  soup_websocket_connection_set_keepalive_interval (ws, 30);
  g_ptr_array_add (self->sockets, g_object_ref (ws));
  g_signal_connect (ws, "closed", G_CALLBACK (socket_closed_cb), self);
}

/* Before the upgrade: only this room's phones. */
static void
live_early_cb (SoupServer        *server,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  GmlAudienceServer *self = user_data;
  const char *room = query != NULL ? g_hash_table_lookup (query, "room") : NULL;

  if (g_strcmp0 (room, gml_audience_room_get_code (self->room)) != 0)
    soup_server_message_set_status (msg, SOUP_STATUS_FORBIDDEN, NULL);
}

/* The words of the page, in its language, from the app's own catalogue. */
static void
strings_cb (SoupServer        *server,
            SoupServerMessage *msg,
            const char        *path,
            GHashTable        *query,
            gpointer           user_data)
{
  const char *lang = page_language (query);
  const char *saved = gml_i18n_push_language (lang);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  const struct { const char *key; const char *text; } strings[] = {
    { "title", _("GPU Memory Lab — Audience") },
    { "waiting", _("Waiting for the lecturer’s next question…") },
    { "choose", _("Tap your answer. You can change it until the vote closes.") },
    { "chosen", _("Your answer: %s. You can change it until the vote closes.") },
    { "closed", _("The vote is closed.") },
    { "right", _("Right: the answer is %s.") },
    { "wrong", _("Not this time: the answer is %s, you chose %s.") },
    { "none", _("You did not answer; the answer is %s.") },
    { "offline", _("The lecturer’s laptop does not answer. Trying again…") },
    { "language", _("Language") },
  };

  json_builder_begin_object (builder);
  add_string (builder, "lang", lang);
  for (guint i = 0; i < G_N_ELEMENTS (strings); i++)
    add_string (builder, strings[i].key, strings[i].text);
  json_builder_end_object (builder);
  respond_json (msg, SOUP_STATUS_OK, builder);
  gml_i18n_pop_language (saved);
}

static void
page_cb (SoupServer        *server,
         SoupServerMessage *msg,
         const char        *path,
         GHashTable        *query,
         gpointer           user_data)
{
  g_autoptr(GBytes) page = NULL;

  if (g_strcmp0 (path, "/") != 0 && g_strcmp0 (path, "/index.html") != 0)
    {
      soup_server_message_set_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
      return;
    }
  page = g_resources_lookup_data (RESOURCE_BASE "/audience/index.html", 0, NULL);
  if (page == NULL)
    {
      soup_server_message_set_status (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, NULL);
      return;
    }
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Cache-Control",
                                "no-store");
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, "text/html; charset=utf-8", SOUP_MEMORY_COPY,
                                    g_bytes_get_data (page, NULL), g_bytes_get_size (page));
}

/* ---- where it listens -------------------------------------------------------- */

/* The address phones reach the laptop at: the first IPv4 address of an interface
 * that is up and not the loopback, or NULL. */
static char *
lan_address (void)
{
  struct ifaddrs *list = NULL;
  char *found = NULL;

  if (getifaddrs (&list) != 0)
    return NULL;
  for (struct ifaddrs *i = list; i != NULL && found == NULL; i = i->ifa_next)
    {
      char text[INET_ADDRSTRLEN];

      if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET)
        continue;
      if (inet_ntop (AF_INET, &((struct sockaddr_in *) i->ifa_addr)->sin_addr, text,
                     sizeof text) == NULL ||
          g_str_has_prefix (text, "127."))
        continue;
      found = g_strdup (text);
    }
  freeifaddrs (list);
  return found;
}

/* A room's phones connect all at once when a question appears: GLib's default
 * backlog of 10 pending connections would turn most of them away, so the socket is
 * made here with a deeper one and handed to the server. */
#define LISTEN_BACKLOG 1024

static gboolean
listen_on (SoupServer   *server,
           GInetAddress *address,
           guint         port,
           GError      **error)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) socket_address = NULL;

  socket = g_socket_new (g_inet_address_get_family (address), G_SOCKET_TYPE_STREAM,
                         G_SOCKET_PROTOCOL_TCP, error);
  if (socket == NULL)
    return FALSE;
  socket_address = g_inet_socket_address_new (address, (guint16) port);
  g_socket_set_listen_backlog (socket, LISTEN_BACKLOG);
  return g_socket_bind (socket, socket_address, TRUE, error) &&
         g_socket_listen (socket, error) &&
         soup_server_listen_socket (server, socket, 0, error);
}

gboolean
gml_audience_server_start (GmlAudienceServer *self,
                           guint              port,
                           GError           **error)
{
  const char *bind = g_getenv ("GML_AUDIENCE_ADDRESS");
  g_autofree char *host = NULL;
  gboolean listening;

  g_return_val_if_fail (GML_IS_AUDIENCE_SERVER (self), FALSE);
  if (self->server != NULL)
    return TRUE;

  self->server = soup_server_new ("server-header", "gpu-memory-lab ", NULL);
  soup_server_add_early_handler (self->server, "/api/answer", answer_early_cb, self, NULL);
  soup_server_add_handler (self->server, "/api/answer", answer_cb, self, NULL);
  soup_server_add_handler (self->server, "/api/state", state_cb, self, NULL);
  soup_server_add_handler (self->server, "/api/strings", strings_cb, self, NULL);
  soup_server_add_handler (self->server, "/", page_cb, self, NULL);
  soup_server_add_early_handler (self->server, "/api/live", live_early_cb, self, NULL);
  soup_server_add_websocket_handler (self->server, "/api/live", NULL, NULL, live_cb, self, NULL);

  {
    g_autoptr(GInetAddress) address = NULL;

    if (bind != NULL && *bind != '\0')
      {
        address = g_inet_address_new_from_string (bind);
        if (address == NULL)
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         _("GML_AUDIENCE_ADDRESS is not an IP address: “%s”."), bind);
            g_clear_object (&self->server);
            return FALSE;
          }
        host = g_strdup (bind);
      }
    else
      {
        address = g_inet_address_new_any (G_SOCKET_FAMILY_IPV4);
        host = lan_address ();
        if (host == NULL)
          host = g_strdup ("127.0.0.1");
      }
    listening = listen_on (self->server, address, port, error);
  }
  if (!listening)
    {
      g_clear_object (&self->server);
      return FALSE;
    }
  {
    GSList *uris = soup_server_get_uris (self->server);
    guint bound = uris != NULL ? (guint) g_uri_get_port (uris->data) : port;

    g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
    g_free (self->url);
    self->url = g_strdup_printf ("http://%s:%u/?room=%s", host, bound,
                                 gml_audience_room_get_code (self->room));
  }
  sync_room (self);
  return TRUE;
}

static void
close_sockets (GmlAudienceServer *self)
{
  while (self->sockets != NULL && self->sockets->len > 0)
    {
      SoupWebsocketConnection *ws = g_ptr_array_index (self->sockets, self->sockets->len - 1);

      g_signal_handlers_disconnect_by_data (ws, self);
      if (soup_websocket_connection_get_state (ws) == SOUP_WEBSOCKET_STATE_OPEN)
        soup_websocket_connection_close (ws, SOUP_WEBSOCKET_CLOSE_GOING_AWAY, NULL);
      g_ptr_array_remove_index_fast (self->sockets, self->sockets->len - 1);
    }
}

void
gml_audience_server_stop (GmlAudienceServer *self)
{
  g_return_if_fail (GML_IS_AUDIENCE_SERVER (self));
  if (self->server == NULL)
    return;
  close_sockets (self);
  soup_server_disconnect (self->server);
  g_clear_object (&self->server);
  g_signal_emit (self, signals[CHANGED], 0);
}

gboolean
gml_audience_server_is_running (GmlAudienceServer *self)
{
  return self->server != NULL;
}

const char *
gml_audience_server_get_url (GmlAudienceServer *self)
{
  return self->server != NULL ? self->url : NULL;
}

GmlAudienceRoom *
gml_audience_server_get_room (GmlAudienceServer *self)
{
  return self->room;
}

/* The split of the question shown now, in words: "A: 27 answers, B: 25 answers, C:
 * 24 answers, D: 24 answers; right: B" (the right one only once revealed). */
char *
gml_audience_server_describe_split (GmlAudienceServer *self)
{
  GmlAudienceResult result;
  GString *out = g_string_new (NULL);

  if (!gml_audience_room_get_result (self->room, gml_audience_room_get_question (self->room),
                                     &result))
    return g_string_free (out, FALSE);
  for (guint shown = 0; shown < GML_AUDIENCE_N_OPTIONS; shown++)
    {
      g_autofree char *count = NULL;

      /* Translators: one option's share of the room's answers, e.g. "A: 27 answers";
       * %c is the option's letter. */
      count = g_strdup_printf (ngettext ("%c: %u answer", "%c: %u answers", result.counts[shown]),
                               g_ascii_toupper (gml_option_letter (shown)), result.counts[shown]);
      if (shown > 0)
        /* Translators: between two options' counts in the description of the bars. */
        g_string_append (out, _(", "));
      g_string_append (out, count);
    }
  if (result.revealed)
    {
      /* Translators: after the counts; %c is the right option's letter. */
      g_string_append_printf (out, _("; right: %c"),
                              g_ascii_toupper (gml_option_letter (result.right)));
    }
  return g_string_free (out, FALSE);
}

/* ---- the object -------------------------------------------------------------- */

static void
gml_audience_server_dispose (GObject *object)
{
  GmlAudienceServer *self = GML_AUDIENCE_SERVER (object);

  g_clear_handle_id (&self->changed_id, g_source_remove);
  close_sockets (self);
  if (self->server != NULL)
    soup_server_disconnect (self->server);
  g_clear_object (&self->server);
  if (self->presentation != NULL)
    g_signal_handlers_disconnect_by_data (self->presentation, self);
  g_clear_object (&self->presentation);

  G_OBJECT_CLASS (gml_audience_server_parent_class)->dispose (object);
}

static void
gml_audience_server_finalize (GObject *object)
{
  GmlAudienceServer *self = GML_AUDIENCE_SERVER (object);

  g_clear_pointer (&self->room, gml_audience_room_free);
  g_clear_pointer (&self->url, g_free);
  g_clear_pointer (&self->sockets, g_ptr_array_unref);

  G_OBJECT_CLASS (gml_audience_server_parent_class)->finalize (object);
}

static void
gml_audience_server_class_init (GmlAudienceServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gml_audience_server_dispose;
  object_class->finalize = gml_audience_server_finalize;

  /* A phone joined or answered, or the room moved with the presentation. */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
gml_audience_server_init (GmlAudienceServer *self)
{
  self->room = gml_audience_room_new (NULL);
  self->sockets = g_ptr_array_new_with_free_func (g_object_unref);
}

/* The room of presentation; it listens once started. */
GmlAudienceServer *
gml_audience_server_new (GmlPresentation *presentation)
{
  GmlAudienceServer *self;

  g_return_val_if_fail (GML_IS_PRESENTATION (presentation), NULL);
  self = g_object_new (GML_TYPE_AUDIENCE_SERVER, NULL);
  self->presentation = g_object_ref (presentation);
  g_signal_connect_swapped (presentation, "notify::position", G_CALLBACK (sync_room), self);
  g_signal_connect_swapped (presentation, "notify::revealed", G_CALLBACK (sync_room), self);
  g_signal_connect_swapped (presentation, "notify::at-end", G_CALLBACK (sync_room), self);
  g_signal_connect_swapped (presentation, "notify::ended", G_CALLBACK (sync_room), self);
  return self;
}

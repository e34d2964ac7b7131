/* gml-audience-room.c — the lecture hall's answers: one room, one round.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "gml-i18n.h"
#include <json-glib/json-glib.h>

#include "gml-audience-room.h"

G_DEFINE_QUARK (gml-audience-error-quark, gml_audience_error)

guint
gml_audience_error_status (const GError *error)
{
  if (error == NULL || error->domain != GML_AUDIENCE_ERROR)
    return 500;
  switch ((GmlAudienceError) error->code)
    {
    case GML_AUDIENCE_ERROR_MALFORMED:
      return 400;
    case GML_AUDIENCE_ERROR_ROOM:
      return 403;
    case GML_AUDIENCE_ERROR_NOT_NOW:
      return 409;
    case GML_AUDIENCE_ERROR_TOO_LARGE:
      return 413;
    case GML_AUDIENCE_ERROR_TOO_MANY:
      return 429;
    default:
      return 500;
    }
}

/* ---- what a phone sends ------------------------------------------------------ */

static gboolean
is_id (const char *text,
       gsize       min,
       gsize       max,
       const char *also)
{
  gsize n = 0;

  if (text == NULL)
    return FALSE;
  for (const char *p = text; *p != '\0'; p++, n++)
    if (n >= max || !(g_ascii_isalnum (*p) || strchr (also, *p) != NULL))
      return FALSE;
  return n >= min;
}

gboolean
gml_audience_is_room_code (const char *text)
{
  if (text == NULL || strlen (text) != 4)
    return FALSE;
  for (guint i = 0; i < 4; i++)
    if (!g_ascii_isdigit (text[i]))
      return FALSE;
  return TRUE;
}

gboolean
gml_audience_is_client_id (const char *text)
{
  return is_id (text, GML_AUDIENCE_MIN_CLIENT_ID, GML_AUDIENCE_MAX_CLIENT_ID, "-_");
}

gboolean
gml_audience_is_question_id (const char *text)
{
  return is_id (text, 1, GML_AUDIENCE_MAX_QUESTION_ID, "-_.");
}

static void
set_client_id_error (GError **error)
{
  g_set_error (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_MALFORMED,
               _("The phone’s id must be %u to %u letters, digits, “-” or “_”."),
               (guint) GML_AUDIENCE_MIN_CLIENT_ID, (guint) GML_AUDIENCE_MAX_CLIENT_ID);
}

void
gml_audience_answer_clear (GmlAudienceAnswer *answer)
{
  g_clear_pointer (&answer->client, g_free);
  g_clear_pointer (&answer->question, g_free);
  answer->room[0] = '\0';
  answer->option = 0;
}

static const char *
string_member (JsonObject *object,
               const char *name,
               GError    **error)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    {
      /* TRANSLATORS: %s is a member of the answer a phone sends, e.g. "client";
       * the page may show it. */
      g_set_error (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_MALFORMED,
                   _("The answer has no “%s”, or it is not a string."), name);
      return NULL;
    }
  return json_node_get_string (node);
}

gboolean
gml_audience_answer_parse (const char        *body,
                           gsize              length,
                           GmlAudienceAnswer *answer,
                           GError           **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local = NULL;
  static const char *const members[] = { "room", "client", "question", "option" };
  const char *room, *client, *question, *option;
  JsonObject *object;
  JsonNode *root;
  GList *names;
  guint n_members;

  memset (answer, 0, sizeof *answer);
  if (length > GML_AUDIENCE_MAX_BODY)
    {
      g_set_error (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_TOO_LARGE,
                   _("The answer is larger than %u bytes."), (guint) GML_AUDIENCE_MAX_BODY);
      return FALSE;
    }
  if (body == NULL || length == 0 || !g_utf8_validate_len (body, length, NULL))
    {
      g_set_error_literal (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_MALFORMED,
                           _("The answer is not JSON text."));
      return FALSE;
    }
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, body, (gssize) length, &local) ||
      (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_MALFORMED,
                           _("The answer is not a JSON object."));
      return FALSE;
    }
  object = json_node_get_object (root);
  names = json_object_get_members (object);
  n_members = g_list_length (names);
  for (GList *l = names; l != NULL; l = l->next)
    {
      gboolean known = FALSE;

      for (guint i = 0; i < G_N_ELEMENTS (members); i++)
        known = known || g_strcmp0 (l->data, members[i]) == 0;
      if (!known)
        {
          g_list_free (names);
          g_set_error_literal (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_MALFORMED,
                               _("The answer has a member it should not have."));
          return FALSE;
        }
    }
  g_list_free (names);
  if (n_members != G_N_ELEMENTS (members))
    {
      g_set_error_literal (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_MALFORMED,
                           _("The answer must have “room”, “client”, “question” and “option”."));
      return FALSE;
    }
  if ((room = string_member (object, "room", error)) == NULL ||
      (client = string_member (object, "client", error)) == NULL ||
      (question = string_member (object, "question", error)) == NULL ||
      (option = string_member (object, "option", error)) == NULL)
    return FALSE;
  if (!gml_audience_is_room_code (room))
    {
      g_set_error_literal (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_MALFORMED,
                           _("The room code must be four digits."));
      return FALSE;
    }
  if (!gml_audience_is_client_id (client))
    {
      set_client_id_error (error);
      return FALSE;
    }
  if (!gml_audience_is_question_id (question))
    {
      g_set_error_literal (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_MALFORMED,
                           _("The question id is not one the bank could have."));
      return FALSE;
    }
  if (strlen (option) != 1 || option[0] < 'a' || option[0] > 'd')
    {
      g_set_error_literal (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_MALFORMED,
                           _("The option must be “a”, “b”, “c” or “d”."));
      return FALSE;
    }
  memcpy (answer->room, room, 5);
  answer->client = g_strdup (client);
  answer->question = g_strdup (question);
  answer->option = (guint) (option[0] - 'a');
  return TRUE;
}

/* ---- the room ---------------------------------------------------------------- */

typedef struct
{
  char       *id;
  guint       right;
  gboolean    revealed;
  guint       counts[GML_AUDIENCE_N_OPTIONS];
  GHashTable *answers;             /* client id (the room's string) → option + 1 */
} Asked;

typedef struct
{
  char  *id;
  gint64 window_start;
  guint  in_window;
} Client;

struct _GmlAudienceRoom
{
  char        code[5];
  GHashTable *clients;             /* id → Client */
  GPtrArray  *asked;               /* Asked, in the order asked */
  GHashTable *asked_by_id;         /* id → Asked */
  Asked      *current;
  gboolean    open;
};

static void
asked_free (gpointer data)
{
  Asked *asked = data;

  g_hash_table_unref (asked->answers);
  g_free (asked->id);
  g_free (asked);
}

static void
client_free (gpointer data)
{
  Client *client = data;

  g_free (client->id);
  g_free (client);
}

GmlAudienceRoom *
gml_audience_room_new (const char *code)
{
  GmlAudienceRoom *room = g_new0 (GmlAudienceRoom, 1);

  if (code != NULL && gml_audience_is_room_code (code))
    memcpy (room->code, code, 5);
  else
    g_snprintf (room->code, sizeof room->code, "%04u", (guint) g_random_int_range (0, 10000));
  room->clients = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, client_free);
  room->asked = g_ptr_array_new_with_free_func (asked_free);
  room->asked_by_id = g_hash_table_new (g_str_hash, g_str_equal);
  return room;
}

void
gml_audience_room_free (GmlAudienceRoom *room)
{
  if (room == NULL)
    return;
  g_hash_table_unref (room->asked_by_id);
  g_ptr_array_unref (room->asked);
  g_hash_table_unref (room->clients);
  g_free (room);
}

const char *
gml_audience_room_get_code (GmlAudienceRoom *room)
{
  return room->code;
}

/* Asks QUESTION (its right option RIGHT) and opens its vote.  Asked again later in
 * the round, it keeps the answers it had.  FALSE when the round is full or the id
 * is not one. */
gboolean
gml_audience_room_ask (GmlAudienceRoom *room,
                       const char      *question,
                       guint            right)
{
  Asked *asked;

  g_return_val_if_fail (right < GML_AUDIENCE_N_OPTIONS, FALSE);
  if (!gml_audience_is_question_id (question))
    return FALSE;
  asked = g_hash_table_lookup (room->asked_by_id, question);
  if (asked == NULL)
    {
      if (room->asked->len >= GML_AUDIENCE_MAX_QUESTIONS)
        return FALSE;
      asked = g_new0 (Asked, 1);
      asked->id = g_strdup (question);
      asked->answers = g_hash_table_new (g_str_hash, g_str_equal);
      g_ptr_array_add (room->asked, asked);
      g_hash_table_insert (room->asked_by_id, asked->id, asked);
    }
  asked->right = right;
  asked->revealed = FALSE;
  room->current = asked;
  room->open = TRUE;
  return TRUE;
}

void
gml_audience_room_close_vote (GmlAudienceRoom *room)
{
  room->open = FALSE;
}

/* Closes the vote, and the phones may see the right answer. */
void
gml_audience_room_reveal (GmlAudienceRoom *room)
{
  room->open = FALSE;
  if (room->current != NULL)
    room->current->revealed = TRUE;
}

const char *
gml_audience_room_get_question (GmlAudienceRoom *room)
{
  return room->current != NULL ? room->current->id : NULL;
}

gboolean
gml_audience_room_is_open (GmlAudienceRoom *room)
{
  return room->current != NULL && room->open;
}

gboolean
gml_audience_room_is_revealed (GmlAudienceRoom *room)
{
  return room->current != NULL && room->current->revealed;
}

static Client *
lookup_or_join (GmlAudienceRoom *room,
                const char      *id,
                GError         **error)
{
  Client *client = g_hash_table_lookup (room->clients, id);

  if (client != NULL)
    return client;
  if (!gml_audience_is_client_id (id))
    {
      set_client_id_error (error);
      return NULL;
    }
  if (g_hash_table_size (room->clients) >= GML_AUDIENCE_MAX_CLIENTS)
    {
      g_set_error (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_TOO_MANY,
                   _("The room is full: %u phones have joined."), (guint) GML_AUDIENCE_MAX_CLIENTS);
      return NULL;
    }
  client = g_new0 (Client, 1);
  client->id = g_strdup (id);
  g_hash_table_insert (room->clients, client->id, client);
  return client;
}

/* A phone that opened the page: it counts as joined. */
gboolean
gml_audience_room_join (GmlAudienceRoom *room,
                        const char      *client,
                        GError         **error)
{
  return lookup_or_join (room, client, error) != NULL;
}

gboolean
gml_audience_room_answer (GmlAudienceRoom         *room,
                          const GmlAudienceAnswer *answer,
                          gint64                   now_us,
                          GError                 **error)
{
  Client *client;
  gpointer before;

  if (strcmp (answer->room, room->code) != 0)
    {
      g_set_error_literal (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_ROOM,
                           _("This is not the code of the room: look at the projected slide "
                             "again."));
      return FALSE;
    }
  if (room->current == NULL || g_strcmp0 (answer->question, room->current->id) != 0)
    {
      g_set_error_literal (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_NOT_NOW,
                           _("That is not the question asked now."));
      return FALSE;
    }
  if (!room->open)
    {
      g_set_error_literal (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_NOT_NOW,
                           _("The vote on this question is closed."));
      return FALSE;
    }
  if ((client = lookup_or_join (room, answer->client, error)) == NULL)
    return FALSE;
  if (now_us - client->window_start >= GML_AUDIENCE_FLOOD_WINDOW_US ||
      now_us < client->window_start)
    {
      client->window_start = now_us;
      client->in_window = 0;
    }
  if (client->in_window >= GML_AUDIENCE_FLOOD_ANSWERS)
    {
      g_set_error_literal (error, GML_AUDIENCE_ERROR, GML_AUDIENCE_ERROR_TOO_MANY,
                           _("Too many answers from this phone: wait a few seconds."));
      return FALSE;
    }
  client->in_window++;
  g_return_val_if_fail (answer->option < GML_AUDIENCE_N_OPTIONS, FALSE);
  if (g_hash_table_lookup_extended (room->current->answers, client->id, NULL, &before))
    room->current->counts[GPOINTER_TO_UINT (before) - 1]--;
  g_hash_table_insert (room->current->answers, client->id, GUINT_TO_POINTER (answer->option + 1));
  room->current->counts[answer->option]++;
  return TRUE;
}

/* CLIENT's answer to QUESTION (0 … 3), or -1 if it has none. */
gint
gml_audience_room_answer_of (GmlAudienceRoom *room,
                             const char      *client,
                             const char      *question)
{
  Asked *asked = question != NULL ? g_hash_table_lookup (room->asked_by_id, question) : NULL;
  gpointer option;

  if (asked == NULL || client == NULL ||
      !g_hash_table_lookup_extended (asked->answers, client, NULL, &option))
    return -1;
  return (gint) GPOINTER_TO_UINT (option) - 1;
}

guint
gml_audience_room_get_joined (GmlAudienceRoom *room)
{
  return g_hash_table_size (room->clients);
}

static void
fill_result (const Asked       *asked,
             GmlAudienceResult *result)
{
  result->id = asked->id;
  result->right = asked->right;
  result->revealed = asked->revealed;
  result->answered = 0;
  for (guint i = 0; i < GML_AUDIENCE_N_OPTIONS; i++)
    {
      result->counts[i] = asked->counts[i];
      result->answered += asked->counts[i];
    }
}

gboolean
gml_audience_room_get_result (GmlAudienceRoom   *room,
                              const char        *question,
                              GmlAudienceResult *result)
{
  Asked *asked = question != NULL ? g_hash_table_lookup (room->asked_by_id, question) : NULL;

  memset (result, 0, sizeof *result);
  if (asked == NULL)
    return FALSE;
  fill_result (asked, result);
  return TRUE;
}

guint
gml_audience_room_get_n_asked (GmlAudienceRoom *room)
{
  return room->asked->len;
}

void
gml_audience_room_get_result_at (GmlAudienceRoom   *room,
                                 guint              index,
                                 GmlAudienceResult *result)
{
  g_return_if_fail (index < room->asked->len);
  fill_result (g_ptr_array_index (room->asked, index), result);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The round's answers for the lecturer, one line a phone and question:
 * question,client,option,right (right is 1 or 0).  Client ids are the phones'
 * random ones; every field is one of the characters the parser allows, so none
 * needs quoting. */
char *
gml_audience_room_to_csv (GmlAudienceRoom *room)
{
  GString *out = g_string_new ("question,client,option,right\n");

  for (guint q = 0; q < room->asked->len; q++)
    {
      Asked *asked = g_ptr_array_index (room->asked, q);
      g_autofree gpointer *clients = g_hash_table_get_keys_as_array (asked->answers, NULL);
      guint n = g_hash_table_size (asked->answers);

      qsort (clients, n, sizeof *clients, compare_strings);
      for (guint c = 0; c < n; c++)
        {
          guint option = GPOINTER_TO_UINT (g_hash_table_lookup (asked->answers, clients[c])) - 1;

          g_string_append_printf (out, "%s,%s,%c,%d\n", asked->id, (const char *) clients[c],
                                  'a' + option, option == asked->right);
        }
    }
  return g_string_free (out, FALSE);
}

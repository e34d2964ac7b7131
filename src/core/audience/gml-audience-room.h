/* gml-audience-room.h — the lecture hall's answers: one room, one round.
 *
 * In audience mode the lecturer's laptop serves a page on the room's network and
 * the students answer the projected question from their phones.  This is what
 * the app keeps of it, without any network or toolkit: the room's four-digit
 * code, the question now asked, whether its vote is open, and each phone's
 * answer to each question of the round, kept in memory only.
 *
 * What a phone sends is untrusted.  gml_audience_answer_parse() reads the body of
 * POST /api/answer,
 *
 *   {"room": "4821", "client": ID, "question": ID, "option": "a"|"b"|"c"|"d"}
 *
 * bounded (GML_AUDIENCE_MAX_BODY bytes, no other member, each string of the
 * characters its kind allows), and gml_audience_room_answer() decides whether the
 * room takes it.  Every refusal is a GError of GML_AUDIENCE_ERROR whose
 * gml_audience_error_status() is the HTTP status the page gets:
 *
 *   400 malformed    403 not this room's code    409 not the question asked now,
 *   or its vote is closed    413 too large    429 too many answers from one phone,
 *   or the room is full (GML_AUDIENCE_MAX_CLIENTS phones)
 *
 * A phone is a random id the page keeps in its storage: answers are anonymous,
 * and a phone that drops and comes back keeps its answer.  It may change its
 * answer until the vote closes; the last one counts.  Only the lecturer (the app)
 * asks, closes and reveals: nothing a phone sends can.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define GML_AUDIENCE_MAX_BODY         1024   /* bytes of one POST /api/answer body */
#define GML_AUDIENCE_MAX_CLIENTS      1000   /* phones in one room */
#define GML_AUDIENCE_MAX_QUESTIONS    1000   /* questions in one round */
#define GML_AUDIENCE_MIN_CLIENT_ID    8
#define GML_AUDIENCE_MAX_CLIENT_ID    64
#define GML_AUDIENCE_MAX_QUESTION_ID  128
/* A phone may send this many answers in GML_AUDIENCE_FLOOD_WINDOW_US; more is a
 * flood, refused with 429 until the window has passed. */
#define GML_AUDIENCE_FLOOD_ANSWERS    20
#define GML_AUDIENCE_FLOOD_WINDOW_US  (10 * G_USEC_PER_SEC)
#define GML_AUDIENCE_N_OPTIONS        4

#define GML_AUDIENCE_ERROR (gml_audience_error_quark ())

typedef enum
{
  GML_AUDIENCE_ERROR_MALFORMED,    /* 400 */
  GML_AUDIENCE_ERROR_ROOM,         /* 403 */
  GML_AUDIENCE_ERROR_NOT_NOW,      /* 409: another question, or the vote is closed */
  GML_AUDIENCE_ERROR_TOO_LARGE,    /* 413 */
  GML_AUDIENCE_ERROR_TOO_MANY,     /* 429: a flood, or the room is full */
} GmlAudienceError;

GQuark gml_audience_error_quark  (void);
guint  gml_audience_error_status (const GError *error);

typedef struct
{
  char  room[5];
  char *client;
  char *question;
  guint option;                    /* 0 for "a" … 3 for "d" */
} GmlAudienceAnswer;

gboolean gml_audience_answer_parse (const char        *body,
                                    gsize              length,
                                    GmlAudienceAnswer *answer,
                                    GError           **error);
void     gml_audience_answer_clear (GmlAudienceAnswer *answer);

gboolean gml_audience_is_room_code   (const char *text);
gboolean gml_audience_is_client_id   (const char *text);
gboolean gml_audience_is_question_id (const char *text);

typedef struct _GmlAudienceRoom GmlAudienceRoom;

/* One question of the round, as it stands. */
typedef struct
{
  const char *id;
  guint       right;               /* the right option, 0 … 3 */
  guint       counts[GML_AUDIENCE_N_OPTIONS];
  guint       answered;            /* the sum of counts */
  gboolean    revealed;
} GmlAudienceResult;

GmlAudienceRoom *gml_audience_room_new          (const char      *code);
void             gml_audience_room_free         (GmlAudienceRoom *room);
const char      *gml_audience_room_get_code     (GmlAudienceRoom *room);

gboolean         gml_audience_room_ask          (GmlAudienceRoom *room,
                                                 const char      *question,
                                                 guint            right);
void             gml_audience_room_close_vote   (GmlAudienceRoom *room);
void             gml_audience_room_reveal       (GmlAudienceRoom *room);
const char      *gml_audience_room_get_question (GmlAudienceRoom *room);
gboolean         gml_audience_room_is_open      (GmlAudienceRoom *room);
gboolean         gml_audience_room_is_revealed  (GmlAudienceRoom *room);

gboolean         gml_audience_room_join         (GmlAudienceRoom *room,
                                                 const char      *client,
                                                 GError         **error);
gboolean         gml_audience_room_answer       (GmlAudienceRoom         *room,
                                                 const GmlAudienceAnswer *answer,
                                                 gint64                   now_us,
                                                 GError                 **error);
gint             gml_audience_room_answer_of    (GmlAudienceRoom *room,
                                                 const char      *client,
                                                 const char      *question);

guint            gml_audience_room_get_joined   (GmlAudienceRoom *room);
gboolean         gml_audience_room_get_result   (GmlAudienceRoom   *room,
                                                 const char        *question,
                                                 GmlAudienceResult *result);
guint            gml_audience_room_get_n_asked  (GmlAudienceRoom *room);
void             gml_audience_room_get_result_at (GmlAudienceRoom   *room,
                                                  guint              index,
                                                  GmlAudienceResult *result);
char            *gml_audience_room_to_csv       (GmlAudienceRoom *room);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlAudienceRoom, gml_audience_room_free)

G_END_DECLS

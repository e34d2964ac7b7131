/* gml-presentation.c — a presented round: the state both lecture windows show.
 *
 * The audience's window (the projector) and the presenter's window (the lecturer's
 * screen) are two views of one GmlPresentation: which question is up, whether its
 * answer is revealed, the round's result after the last one, the countdown, the
 * zoom and the end of the lecture. Both windows call its methods on the lecturer's
 * keys and buttons and redraw on its notify:: signals, so they always agree.
 * No widgets here: it is tested on its own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-presentation"

#include "config.h"

#include <math.h>

#include "gml-presentation.h"

/* The countdown's tick: four times a second, so a second's change shows at once. */
#define TICK_MS 250

#define ZOOM_MIN 0.5
#define ZOOM_MAX 2.0
#define ZOOM_STEP 0.1

struct _GmlPresentation
{
  GObject          parent_instance;

  /* Owned */
  GArray          *slides;          /* GmlSlide */

  /* Borrowed: the application's bank outlives every presentation. */
  GmlQuestionBank *bank;

  /* State */
  guint            current;
  gboolean         at_end;          /* the round's result is shown */
  gboolean         ended;           /* the lecturer left */
  gboolean         bilingual;
  double           zoom;            /* Ctrl+plus/minus: the lecturer's own factor */
  int              question_timer;  /* seconds per question; 0: no countdown */
  int              seconds_left;    /* -1: no countdown running or shown */
  gint64           started_at;      /* monotonic µs when the presentation began */
  gint64           question_at;     /* monotonic µs when the current question came up */
  guint            tick_id;
  GObject         *audience;        /* weak: audience mode's server, while there is one */
};

enum {
  PROP_0,
  PROP_POSITION,
  PROP_N_QUESTIONS,
  PROP_REVEALED,
  PROP_AT_END,
  PROP_ENDED,
  PROP_QUESTION_TIMER,
  PROP_SECONDS_LEFT,
  PROP_BILINGUAL,
  PROP_ZOOM,
  PROP_AUDIENCE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GmlPresentation, gml_presentation, G_TYPE_OBJECT)

static GmlSlide *
slide_at (GmlPresentation *self,
          guint            position)
{
  if (self->slides == NULL || position >= self->slides->len)
    return NULL;
  return &g_array_index (self->slides, GmlSlide, position);
}

/* What the countdown shows now: -1 without one (no limit set, the answer revealed,
 * the round's result shown, the lecture over), else the whole seconds left. */
static int
compute_seconds_left (GmlPresentation *self)
{
  const GmlSlide *slide = slide_at (self, self->current);
  gint64 elapsed;

  if (self->question_timer <= 0 || slide == NULL || slide->revealed || self->at_end || self->ended)
    return -1;
  elapsed = (g_get_monotonic_time () - self->question_at) / G_USEC_PER_SEC;
  return (int) MAX (0, self->question_timer - elapsed);
}

static gboolean tick_cb (gpointer user_data);

/* Sets seconds-left (notifying only a change) and runs the tick only while a
 * countdown runs: not without one, and not once the time is up. */
static void
update_countdown (GmlPresentation *self)
{
  int left = compute_seconds_left (self);

  if (left != self->seconds_left)
    {
      self->seconds_left = left;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SECONDS_LEFT]);
    }
  if (left > 0)
    {
      if (self->tick_id == 0)
        self->tick_id = g_timeout_add (TICK_MS, tick_cb, self);
    }
  else
    g_clear_handle_id (&self->tick_id, g_source_remove);
}

static gboolean
tick_cb (gpointer user_data)
{
  GmlPresentation *self = user_data;
  int left = compute_seconds_left (self);

  if (left > 0)
    {
      if (left != self->seconds_left)
        {
          self->seconds_left = left;
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SECONDS_LEFT]);
        }
      return G_SOURCE_CONTINUE;
    }
  self->tick_id = 0;
  update_countdown (self);
  return G_SOURCE_REMOVE;
}

/* The slide at index in the round (not an offset from the current one), or NULL. */
const GmlSlide *
gml_presentation_get_slide (GmlPresentation *self,
                            guint            index)
{
  g_return_val_if_fail (GML_IS_PRESENTATION (self), NULL);
  return slide_at (self, index);
}

/* The question of the slide at index, or NULL. */
const GmlQuestion *
gml_presentation_get_question (GmlPresentation *self,
                               guint            index)
{
  const GmlSlide *slide = gml_presentation_get_slide (self, index);

  return slide != NULL ? gml_question_bank_get (self->bank, slide->question) : NULL;
}

guint
gml_presentation_get_position (GmlPresentation *self)
{
  g_return_val_if_fail (GML_IS_PRESENTATION (self), 0);
  return self->current;
}

guint
gml_presentation_get_n_questions (GmlPresentation *self)
{
  g_return_val_if_fail (GML_IS_PRESENTATION (self), 0);
  return self->slides != NULL ? self->slides->len : 0;
}

/* How many of the round's answers the class saw. */
guint
gml_presentation_get_n_revealed (GmlPresentation *self)
{
  guint n = 0;

  g_return_val_if_fail (GML_IS_PRESENTATION (self), 0);
  for (guint i = 0; self->slides != NULL && i < self->slides->len; i++)
    if (slide_at (self, i)->revealed)
      n++;
  return n;
}

/* Whether the current question's answer is shown. */
gboolean
gml_presentation_get_revealed (GmlPresentation *self)
{
  const GmlSlide *slide;

  g_return_val_if_fail (GML_IS_PRESENTATION (self), FALSE);
  slide = slide_at (self, self->current);
  return slide != NULL && slide->revealed;
}

/* Whether the round's result is shown, after the last question. */
gboolean
gml_presentation_get_at_end (GmlPresentation *self)
{
  g_return_val_if_fail (GML_IS_PRESENTATION (self), FALSE);
  return self->at_end;
}

/* Whether the lecturer left (Esc, or a window closed): both windows go. */
gboolean
gml_presentation_get_ended (GmlPresentation *self)
{
  g_return_val_if_fail (GML_IS_PRESENTATION (self), FALSE);
  return self->ended;
}

gint64
gml_presentation_get_started_at (GmlPresentation *self)
{
  g_return_val_if_fail (GML_IS_PRESENTATION (self), 0);
  return self->started_at;
}

int
gml_presentation_get_question_timer (GmlPresentation *self)
{
  g_return_val_if_fail (GML_IS_PRESENTATION (self), 0);
  return self->question_timer;
}

/* A new time limit restarts nothing but the countdown: the slide stays as it is,
 * and the time already spent on it counts. */
void
gml_presentation_set_question_timer (GmlPresentation *self,
                                     int              seconds)
{
  g_return_if_fail (GML_IS_PRESENTATION (self));

  seconds = MAX (0, seconds);
  if (seconds == self->question_timer)
    return;
  self->question_timer = seconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_QUESTION_TIMER]);
  update_countdown (self);
}

/* Seconds left on the current question's countdown; -1 when there is none. */
int
gml_presentation_get_seconds_left (GmlPresentation *self)
{
  g_return_val_if_fail (GML_IS_PRESENTATION (self), -1);
  return self->seconds_left;
}

gboolean
gml_presentation_get_bilingual (GmlPresentation *self)
{
  g_return_val_if_fail (GML_IS_PRESENTATION (self), FALSE);
  return self->bilingual;
}

void
gml_presentation_set_bilingual (GmlPresentation *self,
                                gboolean         bilingual)
{
  g_return_if_fail (GML_IS_PRESENTATION (self));

  bilingual = !!bilingual;
  if (bilingual == self->bilingual)
    return;
  self->bilingual = bilingual;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BILINGUAL]);
}

double
gml_presentation_get_zoom (GmlPresentation *self)
{
  g_return_val_if_fail (GML_IS_PRESENTATION (self), 1.0);
  return self->zoom;
}

static void
set_zoom (GmlPresentation *self,
          double           zoom)
{
  zoom = CLAMP (zoom, ZOOM_MIN, ZOOM_MAX);
  if (zoom == self->zoom)
    return;
  self->zoom = zoom;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

/* direction > 0 zooms in a step, < 0 out, 0 back to the size that fits the window. */
void
gml_presentation_zoom (GmlPresentation *self,
                       int              direction)
{
  g_return_if_fail (GML_IS_PRESENTATION (self));

  if (direction == 0)
    set_zoom (self, 1.0);
  else
    set_zoom (self, round ((self->zoom + direction * ZOOM_STEP) * 10) / 10);
}

/* Moves by delta questions. Past the last one comes the round's result; back from
 * it, the last question again. Each property that changed is notified once, after
 * all of them are set, so a view reads a consistent state in any handler. */
void
gml_presentation_go (GmlPresentation *self,
                     int              delta)
{
  gboolean was_revealed, at_end;
  guint previous;
  int target;

  g_return_if_fail (GML_IS_PRESENTATION (self));

  if (self->slides == NULL || self->slides->len == 0 || delta == 0 || self->ended)
    return;
  at_end = self->at_end;
  if (at_end)
    {
      if (delta > 0)
        return;
      at_end = FALSE;
      delta++;
    }
  target = (int) self->current + delta;
  if (target >= (int) self->slides->len)
    {
      at_end = TRUE;
      target = (int) self->slides->len - 1;
    }
  target = MAX (target, 0);

  /* ← on the first question stays there but, as any move, restarts its countdown. */
  g_object_freeze_notify (G_OBJECT (self));
  was_revealed = gml_presentation_get_revealed (self);
  previous = self->current;
  self->current = (guint) target;
  if (previous != self->current)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_POSITION]);
  if (at_end != self->at_end)
    {
      self->at_end = at_end;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AT_END]);
    }
  if (was_revealed != gml_presentation_get_revealed (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REVEALED]);
  self->question_at = g_get_monotonic_time ();
  update_countdown (self);
  g_object_thaw_notify (G_OBJECT (self));
}

void
gml_presentation_next (GmlPresentation *self)
{
  gml_presentation_go (self, 1);
}

void
gml_presentation_previous (GmlPresentation *self)
{
  gml_presentation_go (self, -1);
}

/* Home: the first question, from the round's result too. */
void
gml_presentation_first (GmlPresentation *self)
{
  g_return_if_fail (GML_IS_PRESENTATION (self));
  gml_presentation_go (self, -(int) self->current - (self->at_end ? 1 : 0));
}

/* End: the last question (not the result after it). */
void
gml_presentation_last (GmlPresentation *self)
{
  g_return_if_fail (GML_IS_PRESENTATION (self));
  if (self->slides != NULL && !self->at_end)
    gml_presentation_go (self, (int) self->slides->len - 1 - (int) self->current);
}

void
gml_presentation_reveal (GmlPresentation *self)
{
  GmlSlide *slide;

  g_return_if_fail (GML_IS_PRESENTATION (self));

  slide = slide_at (self, self->current);
  if (slide == NULL || slide->revealed || self->at_end || self->ended)
    return;
  g_object_freeze_notify (G_OBJECT (self));
  slide->revealed = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REVEALED]);
  update_countdown (self);
  g_object_thaw_notify (G_OBJECT (self));
}

/* Space: reveal the answer, then the next question; nothing on the result. */
void
gml_presentation_advance (GmlPresentation *self)
{
  g_return_if_fail (GML_IS_PRESENTATION (self));

  if (self->at_end)
    return;
  if (!gml_presentation_get_revealed (self))
    gml_presentation_reveal (self);
  else
    gml_presentation_next (self);
}

/* The lecturer leaves: the views close on notify::ended. */
void
gml_presentation_end (GmlPresentation *self)
{
  g_return_if_fail (GML_IS_PRESENTATION (self));

  if (self->ended)
    return;
  g_object_freeze_notify (G_OBJECT (self));
  self->ended = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ENDED]);
  update_countdown (self);
  g_object_thaw_notify (G_OBJECT (self));
}

/* Audience mode's server for this round, or NULL; held weakly (it holds the round). */
void
gml_presentation_set_audience (GmlPresentation *self,
                               GObject         *audience)
{
  g_return_if_fail (GML_IS_PRESENTATION (self));
  if (g_set_weak_pointer (&self->audience, audience))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUDIENCE]);
}

GObject *
gml_presentation_get_audience (GmlPresentation *self)
{
  g_return_val_if_fail (GML_IS_PRESENTATION (self), NULL);
  return self->audience;
}

static void
gml_presentation_dispose (GObject *object)
{
  GmlPresentation *self = GML_PRESENTATION (object);

  g_clear_handle_id (&self->tick_id, g_source_remove);
  g_clear_weak_pointer (&self->audience);

  G_OBJECT_CLASS (gml_presentation_parent_class)->dispose (object);
}

static void
gml_presentation_finalize (GObject *object)
{
  GmlPresentation *self = GML_PRESENTATION (object);

  g_clear_pointer (&self->slides, g_array_unref);

  G_OBJECT_CLASS (gml_presentation_parent_class)->finalize (object);
}

static void
gml_presentation_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  GmlPresentation *self = GML_PRESENTATION (object);

  switch (prop_id)
    {
    case PROP_POSITION:
      g_value_set_uint (value, gml_presentation_get_position (self));
      break;

    case PROP_N_QUESTIONS:
      g_value_set_uint (value, gml_presentation_get_n_questions (self));
      break;

    case PROP_REVEALED:
      g_value_set_boolean (value, gml_presentation_get_revealed (self));
      break;

    case PROP_AT_END:
      g_value_set_boolean (value, gml_presentation_get_at_end (self));
      break;

    case PROP_ENDED:
      g_value_set_boolean (value, gml_presentation_get_ended (self));
      break;

    case PROP_QUESTION_TIMER:
      g_value_set_int (value, gml_presentation_get_question_timer (self));
      break;

    case PROP_SECONDS_LEFT:
      g_value_set_int (value, gml_presentation_get_seconds_left (self));
      break;

    case PROP_BILINGUAL:
      g_value_set_boolean (value, gml_presentation_get_bilingual (self));
      break;

    case PROP_ZOOM:
      g_value_set_double (value, gml_presentation_get_zoom (self));
      break;

    case PROP_AUDIENCE:
      g_value_set_object (value, self->audience);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_presentation_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  GmlPresentation *self = GML_PRESENTATION (object);

  switch (prop_id)
    {
    case PROP_QUESTION_TIMER:
      gml_presentation_set_question_timer (self, g_value_get_int (value));
      break;

    case PROP_BILINGUAL:
      gml_presentation_set_bilingual (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gml_presentation_class_init (GmlPresentationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->dispose = gml_presentation_dispose;
  object_class->finalize = gml_presentation_finalize;
  object_class->get_property = gml_presentation_get_property;
  object_class->set_property = gml_presentation_set_property;

  properties[PROP_POSITION] =
    g_param_spec_uint ("position", NULL, NULL, 0, G_MAXUINT, 0, ro);
  properties[PROP_N_QUESTIONS] =
    g_param_spec_uint ("n-questions", NULL, NULL, 0, G_MAXUINT, 0, ro);
  properties[PROP_REVEALED] =
    g_param_spec_boolean ("revealed", NULL, NULL, FALSE, ro);
  properties[PROP_AT_END] =
    g_param_spec_boolean ("at-end", NULL, NULL, FALSE, ro);
  properties[PROP_ENDED] =
    g_param_spec_boolean ("ended", NULL, NULL, FALSE, ro);
  properties[PROP_QUESTION_TIMER] =
    g_param_spec_int ("question-timer", NULL, NULL, 0, G_MAXINT, 0, rw);
  properties[PROP_SECONDS_LEFT] =
    g_param_spec_int ("seconds-left", NULL, NULL, -1, G_MAXINT, -1, ro);
  properties[PROP_BILINGUAL] =
    g_param_spec_boolean ("bilingual", NULL, NULL, FALSE, rw);
  properties[PROP_ZOOM] =
    g_param_spec_double ("zoom", NULL, NULL, ZOOM_MIN, ZOOM_MAX, 1.0, ro);
  /* Audience mode's server (a GmlAudienceServer), so that both windows show the room. */
  properties[PROP_AUDIENCE] =
    g_param_spec_object ("audience", NULL, NULL, G_TYPE_OBJECT, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gml_presentation_init (GmlPresentation *self)
{
  self->zoom = 1.0;
  self->seconds_left = -1;
  self->started_at = g_get_monotonic_time ();
  self->question_at = self->started_at;
}

/* A round of slides (taken: a reference is kept) on questions of bank (borrowed),
 * from start. Its countdown runs once question-timer is set. */
GmlPresentation *
gml_presentation_new (GmlQuestionBank *bank,
                      GArray          *slides,
                      guint            start)
{
  GmlPresentation *self;

  g_return_val_if_fail (bank != NULL, NULL);
  g_return_val_if_fail (slides != NULL && slides->len > 0, NULL);

  self = g_object_new (GML_TYPE_PRESENTATION, NULL);
  self->bank = bank;
  self->slides = g_array_ref (slides);
  self->current = MIN (start, slides->len - 1);
  return self;
}

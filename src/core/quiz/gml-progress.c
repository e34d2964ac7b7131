/* gml-progress.c — the answer log, kept atomically under the XDG data directory.
 *
 * The whole log is rewritten on every answer through g_file_set_contents_full()
 * with G_FILE_SET_CONTENTS_CONSISTENT: a temporary file is written and synced, then
 * renamed over the old one, so a crash leaves either the old or the new log.
 *
 * By default a change is saved before the call returns (the command line, the
 * crash-safety helper). The application turns on background saves instead
 * (gml_progress_set_background_saves): the log is serialised on the calling thread,
 * written, synced and renamed in a worker, one write at a time; changes made while
 * a write is under way are coalesced into one more write of the newest state.
 * Anything that reads the file back or replaces it waits for that write first.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-progress"

#include "config.h"

#include <errno.h>
#include "gml-i18n.h"
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "gml-input.h"
#include "gml-progress.h"

#define PROGRESS_VERSION 1

/* One background write. The worker only sees @path and @data; the result is
 * handed back under @mutex so that a flush can wait for it without running the
 * main loop. @owner is touched on the owner's thread only, and is NULL once the
 * result was taken (by the task's callback or by a flush). */
typedef struct
{
  GmlProgress *owner;
  char        *path;
  char        *data;
  gsize        length;
  GMutex       mutex;
  GCond        cond;
  gboolean     done;
  GError      *error;
} SaveJob;

struct _GmlProgress
{
  char       *path;
  GArray     *answers;   /* GmlAnswer */
  GArray     *guesses;   /* GmlGuess: "Predict, then run" in the experiment lab */
  GHashTable *last;      /* question id -> index + 1 of its last answer */

  /* Background saves (gml_progress_set_background_saves). */
  gboolean                 background;
  GmlProgressSaveFailedFunc failed_func;
  gpointer                 failed_data;
  SaveJob                 *job;       /* the write in flight, or NULL */
  gboolean                 dirty;     /* changes not yet handed to a write */
  guint                    n_writes;  /* writes finished, in the background or not */
};

G_DEFINE_QUARK (gml-progress-error-quark, gml_progress_error)

static void finish_in_flight (GmlProgress *self);

static void
clear_answer (GmlAnswer *answer)
{
  g_clear_pointer (&answer->question, g_free);
  g_clear_pointer (&answer->chosen, g_free);
}

static void
clear_guess (GmlGuess *guess)
{
  g_clear_pointer (&guess->config, g_free);
}

static GArray *
new_guesses (void)
{
  GArray *guesses = g_array_new (FALSE, TRUE, sizeof (GmlGuess));

  g_array_set_clear_func (guesses, (GDestroyNotify) clear_guess);
  return guesses;
}

char *
gml_progress_default_path (void)
{
  return g_build_filename (g_get_user_data_dir (), GETTEXT_PACKAGE, "progress.json", NULL);
}

GmlProgress *
gml_progress_new (const char *path)
{
  GmlProgress *self = g_new0 (GmlProgress, 1);

  self->path = path != NULL ? g_strdup (path) : gml_progress_default_path ();
  self->answers = g_array_new (FALSE, TRUE, sizeof (GmlAnswer));
  g_array_set_clear_func (self->answers, (GDestroyNotify) clear_answer);
  self->guesses = new_guesses ();
  self->last = g_hash_table_new (g_str_hash, g_str_equal);
  return self;
}

void
gml_progress_free (GmlProgress *self)
{
  if (self == NULL)
    return;
  if (self->background)
    {
      g_autoptr(GError) error = NULL;

      /* The application flushes at exit and reports failures; this is the last
       * chance for anyone who did not. */
      if (!gml_progress_flush (self, &error))
        g_message ("%s", error->message);
    }
  finish_in_flight (self);
  g_hash_table_unref (self->last);
  g_array_unref (self->answers);
  g_array_unref (self->guesses);
  g_free (self->path);
  g_free (self);
}

const char *
gml_progress_get_path (GmlProgress *self)
{
  return self->path;
}

static void
reindex (GmlProgress *self)
{
  g_hash_table_remove_all (self->last);
  for (guint i = 0; i < self->answers->len; i++)
    {
      GmlAnswer *answer = &g_array_index (self->answers, GmlAnswer, i);

      g_hash_table_insert (self->last, answer->question, GUINT_TO_POINTER (i + 1));
    }
}

static gboolean
corrupt (GError    **error,
         guint       index,
         const char *what)
{
  if (index == G_MAXUINT)
    g_set_error (error, GML_PROGRESS_ERROR, GML_PROGRESS_ERROR_CORRUPT, "%s", what);
  else
    /* Translators: %u is the number of an entry in the answer log, %s the problem. */
    g_set_error (error, GML_PROGRESS_ERROR, GML_PROGRESS_ERROR_CORRUPT,
                 _("answer %u: %s"), index + 1, what);
  return FALSE;
}

static gboolean
get_unsigned (JsonNode *node,
              guint64  *value)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_INT64 ||
      json_node_get_int (node) < 0)
    return FALSE;
  *value = (guint64) json_node_get_int (node);
  return TRUE;
}

static gboolean
is_type (JsonNode *node,
         GType     type)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

/* The optional "guesses" list (logs written before the lab have none). */
static gboolean
parse_guesses (JsonObject *object,
               GArray     *guesses,
               GError    **error)
{
  JsonNode *member = json_object_get_member (object, "guesses");
  JsonArray *array;

  if (member == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (member))
    return corrupt (error, G_MAXUINT, _("“guesses” is not a list"));
  array = json_node_get_array (member);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      JsonObject *entry;
      GmlGuess guess = { 0 };
      g_autoptr(GDateTime) when = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        return corrupt (error, G_MAXUINT, _("a guess is not an object"));
      entry = json_node_get_object (node);
      if (!is_type (json_object_get_member (entry, "config"), G_TYPE_STRING) ||
          !is_type (json_object_get_member (entry, "time"), G_TYPE_STRING) ||
          !is_type (json_object_get_member (entry, "guess_fits"), G_TYPE_BOOLEAN) ||
          !is_type (json_object_get_member (entry, "fits"), G_TYPE_BOOLEAN) ||
          !get_unsigned (json_object_get_member (entry, "guess_peak_bytes"), &guess.guess_peak) ||
          !get_unsigned (json_object_get_member (entry, "peak_bytes"), &guess.peak))
        return corrupt (error, G_MAXUINT, _("a guess has a field missing or of the wrong type"));
      when = g_date_time_new_from_iso8601 (json_object_get_string_member (entry, "time"), NULL);
      if (when == NULL)
        return corrupt (error, G_MAXUINT, _("the time is not an ISO 8601 date"));
      guess.time = g_date_time_to_unix (when);
      guess.guess_fits = json_object_get_boolean_member (entry, "guess_fits");
      guess.fits = json_object_get_boolean_member (entry, "fits");
      guess.config = g_strdup (json_object_get_string_member (entry, "config"));
      g_array_append_val (guesses, guess);
    }
  return TRUE;
}

/* Replaces the answers with those in @data; on error nothing changes. */
gboolean
gml_progress_parse (GmlProgress *self,
                    const char  *data,
                    gsize        length,
                    GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GArray) answers = g_array_new (FALSE, TRUE, sizeof (GmlAnswer));
  g_autoptr(GArray) guesses = new_guesses ();
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;
  JsonObject *object;
  JsonArray *array;

  g_array_set_clear_func (answers, (GDestroyNotify) clear_answer);

  if (!g_utf8_validate_len (data, length, NULL))
    return corrupt (error, G_MAXUINT, _("the file is not valid UTF-8 text"));
  if (!gml_input_check_json_depth (data, length, GML_MAX_JSON_DEPTH, &local_error))
    return corrupt (error, G_MAXUINT, local_error->message);
  if (!json_parser_load_from_data (parser, data, length, &local_error))
    return corrupt (error, G_MAXUINT, local_error->message);

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return corrupt (error, G_MAXUINT, _("expected an object with an “answers” list"));
  object = json_node_get_object (root);
  if (!json_object_has_member (object, "answers") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (object, "answers")))
    return corrupt (error, G_MAXUINT, _("expected an object with an “answers” list"));

  array = json_object_get_array_member (object, "answers");
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      JsonObject *entry;
      JsonNode *question, *chosen, *correct, *time, *seconds;
      GmlAnswer answer = { 0 };

      if (!JSON_NODE_HOLDS_OBJECT (node))
        return corrupt (error, i, _("not an object"));
      entry = json_node_get_object (node);
      question = json_object_get_member (entry, "question");
      chosen = json_object_get_member (entry, "chosen");
      correct = json_object_get_member (entry, "correct");
      time = json_object_get_member (entry, "time");
      seconds = json_object_get_member (entry, "seconds");

      if (question == NULL || json_node_get_value_type (question) != G_TYPE_STRING ||
          chosen == NULL || json_node_get_value_type (chosen) != G_TYPE_STRING ||
          correct == NULL || json_node_get_value_type (correct) != G_TYPE_BOOLEAN ||
          time == NULL || json_node_get_value_type (time) != G_TYPE_STRING ||
          seconds == NULL || (json_node_get_value_type (seconds) != G_TYPE_DOUBLE &&
                              json_node_get_value_type (seconds) != G_TYPE_INT64))
        return corrupt (error, i, _("a field is missing or has the wrong type"));

      {
        g_autoptr(GDateTime) when = g_date_time_new_from_iso8601 (json_node_get_string (time),
                                                                  NULL);

        if (when == NULL)
          return corrupt (error, i, _("the time is not an ISO 8601 date"));
        answer.time = g_date_time_to_unix (when);
      }

      answer.seconds = json_node_get_double (seconds);
      if (!(answer.seconds >= 0 && answer.seconds < 1e9))
        return corrupt (error, i, _("the time taken is out of range"));

      answer.question = g_strdup (json_node_get_string (question));
      answer.chosen = g_strdup (json_node_get_string (chosen));
      answer.correct = json_node_get_boolean (correct);
      g_array_append_val (answers, answer);
    }

  if (!parse_guesses (object, guesses, error))
    return FALSE;

  g_array_set_size (self->answers, 0);
  g_array_append_vals (self->answers, answers->data, answers->len);
  /* The strings moved into self->answers: forget them here without freeing. */
  g_array_set_clear_func (answers, NULL);
  g_array_set_size (self->guesses, 0);
  g_array_append_vals (self->guesses, guesses->data, guesses->len);
  g_array_set_clear_func (guesses, NULL);
  reindex (self);
  return TRUE;
}

/* A save killed between writing its temporary file and renaming it leaves
 * "progress.json.XXXXXX" behind (g_file_set_contents_full's template). The
 * application is single-instance, so when it loads the log no save is under way and
 * such files are leftovers; the log itself is never among them. */
static void
remove_stale_temporaries (GmlProgress *self)
{
  g_autofree char *dirname = g_path_get_dirname (self->path);
  g_autofree char *basename = g_path_get_basename (self->path);
  g_autoptr(GDir) dir = g_dir_open (dirname, 0, NULL);
  gsize prefix = strlen (basename) + 1;
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      gboolean temporary = strlen (name) == prefix + 6 && g_str_has_prefix (name, basename) &&
                           name[prefix - 1] == '.';

      for (gsize i = prefix; temporary && i < prefix + 6; i++)
        temporary = g_ascii_isalnum (name[i]);
      if (temporary)
        {
          g_autofree char *path = g_build_filename (dirname, name, NULL);

          g_remove (path);
        }
    }
}

/* Loads the log. A missing file is an empty log. A corrupt one is renamed to
 * PATH.corrupt-TIMESTAMP (its name returned in @set_aside), and the log starts empty:
 * the user is told, and nothing they had is deleted. */
gboolean
gml_progress_load (GmlProgress *self,
                   char       **set_aside,
                   GError     **error)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize length = 0;
  gboolean readable;

  if (set_aside != NULL)
    *set_aside = NULL;

  /* Its temporary file is no leftover, and what it writes is what is read. */
  finish_in_flight (self);
  remove_stale_temporaries (self);

  /* A file too big to be a log is set aside like a corrupt one, unread. */
  readable = gml_input_read_file (self->path, GML_MAX_PROGRESS_SIZE, &contents, &length,
                                  &local_error);
  if (!readable && !g_error_matches (local_error, GML_INPUT_ERROR, GML_INPUT_ERROR_TOO_BIG))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_set_error (error, GML_PROGRESS_ERROR, GML_PROGRESS_ERROR_IO,
                   _("Could not read the progress file %s: %s"), self->path, local_error->message);
      return FALSE;
    }

  if (!readable || !gml_progress_parse (self, contents, length, &local_error))
    {
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
      g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%SZ");
      g_autofree char *target = g_strdup_printf ("%s.corrupt-%s", self->path, stamp);

      g_message ("Progress file %s is corrupt: %s", self->path, local_error->message);
      if (g_rename (self->path, target) != 0)
        {
          int saved_errno = errno;

          g_set_error (error, GML_PROGRESS_ERROR, GML_PROGRESS_ERROR_IO,
                       _("The progress file %s is damaged and could not be set aside: %s"),
                       self->path, g_strerror (saved_errno));
          return FALSE;
        }
      g_array_set_size (self->answers, 0);
      g_array_set_size (self->guesses, 0);
      reindex (self);
      if (set_aside != NULL)
        *set_aside = g_steal_pointer (&target);
    }

  return TRUE;
}

char *
gml_progress_serialize (GmlProgress *self,
                        gsize       *length)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "version");
  json_builder_add_int_value (builder, PROGRESS_VERSION);
  json_builder_set_member_name (builder, "answers");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->answers->len; i++)
    {
      const GmlAnswer *answer = &g_array_index (self->answers, GmlAnswer, i);
      g_autoptr(GDateTime) when = g_date_time_new_from_unix_utc (answer->time);
      g_autofree char *iso = g_date_time_format_iso8601 (when);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "question");
      json_builder_add_string_value (builder, answer->question);
      json_builder_set_member_name (builder, "time");
      json_builder_add_string_value (builder, iso);
      json_builder_set_member_name (builder, "chosen");
      json_builder_add_string_value (builder, answer->chosen);
      json_builder_set_member_name (builder, "correct");
      json_builder_add_boolean_value (builder, answer->correct);
      json_builder_set_member_name (builder, "seconds");
      json_builder_add_double_value (builder, answer->seconds);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  if (self->guesses->len > 0)
    {
      json_builder_set_member_name (builder, "guesses");
      json_builder_begin_array (builder);
      for (guint i = 0; i < self->guesses->len; i++)
        {
          const GmlGuess *guess = &g_array_index (self->guesses, GmlGuess, i);
          g_autoptr(GDateTime) when = g_date_time_new_from_unix_utc (guess->time);
          g_autofree char *iso = g_date_time_format_iso8601 (when);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "config");
          json_builder_add_string_value (builder, guess->config);
          json_builder_set_member_name (builder, "time");
          json_builder_add_string_value (builder, iso);
          json_builder_set_member_name (builder, "guess_fits");
          json_builder_add_boolean_value (builder, guess->guess_fits);
          json_builder_set_member_name (builder, "guess_peak_bytes");
          json_builder_add_int_value (builder,
                                      (gint64) MIN (guess->guess_peak, (guint64) G_MAXINT64));
          json_builder_set_member_name (builder, "fits");
          json_builder_add_boolean_value (builder, guess->fits);
          json_builder_set_member_name (builder, "peak_bytes");
          json_builder_add_int_value (builder, (gint64) MIN (guess->peak, (guint64) G_MAXINT64));
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
    }
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  return json_generator_to_data (generator, length);
}

/* Writes @data to @path atomically and durably. Runs on any thread: the error
 * is GLib's, untranslated; take_result() puts it into a sentence on the owner's
 * thread. */
static gboolean
write_file (const char  *path,
            const char  *data,
            gsize        length,
            GError     **error)
{
  g_autofree char *dir = g_path_get_dirname (path);

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                           g_strerror (saved_errno));
      return FALSE;
    }
  return g_file_set_contents_full (path, data, length,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                   0600, error);
}

static void
save_failed (GmlProgress  *self,
             const GError *cause,
             GError      **error)
{
  g_set_error (error, GML_PROGRESS_ERROR, GML_PROGRESS_ERROR_IO,
               _("Could not save progress to %s: %s"), self->path, cause->message);
}

static void
save_job_free (SaveJob *job)
{
  g_clear_pointer (&job->path, g_free);
  g_clear_pointer (&job->data, g_free);
  g_clear_error (&job->error);
  g_mutex_clear (&job->mutex);
  g_cond_clear (&job->cond);
  g_free (job);
}

static void
save_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  SaveJob *job = task_data;
  GError *error = NULL;

  write_file (job->path, job->data, job->length, &error);
  g_mutex_lock (&job->mutex);
  job->error = error;
  job->done = TRUE;
  g_cond_broadcast (&job->cond);
  g_mutex_unlock (&job->mutex);
  g_task_return_boolean (task, TRUE);
}

/* Waits for the write in flight to end and takes its result. The job itself is
 * freed with its task, once the task's callback ran. Returns its error, in a
 * sentence, or NULL. */
static GError *
take_result (GmlProgress *self)
{
  SaveJob *job = g_steal_pointer (&self->job);
  GError *error = NULL;

  g_mutex_lock (&job->mutex);
  while (!job->done)
    g_cond_wait (&job->cond, &job->mutex);
  g_mutex_unlock (&job->mutex);

  job->owner = NULL;
  self->n_writes++;
  if (job->error != NULL)
    {
      save_failed (self, job->error, &error);
      /* What it carried is still only in memory. */
      self->dirty = TRUE;
    }
  return error;
}

static void start_write (GmlProgress *self);

static void
save_done_cb (GObject      *source_object,
              GAsyncResult *result,
              gpointer      user_data)
{
  SaveJob *job = g_task_get_task_data (G_TASK (result));
  GmlProgress *self = job->owner;
  g_autoptr(GError) error = NULL;

  /* A flush took the result already (and maybe the progress is gone). */
  if (self == NULL)
    return;
  error = take_result (self);
  if (error != NULL)
    {
      /* No retry of its own: a failing disk would be written to in a loop. The
       * next change, or the flush at exit, writes everything. */
      if (self->failed_func != NULL)
        self->failed_func (self, error, self->failed_data);
      else
        g_message ("%s", error->message);
      return;
    }
  /* Changes made during the write: one more write, of the newest state. */
  if (self->dirty)
    start_write (self);
}

static void
start_write (GmlProgress *self)
{
  g_autoptr(GTask) task = NULL;
  SaveJob *job = g_new0 (SaveJob, 1);

  g_assert (self->job == NULL);
  g_mutex_init (&job->mutex);
  g_cond_init (&job->cond);
  job->owner = self;
  job->path = g_strdup (self->path);
  job->data = gml_progress_serialize (self, &job->length);
  self->job = job;
  self->dirty = FALSE;

  task = g_task_new (NULL, NULL, save_done_cb, NULL);
  g_task_set_source_tag (task, start_write);
  g_task_set_task_data (task, job, (GDestroyNotify) save_job_free);
  g_task_run_in_thread (task, save_thread);
}

/* Waits for a background write under way, so that nothing else writes, reads or
 * replaces the file meanwhile. Its error does not matter to the caller, which
 * writes everything again or reads what is on disk. */
static void
finish_in_flight (GmlProgress *self)
{
  if (self->job != NULL)
    {
      g_autoptr(GError) error = take_result (self);

      if (error != NULL)
        g_debug ("%s", error->message);
    }
}

/* Saves now, on this thread, after any background write under way. */
gboolean
gml_progress_save (GmlProgress *self,
                   GError     **error)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize length = 0;

  finish_in_flight (self);
  data = gml_progress_serialize (self, &length);
  self->n_writes++;
  if (!write_file (self->path, data, length, &local_error))
    {
      self->dirty = TRUE;
      save_failed (self, local_error, error);
      return FALSE;
    }
  self->dirty = FALSE;
  return TRUE;
}

/* With @background, changes (answers, guesses) are saved by a worker thread and
 * the calls that make them return at once; a failure is reported to @failed_func
 * on this thread's main context. Undo and reset still save before they return,
 * since they undo themselves when saving fails. Turning background saves off
 * flushes. */
void
gml_progress_set_background_saves (GmlProgress               *self,
                                   gboolean                   background,
                                   GmlProgressSaveFailedFunc  failed_func,
                                   gpointer                   user_data)
{
  if (!background && self->background)
    {
      g_autoptr(GError) error = NULL;

      if (!gml_progress_flush (self, &error))
        g_message ("%s", error->message);
    }
  self->background = background;
  self->failed_func = background ? failed_func : NULL;
  self->failed_data = background ? user_data : NULL;
}

/* Waits for the background write under way and writes the changes it did not
 * carry: once this returns TRUE the file holds everything in memory. */
gboolean
gml_progress_flush (GmlProgress *self,
                    GError     **error)
{
  finish_in_flight (self);
  if (!self->dirty)
    return TRUE;
  return gml_progress_save (self, error);
}

/* Whether changes are in memory that the file does not hold yet (a write under
 * way, or one still to come). */
gboolean
gml_progress_has_pending_save (GmlProgress *self)
{
  return self->job != NULL || self->dirty;
}

/* How many times the log was written (or a write was tried), in the background
 * or not. */
guint
gml_progress_get_n_writes (GmlProgress *self)
{
  return self->n_writes;
}

/* A change to save: now, or in the background. */
static gboolean
changed (GmlProgress *self,
         GError     **error)
{
  if (!self->background)
    return gml_progress_save (self, error);
  self->dirty = TRUE;
  if (self->job == NULL)
    start_write (self);
  return TRUE;
}

/* Appends an answer and saves (or, with background saves, hands the log to the
 * worker and returns). If saving fails the answer stays in memory and the next save
 * writes it. */
gboolean
gml_progress_record (GmlProgress *self,
                     const char  *question,
                     const char  *chosen,
                     gboolean     correct,
                     double       seconds,
                     gint64       time,
                     GError     **error)
{
  GmlAnswer answer = {
    .question = g_strdup (question),
    .time = time,
    .chosen = g_strdup (chosen),
    .correct = correct,
    .seconds = MAX (seconds, 0.0),
  };

  g_array_append_val (self->answers, answer);
  g_hash_table_insert (self->last,
                       g_array_index (self->answers, GmlAnswer, self->answers->len - 1).question,
                       GUINT_TO_POINTER (self->answers->len));
  return changed (self, error);
}

/* Appends a guess and saves. If saving fails the guess stays in memory and the
 * next save writes it. */
gboolean
gml_progress_record_guess (GmlProgress *self,
                           const char  *config,
                           gboolean     guess_fits,
                           guint64      guess_peak,
                           gboolean     fits,
                           guint64      peak,
                           gint64       time,
                           GError     **error)
{
  GmlGuess guess = {
    .config = g_strdup (config != NULL ? config : ""),
    .time = time,
    .guess_fits = guess_fits,
    .guess_peak = MIN (guess_peak, (guint64) G_MAXINT64),
    .fits = fits,
    .peak = MIN (peak, (guint64) G_MAXINT64),
  };

  g_array_append_val (self->guesses, guess);
  return changed (self, error);
}

guint
gml_progress_get_n_guesses (GmlProgress *self)
{
  return self->guesses->len;
}

const GmlGuess *
gml_progress_get_guess (GmlProgress *self,
                        guint        index)
{
  g_return_val_if_fail (index < self->guesses->len, NULL);
  return &g_array_index (self->guesses, GmlGuess, index);
}

guint
gml_progress_get_n_answers (GmlProgress *self)
{
  return self->answers->len;
}

const GmlAnswer *
gml_progress_get_answer (GmlProgress *self,
                         guint        index)
{
  g_return_val_if_fail (index < self->answers->len, NULL);
  return &g_array_index (self->answers, GmlAnswer, index);
}

const GmlAnswer *
gml_progress_last_for (GmlProgress *self,
                       const char  *question)
{
  guint index = GPOINTER_TO_UINT (g_hash_table_lookup (self->last, question));

  return index == 0 ? NULL : &g_array_index (self->answers, GmlAnswer, index - 1);
}

/* Removes the last answer ("undo") and saves. @question receives the id of the
 * question it answered. If saving fails, the answer is put back, so what the app
 * shows never differs from what a restart would show. */
gboolean
gml_progress_remove_last (GmlProgress *self,
                          char       **question,
                          GError     **error)
{
  GmlAnswer removed;

  if (question != NULL)
    *question = NULL;
  if (self->answers->len == 0)
    {
      g_set_error (error, GML_PROGRESS_ERROR, GML_PROGRESS_ERROR_IO, "%s",
                   _("There is no answer to undo."));
      return FALSE;
    }

  removed = g_array_index (self->answers, GmlAnswer, self->answers->len - 1);
  /* Take the strings out first so the array's clear function does not free them. */
  g_array_index (self->answers, GmlAnswer, self->answers->len - 1) = (GmlAnswer) { 0 };
  g_array_set_size (self->answers, self->answers->len - 1);
  reindex (self);

  if (!gml_progress_save (self, error))
    {
      g_array_append_val (self->answers, removed);
      reindex (self);
      return FALSE;
    }

  if (question != NULL)
    *question = g_steal_pointer (&removed.question);
  clear_answer (&removed);
  return TRUE;
}

/* Empties the log and saves. The old log is first written next to it as
 * PATH.reset-TIMESTAMP (its name returned in @backup; NULL when the log was empty),
 * so a reset by mistake can be undone by hand. */
gboolean
gml_progress_reset (GmlProgress *self,
                    char       **backup,
                    GError     **error)
{
  g_autofree char *target = NULL;
  g_autoptr(GArray) old = NULL;
  g_autoptr(GArray) old_guesses = NULL;

  if (backup != NULL)
    *backup = NULL;

  if (self->answers->len > 0 || self->guesses->len > 0)
    {
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
      g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%SZ");
      g_autofree char *dir = g_path_get_dirname (self->path);
      g_autofree char *data = NULL;
      g_autoptr(GError) local_error = NULL;
      gsize length = 0;

      target = g_strdup_printf ("%s.reset-%s", self->path, stamp);
      for (guint n = 2; g_file_test (target, G_FILE_TEST_EXISTS); n++)
        {
          g_free (target);
          target = g_strdup_printf ("%s.reset-%s-%u", self->path, stamp, n);
        }

      data = gml_progress_serialize (self, &length);
      if (g_mkdir_with_parents (dir, 0700) != 0 ||
          !g_file_set_contents_full (target, data, length,
                                     G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                     0600, &local_error))
        {
          g_set_error (error, GML_PROGRESS_ERROR, GML_PROGRESS_ERROR_IO,
                       _("Could not keep a copy of the answer log as %s: %s"), target,
                       local_error != NULL ? local_error->message : g_strerror (errno));
          return FALSE;
        }
    }

  /* Keep the old answers and guesses until the empty log is safely on disk. */
  old = self->answers;
  old_guesses = self->guesses;
  self->answers = g_array_new (FALSE, TRUE, sizeof (GmlAnswer));
  g_array_set_clear_func (self->answers, (GDestroyNotify) clear_answer);
  self->guesses = new_guesses ();
  reindex (self);
  if (!gml_progress_save (self, error))
    {
      g_array_unref (self->answers);
      g_array_unref (self->guesses);
      self->answers = g_steal_pointer (&old);
      self->guesses = g_steal_pointer (&old_guesses);
      reindex (self);
      return FALSE;
    }

  if (backup != NULL)
    *backup = g_steal_pointer (&target);
  return TRUE;
}

/* gml-progress.h — the answer log, kept atomically under the XDG data directory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define GML_PROGRESS_ERROR (gml_progress_error_quark ())

typedef enum
{
  GML_PROGRESS_ERROR_CORRUPT,
  GML_PROGRESS_ERROR_IO,
} GmlProgressError;

typedef struct
{
  char     *question;   /* question id */
  gint64    time;       /* unix seconds, UTC */
  char     *chosen;     /* source option id, stable under shuffling */
  gboolean  correct;
  double    seconds;    /* time taken to answer */
} GmlAnswer;

/* A guess made in the experiment lab before a run ("Predict, then run"). */
typedef struct
{
  char     *config;       /* the configuration as command-line knobs */
  gint64    time;         /* unix seconds, UTC */
  gboolean  guess_fits;
  guint64   guess_peak;   /* bytes */
  gboolean  fits;         /* what the run said */
  guint64   peak;         /* its peak allocated bytes */
} GmlGuess;

typedef struct _GmlProgress GmlProgress;

/* A background save failed: @error says why, in the language in effect. The
 * changes stay in memory and the next save writes them. */
typedef void (*GmlProgressSaveFailedFunc) (GmlProgress  *progress,
                                           const GError *error,
                                           gpointer      user_data);

GQuark           gml_progress_error_quark (void);

char            *gml_progress_default_path (void);
GmlProgress     *gml_progress_new          (const char   *path);
void             gml_progress_free         (GmlProgress  *self);
const char      *gml_progress_get_path     (GmlProgress  *self);
gboolean         gml_progress_load         (GmlProgress  *self,
                                            char        **set_aside,
                                            GError      **error);
gboolean         gml_progress_save         (GmlProgress  *self,
                                            GError      **error);
void             gml_progress_set_background_saves (GmlProgress               *self,
                                                    gboolean                   background,
                                                    GmlProgressSaveFailedFunc  failed_func,
                                                    gpointer                   user_data);
gboolean         gml_progress_flush        (GmlProgress  *self,
                                            GError      **error);
gboolean         gml_progress_has_pending_save (GmlProgress *self);
guint            gml_progress_get_n_writes (GmlProgress  *self);
gboolean         gml_progress_record       (GmlProgress  *self,
                                            const char   *question,
                                            const char   *chosen,
                                            gboolean      correct,
                                            double        seconds,
                                            gint64        time,
                                            GError      **error);
guint            gml_progress_get_n_answers (GmlProgress *self);
const GmlAnswer *gml_progress_get_answer   (GmlProgress  *self,
                                            guint         index);
const GmlAnswer *gml_progress_last_for     (GmlProgress  *self,
                                            const char   *question);
/* Appends a guess and saves, like an answer (guesses are no answers: the
 * Leitner boxes, statistics and undo leave them alone). */
gboolean         gml_progress_record_guess (GmlProgress  *self,
                                            const char   *config,
                                            gboolean      guess_fits,
                                            guint64       guess_peak,
                                            gboolean      fits,
                                            guint64       peak,
                                            gint64        time,
                                            GError      **error);
guint            gml_progress_get_n_guesses (GmlProgress *self);
const GmlGuess  *gml_progress_get_guess    (GmlProgress  *self,
                                            guint         index);
gboolean         gml_progress_remove_last  (GmlProgress  *self,
                                            char        **question,
                                            GError      **error);
gboolean         gml_progress_reset        (GmlProgress  *self,
                                            char        **backup,
                                            GError      **error);
char            *gml_progress_serialize    (GmlProgress  *self,
                                            gsize        *length);
gboolean         gml_progress_parse        (GmlProgress  *self,
                                            const char   *data,
                                            gsize         length,
                                            GError      **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlProgress, gml_progress_free)

G_END_DECLS

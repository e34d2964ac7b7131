/* gml-question-bank.h — loading, validating, translating and shuffling questions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "gml-picture-script.h"

G_BEGIN_DECLS

#define GML_N_OPTIONS 4
#define GML_BANK_ERROR (gml_bank_error_quark ())

typedef enum
{
  GML_BANK_ERROR_PARSE,
  GML_BANK_ERROR_INVALID,
} GmlBankError;

/* Source strings (English); translation happens when a string is shown. */
typedef struct
{
  char     *id;        /* "a".."d" in the source file; stable under shuffling */
  char     *text;
  char     *feedback;
  gboolean  correct;
} GmlOption;

/* Where a learner can read up on a question: a document's title and where to find it,
 * as written in the bank: an https:// address, an arXiv id ("arXiv:1910.02054") or a
 * file of PyTorch's repository ("pytorch/pytorch/c10/cuda/CUDACachingAllocator.cpp").
 * Titles name documents, which are in English, and are not translated. */
typedef struct
{
  char     *title;
  char     *url;
} GmlSource;

#define GML_MAX_SOURCES 16

typedef struct
{
  char             *id;
  char             *topic;
  char             *scenario;
  GmlSource        *sources;        /* n_sources of them; NULL when the bank names none */
  guint             n_sources;
  /* The question's own picture script (the bank's "experiment"); its scenario's
   * default when the bank names none. */
  GmlPictureScript *picture_script;
  char             *text;
  char             *explanation;    /* may name options as {a}..{d} */
  char             *origin;         /* the file it came from */
  int               difficulty;     /* 1..3 */
  gboolean          builtin;        /* its strings are in the lab's gettext catalogue */
  GmlOption         options[GML_N_OPTIONS];
} GmlQuestion;

typedef struct _GmlQuestionBank GmlQuestionBank;

GQuark             gml_bank_error_quark            (void);

GmlQuestionBank   *gml_question_bank_new           (void);
void               gml_question_bank_free          (GmlQuestionBank    *self);
gboolean           gml_question_bank_load_data     (GmlQuestionBank    *self,
                                                    const char         *data,
                                                    gsize               length,
                                                    const char         *origin,
                                                    gboolean            builtin,
                                                    GError            **error);
gboolean           gml_question_bank_load_file     (GmlQuestionBank    *self,
                                                    GFile              *file,
                                                    gboolean            builtin,
                                                    GError            **error);
gboolean           gml_question_bank_take_all      (GmlQuestionBank    *self,
                                                    GmlQuestionBank    *other,
                                                    GError            **error);
gboolean           gml_question_bank_load_builtin  (GmlQuestionBank    *self,
                                                    GError            **error);
guint              gml_question_bank_load_user_dir (GmlQuestionBank    *self,
                                                    const char         *directory,
                                                    GPtrArray          *errors);
guint              gml_question_bank_get_n_questions (GmlQuestionBank  *self);
const GmlQuestion *gml_question_bank_get           (GmlQuestionBank    *self,
                                                    guint               index);
const GmlQuestion *gml_question_bank_lookup        (GmlQuestionBank    *self,
                                                    const char         *id);
int                gml_question_bank_index_of      (GmlQuestionBank    *self,
                                                    const char         *id);
GPtrArray         *gml_question_bank_dup_topics    (GmlQuestionBank    *self);
GArray            *gml_question_bank_filter        (GmlQuestionBank    *self,
                                                    const char         *topic,
                                                    int                 difficulty);

char              *gml_user_questions_dir          (void);

gboolean           gml_scenario_is_known           (const char         *scenario);

/* Translation of one of a question's strings (the lab's catalogue for built-in
 * questions, the text as written for a user's own banks). */
const char        *gml_question_translate          (const GmlQuestion  *question,
                                                    const char         *source);

/* order[shown] = index of the source option shown at position `shown`. */
void               gml_question_shuffle_order      (guint               order[GML_N_OPTIONS],
                                                    GRand              *rand);
void               gml_question_identity_order     (guint               order[GML_N_OPTIONS]);
guint              gml_question_correct_position   (const GmlQuestion  *question,
                                                    const guint         order[GML_N_OPTIONS]);
char              *gml_question_format             (const GmlQuestion  *question,
                                                    const char         *source,
                                                    const guint         order[GML_N_OPTIONS]);
char               gml_option_letter               (guint               shown);

gboolean           gml_source_url_is_valid         (const char         *url);
char              *gml_source_dup_link             (const GmlSource    *source);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlQuestionBank, gml_question_bank_free)

G_END_DECLS

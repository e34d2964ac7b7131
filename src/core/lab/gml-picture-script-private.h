/* gml-picture-script-private.h — the kinds' table and their parameters.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-picture-script.h"
#include "gml-script-private.h"

G_BEGIN_DECLS

#define GML_PICTURE_SCRIPT_MAX_PARAMS 8

typedef enum
{
  GML_PARAM_SIZE,     /* bytes: a number, or a string with a unit */
  GML_PARAM_COUNT,    /* a whole number */
  GML_PARAM_CHOICE,   /* one of the words in choices, "a|b|c" */
  GML_PARAM_BOOL,
  GML_PARAM_TEXT,     /* a string, checked by the kind (the lab's knobs) */
} GmlParamType;

typedef struct
{
  const char   *name;
  GmlParamType  type;
  const char   *def;       /* the default, as the bank would write it; NULL: required */
  guint64       min;       /* sizes and counts */
  guint64       max;
  const char   *choices;
} GmlParamDef;

/* What makes a kind one of the named scenarios ("gpu-memory-lab render oom",
 * a question's "scenario"). Both ways of running one start from this row:
 * gml_scenario_new() tells the story on the whole device with the kind's
 * defaults, so every parameter of such a kind has one; the kind's script tells
 * it in the lab's arena with the question's numbers, then points at what the
 * question asks. All zero for the other kinds. */
typedef struct
{
  const char  *title;        /* N_() */
  GmlView      focus_view;
  guint        extra_views;  /* 1 << GmlView for each view shown besides the usual ones */
  void       (*story) (GmlScript *r, const GmlPictureScript *e);
} GmlScenarioDef;

typedef struct _GmlKindDef GmlKindDef;

struct _GmlKindDef
{
  const char     *name;
  GmlParamDef     params[GML_PICTURE_SCRIPT_MAX_PARAMS];
  void          (*script) (GmlScript *r, const GmlPictureScript *e);
  /* Rules between parameters; sets *field and *reason and returns FALSE. */
  gboolean      (*check)  (const GmlPictureScript *e, char **field, char **reason);
  GmlScenarioDef  scenario;  /* story NULL: not a named scenario */
};

struct _GmlPictureScript
{
  const GmlKindDef *kind;
  guint64           values[GML_PICTURE_SCRIPT_MAX_PARAMS]; /* choices: the word's index */
  gboolean          given[GML_PICTURE_SCRIPT_MAX_PARAMS];  /* written in the bank, not defaulted */
  gboolean          decimal;                               /* a size was written in kB, MB, GB */
  char             *texts[GML_PICTURE_SCRIPT_MAX_PARAMS];  /* text parameters, else NULL */
};

guint64     _gml_picture_script_value          (const GmlPictureScript *e,
                                                const char             *name);
gboolean    _gml_picture_script_given          (const GmlPictureScript *e,
                                                const char             *name);
/* A text parameter. */
const char *_gml_picture_script_text           (const GmlPictureScript *e,
                                                const char             *name);
/* The chosen word of a choice parameter. */
gboolean    _gml_picture_script_is             (const GmlPictureScript *e,
                                                const char             *name,
                                                const char             *word);

/* A named scenario's first step, the same whichever way it runs: its title and
 * views, a run of @capacity (0: the scenario's whole device), and the start
 * with nothing allocated. @e is of a kind with a story. */
void        _gml_picture_script_begin_scenario (GmlScript              *r,
                                                const GmlPictureScript *e,
                                                guint64                 capacity);

/* The kinds (gml-picture-scripts.c); gml_scenario_names() lists the named
 * scenarios in their order. */
extern const GmlKindDef _gml_picture_script_kind_defs[];
extern const guint      _gml_picture_script_n_kind_defs;

G_END_DECLS

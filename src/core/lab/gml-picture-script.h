/* gml-picture-script.h — every question's own picture script: a kind and its parameters.
 *
 * A question names a picture script in the bank:
 *
 *   "experiment": { "kind": "segment-size", "request": "3 MiB" }
 *
 * The kind is a script that drives the caching allocator (on the device the lab
 * has, or an arena of the question's size inside it); the parameters are the
 * question's own numbers. Everything the picture then says is read from the
 * engine. Sizes are a number of bytes or a string with a unit ("3 MiB",
 * "20.00 MiB", "6 GB"); counts are whole numbers; a choice is one of the kind's
 * words ("point": which moment of the picture script the question is about).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gml-scenario.h"

G_BEGIN_DECLS

typedef struct _GmlPictureScript GmlPictureScript;

/* The kinds, in the order the documentation lists them. */
const char * const *gml_picture_script_kinds          (void);
gboolean            gml_picture_script_kind_is_known  (const char             *kind);

/* Reads and validates { "kind": …, parameters… }. On failure returns NULL, with
 * *field the member at fault ("experiment", "experiment.request") and *reason a
 * translated sentence saying what is wrong. */
GmlPictureScript   *gml_picture_script_new_from_json  (JsonNode               *node,
                                                       char                  **field,
                                                       char                  **reason);
/* The picture script of a question that names none: its scenario's, with the
 * defaults (imported GIFT, Moodle XML and Aiken questions, older user banks). */
GmlPictureScript   *gml_picture_script_new_default    (const char             *scenario);
GmlPictureScript   *gml_picture_script_copy           (const GmlPictureScript *self);
void                gml_picture_script_free           (GmlPictureScript       *self);

const char         *gml_picture_script_get_kind       (const GmlPictureScript *self);
/* "segment-size request=3145728": the kind and every parameter, defaults
 * included, in a fixed order (equal strings, equal picture scripts). */
char               *gml_picture_script_to_string      (const GmlPictureScript *self);
/* The parameters as the bank writes them (for export and --json). */
void                gml_picture_script_to_json        (const GmlPictureScript *self,
                                                       JsonBuilder            *builder);

/* The knobs of a "lab" picture script ("--model gpt2 --batch 8"), NULL for other kinds. */
const char         *gml_picture_script_get_lab_config (const GmlPictureScript *self);

/* Runs the picture script on @device (the scenario holds a reference). */
GmlScenario *gml_scenario_new_picture_script             (const GmlPictureScript *self,
                                                          GmlDevice              *device,
                                                          GError                **error);
/* The same, on *@fallback once it is set; when @device fails in the middle (a
 * CUDA call, not a full memory) it sets *@fallback to a simulator, runs the
 * picture script there and puts the GPU's complaint in *@why. The caller keeps
 * *@fallback for its next picture scripts and frees both. */
GmlScenario *gml_scenario_new_picture_script_or_simulate (const GmlPictureScript *self,
                                                          GmlDevice              *device,
                                                          GmlDevice             **fallback,
                                                          char                  **why,
                                                          GError                **error);

/* gml_scenario_new_picture_script_or_simulate() in a worker thread. @device may
 * be NULL when @fallback is given. The device is held for the whole run
 * (gml_device_begin_run()), so runs on one device come one after another.
 * The run works on a copy of @self; once @cancellable is cancelled, a run that
 * has not started yet does not start. */
void         gml_scenario_new_picture_script_async       (gpointer                source_object,
                                                          const GmlPictureScript *self,
                                                          GmlDevice              *device,
                                                          GmlDevice              *fallback,
                                                          GCancellable           *cancellable,
                                                          GAsyncReadyCallback     callback,
                                                          gpointer                user_data);
/* The scenario, or NULL and @error. *@fallback (if asked) is the simulator the
 * run ended on, the caller's or a new one after a CUDA failure, with *@why the
 * GPU's complaint then; NULL when the GPU did the run. */
GmlScenario *gml_scenario_new_picture_script_finish      (GAsyncResult           *result,
                                                          GmlDevice             **fallback,
                                                          char                  **why,
                                                          GError                **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GmlPictureScript, gml_picture_script_free)

G_END_DECLS

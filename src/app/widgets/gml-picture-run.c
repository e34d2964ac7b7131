/* gml-picture-run.c — a question's picture script run in a worker for a widget that
 * shows it.
 *
 * The device is not thread-safe: a run holds it to itself (gml_device_begin_run(),
 * taken by gml_scenario_new_picture_script()), so the runs of the quiz's panel, the
 * projector's window and the lab's live run come one after the other. The widget
 * is handed to the run as a weak reference, so that closing it disposes it at once
 * and its dispose cancels the run (gml_picture_run_cancel()); its callback takes
 * the reference back (gml_weak_ref_steal()), finishes the run, and asks
 * gml_picture_run_end() whether the result is still the one it waits for: another
 * question, device or language since has cancelled it and started another.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "gml-picture-run.h"
#include "gml-weak-ref.h"

/* Whether the picture script @key is the run under way. */
gboolean
gml_picture_run_is_running (const GmlPictureRun *run,
                            const char          *key)
{
  return run->cancellable != NULL && g_strcmp0 (run->key, key) == 0;
}

/* Cancels the run under way, if any, and starts @script, whose string is @key, on
 * @device (@fallback: the simulated device a failing GPU gave way to, or NULL);
 * @callback gets a weak reference to @owner as its user data. */
void
gml_picture_run_start (GmlPictureRun          *run,
                       gpointer                owner,
                       const GmlPictureScript *script,
                       const char             *key,
                       GmlDevice              *device,
                       GmlDevice              *fallback,
                       GAsyncReadyCallback     callback)
{
  gml_picture_run_cancel (run);
  run->cancellable = g_cancellable_new ();
  run->key = g_strdup (key);
  gml_scenario_new_picture_script_async (NULL, script, device, fallback, run->cancellable,
                                         callback, gml_weak_ref_new (owner));
}

/* In the callback: whether @result is the run under way. If it is, that run is over
 * and @key gets its picture script's string; if not, the caller frees what the run
 * made and forgets it. */
gboolean
gml_picture_run_end (GmlPictureRun  *run,
                     GAsyncResult   *result,
                     char          **key)
{
  if (run->cancellable == NULL || g_task_get_cancellable (G_TASK (result)) != run->cancellable)
    return FALSE;
  g_clear_object (&run->cancellable);
  *key = g_steal_pointer (&run->key);
  return TRUE;
}

/* Cancels the run under way, if any: its callback will be told it is not current. */
void
gml_picture_run_cancel (GmlPictureRun *run)
{
  if (run->cancellable != NULL)
    g_cancellable_cancel (run->cancellable);
  g_clear_object (&run->cancellable);
  g_clear_pointer (&run->key, g_free);
}

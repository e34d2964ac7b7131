/* gml-application.c — loads the bank and the answer log once, opens windows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-application"

#include "config.h"


#include "gml-application.h"
#include "gml-audience-server.h"
#include "gml-i18n.h"
#include "gml-preferences-window.h"
#include "gml-renderer.h"
#include "gml-window.h"

struct _GmlApplication
{
  AdwApplication   parent_instance;

  GSettings       *settings;
  GmlQuestionBank *bank;
  GmlProgress     *progress;
  GPtrArray       *startup_messages;   /* translated sentences for the first window's toasts */
  GmlDevice       *device;             /* a reference, opened on first use; scenarios hold their own
                                        */
  char            *device_reason;      /* why it is simulated, or NULL */
  guint            language_generation; /* one more at each change: a re-worded reason is
                                         * kept only if none came since it was asked */
  GThread         *opening_thread;     /* opens the device at start-up, off the main loop */
  struct _DeviceOpening *opening;      /* its result, until taken */
  gboolean         device_awaited;     /* someone asked while it was opening: say when it is open */
  guint            device_settle_id;   /* the backend settings changed: rebuild when they settle */
  GtkCssProvider  *look_provider;      /* zoom of the main window, forced high contrast */
  char            *software_gl;        /* Mesa's software rasterizer, if Cairo was chosen over it */
  gboolean         no_direct_rendering; /* Cairo chosen, OpenGL left out: only software here */
  char           **watch_command;      /* `watch -- COMMAND`, until the window takes it */
  double           watch_interval;
  char            *watch_snapshot_dir;
  int              watch_status;
  int              audience_port;      /* --audience-port, or GML_AUDIENCE_DEFAULT_PORT */
};

enum {
  LANGUAGE_CHANGED,
  DEVICE_CHANGED,
  MESSAGE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GmlApplication, gml_application, ADW_TYPE_APPLICATION)

GmlApplication *
gml_application_new (void)
{
  return g_object_new (GML_TYPE_APPLICATION,
                       "application-id", APPLICATION_ID,
                       /* gpu-memory-lab FILE.pickle, from a terminal or a file manager. */
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", RESOURCE_BASE,
                       NULL);
}

GmlApplication *
gml_application_new_for_watch (char       **command,
                               double       interval,
                               const char  *snapshot_dir)
{
  /* Not unique: this instance runs one program and ends with it, whatever
   * other window of the lab is open. */
  GmlApplication *self = g_object_new (GML_TYPE_APPLICATION,
                                       "application-id", APPLICATION_ID,
                                       "flags", G_APPLICATION_NON_UNIQUE,
                                       "resource-base-path", RESOURCE_BASE,
                                       NULL);

  self->watch_command = g_strdupv (command);
  self->watch_interval = interval;
  self->watch_snapshot_dir = g_strdup (snapshot_dir);
  return self;
}

int
gml_application_get_watch_status (GmlApplication *self)
{
  g_return_val_if_fail (GML_IS_APPLICATION (self), 0);
  return self->watch_status;
}

void
_gml_application_set_watch_status (GmlApplication *self,
                                   int             status)
{
  g_return_if_fail (GML_IS_APPLICATION (self));
  self->watch_status = status;
}

char **
_gml_application_steal_watch_command (GmlApplication  *self,
                                      double          *interval,
                                      char           **snapshot_dir)
{
  g_return_val_if_fail (GML_IS_APPLICATION (self), NULL);
  *interval = self->watch_interval;
  *snapshot_dir = g_steal_pointer (&self->watch_snapshot_dir);
  return g_steal_pointer (&self->watch_command);
}

/* The device's lines of the debugging information. */
static void
append_device_info (GString    *out,
                    GmlDevice  *device,
                    const char *reason)
{
  guint64 free_bytes = 0, total = 0;

  g_string_append_printf (out, "%s: %s (%s)\n", _("Device"), gml_device_get_name (device),
                          gml_device_get_id (device));
  if (gml_device_mem_get_info (device, &free_bytes, &total, NULL))
    {
      g_autofree char *t = gml_format_size_short (total);
      g_autofree char *f = gml_format_size_short (free_bytes);

      g_string_append_printf (out, "%s: %s, %s: %s\n", _("Total memory"), t, _("free"), f);
    }
  if (gml_device_get_budget (device) > 0)
    {
      g_autofree char *b = gml_format_size_short (gml_device_get_budget (device));

      g_string_append_printf (out, "%s: %s\n", _("The lab’s budget"), b);
    }
  if (g_str_equal (gml_device_get_id (device), "cuda"))
    g_string_append_printf (out, "%s\n", _("The pictures run on this GPU’s real memory."));
  else
    g_string_append_printf (out, "%s: %s\n", _("Why the GPU is simulated"),
                            reason != NULL ? reason
                                           : _("The simulator was chosen in the preferences."));
}

/* About › Troubleshooting: what a bug report needs, why no GPU is used, and
 * what draws @window. */
static char *
debug_info (GmlApplication *self,
            GtkWindow      *window)
{
  GString *out = g_string_new (NULL);
  const char *reason = NULL;
  /* Not gml_application_get_device(): About must not wait for a driver's cuInit. */
  GmlDevice *device = gml_application_peek_device (self, &reason);
  g_autofree char *backend = g_settings_get_string (self->settings, "backend");
  GskRenderer *renderer;

  g_string_append_printf (out, "GPU Memory Lab %s\n", PACKAGE_VERSION);
  g_string_append_printf (out, "GTK %u.%u.%u, libadwaita %u.%u.%u, GLib %u.%u.%u\n",
                          gtk_get_major_version (), gtk_get_minor_version (),
                          gtk_get_micro_version (),
                          adw_get_major_version (), adw_get_minor_version (),
                          adw_get_micro_version (),
                          glib_major_version, glib_minor_version, glib_micro_version);
  g_string_append_printf (out, "%s: %s\n", _("Backend setting"), backend);
  if (device == NULL)
    g_string_append_printf (out, "%s: %s\n", _("Device"),
                            _("still opening (the driver is starting)"));
  else
    append_device_info (out, device, reason);
  renderer = window != NULL ? gtk_native_get_renderer (GTK_NATIVE (window)) : NULL;
  if (renderer != NULL)
    {
      g_string_append_printf (out, "%s: %s", _("Renderer"), G_OBJECT_TYPE_NAME (renderer));
      if (self->no_direct_rendering)
        {
          g_string_append (out, " (");
          g_string_append (out, _("Cairo was chosen because this X server offers no direct "
                                  "rendering, neither DRI3, DRI2 nor NVIDIA's GLX: its OpenGL "
                                  "could only be a software rasterizer"));
          g_string_append_c (out, ')');
        }
      else if (self->software_gl != NULL)
        {
          g_string_append (out, " (");
          /* Translators: %s is Mesa's name for it, such as "llvmpipe (LLVM 15.0.6, 256 bits)". */
          g_string_append_printf (out,
                                  _("Cairo was chosen because OpenGL here is a software "
                                    "rasterizer: %s"),
                                  self->software_gl);
          g_string_append_c (out, ')');
        }
      g_string_append_c (out, '\n');
    }
  g_string_append_printf (out, "LANGUAGE=%s LANG=%s\n",
                          g_getenv ("LANGUAGE") ? g_getenv ("LANGUAGE") : "",
                          g_getenv ("LANG") ? g_getenv ("LANG") : "");
  return g_string_free (out, FALSE);
}

static void
gml_application_about_cb (GSimpleAction *action,
                          GVariant      *parameter,
                          gpointer       user_data)
{
  GmlApplication *self = user_data;
  static const char *developers[] = { "The GPU Memory Lab developers", NULL };
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));
  g_autofree char *debug = debug_info (self, window);

  adw_show_about_window (window,
                         "application-name", _("GPU Memory Lab"),
                         "application-icon", APPLICATION_ID,
                         "version", PACKAGE_VERSION,
                         "developer-name", _("The GPU Memory Lab developers"),
                         "developers", developers,
                         "comments", _("Learn how GPU memory really behaves: out-of-memory errors, "
                                       "the caching allocator, mixed precision, checkpointing and "
                                       "fragmentation."),
                         "website", "https://github.com/gpumemorylab/gpu-memory-lab",
                         "issue-url", "https://github.com/gpumemorylab/gpu-memory-lab/issues",
                         "license-type", GTK_LICENSE_GPL_3_0,
                         /* Translators: put your names here, one per line. */
                         "translator-credits", _("translator-credits"),
                         "debug-info", debug,
                         "debug-info-filename", "gpu-memory-lab-troubleshooting.txt",
                         NULL);
}

static gboolean
quit_idle_cb (gpointer user_data)
{
  GmlApplication *self = user_data;
  GList *windows;

  /* Destroying one window can destroy another (the presentation takes its presenter
   * view with it), so ask for the list again after each one. */
  for (guint guard = 0;
       guard < 64 && (windows = gtk_application_get_windows (GTK_APPLICATION (self))) != NULL;
       guard++)
    gtk_window_destroy (windows->data);
  g_application_quit (G_APPLICATION (self));
  return G_SOURCE_REMOVE;
}

static void
gml_application_quit_cb (GSimpleAction *action,
                         GVariant      *parameter,
                         gpointer       user_data)
{
  /* Ctrl+Q arrives inside the window's key handling; destroying the windows there
   * left GTK finishing that event on freed widgets. Quit once it is over. The
   * window size is already saved: it is bound to GSettings. */
  g_idle_add_full (G_PRIORITY_HIGH_IDLE, quit_idle_cb, g_object_ref (user_data), g_object_unref);
}

static void
gml_application_preferences_cb (GSimpleAction *action,
                                GVariant      *parameter,
                                gpointer       user_data)
{
  GmlApplication *self = user_data;
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  gtk_window_present (GTK_WINDOW (gml_preferences_window_new (self, window)));
}

/* The look that is not a colour scheme: the zoom of the main window's text, and the
 * high-contrast style. libadwaita 1.2 takes high contrast only from the desktop (the
 * settings portal or org.gnome.desktop.a11y.interface) and offers no way to force it,
 * so "high-contrast" forces the light scheme and adds our own stylesheet over
 * libadwaita's named colours: black on white, strong borders and focus rings. */
static void
update_look (GmlApplication *self)
{
  double zoom = g_settings_get_double (self->settings, "zoom");
  g_autofree char *style = g_settings_get_string (self->settings, "style");
  gboolean high_contrast = g_str_equal (style, "high-contrast");
  g_autoptr(GString) css = g_string_new (NULL);
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  /* Locale-independent: a Turkish decimal comma is no CSS. */
  g_ascii_formatd (number, sizeof number, "%.0f", zoom * 100);
  g_string_append_printf (css, "window.gml-main { font-size: %s%%; }\n", number);
  if (high_contrast)
    {
      GBytes *bytes = g_resources_lookup_data (RESOURCE_BASE "/high-contrast.css", 0, NULL);

      if (bytes != NULL)
        {
          g_string_append_len (css, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
          g_bytes_unref (bytes);
        }
    }
  gtk_css_provider_load_from_data (self->look_provider, css->str, css->len);

  adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                      g_str_equal (style, "light") ||
                                      high_contrast ? ADW_COLOR_SCHEME_FORCE_LIGHT :
                                      g_str_equal (style, "dark") ? ADW_COLOR_SCHEME_FORCE_DARK :
                                      ADW_COLOR_SCHEME_DEFAULT);
}

static void
zoom_by (GmlApplication *self,
         double          factor)
{
  double zoom = factor == 0 ? 1.0 : g_settings_get_double (self->settings, "zoom") * factor;

  g_settings_set_double (self->settings, "zoom", CLAMP (zoom, 0.5, 3.0));
}

static void
gml_application_zoom_in_cb (GSimpleAction *action,
                            GVariant      *parameter,
                            gpointer       user_data)
{
  zoom_by (user_data, 1.1);
}

static void
gml_application_zoom_out_cb (GSimpleAction *action,
                             GVariant      *parameter,
                             gpointer       user_data)
{
  zoom_by (user_data, 1 / 1.1);
}

static void
gml_application_zoom_reset_cb (GSimpleAction *action,
                               GVariant      *parameter,
                               gpointer       user_data)
{
  zoom_by (user_data, 0);
}

static void
apply_language (GmlApplication *self)
{
  g_autofree char *lang = g_settings_get_string (self->settings, "language");

  gml_i18n_set_language (gml_i18n_is_known_language (lang) ? lang : NULL);
}

/* Why the GPU is simulated is the CUDA backend's sentence, written when the device
 * was opened: ask the driver again, in the language now in effect. That is a dlopen
 * and a cuInit (hundreds of milliseconds on a broken driver), so it runs in a
 * worker; the windows have switched language already and get the new sentence
 * with GmlApplication::device-changed. The simulated device itself stays
 * (scenarios hold it); a driver that answers now is closed again at once, and the
 * backend settings decide when to switch. */
static void
reprobe_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  g_autoptr(GError) error = NULL;
  guint64 budget = (guint64) GPOINTER_TO_SIZE (task_data) << 20;
  GmlDevice *probe = gml_device_cuda_new (budget, &error);

  if (probe != NULL)
    {
      gml_device_unref (probe);
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  g_task_return_pointer (task, g_strdup (error->message), g_free);
}

static void
reprobed_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GmlApplication *self = GML_APPLICATION (source);
  g_autofree char *reason = g_task_propagate_pointer (G_TASK (result), NULL);

  /* Asked in a language that has changed again since, or the device went: the
   * later question answers. */
  if (GPOINTER_TO_UINT (user_data) != self->language_generation || reason == NULL ||
      self->device == NULL || self->device_reason == NULL ||
      g_str_equal (reason, self->device_reason))
    return;
  g_free (self->device_reason);
  self->device_reason = g_steal_pointer (&reason);
  g_signal_emit (self, signals[DEVICE_CHANGED], 0);
}

static void
refresh_device_reason (GmlApplication *self)
{
  g_autoptr(GTask) task = NULL;
  int budget_mib = g_settings_get_int (self->settings, "cuda-budget-mib");

  if (self->device == NULL || self->device_reason == NULL)
    return;
  task = g_task_new (self, NULL, reprobed_cb, GUINT_TO_POINTER (self->language_generation));
  g_task_set_source_tag (task, refresh_device_reason);
  g_task_set_task_data (task, GSIZE_TO_POINTER ((gsize) MAX (budget_mib, 0)), NULL);
  g_task_run_in_thread (task, reprobe_thread);
}

/* A new language applies at once: open windows and pictures listen to
 * GmlApplication::language-changed and set their strings again. */
static void
language_setting_changed_cb (GmlApplication *self)
{
  g_autofree char *previous = g_strdup (gml_i18n_get_language ());

  apply_language (self);
  if (g_strcmp0 (previous, gml_i18n_get_language ()) == 0)
    return;
  self->language_generation++;
  g_signal_emit (self, signals[LANGUAGE_CHANGED], 0, previous);
  refresh_device_reason (self);
}

static const GActionEntry app_actions[] = {
  { "about", gml_application_about_cb },
  { "quit", gml_application_quit_cb },
  { "preferences", gml_application_preferences_cb },
  { "zoom-in", gml_application_zoom_in_cb },
  { "zoom-out", gml_application_zoom_out_cb },
  { "zoom-reset", gml_application_zoom_reset_cb },
};

/* Application accelerators for app.* actions. A window's keys are binding actions on its
 * class (GmlWindow, the lecture windows), where they run after a focused control's.
 *
 * Two exceptions run as application accelerators, in the capture phase, before any
 * binding: GtkWindow binds Ctrl+Shift+I to the GTK Inspector, and a parent class's bindings
 * are tried before a subclass's, so GmlWindow's would never see it; and GtkLabel, GtkText
 * and GtkTextView bind Ctrl+Shift+A to select nothing, so with the focus in one of them
 * (as in the Live view after a refused connection) Attach… did not open. */
static const struct
{
  const char *action;
  const char *accels[3];
} accels[] = {
  { "app.quit", { "<Control>q", NULL } },
  { "app.shuffle-options", { "<Control><Shift>s", NULL } },
  { "app.preferences", { "<Control>comma", NULL } },
  { "app.zoom-in", { "<Control>plus", "<Control>equal", NULL } },
  { "app.zoom-out", { "<Control>minus", NULL } },
  { "app.zoom-reset", { "<Control>0", NULL } },
  { "win.import-questions", { "<Control><Shift>i", NULL } },
  { "win.attach", { "<Control><Shift>a", NULL } },
};

/* Whether bench/startup runs the app (it reads what the app prints). */
static gboolean
bench_enabled (void)
{
  static int enabled = -1;

  if (enabled < 0)
    enabled = g_getenv ("GML_BENCH_FIRST_FRAME") != NULL;
  return enabled;
}

void
gml_bench_mark (const char *what)
{
  if (bench_enabled ())
    g_print ("bench %s %" G_GINT64_FORMAT "\n", what, g_get_monotonic_time ());
}

/* The device is opened in a thread at start-up: the CUDA backend's dlopen and
 * cuInit take hundreds of milliseconds on a real GPU, and the window's first
 * frame must not wait for them. The CUDA backend makes its context current
 * before each call, so the device can be used on the main thread after. */
typedef struct _DeviceOpening
{
  GmlBackendKind  kind;
  guint64         capacity;
  guint64         budget;
  GmlDevice      *device;   /* the thread's result */
  char           *reason;
  int             done;     /* atomic: the thread has finished */
  GmlApplication *app;      /* borrowed: the application joins the thread before it goes;
                             * the idle that says it is done takes a reference of its own */
} DeviceOpening;

static void finish_opening (GmlApplication *self);

static gboolean
device_opened_cb (gpointer data)
{
  GmlApplication *self = data;

  if (self->opening == NULL)
    return G_SOURCE_REMOVE;   /* gml_application_get_device() took it already */
  finish_opening (self);
  gml_bench_mark ("device-open");
  if (self->device_awaited)
    {
      self->device_awaited = FALSE;
      g_signal_emit (self, signals[DEVICE_CHANGED], 0);
    }
  return G_SOURCE_REMOVE;
}

static gpointer
open_device_thread (gpointer data)
{
  DeviceOpening *op = data;
  g_autoptr(GError) error = NULL;

  op->device = gml_device_open (op->kind, op->capacity, op->budget, &op->reason, &error);
  if (op->device == NULL)
    {
      /* CUDA was asked for and cannot be had: say why, and simulate. */
      op->reason = g_strdup (error->message);
      op->device = gml_device_sim_new (op->capacity, 0);
    }
  g_atomic_int_set (&op->done, TRUE);
  g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, device_opened_cb, g_object_ref (op->app),
                   g_object_unref);
  return NULL;
}

static void
start_opening (GmlApplication *self)
{
  DeviceOpening *op = g_new0 (DeviceOpening, 1);
  g_autofree char *backend = g_settings_get_string (self->settings, "backend");

  op->kind = GML_BACKEND_AUTO;
  gml_backend_kind_from_string (backend, &op->kind);
  op->budget = (guint64) g_settings_get_int (self->settings, "cuda-budget-mib") << 20;
  op->capacity = (guint64) g_settings_get_int (self->settings, "sim-capacity-mib") << 20;
  op->app = self;
  self->opening = op;
  self->opening_thread = g_thread_new ("gml-device-open", open_device_thread, op);
}

/* Waits for the opening thread (at once if it is done) and keeps its device. */
static void
finish_opening (GmlApplication *self)
{
  DeviceOpening *op = g_steal_pointer (&self->opening);

  if (op == NULL)
    return;
  g_thread_join (g_steal_pointer (&self->opening_thread));
  self->device = op->device;
  self->device_reason = op->reason;
  g_free (op);
}

/* A background save of the answer log failed (the disk is full, the directory
 * went read-only): the answers are still in memory and the next save, or the one
 * at exit, writes them. Tell the person, in a window if there is one. */
static void
progress_save_failed_cb (GmlProgress  *progress,
                         const GError *error,
                         gpointer      user_data)
{
  GmlApplication *self = user_data;

  if (gtk_application_get_windows (GTK_APPLICATION (self)) != NULL)
    g_signal_emit (self, signals[MESSAGE], 0, error->message);
  else if (self->startup_messages != NULL)
    g_ptr_array_add (self->startup_messages, g_strdup (error->message));
  else
    g_printerr ("%s\n", error->message);   /* the last window is gone */
}

/* The question banks and the answer log are read in a thread while GTK and
 * libadwaita start: neither needs the toolkit, and the window waits for them only
 * if they take longer than it does. The thread has the bank, the log and its own
 * list of messages to itself until it is joined; the first question is chosen
 * after that, from everything it read. */
typedef struct
{
  GmlQuestionBank *bank;       /* borrowed from the application */
  GmlProgress     *progress;   /* borrowed from the application */
  char            *user_dir;
  GPtrArray       *messages;   /* translated sentences for the first window */
} Loading;

static gpointer
load_thread (gpointer data)
{
  Loading *loading = data;
  g_autoptr(GError) error = NULL;
  g_autofree char *set_aside = NULL;

  if (!gml_question_bank_load_builtin (loading->bank, &error))
    {
      /* The built-in bank ships inside the binary; this only happens to a broken build. */
      g_ptr_array_add (loading->messages, g_strdup (error->message));
      g_clear_error (&error);
    }
  gml_question_bank_load_user_dir (loading->bank, loading->user_dir, loading->messages);

  if (!gml_progress_load (loading->progress, &set_aside, &error))
    {
      g_ptr_array_add (loading->messages, g_strdup (error->message));
      g_clear_error (&error);
    }
  else if (set_aside != NULL)
    {
      g_autofree char *base = g_path_get_basename (set_aside);

      g_ptr_array_add (loading->messages,
                       g_strdup_printf (_("Your answer log was damaged. It was kept as %s and a "
                                          "new log was started."), base));
    }
  return NULL;
}

/* Before the first window is realized: Cairo rather than OpenGL on a software
 * rasterizer (gml-renderer.c says why); where init_gtk() left OpenGL out, Mesa is
 * not asked. */
static void
choose_renderer (GmlApplication *self,
                 gboolean        without_gl)
{
  g_autofree char *name = NULL;
  const char *chosen;

  if (without_gl)
    {
      gml_renderer_choose_cairo (gdk_display_get_default ());
      self->no_direct_rendering = TRUE;
      chosen = "cairo";
    }
  else if ((chosen = gml_renderer_choose (gdk_display_get_default (), &name)) != NULL)
    self->software_gl = g_steal_pointer (&name);
  gml_bench_mark ("renderer");
  if (bench_enabled ())
    g_print ("renderer %s\n", chosen != NULL ? chosen : "default");
}

/* GTK is initialised here, before libadwaita's init, to spare it two pieces of work
 * whose results would be thrown away.
 *
 * Its own theme: GTK loads it, a style sheet as large as libadwaita's, the first
 * time a display's settings are asked for, which libadwaita's init does; libadwaita
 * then sets the theme to its empty one ("Adwaita-empty", in its own resources) and
 * loads its style sheet, so GTK's was parsed for nothing (about 85 M instructions,
 * a tenth of a bare libadwaita window's start-up). So the settings are made here,
 * with GTK_THEME naming that empty theme while they load it; the window looks the
 * same, libadwaita sets the same theme either way.
 *
 * OpenGL, on an X server without direct rendering: GTK prepares it when it opens
 * an X11 display, but there it could only be a software rasterizer and the window
 * will be drawn with Cairo (gml-renderer.c), so GDK_DEBUG=gl-disable keeps Mesa
 * and LLVM from being loaded at all (a quarter of the instructions to the first
 * frame), unless someone chose a renderer with GSK_RENDERER.
 *
 * Each variable is set only where the person has not set it, only around
 * gtk_init(), and is gone before libadwaita looks at GTK_THEME (it loads no style
 * sheet while it is set) and before any thread of ours reads the environment.
 * Returns whether OpenGL was left out. */
static gboolean
init_gtk (void)
{
  gboolean theme = g_getenv ("GTK_THEME") == NULL;
  gboolean without_gl = gml_renderer_can_leave_out_gl ();

  if (theme)
    g_setenv ("GTK_THEME", "Adwaita-empty", TRUE);
  if (without_gl)
    g_setenv ("GDK_DEBUG", "gl-disable", TRUE);
  if (gtk_init_check ())
    gtk_settings_get_default ();
  if (without_gl)
    g_unsetenv ("GDK_DEBUG");
  if (theme)
    g_unsetenv ("GTK_THEME");
  return without_gl;
}

static void
gml_application_startup (GApplication *application)
{
  GmlApplication *self = GML_APPLICATION (application);
  g_autoptr(GAction) shuffle = NULL;
  g_autoptr(GAction) language = NULL;
  g_autoptr(GAction) bilingual = NULL;
  Loading loading = { self->bank, self->progress, gml_user_questions_dir (),
                      g_ptr_array_new_with_free_func (g_free) };
  GThread *loader;
  gboolean without_gl;

  gml_bench_mark ("startup");
  without_gl = init_gtk ();
  /* Before the loader starts: its messages are in the language chosen. */
  apply_language (self);
  loader = g_thread_new ("gml-load", load_thread, &loading);

  G_APPLICATION_CLASS (gml_application_parent_class)->startup (application);
  gml_bench_mark ("toolkit-ready");
  choose_renderer (self, without_gl);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions),
                                   self);
  shuffle = g_settings_create_action (self->settings, "shuffle-options");
  g_action_map_add_action (G_ACTION_MAP (self), shuffle);
  language = g_settings_create_action (self->settings, "language");
  g_action_map_add_action (G_ACTION_MAP (self), language);
  bilingual = g_settings_create_action (self->settings, "bilingual");
  g_action_map_add_action (G_ACTION_MAP (self), bilingual);

  g_signal_connect_object (self->settings, "changed::language",
                           G_CALLBACK (language_setting_changed_cb), self, G_CONNECT_SWAPPED);
  self->look_provider = gtk_css_provider_new ();
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (self->look_provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION + 2);
  update_look (self);
  g_signal_connect_object (self->settings, "changed::style", G_CALLBACK (update_look), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::zoom", G_CALLBACK (update_look), self,
                           G_CONNECT_SWAPPED);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), accels[i].action,
                                           accels[i].accels);
  /* After the language: the thread writes why the GPU is simulated in it. */
  start_opening (self);

  /* The bank and the log are the application's again. */
  g_thread_join (loader);
  gml_bench_mark ("loaded");
  g_ptr_array_extend_and_steal (self->startup_messages, g_steal_pointer (&loading.messages));
  g_free (loading.user_dir);
  /* An answer is written by a worker thread, not in the click that gave it. */
  gml_progress_set_background_saves (self->progress, TRUE, progress_save_failed_cb, self);
}

/* Nothing is lost at exit: the answers still on their way to disk are written
 * before the application ends. */
static void
gml_application_shutdown (GApplication *application)
{
  GmlApplication *self = GML_APPLICATION (application);
  g_autoptr(GError) error = NULL;

  if (!gml_progress_flush (self->progress, &error))
    g_printerr ("%s\n", error->message);
  G_APPLICATION_CLASS (gml_application_parent_class)->shutdown (application);
}

static void
gml_application_activate (GApplication *application)
{
  GmlApplication *self = GML_APPLICATION (application);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  gml_bench_mark ("activate");
  if (window == NULL)
    window = GTK_WINDOW (gml_window_new (self));
  gml_bench_mark ("window-built");
  gtk_window_present (window);
  gml_bench_mark ("presented");
}

/* Files from the command line or a file manager: snapshots, shown in the
 * Snapshot view. The view shows one snapshot at a time: of several files,
 * the last one given. */
static void
gml_application_open (GApplication  *application,
                      GFile        **files,
                      int            n_files,
                      const char    *hint)
{
  GmlApplication *self = GML_APPLICATION (application);
  GmlWindow *window = NULL;

  /* The main window, not whichever is active (the preferences, a presentation). */
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (GML_IS_WINDOW (l->data))
      {
        window = l->data;
        break;
      }
  if (window == NULL)
    window = gml_window_new (self);
  gtk_window_present (GTK_WINDOW (window));
  if (n_files < 1)
    return;
  gml_window_open_file (window, files[n_files - 1]);
}

static void
gml_application_finalize (GObject *object)
{
  GmlApplication *self = GML_APPLICATION (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->bank, gml_question_bank_free);
  g_clear_pointer (&self->progress, gml_progress_free);
  g_clear_pointer (&self->startup_messages, g_ptr_array_unref);
  finish_opening (self);
  g_clear_handle_id (&self->device_settle_id, g_source_remove);
  g_clear_pointer (&self->device, gml_device_unref);
  g_clear_pointer (&self->device_reason, g_free);
  g_clear_object (&self->look_provider);
  g_clear_pointer (&self->software_gl, g_free);
  g_clear_pointer (&self->watch_command, g_strfreev);
  g_clear_pointer (&self->watch_snapshot_dir, g_free);

  G_OBJECT_CLASS (gml_application_parent_class)->finalize (object);
}

static int gml_application_handle_local_options (GApplication *application,
                                                 GVariantDict *options);

static void
gml_application_class_init (GmlApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = gml_application_finalize;
  app_class->startup = gml_application_startup;
  app_class->activate = gml_application_activate;
  app_class->shutdown = gml_application_shutdown;
  app_class->open = gml_application_open;
  app_class->handle_local_options = gml_application_handle_local_options;

  /**
   * GmlApplication::language-changed:
   * @previous: the language ("tr" or "en") in effect before the change
   *
   * The lab now speaks another language; windows and pictures set their strings
   * again. The new language is gml_i18n_get_language().
   */
  signals[LANGUAGE_CHANGED] = g_signal_new ("language-changed", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * GmlApplication::device-changed:
   *
   * The backend settings changed, and stayed unchanged for GML_DEVICE_SETTLE_MS. The application
   * has let go of the old device
   * already; whoever holds scenarios built on it drops them (the old device, with
   * all its memory, is freed with the last of them) and asks
   * gml_application_get_device() again, which opens the new one. Also emitted
   * after a language change, once the driver has been asked again why the GPU is
   * simulated: the device is the same, its reason is in the new language.
   */
  signals[DEVICE_CHANGED] = g_signal_new ("device-changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * GmlApplication::message:
   * @message: a translated sentence
   *
   * Something the person must know that happened outside any click, such as a
   * background save of the answer log that failed. Windows show it as a toast.
   */
  signals[MESSAGE] = g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void backend_settings_changed_cb (GmlApplication *self);

static void
gml_application_init (GmlApplication *self)
{
  self->settings = g_settings_new (APPLICATION_ID);
  for (guint i = 0; i < 3; i++)
    {
      static const char * const keys[] = { "changed::backend", "changed::cuda-budget-mib",
                                           "changed::sim-capacity-mib" };

      g_signal_connect_object (self->settings, keys[i], G_CALLBACK (backend_settings_changed_cb),
                               self, G_CONNECT_SWAPPED);
    }
  self->audience_port = GML_AUDIENCE_DEFAULT_PORT;
  g_application_add_main_option (G_APPLICATION (self), "audience-port", 0, G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_INT, _("The port audience mode listens on (8731)"),
                                 _("PORT"));
  self->bank = gml_question_bank_new ();
  self->progress = gml_progress_new (NULL);
  self->startup_messages = g_ptr_array_new_with_free_func (g_free);
}

static int
gml_application_handle_local_options (GApplication *application,
                                      GVariantDict *options)
{
  GmlApplication *self = GML_APPLICATION (application);
  int port;

  if (g_variant_dict_lookup (options, "audience-port", "i", &port))
    {
      if (port < 0 || port > 65535)
        {
          g_printerr (_("--audience-port must be a port number from 0 to 65535.\n"));
          return 2;
        }
      self->audience_port = port;
    }
  return -1;
}

/* Where audience mode listens: --audience-port, or GML_AUDIENCE_DEFAULT_PORT. */
guint
gml_application_get_audience_port (GmlApplication *self)
{
  g_return_val_if_fail (GML_IS_APPLICATION (self), GML_AUDIENCE_DEFAULT_PORT);
  return (guint) self->audience_port;
}

GmlQuestionBank *
gml_application_get_bank (GmlApplication *self)
{
  g_return_val_if_fail (GML_IS_APPLICATION (self), NULL);
  return self->bank;
}

GmlProgress *
gml_application_get_progress (GmlApplication *self)
{
  g_return_val_if_fail (GML_IS_APPLICATION (self), NULL);
  return self->progress;
}

GSettings *
gml_application_get_settings (GmlApplication *self)
{
  g_return_val_if_fail (GML_IS_APPLICATION (self), NULL);
  return self->settings;
}

/* Messages gathered before any window existed, to be shown once as toasts. */
GPtrArray *
gml_application_steal_startup_messages (GmlApplication *self)
{
  GPtrArray *messages = g_steal_pointer (&self->startup_messages);

  self->startup_messages = g_ptr_array_new_with_free_func (g_free);
  return messages;
}

/* The GPU the pictures run on: CUDA when a device answers, else the simulator
 * (the same size as the default CUDA budget); *reason says why it is simulated.
 * The device is the application's: whoever keeps using it beyond the call (a
 * scenario, an allocator) takes a reference of its own. */
GmlDevice *
gml_application_get_device (GmlApplication  *self,
                            const char     **reason)
{
  g_return_val_if_fail (GML_IS_APPLICATION (self), NULL);

  /* Still opening at start-up: whoever needs it now waits for it. */
  finish_opening (self);

  if (self->device == NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *backend = g_settings_get_string (self->settings, "backend");
      guint64 budget = (guint64) g_settings_get_int (self->settings, "cuda-budget-mib") << 20;
      guint64 capacity = (guint64) g_settings_get_int (self->settings, "sim-capacity-mib") << 20;
      GmlBackendKind kind = GML_BACKEND_AUTO;

      gml_backend_kind_from_string (backend, &kind);
      self->device = gml_device_open (kind, capacity, budget, &self->device_reason, &error);
      if (self->device == NULL)
        {
          /* CUDA was asked for and cannot be had: say why, and simulate. */
          self->device_reason = g_strdup (error->message);
          self->device = gml_device_sim_new (capacity, 0);
        }
    }
  if (reason)
    *reason = self->device_reason;
  return self->device;
}

/* The device, or NULL while it is still being opened at start-up (then
 * GmlApplication::device-changed says when it is open): for what must not wait
 * for it, such as the quiz's first picture. */
GmlDevice *
gml_application_peek_device (GmlApplication  *self,
                             const char     **reason)
{
  g_return_val_if_fail (GML_IS_APPLICATION (self), NULL);

  if (self->opening != NULL && !g_atomic_int_get (&self->opening->done))
    {
      self->device_awaited = TRUE;
      if (reason)
        *reason = NULL;
      return NULL;
    }
  return gml_application_get_device (self, reason);
}

static gboolean
device_settled_cb (gpointer user_data)
{
  GmlApplication *self = user_data;

  self->device_settle_id = 0;
  /* Opened with the settings before the change: wait for it, then drop it. */
  finish_opening (self);
  if (self->device == NULL)
    return G_SOURCE_REMOVE;
  /* Only the application's reference goes: scenarios still running on the old
   * device keep it until their holders drop them, in the handlers. */
  g_clear_pointer (&self->device, gml_device_unref);
  g_clear_pointer (&self->device_reason, g_free);
  /* The new one opens in a thread too (cuInit and a context can take hundreds
   * of milliseconds): the pictures say "…" until it is there, and run again on
   * it when it is (device_opened_cb()). */
  start_opening (self);
  g_signal_emit (self, signals[DEVICE_CHANGED], 0);
  return G_SOURCE_REMOVE;
}

/* Each click on the budget's spin button is a change: the device is rebuilt (and
 * the experiments run again) once the changes settle, not once per click. */
static void
backend_settings_changed_cb (GmlApplication *self)
{
  g_clear_handle_id (&self->device_settle_id, g_source_remove);
  self->device_settle_id = g_timeout_add (GML_DEVICE_SETTLE_MS, device_settled_cb, self);
}

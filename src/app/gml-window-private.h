/* gml-window-private.h — what the window's files share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "gml-lab-page.h"
#include "gml-quiz-page.h"
#include "gml-live-page.h"
#include "gml-review.h"
#include "gml-snapshot-page.h"
#include "gml-window.h"

G_BEGIN_DECLS

struct _GmlWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwToastOverlay      *toast_overlay;
  AdwViewSwitcherTitle *switcher_title;
  AdwViewSwitcherBar   *switcher_bar;
  AdwViewStack         *view_stack;
  GtkMenuButton        *filter_button;
  GtkMenuButton        *menu_button;
  GtkButton            *present_button;
  GtkButton            *review_button;
  GtkButton            *open_button;
  GmlQuizPage          *quiz_page;
  AdwBin               *snapshot_bin;
  AdwBin               *lab_bin;
  AdwBin               *live_bin;
  GMenuModel           *primary_menu;   /* the main menu's source, given to menu_button on first
                                         * opening */

  /* Built when first shown or first needed (_gml_window_ensure_*): the window's
   * first frame has only the quiz to build, style and draw. NULL until then. */
  GmlSnapshotPage      *snapshot_page;
  GmlLabPage           *lab_page;
  GmlLivePage          *live_page;
  GtkDropDown          *topic_dropdown;       /* in the filter's popover, built when first opened */
  GtkDropDown          *difficulty_dropdown;
  GtkLabel             *topic_heading;
  GtkLabel             *difficulty_heading;

  /* Owned */
  GSettings            *settings;
  GPtrArray            *topics;    /* source strings; position + 1 in topic_names */
  GtkStringList        *topic_names;       /* "All topics", then the topics, translated */
  GtkStringList        *difficulty_names;  /* "All difficulties", then "Difficulty 1"… */
  guint                 filter_topic;      /* the filter's choices, positions in those lists */
  guint                 filter_difficulty;
  GmlReview            *review;    /* "Review due", statistics, undo, reset */
  GMenu                *recent_menu;
  GtkFileChooserNative *chooser;
  GtkFileChooserNative *compare_chooser;
  GtkFileChooserNative *import_chooser;
  char                 *quiz_subtitle;
  GmlQuizRound         *restarted_round;   /* the round Ctrl+R replaced, while its toast shows */
  AdwToast             *restart_toast;

  /* Borrowed from the application */
  GmlQuestionBank      *bank;
};

void _gml_window_toast                (GmlWindow  *self,
                                       const char *message);
void _gml_window_update_title         (GmlWindow  *self);
void _gml_window_practise_topic       (GmlWindow  *self,
                                       const char *topic);
void _gml_window_refresh_topics       (GmlWindow  *self);
void _gml_window_adopt_view           (GmlWindow  *self,
                                       AdwBin     *bin,
                                       GtkWidget  *page,
                                       const char *name);
gboolean _gml_window_showing_view     (GmlWindow  *self,
                                       const char *name);

typedef void (*GmlWindowFileFunc)     (GmlWindow  *self,
                                       GFile      *file);
void _gml_window_choose_file          (GmlWindow             *self,
                                       GtkFileChooserNative **chooser,
                                       const char            *title,
                                       const char            *accept,
                                       GtkFileFilter         *filter,
                                       GmlWindowFileFunc      chosen);
void _gml_window_drop_chooser         (GtkFileChooserNative **chooser);

/* gml-window-import.c */
void _gml_window_import_class_init    (GtkWidgetClass *widget_class);
void _gml_window_import_dispose       (GmlWindow      *self);

/* gml-window-snapshot.c */
void _gml_window_snapshot_class_init  (GtkWidgetClass *widget_class);
void _gml_window_snapshot_init        (GmlWindow      *self);
void _gml_window_snapshot_dispose     (GmlWindow      *self);
void _gml_window_snapshot_retranslate (GmlWindow      *self);
void _gml_window_snapshot_menu_created (GmlWindow     *self);
GmlSnapshotPage *_gml_window_ensure_snapshot_page (GmlWindow *self);

/* gml-window-lab.c */
void _gml_window_lab_class_init       (GtkWidgetClass *widget_class);
void _gml_window_lab_setup            (GmlWindow      *self,
                                       GmlApplication *app);
gboolean _gml_window_showing_lab      (GmlWindow      *self);
void _gml_window_present_lab          (GmlWindow      *self);
GmlLabPage *_gml_window_ensure_lab_page (GmlWindow      *self);
/* gml-window-live.c */
void _gml_window_live_class_init      (GtkWidgetClass *widget_class);
GmlLivePage *_gml_window_ensure_live_page (GmlWindow   *self);
void _gml_window_live_setup           (GmlWindow      *self,
                                       GmlApplication *app);
void _gml_window_live_view_changed    (GmlWindow      *self,
                                       gboolean        visible);

G_END_DECLS

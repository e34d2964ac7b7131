#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Import Questions… in the real window, through the accessibility tree and the keyboard.

    test_import.py LANG SCREENSHOT_DIR

1. Ctrl+Shift+I opens GTK's own chooser (no portal here); a GIFT file's path typed there
   is imported: a toast says how many questions came in, the bank is written to the
   user's question folder, and the window's topic list has the new topic.
2. A broken GIFT file: a dialog gives the error with the file and the line, and nothing
   is written.
3. The same file again: the toast says it replaces the earlier import at the next start."""

import gettext
import os
import sys
import tempfile

from gmltest import BUILD, App, check, type_into_chooser, wait_for

lang = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
os.makedirs(shots, exist_ok=True)

catalogue = gettext.translation('gpu-memory-lab', localedir=os.path.join(BUILD, 'po', 'locale'),
                                languages=[lang], fallback=True)
_ = catalogue.gettext
ngettext = catalogue.ngettext

os.environ['GML_LIBCUDA'] = '/nonexistent/libcuda.so.1'
home = tempfile.mkdtemp(prefix='gml-e2e-import-')
files = tempfile.mkdtemp(prefix='gml-e2e-banks-')
questions_dir = os.path.join(home, 'data', 'gpu-memory-lab', 'questions')

GIFT = os.path.join(files, 'week4.gift')
with open(GIFT, 'w', encoding='utf-8') as f:
    f.write('$CATEGORY: $course$/top/Week 4\n\n'
            '// [id:w4-kv] [tag:difficulty-3]\n'
            '::w4-kv::What grows with every generated token?{\n'
            '=The KV cache #Right.\n~The weights #No.\n~The optimizer state #No.\n~The CUDA context #No.\n'
            '####Keys and values of past tokens are kept.\n}\n\n'
            '// [id:w4-ac] [tag:difficulty-1]\n'
            '::w4-ac::What does activation checkpointing trade?{\n'
            '=Compute for memory #Right.\n~Memory for compute #No.\n~Accuracy for speed #No.\n'
            '~Nothing #No.\n}\n')
BROKEN = os.path.join(files, 'broken.gift')
with open(BROKEN, 'w', encoding='utf-8') as f:
    f.write('// fine so far\n\n::b1::Text{\n=a\n~b\n\n~c\n}\n')


def import_with_keyboard(app, path):
    """Ctrl+Shift+I, then the path typed into GTK's own chooser."""
    app.key('ctrl+shift+i')
    type_into_chooser(_('Import Questions'), path)


app = App(home, lang)

# 1. A good file.
import_with_keyboard(app, GIFT)
done = ngettext('%u question imported from %s: its topic is in the topic list.',
                '%u questions imported from %s: their topic is in the topic list.', 2)
done = done.replace('%u', '2', 1).replace('%s', 'week4.gift', 1)
app.wait_label(lambda t: t == done, f'with the toast “{done}”', timeout=20)
check(True, 'Import Questions… imported the GIFT file and says how many questions came in')
check(os.path.exists(os.path.join(questions_dir, 'week4.json')),
      'the bank is written to the user’s question folder, as the import verb writes it')
app.screenshot(os.path.join(shots, f'import-done-{lang}.png'))

# The topic list offers the new topic: open the filter and its topic list.
app.key('ctrl+f')
app.wait_label(lambda t: t == _('Topic'), 'the filter popover, open')
app.key('space')
app.wait_label(lambda t: t == 'Week 4', 'with “Week 4” in the topic list', timeout=15)
check(True, 'the window’s topic list has the imported topic without a restart')
app.key('Escape')
app.key('Escape')

# 2. A broken file.
import_with_keyboard(app, BROKEN)
heading = _('The Questions Were Not Imported')
app.wait_label(lambda t: t == heading, f'with the dialog “{heading}”', timeout=20)
app.wait_label(lambda t: 'broken.gift:3:' in t, 'with the error naming the file and line 3')
check(True, 'a broken GIFT file: a dialog names the file and the line')
check(not os.path.exists(os.path.join(questions_dir, 'broken.json')), 'nothing is written from a broken file')
app.screenshot(os.path.join(shots, f'import-error-{lang}.png'))
app.key('Escape')
wait_for(lambda: heading not in app.label_texts(), 'the dialog to close')

# 3. The same file again.
import_with_keyboard(app, GIFT)
again = ngettext('%u question imported from %s. It replaces the earlier import of that file the next time '
                 'GPU Memory Lab starts.',
                 '%u questions imported from %s. They replace the earlier import of that file the next '
                 'time GPU Memory Lab starts.', 2)
again = again.replace('%u', '2', 1).replace('%s', 'week4.gift', 1)
app.wait_label(lambda t: t == again, 'with the toast about replacing the earlier import', timeout=20)
check(True, 'importing the same file again says it replaces the earlier import at the next start')
app.quit()

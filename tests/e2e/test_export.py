#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Export Picture… in the real window: the quiz's picture and the Snapshot view's.

    test_export.py LANG SCREENSHOT_DIR

1. The quiz's picture, Ctrl+Shift+E, a name ending in .png typed into GTK's own save
   chooser: a 1280×800 PNG is written (drawn in the window, written in a worker).
2. The Snapshot view (a snapshot given on the command line), Ctrl+Shift+E, a .svg
   name: an SVG document is written.
3. A file that cannot be written (in /proc, where not even root may make one; the tests
   may run as root, for whom a read-only folder is writable): the window says, in a
   toast in its language, that the picture could not be exported."""

import gettext
import os
import struct
import sys
import tempfile

from gmltest import BUILD, App, check, type_into_chooser, wait_for

lang = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
os.makedirs(shots, exist_ok=True)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'snapshot'))
import make_snapshots  # noqa: E402

catalogue = gettext.translation('gpu-memory-lab', localedir=os.path.join(BUILD, 'po', 'locale'),
                                languages=[lang], fallback=True)
_ = catalogue.gettext

os.environ['GML_LIBCUDA'] = '/nonexistent/libcuda.so.1'
out = tempfile.mkdtemp(prefix='gml-e2e-export-')
FAILED = _('The picture could not be exported: %s').split('%s')[0]


def png_size(path):
    with open(path, 'rb') as f:
        head = f.read(24)
    check(head[:8] == b'\x89PNG\r\n\x1a\n', f'{path} is a PNG file')
    return struct.unpack('>II', head[16:24])


def export_with_keyboard(app, path):
    app.key('ctrl+shift+e')
    type_into_chooser(_('Export Picture'), path, select='ctrl+a')


# 1. The quiz's picture.
app = App(tempfile.mkdtemp(prefix='gml-e2e-export-home-'), lang)
try:
    wait_for(lambda: app.image_names(), 'the question’s picture')
    quiz_png = os.path.join(out, 'quiz-picture.png')
    export_with_keyboard(app, quiz_png)
    wait_for(lambda: os.path.exists(quiz_png) and os.path.getsize(quiz_png) > 1000,
             f'{quiz_png} to be written')
    size = png_size(quiz_png)
    check(size == (1280, 800), f'the quiz’s picture is exported as a 1280×800 PNG ({size})')

    # 3. A file that cannot be written.
    bad = '/proc/gml-export-test.png'
    export_with_keyboard(app, bad)
    app.wait_label(lambda t: t.startswith(FAILED) and 'gml-export-test.png' in t,
                   f'with a toast “{FAILED}…” naming the file', timeout=20)
    check(True, 'a file that cannot be written: the window says the picture could not be exported')
    app.screenshot(os.path.join(shots, f'export-failed-{lang}.png'))
finally:
    app.quit()

# 2. The Snapshot view's picture.
cases = tempfile.mkdtemp(prefix='gml-e2e-export-cases-')
make_snapshots.cases(cases)
app = App(tempfile.mkdtemp(prefix='gml-e2e-export-home-'), lang,
          args=[os.path.join(cases, 'oom.pickle')],
          ready=lambda a: a.find('push button', equals=_('Open snapshot…')))
try:
    wait_for(lambda: any('oom.pickle' in (t or '') for t in app.label_texts()),
             'the snapshot opened')
    snapshot_svg = os.path.join(out, 'snapshot-picture.svg')
    export_with_keyboard(app, snapshot_svg)
    wait_for(lambda: os.path.exists(snapshot_svg) and os.path.getsize(snapshot_svg) > 1000,
             f'{snapshot_svg} to be written')
    with open(snapshot_svg, encoding='utf-8') as f:
        head = f.read(400)
    check('<svg' in head and 'width="1280' in head,
          f'the Snapshot view’s picture is exported as a 1280-wide SVG ({head[:120]!r})')
finally:
    app.quit()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The language as a new user chooses it, and switching it while the window is open.

    test_language.py tr SCREENSHOT_DIR

1. The README's way: with an English or a C locale (LANG=en_US.UTF-8, LANG=C.UTF-8, no
   LC_ALL), LANGUAGE=tr (or a list such as tr:en) opens a Turkish window, read through
   the accessibility tree: its title and the quiz's buttons.
2. Dil › English with the window open: everything on screen follows, the picture's
   device line and the date of the last answer included ("Last time: wrong (date)" in
   the English date style), and nothing Turkish is left; then back to Turkish, and back
   to the system's language, which is the user's LANGUAGE.
3. Every window and view: the four views built (Alt+1…4), Statistics open, a snapshot
   loaded; a switch to Turkish leaves no English string of the catalogue anywhere in
   the accessibility tree, and a switch back leaves nothing Turkish. Under a Turkish
   system locale the English UI writes decimal points, and the Turkish UI decimal
   commas, whatever the system's locale says."""

import gettext
import json
import os
import re
import sys
import tempfile
import time

from gmltest import App, app_action, bank, check, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'validation'))
import potools  # noqa: E402

shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
os.makedirs(shots, exist_ok=True)

TITLE_TR = 'GPU Bellek Laboratuvarı'
TITLE_EN = 'GPU Memory Lab'
TURKISH_LETTERS = re.compile('[ğĞşŞıİçÇöÖüÜ]')


def toolkit_strings():
    """GTK's and libadwaita's own Turkish strings (the window's Minimize button): they come
    from gettext in the language the process started with, which the lab cannot change
    without changing the environment."""
    out = set()
    for domain in ('gtk40', 'libadwaita'):
        catalogue = gettext.translation(domain, languages=['tr'], fallback=True)
        out.update(v for v in getattr(catalogue, '_catalog', {}).values() if isinstance(v, str))
    return out


def frame_names(app):
    names = []
    for i in range(app.root.childCount):
        try:
            names.append(app.root.getChildAtIndex(i).name)
        except Exception:
            pass
    return names


def buttons(app):
    return [name or text for role, name, text, showing, _ in app.nodes()
            if role in ('push button', 'toggle button') and showing and (name or text)]


def shown_texts(app):
    return [name or text for role, name, text, showing, _ in app.nodes() if showing and (name or text)]


def environment(lang_variable, language):
    return {'LANG': lang_variable, 'LC_ALL': None, 'LC_MESSAGES': None, 'LANGUAGE': language}


# 1. LANGUAGE=tr under an English and under the C.UTF-8 locale.
for lang_variable, language in (('en_US.UTF-8', 'tr'), ('C.UTF-8', 'tr')):
    app = App(tempfile.mkdtemp(prefix='gml-e2e-language-'), 'tr', env=environment(lang_variable, language))
    try:
        wait_for(lambda: TITLE_TR in frame_names(app), f'a Turkish window title (frames: {frame_names(app)})')
        check(True, f'LANG={lang_variable} LANGUAGE={language}: the window is titled “{TITLE_TR}”')
        names = buttons(app)
        check('Önceki' in names and 'Sonraki' in names and 'Previous' not in names,
              f'LANG={lang_variable} LANGUAGE={language}: the quiz’s buttons are Turkish ({names})')
        app.screenshot(os.path.join(shots, f'language-env-{lang_variable}.png'))
    finally:
        app.quit()

# 2. LANGUAGE=tr:en, with an answer log that has every question answered wrong once.
home = tempfile.mkdtemp(prefix='gml-e2e-language-')
progress_path = os.path.join(home, 'data', 'gpu-memory-lab', 'progress.json')
os.makedirs(os.path.dirname(progress_path))
log = []
for q in bank('en'):
    wrong = next(o['letter'] for o in q['options'] if not o['correct'])
    log.append({'question': q['id'], 'time': '2026-11-30T12:00:00Z', 'chosen': wrong,
                'correct': False, 'seconds': 5.0})
with open(progress_path, 'w', encoding='utf-8') as f:
    json.dump({'version': 1, 'answers': log}, f)

app = App(home, 'tr', env=environment('en_US.UTF-8', 'tr:en'))
try:
    wait_for(lambda: TITLE_TR in frame_names(app), 'a Turkish window with LANGUAGE=tr:en')
    check(True, 'LANGUAGE=tr:en opens a Turkish window too')
    app.wait_label(lambda t: t == 'Geçen sefer: yanlış (30.11.2026)', 'with the Turkish date style')
    check(True, 'the last answer is dated in the Turkish style: “Geçen sefer: yanlış (30.11.2026)”')
    app.wait_label(lambda t: t == 'Benzetilmiş GPU', 'naming the simulated GPU in Turkish')
    check(True, 'the picture’s device line is Turkish')
    reason_tr = app.label_description('Benzetilmiş GPU') or ''
    check(reason_tr != '' and not reason_tr.startswith('No NVIDIA driver found'),
          f'the reason the GPU is simulated is Turkish ({reason_tr!r})')

    app_action('language', "<'en'>")
    wait_for(lambda: TITLE_EN in frame_names(app), 'the English window title')
    app.wait_label(lambda t: t == 'Last time: wrong (30 November 2026)', 'with the English date style')
    check(True, 'after Language › English the date follows: “Last time: wrong (30 November 2026)”')
    app.wait_label(lambda t: t == 'Simulated GPU', 'naming the simulated GPU in English')
    check(True, 'the picture’s device line follows: “Simulated GPU”')
    # Why it is simulated is the driver's answer, asked again (in a worker) in the new language.
    wait_for(lambda: (app.label_description('Simulated GPU') or '').startswith('No NVIDIA driver found'),
             f'the device line’s reason in English ({app.label_description("Simulated GPU")!r})')
    check(True, 'the reason the GPU is simulated is asked again and read in English')
    toolkit = toolkit_strings()
    leftovers = [t for t in shown_texts(app) if TURKISH_LETTERS.search(t) and t not in toolkit]
    check(not leftovers, f'nothing Turkish is left on screen ({leftovers})')
    names = buttons(app)
    check('Previous' in names and 'Next' in names, f'the quiz’s buttons are English ({names})')
    app.screenshot(os.path.join(shots, 'language-switched-en.png'))

    app_action('language', "<'tr'>")
    wait_for(lambda: TITLE_TR in frame_names(app), 'the Turkish window title again')
    app.wait_label(lambda t: t == 'Geçen sefer: yanlış (30.11.2026)', 'in Turkish again')
    names = buttons(app)
    check('Önceki' in names and 'Previous' not in names, f'back in Turkish ({names})')

    app_action('language', "<'en'>")
    wait_for(lambda: TITLE_EN in frame_names(app), 'English once more')
    app_action('language', "<'system'>")
    wait_for(lambda: TITLE_TR in frame_names(app), 'the system’s language, which is LANGUAGE=tr:en')
    check(True, 'Language › the system’s setting follows the user’s LANGUAGE (tr:en)')
finally:
    app.quit()


# 3. Every window and view, switched both ways.
def english_strings():
    """The catalogue's English strings whose Turkish differs, long enough to mean something
    (a lone "OK" or a unit can be the same in both)."""
    out = set()
    for e in potools.read_entries(os.path.join(HERE, '..', '..', 'po', 'tr.po')):
        if e['strs'] and e['strs'][0] and e['strs'][0] != e['id'] and len(e['id']) >= 8 and '%' not in e['id']:
            out.add(e['id'].replace('_', ''))
    return out


ENGLISH = english_strings()
DECIMAL_POINT = re.compile(r'\b\d+\.\d+ ?(?:s|ms|KiB|MiB|GiB|TiB|GB|MB)\b')
DECIMAL_COMMA = re.compile(r'\b\d+,\d+ ?(?:s|ms|KiB|MiB|GiB|TiB|GB|MB)\b')


def every_text(app):
    return [name or text for role, name, text, showing, _ in app.nodes() if (name or text)]


def not_pytorch(t):
    # PyTorch's own message keeps its English and its decimal point in both languages.
    return 'CUDA out of memory' not in t and 'torch' not in t and 'PYTORCH' not in t


sys.path.insert(0, os.path.join(HERE, '..', 'snapshot'))
import make_snapshots  # noqa: E402
cases = tempfile.mkdtemp(prefix='gml-e2e-language-cases-')
make_snapshots.cases(cases)
home = tempfile.mkdtemp(prefix='gml-e2e-language-all-')
app = App(home, 'en', args=[os.path.join(cases, 'oom.pickle')],
          env=environment('tr_TR.UTF-8', 'en'),
          ready=lambda a: a.find('push button', equals='Open snapshot…'))
try:
    wait_for(lambda: TITLE_EN in frame_names(app), 'an English window under a Turkish locale')
    for keys in ('alt+3', 'alt+4', 'alt+2', 'alt+1'):
        app.key(keys)
        time.sleep(1.5)
    app.key('ctrl+i')
    wait_for(lambda: 'Statistics' in frame_names(app), 'the Statistics window')
    texts = every_text(app)
    bad = [t for t in texts if DECIMAL_COMMA.search(t) and not_pytorch(t)]
    check(not bad, f'under a Turkish system locale the English UI writes decimal points ({bad[:5]})')

    app_action('language', "<'tr'>")
    wait_for(lambda: TITLE_TR in frame_names(app), 'the Turkish main window')
    wait_for(lambda: 'İstatistikler' in frame_names(app), f'the Statistics window retitled ({frame_names(app)})')
    time.sleep(2)
    toolkit = toolkit_strings()
    left = sorted({t for t in every_text(app) if t.replace('_', '') in ENGLISH and t not in toolkit})
    check(not left, f'after a switch to Turkish no English string is left in any window or view ({left[:8]})')
    bad = [t for t in every_text(app) if DECIMAL_POINT.search(t) and not_pytorch(t)]
    check(not bad, f'the Turkish UI writes decimal commas ({bad[:5]})')
    app.screenshot(os.path.join(shots, 'language-every-view-tr.png'))

    app_action('language', "<'en'>")
    wait_for(lambda: TITLE_EN in frame_names(app), 'English again')
    wait_for(lambda: 'Statistics' in frame_names(app), 'the Statistics window in English again')
    time.sleep(2)
    left = sorted({t for t in every_text(app) if TURKISH_LETTERS.search(t) and t not in toolkit})
    check(not left, f'after a switch back no Turkish is left in any window or view ({left[:8]})')
finally:
    app.quit()
print('all language checks passed')

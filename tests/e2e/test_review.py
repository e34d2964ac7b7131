#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Spaced review end to end, in the real window, through the accessibility tree.
With a prepared answer log (fixed dates in the past, one answer from today) the
window shows "Review due (N)" with the right N; starting it plays exactly the due
questions, most overdue first; Ctrl+Z removes the last answer from the log and
shows that question unanswered again; the statistics window describes the numbers.

    test_review.py LANG SCREENSHOT_DIR"""

import datetime
import gettext
import json
import os
import sys
import tempfile

from gmltest import App, BUILD, bank, check

lang = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
os.makedirs(shots, exist_ok=True)

# What the app shows comes from its own catalogue; reading it the same way keeps this
# test about behaviour (the translations-complete test checks the Turkish exists).
catalogue = gettext.translation('gpu-memory-lab', localedir=os.path.join(BUILD, 'po', 'locale'),
                                languages=[lang], fallback=True)
_ = catalogue.gettext


def answers_text(answered, right):
    share = (right * 100 + answered // 2) // answered if answered else 0
    text = catalogue.ngettext('%1$s answer, %2$s right (%3$s%%)', '%1$s answers, %2$s right (%3$s%%)',
                              answered)
    return (text.replace('%1$s', str(answered)).replace('%2$s', str(right))
            .replace('%3$s', str(share)).replace('%%', '%'))


def review_label(n):
    return _('Review due (%s)') % n


questions = bank(lang)
q = questions[:5]
home = tempfile.mkdtemp(prefix='gml-e2e-review-')
progress_path = os.path.join(home, 'data', 'gpu-memory-lab', 'progress.json')
os.makedirs(os.path.dirname(progress_path))


def right_letter(question):
    return next(o['letter'] for o in question['options'] if o['correct'])


def wrong_letter(question):
    return next(o['letter'] for o in question['options'] if not o['correct'])


def entry(question, correct, when):
    return {'question': question['id'], 'time': when,
            'chosen': right_letter(question) if correct else wrong_letter(question),
            'correct': correct, 'seconds': 5.0}


now = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')
# q0: right once (box 2) and q1: wrong once (box 1) — both due since 2024-01-12;
# q2: right twice (box 3), due since 2024-01-16; q3: right today (box 2), due in two
# days; q4: never answered (new: not due). So three are due: q0, q1, q2, in that order.
log = [
    entry(q[0], True, '2024-01-10T09:00:00Z'),
    entry(q[2], True, '2024-01-10T09:05:00Z'),
    entry(q[1], False, '2024-01-11T09:00:00Z'),
    entry(q[2], True, '2024-01-12T09:00:00Z'),
    entry(q[3], True, now),
]
with open(progress_path, 'w', encoding='utf-8') as f:
    json.dump({'version': 1, 'answers': log}, f)


def read_log():
    with open(progress_path, encoding='utf-8') as f:
        return json.load(f)['answers']


def screen_letter(app, question, source_letter):
    text = next(o['text'] for o in question['options'] if o['letter'] == source_letter)
    hits = [shown for shown, t in app.options() if t == text]
    check(len(hits) == 1, f'option “{text[:40]}…” is on screen once')
    return hits[0]


def wait_button(app, name, what):
    import time
    deadline = time.time() + 10
    while time.time() < deadline:
        hits = app.find('push button', equals=name)
        if hits:
            return hits[0][1]
        time.sleep(0.2)
    buttons = [n for r, n, t, s, _ in app.nodes() if r == 'push button']
    raise AssertionError(f'no button {what}; buttons: {buttons}')


app = App(home, lang)
button = wait_button(app, review_label(3), f'“{review_label(3)}”')
check(True, f'the header says “{review_label(3)}” for a log with three questions due')
app.screenshot(os.path.join(shots, f'review-due-{lang}.png'))

def all_label_texts(app):
    """Every label's text, shown or not (the header's subtitle hides behind the view
    switcher when the window is wide)."""
    return [(name or text) for r, name, text, showing, _n in app.nodes() if r == 'label' and (name or text)]


check(_('All topics') in all_label_texts(app), 'the filter’s round is subtitled “All topics”')
button.queryAction().doAction(0)
app.wait_label(lambda t: t == '1 / 3', 'with a round of three')
subtitles = all_label_texts(app)
check(_('Review due') in subtitles and _('All topics') not in subtitles,
      f'the review round is subtitled “{_("Review due")}”, not “{_("All topics")}”')
app.wait_label(lambda t: t == q[0]['text'], 'with the most overdue question first')
check(True, 'starting the review plays a round of the three due questions, q0 first')

# q0 right: it moves up to box 3 and is no longer due.
app.key(screen_letter(app, q[0], right_letter(q[0])))
app.wait_label(lambda t: t == _('Right!'), 'with the verdict on q0')
wait_button(app, review_label(2), f'“{review_label(2)}” after answering a due question')
check(True, 'answering a due question right takes it off the due count')

app.key('Return')
app.wait_label(lambda t: t == q[1]['text'], 'with q1 second')
app.key(screen_letter(app, q[1], wrong_letter(q[1])))
app.wait_label(lambda t: t == _('Wrong.'), 'with the verdict on q1')
app.key('Return')
app.wait_label(lambda t: t == q[2]['text'], 'with q2 third')
check(True, 'the review round plays q0, q1 and q2 in order')
app.key(screen_letter(app, q[2], right_letter(q[2])))
app.wait_label(lambda t: t == _('Right!'), 'with the verdict on q2')
entries = read_log()
check(len(entries) == 8 and entries[-1]['question'] == q[2]['id'], 'the three answers are in the log')
# q1 was answered wrong again today: box 1, due tomorrow; nothing is due now.
due_button = wait_button(app, review_label(0), f'“{review_label(0)}” once the due questions are done')
# With nothing due, the button says when something will be: q1, wrong today, tomorrow.
tomorrow = (datetime.datetime.now() + datetime.timedelta(days=1)).strftime(_('%-d %B %Y'))
hint = _('Nothing is due for review. The next question comes due on %s.') % tomorrow
check(due_button.description == hint,
      f'“{review_label(0)}” says when the next question comes due (“{due_button.description}”)')

app.key('ctrl+z')
entries = read_log()
check(len(entries) == 7 and entries[-1]['question'] == q[1]['id'],
      'Ctrl+Z removes the last answer (q2’s) from the log on disk')
app.wait_label(lambda t: t == q[2]['text'], 'with q2 shown again')
labels = app.label_texts()
check(_('Right!') not in labels and _('Wrong.') not in labels, 'q2 is shown unanswered again')
wait_button(app, review_label(1), f'“{review_label(1)}” after the undo')
check(True, 'the due count comes back after the undo')

# Statistics: totals, per difficulty and per topic, in the accessible description.
app.key('ctrl+i')
import time
deadline = time.time() + 10
description = None
while time.time() < deadline and description is None:
    for r, name, text, showing, node in app.nodes():
        if r == 'image' and name == _('Statistics of your answers'):
            description = node.description
    time.sleep(0.3)
check(description is not None, 'Ctrl+I opens the statistics picture, with an accessible name')
print('description:', description)
right = sum(1 for e in entries if e['correct'])
check(answers_text(len(entries), right) in description,
      f'the description gives the totals “{answers_text(len(entries), right)}”')
by_id = {x['id']: x for x in questions}
for d in (1, 2, 3):
    picked = [e for e in entries if by_id[e['question']]['difficulty'] == d]
    if picked:
        wanted = (_('Difficulty %d') % d) + ': ' + answers_text(len(picked), sum(e['correct'] for e in picked))
        check(wanted in description, f'the description has “{wanted}”')
topic = q[0]['topic']
picked = [e for e in entries if by_id[e['question']]['topic'] == topic]
wanted = topic + ': ' + answers_text(len(picked), sum(e['correct'] for e in picked))
check(wanted in description, f'the description has the topic line “{wanted}”')
app.screenshot(os.path.join(shots, f'statistics-{lang}.png'))


import time


def stats_shown():
    return any(r == 'image' and name == _('Statistics of your answers') for r, name, text, showing, node in app.nodes())


def key_to_statistics(keysym):
    # No window manager under Xvfb: give the statistics window the focus, then the key.
    import subprocess
    ids = subprocess.run(['xdotool', 'search', '--sync', '--name', '^' + _('Statistics') + '$'], timeout=20,
                         capture_output=True, text=True).stdout.split()
    check(ids, 'the statistics window is on the X display')
    subprocess.run(['xdotool', 'windowfocus', '--sync', ids[-1], 'key', keysym], timeout=20, check=False)


def wait_closed(what):
    deadline = time.time() + 10
    while time.time() < deadline and stats_shown():
        time.sleep(0.3)
    check(not stats_shown(), what)


def statistics_screenshot(path):
    import subprocess
    ids = subprocess.run(['xdotool', 'search', '--name', '^' + _('Statistics') + '$'], timeout=20,
                         capture_output=True, text=True).stdout.split()
    if ids:
        subprocess.run(['import', '-window', ids[-1], path], check=False)


statistics_screenshot(os.path.join(shots, f'statistics-window-{lang}.png'))
key_to_statistics('Escape')
wait_closed('Escape closes the statistics window')
app.key('ctrl+i')
deadline = time.time() + 10
while time.time() < deadline and not stats_shown():
    time.sleep(0.3)
check(stats_shown(), 'Ctrl+I opens it again')
key_to_statistics('ctrl+w')
wait_closed('Ctrl+W closes it too')
app.quit()
print('all review e2e checks passed')

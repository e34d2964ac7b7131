#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The quiz end to end, in the real window, through the accessibility tree:
answer question 1 right and question 2 wrong with the keyboard, read the feedback,
the explanation and the sources, open a source (the desktop's default https handler
is called with its address), quit, reopen and find the results kept; then damage the
answer log and see it set aside with a message. The window is 1024×768 all along:
after the longest question is answered, Next is still inside the window, and for
several questions the picture beside them describes that question's own
experiment at the state it is about, as `render --question ID` does.

    test_quiz.py LANG SCREENSHOT_DIR"""

import glob
import json
import os
import re
import sys
import tempfile
import time

from gmltest import App, bank, check, install_browser, render_describe

lang = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
os.makedirs(shots, exist_ok=True)

T = {
    'tr': dict(sources='Kaynaklar', next='Sonraki', finish='Bitir', right='Doğru!', wrong='Yanlış.',
               yours='Sizin cevabınız', correct='Doğru cevap',
               difficulty='Zorluk', last_right='Geçen sefer: doğru', damaged='Cevap kaydınız bozulmuştu',
               score='{total} sorudan {right} doğru', review='Bunları Tekrarla',
               new_round='Yeni bir tur başladı.', undo='Geri Al'),
    'en': dict(sources='Sources', next='Next', finish='Finish', right='Right!', wrong='Wrong.',
               yours='Your answer', correct='The right answer',
               difficulty='Difficulty', last_right='Last time: right', damaged='Your answer log was damaged',
               score='{right} of {total} right', review='Review These',
               new_round='A new round started.', undo='Undo'),
}[lang]

# The pictures are simulated here whatever the machine has, like the render verb's.
os.environ['GML_LIBCUDA'] = '/nonexistent/libcuda.so.1'

questions = bank(lang)
home = tempfile.mkdtemp(prefix='gml-e2e-')
progress_path = os.path.join(home, 'data', 'gpu-memory-lab', 'progress.json')


def screen_mapping(app, question):
    """source letter -> letter on screen, by matching the option texts."""
    on_screen = app.options()
    mapping = {}
    for source in question['options']:
        hits = [shown for shown, text in on_screen if text == source['text']]
        check(len(hits) == 1, f'option “{source["text"][:40]}…” is on screen once')
        mapping[source['letter']] = hits[0]
    return mapping


def expected_explanation(question, mapping):
    return re.sub(r'\(([a-d])\)', lambda m: '(' + mapping[m.group(1)] + ')', question['explanation'])


opened_links = install_browser(home)
def length(q):
    return len(q['text']) + len(q['explanation']) + sum(len(o['text']) + len(o['feedback'])
                                                          for o in q['options'])


# The longest question (text, options, feedback and explanation), answered from the
# third question on.
longest = max(range(2, len(questions)), key=lambda i: length(questions[i]))
# The picture is checked against the render verb for these (and the longest).
pictured = {0, 1, 9, 20, 33, 45, len(questions) - 1, longest}


picture_widths = {}


def check_picture(index):
    q = questions[index]
    expected = render_describe(lang, q['id'])
    app.wait_image(lambda n: n == expected, f'for question {index + 1} saying “{expected}”')
    check(True, f'after answering question {index + 1} ({q["id"]}), the picture is its own experiment')
    node = next(node for role, name, text, showing, node in app.nodes() if role == 'image' and name == expected)
    picture_widths[index + 1] = app.extents(node)[2]


def check_next_reachable(index):
    width, height = app.window_size()
    hits = app.find('push button', prefix=T['next']) + app.find('push button', prefix=T['finish'])
    check(len(hits) == 1, 'one Next button')
    x, y, w, h = app.extents(hits[0][1])
    check(w > 0 and h > 0 and x >= 0 and y >= 0 and x + w <= width and y + h <= height,
          f'after question {index + 1}, Next ({x},{y} {w}×{h}) is inside the {width}×{height} window')


app = App(home, lang)
q1, q2 = questions[0], questions[1]

app.wait_label(lambda t: t == q1['text'], 'with question 1')
app.resize(1024, 768)
check(app.window_size() == (1024, 768), 'the window is 1024×768')
before = render_describe(lang, q1['id'], '--before')
app.wait_image(lambda n: n == before, f'before the answer, saying “{before}”')
check(True, 'before the answer, the picture shows question 1’s experiment set up')
check(True, f'question 1 is shown in {lang}')
app.wait_label(lambda t: t == f"{T['difficulty']} {q1['difficulty']}", 'with the difficulty')
app.wait_label(lambda t: t == q1['topic'], 'with the topic')
app.wait_label(lambda t: t == f'1 / {len(questions)}', 'with the position')

m1 = screen_mapping(app, q1)
right1 = next(o for o in q1['options'] if o['correct'])
check(not any(T['right'] == t or T['wrong'] == t for t in app.label_texts()),
      'no verdict before answering')
app.key(m1[right1['letter']])
app.wait_label(lambda t: t == T['right'], f'“{T["right"]}”')
check(True, 'pressing the right option’s letter says it was right')
app.wait_label(lambda t: t == f"{T['yours']} ({m1[right1['letter']]}): {right1['feedback']}",
               'with the right option’s feedback')
check(True, 'the right option’s feedback is shown')
app.wait_label(lambda t: t == expected_explanation(q1, m1), 'with the explanation and on-screen letters')
check(True, 'the explanation names the options by their on-screen letters')
check_picture(0)

app.key('Return')
app.wait_label(lambda t: t == q2['text'], 'with question 2')
check(True, 'Enter goes on to question 2')
m2 = screen_mapping(app, q2)
check(not app.find('link', equals=q2['sources'][0]['title']), 'no source is shown before answering')
wrong2 = next(o for o in q2['options'] if not o['correct'])
right2 = next(o for o in q2['options'] if o['correct'])
shown_wrong = m2[wrong2['letter']]
app.key(str('abcd'.index(shown_wrong) + 1))
app.wait_label(lambda t: t == T['wrong'], f'“{T["wrong"]}”')
check(True, 'pressing a wrong option’s number says it was wrong')
app.wait_label(lambda t: t == f"{T['yours']} ({shown_wrong}): {wrong2['feedback']}",
               'with the wrong option’s own feedback')
check(True, 'the chosen wrong option’s feedback is shown')
app.wait_label(lambda t: t == f"{T['correct']} ({m2[right2['letter']]}): {right2['feedback']}",
               'with the right option’s feedback')
check(True, 'the right option and its feedback are shown too')
app.wait_label(lambda t: t == expected_explanation(q2, m2), 'with question 2’s explanation')
app.wait_label(lambda t: t == T['sources'], f'with the heading “{T["sources"]}”')
for source in q2['sources']:
    links = app.find('link', equals=source['title'])
    check(len(links) == 1, f'the source “{source["title"][:50]}” is shown as a link')
check_picture(1)
app.screenshot(os.path.join(shots, f'quiz-{lang}.png'))

# Opening a source calls the desktop's handler for https links with its address.
first = q2['sources'][0]
app.find('link', equals=first['title'])[0][1].queryAction().doAction(0)
deadline = time.time() + 15
while time.time() < deadline and not os.path.exists(opened_links):
    time.sleep(0.2)
launched = open(opened_links).read().split() if os.path.exists(opened_links) else []
check(launched == [first['url']], f'activating the link opens {first["url"]} (handler got {launched})')

app.key('Left')
app.wait_label(lambda t: t == q1['text'], 'with question 1 again')
app.wait_label(lambda t: t == T['right'], 'with question 1 still answered')
check(True, '← goes back to question 1, still answered')
app.key('Right')
app.wait_label(lambda t: t == q2['text'], 'with question 2 again after →')

# Ctrl+R starts a new round; the toast's Undo puts this one back, answers and all.
n_questions = len(questions)
app.key('ctrl+r')
app.wait_label(lambda t: t == f'1 / {n_questions}', 'with a new round at its first question')
app.wait_label(lambda t: t == T['new_round'], f'with the toast “{T["new_round"]}”')
deadline = time.time() + 10
undo = []
while not undo and time.time() < deadline:
    # libadwaita 1.2's toast button keeps the mnemonic in its accessible name.
    undo = [node for role, name, text, showing, node in app.nodes()
            if role == 'push button' and showing and T['undo'] in name.replace('_', '')]
    time.sleep(0.3)
check(len(undo) >= 1, f'the toast offers “{T["undo"]}”')
undo[0].queryAction().doAction(0)
app.wait_label(lambda t: t == f'2 / {n_questions}', 'with the old round back at question 2')
app.wait_label(lambda t: t == q2['text'], 'with question 2 after Undo')
check(True, 'Ctrl+R starts a new round and the toast’s Undo puts the old one back')

# The rest of the round with the keyboard alone: always the option shown first.
n_right = 1
# Each key is followed by a wait for what it does, so no pause is needed after it.
for i, q in enumerate(questions[2:], start=3):
    app.key('Right', settle=0)
    app.wait_label(lambda t: t == q['text'], f'with question {i}')
    first = screen_mapping(app, q)
    shown_first = next(o for o in q['options'] if first[o['letter']] == 'a')
    n_right += shown_first['correct']
    app.key('1', settle=0)
    app.wait_label(lambda t: t in (T['right'], T['wrong']), f'with a verdict on question {i}')
    if i - 1 in pictured:
        check_picture(i - 1)
    if i - 1 == longest:
        check_next_reachable(i - 1)
        app.screenshot(os.path.join(shots, f'quiz-longest-{lang}.png'))
check(max(picture_widths.values()) - min(picture_widths.values()) <= 1,
      f'the picture keeps its width from question to question: {picture_widths}')
app.key('space')
score = T['score'].format(right=n_right, total=len(questions))
app.wait_label(lambda t: t == score, f'with the score “{score}”')
check(True, 'the end-of-round summary gives the score')
app.wait_label(lambda t: t.startswith(T['difficulty'] + ' 1:'), 'with the score per difficulty')
review = app.find('push button', prefix=T['review'])
check(len(review) == 1, 'the summary offers to review the questions answered wrong')
review[0][1].queryAction().doAction(0)
n_wrong = len(questions) - n_right
app.wait_label(lambda t: t == f'1 / {n_wrong}', f'with a review round of {n_wrong} questions')
check(True, '“review these” starts a round of the questions answered wrong')
app.wait_label(lambda t: t == q2['text'], 'with question 2, answered wrong, first in review')
app.quit()

with open(progress_path, encoding='utf-8') as f:
    log = json.load(f)['answers']
check([(a['question'], a['correct']) for a in log][:2] == [(q1['id'], True), (q2['id'], False)],
      'both answers are in the log, right and wrong')
check(len(log) == len(questions), 'every answer of the round is in the log')
check(log[0]['chosen'] == right1['letter'] and log[1]['chosen'] == wrong2['letter'],
      'the log keeps the chosen option by its source id')

app = App(home, lang)
app.wait_label(lambda t: t.startswith(T['last_right']), 'with last time’s result')
check(True, 'after a restart question 1 shows it was answered right')
app.quit()

with open(progress_path, 'w') as f:
    f.write('{"answers": [ {"question": ')
app = App(home, lang)
app.wait_label(lambda t: t.startswith(T['damaged']), 'with the damaged-log toast')
check(True, 'a damaged log is reported in a toast')
app.quit()
check(len(glob.glob(progress_path + '.corrupt-*')) == 1, 'the damaged log was set aside, not deleted')
print('all e2e checks passed')

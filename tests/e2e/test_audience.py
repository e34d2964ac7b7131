"""Audience mode end to end: the real window, the real server, phones on loopback.

    test_audience.py LANG SCREENSHOT_DIR

F5 presents, F6 starts audience mode; the projected address (a label, read through the
accessibility tree, and the QR code beside it, read from a screenshot by zbarimg) is the
only thing the phones are told.  100 simulated phones, in
threads, open the page, join, answer (some change their answer), and the window's
counts must say exactly 100 joined and 100 answered; hostile clients (garbage, a body
over the limit, another room's code, a flood from one phone, an unknown question) are
refused with their statuses while the others are served.  Space reveals: the bars'
accessible description says the count per option in words and the right letter, which
must be the projector's right option; a late answer is refused; a phone sees the
answer and the explanation.  The next question opens a new vote."""

import concurrent.futures
import gettext
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

import audiencetest
from gmltest import BUILD, bank, c_format, check, type_into_chooser, wait_for

lang = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
os.makedirs(shots, exist_ok=True)

catalogue = gettext.translation('gpu-memory-lab', localedir=os.path.join(BUILD, 'po', 'locale'),
                                languages=[lang], fallback=True)
_ = catalogue.gettext


BANK = {q['id']: q for q in bank(lang)}
app, url, room, base = audiencetest.start(lang, _)


def request(path, body=None, raw=None):
    return audiencetest.request(base, path, body, raw)


# The QR code on the slide, read from a screenshot of the window by a real decoder.
shot = os.path.join(shots, f'audience-qr-{lang}.png')
time.sleep(0.5)
app.screenshot(shot)
read = subprocess.run(['zbarimg', '--raw', '-q', shot], capture_output=True, text=True).stdout.strip()
check(read == url, f'the slide’s QR code reads “{read}”, the address')


with urllib.request.urlopen(url, timeout=10) as r:
    page = r.read().decode()
check(r.status == 200 and '/api/state' in page and '<meta name="viewport"' in page,
      'the address serves the phone page (from the app, nothing from the internet)')
status, words = request(f'/api/strings?lang={lang}')
check(status == 200 and words['choose'] == _('Tap your answer. You can change it until the vote closes.'),
      f'the page’s words come from the app’s catalogue in {lang}')

status, state = request(f'/api/state?room={room}&lang={lang}')
check(status == 200 and state['open'] and state['question'] in BANK, f'the state names the question shown: {state["question"]}')
q = BANK[state['question']]
check(state['text'] == q['text'], 'its text is the bank’s, in the page’s language')
check(sorted(state['option_texts']) == sorted(o['text'] for o in q['options']),
      'its four options are the question’s')
shown = [t for t in (app.find('push button', prefix=f'{l}. ') for l in 'abcd')]
projected = [hits[0][0][3:] for hits in shown if hits]
check(projected == state['option_texts'], f'A–D on the phone are A–D on the projector: {projected}')
right_text = next(o['text'] for o in q['options'] if o['correct'])
right = 'abcd'[state['option_texts'].index(right_text)]

# Hostile clients first: refused, and nothing counted.
status, body = request(f'/api/state?room=0000&client=hostile-1' if room != '0000' else '/api/state?room=1111')
check(status == 403 and body['error'], f'another room’s code: 403 “{body["error"]}”')
for raw, want, what in ((b'not json', 400, 'garbage'), (b'{"room": 1}', 400, 'a malformed answer'),
                        (b'x' * 5000, 413, 'a body over the limit'),
                        (json.dumps({'room': room, 'client': 'short', 'question': q['id'],
                                     'option': 'a'}).encode(), 400, 'a client id too short')):
    status, body = request(f'/api/answer?lang={lang}', raw=raw)
    check(status == want and body and body['error'], f'{what}: {want} “{body and body["error"]}”')
status, body = request(f'/api/answer?lang={lang}', {'room': room, 'client': 'hostile-client-3',
                                                    'question': 'no-such-question', 'option': 'a'})
check(status == 409, f'an answer to a question not asked now: 409 “{body["error"]}”')

# 100 phones: 27 a, 25 b, 24 c, 24 d in the end; the first ten first chose another.
plan = ['a'] * 27 + ['b'] * 25 + ['c'] * 24 + ['d'] * 24


def phone(i):
    client = f'phone-{i:04d}-{room}'
    status, s = request(f'/api/state?room={room}&client={client}&lang={lang}')
    assert status == 200, (status, s)
    if i < 10:
        status, _b = request(f'/api/answer?lang={lang}', {'room': room, 'client': client,
                                                          'question': s['question'], 'option': 'd' if plan[i] != 'd' else 'a'})
        assert status == 200, (status, _b)
    status, b = request(f'/api/answer?lang={lang}', {'room': room, 'client': client, 'question': s['question'],
                                                     'option': plan[i]})
    assert status == 200 and b['option'] == plan[i], (status, b)
    status, s = request(f'/api/state?room={room}&client={client}&lang={lang}')
    assert s['answer'] == plan[i], s
    return client


start = time.time()
with concurrent.futures.ThreadPoolExecutor(max_workers=25) as pool:
    clients = list(pool.map(phone, range(100)))
check(len(set(clients)) == 100, f'100 phones joined and answered in {time.time() - start:.1f} s')
joined = c_format(catalogue.ngettext('%u joined', '%u joined', 100), 100)
answered = c_format(catalogue.ngettext('%u answered', '%u answered', 100), 100)
counts = c_format(_('%s · %s'), joined, answered)
app.wait_label(lambda t: t == counts, f'“{counts}”', timeout=10)
check(True, f'the projector counts every phone once: “{counts}”')

# A flood from one of them: refused after the limit; the others still served.
flood = [request(f'/api/answer?lang={lang}', {'room': room, 'client': clients[30], 'question': q['id'],
                                              'option': plan[30]})[0] for _i in range(40)]
check(429 in flood and flood.count(200) <= 20, f'a flood from one phone is refused with 429 ({flood.count(429)} of 40)')
status, body = request(f'/api/answer?lang={lang}', {'room': room, 'client': clients[31], 'question': q['id'],
                                                    'option': plan[31]})
check(status == 200, 'the other phones are still served during the flood')
app.screenshot(os.path.join(shots, f'audience-open-{lang}.png'))

# The phones' live socket: refused for another room, told when the lecturer moves.
status, sock = audiencetest.live_socket(base, '0000' if room != '0000' else '1111')
check(status == 403 and sock is None, f'a live socket for another room is refused: {status}')
status, live = audiencetest.live_socket(base, room)
check(status == 101, 'a phone’s live socket (WebSocket) opens')

# Space reveals.
app.key('space')
message = json.loads(audiencetest.live_message(live))
check(message == {'type': 'state'}, f'the reveal is pushed to the phones at once: {message}')
live.close()
expected = c_format(_('%s · %s'), joined, answered)
split = []
for letter, n in zip('abcd', (27, 25, 24, 24)):
    split.append(c_format(catalogue.ngettext('%c: %u answer', '%c: %u answers', n), letter.upper(), n))
description = _(', ').join(split) + c_format(_('; right: %c'), right.upper())


def bars():
    for role, name, text, showing, node in app.nodes():
        if role == 'image' and name == _('How the room answered') and showing:
            return node.description
    return None


got = wait_for(lambda: bars() == description and bars(), f'the bars saying “{description}”', timeout=15)
check(True, f'revealed: the bars say “{got}”')
app.screenshot(os.path.join(shots, f'audience-revealed-{lang}.png'))
status, body = request(f'/api/answer?lang={lang}', {'room': room, 'client': clients[0], 'question': q['id'],
                                                    'option': 'a'})
check(status == 409, f'after the reveal an answer is refused: 409 “{body["error"]}”')
status, s = request(f'/api/state?room={room}&client={clients[40]}&lang={lang}')
check(s['revealed'] and s['right'] == right and s['answer'] == plan[40] and s['explanation'],
      f'a phone sees the right answer ({right}), its own ({plan[40]}) and the explanation')

# The next question: a new vote, the phone's earlier answer stays with the first.
app.key('space')
s = wait_for(lambda: (lambda r: r[1] if r[1]['question'] != q['id'] else None)(
    request(f'/api/state?room={room}&client={clients[40]}&lang={lang}')), 'the next question')
check(s['open'] and s['answer'] is None and not s['revealed'], f'the next question opens a new vote: {s["question"]}')

# The round's end: the room's share per question, its answers as CSV, Review These.
app.key('End')
app.key('space')
app.key('space')
share = 100 * {'a': 27, 'b': 25, 'c': 24, 'd': 24}[right] // 100
line = c_format(_('%s · %u %% of the room right'), c_format(_('%u. %s — %c'), 1, q['topic'], right), share)
app.wait_label(lambda t: t == line, f'“{line}”', timeout=15)
check(True, f'the round’s end gives the room’s share right: “{line}”')
room_line = c_format(catalogue.ngettext('The room: %u answer, %u %% right.', 'The room: %u answers, %u %% right.',
                                        100), 100, share) + ' ' + c_format(_('Hardest for the room: %s.'), '1')
summary = app.wait_label(lambda t: t.endswith(room_line), f'a summary ending “{room_line}”')
check(True, f'and over the round: “{summary}”')
app.screenshot(os.path.join(shots, f'audience-end-{lang}.png'))

saved = os.path.join(tempfile.mkdtemp(), 'answers.csv')
hits = app.find('push button', equals=_('_Save Answers…').replace('_', ''))
check(hits, 'the end has Save Answers…')
hits[0][1].queryAction().doAction(0)
type_into_chooser(_('Save the Room’s Answers'), saved, select='ctrl+a')
wait_for(lambda: os.path.exists(saved), 'the CSV file')
rows = open(saved).read().splitlines()
check(rows[0] == 'question,client,option,right' and len(rows) == 101, f'the CSV has a header and 100 answers: {len(rows)} lines')
counted = {o: sum(1 for r in rows[1:] if r.split(',')[2] == o) for o in 'abcd'}
check(counted == {'a': 27, 'b': 25, 'c': 24, 'd': 24} and all(r.startswith(q['id'] + ',') for r in rows[1:]),
      f'its answers are the phones’ last ones: {counted}')
check(all(r.endswith(',1') == (r.split(',')[2] == right) for r in rows[1:]), 'and say which were right')

hits = app.find('push button', equals=_('_Review These').replace('_', ''))
check(hits, 'the end has Review These')
hits[0][1].queryAction().doAction(0)
app.wait_label(lambda t: t == q['text'], 'the hardest question in the main window', timeout=15)
check(True, 'Review These: the main window asks the question the room found hardest')
app.quit()

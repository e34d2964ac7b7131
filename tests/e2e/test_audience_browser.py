"""The audience page in a real browser at a phone's size.

    test_audience_browser.py LANG SCREENSHOT_DIR

Headless Chromium (Debian's chromium and chromium-driver), 390×844 CSS pixels, its
language LANG, opens the address the slide shows: the page is in LANG, shows the
question and the four options as the projector does; the phone taps one, changes it
(the app counts one answer, the last); Space on the projector reveals: the page
says whether the phone was right, marks the right option and shows the explanation;
the language switch turns the page into the other language.  Screenshots of each
step are saved for a person to look at."""

import gettext
import os
import sys
import tempfile
import time

import audiencetest
import webdriver
from gmltest import BUILD, bank, c_format, check, wait_for

lang = sys.argv[1]
other = 'en' if lang == 'tr' else 'tr'
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
os.makedirs(shots, exist_ok=True)


def translator(language):
    return gettext.translation('gpu-memory-lab', localedir=os.path.join(BUILD, 'po', 'locale'),
                               languages=[language], fallback=True)


catalogue = translator(lang)
_ = catalogue.gettext
BANK = {q['id']: q for q in bank(lang)}

check(webdriver.available(), 'Debian’s chromium and chromium-driver are installed')
app, url, room, base = audiencetest.start(lang, _)
status, state = audiencetest.request(base, f'/api/state?room={room}&lang={lang}')
q = BANK[state['question']]

phone = webdriver.Browser(lang)
try:
    phone.go(url)
    wait_for(lambda: phone.text('#question') == q['text'], 'the question on the phone')
    check(phone.script('return document.documentElement.lang') == lang,
          f'the page follows the phone’s language: {lang}')
    options = phone.script('return Array.from(document.querySelectorAll("#options button"), b => b.textContent)')
    check(options == [f'{l.upper()}. {t}' for l, t in zip('abcd', state['option_texts'])],
          'the four options, in the projector’s order')
    check(phone.script('return document.documentElement.scrollWidth <= window.innerWidth'),
          'nothing wider than the phone (portrait, 390 px)')
    wait_for(lambda: phone.script('return window.gmlLiveOpen()'), 'the page’s live socket')
    check(True, 'the page keeps a WebSocket open for the lecturer’s moves')
    phone.screenshot(os.path.join(shots, f'audience-phone-question-{lang}.png'))
    check(phone.text('#status') == _('Tap your answer. You can change it until the vote closes.'),
          'it asks for an answer')

    phone.click('#options button[data-option="a"]')
    chosen = c_format(_('Your answer: %s. You can change it until the vote closes.'), 'A')
    wait_for(lambda: phone.text('#status') == chosen, f'“{chosen}”')
    check(True, f'tapped A: “{chosen}”')
    phone.click('#options button[data-option="c"]')
    chosen = c_format(_('Your answer: %s. You can change it until the vote closes.'), 'C')
    wait_for(lambda: phone.text('#status') == chosen, f'“{chosen}”')
    check(phone.script('return document.querySelector("[data-option=c]").getAttribute("aria-pressed")') == 'true',
          'changed to C: it is the one pressed')
    client = phone.script('return localStorage.getItem("gml-client")')
    status, mine = audiencetest.request(base, f'/api/state?room={room}&client={client}&lang={lang}')
    check(mine['answer'] == 'c', 'the app keeps the last answer of this phone')
    joined = c_format(catalogue.ngettext('%u joined', '%u joined', 1), 1)
    answered = c_format(catalogue.ngettext('%u answered', '%u answered', 1), 1)
    counts = c_format(_('%s · %s'), joined, answered)
    app.wait_label(lambda t: t == counts, f'“{counts}”')
    check(True, f'the projector counts one phone, one answer: “{counts}”')
    phone.screenshot(os.path.join(shots, f'audience-phone-answered-{lang}.png'))

    app.key('space')
    right = state['options'][state['option_texts'].index(next(o['text'] for o in q['options'] if o['correct']))]
    if right == 'c':
        verdict = c_format(_('Right: the answer is %s.'), 'C')
    else:
        verdict = c_format(_('Not this time: the answer is %s, you chose %s.'), right.upper(), 'C')
    # With the socket open the page polls only every 10 s: seeing the reveal within
    # 3 s means the socket told it.
    revealed_at = time.monotonic()
    wait_for(lambda: phone.text('#status') == verdict, f'“{verdict}” on the phone', timeout=3)
    check(True, f'revealed: the phone says “{verdict}” after {time.monotonic() - revealed_at:.1f} s')
    check(phone.script(f'return document.querySelector("[data-option={right}]").classList.contains("right")'),
          f'the right option ({right.upper()}) is marked')
    check(len(phone.text('#explanation') or '') > 40, 'the explanation is shown')
    check(all(phone.script('return Array.from(document.querySelectorAll("#options button"), b => b.disabled)')),
          'the options cannot be tapped once the vote is closed')
    phone.screenshot(os.path.join(shots, f'audience-phone-revealed-{lang}.png'))

    phone.click(f'.languages button[data-lang="{other}"]')
    theirs = translator(other).gettext
    if right == 'c':
        verdict = c_format(theirs('Right: the answer is %s.'), 'C')
    else:
        verdict = c_format(theirs('Not this time: the answer is %s, you chose %s.'), right.upper(), 'C')
    wait_for(lambda: phone.text('#status') == verdict, f'“{verdict}” after the switch', timeout=10)
    check(phone.script('return document.documentElement.lang') == other,
          f'the switch turns the page into {other}: “{verdict}”')
    other_text = {x['id']: x for x in bank(other)}[q['id']]['text']
    check(phone.text('#question') == other_text, 'the question too')
    phone.screenshot(os.path.join(shots, f'audience-phone-switched-{lang}.png'))
finally:
    phone.close()
app.key('Escape')
time.sleep(1)
app.quit()

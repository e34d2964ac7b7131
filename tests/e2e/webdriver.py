# SPDX-License-Identifier: GPL-3.0-or-later
"""A small W3C WebDriver client for the tests: Debian's chromedriver drives Debian's
chromium, headless, at a phone's size. Only what the audience page's test needs."""

import base64
import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.request

CHROMIUM = '/usr/bin/chromium'
CHROMEDRIVER = '/usr/bin/chromedriver'


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Browser:
    def __init__(self, lang, width=390, height=844):
        """A phone: WIDTH×HEIGHT CSS pixels, touch, its language LANG."""
        self.port = _free_port()
        self.profile = tempfile.mkdtemp(prefix='gml-chromium-')
        self.driver = subprocess.Popen([CHROMEDRIVER, f'--port={self.port}'],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                self._call('GET', '/status')
                break
            except OSError:
                time.sleep(0.2)
        # The flags the workplace's machines need: no sandbox as root, no GPU, and no
        # background connections to a network that is closed.
        args = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
                '--disable-background-networking', '--disable-component-update', '--disable-sync',
                '--disable-dev-shm-usage', f'--user-data-dir={self.profile}', f'--lang={lang}']
        caps = {'capabilities': {'alwaysMatch': {
            'browserName': 'chrome',
            'goog:chromeOptions': {
                'binary': CHROMIUM, 'args': args,
                'prefs': {'intl.accept_languages': lang},
                'mobileEmulation': {'deviceMetrics': {'width': width, 'height': height, 'pixelRatio': 2,
                                                      'touch': True}},
            }}}}
        self.session = self._call('POST', '/session', caps)['sessionId']

    def _call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f'http://127.0.0.1:{self.port}{path}', data=data, method=method,
                                     headers={'Content-Type': 'application/json'})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())['value']

    def _s(self, method, path, body=None):
        return self._call(method, f'/session/{self.session}{path}', body)

    def go(self, url):
        self._s('POST', '/url', {'url': url})

    def script(self, source, *args):
        return self._s('POST', '/execute/sync', {'script': source, 'args': list(args)})

    def text(self, css):
        return self.script('const e = document.querySelector(arguments[0]); return e ? e.textContent : null;', css)

    def click(self, css):
        element = self._s('POST', '/element', {'using': 'css selector', 'value': css})
        key = next(iter(element))
        self._s('POST', f'/element/{element[key]}/click', {})

    def screenshot(self, path):
        with open(path, 'wb') as f:
            f.write(base64.b64decode(self._s('GET', '/screenshot')))

    def close(self):
        try:
            self._call('DELETE', f'/session/{self.session}')
        except OSError:
            pass
        self.driver.kill()
        self.driver.wait()


def available():
    return os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)

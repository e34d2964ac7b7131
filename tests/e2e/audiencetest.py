# SPDX-License-Identifier: GPL-3.0-or-later
"""Audience mode for the tests: the app presenting with audience mode on, on loopback,
and requests to it as a phone makes them."""

import json
import re
import socket
import tempfile
import urllib.error
import urllib.request

from gmltest import App, check


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def start(lang, _):
    """The app, presenting (F5) with audience mode on (F6) on a free loopback port:
    (app, the projected address, the room code, the server's base address)."""
    port = free_port()
    app = App(tempfile.mkdtemp(prefix='gml-e2e-audience-'), lang, args=['--audience-port', str(port)],
              env={'GML_AUDIENCE_ADDRESS': '127.0.0.1', 'GML_LIBCUDA': '/nonexistent/libcuda.so.1'})
    app.key('F5')
    app.wait_label(lambda t: t == _('Audience'), 'with the Audience button', timeout=20)
    check(True, 'F5: the presentation has an Audience button')
    app.key('F6')
    prefix = f'http://127.0.0.1:{port}/?room='
    url = app.wait_label(lambda t: t.startswith(prefix), f'starting “{prefix}”', timeout=20)
    room = url[len(prefix):]
    check(re.fullmatch(r'\d{4}', room) is not None,
          f'F6: the slide shows the address with a four-digit code: {url}')
    return app, url, room, f'http://127.0.0.1:{port}'


def request(base, path, body=None, raw=None):
    """(status, JSON) of a GET, or of a POST of body (JSON) or raw bytes."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(base + path, data=data, method='POST' if data is not None else 'GET',
                                 headers={'Content-Type': 'application/json'})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b'null')
    except urllib.error.HTTPError as e:
        text = e.read()
        return e.code, (json.loads(text) if text else None)


def live_socket(base, room):
    """A WebSocket on /api/live, handshaken by hand: (HTTP status, the socket or None)."""
    import base64
    import os
    host, port = base[len('http://'):].split(':')
    sock = socket.create_connection((host, int(port)), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f'GET /api/live?room={room} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n'
                  f'Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n').encode())
    head = b''
    while b'\r\n\r\n' not in head:
        chunk = sock.recv(1)
        if not chunk:
            break
        head += chunk
    status = int(head.split(b' ', 2)[1]) if head else 0
    if status != 101:
        sock.close()
        return status, None
    return status, sock


def live_message(sock, timeout=10):
    """The next text message the server sends on a live socket (unmasked frames)."""
    sock.settimeout(timeout)

    def read(n):
        data = b''
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError('the live socket closed')
            data += chunk
        return data

    while True:
        first, second = read(2)
        length = second & 0x7f
        if length == 126:
            length = int.from_bytes(read(2), 'big')
        elif length == 127:
            length = int.from_bytes(read(8), 'big')
        payload = read(length)
        if first & 0x0f == 1:
            return payload.decode()

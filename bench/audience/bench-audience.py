#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Audience mode under a lecture hall's load: N simulated students on loopback (500 by
default) open the page, join and answer the question the moment it appears, some of
them changing their answer, and then the lecturer reveals. Measured:

  - the time from the question appearing (the first phone's request) to the last answer
    taken, and whether every answer was counted exactly once (the app's counts);
  - how long after the last answer the projector showed the final count (the app's
    own debug mark "gml-audience … at=" against the client's clock, both
    CLOCK_MONOTONIC);
  - the projector's frames while the answers come in (the gaps between painted frames);
  - the app's resident memory before and after.

A benchmark, not a test; the client is bounded in students and time and stops by
itself. Run it inside a display, from the repository root:

    tests/e2e/run-in-session.sh /usr/bin/python3 bench/audience/bench-audience.py _build [N] [RUNS]
"""

import concurrent.futures
import os
import re
import statistics
import sys
import tempfile
import threading
import time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '_build')
students = int(sys.argv[2]) if len(sys.argv) > 2 else 500
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', '..', 'tests', 'e2e'))
os.environ.setdefault('GML_APP', os.path.join(build, 'src', 'app', 'gpu-memory-lab'))
os.environ.setdefault('GML_BUILD_ROOT', build)

import gmltest  # noqa: E402
import audiencetest  # noqa: E402

gmltest.APP = os.environ['GML_APP']
gmltest.BUILD = build
DEADLINE_S = 60


def rss_kib(pid):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


def one_run():
    log_path = tempfile.mktemp(prefix='gml-bench-audience-', suffix='.log')
    log = open(log_path, 'w')
    port = audiencetest.free_port()
    app = gmltest.App(tempfile.mkdtemp(prefix='gml-bench-audience-'), 'en',
                      args=['--audience-port', str(port)], stdout=log,
                      env={'GML_AUDIENCE_ADDRESS': '127.0.0.1', 'GML_LIBCUDA': '/nonexistent/libcuda.so.1',
                           'G_MESSAGES_DEBUG': 'gml-presentation-window'})
    app.key('F5')
    app.wait_label(lambda t: t == 'Audience', 'with the Audience button', timeout=20)
    app.key('F6')
    prefix = f'http://127.0.0.1:{port}/?room='
    url = app.wait_label(lambda t: t.startswith(prefix), 'with the address', timeout=20)
    room = url[len(prefix):]
    base = f'http://127.0.0.1:{port}'
    time.sleep(1)
    rss_before = rss_kib(app.proc.pid)
    status, state = audiencetest.request(base, f'/api/state?room={room}')
    question = state['question']
    plan = ['abcd'[i % 4] for i in range(students)]
    stop_at = time.monotonic() + DEADLINE_S
    done_at = []
    lock = threading.Lock()

    def student(i):
        if time.monotonic() > stop_at:
            return False
        client = f'student-{i:05d}'
        s, _ = audiencetest.request(base, f'/api/state?room={room}&client={client}')
        if s != 200:
            return False
        if i % 10 == 0:   # one in ten changes its mind
            audiencetest.request(base, '/api/answer', {'room': room, 'client': client, 'question': question,
                                                       'option': 'abcd'[(i + 1) % 4]})
        s, body = audiencetest.request(base, '/api/answer', {'room': room, 'client': client,
                                                             'question': question, 'option': plan[i]})
        with lock:
            done_at.append(time.monotonic())
        return s == 200 and body['option'] == plan[i]

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=64) as pool:
        taken = list(pool.map(student, range(students)))
    last = max(done_at)
    deadline = time.time() + 10
    final = None
    while time.time() < deadline and final is None:
        log.flush()
        for line in open(log_path):
            m = re.search(r'gml-audience joined=(\d+) answered=(\d+) at=(\d+)', line)
            if m and int(m.group(2)) == students:
                final = int(m.group(3)) / 1e6
                break
        time.sleep(0.1)
    frames = []
    for line in open(log_path):
        m = re.search(r'gml-frame at=(\d+)', line)
        if m:
            t = int(m.group(1)) / 1e6
            if start <= t <= last + 0.5:
                frames.append(t)
    gaps = [b - a for a, b in zip(frames, frames[1:])]
    status, _ = audiencetest.request(base, f'/api/state?room={room}')
    app.key('space')
    time.sleep(1)
    rss_after = rss_kib(app.proc.pid)
    app.key('Escape')
    time.sleep(1)
    app.quit()
    return {
        'answers': sum(taken), 'answer_s': last - start,
        'count_exact': final is not None, 'shown_after_ms': (final - last) * 1000 if final else None,
        'frames': len(frames), 'max_gap_ms': max(gaps) * 1000 if gaps else None,
        'median_gap_ms': statistics.median(gaps) * 1000 if gaps else None,
        'rss_growth_mib': (rss_after - rss_before) / 1024,
    }


results = [one_run() for _ in range(runs)]
for r in results:
    print(f"{students} students: {r['answers']} answers taken in {r['answer_s']:.2f} s; "
          f"the projector counted all {students}: {r['count_exact']}, "
          f"{r['shown_after_ms']:.0f} ms after the last answer; "
          f"{r['frames']} frames, gaps median {r['median_gap_ms']:.0f} ms, max {r['max_gap_ms']:.0f} ms; "
          f"memory +{r['rss_growth_mib']:.1f} MiB")

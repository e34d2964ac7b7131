#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Crash safety of the answer log: SIGKILL while saving, again and again.

crash-helper records answers through GmlProgress (one atomic save per answer)
and prints "ack N" once answer N is saved. This test kills it with SIGKILL at
a random moment, checks the log on disk, starts it again, and so on until the
log holds TOTAL answers. After every kill the log must load as a whole and be
the old or the new version: exactly answers 1..K, where K is the last answer
acknowledged or the one after it (killed after the save, before the ack). An
acknowledged answer is never lost.

With --background the helper saves as the app does, in a worker, coalescing
the answers of a burst (one to three) into one write, and acknowledges a burst
once it is on disk: then the log may hold up to the whole unacknowledged burst.

Usage: test_crash_safety.py CRASH-HELPER [TOTAL] [--background]
Environment: GML_CRASH_SEED (random seed), GML_CRASH_MAX_DELAY_MS (default 15).
"""

import glob
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

BACKGROUND = '--background' in sys.argv
ARGS = [a for a in sys.argv[1:] if a != '--background']
HELPER = ARGS[0]
TOTAL = int(ARGS[1]) if len(ARGS) > 1 else 1000
# Answers a save may hold beyond the last acknowledged one: the one being saved,
# or a whole burst in background mode.
AHEAD = 3 if BACKGROUND else 1
SEED = int(os.environ.get('GML_CRASH_SEED', random.randrange(1 << 30)))
MAX_DELAY = float(os.environ.get('GML_CRASH_MAX_DELAY_MS', '15')) / 1000.0


def check_log(path):
    """Number of answers in the log (0 if there is none); fails if it is damaged."""
    if not os.path.exists(path):
        return 0
    proc = subprocess.run([HELPER, '--check', path], capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f'the log does not load: {proc.stderr.strip()}')
    return int(proc.stdout)


def main():
    rng = random.Random(SEED)
    print(f'seed {SEED} (GML_CRASH_SEED), total {TOTAL}, kills within {MAX_DELAY * 1000:.0f} ms, '
          f'{"background" if BACKGROUND else "synchronous"} saves')
    tmp = tempfile.mkdtemp(prefix='gml-crash-')
    log = os.path.join(tmp, 'data', 'progress.json')
    on_disk = 0          # answers in the log after the last check
    kills = 0
    kills_after_ack_gap = 0
    start = time.monotonic()
    try:
        while on_disk < TOTAL:
            mode = ['--background'] if BACKGROUND else []
            proc = subprocess.Popen([HELPER, *mode, log, str(TOTAL)], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            lines = []
            ready = threading.Event()

            def read():
                for line in proc.stdout:
                    lines.append(line)
                    ready.set()
                ready.set()

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            # The clock starts once the helper has loaded the log and begun
            # answering, so every kill lands while it records and saves (and a
            # slow start, under a sanitizer or valgrind, is not a kill in vain).
            ready.wait(timeout=60)
            try:
                proc.wait(timeout=rng.uniform(0, MAX_DELAY))
                killed = False
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                killed = True
                kills += 1
            reader.join()
            stderr = proc.stderr.read()
            if not killed and proc.returncode != 0:
                raise AssertionError(f'the helper failed ({proc.returncode}): {stderr.strip()}')

            started = [int(l.split()[1]) for l in lines if l.startswith('start ')]
            acked = [int(l.split()[1]) for l in lines if l.startswith('ack ')]
            if started and started[0] != on_disk:
                raise AssertionError(f'the helper loaded {started[0]} answers, the log held {on_disk}')
            last_ack = max(acked, default=on_disk)
            now = check_log(log)
            # The old or the new version: the last acknowledged answer, or the one
            # being saved (written, renamed, but killed before it said so).
            if now < last_ack:
                raise AssertionError(f'answer {now + 1}..{last_ack} acknowledged and lost '
                                     f'(log holds {now})')
            if now > last_ack + AHEAD:
                raise AssertionError(f'log holds {now} answers, only {last_ack} acknowledged')
            if now > last_ack:
                kills_after_ack_gap += 1
            on_disk = now

        corrupt = glob.glob(os.path.join(tmp, 'data', '*.corrupt-*'))
        leftovers = [p for p in glob.glob(os.path.join(tmp, 'data', 'progress.json.*'))
                     if p not in corrupt]
        if corrupt:
            raise AssertionError(f'logs were set aside as damaged: {corrupt}')
        elapsed = time.monotonic() - start
        print(f'ok: {TOTAL} answers, {kills} SIGKILLs in {elapsed:.1f} s, no answer lost; '
              f'{kills_after_ack_gap} kills fell between a save and its acknowledgement; '
              f'{len(leftovers)} temporary files left by killed saves')
        return 0
    except AssertionError as e:
        print(f'FAIL (seed {SEED}): {e}')
        return 1
    finally:
        shutil.rmtree(tmp)


if __name__ == '__main__':
    sys.exit(main())

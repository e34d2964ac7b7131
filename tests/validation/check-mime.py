#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pickle type the app declares: its shared-mime-info package compiles with
update-mime-database, gives application/x-python-pickle to *.pickle and *.pkl, and
the desktop file (MimeType) and the metainfo (provides/mediatype) name that type.

    check-mime.py MIME_XML DESKTOP_FILE METAINFO"""

import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

mime_xml, desktop, metainfo = sys.argv[1:4]
TYPE = 'application/x-python-pickle'
failures = []


def check(condition, message):
    print(('ok: ' if condition else 'FAIL: ') + message)
    if not condition:
        failures.append(message)


with tempfile.TemporaryDirectory() as root:
    packages = os.path.join(root, 'mime', 'packages')
    os.makedirs(packages)
    shutil.copy(mime_xml, os.path.join(packages, 'io.github.gpumemorylab.GpuMemoryLab.xml'))
    # With the folder on the search path, so the tool has nothing to remark on it.
    env = dict(os.environ, XDG_DATA_DIRS=root)
    result = subprocess.run(['update-mime-database', os.path.join(root, 'mime')],
                            capture_output=True, text=True, env=env)
    check(result.returncode == 0 and not result.stderr.strip(),
          f'update-mime-database compiles the package {result.stderr.strip()}')
    globs = open(os.path.join(root, 'mime', 'globs2'), encoding='utf-8').read() \
        if os.path.exists(os.path.join(root, 'mime', 'globs2')) else ''
    for pattern in ('*.pickle', '*.pkl'):
        check(f':{TYPE}:{pattern}' in globs, f'{pattern} is {TYPE}')

with open(desktop, encoding='utf-8') as f:
    mime_lines = [l.strip() for l in f if l.startswith('MimeType=')]
check(len(mime_lines) == 1 and TYPE in mime_lines[0].split('=', 1)[1].split(';'),
      f'the desktop file declares MimeType={TYPE};')
with open(desktop, encoding='utf-8') as f:
    exec_lines = [l.strip() for l in f if l.startswith('Exec=')]
check(exec_lines and ('%F' in exec_lines[0] or '%U' in exec_lines[0] or '%f' in exec_lines[0]),
      'the desktop file passes files to the app (Exec … %F)')

types = [m.text for m in ET.parse(metainfo).getroot().findall('provides/mediatype')]
check(TYPE in types, f'the metainfo provides the media type {TYPE}')

if failures:
    sys.exit(1)

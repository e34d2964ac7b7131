#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every screenshot the metainfo names is in this repository, where its URL says:
https://raw.githubusercontent.com/gpumemorylab/gpu-memory-lab/main/PATH is PATH here.
Each is a PNG of the size the metainfo gives, has a caption, and one is the default.

    check-screenshots.py SOURCE_ROOT METAINFO"""

import os
import struct
import sys
import xml.etree.ElementTree as ET

source_root, metainfo = sys.argv[1:3]
PREFIX = 'https://raw.githubusercontent.com/gpumemorylab/gpu-memory-lab/main/'
failures = []


def check(condition, message):
    print(('ok: ' if condition else 'FAIL: ') + message)
    if not condition:
        failures.append(message)


def png_size(path):
    with open(path, 'rb') as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b'\x89PNG\r\n\x1a\n' or head[12:16] != b'IHDR':
        return None
    return struct.unpack('>II', head[16:24])


root = ET.parse(metainfo).getroot()
homepage = [u.text for u in root.findall('url') if u.get('type') == 'homepage']
check(homepage == ['https://github.com/gpumemorylab/gpu-memory-lab'],
      'the screenshots live in the repository the homepage names')
shots = root.findall('screenshots/screenshot')
check(len(shots) >= 1, f'the metainfo names screenshots ({len(shots)})')
check(sum(1 for s in shots if s.get('type') == 'default') == 1, 'exactly one is the default')

for shot in shots:
    captions = [c for c in shot.findall('caption') if c.get('{http://www.w3.org/XML/1998/namespace}lang') is None]
    check(len(captions) == 1 and (captions[0].text or '').strip() != '',
          'the screenshot has a caption')
    for image in shot.findall('image'):
        url = (image.text or '').strip()
        check(url.startswith(PREFIX), f'{url} is in this repository’s main branch')
        if not url.startswith(PREFIX):
            continue
        rel = url[len(PREFIX):]
        path = os.path.join(source_root, *rel.split('/'))
        check(os.path.isfile(path), f'{rel} exists')
        if not os.path.isfile(path):
            continue
        size = png_size(path)
        check(size is not None, f'{rel} is a PNG')
        if size is None:
            continue
        want = (int(image.get('width', size[0])), int(image.get('height', size[1])))
        check(size == want, f'{rel} is {size[0]}x{size[1]}, as the metainfo says ({want[0]}x{want[1]})')
        check(size[0] >= 620 and size[1] >= 350, f'{rel} is large enough for a software centre')

if failures:
    print(f'{len(failures)} check(s) failed', file=sys.stderr)
    sys.exit(1)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Installs the compiled catalogues as LOCALEDIR/LANG/LC_MESSAGES/DOMAIN.mo."""

import os
import shutil
import sys

builddir, localedir, domain = sys.argv[1:4]
langs = sys.argv[4:]
root = os.environ.get('DESTDIR', '')
for lang in langs:
    dest = os.path.join(localedir, lang, 'LC_MESSAGES')
    if root:
        dest = root + dest if os.path.isabs(dest) else os.path.join(root, dest)
    os.makedirs(dest, exist_ok=True)
    shutil.copyfile(os.path.join(builddir, lang + '.gmo'), os.path.join(dest, domain + '.mo'))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compiles one PO file with msgfmt --check, and also places the catalogue in a
locale tree inside the build directory (LANG/LC_MESSAGES/DOMAIN.mo) so the
uninstalled app and the tests can use it."""

import os
import shutil
import subprocess
import sys

po, out, tree, lang, domain = sys.argv[1:6]
subprocess.run(['msgfmt', '--check', '-o', out, po], check=True)
dest = os.path.join(tree, lang, 'LC_MESSAGES')
os.makedirs(dest, exist_ok=True)
shutil.copyfile(out, os.path.join(dest, domain + '.mo'))

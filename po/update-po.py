#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Regenerates the .pot and merges it into every PO file listed in LINGUAS."""

import os
import subprocess
import sys

srcdir = sys.argv[1]
podir = os.path.join(srcdir, 'po')
pot = os.path.join(podir, 'gpu-memory-lab.pot')
subprocess.run([sys.executable, os.path.join(podir, 'make-pot.py'), srcdir, pot], check=True)
with open(os.path.join(podir, 'LINGUAS')) as f:
    for lang in f.read().split():
        if lang.startswith('#'):
            continue
        subprocess.run(['msgmerge', '--update', '--backup=none', '--no-fuzzy-matching',
                        os.path.join(podir, lang + '.po'), pot], check=True)

# SPDX-License-Identifier: GPL-3.0-or-later
"""The real PyTorch snapshots, for the Python tests that need them.

They come from other people's repositories and are never copied into this one:
GML_SNAPSHOT_FIXTURES (or meson's -Dsnapshot_fixtures) names the folder that
holds them, and a test that needs them and finds none exits 77, which meson
reports as skipped, never as passed.
"""

import os
import sys

SKIPPED = 77


def folder():
    return os.environ.get('GML_SNAPSHOT_FIXTURES') or None


def path(name):
    """The file's path, or None when the folder or the file is missing."""
    d = folder()
    if d is None:
        return None
    p = os.path.join(d, name)
    return p if os.path.isfile(p) else None


def require(*names):
    """The paths of @names; exits 77 (skipped) when any is missing."""
    found = [path(n) for n in names]
    if None in found:
        missing = [n for n, p in zip(names, found) if p is None]
        print(f'SKIP: {", ".join(missing)} not in GML_SNAPSHOT_FIXTURES '
              f'({folder() or "not set"}): the real snapshots are not here')
        sys.exit(SKIPPED)
    return found


def all_snapshots():
    """Every *.pickle in the folder, sorted; exits 77 when there is no folder."""
    d = folder()
    if d is None or not os.path.isdir(d):
        print('SKIP: GML_SNAPSHOT_FIXTURES is not set: the real snapshots are not here')
        sys.exit(SKIPPED)
    names = sorted(n for n in os.listdir(d) if n.endswith(('.pickle', '.pkl')))
    if not names:
        print(f'SKIP: no snapshots in {d}')
        sys.exit(SKIPPED)
    return [os.path.join(d, n) for n in names]

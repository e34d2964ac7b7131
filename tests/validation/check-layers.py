#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The house's layer rules, checked on every #include in src/.

    src/core      GLib, GIO, GModule and json-glib only; its domains in one order:
                  base < engine < snapshot < live, engine < lab < quiz, and
                  base < audience
    src/render    core and render; Cairo and Pango, never GTK
    src/model     core, render and model; GIO, never GTK
    src/cli       core, render, model and cli; never GTK
    src/app       anything below it, never cli; a view folder includes only its own
                  files, widgets/ and the app's top; widgets/ includes no view
    src/main.c    everything

A header named *-private.h is included only from its own folder.

Usage: check-layers.py SRCDIR. Prints every crossing and exits 1 if there is one.
"""

import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)
TOOLKIT = ('gtk/', 'gdk/', 'adwaita.h', 'gsk/', 'graphene')

# What each core domain may include besides itself.
CORE_ORDER = {
    'base': set(),
    'engine': {'base'},
    'snapshot': {'base', 'engine'},
    'live': {'base', 'engine', 'snapshot'},
    'lab': {'base', 'engine'},
    'quiz': {'base', 'engine', 'lab'},
    'audience': {'base'},
}
APP_VIEWS = {'quiz', 'snapshot', 'live', 'lab', 'lecture'}


def folder_of(path, src):
    """('core', 'engine'), ('app', 'quiz'), ('app', ''), ('render', ''), ('main', '')."""
    rel = os.path.relpath(path, src).split(os.sep)
    if len(rel) == 1:
        return ('main', '')
    layer = rel[0]
    sub = rel[1] if len(rel) > 2 else ''
    return (layer, sub)


def main():
    src = sys.argv[1]
    headers = {}
    sources = []
    for root, _dirs, files in os.walk(src):
        for name in files:
            if name.endswith(('.c', '.h')):
                path = os.path.join(root, name)
                sources.append(path)
                if name.endswith('.h'):
                    if name in headers:
                        print(f'{path}: a second header named {name} ({headers[name]})')
                        return 1
                    headers[name] = path

    problems = []
    for path in sorted(sources):
        layer, sub = folder_of(path, src)
        text = open(path, encoding='utf-8').read()
        for kind, name in INCLUDE.findall(text):
            where = f'{os.path.relpath(path, src)}: #include {name}'
            if kind == '<':
                if layer in ('core', 'render', 'model', 'cli') and name.startswith(TOOLKIT):
                    problems.append(f'{where}: {layer} never includes the toolkit')
                continue
            base = os.path.basename(name)
            if base not in headers:
                continue        # config.h, generated resources, headers outside src/
            target = headers[base]
            t_layer, t_sub = folder_of(target, src)
            if base.endswith('-private.h') and os.path.dirname(target) != os.path.dirname(path):
                problems.append(f'{where}: a private header of {os.path.relpath(os.path.dirname(target), src)}')
            if layer == 'main':
                continue
            allowed = {
                'core': {'core'},
                'render': {'core', 'render'},
                'model': {'core', 'render', 'model'},
                'cli': {'core', 'render', 'model', 'cli'},
                'app': {'core', 'render', 'model', 'app'},
            }[layer]
            if t_layer not in allowed:
                problems.append(f'{where}: {layer} may not include {t_layer}')
                continue
            if layer == 'core' and t_layer == 'core':
                if sub not in CORE_ORDER:
                    problems.append(f'{where}: core/{sub or "(top)"} is not a domain folder')
                elif t_sub != sub and t_sub not in CORE_ORDER[sub]:
                    problems.append(f'{where}: core/{sub} may not include core/{t_sub}')
            if layer == 'app' and t_layer == 'app':
                if sub in APP_VIEWS and t_sub not in ('', 'widgets', sub):
                    problems.append(f'{where}: the {sub} view may not include the {t_sub} view')
                if sub == 'widgets' and t_sub != 'widgets':
                    problems.append(f'{where}: widgets/ may not include app/{t_sub or "(top)"}')

    # No source file at the top of src/core: everything lives in a domain.
    for name in os.listdir(os.path.join(src, 'core')):
        if name.endswith(('.c', '.h')):
            problems.append(f'core/{name}: outside every domain folder')

    for p in problems:
        print(p)
    print(f'{len(sources)} files checked, {len(problems)} crossings')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())

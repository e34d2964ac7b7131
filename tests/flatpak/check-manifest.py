#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Flatpak manifest as flatpak-builder reads it: it parses, it names the app, the
runtime and the permissions the app needs and no others, it builds the app from this
checkout with meson options that exist, and every local path it names exists.

    check-manifest.py FLATPAK_BUILDER MANIFEST SOURCE_ROOT"""

import json
import os
import re
import subprocess
import sys
import tempfile

flatpak_builder, manifest_path, source_root = sys.argv[1:4]
manifest_path = os.path.abspath(manifest_path)
manifest_dir = os.path.dirname(manifest_path)
failures = []


def check(condition, message):
    print(('ok: ' if condition else 'FAIL: ') + message)
    if not condition:
        failures.append(message)


# flatpak-builder leaves a .flatpak-builder state folder in its working directory:
# keep it out of the checkout.
with tempfile.TemporaryDirectory(prefix='gml-flatpak-') as cwd:
    result = subprocess.run([flatpak_builder, '--show-manifest', manifest_path],
                            cwd=cwd, capture_output=True, text=True)
if result.returncode != 0:
    print('FAIL: flatpak-builder --show-manifest could not read the manifest:\n' + result.stderr)
    sys.exit(1)
check(True, 'flatpak-builder --show-manifest parses the manifest')
manifest = json.loads(result.stdout)

app_id = 'io.github.gpumemorylab.GpuMemoryLab'
check(manifest.get('id', manifest.get('app-id')) == app_id, f'the id is {app_id}')
check(os.path.basename(manifest_path) == app_id + '.json', 'the file is named after the id')
check(manifest.get('runtime') == 'org.gnome.Platform', 'the runtime is org.gnome.Platform')
check(manifest.get('sdk') == 'org.gnome.Sdk', 'the SDK is org.gnome.Sdk')
version = str(manifest.get('runtime-version', ''))
check(re.fullmatch(r'[0-9]+', version) is not None and int(version) >= 49,
      f'the runtime is a current GNOME release (got “{version}”)')
check(manifest.get('command') == 'gpu-memory-lab', 'the command is gpu-memory-lab')

finish_args = manifest.get('finish-args', [])
# --share=network: audience mode serves the phones in the room (src/app/lecture).
needed = ['--share=ipc', '--share=network', '--socket=fallback-x11', '--socket=wayland', '--device=dri']
for arg in needed:
    check(arg in finish_args, f'finish-args has {arg}')
extra = [a for a in finish_args if a not in needed]
check(not extra, f'finish-args asks for nothing more (extra: {extra})')
check('--socket=x11' not in finish_args, 'X11 only as a fallback')

modules = manifest.get('modules', [])
app_modules = [m for m in modules if isinstance(m, dict) and m.get('name') == 'gpu-memory-lab']
check(len(app_modules) == 1, 'one module builds gpu-memory-lab')
app = app_modules[0] if app_modules else {}
check(app.get('buildsystem') == 'meson', 'the app module is built with meson')
opts = app.get('config-opts', [])
check('-Dtests=false' in opts, 'the app module is configured with -Dtests=false')

# Every -Dname=value must be an option this checkout declares (meson would stop on it).
with open(os.path.join(source_root, 'meson_options.txt'), encoding='utf-8') as f:
    declared = set(re.findall(r"option\(\s*'([^']+)'", f.read()))
for opt in opts:
    m = re.fullmatch(r'-D([A-Za-z0-9_-]+)=(.*)', opt)
    check(m is not None and m.group(1) in declared, f'config-opt {opt} is a declared meson option')
# The SDK has no cuda.h: the Flatpak must use our own declarations.
check('-Dcudatypes=own' in opts, 'the CUDA backend is built with our own driver API declarations')


def sources_of(module):
    for source in module.get('sources', []):
        if isinstance(source, dict):
            yield source
    for sub in module.get('modules', []):
        if isinstance(sub, dict):
            yield from sources_of(sub)


local = []
for module in modules:
    if isinstance(module, str):
        local.append(module)  # a module included from its own file
        continue
    for source in sources_of(module):
        for key in ('path', 'paths'):
            value = source.get(key)
            if value is None:
                continue
            local.extend(value if isinstance(value, list) else [value])
        check(source.get('type') in ('dir', 'file', 'patch', 'archive', 'git', 'script', 'shell'),
              f'source type {source.get("type")} is a known one')
        if source.get('type') in ('archive', 'file') and 'url' in source:
            check(len(source.get('sha256', '')) == 64, f'{source["url"]} has a sha256')

check(bool(local), 'the manifest names local paths (the app is built from this checkout)')
for path in local:
    full = os.path.normpath(os.path.join(manifest_dir, path))
    check(os.path.exists(full), f'local path “{path}” exists ({full})')

dirs = [s for m in app_modules for s in sources_of(m) if s.get('type') == 'dir']
check(len(dirs) == 1, 'the app comes from one dir source')
if dirs:
    root = os.path.normpath(os.path.join(manifest_dir, dirs[0]['path']))
    check(os.path.isdir(root) and os.path.samefile(root, source_root), 'the dir source is this checkout’s root')
    try:
        with open(os.path.join(root, 'meson.build'), encoding='utf-8') as f:
            check("project('gpu-memory-lab'" in f.read(), 'its meson.build is the gpu-memory-lab project')
    except OSError as e:
        check(False, f'its meson.build can be read ({e})')

if failures:
    print(f'{len(failures)} check(s) failed', file=sys.stderr)
    sys.exit(1)

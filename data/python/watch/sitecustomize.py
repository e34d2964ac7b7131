# SPDX-License-Identifier: GPL-3.0-or-later
"""Put on PYTHONPATH by `gpu-memory-lab watch` for the program it watches:
starts gml_probe as soon as the program imports torch (not before: a program
that never imports torch is left alone), then runs the sitecustomize this one
hides, if there is one."""

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))


class _StartProbeAfterTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != 'torch':
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_start(module):
            exec_module(module)
            try:
                import gml_probe
                started = gml_probe.start()
                # The program's own subprocesses (DataLoader workers started with
                # "spawn") are not the program: they get no probe of their own.
                os.environ.pop('GML_PROBE_SOCKET', None)
                if not started:
                    print('gpu-memory-lab: the probe is not watching (no CUDA device, or the lab '
                          'is not listening)', file=sys.stderr)
            except Exception as error:   # never break the program
                print('gpu-memory-lab: the probe did not start: %s' % error, file=sys.stderr)
        spec.loader.exec_module = exec_and_start
        return spec


if os.environ.get('GML_PROBE_SOCKET'):
    sys.meta_path.insert(0, _StartProbeAfterTorch())

# The sitecustomize this one hides (Debian has one in /etc/python3.*).
_rest = [p for p in sys.path if os.path.abspath(p or '.') != _here]
_spec = importlib.machinery.PathFinder.find_spec('sitecustomize', _rest)
if _spec is not None and _spec.loader is not None and _spec.origin != __file__:
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)

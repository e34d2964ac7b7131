# SPDX-License-Identifier: GPL-3.0-or-later
"""A fake torch for the tests of `gpu-memory-lab watch`: exactly the calls
gml_probe may use, over a small allocator that a test script drives with
cuda._fake_alloc / _fake_free / _fake_oom. Any other attribute the probe
touches raises AttributeError, so a probe that strays fails its test."""

import sys as _sys
import types as _types

from . import cuda   # noqa: F401

__version__ = '2.99.0+fake'


class _Strict(_types.ModuleType):
    def __init__(self, name, allowed):
        super().__init__(name)
        self._allowed = allowed

    def __getattr__(self, name):
        raise AttributeError(f'fake torch: {self.__name__}.{name} is not one of the calls the probe may use')


_C = _Strict('torch._C', ())
_C._cuda_attach_out_of_memory_observer = cuda._attach_observer
_sys.modules['torch._C'] = _C

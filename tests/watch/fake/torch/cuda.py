# SPDX-License-Identifier: GPL-3.0-or-later
"""torch.cuda of the fake torch: one 1 GiB segment, blocks handed out from its
start upwards (never reused), a trace in PyTorch's snapshot layout."""

import threading
import time

from . import memory   # noqa: F401

MiB = 1 << 20
TOTAL = 80 << 30
SEGMENT = 0x7f1000000000
SEGMENT_SIZE = 1 << 30

_lock = threading.Lock()
_live = {}            # address -> (size, requested)
_next = SEGMENT
_trace = []
_observers = []
_recording = {'on': False, 'max': 0}
_fraction = {'value': None}


class OutOfMemoryError(RuntimeError):
    pass


def _now():
    return int(time.time() * 1e6)


def _record(action, addr, size):
    if _recording['on']:
        _trace.append({'action': action, 'addr': addr, 'size': size, 'stream': 0, 'time_us': _now(),
                       'compile_context': 'N/A', 'user_metadata': '',
                       'frames': [{'filename': 'fake_train.py', 'line': 7, 'name': 'step'}]})
        del _trace[:-_recording['max']]


# --- The calls the probe may use ---------------------------------------------

def is_available():
    return True


def device_count():
    return 1


def current_device():
    return 0


def get_device_name(device=None):
    return 'Fake GPU'


def mem_get_info(device=None):
    with _lock:
        return (TOTAL - SEGMENT_SIZE, TOTAL)


def memory_stats(device=None):
    with _lock:
        return _stats_locked()


def _stats_locked():
    allocated = sum(size for size, _ in _live.values())
    return {'allocated_bytes.all.current': allocated, 'reserved_bytes.all.current': SEGMENT_SIZE,
            'active_bytes.all.current': allocated, 'segment.all.current': 1,
            'allocation.all.current': len(_live)}


def _attach_observer(fn):
    _observers.append(fn)


def set_per_process_memory_fraction(fraction, device=None):
    _fraction['value'] = float(fraction)


# --- What the test script drives ---------------------------------------------

def _fake_stats():
    with _lock:
        return dict(_stats_locked())


def _fake_alloc(requested):
    global _next
    with _lock:
        size = (requested + 511) // 512 * 512
        addr = _next
        _next += size
        _live[addr] = (size, requested)
        _record('alloc', addr, requested)
        return addr


def _fake_free(addr):
    with _lock:
        size, requested = _live.pop(addr)
        _record('free_requested', addr, requested)
        _record('free_completed', addr, requested)


def _fake_oom(requested):
    """As PyTorch's malloc() does: the observers hear of it, then the error."""
    alloc_size = (requested + 2 * MiB - 1) // (2 * MiB) * (2 * MiB)
    free = TOTAL - SEGMENT_SIZE
    with _lock:
        _record_oom = _recording['on']
        if _record_oom:
            _trace.append({'action': 'oom', 'device_free': free, 'size': requested, 'stream': 0,
                           'time_us': _now(), 'compile_context': 'N/A', 'user_metadata': ''})
    # malloc() hands its observers the per-process limit when one is set, else the total.
    limit = int(TOTAL * _fraction['value']) if _fraction['value'] is not None else TOTAL
    for fn in list(_observers):
        fn(0, alloc_size, limit, free)
    raise OutOfMemoryError('CUDA out of memory (fake)')


def _snapshot_locked():
    blocks = []
    cursor = SEGMENT
    for addr in sorted(_live):
        size, requested = _live[addr]
        if addr > cursor:
            blocks.append({'address': cursor, 'size': addr - cursor, 'requested_size': 0,
                           'state': 'inactive', 'frames': []})
        blocks.append({'address': addr, 'size': size, 'requested_size': requested,
                       'state': 'active_allocated',
                       'frames': [{'filename': 'fake_train.py', 'line': 7, 'name': 'step'}]})
        cursor = addr + size
    if cursor < SEGMENT + SEGMENT_SIZE:
        blocks.append({'address': cursor, 'size': SEGMENT + SEGMENT_SIZE - cursor, 'requested_size': 0,
                       'state': 'inactive', 'frames': []})
    allocated = sum(size for size, _ in _live.values())
    segment = {'device': 0, 'address': SEGMENT, 'total_size': SEGMENT_SIZE, 'allocated_size': allocated,
               'active_size': allocated, 'requested_size': sum(r for _, r in _live.values()),
               'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 0), 'is_expandable': False,
               'frames': [], 'blocks': blocks}
    return {'segments': [segment], 'device_traces': [list(_trace)],
            'allocator_settings': {'PYTORCH_CUDA_ALLOC_CONF': '', 'max_split_size': -1,
                                   'garbage_collection_threshold': 0.0, 'expandable_segments': False}}

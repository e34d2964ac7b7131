# SPDX-License-Identifier: GPL-3.0-or-later
"""gml_probe — lets GPU Memory Lab watch a running PyTorch program's GPU memory.

In a script:

    import gml_probe
    gml_probe.start()          # connects to the lab (GML_PROBE_SOCKET, or the
                               # lab's default socket of this user)

or with no change to the script at all:

    gpu-memory-lab watch -- python3 train.py ARGS...

The probe turns on torch.cuda.memory._record_memory_history(), and a thread
sends the allocator's figures and its new trace entries to the lab a few
times a second over a Unix socket, one JSON object a line. When PyTorch runs
out of memory it saves a memory snapshot (the file torch's memory viewer and
`gpu-memory-lab snapshot` read) and tells the lab where.

It uses the standard library and only these torch calls: torch.__version__,
torch.cuda.is_available, device_count, current_device, get_device_name,
mem_get_info, memory_stats, torch.cuda.memory._record_memory_history,
torch.cuda.memory._snapshot and torch._C._cuda_attach_out_of_memory_observer.
"""

import atexit
import json
import os
import pickle
import socket
import sys
import threading
import time

PROTOCOL = 1
MAX_ENTRIES_PER_UPDATE = 2000

_state = {'thread': None, 'stop': None, 'sock': None, 'lock': threading.Lock(), 'seen': None,
          'count': 0, 'start': 0.0}


def default_socket():
    """Where the lab listens for probes of this user: $XDG_RUNTIME_DIR/gpu-memory-lab/probe.sock."""
    base = os.environ.get('XDG_RUNTIME_DIR') or os.path.join(os.path.expanduser('~'), '.cache')
    return os.path.join(base, 'gpu-memory-lab', 'probe.sock')


def _send(obj):
    sock = _state['sock']
    if sock is None:
        return False
    data = (json.dumps(obj, separators=(',', ':')) + '\n').encode('utf-8')
    with _state['lock']:
        try:
            sock.sendall(data)
            return True
        except OSError:
            _state['sock'] = None
            return False


def _entry_key(e):
    return (e.get('time_us', 0), e.get('action'), e.get('addr', e.get('device_free', 0)), e.get('size', 0))


def _new_entries(trace):
    """Entries carry no sequence number: find where the last batch ended by
    matching (time_us, action, addr, size) of the newest entry seen."""
    seen = _state['seen']
    start = 0
    if seen is not None:
        for i in range(len(trace) - 1, -1, -1):
            if _entry_key(trace[i]) == seen:
                start = i + 1
                break
    if trace:
        _state['seen'] = _entry_key(trace[-1])
    return trace[start:]


def _update(torch, device):
    stats = torch.cuda.memory_stats(device)
    snap = torch.cuda.memory._snapshot()
    traces = snap.get('device_traces', []) if isinstance(snap, dict) else []
    trace = traces[device] if device < len(traces) else []
    new = _new_entries(trace)
    _state['count'] += len(new)
    entries = [[e.get('action'), e.get('addr', e.get('device_free', 0)), e.get('size', 0),
                e.get('stream', 0), e.get('time_us', 0)] for e in new[-MAX_ENTRIES_PER_UPDATE:]]
    return {
        'v': PROTOCOL, 'type': 'update', 'time': round(time.time() - _state['start'], 3),
        'device': device,
        'allocated_bytes': int(stats.get('allocated_bytes.all.current', 0)),
        'reserved_bytes': int(stats.get('reserved_bytes.all.current', 0)),
        'active_bytes': int(stats.get('active_bytes.all.current', 0)),
        'segments': int(stats.get('segment.all.current', 0)),
        'allocations': int(stats.get('allocation.all.current', 0)),
        'trace_entries': _state['count'],
        'entries': entries,
    }


def _loop(torch, device, interval, stop):
    while not stop.wait(interval):
        try:
            if not _send(_update(torch, device)):
                return
        except Exception as error:   # the program must never fail because of the probe
            _send({'v': PROTOCOL, 'type': 'error', 'message': str(error)})


def _snapshot_dir():
    path = os.environ.get('GML_PROBE_SNAPSHOT_DIR')
    if not path:
        base = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
        path = os.path.join(base, 'gpu-memory-lab', 'snapshots')
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def _on_oom(torch, device_index, alloc_size, device_limit, device_free):
    """PyTorch calls this just before it raises OutOfMemoryError, with what its
    message says: the segment it tried to get, the GPU's total (or the
    per-process limit) and what was free."""
    path = os.path.join(_snapshot_dir(), 'oom-%d-%d.pickle' % (os.getpid(), int(time.time() * 1000)))
    try:
        snap = torch.cuda.memory._snapshot()
        with open(path, 'wb') as f:
            pickle.dump(snap, f)
    except Exception:
        path = None
    stats = torch.cuda.memory_stats(device_index)
    _send({'v': PROTOCOL, 'type': 'oom', 'time': round(time.time() - _state['start'], 3),
           'device': int(device_index), 'size': int(alloc_size), 'device_free': int(device_free),
           'device_total': int(device_limit),
           'allocated_bytes': int(stats.get('allocated_bytes.all.current', 0)),
           'reserved_bytes': int(stats.get('reserved_bytes.all.current', 0)),
           'snapshot': path})


def start(socket_path=None, interval=None, max_entries=100000):
    """Starts watching; returns False (and does nothing) without CUDA or a lab to talk to."""
    if _state['thread'] is not None:
        return True
    import torch
    if not torch.cuda.is_available():
        return False
    socket_path = socket_path or os.environ.get('GML_PROBE_SOCKET') or default_socket()
    if interval is None:
        interval = float(os.environ.get('GML_PROBE_INTERVAL', '0.5'))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(socket_path)
    except OSError:
        sock.close()
        return False
    _state['sock'] = sock
    _state['start'] = time.time()
    device = torch.cuda.current_device()
    free, total = torch.cuda.mem_get_info(device)
    _send({'v': PROTOCOL, 'type': 'hello', 'pid': os.getpid(), 'torch': str(torch.__version__),
           'device': device, 'devices': torch.cuda.device_count(),
           'device_name': torch.cuda.get_device_name(device), 'total_bytes': int(total),
           'argv': sys.argv[:8]})
    torch.cuda.memory._record_memory_history(max_entries=max_entries)
    torch._C._cuda_attach_out_of_memory_observer(
        lambda d, alloc_size, limit, free_: _on_oom(torch, d, alloc_size, limit, free_))
    stop = threading.Event()
    thread = threading.Thread(target=_loop, args=(torch, device, interval, stop), daemon=True,
                              name='gml-probe')
    _state['thread'], _state['stop'] = thread, stop
    thread.start()

    def _bye():
        stop.set()
        try:
            _send(_update(torch, device))
        except Exception:
            pass
        _send({'v': PROTOCOL, 'type': 'bye'})
    atexit.register(_bye)
    return True

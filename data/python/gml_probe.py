# SPDX-License-Identifier: GPL-3.0-or-later
"""gml_probe — lets GPU Memory Lab watch a running PyTorch program's GPU memory.

In a script, after importing torch:

    import gml_probe
    gml_probe.start()

If the lab's Live view is open, the probe connects to it at once. Otherwise it
waits, in a background thread, on its own socket
$XDG_RUNTIME_DIR/gpu-memory-lab/probe-PID.sock (a directory only you can
enter) while the program goes on training; the lab's "Attach…" lists the
probes that wait and connects to the one you choose. Nothing is sent before.
When the lab's Flatpak runs (or has run) in this session, the probe also looks
and waits in the folder the sandbox shares with the host,
$XDG_RUNTIME_DIR/app/io.github.gpumemorylab.GpuMemoryLab/gpu-memory-lab; a probe
that waits looks for that folder every few seconds.

With no change to the script at all:

    gpu-memory-lab watch -- python3 train.py ARGS...

starts the program with this module on its path and opens the Live view
(`--json` prints one JSON object per update instead).

Where to find this module: `gpu-memory-lab probe --path` prints its directory
(add it to PYTHONPATH), `gpu-memory-lab probe > gml_probe.py` writes a copy;
see the lab's README for the Flatpak.

The probe turns on torch.cuda.memory._record_memory_history(), and a thread
sends the allocator's figures and its new trace entries to the lab a few
times a second over the Unix socket, one JSON object a line (protocol 1,
described in the lab's src/core/live/gml-probe-message.h). When the lab asks, it
also sends the allocator's segments and blocks (taken in the same call, so
exact at the end of the entries sent), and a pickle of
torch.cuda.memory._snapshot() for "Save snapshot…". When PyTorch runs out of
memory it saves a memory snapshot (the file torch's memory viewer and
`gpu-memory-lab snapshot` read) and tells the lab where.

It uses the standard library and only these torch calls: torch.__version__,
torch.cuda.is_available, device_count, current_device, get_device_name,
mem_get_info, memory_stats, torch.cuda.memory._record_memory_history,
torch.cuda.memory._snapshot and torch._C._cuda_attach_out_of_memory_observer.

Environment: GML_PROBE_SOCKET (connect there, and only there),
GML_PROBE_INTERVAL (seconds between updates, default 0.5),
GML_PROBE_SNAPSHOT_DIR (where out-of-memory snapshots go, default
~/.cache/gpu-memory-lab/snapshots), GML_PROBE_STACKS (python, all or none:
the stacks PyTorch records with each allocation; default python).
"""

import atexit
import base64
import json
import os
import pickle
import socket
import stat
import sys
import threading
import time

PROTOCOL = 1
MAX_ENTRIES_PER_MESSAGE = 20000
MAX_FIRST_ENTRIES = 50000      # sent when a lab attaches to a program that has run a while
MAX_STATE_BLOCKS = 200000
DUMP_CHUNK = 512 * 1024        # bytes of pickle per dump-data message (base64 in the line)
MAX_REQUEST = 65536            # the longest line the probe reads from the lab

_state = {
    'torch': None, 'device': 0, 'interval': 0.5, 'thread': None, 'stop': None,
    'lock': threading.Lock(),      # one message at a time on the socket
    'sock': None, 'watching': False, 'want_state': False, 'want_oom_snapshot': False,
    'state_sent': False, 'seen': None, 'count': 0, 'start': 0.0,
    'listeners': [], 'listen_lock': threading.Lock(), 'listen_checked': 0.0, 'dumping': threading.Event(),
    'update_lock': threading.Lock(),   # one update at a time: they share the trace marker
}


FLATPAK_ID = 'io.github.gpumemorylab.GpuMemoryLab'


def _base_dir():
    base = os.environ.get('XDG_RUNTIME_DIR') or os.path.join(os.path.expanduser('~'), '.cache')
    return os.path.join(base, 'gpu-memory-lab')


def _base_dirs():
    """Where a lab may be: its own folder, then (when the Flatpak has run: Flatpak makes
    the folder) the one the Flatpak's sandbox shares with the host at the same path."""
    dirs = [_base_dir()]
    base = os.environ.get('XDG_RUNTIME_DIR')
    if base:
        shared = os.path.join(base, 'app', FLATPAK_ID)
        if os.path.isdir(shared):
            dirs.append(os.path.join(shared, 'gpu-memory-lab'))
    return dirs


def default_socket():
    """Where the lab's Live view listens for probes of this user: $XDG_RUNTIME_DIR/gpu-memory-lab/probe.sock."""
    return os.path.join(_base_dir(), 'probe.sock')


def waiting_socket(directory=None):
    """Where this process waits for a lab to attach: $XDG_RUNTIME_DIR/gpu-memory-lab/probe-PID.sock."""
    return os.path.join(directory or _base_dir(), 'probe-%d.sock' % os.getpid())


def _line(obj):
    return (json.dumps(obj, separators=(',', ':')) + '\n').encode('utf-8')


def _send(obj, sock=None):
    """Sends to the lab watching now (or to @sock only while it is that lab)."""
    data = _line(obj)
    with _state['lock']:
        current = _state['sock']
        if current is None or (sock is not None and sock is not current):
            return False
        try:
            current.sendall(data)
            return True
        except OSError:
            _drop(current)
            return False


def _drop(sock):
    """The lab went away: forget it (the lock is held), and wait for the next."""
    if _state['sock'] is sock:
        _state['sock'] = None
        _state['watching'] = False
        _state['want_state'] = False
    try:
        sock.close()
    except OSError:
        pass


def _entry_key(e):
    return (e.get('time_us', 0), e.get('action'), e.get('addr', e.get('device_free', 0)), e.get('size', 0))


def _new_entries(trace):
    """Entries carry no sequence number: find where the last batch ended by
    matching (time_us, action, addr, size) of the newest entry seen. Returns
    the new entries and whether some were lost (the ring buffer overran)."""
    seen = _state['seen']
    start = 0
    gap = seen is None
    if seen is not None:
        for i in range(len(trace) - 1, -1, -1):
            if _entry_key(trace[i]) == seen:
                start = i + 1
                gap = False
                break
        else:
            gap = True
    if trace:
        _state['seen'] = _entry_key(trace[-1])
    new = trace[start:]
    if gap and len(new) > MAX_FIRST_ENTRIES:
        new = new[-MAX_FIRST_ENTRIES:]
    return new, gap


def _compact(e):
    return [str(e.get('action')), int(e.get('addr', e.get('device_free', 0))), int(e.get('size', 0)),
            int(e.get('stream', 0)) & 0x7fffffffffffffff, int(e.get('time_us', 0))]


_BLOCK_STATES = {'active_allocated': 'a', 'inactive': 'i', 'active_pending_free': 'p',
                 'active_awaiting_free': 'p'}


def _state_message(snap, device, count):
    """The segments and blocks of @device, exact at the end of the trace @snap holds."""
    segments = []
    n_blocks = 0
    for s in sorted((s for s in snap.get('segments', []) if s.get('device', device) == device),
                    key=lambda s: s.get('address', 0)):
        blocks = [[int(b.get('size', 0)), int(b.get('requested_size', 0)), _BLOCK_STATES.get(b.get('state'), 'i')]
                  for b in s.get('blocks', []) if int(b.get('size', 0)) > 0]
        n_blocks += len(blocks)
        if not blocks:
            continue
        # The lab checks that the blocks tile the segment; sizes come from them.
        total = sum(b[0] for b in blocks)
        segments.append([int(s.get('address', 0)), total, int(s.get('stream', 0)) & 0x7fffffffffffffff,
                         'small' if s.get('segment_type') == 'small' else 'large',
                         bool(s.get('is_expandable', False)), blocks])
    message = {'v': PROTOCOL, 'type': 'state', 'time': round(time.time() - _state['start'], 3),
               'device': device, 'trace_entries': count}
    if n_blocks > MAX_STATE_BLOCKS:
        message['omitted'] = True
    else:
        message['segments'] = segments
    return message


def _update(torch, device):
    """The update (and the entries before it, and the state after it) to send now."""
    stats = torch.cuda.memory_stats(device)
    snap = torch.cuda.memory._snapshot()
    traces = snap.get('device_traces', []) if isinstance(snap, dict) else []
    trace = traces[device] if device < len(traces) else []
    new, gap = _new_entries(trace)
    _state['count'] += len(new)
    entries = [_compact(e) for e in new]
    messages = []
    while len(entries) > MAX_ENTRIES_PER_MESSAGE:
        messages.append({'v': PROTOCOL, 'type': 'entries', 'entries': entries[:MAX_ENTRIES_PER_MESSAGE]})
        entries = entries[MAX_ENTRIES_PER_MESSAGE:]
    update = {
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
    if gap:
        update['gap'] = True
    messages.append(update)
    if _state['want_state'] and (new or not _state['state_sent']) and isinstance(snap, dict):
        messages.append(_state_message(snap, device, _state['count']))
        _state['state_sent'] = True
    return messages


def _send_update(torch, device):
    with _state['update_lock']:
        sock = _state['sock']
        if sock is None or not _state['watching']:
            return
        for message in _update(torch, device):
            if not _send(message, sock):
                return


def _loop(torch, device, interval, stop):
    while not stop.wait(interval):
        # While it waits: a Flatpak of the lab started since gets a socket too.
        if _state['listeners'] and time.time() - _state['listen_checked'] >= 5:
            _state['listen_checked'] = time.time()
            _listen()
        try:
            _send_update(torch, device)
        except Exception as error:   # the program must never fail because of the probe
            _send({'v': PROTOCOL, 'type': 'error', 'message': str(error)[:4000]})


def _snapshot_dir():
    path = os.environ.get('GML_PROBE_SNAPSHOT_DIR')
    if not path:
        base = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
        path = os.path.join(base, 'gpu-memory-lab', 'snapshots')
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def _send_file(sock, dump_id, data):
    if not _send({'v': PROTOCOL, 'type': 'dump-begin', 'id': dump_id, 'bytes': len(data)}, sock):
        return
    for i in range(0, len(data), DUMP_CHUNK):
        piece = base64.b64encode(data[i:i + DUMP_CHUNK]).decode('ascii')
        if not _send({'v': PROTOCOL, 'type': 'dump-data', 'id': dump_id, 'data': piece}, sock):
            return
    _send({'v': PROTOCOL, 'type': 'dump-end', 'id': dump_id}, sock)


def _on_oom(torch, device_index, alloc_size, device_limit, device_free):
    """PyTorch calls this just before it raises OutOfMemoryError, with what its
    message says: the segment it tried to get, the GPU's total (or the
    per-process limit) and what was free."""
    path = os.path.join(_snapshot_dir(), 'oom-%d-%d.pickle' % (os.getpid(), int(time.time() * 1000)))
    data = None
    try:
        snap = torch.cuda.memory._snapshot()
        data = pickle.dumps(snap)
        with open(path, 'wb') as f:
            f.write(data)
    except Exception:
        path = None
    stats = torch.cuda.memory_stats(device_index)
    sock = _state['sock']
    if sock is None:
        return
    # The figures first (the update before them carries the trace up to here).
    try:
        _send_update(torch, device_index)
    except Exception:
        pass
    _send({'v': PROTOCOL, 'type': 'oom', 'time': round(time.time() - _state['start'], 3),
           'device': int(device_index), 'size': int(alloc_size), 'device_free': int(device_free),
           'device_total': int(device_limit),
           'allocated_bytes': int(stats.get('allocated_bytes.all.current', 0)),
           'reserved_bytes': int(stats.get('reserved_bytes.all.current', 0)),
           'snapshot': path}, sock)
    # A lab in a sandbox (the Flatpak) cannot read the file: it asked for its bytes.
    # The program waits here anyway, on its way to the error.
    if data is not None and _state['want_oom_snapshot']:
        _send_file(sock, 0, data)


# --- Requests from the lab ------------------------------------------------------

def _read_lines(sock):
    """The lab's lines, each at most MAX_REQUEST bytes; ends when the lab goes."""
    buffer = b''
    while True:
        try:
            chunk = sock.recv(65536)
        except OSError:
            return
        if not chunk:
            return
        buffer += chunk
        while b'\n' in buffer:
            line, buffer = buffer.split(b'\n', 1)
            yield line
        if len(buffer) > MAX_REQUEST:
            return


def _request(line):
    try:
        obj = json.loads(line.decode('utf-8'))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(obj, dict) or obj.get('v') != PROTOCOL or not isinstance(obj.get('type'), str):
        return None
    return obj


def _handle(sock, request):
    kind = request['type']
    if kind == 'watch':
        _state['want_state'] = bool(request.get('state'))
        _state['want_oom_snapshot'] = bool(request.get('oom_snapshot'))
        _state['state_sent'] = False
        _state['watching'] = True
    elif kind == 'dump':
        dump_id = request.get('id')
        if not isinstance(dump_id, int) or dump_id < 1:
            return
        _state['dumping'].set()
        try:
            try:
                data = pickle.dumps(_state['torch'].cuda.memory._snapshot())
            except Exception as error:
                _send({'v': PROTOCOL, 'type': 'dump-failed', 'id': dump_id, 'message': str(error)[:4000]}, sock)
                return
            _send_file(sock, dump_id, data)
        finally:
            _state['dumping'].clear()


def _serve(sock):
    """Reads the lab's requests until it goes; then waits for the next lab."""
    for line in _read_lines(sock):
        request = _request(line)
        if request is not None:
            try:
                _handle(sock, request)
            except Exception:
                pass
    with _state['lock']:
        _drop(sock)
    if not _state['stop'].is_set():
        _listen()


def _watch_by(sock, watching):
    with _state['update_lock'], _state['lock']:
        _state['sock'] = sock
        _state['watching'] = watching
        _state['want_state'] = False
        _state['want_oom_snapshot'] = False
        # A new lab gets the recent trace, not what an earlier one already had.
        _state['seen'] = None
    threading.Thread(target=_serve, args=(sock,), daemon=True, name='gml-probe-requests').start()


def _hello(torch, device, watched=False):
    free, total = torch.cuda.mem_get_info(device)
    return {'v': PROTOCOL, 'type': 'hello', 'pid': os.getpid(), 'torch': str(torch.__version__),
            'device': device, 'devices': torch.cuda.device_count(),
            'device_name': torch.cuda.get_device_name(device), 'total_bytes': int(total),
            'argv': [str(a)[:4000] for a in sys.argv[:16]], 'watched': watched}


# --- Waiting for a lab ----------------------------------------------------------

def _private_dir(path):
    """@path (a lab folder), made if need be, ours and closed to others; else None."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path)
        if st.st_uid != os.getuid() or not stat.S_ISDIR(st.st_mode):
            return None
        if st.st_mode & 0o077:
            os.chmod(path, 0o700)
        return path
    except OSError:
        return None


def _listen():
    """Listens on probe-PID.sock, for labs that attach, in each lab folder it does not
    listen in yet (the Flatpak's may appear later). True when it listens somewhere."""
    with _state['listen_lock']:
        return _listen_locked()


def _listen_locked():
    have = {os.path.dirname(path) for _, path in _state['listeners']}
    for directory in _base_dirs():
        if directory in have or _private_dir(directory) is None:
            continue
        path = waiting_socket(directory)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            try:
                os.unlink(path)   # a leftover of an earlier process with this pid
            except FileNotFoundError:
                pass
            server.bind(path)
            os.chmod(path, 0o600)
            server.listen(4)
        except OSError:
            server.close()
            continue
        _state['listeners'].append((server, path))
        threading.Thread(target=_accept, args=(server,), daemon=True, name='gml-probe-wait').start()
    return bool(_state['listeners'])


def _accept(server):
    torch, device = _state['torch'], _state['device']
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        try:
            busy = _state['sock'] is not None
            conn.sendall(_line(_hello(torch, device, watched=busy)))
            if busy:
                conn.close()
                continue
            # A lab that only lists the probes reads the hello and goes; one that
            # attaches says "watch".
            conn.settimeout(10)
            first = next(_read_lines(conn), None)
            request = _request(first) if first is not None else None
            if request is None or request['type'] != 'watch':
                conn.close()
                continue
            conn.settimeout(None)
            _watch_by(conn, True)
            _handle(conn, request)
        except Exception:
            try:
                conn.close()
            except OSError:
                pass


def _stop_listening():
    with _state['listen_lock']:
        listeners, _state['listeners'] = _state['listeners'], []
    for server, path in listeners:
        try:
            server.close()
        except OSError:
            pass
        try:
            os.unlink(path)
        except OSError:
            pass


def _connect(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
        return sock
    except OSError:
        sock.close()
        return None


def _stacks_option():
    stacks = os.environ.get('GML_PROBE_STACKS', 'python')
    if stacks == 'none':
        return {'context': None}
    return {'stacks': 'all' if stacks == 'all' else 'python'}


def start(socket_path=None, interval=None, max_entries=100000):
    """Starts watching. Connects to the lab at @socket_path (or GML_PROBE_SOCKET) and
    returns False if it does not answer; without either, connects to the Live view
    if it is open, else waits on probe-PID.sock for a lab to attach. Returns False
    (and does nothing) without CUDA."""
    if _state['thread'] is not None:
        return True
    import torch
    if not torch.cuda.is_available():
        return False
    explicit = socket_path or os.environ.get('GML_PROBE_SOCKET')
    if interval is None:
        interval = float(os.environ.get('GML_PROBE_INTERVAL', '0.5'))
    device = torch.cuda.current_device()
    _state.update(torch=torch, device=device, interval=interval, start=time.time(),
                  stop=threading.Event())

    if explicit:
        sock = _connect(explicit)
        if sock is None:
            return False
    else:
        # The Live view of a lab, the Flatpak's too, if one is open.
        sock = None
        for directory in _base_dirs():
            sock = _connect(os.path.join(directory, 'probe.sock'))
            if sock is not None:
                break
    if sock is not None:
        sock.sendall(_line(_hello(torch, device)))
        # A lab that started the program, or whose Live view is open, watches at once.
        _watch_by(sock, True)
    elif not _listen():
        return False

    try:
        torch.cuda.memory._record_memory_history(max_entries=max_entries, **_stacks_option())
    except TypeError:   # a PyTorch without these options
        torch.cuda.memory._record_memory_history(max_entries=max_entries)
    torch._C._cuda_attach_out_of_memory_observer(
        lambda d, alloc_size, limit, free_: _on_oom(torch, d, alloc_size, limit, free_))
    stop = _state['stop']
    thread = threading.Thread(target=_loop, args=(torch, device, interval, stop), daemon=True,
                              name='gml-probe')
    _state['thread'] = thread
    thread.start()

    def _bye():
        stop.set()
        # A snapshot being sent is finished first (bounded: the lab may be slow).
        deadline = time.time() + 10
        while _state['dumping'].is_set() and time.time() < deadline:
            time.sleep(0.05)
        try:
            _send_update(torch, device)
        except Exception:
            pass
        _send({'v': PROTOCOL, 'type': 'bye'})
        _stop_listening()
    atexit.register(_bye)
    return True

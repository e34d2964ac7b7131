# SPDX-License-Identifier: GPL-3.0-or-later
"""torch.cuda.memory of the fake torch."""


def _record_memory_history(enabled='all', max_entries=1000, **kwargs):
    from . import cuda
    cuda._recording['on'] = True
    cuda._recording['max'] = max_entries


def _snapshot(device=None):
    from . import cuda
    with cuda._lock:
        return cuda._snapshot_locked()

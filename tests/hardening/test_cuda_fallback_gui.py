# SPDX-License-Identifier: GPL-3.0-or-later
"""The real window with a CUDA driver that fails in the middle of the session.

The fake libcuda.so.1 (tests/cuda) answers at start-up, so the app opens the
CUDA backend; then cuMemAlloc fails with 999 (CUDA_ERROR_UNKNOWN) after one
allocation, while the picture's scenario runs. The app must go on with the
simulator and say why, in the window, in the user's language; it must not crash
and must still quit cleanly.

    test_cuda_fallback_gui.py LANG FAKE-LIBCUDA [SCREENSHOT_DIR]
"""

import os
import sys
import tempfile
import time

lang = sys.argv[1]
os.environ['GML_LIBCUDA'] = sys.argv[2]
os.environ['FAKE_CUDA_ALLOC_FAIL_AFTER'] = '1'
os.environ['FAKE_CUDA_ALLOC_FAIL_RESULT'] = '999'
shots = sys.argv[3] if len(sys.argv) > 3 else None

from gmltest import App, check  # noqa: E402  (after the environment is set)

app = App(tempfile.mkdtemp(), lang)


def descriptions_with(text, timeout=15):
    """The device line says "Simulated GPU"; why is in its tooltip and accessible description."""
    deadline = time.time() + timeout
    found = []
    while time.time() < deadline:
        found = [node.description for role, name, label, showing, node in app.nodes()
                 if role == 'label' and showing and text in (node.description or '')]
        if found:
            return found
        time.sleep(0.3)
    return found


failed = descriptions_with('CUDA_ERROR_UNKNOWN')
check(failed, 'the window says the GPU failed, with the driver’s error: '
      + (failed[0] if failed else f'(no such description among {app.label_texts()})'))
if lang == 'tr':
    check('so the pictures are simulated' not in failed[0], 'the reason is in Turkish')
else:
    check('simulated' in failed[0], 'it says the pictures are simulated')
if shots:
    os.makedirs(shots, exist_ok=True)
    app.screenshot(os.path.join(shots, f'cuda-fallback-{lang}.png'))

# The pictures go on: answering moves the picture on the simulator.
app.key('1')
time.sleep(1)
check(app.proc.poll() is None, 'the app is still running after an answer')
app.quit()
print('all CUDA fallback checks passed')

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The window starts as in a Flatpak on a machine without NVIDIA: GML_LIBCUDA points at a
library that does not exist, so the CUDA backend cannot load and the simulator must
take over.  The quiz must come up, the pictures' device label must say the simulated
GPU and why, and the application must quit cleanly.

    test_sandbox_window.py LANG"""

import os
import sys
import tempfile

from gmltest import App, bank, check

lang = sys.argv[1] if len(sys.argv) > 1 else 'en'
os.environ['GML_LIBCUDA'] = '/nonexistent/libcuda.so.1'

questions = bank(lang)
app = App(tempfile.mkdtemp(prefix='gml-sandbox-'), lang)
app.wait_label(lambda t: t == questions[0]['text'], 'with question 1')
check(True, 'without libcuda.so.1 the window comes up with the first question')
check(len(app.options()) == 4, 'its four options are there')
check(app.proc.poll() is None, 'the application is still running')

# The pictures' device label names the simulator here; why (the CUDA backend's own
# reason, in the window's language) is its tooltip and accessible description.
name, reason = {'en': ('simulated gpu', 'no nvidia driver found'),
                'tr': ('benzetilmiş gpu', 'nvidia sürücüsü bulunamadı')}[lang]
device_labels = [(t, app.label_description(t)) for t in app.label_texts() if t.lower() == name]
check(any(reason in (why or '').lower() for t, why in device_labels),
      f'the window says the pictures come from the simulated GPU, and why ({device_labels})')

app.quit()
check(app.proc.returncode == 0, f'the application quits cleanly (exit status {app.proc.returncode})')

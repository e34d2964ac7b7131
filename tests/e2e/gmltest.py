# SPDX-License-Identifier: GPL-3.0-or-later
"""Helpers for driving the real GPU Memory Lab window through the accessibility tree."""

import gettext
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import pyatspi

APP = os.environ.get('GML_APP')
BUILD = os.environ.get('GML_BUILD_ROOT', '')


def app_env(home, lang):
    env = dict(os.environ)
    env.update({
        'HOME': home,
        'XDG_DATA_HOME': os.path.join(home, 'data'),
        'XDG_CONFIG_HOME': os.path.join(home, 'config'),
        'XDG_CACHE_HOME': os.path.join(home, 'cache'),
        'GSETTINGS_BACKEND': 'memory',
        'GSETTINGS_SCHEMA_DIR': os.path.join(BUILD, 'data'),
        'GML_LOCALEDIR': os.path.join(BUILD, 'po', 'locale'),
        'LANGUAGE': lang,
        'LC_ALL': 'tr_TR.UTF-8' if lang == 'tr' else 'en_US.UTF-8',
        'GTK_A11Y': 'atspi',
    })
    return env


def install_browser(home):
    """Makes a small program the default handler of https links for the app started with
    this home: a desktop file in XDG_DATA_HOME/applications and mimeapps.list in
    XDG_CONFIG_HOME, as a desktop would have them. GIO finds it the way it finds a real
    browser; the program writes each address it is given to a file. Returns that file."""
    opened = os.path.join(home, 'opened-links')
    program = os.path.join(home, 'fake-browser')
    apps = os.path.join(home, 'data', 'applications')
    config = os.path.join(home, 'config')
    os.makedirs(apps, exist_ok=True)
    os.makedirs(config, exist_ok=True)
    with open(program, 'w') as f:
        f.write(f'#!/bin/sh\nfor uri in "$@"; do printf \'%s\\n\' "$uri" >> "{opened}"; done\n')
    os.chmod(program, 0o755)
    with open(os.path.join(apps, 'gml-test-browser.desktop'), 'w') as f:
        f.write('[Desktop Entry]\nType=Application\nName=Test Browser\n'
                f'Exec={program} %u\nMimeType=x-scheme-handler/http;x-scheme-handler/https;\n'
                'NoDisplay=true\n')
    with open(os.path.join(config, 'mimeapps.list'), 'w') as f:
        f.write('[Default Applications]\nx-scheme-handler/https=gml-test-browser.desktop\n'
                'x-scheme-handler/http=gml-test-browser.desktop\n')
    return opened
def render_describe(lang, question, *extra):
    """The render verb's description of a question's picture (simulated, as the tests' app)."""
    env = app_env(tempfile.mkdtemp(), lang)
    env['GML_LIBCUDA'] = '/nonexistent/libcuda.so.1'
    return subprocess.run([APP, 'render', '--question', question, '--describe', '--lang', lang, *extra],
                          env=env, check=True, capture_output=True, text=True).stdout.strip()


def bank(lang):
    """The bank as the app shows it, in source order without shuffling."""
    out = subprocess.run([APP, 'questions', '--json', '--no-shuffle', '--lang', lang],
                         env=app_env(tempfile.mkdtemp(), lang), check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


class App:
    def __init__(self, home, lang, args=(), ready=None, env=None, stdout=None, argv=None, timeout=30):
        """Starts the app with ARGS; it is ready when READY(app) is true (by default, when
        the quiz shows its option buttons). ENV changes the environment app_env() gives:
        a value of None removes that variable. STDOUT: a file for what the app prints
        (GLib's debug messages go there). ARGV, when given, is the whole command instead
        (`flatpak run …`); TIMEOUT, how long the window may take to appear."""
        self.home = home
        self.lang = lang
        environment = app_env(home, lang)
        for name, value in (env or {}).items():
            if value is None:
                environment.pop(name, None)
            else:
                environment[name] = value
        self.proc = subprocess.Popen(argv if argv is not None else [APP, *args], env=environment, stdout=stdout)
        self.root = None
        if ready is None:
            ready = lambda app: app.find('push button', prefix='a. ')
        deadline = time.time() + timeout
        while time.time() < deadline:
            for i in range(pyatspi.Registry.getDesktop(0).childCount):
                node = pyatspi.Registry.getDesktop(0).getChildAtIndex(i)
                try:
                    if node is not None and node.name == 'gpu-memory-lab' and node.childCount > 0:
                        self.root = node
                except Exception:
                    pass
            if self.root is not None and ready(self):
                return
            time.sleep(0.3)
        raise AssertionError('the application window did not appear in the accessibility tree')

    def nodes(self):
        out = []

        def walk(node, depth=0):
            if node is None or depth > 60:
                return
            try:
                role = node.getRoleName()
                name = node.name or ''
                text = ''
                try:
                    t = node.queryText()
                    text = t.getText(0, t.characterCount)
                except NotImplementedError:
                    pass
                states = node.getState()
                # GTK 4.8 sets VISIBLE but not SHOWING on what is mapped.
                showing = states.contains(pyatspi.STATE_VISIBLE)
                out.append((role, name, text, showing, node))
                for i in range(node.childCount):
                    walk(node.getChildAtIndex(i), depth + 1)
            except Exception:
                return

        walk(self.root)
        return out

    def find(self, role, prefix=None, equals=None, showing=True):
        found = []
        for r, name, text, is_showing, node in self.nodes():
            if r != role or (showing and not is_showing):
                continue
            for s in (name, text):
                if (prefix is not None and s.startswith(prefix)) or (equals is not None and s == equals):
                    found.append((s, node))
                    break
        return found

    def label_texts(self):
        return [(name or text) for r, name, text, showing, _ in self.nodes()
                if r == 'label' and showing and (name or text)]

    def wait_label(self, predicate, what, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for t in self.label_texts():
                if predicate(t):
                    return t
            time.sleep(0.2)
        raise AssertionError(f'no label {what}; labels shown: {self.label_texts()}')

    def options(self):
        """The four option buttons as (letter, text) in screen order."""
        opts = []
        for letter in 'abcd':
            hits = self.find('push button', prefix=letter + '. ')
            assert hits, f'option {letter} not found'
            opts.append((letter, hits[0][0][3:]))
        return opts

    def window_ids(self):
        """The X ids of the application's shown windows: a hidden one (the shortcuts
        window after Escape hides it) still has its size, but takes no keys."""
        return subprocess.run(['xdotool', 'search', '--onlyvisible', '--pid', str(self.proc.pid)],
                              capture_output=True, text=True).stdout.split()

    def window_id(self):
        """The X id of the application's largest window (its main or fullscreen one)."""
        ids = self.window_ids()
        best, best_area = None, 0
        for wid in ids:
            geo = subprocess.run(['xdotool', 'getwindowgeometry', '--shell', wid],
                                 capture_output=True, text=True).stdout
            fields = dict(l.split('=', 1) for l in geo.split() if '=' in l)
            area = int(fields.get('WIDTH', 0)) * int(fields.get('HEIGHT', 0))
            if area > best_area:
                best, best_area = wid, area
        assert best is not None, 'the application has no X window'
        return best

    def resize(self, width, height):
        """No window manager runs under Xvfb: place and size the window as a person would."""
        wid = self.window_id()
        subprocess.run(['xdotool', 'windowmove', '--sync', wid, '0', '0'], check=False)
        subprocess.run(['xdotool', 'windowsize', '--sync', wid, str(width), str(height)], check=False)
        time.sleep(1.0)

    def window_size(self):
        geo = subprocess.run(['xdotool', 'getwindowgeometry', '--shell', self.window_id()],
                             capture_output=True, text=True).stdout
        fields = dict(l.split('=', 1) for l in geo.split() if '=' in l)
        return int(fields['WIDTH']), int(fields['HEIGHT'])

    @staticmethod
    def extents(node):
        """(x, y, width, height) of a widget inside its window."""
        e = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        return e.x, e.y, e.width, e.height

    def click(self, node):
        """A real click of the pointer in the middle of @node, as a mouse user makes it
        (an accessible action moves no focus; a click may)."""
        x, y, w, h = App.extents(node)
        subprocess.run(['xdotool', 'mousemove', '--window', self.window_id(), str(x + w // 2),
                        str(y + h // 2), 'click', '1'], check=False)

    def label_description(self, text):
        """The accessible description (what its tooltip says) of the label showing @text."""
        for role, name, label, showing, node in self.nodes():
            if role == 'label' and showing and (name or label) == text:
                return node.description or ''
        return None

    def image_names(self):
        """The accessible descriptions of the pictures shown."""
        return [name for role, name, text, showing, node in self.nodes() if role == 'image' and name]

    def wait_image(self, predicate, what, timeout=10):
        deadline = time.time() + timeout
        seen = []
        while time.time() < deadline:
            seen = self.image_names()
            for name in seen:
                if predicate(name):
                    return name
            time.sleep(0.3)
        raise AssertionError(f'no picture {what}; pictures shown: {seen}')

    def key(self, keysym, settle=0.5):
        """Presses KEYSYM in the window, then waits SETTLE seconds; a caller that waits
        for what the key does (wait_label) may pass 0."""
        subprocess.run(['xdotool', 'windowfocus', '--sync', self.window_id(), 'key', keysym],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(settle)

    def screenshot(self, path):
        """Saves the application's window (not the whole screen) as PNG."""
        subprocess.run(['import', '-window', self.window_id(), path], check=False)

    def quit(self):
        self.key('ctrl+q')
        try:
            status = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError('the application did not quit on Ctrl+Q')
        assert status == 0, f'the application exited with status {status} on Ctrl+Q'


def x_window(name, timeout=20):
    """The X id of the visible window titled NAME, waiting for it to appear."""
    out = subprocess.run(['xdotool', 'search', '--sync', '--onlyvisible', '--name', name],
                         capture_output=True, text=True, timeout=timeout).stdout.split()
    assert out, f'no window “{name}”'
    return out[-1]


def type_into_chooser(title, path, select='ctrl+l'):
    """GTK's own file chooser (there is no portal here), driven with the keyboard: SELECT
    opens an Open chooser's location entry (ctrl+l) or selects a Save chooser's name
    (ctrl+a), PATH is typed, Return. Then it waits until the chooser is gone: GTK 4.8
    logs a critical (a NULL object path) when the accessibility tree is walked while its
    fallback chooser is being taken down."""
    chooser = x_window(title)
    subprocess.run(['xdotool', 'windowfocus', '--sync', chooser], check=True)
    time.sleep(0.5)
    subprocess.run(['xdotool', 'key', '--window', chooser, select], check=True)
    time.sleep(0.5)
    subprocess.run(['xdotool', 'type', '--delay', '30', path], check=True)
    time.sleep(0.5)
    subprocess.run(['xdotool', 'key', 'Return'], check=True)
    deadline = time.time() + 10
    while time.time() < deadline and subprocess.run(['xdotool', 'search', '--onlyvisible', '--name', title],
                                                    capture_output=True).stdout.strip():
        time.sleep(0.2)
    time.sleep(2)


# A printf conversion of the catalogue's C strings: %s, %zu, %.1f, %2$s; and %%.
C_SPEC = re.compile(r'%%|%(?:(\d+)\$)?[-+ #0-9.]*(?:l|ll|z)?[a-z]')


def c_format(text, *values):
    """A C format string of the catalogue, filled the way printf would fill it (%2$zu and %% too)."""
    out, at, n = [], 0, 0
    for m in C_SPEC.finditer(text):
        out.append(text[at:m.start()])
        at = m.end()
        if m.group(0) == '%%':
            out.append('%')
            continue
        index = int(m.group(1)) - 1 if m.group(1) else n
        n += 1
        out.append(str(values[index]))
    return ''.join(out) + text[at:]


def c_pattern(text):
    """A regular expression matching what a C format string of the catalogue prints, a
    group per value (use match, search or fullmatch as the test needs): a translation may
    put the numbers first, so prefixes cut at the first % do not do."""
    parts, at = [], 0
    for m in C_SPEC.finditer(text):
        parts.append(re.escape(text[at:m.start()]))
        parts.append('%' if m.group(0) == '%%' else '(.+?)')
        at = m.end()
    return re.compile(''.join(parts) + re.escape(text[at:]), re.S)


def check(condition, message):
    if not condition:
        print('FAIL:', message, file=sys.stderr)
        sys.exit(1)
    print('ok:', message)


APP_ID = 'io.github.gpumemorylab.GpuMemoryLab'


def app_action(name, *param):
    """Activates an application action over D-Bus, as the main menu's items do."""
    args = ['gdbus', 'call', '--session', '--dest', APP_ID, '--object-path',
            '/' + APP_ID.replace('.', '/'), '--method', 'org.gtk.Actions.Activate', name,
            '[' + ', '.join(param) + ']', '{}']
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, timeout=10)


def wait_for(predicate, what, timeout=20):
    """Polls until predicate() returns something true; bounded, never a fixed sleep."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = predicate()
        except Exception as e:   # the tree changes under our feet
            last = e
        if last and not isinstance(last, Exception):
            return last
        time.sleep(0.2)
    raise AssertionError(f'timed out waiting for {what} (last: {last!r})')


def translator(lang):
    """The lab's own catalogue for LANG as a gettext function (the msgid when untranslated)."""
    return gettext.translation('gpu-memory-lab', localedir=os.path.join(BUILD, 'po', 'locale'),
                               languages=[lang], fallback=True).gettext


def experiment_json(home, lang, args):
    """`gpu-memory-lab experiment ARGS --json`, parsed: what the window must agree with."""
    out = subprocess.run([APP, 'experiment', *args.split(), '--json'], env=app_env(home, lang),
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def frame(app, title):
    """The application's top-level window titled TITLE, or None."""
    for i in range(app.root.childCount):
        node = app.root.getChildAtIndex(i)
        try:
            if node is not None and node.name == title:
                return node
        except Exception:
            pass
    return None


# The What If panel's rows after the run as recorded (gml-what-if-panel.c), in its order.
WHAT_IF_SETTINGS = ['expandable_segments:True', 'max_split_size_mb:64', 'max_split_size_mb:128',
                    'max_split_size_mb:256', 'max_split_size_mb:512', 'roundup_power2_divisions:4',
                    'garbage_collection_threshold:0.8,per_process_memory_fraction:0.95']


def what_if_expected_rows(catalogue, report):
    """{row title: accessible description} the What If panel must show for REPORT, the JSON of
    `snapshot --what-if` under WHAT_IF_SETTINGS, in CATALOGUE's language."""
    _ = catalogue.gettext

    def fill(text, *values):
        values = iter(values)
        return re.sub(r'%(?:lu|zu|u|s|%)', lambda m: '%' if m.group(0) == '%%' else str(next(values)), text)

    sep = catalogue.pgettext('thousands separator', ',')

    def spoken(run):
        grouped = f'{run["peak_reserved_bytes"]:,}'.replace(',', sep)
        if run['ooms'] == 0:
            ooms = _('no out of memory')
        else:
            ooms = fill(catalogue.ngettext('%u out of memory (entry %lu)', '%u out of memory (first at entry %lu)',
                                           run['ooms']), run['ooms'], run['first_oom_index'])
        return fill(_('Peak reserved %s bytes, %s, fragmentation at the peak %s %%.'), grouped, ooms,
                    f'{100 * run["fragmentation_at_peak"]:.0f}')

    runs = report['what_if']
    titles = [fill(_('As recorded (%s)'), runs[0]['alloc_conf'] or _('the defaults'))] + WHAT_IF_SETTINGS
    return {title: spoken(run) for title, run in zip(titles, runs)}

#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a command on its own Xvfb display inside its own D-Bus session with the
# accessibility bus up, as a person's desktop would have it.
#   run-in-session.sh COMMAND [ARGS...]
set -eu

Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"${TMPDIR:-/tmp}/gml-xvfb.$$" 2>/dev/null &
xvfb_pid=$!
trap 'kill $xvfb_pid 2>/dev/null || true; rm -f "${TMPDIR:-/tmp}/gml-xvfb.$$"' EXIT INT TERM
for _ in $(seq 50); do
  [ -s "${TMPDIR:-/tmp}/gml-xvfb.$$" ] && break
  sleep 0.1
done
DISPLAY=":$(cat "${TMPDIR:-/tmp}/gml-xvfb.$$")"
export DISPLAY
export GDK_BACKEND=x11 GTK_A11Y=atspi NO_AT_BRIDGE=0

dbus-run-session -- sh -c '
  /usr/libexec/at-spi-bus-launcher --launch-immediately >/dev/null 2>&1 &
  sleep 1
  exec "$@"' sh "$@"

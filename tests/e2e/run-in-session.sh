#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a command on its own Xvfb display inside its own D-Bus session with the
# accessibility bus up, as a person's desktop would have it.
#   run-in-session.sh COMMAND [ARGS...]
# Other tests may start their own Xvfb at the same moment, so the display is chosen
# by Xvfb itself (-displayfd) and checked to answer before the command starts.
# -noreset: without it the server resets whenever its last client leaves (e.g. the
# probe below), and a client connecting during that reset is refused.
set -eu

fdfile="${TMPDIR:-/tmp}/gml-xvfb.$$"
xvfb_pid=
cleanup() {
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  rm -f "$fdfile"
}
trap cleanup EXIT INT TERM

for attempt in 1 2 3 4 5; do
  : >"$fdfile"
  Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -noreset 3>"$fdfile" 2>/dev/null &
  xvfb_pid=$!
  for _ in $(seq 100); do
    [ -s "$fdfile" ] && break
    kill -0 "$xvfb_pid" 2>/dev/null || break
    sleep 0.05
  done
  if [ -s "$fdfile" ]; then
    DISPLAY=":$(tr -dc 0-9 <"$fdfile")"
    export DISPLAY
    for _ in $(seq 50); do
      if xdotool getdisplaygeometry >/dev/null 2>&1; then
        break 2
      fi
      kill -0 "$xvfb_pid" 2>/dev/null || break
      sleep 0.1
    done
  fi
  kill "$xvfb_pid" 2>/dev/null || true
  xvfb_pid=
  echo "run-in-session: Xvfb did not come up (attempt $attempt)" >&2
  sleep "$attempt"
done
[ -n "$xvfb_pid" ] || { echo "run-in-session: no X display" >&2; exit 1; }

export GDK_BACKEND=x11 GTK_A11Y=atspi NO_AT_BRIDGE=0

dbus-run-session -- sh -c '
  /usr/libexec/at-spi-bus-launcher --launch-immediately >/dev/null 2>&1 &
  sleep 1
  exec "$@"' sh "$@"

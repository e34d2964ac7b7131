#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what GPU Memory Lab needs to build, run and test on Debian 12, and
# generates the Turkish and English locales the tests use. Run as root or with sudo.
set -eu

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    exec sudo "$0" "$@"
  fi
  echo "install-deps.sh: run it as root, e.g. su -c '$0'" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# libgtk-4-bin brings gtk4-encode-symbolic-svg, which pre-renders the app's icons at
# build time (with librsvg2-common's SVG loader); libgtk-4-dev brings libepoxy-dev.
apt-get update
apt-get install -y --no-install-recommends \
  build-essential pkg-config meson ninja-build gettext python3 \
  libglib2.0-dev libgtk-4-dev libadwaita-1-dev libjson-glib-dev libcairo2-dev libpango1.0-dev \
  libsoup-3.0-dev \
  appstream desktop-file-utils flatpak-builder \
  xvfb xauth dbus dbus-x11 at-spi2-core python3-pyatspi xdotool imagemagick \
  poppler-utils librsvg2-bin librsvg2-common libgtk-4-bin \
  adwaita-icon-theme fonts-cantarell fonts-dejavu-core \
  locales weston x11-utils \
  clang libclang-rt-14-dev llvm valgrind \
  mmdebstrap flatpak bubblewrap xdg-dbus-proxy xdg-desktop-portal xdg-desktop-portal-gtk elfutils \
  zbar-tools chromium chromium-driver \
  time

# The tests run in Turkish and in English.
sed -i 's/^# *tr_TR.UTF-8/tr_TR.UTF-8/; s/^# *en_US.UTF-8/en_US.UTF-8/' /etc/locale.gen
locale-gen

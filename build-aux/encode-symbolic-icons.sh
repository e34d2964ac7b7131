#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# encode-symbolic-icons.sh ENCODER COMPILER PREFIX OUTPUT.c WORKDIR SVG...
#
# The app's own symbolic icons, pre-rendered as .symbolic.png at the sizes
# Adwaita ships (gtk4-encode-symbolic-svg, as GTK does for its own icons) and
# compiled into a resource under PREFIX (the application's icon path). GTK
# then draws them without loading librsvg at start-up, as it draws Adwaita's;
# the SVGs stay in the main resource for any other size.
set -eu

encoder=$1 compiler=$2 prefix=$3 output=$4 work=$5
shift 5

rm -rf "$work"
mkdir -p "$work"
xml=$work/icons.gresource.xml
{
  echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo '<gresources>'
  echo "  <gresource prefix=\"$prefix\">"
} > "$xml"
for size in 16 24 32 48 64 96; do
  dir=$work/${size}x$size/actions
  mkdir -p "$dir"
  for svg in "$@"; do
    "$encoder" -o "$dir" "$svg" "${size}x$size"
    name=$(basename "$svg" .svg)
    test -s "$dir/$name.symbolic.png"
    echo "    <file>${size}x$size/actions/$name.symbolic.png</file>" >> "$xml"
  done
done
{
  echo '  </gresource>'
  echo '</gresources>'
} >> "$xml"
"$compiler" --sourcedir="$work" --generate-source --c-name gml_icons --target="$output" "$xml"

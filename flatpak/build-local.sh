#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds GPU Memory Lab as a Flatpak on a machine that cannot reach Flathub, installs
# it, and runs it in its sandbox.  Offline apart from Debian's package archive.
#
#   flatpak/build-local.sh            (from anywhere; the work folder is
#                                      _build-flatpak in the checkout, or
#                                      $GML_FLATPAK_WORK)
#
# Flathub's GNOME runtime is out of reach here, so the runtime and the SDK are stand-ins
# made from Debian 12 packages, which carry the versions the code is written for (GTK
# 4.8, libadwaita 1.2):
#
#   local.gpumemorylab.Debian12.Platform//12  GTK 4, libadwaita, json-glib, libsoup 3,
#                                             fonts, icons, tr_TR and en_US locales
#   local.gpumemorylab.Debian12.Sdk//12       the same plus the -dev packages, meson,
#                                             gcc and the build tools
#
# The app's manifest is generated from flatpak/io.github.gpumemorylab.GpuMemoryLab.json
# and differs from it only in the runtime, runtime-version and sdk lines (and in its
# source folder written out as an absolute path, since the copy lives in the work
# folder).  Each step below is a check: "PASS: step" or "FAIL: step (log)"; a step whose
# prerequisite failed is reported as not run and counted as failed.  Ends with
# "N passed, N failed" and exits non-zero when anything failed.
#
# Everything Flatpak keeps goes into the work folder: the installation is
# FLATPAK_USER_DIR=<work>/user ("flatpak --user" with that variable set reaches it), the
# app's home is <work>/home.  Nothing of the user's own Flatpak installation is touched.
#
# Steps: tools, platform-root, sdk-root, runtimes, manifest, app-build, app-install,
# bundle, bundle-install, exports, cli-questions, window, portal-open, probe-attach,
# audience-network.
# The Debian roots are reused when their package lists have not changed
# (GML_FLATPAK_FRESH=1 makes them again).
set -u
cd "$(dirname "$0")/.."
srcdir=$(pwd)
work=${GML_FLATPAK_WORK:-$srcdir/_build-flatpak}
mkdir -p "$work/logs"
work=$(cd "$work" && pwd)
logs=$work/logs

app_id=io.github.gpumemorylab.GpuMemoryLab
platform_id=local.gpumemorylab.Debian12.Platform
sdk_id=local.gpumemorylab.Debian12.Sdk
branch=12
arch=$(uname -m)

export FLATPAK_USER_DIR="$work/user"
# The builds and runs must not see the session that started this script: each sandbox
# run below gets its own display, bus and runtime folder.
unset FLATPAK_SYSTEM_DIR

passed=0
failed=0
failures=
pass () { passed=$((passed + 1)); echo "PASS: $1"; }
fail () { failed=$((failed + 1)); failures="$failures\n  $1"; echo "FAIL: $1"; }
not_run () { fail "$1 (not run: $2 failed)"; }

# step NAME COMMAND...: runs COMMAND with its output in logs/NAME.log.
step ()
{
  name=$1
  shift
  t0=$(date +%s)
  if "$@" > "$logs/$name.log" 2>&1; then
    pass "$name ($(( $(date +%s) - t0 )) s)"
    return 0
  fi
  fail "$name (see $logs/$name.log)"
  tail -n 20 "$logs/$name.log" | sed 's/^/    /'
  return 1
}

# ---- the stand-in runtime and SDK -------------------------------------------------

# Debian packages, as a Flatpak runtime has them: no documentation, no translations
# but the app's two languages.
dpkg_opts="--dpkgopt=path-exclude=/usr/share/doc/* --dpkgopt=path-exclude=/usr/share/man/*
 --dpkgopt=path-exclude=/usr/share/info/* --dpkgopt=path-exclude=/usr/share/locale/*
 --dpkgopt=path-include=/usr/share/locale/tr/* --dpkgopt=path-include=/usr/share/locale/en*"
platform_packages="libgtk-4-1,libadwaita-1-0,libjson-glib-1.0-0,libsoup-3.0-0,librsvg2-common,\
adwaita-icon-theme,hicolor-icon-theme,fonts-cantarell,fonts-dejavu-core,locales,\
shared-mime-info,gsettings-desktop-schemas,libglib2.0-bin"
sdk_packages="$platform_packages,build-essential,pkg-config,meson,ninja-build,gettext,python3,\
libglib2.0-dev,libglib2.0-dev-bin,libgtk-4-dev,libadwaita-1-dev,libjson-glib-dev,libsoup-3.0-dev,\
libgtk-4-bin,desktop-file-utils,appstream,appstream-util,elfutils"

tools ()
{
  missing=
  for tool in mmdebstrap flatpak flatpak-builder bwrap Xvfb dbus-run-session xdotool \
              desktop-file-validate appstreamcli /usr/bin/python3; do
    command -v "$tool" > /dev/null 2>&1 || missing="$missing $tool"
  done
  for daemon in /usr/libexec/xdg-desktop-portal /usr/libexec/xdg-desktop-portal-gtk \
                /usr/libexec/xdg-document-portal; do
    [ -x "$daemon" ] || missing="$missing $daemon"
  done
  [ -z "$missing" ] || { echo "missing:$missing (build-aux/install-deps.sh installs them)"; return 1; }
  flatpak --version
  flatpak-builder --version
  mmdebstrap --version
}

# debian_root NAME PACKAGES: <work>/roots/NAME, made by mmdebstrap unless it is there
# with the same packages.
debian_root ()
{
  root=$work/roots/$1
  # The host's own Debian sources when it has them (its mirror, its security
  # updates), else mmdebstrap's default, deb.debian.org.
  mirrors=
  [ -f /etc/apt/sources.list.d/debian.sources ] && mirrors=/etc/apt/sources.list.d/debian.sources
  [ -z "$mirrors" ] && [ -s /etc/apt/sources.list ] && mirrors=/etc/apt/sources.list
  stamp="$2 $dpkg_opts $mirrors"
  if [ -z "${GML_FLATPAK_FRESH:-}" ] && [ -f "$root.packages" ] &&
     [ "$(cat "$root.packages")" = "$stamp" ]; then
    echo "reusing $root"
    return 0
  fi
  rm -rf "$root" "$root.packages"
  mkdir -p "$work/roots"
  # shellcheck disable=SC2086 # dpkg_opts and mirrors are lists
  mmdebstrap --variant=essential $dpkg_opts --include="$2" \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --customize-hook='printf "tr_TR.UTF-8 UTF-8\nen_US.UTF-8 UTF-8\n" > "$1/etc/locale.gen"' \
    --customize-hook='chroot "$1" locale-gen' \
    bookworm "$root" $mirrors || return 1
  printf '%s' "$stamp" > "$root.packages"
}

# export_runtime ROOT ID: a Flatpak runtime of ROOT's /usr (and its /etc, which Flatpak
# shows at /etc) in <work>/repo.
export_runtime ()
{
  dir=$work/export/$2
  rm -rf "$dir"
  mkdir -p "$dir"
  cp -al "$work/roots/$1/usr" "$dir/files" || return 1
  cp -a "$work/roots/$1/etc" "$dir/files/etc" || return 1
  cat > "$dir/metadata" <<EOF
[Runtime]
name=$2
runtime=$platform_id/$arch/$branch
sdk=$sdk_id/$arch/$branch
EOF
  flatpak build-export --runtime --files=files "$work/repo" "$dir" "$branch" || return 1
  rm -rf "$dir"
}

runtimes ()
{
  stamp=$(cat "$work/roots/platform.packages" "$work/roots/sdk.packages")
  if [ -z "${GML_FLATPAK_FRESH:-}" ] && [ -f "$work/runtimes.packages" ] &&
     [ "$(cat "$work/runtimes.packages")" = "$stamp" ] &&
     flatpak --user info "$platform_id//$branch" && flatpak --user info "$sdk_id//$branch"; then
    echo "reusing the runtimes installed from $work/repo"
    return 0
  fi
  rm -rf "$work/repo" "$FLATPAK_USER_DIR" "$work/runtimes.packages"
  export_runtime platform "$platform_id" &&
  export_runtime sdk "$sdk_id" &&
  flatpak build-update-repo "$work/repo" &&
  flatpak --user remote-add --no-gpg-verify local-debian12 "file://$work/repo" &&
  flatpak --user install -y --noninteractive local-debian12 \
    "$platform_id//$branch" "$sdk_id//$branch" &&
  flatpak --user list &&
  printf '%s' "$stamp" > "$work/runtimes.packages"
}

# ---- the app ------------------------------------------------------------------------

manifest=$work/$app_id.json

make_manifest ()
(
  # flatpak-builder leaves a state folder where it runs: here, not in the checkout.
  cd "$work" &&
  flatpak-builder --show-manifest "$srcdir/flatpak/$app_id.json" > "$work/flathub-manifest.json" &&
  /usr/bin/python3 - "$work/flathub-manifest.json" "$srcdir/flatpak" "$manifest" \
            "$platform_id" "$branch" "$sdk_id" <<'PY'
import json, os, sys
source, manifest_dir, out, platform, branch, sdk = sys.argv[1:]
m = json.load(open(source, encoding='utf-8'))
print('Flathub runtime:', m['runtime'], m['runtime-version'], m['sdk'])
m['runtime'], m['runtime-version'], m['sdk'] = platform, branch, sdk
def absolute(value):
    if isinstance(value, dict):
        for key, item in value.items():
            if key == 'path' and isinstance(item, str) and not os.path.isabs(item):
                value[key] = os.path.normpath(os.path.join(manifest_dir, item))
            else:
                absolute(item)
    elif isinstance(value, list):
        for item in value:
            absolute(item)
absolute(m['modules'])
json.dump(m, open(out, 'w', encoding='utf-8'), indent=2)
print('local runtime:', platform, branch, sdk)
PY
)

app_build ()
(
  # No FUSE for rofiles-fuse in every container: --disable-rofiles-fuse.  No network:
  # the manifest downloads nothing.
  cd "$work" &&
  flatpak-builder --user --disable-rofiles-fuse --force-clean --state-dir="$work/state" \
    --repo="$work/repo" --default-branch=local "$work/app" "$manifest"
)

app_install ()
{
  flatpak build-update-repo "$work/repo" &&
  flatpak --user install -y --noninteractive --reinstall local-debian12 "$app_id//local" &&
  flatpak --user info "$app_id//local"
}

bundle=$work/gpu-memory-lab.flatpak

make_bundle ()
{
  rm -f "$bundle"
  flatpak build-bundle "$work/repo" "$bundle" "$app_id" local &&
  ls -l "$bundle"
}

# The bundle into an installation of its own that has only the runtime.
bundle_install ()
(
  FLATPAK_USER_DIR=$work/user-bundle
  export FLATPAK_USER_DIR
  rm -rf "$FLATPAK_USER_DIR"
  flatpak --user remote-add --no-gpg-verify local-debian12 "file://$work/repo" &&
  flatpak --user install -y --noninteractive local-debian12 "$platform_id//$branch" &&
  flatpak --user install -y --noninteractive --bundle "$bundle" &&
  flatpak --user run "$app_id" questions --json --lang en > "$work/questions-bundle.json" &&
  /usr/bin/python3 -c 'import json, sys; n = len(json.load(open(sys.argv[1]))); print(n, "questions"); assert n' \
    "$work/questions-bundle.json"
)

exports ()
{
  share=$FLATPAK_USER_DIR/exports/share
  ok=0
  for f in "applications/$app_id.desktop" "mime/packages/$app_id.xml" \
           "icons/hicolor/scalable/apps/$app_id.svg"; do
    if [ -f "$share/$f" ]; then echo "exported: $f"; else echo "not exported: $f"; ok=1; fi
  done
  desktop-file-validate "$share/applications/$app_id.desktop" || ok=1
  grep -E '^(Exec|MimeType)=' "$share/applications/$app_id.desktop" || ok=1
  # Flatpak rewrites Exec to run the sandbox; the pickle type must survive the export.
  grep -q '^Exec=.*flatpak run .*--file-forwarding' "$share/applications/$app_id.desktop" || ok=1
  # flatpak-builder 1.2 moves the metainfo file to share/appdata (as .appdata.xml) and
  # composes the AppStream catalogue from it.
  files=$FLATPAK_USER_DIR/app/$app_id/current/active/files
  appstreamcli validate --no-net --explain "$files/share/appdata/$app_id.appdata.xml" || ok=1
  if [ -f "$files/share/app-info/xmls/$app_id.xml.gz" ]; then
    echo "AppStream catalogue: share/app-info/xmls/$app_id.xml.gz"
  else
    echo "no AppStream catalogue"; ok=1
  fi
  return $ok
}

sandbox_env ()
{
  # What a desktop session has: a home, and the runtime folder logind makes.  It must
  # be /run/user/UID: Flatpak puts that path in the sandbox whatever the host's is, and
  # the document portal hands the app paths under the host's.
  XDG_RUNTIME_DIR=/run/user/$(id -u)
  mkdir -p "$work/home" "$XDG_RUNTIME_DIR" || return 1
  chmod 700 "$XDG_RUNTIME_DIR"
  export HOME="$work/home" XDG_RUNTIME_DIR
  unset XDG_DATA_HOME XDG_CONFIG_HOME XDG_CACHE_HOME GSETTINGS_BACKEND GSETTINGS_SCHEMA_DIR
  unset GML_LOCALEDIR GML_LIBCUDA
}

cli_questions ()
(
  sandbox_env
  flatpak --user run "$app_id" questions --json --lang tr > "$work/questions-tr.json" || return 1
  /usr/bin/python3 - "$work/questions-tr.json" <<'PY'
import json, sys
questions = json.load(open(sys.argv[1], encoding='utf-8'))
print(len(questions), 'questions; the first:', questions[0]['text'])
assert len(questions) >= 20, 'too few questions'
assert all(len(q['options']) == 4 for q in questions), 'a question without four options'
turkish = sum(any(c in q['text'] for c in 'çğıöşüÇĞİÖŞÜ') for q in questions)
print(turkish, 'of them have Turkish letters')
assert turkish > len(questions) // 2, 'the questions are not in Turkish'
PY
)

# A window check in its own X display and D-Bus session (tests/e2e/run-in-session.sh).
sandbox_window ()
(
  sandbox_env
  GML_FLATPAK_WORK=$work "$srcdir/tests/e2e/run-in-session.sh" /usr/bin/python3 "$srcdir/tests/flatpak/test_sandbox_flatpak.py" "$1"
)

# ---- the steps ------------------------------------------------------------------------

start=$(date +%s)
# ok NAME: whether step NAME passed (the steps after it need it).
ok () { eval "[ \"\${ok_$1:-1}\" -eq 0 ]"; }
# run_step NAME FUNCTION [ARGS] NEEDED...: the step, or "not run" when a step it
# needs did not pass.  NEEDED follow a "--".
run_step ()
{
  name=$1
  shift
  command=
  while [ $# -gt 0 ] && [ "$1" != -- ]; do command="$command \"$1\""; shift; done
  [ $# -gt 0 ] && shift
  for need in "$@"; do
    if ! ok "$need"; then
      not_run "$name" "$need"
      eval "ok_$(echo "$name" | tr - _)=1"
      return
    fi
  done
  eval "step $name $command"
  eval "ok_$(echo "$name" | tr - _)=$?"
}

run_step tools tools
# The two roots are made at once (about 45 s less than one after the other): the SDK's
# in the background, its result reported after the platform's.
if ok tools; then
  sdk_started=$(date +%s)
  ( debian_root sdk "$sdk_packages" > "$logs/sdk-root.log" 2>&1; echo $? > "$work/sdk-root.status" ) &
  sdk_pid=$!
fi
run_step platform-root debian_root platform "$platform_packages" -- tools
if ok tools; then
  wait "$sdk_pid"
  if [ "$(cat "$work/sdk-root.status" 2>/dev/null)" = 0 ]; then
    pass "sdk-root ($(( $(date +%s) - sdk_started )) s, beside platform-root)"
    ok_sdk_root=0
  else
    fail "sdk-root (see $logs/sdk-root.log)"
    tail -n 20 "$logs/sdk-root.log" | sed 's/^/    /'
    ok_sdk_root=1
  fi
else
  not_run sdk-root tools
  ok_sdk_root=1
fi
run_step runtimes runtimes -- platform_root sdk_root
run_step manifest make_manifest -- tools
run_step app-build app_build -- runtimes manifest
run_step app-install app_install -- app_build
run_step bundle make_bundle -- app_build
run_step bundle-install bundle_install -- bundle
run_step exports exports -- app_install
run_step cli-questions cli_questions -- app_install
run_step window sandbox_window window -- app_install
run_step portal-open sandbox_window portal -- app_install
run_step probe-attach sandbox_window probe -- app_install
run_step audience-network sandbox_window audience -- app_install

echo "Flatpak steps took $(( $(date +%s) - start )) s; logs in $logs"
[ -n "$failures" ] && printf "Failed:$failures\n"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Package test (issue 6): builds the .deb with cpack in BUILD_DIR, installs it with apt-get, runs the installed
# shardscope-cli on an installed example scenario and the installed GUI offscreen (--version), checks the desktop
# entry, AppStream metadata, icons and man pages, then removes the package again (also when a check fails).
#
#   usage: packaging/test-package.sh [BUILD_DIR]     (default build; run as root, or with sudo available)
#
# .ci/run calls it after ./dev.sh package; with -DSHARDSCOPE_PACKAGE_TEST=ON it is also the ctest test
# `package_install` (label package).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
say() { echo "test-package: $*"; }
die() { echo "test-package: FAILED: $*" >&2; exit 1; }

if dpkg-query -W -f='${Status}' shardscope 2>/dev/null | grep -q "install ok installed"; then
  [ "${SHARDSCOPE_PACKAGE_TEST_REPLACE:-0}" = 1 ] \
    || die "shardscope is already installed on this machine; remove it first (or set SHARDSCOPE_PACKAGE_TEST_REPLACE=1)"
fi

# ---- Build the package from the current build.
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$BUILD/CMakeCache.txt")
[ "$prefix" = /usr ] || die "$BUILD is configured with CMAKE_INSTALL_PREFIX=$prefix, not /usr (use ./dev.sh package)"
has_gui=0
[ -x "$BUILD/app/gui/shardscope" ] && has_gui=1
cmake --build "$BUILD" >/dev/null
rm -f "$BUILD"/shardscope_*.deb
(cd "$BUILD" && cpack -G DEB >/dev/null) || die "cpack -G DEB failed (run it in $BUILD to see why)"
debs=("$BUILD"/shardscope_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || die "expected exactly one shardscope_*.deb in $BUILD"
deb=${debs[0]}
say "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"

# ---- Static checks on the .deb.
depends=$(dpkg-deb -f "$deb" Depends)
say "Depends: $depends"
grep -q "libc6" <<<"$depends" || die "Depends has no libc6: dpkg-shlibdeps did not run"
grep -q "libstdc++6" <<<"$depends" || die "Depends has no libstdc++6: dpkg-shlibdeps did not run"
if [ $has_gui -eq 1 ]; then
  for d in libqt6core6 libqt6widgets6 libqcustomplot2.1-qt6 qt6-qpa-plugins; do
    grep -q "$d" <<<"$depends" || die "Depends lacks $d"
  done
fi
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
need=(./usr/bin/shardscope-cli
      ./usr/share/shardscope/catalog/gpus.json ./usr/share/shardscope/catalog/links.json
      ./usr/share/shardscope/catalog/models.json ./usr/share/shardscope/scenarios/default.shardscope.json
      ./usr/share/applications/shardscope.desktop ./usr/share/metainfo/io.github.shardscope.metainfo.xml
      ./usr/share/mime/packages/shardscope.xml
      ./usr/share/icons/hicolor/16x16/apps/shardscope.png ./usr/share/icons/hicolor/48x48/apps/shardscope.png
      ./usr/share/icons/hicolor/256x256/apps/shardscope.png
      ./usr/share/man/man1/shardscope.1.gz ./usr/share/man/man1/shardscope-cli.1.gz
      ./usr/share/doc/shardscope/copyright ./usr/share/doc/shardscope/model.md)
[ $has_gui -eq 1 ] && need+=(./usr/bin/shardscope)
[ -f "$SRC/resources/icons/shardscope.svg" ] && need+=(./usr/share/icons/hicolor/scalable/apps/shardscope.svg)
for f in "${need[@]}"; do
  grep -qxF "$f" <<<"$contents" || die "the package lacks ${f#.}"
done
say "the package has all ${#need[@]} expected files"

# ---- Install, and remove again on every exit path.
cleanup() {
  say "removing the package"
  $SUDO apt-get purge -y -q shardscope >/dev/null 2>&1 || true
}
trap cleanup EXIT
$SUDO apt-get install -y -q --no-install-recommends "$deb" >/tmp/test-package-apt.log 2>&1 \
  || { tail -20 /tmp/test-package-apt.log; die "apt-get install $deb failed"; }
say "installed $(dpkg-query -W -f='${Package} ${Version}' shardscope)"

# ---- Run the installed CLI. First as users run it; then with the source tree's catalog hidden, because the
# binary looks for the catalogs in the source tree before /usr/share (core/src/catalog.cpp), so on a build
# machine the first run alone does not prove the installed catalogs work.
cd /
scenario=/usr/share/shardscope/scenarios/default.shardscope.json
out=$(/usr/bin/shardscope-cli evaluate "$scenario") || die "shardscope-cli evaluate $scenario failed (exit $?)"
grep -q '"valid": true' <<<"$out" || die "shardscope-cli evaluate printed no valid result"
say "shardscope-cli evaluate $scenario: valid result, $(grep -m1 '"total"' <<<"$out" | tr -d ' ,')"
/usr/bin/shardscope-cli evaluate "$scenario" --format table >/dev/null || die "shardscope-cli --format table failed"
hidden_rc=0
$SUDO unshare --mount sh -c "mount -t tmpfs none '$SRC/resources/catalog' || exit 99; exec /usr/bin/shardscope-cli evaluate '$scenario'" \
  >/tmp/test-package-hidden.out 2>&1 || hidden_rc=$?
if [ $hidden_rc -eq 0 ]; then
  grep -q '"valid": true' /tmp/test-package-hidden.out || die "with the source catalog hidden, no valid result"
  say "shardscope-cli reads /usr/share/shardscope/catalog (source tree hidden): ok"
elif [ $hidden_rc -eq 99 ] || ! unshare --mount true 2>/dev/null; then
  # No mount namespace here (a container without CAP_SYS_ADMIN): point the CLI at the installed catalogs instead.
  SHARDSCOPE_CATALOG_DIR=/usr/share/shardscope/catalog /usr/bin/shardscope-cli evaluate "$scenario" >/dev/null \
    || die "shardscope-cli with SHARDSCOPE_CATALOG_DIR=/usr/share/shardscope/catalog failed"
  say "shardscope-cli with the installed catalog (SHARDSCOPE_CATALOG_DIR): ok (could not hide the source tree)"
else
  cat /tmp/test-package-hidden.out
  die "with the source catalog hidden, shardscope-cli failed (exit $hidden_rc)"
fi
for s in /usr/share/shardscope/scenarios/*.json; do
  /usr/bin/shardscope-cli evaluate "$s" >/dev/null || die "shardscope-cli evaluate $s failed (exit $?)"
done
say "all $(ls /usr/share/shardscope/scenarios/*.json | wc -l) installed example scenarios evaluate"
if /usr/bin/shardscope-cli --help | grep -q "shardscope-cli export"; then
  # export draws with the installed Qt (offscreen platform plugin, SVG module, fonts).
  tmp=$(mktemp -d)
  /usr/bin/shardscope-cli export "$scenario" --chart memory --out "$tmp/memory.png" >/dev/null 2>"$tmp/err" \
    || { cat "$tmp/err"; die "shardscope-cli export --out memory.png failed"; }
  /usr/bin/shardscope-cli export "$scenario" --chart time --out "$tmp/time.svg" >/dev/null 2>"$tmp/err" \
    || { cat "$tmp/err"; die "shardscope-cli export --out time.svg failed"; }
  [ "$(head -c 8 "$tmp/memory.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || die "export wrote no PNG"
  grep -q "<svg" "$tmp/time.svg" || die "export wrote no SVG"
  say "shardscope-cli export (offscreen): PNG and SVG written"
  rm -rf "$tmp"
fi

# ---- Run the installed GUI offscreen: --version only (QCommandLineParser prints it and exits before any window).
if [ $has_gui -eq 1 ]; then
  export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/runtime-$(id -u)}
  mkdir -p -m 700 "$XDG_RUNTIME_DIR"
  version=$(cmake -L -N "$BUILD" 2>/dev/null | sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p')
  [ -n "$version" ] || version=$(dpkg-deb -f "$deb" Version)
  gui=$(QT_QPA_PLATFORM=offscreen timeout 60 /usr/bin/shardscope --version 2>&1) || die "shardscope --version failed: $gui"
  grep -qF "$version" <<<"$gui" || die "shardscope --version printed '$gui', not the version $version"
  say "QT_QPA_PLATFORM=offscreen shardscope --version: $gui"
  QT_QPA_PLATFORM=offscreen timeout 60 /usr/bin/shardscope --help >/dev/null 2>&1 || die "shardscope --help failed"
else
  say "no GUI in this build (SHARDSCOPE_BUILD_GUI=OFF): skipped shardscope --version"
fi

# ---- Desktop integration and documentation, as installed.
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate /usr/share/applications/shardscope.desktop || die "desktop-file-validate failed"
  say "desktop-file-validate: ok"
else
  say "desktop-file-validate not installed: skipped"
fi
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net /usr/share/metainfo/io.github.shardscope.metainfo.xml >/dev/null \
    || die "appstreamcli validate failed"
  say "appstreamcli validate: ok"
else
  say "appstreamcli not installed: skipped"
fi
for p in shardscope shardscope-cli; do
  gzip -t "/usr/share/man/man1/$p.1.gz" || die "man page $p.1.gz is not valid gzip"
  zcat "/usr/share/man/man1/$p.1.gz" | grep -q "^\.TH ${p^^} 1" || die "man page $p.1 has no .TH header"
done
say "man pages: ok"

trap - EXIT
cleanup
[ ! -e /usr/bin/shardscope-cli ] || die "/usr/bin/shardscope-cli is still there after apt-get purge"
[ ! -e /usr/share/shardscope ] || die "/usr/share/shardscope is still there after apt-get purge"
say "PASSED"

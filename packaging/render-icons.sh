#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Re-renders the pre-rendered PNG icons (packaging/icons/hicolor/NxN/apps/shardscope.png) from
# resources/icons/shardscope.svg. Run it after changing the SVG and commit the PNGs: the build needs no SVG renderer.
# Needs rsvg-convert (Debian: librsvg2-bin).
set -euo pipefail
cd "$(dirname "$0")/.."
svg=resources/icons/shardscope.svg
command -v rsvg-convert >/dev/null || { echo "render-icons.sh: rsvg-convert is missing (apt-get install librsvg2-bin)" >&2; exit 1; }
for n in 16 22 24 32 48 64 128 256; do
  d=packaging/icons/hicolor/${n}x${n}/apps
  mkdir -p "$d"
  rsvg-convert -w "$n" -h "$n" -o "$d/shardscope.png" "$svg"
done
echo "render-icons.sh: rendered $(ls packaging/icons/hicolor | wc -l) sizes from $svg"

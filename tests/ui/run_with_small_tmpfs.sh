#!/bin/sh
# Runs a test program with SHARDSCOPE_SMALL_TMPFS naming a 256 KiB tmpfs, mounted in a mount namespace of its
# own so that it goes away with the test (a really full disk for tst_file_safety). Needs root, as in CI;
# elsewhere the program runs without it and skips its full-disk cases.
dir=$(mktemp -d) || exit 1
if unshare -m true 2>/dev/null; then
    SHARDSCOPE_SMALL_TMPFS="$dir" unshare -m sh -c \
        'mount -t tmpfs -o size=256k,mode=0700 shardscope-small "$SHARDSCOPE_SMALL_TMPFS" && exec "$@"' sh "$@"
else
    echo "run_with_small_tmpfs: no mount namespace (not root): full-disk cases skipped" >&2
    "$@"
fi
rc=$?
rmdir "$dir"
exit $rc

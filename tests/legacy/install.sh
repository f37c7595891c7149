#!/bin/sh
# Legacy mode installed (issue 9): `make install DESTDIR=...`, then, in a
# private mount namespace where the installation is at its prefix and
# the build tree is gone (an empty tmpfs over it), the installed cm5cc
# --legacy builds the 1993-style tests/legacy/kr_words.c and the
# installed cm5run runs it on 4 nodes: the installed 32-bit libcm5fab
# finds its i386 libfabric in lib32/cm5fab ($ORIGIN/cm5fab), no build
# path is in its run path.  SKIPs without the 32-bit library, or where
# unshare -m is not allowed (not root).
#
#   abs_top_builddir=BUILD abs_top_srcdir=SRC sh tests/legacy/install.sh

: "${abs_top_builddir:=$(pwd)}" "${abs_top_srcdir:=$abs_top_builddir/..}"
top=$abs_top_builddir
src=$abs_top_srcdir
unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL FI_PROVIDER

. "$src/tests/tap.sh"
tap_begin cm5legacy-install 3

why=
prefix=$(sed -n 's/^prefix = //p' "$top/Makefile")
[ -f "$top/legacy32/.libs/libcm5fab.so" ] ||
    why="no 32-bit libcm5fab (configure said why)"
[ -n "$why" ] || [ "$(sed -n 's/^exec_prefix = //p' "$top/Makefile")" = \
    '${prefix}' ] || why="exec_prefix is not \${prefix}"
[ -n "$why" ] || unshare -m true 2>/dev/null ||
    why="unshare -m not allowed (needs root)"
if [ -n "$why" ]; then
    for d in "make install" "no build path in lib32's run path" \
        "installed cm5cc --legacy program without the build tree"; do
        skip "installed legacy: $d" "$why"
    done
    exit 0
fi

# (tap_begin made the scratch directory, removed at exit, and went in.)
dest=$scratch/dest

what="make install DESTDIR=$dest"
make -s -C "$top" install DESTDIR="$dest" >out 2>err
rc=$?
check "make install DESTDIR: the 32-bit library and its libfabric in lib32" \
    '[ "$rc" -eq 0 ] && [ -f "$dest$prefix/lib32/libcm5fab.so" ] &&
     [ -e "$dest$prefix/lib32/cm5fab/libfabric.so.1" ] &&
     [ -x "$dest$prefix/bin/cm5cc" ]'

what="readelf -d lib32/libcm5fab.so lib32/libcm5sched.so"
readelf -d "$dest$prefix/lib32/libcm5fab.so" \
    "$dest$prefix/lib32/libcm5sched.so" >out 2>err
rc=$?
check "lib32's run paths name no build-tree directory (\$ORIGIN/cm5fab)" \
    '[ "$rc" -eq 0 ] && [ "$(grep -c "RPATH.*\$ORIGIN/cm5fab" out)" -eq 2 ] &&
     ! grep -q "$top" out'

# In a private mount namespace: the installation at its prefix, the
# build tree an empty directory.
cat >inside.sh <<EOF
mount --bind "$dest$prefix" "$prefix" &&
mount -t tmpfs cm5gone "$top" || exit 99
[ ! -e "$top/legacy32" ] || exit 98
"$prefix/bin/cm5cc" --legacy -o kr "$src/tests/legacy/kr_words.c" 2>cc.err ||
    exit 97
timeout -k 2 130 "$prefix/bin/cm5run" -n 4 --timeout 120 ./kr 10
EOF
what="unshare -m: installed cm5cc --legacy + cm5run -n 4 ./kr 10"
unshare -m sh inside.sh >out 2>err
rc=$?
check "installed cm5cc --legacy program runs on 4 nodes without the build tree (address check passes)" \
    '[ "$rc" -eq 0 ] && [ "$(grep -c "^node [0-3]: ok$" out)" -eq 4 ] &&
     ! grep -q "legacy\|error" err'

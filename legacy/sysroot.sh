#!/bin/sh
# legacy-sysroot.sh DIR: unpack Debian's i386 libfabric into the private
# sysroot DIR, for the 32-bit (legacy) build of libcm5fab.
#
# Debian's amd64 and i386 libfabric-dev cannot be installed together (their
# psm dependency is not multi-arch), so the i386 packages are downloaded
# (apt-get download, no root needed) and unpacked here with dpkg -x.  Their
# own dependencies (libibverbs1:i386, librdmacm1:i386, libuuid1:i386) are
# multi-arch and installed normally (quickstart.sh).  Set CM5_LEGACY_DEBS
# to a directory holding the three .deb files to skip the download.
# Exit status 0 when DIR/usr/lib/i386-linux-gnu/libfabric.so is usable;
# otherwise one line on stderr says why.
set -u
dir=$1
lib=$dir/usr/lib/i386-linux-gnu
pkgs="libfabric1:i386 libfabric-dev:i386 libpsm-infinipath1:i386"

[ -f "$lib/pkgconfig/libfabric.pc" ] && [ -e "$lib/libpsm_infinipath.so.1" ] &&
    exit 0
mkdir -p "$dir/debs" || exit 1
debs=${CM5_LEGACY_DEBS:-$dir/debs}
if ! ls "$debs"/libfabric-dev_*_i386.deb >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || {
        echo "no apt-get to download $pkgs" >&2
        exit 1
    }
    if ! (cd "$debs" && apt-get download $pkgs) >"$dir/debs/log" 2>&1; then
        echo "apt-get download $pkgs failed (is the i386 architecture" \
            "enabled? dpkg --add-architecture i386; apt-get update)" >&2
        exit 1
    fi
fi
for d in "$debs"/libfabric1_*_i386.deb "$debs"/libfabric-dev_*_i386.deb \
    "$debs"/libpsm-infinipath1_*_i386.deb; do
    dpkg -x "$d" "$dir" || {
        echo "dpkg -x $d failed" >&2
        exit 1
    }
done
# The package's postinst makes this link (update-alternatives).
psm=$(ls "$dir"/usr/lib/libpsm1/libpsm_infinipath.so.1.* 2>/dev/null | head -1)
[ -n "$psm" ] || {
    echo "no libpsm_infinipath.so.1.* in libpsm-infinipath1:i386" >&2
    exit 1
}
ln -sf "../libpsm1/$(basename "$psm")" "$lib/libpsm_infinipath.so.1"
# pkg-config --variable and the .la files see the sysroot's prefix.
sed -i "s|^prefix=.*|prefix=$dir/usr|" "$lib/pkgconfig/libfabric.pc"
exit 0

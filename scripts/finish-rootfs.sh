#!/bin/bash
# Post-steps for a root filesystem that mmdebstrap extracted (no maintainer
# script ran): merged-/usr links, the dynamic linker's cache, the mount
# points an init needs, and nothing a test guest never reads (docs, man
# pages, translations, apt's state).  Called by build-rootfs.sh as
#   finish-rootfs.sh guest|sysroot DIR
set -euo pipefail
. "$(dirname "$0")/common.sh"

# Where the guest finds lavapipe's ICD (tests/guest/mesa/init.sh)
LVP_ICD=/usr/share/vulkan/lavapipe/lvp_icd.json

VARIANT=$1
ROOT=$2

# trixie is merged-/usr: /bin, /sbin, /lib are links into /usr (the
# interpreter the binaries name is /lib/ld-linux-aarch64.so.1).
for d in bin sbin lib; do
    if [ ! -e "$ROOT/$d" ] && [ ! -L "$ROOT/$d" ]; then
        ln -s "usr/$d" "$ROOT/$d"
    fi
done

rm -rf "$ROOT"/usr/share/doc "$ROOT"/usr/share/man "$ROOT"/usr/share/info \
    "$ROOT"/usr/share/locale "$ROOT"/usr/share/lintian \
    "$ROOT"/usr/share/bug "$ROOT"/var/cache/apt "$ROOT"/var/lib/apt/lists \
    "$ROOT"/var/log/*
# The sysroot keeps the static libraries and headers it is for; the guest
# needs neither.
if [ "$VARIANT" = guest ]; then
    rm -rf "$ROOT"/usr/include "$ROOT"/usr/lib/aarch64-linux-gnu/gconv
    find "$ROOT/usr/lib" -name '*.a' -delete
    # Mesa's Vulkan drivers for other GPUs (a third of the tree): the
    # loader would try each of them on every vulkaninfo.  Lavapipe (the
    # CPU driver, vk-ops' comparison) stays, out of the loader's default
    # path: only VK_ADD_DRIVER_FILES=$LVP_ICD makes it visible.
    mkdir -p "$ROOT$(dirname "$LVP_ICD")"
    for icd in "$ROOT"/usr/share/vulkan/icd.d/*.json; do
        [ "$(basename "$icd")" = asahi_icd.json ] && continue
        case $(basename "$icd") in
        lvp_icd.*)
            mv "$icd" "$ROOT$LVP_ICD"
            continue
            ;;
        esac
        lib=$(sed -n 's|.*"library_path": *"\(.*\)".*|\1|p' "$icd")
        rm -f "$icd" "$ROOT/$lib"
        [ -n "$lib" ] && rm -f "$ROOT/usr/lib/aarch64-linux-gnu/$(basename "$lib")"
    done
fi

# The alternatives no maintainer script made: eglinfo and the other
# mesa-utils programs under their plain names.
for f in "$ROOT"/usr/bin/*.aarch64-linux-gnu; do
    [ -e "$f" ] || continue
    ln -sfn "$(basename "$f")" "${f%.aarch64-linux-gnu}"
done

mkdir -p "$ROOT"/proc "$ROOT"/sys "$ROOT"/dev "$ROOT"/tmp "$ROOT"/run \
    "$ROOT"/root "$ROOT"/etc
chmod 1777 "$ROOT/tmp"

# The loader's cache: ldconfig reads ELF headers only, so the host's runs
# fine on an arm64 tree (without a cache the loader still searches the
# multiarch directories, only more slowly).
if ! ldconfig -r "$ROOT" 2>/dev/null; then
    log "ldconfig -r failed; the guest's loader will search without a cache"
fi
# Symbolic links of libraries whose -dev package the guest lacks are made
# by ldconfig above; the Vulkan loader finds the ICD through
# /usr/share/vulkan/icd.d, the GLVND EGL dispatcher through
# /usr/share/glvnd/egl_vendor.d, both shipped by the packages.

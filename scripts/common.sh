# Shared settings for the build scripts; sourced, not run.
# Everything downloaded or built lives outside the clone, in $AGX_CACHE.
AGX_CACHE=${AGX_CACHE:-$HOME/.cache/agx-qemu}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JOBS=${JOBS:-$(nproc)}
mkdir -p "$AGX_CACHE"

AGX_LOGS=$AGX_CACHE/logs

log() {
    echo "agx: $*" >&2
}

# Tenths of a second since $1 (an ${EPOCHREALTIME} value), as "12.3"
seconds_since() {
    local t=$(( (${EPOCHREALTIME//[.,]/} - ${1//[.,]/}) / 100000 ))
    echo "$((t / 10)).$((t % 10))"
}

# step NAME COMMAND...: run COMMAND (a program or a shell function) with
# its stderr in $AGX_LOGS/NAME.log, its stdout left alone (the build
# scripts print their results there, their noise on stderr).  Prints one
# line on stderr: what ran, how long it took, where its log is; when
# COMMAND fails, the end of that log too.  A step that had nothing to do
# (its log holds only the lines of STEP_NOOP) prints nothing, nor does one
# that exits with status 77, "cannot run here" (as meson's skipped tests):
# its caller says why.  Returns COMMAND's status.
STEP_NOOP='^(ninja: (Entering directory|no work to do)|make(\[[0-9]+\])?: (Entering directory|Leaving directory|Nothing to be done|.* is up to date)|\[[0-9]+/[0-9]+\] Generating qemu-version\.h)'
step() {
    local name=$1 logf=$AGX_LOGS/$1.log start rc=0
    shift
    mkdir -p "$AGX_LOGS"
    start=$EPOCHREALTIME
    # On a terminal, say what runs until it is done
    [ -t 2 ] && printf 'agx: %s ...' "$name" >&2
    "$@" 2>"$logf" || rc=$?
    [ -t 2 ] && printf '\r\033[K' >&2
    if [ $rc = 0 ]; then
        if grep -qvE "$STEP_NOOP" "$logf"; then
            echo "agx: $name: ok ($(seconds_since "$start") s, log: $logf)" >&2
        fi
    elif [ $rc != 77 ]; then
        {
            echo "agx: $name: FAILED (exit $rc, $(seconds_since "$start") s)," \
                 "the end of $logf:"
            tail -n 30 "$logf" | sed 's/^/  | /'
            echo "agx: $name: FAILED, full log: $logf"
        } >&2
    fi
    return $rc
}

# Print the unpacked tree of package $1 for the first of the versions
# $2... found in $AGX_CACHE/src; fails if none is there.
unpacked_before() {
    local pkg=$1 ver dir
    shift
    for ver in "$@"; do
        dir="$AGX_CACHE/src/$pkg-${ver#*:}"
        if [ -e "$dir/.unpacked" ]; then
            echo "$dir"
            return 0
        fi
    done
    return 1
}

# Fetch and unpack the newest Debian source package named $1 whose version
# matches the glob $2, into $AGX_CACHE/src; prints the unpacked directory.
# With $3 = orig, only the upstream tarball is unpacked (no Debian patches).
debian_source() {
    local pkg=$1 want=$2 mode=${3:-full} ver dir dl versions
    versions=$(apt-cache showsrc "$pkg" 2>/dev/null |
               sed -n 's/^Version: //p' | grep -E "$want" | sort -Vru)
    # Anything unpacked before wins: no network round trip when warm.
    unpacked_before "$pkg" $versions && return 0
    for ver in $versions; do
        dl="$AGX_CACHE/dl/$pkg-${ver#*:}"
        dir="$AGX_CACHE/src/$pkg-${ver#*:}"
        mkdir -p "$dl" "$AGX_CACHE/src"
        if ! ls "$dl"/*.dsc >/dev/null 2>&1; then
            log "downloading $pkg $ver"
            if ! (cd "$dl" && apt-get source -q --download-only "$pkg=$ver" >&2); then
                # Some mirrors list versions they do not serve: try the next.
                rm -rf "$dl"
                continue
            fi
        fi
        rm -rf "$dir"
        if [ "$mode" = orig ]; then
            mkdir -p "$dir"
            tar -C "$dir" --strip-components=1 -xf "$dl"/*.orig.tar.*
        else
            dpkg-source --no-check -x "$dl"/*.dsc "$dir" >&2
        fi
        touch "$dir/.unpacked"
        echo "$dir"
        return 0
    done
    log "no downloadable source package $pkg matching $want" \
        "(is deb-src for trixie enabled?)"
    return 1
}

# Fetch the newest Debian binary package $1 whose version matches the
# regex $2 (from any configured suite, pinned or not) into $AGX_CACHE/dl and
# unpack its data into $AGX_CACHE/src/$1-<version>; prints that directory.
debian_binary() {
    local pkg=$1 want=$2 ver dir dl versions
    versions=$(apt-cache madison "$pkg" 2>/dev/null |
               awk -F' *[|] *' '{print $2}' | grep -E "$want" | sort -Vru)
    unpacked_before "$pkg" $versions && return 0
    for ver in $versions; do
        dl="$AGX_CACHE/dl/$pkg-${ver#*:}"
        dir="$AGX_CACHE/src/$pkg-${ver#*:}"
        mkdir -p "$dl" "$AGX_CACHE/src"
        if ! ls "$dl"/*.deb >/dev/null 2>&1; then
            log "downloading $pkg $ver"
            # apt's sandbox user cannot write into a root-owned cache.
            if ! (cd "$dl" && apt-get download -q \
                    -o APT::Sandbox::User=root "$pkg=$ver" >&2); then
                rm -rf "$dl"
                continue
            fi
        fi
        rm -rf "$dir"
        mkdir -p "$dir"
        dpkg-deb -x "$dl"/*.deb "$dir"
        touch "$dir/.unpacked"
        echo "$dir"
        return 0
    done
    log "no downloadable binary package $pkg matching $want" \
        "(is trixie-backports configured? run scripts/setup-host.sh)"
    return 1
}

# clang with libFuzzer's runtime, found by version: the newest installed
# clang-N that has libclang-rt-N-dev for this host, else the one Debian's
# clang package depends on, installed.  Sets CLANG, LLVM_BIN (llvm-cov
# and llvm-profdata of the same version).
find_clang_fuzzer() {
    local arch v
    arch=$(uname -m)
    for v in $(ls -d /usr/lib/llvm-* 2>/dev/null | sed 's/.*llvm-//' |
               sort -rn); do
        if ls /usr/lib/llvm-"$v"/lib/clang/*/lib/linux/libclang_rt.fuzzer-"$arch".a \
              >/dev/null 2>&1 && [ -x /usr/lib/llvm-"$v"/bin/clang ]; then
            CLANG=/usr/lib/llvm-$v/bin/clang
            LLVM_BIN=/usr/lib/llvm-$v/bin
            return 0
        fi
    done
    v=$(apt-cache depends clang 2>/dev/null |
        sed -n 's/.*Depends: clang-\([0-9]*\)$/\1/p' | head -1)
    if [ -z "$v" ]; then
        log "no clang package found in apt"
        return 1
    fi
    log "installing clang-$v and its libFuzzer runtime"
    apt-get install -y -q --no-install-recommends clang-"$v" \
        libclang-rt-"$v"-dev llvm-"$v" >&2
    CLANG=/usr/lib/llvm-$v/bin/clang
    LLVM_BIN=/usr/lib/llvm-$v/bin
}

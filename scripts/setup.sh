#!/usr/bin/env bash
# One command from a fresh clone to a running tern: installs the system packages the build needs
# (Debian/Ubuntu; with sudo when not root, saying what it installs; what is there is skipped),
# builds, and opens tern on the embedded local server.
#
#   scripts/setup.sh [--dev] [--no-run] [-- TERN-ARGUMENTS…]
#
#   --dev      also install what the whole test suite uses: tmux, postgresql, libsixel-bin, libhunspell-1.7-0 and
#              hunspell-en-us (docs/testing.md)
#   --no-run   install and build, do not open tern
#
# Afterwards `swift build && swift run tern` does the same as this without the installing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libncursesw5-dev libgd-dev libchafa-dev libsqlite3-dev libcurl4-openssl-dev)
run=1
while [ $# -gt 0 ]; do
    case "$1" in
        --dev) packages+=(tmux postgresql libsixel-bin libhunspell-1.7-0 hunspell-en-us); shift ;;
        --no-run) run=0; shift ;;
        --) shift; break ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done

if ! command -v swift >/dev/null 2>&1; then
    echo "setup: swift is not on PATH. Install Swift 6.1 or later (https://www.swift.org/install/linux/), then run this again." >&2
    exit 1
fi

if command -v dpkg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    missing=()
    for p in "${packages[@]}"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        sudo=()
        if [ "$(id -u)" != "0" ]; then
            if ! command -v sudo >/dev/null 2>&1; then
                echo "setup: these packages are missing and there is no sudo; as root run:" >&2
                echo "  apt-get install ${missing[*]}" >&2
                exit 1
            fi
            sudo=(sudo)
        fi
        echo "setup: installing ${missing[*]}${sudo:+ (with sudo)}"
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    else
        echo "setup: the system packages are there (${packages[*]})"
    fi
else
    echo "setup: not a Debian/Ubuntu system; make sure these (or your system's equivalents) are installed:" >&2
    echo "  ${packages[*]}" >&2
fi

echo "setup: swift build (the first build takes several minutes)"
swift build
if [ "$run" = 1 ]; then
    exec "$(swift build --show-bin-path)/tern" "$@"
fi
echo "setup: built; run it with: swift run tern"

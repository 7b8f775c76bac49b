#!/usr/bin/env bash
# The fast binaries, for people who keep tern: a release build of tern and ternd (tern starts the
# embedded server with the ternd beside it), copied to ~/.local/bin (or $PREFIX/bin).
#
#   scripts/install.sh [--dynamic]
#
#   By default the Swift runtime and Foundation are linked in (--static-swift-stdlib): the binaries
#   need no Swift toolchain at run time, only the system libraries (ncursesw, gd, chafa, sqlite3,
#   curl), and tern starts with less memory (docs/benchmarks.md, issue 36).
#   --dynamic  link them as shared libraries from the toolchain instead (the binaries then need the
#              toolchain's lib/swift/linux at run time)
#
# Run scripts/setup.sh --no-run first on a fresh machine (the system packages).
set -euo pipefail
cd "$(dirname "$0")/.."

flags=(-c release)
case "${1:-}" in
    --dynamic) ;;
    --static|"") flags+=(--static-swift-stdlib) ;;  # --static: the default, kept for old habits
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install: unknown option $1 (--dynamic, --help)" >&2; exit 2 ;;
esac

bin="${PREFIX:-$HOME/.local}/bin"
echo "install: swift build ${flags[*]} (a release build takes several minutes)"
swift build "${flags[@]}" --product tern
swift build "${flags[@]}" --product ternd
from="$(swift build "${flags[@]}" --show-bin-path)"
mkdir -p "$bin"
install -m 0755 "$from/tern" "$from/ternd" "$bin/"
echo "install: $bin/tern and $bin/ternd"
case ":$PATH:" in
    *":$bin:"*) ;;
    *) echo "install: $bin is not on PATH; add it, e.g. export PATH=\"$bin:\$PATH\"" ;;
esac

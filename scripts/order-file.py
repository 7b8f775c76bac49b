#!/usr/bin/env python3
"""Writes the list of functions tern runs, for the linker to place side by side (scripts/tern.order).

A static tern is 28 MB of code of which a session runs ~2.5 MB, scattered: every page fault on the
binary maps up to 64 kB around it, so the few functions run kept ~20 MB of their neighbours resident
(docs/benchmarks.md, "Linking tern light"). Release builds link with lld's `--symbol-ordering-file`
(Package.swift, `lightLink`): the functions named here come first, together.

This runs the tui-bench workload (start from a warm cache, join, a burst of messages) with tern under
valgrind's callgrind, which names every function that ran, and keeps those the binary defines:

  swift build -c release --static-swift-stdlib --scratch-path .build-static --product tern
  swift build -c release --product ternd
  python3 scripts/order-file.py --tern .build-static/release/tern --ternd .build/release/ternd

Run it again after large changes: a name that no longer exists is skipped by the linker, a new
function not listed is only placed with the rest (it still works, it costs its page).
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile


def ran(outputs):
    """Every function callgrind saw run (as the symbol table names it)."""
    names = set()
    for path in outputs:
        with open(path, errors="replace") as f:
            for line in f:
                m = re.match(r"c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
                if m:
                    names.add(m.group(1))
    return names


def defined(binary):
    """The functions the binary defines once.

    A name defined more than once is a local symbol of several object files (a merged function such as
    `objectdestroy.17Tm`, an outlined copy, a specialization each module made for itself). The linker
    places every symbol of that name in front, and with it the whole section that holds it: where an
    object file has one `.text` for all its functions, one such name brought 487 kB of the regex parser
    into the functions a session runs. Those names are left out."""
    out = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    seen = {}
    for p in (line.split(None, 2) for line in out.splitlines()):
        if len(p) == 3 and p[1] in "tTwW":
            seen[p[2]] = seen.get(p[2], 0) + 1
    return {name for name, n in seen.items() if n == 1}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tern", required=True, help="a release build of tern (static: the Swift runtime's functions are in it too)")
    p.add_argument("--ternd", required=True)
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "tern.order"))
    a = p.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("order-file: valgrind is needed (apt-get install valgrind)")
    work = tempfile.mkdtemp(prefix="tern-order-")
    try:
        # valgrind cannot read the DWARF of this toolchain; the symbol table is enough.
        binary = os.path.join(work, "tern")
        subprocess.run(["strip", "--strip-debug", "-o", binary, a.tern], check=True)
        shutil.copy(a.ternd, os.path.join(work, "ternd"))
        wrapper = os.path.join(work, "vg-tern")
        with open(wrapper, "w") as f:
            f.write(
                f'#!/bin/sh\nexec valgrind --tool=callgrind --demangle=no --dump-instr=no '
                f'--callgrind-out-file={work}/callgrind.%p {binary} "$@" 2>>{work}/valgrind.log\n'
            )
        os.chmod(wrapper, 0o755)
        bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tui-bench.py")
        # A smaller workload than the bench's own: under valgrind tern runs ~50 times slower.
        subprocess.run(
            [sys.executable, bench, "--client", "tern", "--tern", wrapper, "--ternd", a.ternd, "--channels", "20",
             "--messages", "2000", "--rate", "20", "--seconds", "10", "--idle", "2", "--no-pin"],
            check=True,
        )
        names = sorted(ran(glob.glob(os.path.join(work, "callgrind.*"))) & defined(a.tern))
        if len(names) < 1000:
            sys.exit(f"order-file: only {len(names)} functions ran; see {work}/valgrind.log")
        with open(a.out, "w") as f:
            f.write("\n".join(names) + "\n")
        print(f"order-file: {len(names)} functions into {a.out}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

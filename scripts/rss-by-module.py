#!/usr/bin/env python3
"""Where a running program's resident memory is, inside its own binary: by section and by module.

`/proc/PID/smaps` stops at the mapping, and a statically linked tern is one mapping of 40 MB. This
reads which pages of the binary are resident (`/proc/PID/pagemap`, bit 63), places each page in
the binary's sections (`readelf -S`) and, given the linker's map of that very build, in the object
files the linker put there, summed by module (a SwiftPM target, a static library of the toolchain,
the C runtime). A page that holds code of two modules is shared between them by bytes.

  swift build -c release --static-swift-stdlib --scratch-path .build-static --product tern \\
      -Xlinker -Map=/tmp/tern.map                    # the same binary, and the linker's map of it
  python3 scripts/rss-by-module.py PID --map /tmp/tern.map

Reading another process's pagemap needs the same user (present bits) and, for the process's
binary, nothing else. Prints kB: resident pages, then the top sections, then the top modules.
"""
import argparse
import bisect
import os
import re
import struct
import subprocess
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")


def sections(binary):
    """(name, start, size) of the binary's allocated sections, by address."""
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)", line)
        if m and "A" in m.group(4) and int(m.group(2), 16):
            found.append((m.group(1), int(m.group(2), 16), int(m.group(3), 16)))
    return sorted(found, key=lambda s: s[1])


def module_of(path):
    """The module an input file of the link belongs to."""
    m = re.search(r"/([^/]+)\.build/", path)
    if m:
        return m.group(1)
    m = re.search(r"/lib([^/(]+)\.a\(", path)
    if m:
        return "lib" + m.group(1)
    return os.path.basename(path.split("(")[0]) or "?"


def lld_map(f, allocated, symbols):
    """The same from lld's map: `VMA LMA Size Align` then the output section, an input
    `file:(section)` or a symbol, each nested eight columns deeper than the one before."""
    pieces = []
    inside = False
    for line in f:
        m = re.match(r"\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+( +)(\S.*)$", line)
        if not m:
            continue
        addr, size, depth, what = int(m.group(1), 16), int(m.group(2), 16), len(m.group(3)), m.group(4).strip()
        if depth == 1:  # an output section
            inside = what in allocated
        elif not inside:
            continue
        elif depth == 9:  # an input section of an object (or the linker's own)
            source = what.rsplit(":(", 1)[0]
            module = f"(linker: {what.split(':(')[-1].rstrip(')')})" if source == "<internal>" else module_of(source)
            if size:
                pieces.append((addr, size, module))
        elif symbols is not None and pieces:
            symbols.append((addr, what, pieces[-1][2]))
    return sorted(p for p in pieces if p[0])


def link_map(path, allocated, symbols=None):
    """(start, size, module) of every input section in a GNU ld / gold map, by address, inside the
    output sections named in `allocated` (debug sections list file offsets, not addresses). With a
    list `symbols`, also (address, name, module) of each symbol the map names."""
    pieces = []
    pending = None
    inside = False
    with open(path, errors="replace") as f:
        if f.readline().split()[:4] == ["VMA", "LMA", "Size", "Align"]:
            return lld_map(f, allocated, symbols)
        for line in f:  # what comes before is the archive members pulled in and the discarded sections
            if line.startswith("Memory map") or line.startswith("Linker script and memory map"):
                break
        for line in f:
            if line[:1] not in (" ", "\n", ""):
                inside = line.split()[0] in allocated
                pending = None
                continue
            if not inside:
                continue
            if line.startswith(" .") or line.startswith(" **"):
                parts = line.split()
                if len(parts) >= 4 and parts[1].startswith("0x"):
                    pieces.append((int(parts[1], 16), int(parts[2], 16), module_of(" ".join(parts[3:]))))
                    pending = None
                elif line.startswith(" **") and len(parts) >= 4 and parts[-2].startswith("0x"):
                    pieces.append((int(parts[-2], 16), int(parts[-1], 16), "(linker: " + " ".join(parts[1:-2]) + ")"))
                else:
                    pending = line.strip()
                continue
            if pending is None and symbols is not None and pieces:
                parts = line.split(None, 1)
                if len(parts) == 2 and parts[0].startswith("0x") and not parts[1].startswith("0x"):
                    symbols.append((int(parts[0], 16), parts[1].strip(), pieces[-1][2]))
                continue
            if pending is not None:
                parts = line.split()
                if len(parts) >= 3 and parts[0].startswith("0x") and parts[1].startswith("0x"):
                    pieces.append((int(parts[0], 16), int(parts[1], 16), module_of(" ".join(parts[2:]))))
                elif len(parts) == 2 and parts[0].startswith("0x") and parts[1].startswith("0x"):
                    what = pending[2:].strip() if pending.startswith("**") else "?"
                    pieces.append((int(parts[0], 16), int(parts[1], 16), f"(linker: {what})"))
                pending = None
    pieces = [p for p in pieces if p[0] and p[1]]
    return sorted(pieces)


def resident_pages(pid, binary):
    """ELF virtual addresses of the binary's resident pages (the load bias taken off)."""
    maps = []
    real = os.path.realpath(binary)
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and os.path.realpath(parts[5]) == real:
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                maps.append((lo, hi, int(parts[2], 16)))
    if not maps:
        sys.exit(f"{binary} is not mapped in process {pid}")
    bias = min(maps)[0] - min(maps)[2]  # the mapping at file offset 0 starts at ELF address 0
    # The writable segment's zero-filled tail (.bss) is anonymous memory right after the last mapping.
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            if len(parts) == 5 and lo == max(maps)[1]:
                maps.append((lo, hi, 0))
    pages = []
    with open(f"/proc/{pid}/pagemap", "rb") as pm:
        for lo, hi, _ in maps:
            pm.seek(lo // PAGE * 8)
            data = pm.read((hi - lo) // PAGE * 8)
            for i, (entry,) in enumerate(struct.iter_unpack("<Q", data)):
                if entry >> 63 & 1:
                    pages.append(lo + i * PAGE - bias)
    return pages


def attribute(pages, intervals, label):
    """kB by label: each page shared between the intervals that overlap it, by bytes."""
    starts = [s for s, _, _ in intervals]
    totals = {}
    for page in pages:
        covered = 0
        i = max(bisect.bisect_right(starts, page) - 1, 0)
        while i < len(intervals) and intervals[i][0] < page + PAGE:
            s, n, name = intervals[i]
            overlap = min(s + n, page + PAGE) - max(s, page)
            if overlap > 0:
                totals[label(name)] = totals.get(label(name), 0) + overlap
                covered += overlap
            i += 1
        if covered < PAGE:
            totals["(padding)"] = totals.get("(padding)", 0) + PAGE - covered
    return totals


def show(title, totals, top):
    print(f"\n{title}")
    for name, n in sorted(totals.items(), key=lambda x: -x[1])[:top]:
        print(f"{n / 1024:10.0f} kB  {name}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("pid", type=int)
    p.add_argument("--binary", help="the program's binary (default: /proc/PID/exe)")
    p.add_argument("--map", help="the linker's map of that binary (-Xlinker -Map=FILE)")
    p.add_argument("--top", type=int, default=40)
    p.add_argument("--symbols", metavar="MODULE", help="with --map: the symbols of MODULE on resident pages, largest first")
    a = p.parse_args()
    binary = a.binary or os.readlink(f"/proc/{a.pid}/exe")
    pages = resident_pages(a.pid, binary)
    print(f"{len(pages) * PAGE // 1024} kB of {binary} resident")
    secs = sections(binary)
    show("by section", attribute(pages, [(s, n, name) for name, s, n in secs], lambda x: x), a.top)
    if a.map:
        named = [] if a.symbols else None
        pieces = link_map(a.map, {name for name, _, _ in secs}, named)
        # Sections the linker made itself (.dynsym, .rela.dyn, …) have no input file: name them.
        by_section = {}
        for name, s, n in secs:
            inside = [q for q in pieces if s <= q[0] < s + n]
            if not inside:
                by_section[name] = (s, n)
        extra = [(s, n, f"[{name}]") for name, (s, n) in by_section.items()]
        totals = attribute(pages, sorted(pieces + extra), lambda x: x)
        show("by module", totals, a.top)
        # The largest modules split by the section their resident bytes are in.
        where = [(s, n, name) for name, s, n in secs]
        starts = [s for s, _, _ in where]

        def section_of(addr):
            i = max(bisect.bisect_right(starts, addr) - 1, 0)
            return where[i][2]

        tagged = sorted((s, n, (m, section_of(s))) for s, n, m in pieces)
        split = attribute(pages, tagged, lambda x: x)
        print("\nthe largest modules by section (kB)")
        for name, n in sorted(totals.items(), key=lambda x: -x[1])[: a.top // 2]:
            parts = sorted(((k[1], v) for k, v in split.items() if isinstance(k, tuple) and k[0] == name), key=lambda x: -x[1])
            print(f"{n / 1024:10.0f}  {name}: " + ", ".join(f"{sec} {v / 1024:.0f}" for sec, v in parts[:5] if v >= 1024))
        if named:
            # A symbol runs to the next one; demangled by swift-demangle when it is there.
            named.sort()
            resident = set(pages)
            found = []
            for i, (addr, name, module) in enumerate(named):
                end = named[i + 1][0] if i + 1 < len(named) else addr
                if module == a.symbols and addr // PAGE * PAGE in resident:
                    found.append((end - addr, name))
            found.sort(reverse=True)
            names = [n for _, n in found[: a.top * 2]]
            try:
                names = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
            except OSError:
                pass
            print(f"\n{a.symbols}: {len(found)} symbols on resident pages, {sum(n for n, _ in found) // 1024} kB; the largest")
            for (size, _), name in zip(found, names):
                print(f"{size:10d}  {name[:160]}")


if __name__ == "__main__":
    main()

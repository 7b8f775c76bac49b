#!/usr/bin/env python3
"""Sizes of the Swift sources: files over a line limit and functions over a line limit.

    scripts/sizes.py [--file-limit 600] [--func-limit 100] [--check] DIR...

A file over the limit passes when its first 15 lines say why (a line containing "Longer than"
or "over 600 lines"). With --check the exit status is 1 when anything is over.
"""
import argparse, os, re, sys

FUNC = re.compile(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|open|static|class|final|override|mutating|nonisolated|convenience|required|dynamic|@MainActor|@Sendable|@discardableResult|@inlinable|@usableFromInline)\s+)*(func\s+[^\s(<]+|init[?!]?|deinit|subscript)\b')

def strip(line):
    # Drop string literals and line comments so their braces do not count.
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    i = line.find('//')
    return line[:i] if i >= 0 else line

def functions(path):
    lines = open(path, encoding='utf-8', errors='replace').read().split('\n')
    out = []
    in_block = False
    for i, raw in enumerate(lines):
        m = FUNC.match(raw)
        if not m:
            continue
        depth, opened, j = 0, False, i
        while j < len(lines):
            text = strip(lines[j])
            if '"""' in lines[j]:
                in_block = not in_block if lines[j].count('"""') == 1 else in_block
            if not in_block:
                for ch in text:
                    if ch == '{': depth += 1; opened = True
                    elif ch == '}': depth -= 1
            if opened and depth <= 0:
                break
            if not opened and j > i and (text.strip() == '' or FUNC.match(lines[j])):
                break  # a requirement without a body
            j += 1
        if opened:
            out.append((j - i + 1, m.group(1).replace('func ', ''), i + 1))
    return out, len(lines)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dirs', nargs='+')
    ap.add_argument('--file-limit', type=int, default=600)
    ap.add_argument('--func-limit', type=int, default=100)
    ap.add_argument('--check', action='store_true')
    a = ap.parse_args()
    over = 0
    for d in a.dirs:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if not f.endswith('.swift'):
                    continue
                p = os.path.join(root, f)
                funcs, n = functions(p)
                head = '\n'.join(open(p, errors='replace').read().split('\n')[:15])
                if n > a.file_limit and 'Longer than' not in head and 'over 600 lines' not in head:
                    print(f'file {n:5d} {p}'); over += 1
                for length, name, line in funcs:
                    if length > a.func_limit:
                        print(f'func {length:5d} {p}:{line} {name}'); over += 1
    if a.check and over:
        sys.exit(1)

main()

# Where a process's resident memory is when it exits, by mapping (binary, each shared library,
# heap): `gdb -q -batch -x scripts/rss-by-mapping.gdb .build/release/tern` (runs `tern --help`).
set pagination off
catch syscall exit_group
run --help > /dev/null
python
import gdb, re
pid = gdb.selected_inferior().pid
rss = {}
cur = None
for line in open(f"/proc/{pid}/smaps"):
    parts = line.split()
    if re.match(r'^[0-9a-f]+-[0-9a-f]+ ', line):
        cur = parts[5] if len(parts) > 5 else '[anon]'
    elif parts[0] == 'Rss:':
        rss[cur] = rss.get(cur, 0) + int(parts[1])
total = sum(rss.values())
print("TOTAL kB", total)
for k, v in sorted(rss.items(), key=lambda x: -x[1])[:200]:
    print(v, k)
end
kill
quit

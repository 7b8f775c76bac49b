#!/usr/bin/env python3
"""tern next to irssi and weechat on one workload (issue 18 §8), each in a pseudo-terminal of 120×35
pinned to one core, its output drained and scanned:

  1. first paint: from exec to the status bar on screen (tern: from a warm cache, before any network);
  2. memory after joining 50 channels that hold 10,000 messages: VmRSS, and what only the client holds
     (USS: private clean + private dirty; and private dirty alone);
  3. CPU per incoming line: a burst of RATE lines/s for SECONDS into random channels (client CPU only),
     and the client's thread wake-ups per line (voluntary context switches, by thread name);
  4. memory after the burst; 5. idle CPU (% of a core) over IDLE seconds with nothing happening;
  6. with --keys N: CPU and wake-ups per key typed into the input line, a channel's messages on screen.

tern talks to a real ternd (its Platform API seeds and sends); irssi and weechat talk IRC to a small
server in this script, which replays the 10,000 lines as channel history on join (a bouncer does that).

  python3 scripts/tui-bench.py --client tern --tern .build/release/tern --ternd .build/release/ternd
  python3 scripts/tui-bench.py --client irssi
  python3 scripts/tui-bench.py --client weechat
  python3 scripts/tui-bench.py --client floor --floor .build/release/tern-floor   # the baseline on tern's own stack
Run them ABAB in one session (this VM is noisy): --rounds N alternates the clients given in --client a,b,c.

Environment: TUI_BENCH_BY_TID=1 reports the wake-ups by thread rather than by thread name;
TUI_BENCH_PERF_ARGS replaces --perf's "-g" (e.g. "-e sched:sched_wakeup -g": who woke which thread);
TUI_BENCH_PERF_PHASE=keys records while typing (--keys) instead of during the burst.
"""
import argparse, fcntl, http.client, json, os, pty, random, re, select, shutil, signal, socket, struct, subprocess
import sys, tempfile, termios, threading, time

ANSI = re.compile(rb"\x1b\[[0-9;?<>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78MDEHc]|[\x00-\x08\x0e-\x1f]")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_switches(pid):
    """Voluntary context switches (wake-ups after sleeping) of each of the process's threads: {tid: (name, count)}."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        out[tid] = (name, int(line.split()[1]))
        except OSError:
            pass
    return out


def wakeups_between(before, after):
    """Wake-ups per thread name between two snapshots; a thread started in between counts from zero
    (one that ended in between takes its count with it)."""
    by = {}
    for tid, (name, n) in after.items():
        d = n - before.get(tid, (name, 0))[1]
        if d > 0:
            key = f"{name}/{tid}" if os.environ.get("TUI_BENCH_BY_TID") else name
            by[key] = by.get(key, 0) + d
    return by


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def private_kb(pid):
    """Memory only this process holds (smaps_rollup): private clean + private dirty (USS), and the dirty part
    alone. VmRSS also counts the pages of shared libraries and of the binary's file that the kernel maps
    around each fault (64 kB at a time), which other processes share and which cost no memory of their own."""
    clean = dirty = 0
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Private_Clean:"):
                clean = int(line.split()[1])
            elif line.startswith("Private_Dirty:"):
                dirty = int(line.split()[1])
    return clean + dirty, dirty


class Pty:
    """A client in a pseudo-terminal of 120×35; a thread drains its output and keeps the plain text."""

    def __init__(self, argv, env, core):
        self.text = bytearray()
        self.lock = threading.Lock()
        pid, fd = pty.fork()
        if pid == 0:
            os.environ.clear()
            os.environ.update(env)
            if core is not None:
                os.sched_setaffinity(0, {core})
            os.execvp(argv[0], argv)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 35, 120, 0, 0))
        self.t0 = time.monotonic()
        self.running = True
        threading.Thread(target=self.drain, daemon=True).start()

    def drain(self):
        while self.running:
            try:
                r, _, _ = select.select([self.fd], [], [], 0.2)
                if r:
                    data = os.read(self.fd, 65536)
                    if not data:
                        break
                    with self.lock:
                        self.text += ANSI.sub(b"", data)
                        if len(self.text) > 4_000_000:
                            del self.text[:2_000_000]
            except OSError:
                break

    def wait_for(self, marker, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if (marker.search(self.text) if isinstance(marker, re.Pattern) else marker in self.text):
                    return time.monotonic() - self.t0
            time.sleep(0.0005)
        raise SystemExit(f"never saw {marker!r}; last output: {bytes(self.text[-400:])!r}")

    def send(self, data):
        os.write(self.fd, data)

    def stop(self):
        self.running = False
        try:
            os.kill(self.pid, signal.SIGTERM)
            time.sleep(0.3)
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


# --- tern against ternd -------------------------------------------------------------------------

class Ternd:
    def __init__(self, binary, tmp, core):
        self.token = "bench-" + str(random.randrange(1 << 30))
        cmd = [binary, "serve", "--port", "0", "--data-dir", tmp + "/server", "--api-token", self.token, "--max-messages-per-second", "0"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=(lambda: os.sched_setaffinity(0, {core})) if core is not None else None)
        line = self.proc.stdout.readline().decode()
        self.port = int(line.strip().rsplit(":", 1)[1])
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port)

    def call(self, method, path, body=None):
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=json.dumps(body) if body is not None else None,
                                  headers={"Api-Token": self.token, "Content-Type": "application/json"})
                r = self.conn.getresponse()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # The server closed the kept-alive connection while it was idle (during the settle): open another.
                if attempt:
                    raise
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port)
        data = r.read()
        if r.status >= 300:
            raise SystemExit(f"{method} {path}: {r.status} {data[:200]!r}")
        return json.loads(data) if data else {}

    def stop(self):
        self.proc.terminate()
        self.proc.wait(15)


def run_tern(a, tmp, binary=None):
    """tern (or, with `binary`, tern-floor: no cache to warm) against a ternd of its own."""
    server = Ternd(a.ternd, tmp, None if a.no_pin else 0)
    try:
        for u in ("me", "bot"):
            server.call("POST", "/v3/users", {"user_id": u, "nickname": u, "profile_url": ""})
        urls = [f"bench-{i:02d}" for i in range(a.channels)]
        for u in urls:
            server.call("POST", "/v3/group_channels", {"user_ids": ["me", "bot"], "channel_url": u, "name": u})
        for i in range(a.messages):
            server.call("POST", f"/v3/group_channels/{urls[i % len(urls)]}/messages",
                        {"message_type": "MESG", "user_id": "bot", "message": f"history line {i} " + "x" * 60})
        env = {"PATH": os.environ["PATH"], "HOME": tmp, "LANG": "C.UTF-8", "TERM": "xterm-256color", "TZ": "UTC",
               "XDG_CONFIG_HOME": tmp + "/config", "XDG_CACHE_HOME": tmp + "/cache", "XDG_STATE_HOME": tmp + "/state",
               "TERN_SERVER": f"http://127.0.0.1:{server.port}", "TERN_USER_ID": "me"}
        if binary is None:
            # Warm the cache: a first run that reads the channels and is quit.
            warm = Pty([a.tern], env, None if a.no_pin else 1)
            warm.wait_for(b"connected", 60)
            time.sleep(3)
            warm.send(b"\x03")
            time.sleep(1)
            warm.stop()
        client = Pty([binary or a.tern], env, None if a.no_pin else 1)
        paint = client.wait_for(b" me \xe2\x94\x82", 30)  # the status bar: " me │"
        client.wait_for(b"connected", 60)
        time.sleep(a.settle)
        return measure(a, client, paint, lambda text: server.call(
            "POST", f"/v3/group_channels/{random.choice(urls)}/messages", {"message_type": "MESG", "user_id": "bot", "message": text}))
    finally:
        server.stop()


# --- irssi / weechat against a small IRC server -------------------------------------------------

class IRCServer:
    """Just enough IRC: registration, JOIN (with the channel's history replayed), PING, PRIVMSG fan-out."""

    def __init__(self, channels, history):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        self.history = history
        self.clients = []
        self.joined = 0
        self.registered = False
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            c, _ = self.sock.accept()
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.clients.append(c)
            threading.Thread(target=self.serve, args=(c,), daemon=True).start()

    def serve(self, c):
        buf = b""
        nick = "me"
        while True:
            data = c.recv(65536)
            if not data:
                return
            buf += data
            while b"\r\n" in buf or b"\n" in buf:
                sep = b"\r\n" if b"\r\n" in buf else b"\n"
                line, buf = buf.split(sep, 1)
                words = line.decode(errors="replace").split(" ")
                cmd = words[0].upper()
                if os.environ.get("TUI_BENCH_DEBUG"):
                    print("irc <", line, file=sys.stderr)
                if cmd == "CAP" and len(words) > 1 and words[1].upper() == "LS":
                    c.sendall(b":bench CAP * LS :\r\n")
                elif cmd == "NICK":
                    nick = words[1]
                elif cmd == "USER":
                    c.sendall(f":bench 001 {nick} :Welcome\r\n:bench 376 {nick} :End of MOTD\r\n".encode())
                    self.registered = True
                elif cmd == "PING":
                    c.sendall(f":bench PONG bench :{words[1] if len(words) > 1 else ''}\r\n".encode())
                elif cmd == "JOIN":
                    for ch in [w for w in words[1].lstrip(":").split(",") if w]:
                        out = [f":{nick}!u@h JOIN {ch}", f":bench 353 {nick} = {ch} :{nick} bot", f":bench 366 {nick} {ch} :End"]
                        out += [f":bot!b@h PRIVMSG {ch} :{t}" for t in self.history.get(ch, [])]
                        c.sendall(("\r\n".join(out) + "\r\n").encode())
                        self.joined += 1

    def say(self, channel, text):
        for c in self.clients:
            try:
                c.sendall(f":bot!b@h PRIVMSG {channel} :{text}\r\n".encode())
            except OSError:
                pass


def run_irc(a, tmp, kind):
    chans = [f"#bench-{i:02d}" for i in range(a.channels)]
    history = {ch: [] for ch in chans}
    for i in range(a.messages):
        history[chans[i % len(chans)]].append(f"history line {i} " + "x" * 60)
    server = IRCServer(chans, history)
    env = {"PATH": os.environ["PATH"], "HOME": tmp, "LANG": "C.UTF-8", "TERM": "xterm-256color", "TZ": "UTC"}
    joins = ",".join(chans)
    if kind == "irssi":
        os.makedirs(tmp + "/.irssi", exist_ok=True)
        argv = ["irssi", "--home", tmp + "/.irssi", "-c", "127.0.0.1", "-p", str(server.port), "-n", "me"]
        marker = b"[(status)]"
    else:
        argv = ["weechat", "-d", tmp + "/.weechat", "-a", "-P", "irc", "-r",
                f"/set irc.look.server_buffer independent;/server add bench 127.0.0.1/{server.port} -notls -nicks=me -autojoin={joins};/connect bench"]
        marker = re.compile(rb"\[\d\d:\d\d\] \[\d+\] \[")  # the status bar: [time] [buffer number] [buffer]
    client = Pty(argv, env, None if a.no_pin else 1)
    paint = client.wait_for(marker, 30)
    end = time.monotonic() + 120
    if kind == "irssi":
        while not server.registered and time.monotonic() < end:
            time.sleep(0.05)
        time.sleep(0.5)
        client.send(f"/join {joins}\r".encode())
    while server.joined < len(chans) and time.monotonic() < end:
        time.sleep(0.05)
    time.sleep(a.settle)
    result = measure(a, client, paint, lambda text: server.say(random.choice(chans), text))
    return result


# --- the stages ---------------------------------------------------------------------------------

def measure(a, client, paint, say):
    pid = client.pid
    joined_rss = rss_kb(pid)
    joined_uss, joined_dirty = private_kb(pid)
    if a.smaps:
        # Resident memory by mapping (binary, each library, heap), largest first.
        by = {}
        cur = None
        with open(f"/proc/{pid}/smaps") as f:
            for line in f:
                parts = line.split()
                if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                    cur = parts[5] if len(parts) > 5 else "[anon]"
                elif parts[0] == "Rss:":
                    by[cur] = by.get(cur, 0) + int(parts[1])
        with open(a.smaps, "w") as out:
            for k, v in sorted(by.items(), key=lambda x: -x[1]):
                out.write(f"{v}\t{k}\n")
            if a.map:
                # Inside the binary: by section and by module (scripts/rss-by-module.py).
                here = os.path.dirname(os.path.abspath(__file__))
                out.flush()
                subprocess.run([sys.executable, os.path.join(here, "rss-by-module.py"), str(pid), "--map", a.map], stdout=out)
    # Idle CPU: nothing happens for IDLE seconds.
    c0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(a.idle)
    idle = (cpu_seconds(pid) - c0) / (time.monotonic() - t0) * 100
    # The burst: RATE lines a second for SECONDS, then time to catch up.
    n = int(a.rate * a.seconds)
    def start_perf():
        return subprocess.Popen(["perf", "record", *os.environ.get("TUI_BENCH_PERF_ARGS", "-g").split(), "-q", "-o", a.perf, "-p", str(pid)],
                                stderr=subprocess.DEVNULL)
    perf_keys = os.environ.get("TUI_BENCH_PERF_PHASE") == "keys"
    perf = start_perf() if a.perf and not perf_keys else None
    c0 = cpu_seconds(pid)
    w0 = thread_switches(pid)
    start = time.monotonic()
    for i in range(n):
        say(f"burst line {i} " + "y" * 60)
        delay = start + (i + 1) / a.rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    time.sleep(3)
    per_line_ms = (cpu_seconds(pid) - c0) / n * 1000
    wakes = wakeups_between(w0, thread_switches(pid))
    if perf:
        perf.send_signal(signal.SIGINT)
        perf.wait(30)
    burst_rss = rss_kb(pid)
    typing = {}
    if a.keys > 0:
        # Typing: KEYS keys at KEY_RATE a second into the input line (Ctrl-U clears it every 50th key),
        # the channel's messages on screen.
        perf = start_perf() if a.perf and perf_keys else None
        c0, w0, start = cpu_seconds(pid), thread_switches(pid), time.monotonic()
        for i in range(a.keys):
            client.send(b"\x15" if (i + 1) % 50 == 0 else b"x")
            delay = start + (i + 1) / a.key_rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        time.sleep(1)
        keywakes = wakeups_between(w0, thread_switches(pid))
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait(30)
        typing = {"cpu_per_key_ms": round((cpu_seconds(pid) - c0) / a.keys * 1000, 3),
                  "wakeups_per_key": round(sum(keywakes.values()) / a.keys, 2),
                  "key_wakeups_by_thread": {k: round(v / a.keys, 2) for k, v in sorted(keywakes.items(), key=lambda x: -x[1])
                                            if v / a.keys >= 0.05}}
    client.stop()
    return {"first_paint_ms": round(paint * 1000, 1), "rss_after_join_mib": round(joined_rss / 1024, 1),
            "uss_after_join_mib": round(joined_uss / 1024, 1), "private_dirty_after_join_mib": round(joined_dirty / 1024, 1),
            "cpu_per_line_ms": round(per_line_ms, 3), "rss_after_burst_mib": round(burst_rss / 1024, 1),
            "idle_cpu_percent": round(idle, 3), "wakeups_per_line": round(sum(wakes.values()) / n, 2),
            "wakeups_by_thread": {k: round(v / n, 2) for k, v in sorted(wakes.items(), key=lambda x: -x[1]) if v / n >= 0.05},
            **typing}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--client", default="tern", help="tern, irssi, weechat, floor (tern-floor: the least a client does on tern's stack), or several comma-separated (ABAB)")
    p.add_argument("--floor", default=".build/release/tern-floor", help="the tern-floor binary (--client floor)")
    p.add_argument("--tern", default=".build/release/tern")
    p.add_argument("--ternd", default=".build/release/ternd")
    p.add_argument("--channels", type=int, default=50)
    p.add_argument("--messages", type=int, default=10000)
    p.add_argument("--rate", type=float, default=200)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--idle", type=float, default=20)
    p.add_argument("--settle", type=float, default=5)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--no-pin", action="store_true", help="do not pin (server/IRC on core 0, client on core 1)")
    p.add_argument("--keys", type=int, default=0, help="after the burst, type this many keys into the input line (CPU and wake-ups per key)")
    p.add_argument("--key-rate", type=float, default=50, help="keys a second for --keys")
    p.add_argument("--perf", help="record the client with perf during the burst into this file")
    p.add_argument("--smaps", help="write the client's resident memory by mapping after the join into this file")
    p.add_argument("--map", help="with --smaps: the linker's map of the client's binary (-Xlinker -Map=FILE), to add its resident pages by module")
    a = p.parse_args()
    for r in range(a.rounds):
        for kind in a.client.split(","):
            tmp = tempfile.mkdtemp(prefix=f"tui-bench-{kind}-")
            try:
                if kind == "tern":
                    res = run_tern(a, tmp)
                elif kind == "floor":
                    res = run_tern(a, tmp, binary=a.floor)
                else:
                    res = run_irc(a, tmp, kind)
                print(json.dumps({"round": r + 1, "client": kind, **res}), flush=True)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

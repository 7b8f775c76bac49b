#!/usr/bin/env python3
"""Prosody under tern-bench's load: the XMPP side of issue 35's side-by-side run.

Starts Debian's `prosody` (0.12) on a loopback port with a configuration of its own in a temporary
directory (MUC component, in-memory storage, Lua's generational GC, Nagle off, no TLS, any password
accepted), pinned to --server-cpu, and drives it the way `tern-bench` drives ternd:

- N members (--members) log in over plain c2s (SASL PLAIN, resource bind) and join one MUC room;
- the first S = ceil(R / 4) are the senders, each on a fixed open-loop schedule, so the room gets
  one message every 1 / R seconds; a message's body is `b:<sender>:<seq>:<due ns>:` padded with `x`
  to --payload-bytes, stamped with the time it was *due* (no coordinated omission);
- a message received by another member is a delivery (latency = receive − due); the sender's own
  copy (MUC reflects it) is its ack;
- messages due in the first --warmup seconds are left out; the server's CPU (utime + stime from
  /proc/PID/stat) over the measured window ÷ the deliveries received in it is "CPU per delivery",
  as tern-bench reports it;
- lost, duplicated and reordered deliveries are counted and make the exit status 1; the driver's own
  CPU is reported, and a run where it used more than 80 % of a core is marked INVALID.

Run it pinned to the other core, as tern-bench is:

    taskset -c 1 python3 scripts/xmpp-bench.py --server-cpu 0 --members 100 --rate 100 --duration 10

Prosody is always stopped by its PID at the end and its directory removed.
"""

import argparse
import asyncio
import base64
import math
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

DOMAIN = "bench.local"
ROOMS = "rooms." + DOMAIN
ROOM = "bench@" + ROOMS
BODY = re.compile(rb"<body>b:(\d+):(\d+):(\d+):")
TICK = os.sysconf("SC_CLK_TCK")

CONFIG = """
-- Written by scripts/xmpp-bench.py for one run; removed after it.
run_as_root = true
pidfile = "{dir}/prosody.pid"
data_path = "{dir}/data"
log = {{ warn = "{dir}/prosody.log" }}
interfaces = {{ "127.0.0.1" }}
c2s_ports = {{ {port} }}
c2s_interfaces = {{ "127.0.0.1" }}
s2s_ports = {{ }}
http_ports = {{ }}
https_ports = {{ }}
c2s_require_encryption = false
s2s_require_encryption = false
allow_unencrypted_plain_auth = true
authentication = "insecure"
insecure_open_authentication = "Yes please, I know what I'm doing!"
storage = "memory"
modules_enabled = {{ "saslauth", "disco", "ping" }}
modules_disabled = {{ "s2s", "offline", "c2s_tls" }}
network_settings = {{ nagle = false }}
gc = {{ mode = "generational" }}

VirtualHost "{domain}"

Component "{rooms}" "muc"
    muc_room_locking = false
    muc_room_default_history_length = 0
    max_history_messages = 0
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


class Member:
    """One XMPP client: logs in, joins the room, then counts what it receives."""

    def __init__(self, index, run):
        self.index = index
        self.run = run
        self.reader = None
        self.writer = None
        self.buffer = b""

    async def until(self, pattern):
        while True:
            m = re.search(pattern, self.buffer, re.S)
            if m:
                self.buffer = self.buffer[m.end() :]
                return m
            chunk = await self.reader.read(65536)
            if not chunk:
                raise ConnectionError(f"member {self.index}: closed while waiting for {pattern!r}")
            self.buffer += chunk

    async def open_stream(self):
        self.writer.write(
            f"<?xml version='1.0'?><stream:stream to='{DOMAIN}' xmlns='jabber:client' "
            "xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>".encode()
        )
        await self.until(rb"</stream:features>")

    async def join(self, port):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        sock = self.writer.get_extra_info("socket")
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        user = f"m{self.index}"
        await self.open_stream()
        plain = base64.b64encode(f"\0{user}\0pw".encode()).decode()
        self.writer.write(f"<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>{plain}</auth>".encode())
        await self.until(rb"<success[^>]*?(/>|</success>)")
        await self.open_stream()
        self.writer.write(
            b"<iq type='set' id='bind'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>r</resource></bind></iq>"
        )
        await self.until(rb"<iq[^>]*id=.bind.*?</iq>")
        self.writer.write(
            f"<presence to='{ROOM}/{user}'><x xmlns='http://jabber.org/protocol/muc'>"
            "<history maxstanzas='0'/></x></presence>".encode()
        )
        # The room's presence of this member itself carries status 110.
        await self.until(rb"<status code=.110.")

    async def receive(self):
        run = self.run
        while True:
            chunk = await self.reader.read(262144)
            if not chunk:
                return
            now = time.monotonic_ns()
            self.buffer += chunk
            end = self.buffer.rfind(b"</message>")
            if end < 0:
                continue
            done, self.buffer = self.buffer[: end + 10], self.buffer[end + 10 :]
            for m in BODY.finditer(done):
                sender, seq, due = int(m.group(1)), int(m.group(2)), int(m.group(3))
                run.note(self.index, sender, seq, due, now)


class Run:
    def __init__(self, args):
        self.args = args
        self.senders = min(args.members, max(1, math.ceil(args.rate / 4)))
        self.start_ns = 0
        self.window = (0, 0)
        self.received = {}  # (sender, seq) -> set of receivers
        self.latency = []
        self.acks = {}
        self.duplicates = 0
        self.reordered = 0
        self.strays = 0
        self.in_window = 0
        self.counting = False
        self.last = {}  # (receiver, sender) -> seq

    def note(self, receiver, sender, seq, due, now):
        if sender >= self.senders:
            self.strays += 1
            return
        key = (receiver, sender)
        if self.last.get(key, -1) >= seq:
            self.reordered += 1
        self.last[key] = seq
        if receiver == sender:
            if seq in self.acks.setdefault(sender, {}):
                self.duplicates += 1
            self.acks[sender][seq] = now - due
            return
        who = self.received.setdefault((sender, seq), set())
        if receiver in who:
            self.duplicates += 1
            return
        who.add(receiver)
        if self.counting:
            self.in_window += 1
        if self.window[0] <= due < self.window[1]:
            self.latency.append(now - due)


async def send_schedule(run, members, sent):
    args = run.args
    period = 1e9 / args.rate
    total = int((args.warmup + args.duration) * args.rate)
    pad = max(0, args.payload_bytes)
    for i in range(total):
        due = run.start_ns + int(i * period)
        delay = (due - time.monotonic_ns()) / 1e9
        if delay > 0:
            await asyncio.sleep(delay)
        sender = i % run.senders
        seq = i // run.senders
        head = f"b:{sender}:{seq}:{due}:"
        text = head + "x" * max(0, pad - len(head))
        members[sender].writer.write(f"<message to='{ROOM}' type='groupchat' id='s{i}'><body>{text}</body></message>".encode())
        sent.append((sender, seq, due))


def percentile(values, p):
    if not values:
        return float("nan")
    k = min(len(values) - 1, max(0, math.ceil(p / 100 * len(values)) - 1))
    return values[k]


async def drive(args, port, pid):
    run = Run(args)
    members = [Member(i, run) for i in range(args.members)]
    for batch in range(0, len(members), 20):
        await asyncio.gather(*(m.join(port) for m in members[batch : batch + 20]))
    readers = [asyncio.create_task(m.receive()) for m in members]
    await asyncio.sleep(0.5)
    run.start_ns = time.monotonic_ns() + 200_000_000
    warm = int(args.warmup * 1e9)
    run.window = (run.start_ns + warm, run.start_ns + warm + int(args.duration * 1e9))
    sent = []
    sender = asyncio.create_task(send_schedule(run, members, sent))

    async def at(ns):
        delay = (ns - time.monotonic_ns()) / 1e9
        if delay > 0:
            await asyncio.sleep(delay)

    await at(run.window[0])
    cpu0, own0, t0 = cpu_ticks(pid), resource.getrusage(resource.RUSAGE_SELF), time.monotonic_ns()
    run.counting = True
    await at(run.window[1])
    run.counting = False
    cpu1, own1, t1 = cpu_ticks(pid), resource.getrusage(resource.RUSAGE_SELF), time.monotonic_ns()
    await sender
    deadline = time.monotonic() + args.drain_timeout
    expected = len(sent) * (args.members - 1)
    while time.monotonic() < deadline and sum(len(v) for v in run.received.values()) < expected:
        await asyncio.sleep(0.05)
    for r in readers:
        r.cancel()
    for m in members:
        m.writer.close()

    in_window = [(s, q, d) for (s, q, d) in sent if run.window[0] <= d < run.window[1]]
    want = len(in_window) * (args.members - 1)
    lost = sum(args.members - 1 - len(run.received.get((s, q), ())) for (s, q, _) in sent)
    acked = sum(len(v) for v in run.acks.values())
    lat = sorted(run.latency) + [math.inf] * max(0, want - len(run.latency))
    seconds = (t1 - t0) / 1e9
    server_us = (cpu1 - cpu0) / TICK * 1e6
    own_us = (own1.ru_utime + own1.ru_stime - own0.ru_utime - own0.ru_stime) * 1e6
    deliveries = max(1, run.in_window)
    acks_window = max(1, len(in_window))
    ms = lambda ns: "∞" if ns == math.inf else f"{ns / 1e6:.2f}"  # noqa: E731
    own_share = own_us / 1e6 / seconds
    print(f"prosody {args.prosody_version}: N = {args.members}, R = {args.rate} msg/s, {run.senders} senders, {args.duration} s measured")
    print(f"  sent {len(sent)}, acked {acked}, deliveries in window {run.in_window} ({run.in_window / seconds:.0f}/s)")
    print(f"  delivery latency ms: p50 {ms(percentile(lat, 50))}  p90 {ms(percentile(lat, 90))}  p99 {ms(percentile(lat, 99))}  max {ms(lat[-1] if lat else math.nan)}")
    print(
        f"  server CPU: {server_us / 1e6 / seconds * 100:.0f} % of a core, {server_us / deliveries:.1f} µs per delivery, "
        f"{server_us / acks_window:.0f} µs per message"
    )
    print(f"  driver CPU: {own_share * 100:.0f} % of a core, {own_us / deliveries:.1f} µs per delivery" + (" — INVALID (driver above 80 %)" if own_share > 0.8 else ""))
    print(f"  lost {lost}, duplicates {run.duplicates}, reordered {run.reordered}, strays {run.strays}")
    return 0 if lost == 0 and run.duplicates == 0 and run.reordered == 0 and run.strays == 0 and own_share <= 0.8 else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--members", type=int, default=100)
    p.add_argument("--rate", type=float, default=100)
    p.add_argument("--duration", type=float, default=10)
    p.add_argument("--warmup", type=float, default=2)
    p.add_argument("--drain-timeout", type=float, default=5)
    p.add_argument("--payload-bytes", type=int, default=100)
    p.add_argument("--server-cpu", type=int, default=None, help="pin prosody to this CPU (taskset -c)")
    p.add_argument("--prosody", default="prosody")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory (config and log)")
    args = p.parse_args()
    if shutil.which(args.prosody) is None:
        sys.exit("prosody not found: apt-get install prosody")
    args.prosody_version = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "prosody"], capture_output=True, text=True
    ).stdout or "?"
    directory = tempfile.mkdtemp(prefix="xmpp-bench-")
    port = free_port()
    os.makedirs(f"{directory}/data")
    os.makedirs(f"{directory}/certs")
    with open(f"{directory}/prosody.cfg.lua", "w") as f:
        f.write(CONFIG.format(dir=directory, port=port, domain=DOMAIN, rooms=ROOMS))
    command = [args.prosody, "-F", "--config", f"{directory}/prosody.cfg.lua"]
    if args.server_cpu is not None:
        command = ["taskset", "-c", str(args.server_cpu)] + command
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=open(f"{directory}/stderr.log", "w"), start_new_session=True)
    status = 1
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    sys.stderr.write(open(f"{directory}/stderr.log").read())
                    sys.exit("prosody did not start")
                time.sleep(0.05)
        status = asyncio.run(drive(args, port, server.pid))
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if args.keep:
            print(f"  kept {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)
    sys.exit(status)


if __name__ == "__main__":
    main()

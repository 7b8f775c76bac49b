#!/usr/bin/env python3
"""tern's resident memory as one open channel fills: what each incoming message leaves behind.

Starts a ternd of its own (core 0), tern as `me` in a pseudo-terminal (core 1) with a channel that
`bot` then sends N messages into through the Platform API, and prints tern's VmRSS before and after
(once the last message is on screen). Several tern builds given are run alternating, --rounds times.
Uses tui-bench.py's server and terminal helpers.

    python3 scripts/open-channel-growth.py --ternd .build/release/ternd --messages 8000 \\
        --tern A=/path/a/tern --tern B=.build/release/tern --rounds 2
"""
import argparse
import importlib.util
import os
import pathlib
import tempfile
import time

here = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("tui_bench", here / "tui-bench.py")
tb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tb)


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


def run(tern, ternd, n):
    with tempfile.TemporaryDirectory() as tmp:
        server = tb.Ternd(ternd, tmp, 0)
        client = None
        try:
            for u in ("me", "bot"):
                server.call("POST", "/v3/users", {"user_id": u, "nickname": u, "profile_url": ""})
            server.call("POST", "/v3/group_channels", {"user_ids": ["me", "bot"], "channel_url": "growth", "name": "growth"})
            server.call("POST", "/v3/group_channels/growth/messages", {"message_type": "MESG", "user_id": "bot", "message": "first"})
            env = {"PATH": os.environ["PATH"], "HOME": tmp, "LANG": "C.UTF-8", "TERM": "xterm-256color", "TZ": "UTC",
                   "XDG_CONFIG_HOME": tmp + "/config", "XDG_CACHE_HOME": tmp + "/cache", "XDG_STATE_HOME": tmp + "/state",
                   "TERN_SERVER": f"http://127.0.0.1:{server.port}", "TERN_USER_ID": "me"}
            client = tb.Pty([tern], env, 1)
            client.wait_for(b"connected", 60)
            time.sleep(2)
            before = rss_mib(client.pid)
            for i in range(n):
                server.call("POST", "/v3/group_channels/growth/messages",
                            {"message_type": "MESG", "user_id": "bot", "message": f"line {i} " + "x" * 60})
            # A last line no cell of the line before it shares (tern writes only the cells that change).
            server.call("POST", "/v3/group_channels/growth/messages", {"message_type": "MESG", "user_id": "bot", "message": "ZQJ-done-ZQJ"})
            client.wait_for(b"ZQJ-done-ZQJ", 60)
            time.sleep(2)
            return before, rss_mib(client.pid)
        finally:
            if client:
                client.stop()
            server.stop()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tern", action="append", required=True, help="NAME=PATH (or PATH), repeatable")
    p.add_argument("--ternd", required=True)
    p.add_argument("--messages", type=int, default=8000)
    p.add_argument("--rounds", type=int, default=1)
    a = p.parse_args()
    builds = [t.split("=", 1) if "=" in t else (os.path.basename(t), t) for t in a.tern]
    for r in range(a.rounds):
        for name, path in builds:
            before, after = run(path, a.ternd, a.messages)
            per = (after - before) * 1024 * 1024 / a.messages
            print(f"round {r + 1} {name}: RSS {before:.1f} -> {after:.1f} MiB after {a.messages} messages "
                  f"(+{after - before:.1f} MiB, {per:.0f} bytes a message)", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""CPU per delivery and latency across rates and channel sizes: issue 35's curve, A against B.

Runs `tern-bench --spawn TERND` for every channel size (--members, and an open channel with
--open) and every rate (--rates; `sat` offers --sat-rate, more than the server can take), for each
ternd given with --ternd (A, B, …), alternating them (A B A B … for --rounds), server on
--server-cpu, this process and the bench on the other core. Prints one markdown table row per
(size, rate, build), with the medians over the rounds and every round's CPU per delivery, and
exits non-zero if any run lost, duplicated or reordered a message.

    taskset -c 1 python3 scripts/send-curve.py --bench .build/release/tern-bench \\
        --ternd A=/path/a/ternd --ternd B=.build/release/ternd --members 2,10,100 --open 1000 \\
        --rates 10,30,100,300,1000,sat --rounds 2
"""

import argparse
import re
import statistics
import subprocess
import sys

NUM = r"([0-9.]+|∞)"


def parse(out):
    """The figures of one tern-bench report."""
    r = {}
    lat = re.search(r"deliveries of messages due in the measured window:\n  p50 " + NUM + r"  p90 " + NUM + r"  p99 " + NUM, out)
    only = re.search(r"received ones only: p50 " + NUM + r"  p90 " + NUM + r"  p99 " + NUM, out)
    if lat:
        r["p50"], r["p99"] = lat.group(1), lat.group(3)
    if only:
        r["p50"], r["p99"] = only.group(1) + "*", only.group(3) + "*"
    done = re.search(r"done during the measured window: ([0-9.]+) msg/s acked, ([0-9.]+) deliveries/s", out)
    if done:
        r["acked"], r["deliveries"] = float(done.group(1)), float(done.group(2))
    cpu = re.search(r"= (\d+)% of a core; ([0-9.]+|n/a) µs per delivery, ([0-9]+|n/a) µs per message", out)
    if cpu:
        r["share"] = int(cpu.group(1))
        r["perDelivery"] = float(cpu.group(2)) if cpu.group(2) != "n/a" else None
        r["perMessage"] = float(cpu.group(3)) if cpu.group(3) != "n/a" else None
    wake = re.search(r"server threads: (-?[0-9.]+) wake-ups", out)
    if wake:
        r["wakeups"] = float(wake.group(1))
    r["correct"] = bool(re.search(r"correctness: lost 0 .*duplicates 0, duplicate acks 0, delivered-but-unacked 0, order violations 0 \(per sender seq\) / 0", out))
    r["invalid"] = "INVALID" in out
    return r


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ms_median(values):
    """Median of latency strings; ∞ and starred (some never arrived) ones sort last."""
    def key(v):
        s = v.rstrip("*")
        return float("inf") if s == "∞" else float(s)
    values = sorted((v for v in values if v), key=key)
    return values[(len(values) - 1) // 2] if values else "?"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bench", required=True)
    p.add_argument("--ternd", action="append", required=True, help="NAME=PATH of a ternd build (repeat: A, B, …)")
    p.add_argument("--members", default="2,10,100", help="group channel sizes, comma-separated")
    p.add_argument("--open", default="", help="open channel sizes, comma-separated")
    p.add_argument("--rates", default="10,30,100,300,1000,sat")
    p.add_argument("--sat-rate", type=float, default=3000, help="what `sat` offers (above the server's capacity)")
    p.add_argument("--open-rates", default="10,30,100,200,sat", help="rates for the open channel")
    p.add_argument("--open-sat-rate", type=float, default=400)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--duration", type=float, default=10)
    p.add_argument("--server-cpu", default="0")
    p.add_argument("--log", default=None, help="append every tern-bench report to this file")
    args = p.parse_args()
    builds = [b.split("=", 1) for b in args.ternd]
    cases = []
    for n in [int(x) for x in args.members.split(",") if x]:
        for rate in args.rates.split(","):
            cases.append(("group", n, rate, args.sat_rate))
    for n in [int(x) for x in args.open.split(",") if x]:
        for rate in args.open_rates.split(","):
            cases.append(("open", n, rate, args.open_sat_rate))
    log = open(args.log, "a") if args.log else None
    failed = False
    print("| channel | offered msg/s | build | acked msg/s | deliveries/s | server CPU per delivery (µs), median [rounds] | per message (µs) | wake-ups per message | p50 / p99 (ms) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind, n, rate, sat in cases:
        offered = sat if rate == "sat" else float(rate)
        results = {name: [] for name, _ in builds}
        for _ in range(args.rounds):
            for name, path in builds:
                cmd = [
                    args.bench, "--spawn", path, "--server-cpu", args.server_cpu, "--members", str(n), "--rate", str(offered),
                    "--duration", str(args.duration), "--channel-type", kind,
                ]
                out = subprocess.run(cmd, capture_output=True, text=True).stdout
                if log:
                    log.write(f"$ {' '.join(cmd)}\n{out}\n")
                    log.flush()
                r = parse(out)
                if not r["correct"]:
                    failed = True
                    print(f"<!-- {name} {kind} {n} {rate}: lost, duplicated or reordered messages -->", flush=True)
                results[name].append(r)
        for name, _ in builds:
            rs = results[name]
            per = [r.get("perDelivery") for r in rs]
            label = f"{kind} {n}" + (" (INVALID round: the bench above 80 % of a core)" if any(r["invalid"] for r in rs) else "")
            rounds = " / ".join(f"{v:.1f}" if v is not None else "?" for v in per)
            pd = median(per)
            pm = median([r.get("perMessage") for r in rs])
            wk = median([r.get("wakeups") for r in rs])
            acked = median([r.get("acked") for r in rs])
            dl = median([r.get("deliveries") for r in rs])
            print(
                f"| {label} | {rate if rate != 'sat' else f'sat ({offered:.0f})'} | {name} | {acked:.0f} | {dl:.0f} | "
                f"{pd:.1f} [{rounds}] | {pm:.0f} | {wk:.1f} | {ms_median([r.get('p50') for r in rs])} / {ms_median([r.get('p99') for r in rs])} |"
                if None not in (pd, pm, wk, acked, dl)
                else f"| {label} | {rate} | {name} | ? | ? | ? | ? | ? | ? |",
                flush=True,
            )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

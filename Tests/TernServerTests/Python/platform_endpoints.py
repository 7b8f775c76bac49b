#!/usr/bin/env python3
"""Every Platform API endpoint the official Python Platform SDK knows, and whether ternd answers it.

    platform_endpoints.py list [--sdk DIR ...]            JSON list of {method, path, sdks, operations}
    platform_endpoints.py table PROBE_OUTPUT [--sdk DIR ...]
        the Markdown tables of docs/compatibility.md from a saved `probe` output.
    platform_endpoints.py probe BASE_URL API_TOKEN [--sdk DIR ...] [--pending FILE]
        calls each endpoint once with placeholder values and prints `answered` or `unknown`
        (ternd's "Unknown endpoint" answer) per endpoint; exit status 1 if any is unknown, or
        with --pending, unless the unknown ones are exactly those the file lists.

The endpoints are read from the generated API classes (`Endpoint(settings={'endpoint_path',
'http_method', 'operation_id'})`), so nothing is typed in by hand. `--sdk` names a directory
that holds a `sendbird_platform_sdk` package, or `installed` (the default).
"""
import json, os, re, sys, urllib.request, urllib.error

def endpoints(sdk_dir):
    pkg = os.path.join(sdk_dir, "sendbird_platform_sdk", "api")
    out = []
    for name in sorted(os.listdir(pkg)):
        if not name.endswith("_api.py"):
            continue
        src = open(os.path.join(pkg, name)).read()
        for m in re.finditer(r"'endpoint_path': '([^']+)',.*?'operation_id': '([^']+)',.*?'http_method': '([A-Z]+)'", src, re.S):
            out.append({"api": name[:-3], "path": m.group(1), "operation": m.group(2), "method": m.group(3)})
    return out

def version(sdk_dir):
    src = open(os.path.join(sdk_dir, "sendbird_platform_sdk", "__init__.py")).read()
    m = re.search(r'__version__ = "([^"]+)"', src)
    return m.group(1) if m else "?"

def inventory(dirs):
    pairs = {}
    for d in dirs:
        v = version(d)
        for e in endpoints(d):
            key = (e["method"], e["path"])
            p = pairs.setdefault(key, {"method": e["method"], "path": e["path"], "sdks": [], "operations": [], "apis": []})
            if v not in p["sdks"]: p["sdks"].append(v)
            if e["operation"] not in p["operations"]: p["operations"].append(e["operation"])
            if e["api"] not in p["apis"]: p["apis"].append(e["api"])
    return sorted(pairs.values(), key=lambda p: (p["apis"][0], p["path"], p["method"]))

def installed():
    import sendbird_platform_sdk
    return os.path.dirname(os.path.dirname(sendbird_platform_sdk.__file__))

def default_dirs(argv):
    dirs = [installed() if argv[i + 1] == "installed" else argv[i + 1] for i, a in enumerate(argv) if a == "--sdk"]
    if not dirs:
        import sendbird_platform_sdk
        dirs = [os.path.dirname(os.path.dirname(sendbird_platform_sdk.__file__))]
    return dirs

# Path parameters that name a kind of thing get a real one, so the probe reaches the route.
PLACEHOLDERS = {"channel_type": "group_channels", "data_type": "messages", "token_type": "gcm", "push_type": "fcm"}

def probe(base, token, pairs):
    results = []
    for p in pairs:
        path = p["path"]
        for name, value in PLACEHOLDERS.items():
            path = path.replace("{" + name + "}", value)
        path = re.sub(r"\{[^}]*(id|ts|message_id)\}", "1", path)
        path = re.sub(r"\{[^}]+\}", "probe", path)
        body = b"{}" if p["method"] in ("POST", "PUT", "DELETE") else None
        req = urllib.request.Request(base + path, data=body, method=p["method"], headers={"Api-Token": token, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                status, text = r.status, r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode("utf-8", "replace")
        try:
            message = json.loads(text).get("message", "") if text.startswith("{") else ""
        except ValueError:
            message = ""
        results.append(dict(p, status=status, answer="unknown" if message.startswith("Unknown endpoint") else "answered"))
    return results

def table(pairs, probe_output):
    status = {}
    for line in open(probe_output):
        m = re.match(r"(answered|unknown)\s+(\d+)\s+(\S+)\s+(\S+)", line)
        if m: status[(m.group(3), m.group(4))] = m.group(1)
    groups = {}
    for e in pairs: groups.setdefault(e["apis"][0].replace("_api", ""), []).append(e)
    answered = sum(1 for e in pairs if status.get((e["method"], e["path"])) == "answered")
    out = [f"**{answered} of {len(pairs)} answered.**", ""]
    for g in sorted(groups):
        es = groups[g]
        a = sum(1 for e in es if status.get((e["method"], e["path"])) == "answered")
        out += [f"### {g} ({a}/{len(es)})", "", "| method | path | operations | SDK | ternd |", "|---|---|---|---|---|"]
        for e in sorted(es, key=lambda e: (e["path"], e["method"])):
            ok = status.get((e["method"], e["path"])) == "answered"
            out.append(f"| {e['method']} | `{e['path']}` | {', '.join(e['operations'])} | {' / '.join(e['sdks'])} | {'yes' if ok else 'pending'} |")
        out.append("")
    return "\n".join(out)

if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "table":
        print(table(inventory(default_dirs(args)), args[1])); sys.exit(0)
    if not args or args[0] not in ("list", "probe"):
        print(__doc__); sys.exit(2)
    pairs = inventory(default_dirs(args))
    if args[0] == "list":
        print(json.dumps(pairs, indent=1)); sys.exit(0)
    results = probe(args[1].rstrip("/"), args[2], pairs)
    for r in results:
        print(f'{r["answer"]:8} {r["status"]} {r["method"]:6} {r["path"]}  ({", ".join(r["operations"])}; {"/".join(r["sdks"])})')
    unknown = [r for r in results if r["answer"] == "unknown"]
    print(f"{len(results) - len(unknown)} of {len(results)} answered")
    if "--pending" in args:
        # The endpoints known to be missing (docs/compatibility.md): the probe must find exactly
        # these, so that an endpoint that goes missing fails, and one that lands is struck off.
        listed = args[args.index("--pending") + 1]
        pending = {l.strip() for l in open(listed) if l.strip() and not l.startswith("#")}
        found = {f'{r["method"]} {r["path"]}' for r in unknown}
        for e in sorted(found - pending): print(f"MISSING (not in {os.path.basename(listed)}): {e}")
        for e in sorted(pending - found): print(f"NOW ANSWERED (strike it from {os.path.basename(listed)}): {e}")
        sys.exit(0 if found == pending else 1)
    sys.exit(1 if unknown else 0)

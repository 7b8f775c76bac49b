#!/usr/bin/env python3
"""Every Platform API endpoint the official Python Platform SDK knows, and whether ternd answers it.

    platform_endpoints.py list [--sdk DIR ...]
        JSON list of every operation: {sdk_version, api_class, operation, method, path}.
    platform_endpoints.py pairs [--sdk DIR ...]
        JSON list of the distinct (method, path) pairs: {method, path, sdks, operations, apis, classes}.
    platform_endpoints.py --probe BASE_URL --api-token TOKEN [--sdk DIR ...] [--json FILE] [--markdown FILE]
        calls each distinct endpoint once, prints answered/total per API class and every unknown one,
        and writes the operations and pairs with their classification (JSON) and a Markdown table.
    platform_endpoints.py probe BASE_URL API_TOKEN [--sdk DIR ...] [--pending FILE]
        the same probe, one line per endpoint (`answered` or `unknown`, ternd's "Unknown endpoint"
        answer); exit status 1 if any is unknown, or with --pending, unless the unknown ones are
        exactly those the file lists (what ProcessTests runs).
    platform_endpoints.py table PROBE_OUTPUT [--sdk DIR ...]
        the Markdown tables of docs/compatibility.md from a saved `probe` output.

`--sdk` names a directory that holds a `sendbird_platform_sdk` package, or `installed` (what the
default python3 imports). Without `--sdk`: the installed SDK, and the legacy one in
$SENDBIRD_PY_LEGACY or ~/.cache/tern/sendbird-py-0.0.16 when it is there.

How the endpoints are found (nothing is typed in by hand): each SDK is imported in its own python3
process (both are named `sendbird_platform_sdk`). Every module of `sendbird_platform_sdk.api` is
imported, every class defined there is instantiated, and every public method is matched to the
`Endpoint` attribute it calls (`self.X_endpoint.call_with_http_info`); method and path come from that
Endpoint's `settings['http_method']` / `settings['endpoint_path']`. Three cross-checks fail loudly:
the number of `_Endpoint(` constructions in each module's source equals the Endpoints found; every
Endpoint is reached by exactly one public method; and every method is then *called* with placeholder
arguments against a stubbed transport (`ApiClient.request` raises before any network I/O), and the
method and URL path the SDK really built must equal the template filled with the same placeholders.
"""
import json, os, re, subprocess, sys, urllib.error, urllib.parse, urllib.request

LEGACY_DEFAULT = os.environ.get("SENDBIRD_PY_LEGACY") or os.path.expanduser("~/.cache/tern/sendbird-py-0.0.16")

# Path parameters that name a kind of thing get a real one, so a request reaches the route.
KINDS = {"channel_type": "group_channels", "data_type": "messages", "token_type": "gcm", "push_type": "fcm"}


def placeholder(wire_name, types=(), allowed=None):
    """A plausible value for a path parameter (its name as it appears in the path template)."""
    if allowed:
        values = list(allowed.values())
        return KINDS[wire_name] if KINDS.get(wire_name) in values else values[0]
    if wire_name in KINDS:
        return KINDS[wire_name]
    if int in types or wire_name in ("message_id", "emoji_category_id"):
        return 1
    if wire_name == "bot_userid" or wire_name.endswith("user_id") or wire_name == "target_id":
        return "probe_user"
    if wire_name.endswith("channel_url"):
        return "probe_channel"
    return "probe_" + wire_name


def fill(path, values):
    return re.sub(r"\{([^}]+)\}", lambda m: urllib.parse.quote(str(values[m.group(1)]), safe=""), path)


def normalise(path):
    # OpenAPI templates already use {name}; also accept :name and <name> and stray spaces.
    path = re.sub(r"\{\s*([^}\s]+)\s*\}", r"{\1}", path)
    path = re.sub(r"<([^>]+)>", r"{\1}", path)
    return re.sub(r"/:([A-Za-z_][A-Za-z0-9_]*)", r"/{\1}", path)


# ---------------------------------------------------------------- extraction (child process)

def _extract(sdk_dir):
    """Runs in a child process: prints {version, file, operations, problems} as JSON."""
    if sdk_dir != "installed":
        sys.path.insert(0, sdk_dir)
    import importlib, inspect, pkgutil
    import sendbird_platform_sdk as sdk
    import sendbird_platform_sdk.api as api_pkg
    from sendbird_platform_sdk.api_client import ApiClient, Endpoint
    from sendbird_platform_sdk.configuration import Configuration

    class Captured(Exception):
        pass

    def stub_request(method, url, *args, **kwargs):
        raise Captured(method, url)

    client = ApiClient(Configuration(host="http://sdk.invalid"))
    client.request = stub_request
    ops, problems, notes = [], [], []
    for info in sorted(pkgutil.iter_modules(api_pkg.__path__), key=lambda i: i.name):
        module = importlib.import_module(api_pkg.__name__ + "." + info.name)
        constructed = len(re.findall(r"=\s*_Endpoint\(", inspect.getsource(module)))
        found = 0
        for class_name, cls in sorted(inspect.getmembers(module, inspect.isclass)):
            if cls.__module__ != module.__name__:
                continue
            api = cls(client)
            endpoints = {a: e for a, e in vars(api).items() if isinstance(e, Endpoint)}
            found += len(endpoints)
            reached = {}
            for name, fn in sorted(inspect.getmembers(cls, inspect.isfunction)):
                if name.startswith("_"):
                    continue
                calls = re.findall(r"self\.(\w+)\.call_with_http_info", inspect.getsource(fn))
                calls = [c for c in calls if c in endpoints]
                if len(calls) != 1:
                    problems.append(f"{class_name}.{name}: calls {calls or 'no Endpoint'}")
                    continue
                reached.setdefault(calls[0], []).append(name)
                ep = endpoints[calls[0]]
                method, template = ep.settings["http_method"].upper(), ep.settings["endpoint_path"]
                path = normalise(template)
                wire = ep.attribute_map
                path_params = [p for p, where in ep.location_map.items() if where == "path"]
                values = {wire.get(p, p): placeholder(wire.get(p, p), ep.openapi_types.get(p, ()), ep.allowed_values.get((p,)))
                          for p in path_params}
                in_template = set(re.findall(r"\{([^}]+)\}", template))
                if in_template - set(values):
                    problems.append(f"{class_name}.{name}: template {template} needs {sorted(in_template - set(values))}")
                if set(values) - in_template:
                    # The SDK declares a path parameter its template lacks: it is dropped when sent.
                    notes.append(f"{sdk.__version__} {class_name}.{name}: path parameter(s) {sorted(set(values) - in_template)} "
                                 f"not in {template}, so never sent")
                # Call the public method as a user would; the stub stops it at the transport.
                # Input type checks are off so placeholders need not be models; with them off the
                # SDK refuses its own None defaults, hence the explicit transport options.
                kwargs = {"_check_input_type": False, "_check_return_type": False, "_host_index": 0,
                          "_content_type": "application/json", "_request_auths": []}
                for p in ep.params_map["required"]:
                    kwargs[p] = _argument(p, ep, values)
                if "api_token" in ep.params_map["all"] and "api_token" not in kwargs:
                    kwargs["api_token"] = "probe-token"
                try:
                    getattr(api, name)(**kwargs)
                    problems.append(f"{class_name}.{name}: reached no transport")
                    continue
                except Captured as c:
                    sent_method, sent_url = c.args
                except Exception as e:  # noqa: BLE001 - report, do not hide
                    problems.append(f"{class_name}.{name}: calling it failed: {type(e).__name__}: {e}")
                    sent_method, sent_url = None, None
                sent_path = urllib.parse.urlsplit(sent_url).path if sent_url else None
                expected = fill(template, values)
                if sent_url is not None and (sent_method != method or sent_path != expected):
                    problems.append(f"{class_name}.{name}: SDK sent {sent_method} {sent_path}, template says {method} {expected}")
                ops.append({"sdk_version": sdk.__version__, "api_class": class_name, "module": info.name,
                            "operation": name, "operation_id": ep.settings.get("operation_id"),
                            "method": method, "path": path, "probe_path": expected,
                            "verified_by_call": sent_url is not None and sent_method == method and sent_path == expected})
            for attr in endpoints:
                if len(reached.get(attr, [])) != 1:
                    problems.append(f"{class_name}.{attr}: reached by {reached.get(attr, [])}")
        if found != constructed:
            problems.append(f"{info.name}: {constructed} _Endpoint( in the source, {found} Endpoints found")
    print(json.dumps({"version": sdk.__version__, "file": sdk.__file__, "operations": ops, "problems": problems, "notes": notes}))


def _argument(p, ep, path_values):
    """A placeholder argument for a required parameter (type checks are off in the call)."""
    wire = ep.attribute_map.get(p, p)
    if ep.location_map.get(p) == "path":
        return path_values[wire]
    allowed = ep.allowed_values.get((p,))
    if allowed:
        return list(allowed.values())[0]
    types = ep.openapi_types.get(p, (str,))
    if ep.location_map.get(p) == "body":
        return {}
    if int in types:
        return 1
    if bool in types:
        return True
    if any(isinstance(t, list) for t in types) or list in types:
        return []
    return "probe"


def sdk_operations(sdk_dir):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "_extract", sdk_dir],
                         capture_output=True, text=True, cwd="/")
    if out.returncode != 0:
        sys.exit(f"extracting {sdk_dir} failed:\n{out.stderr}")
    data = json.loads(out.stdout)
    if data["problems"]:
        sys.exit(f"extracting {sdk_dir} ({data['file']}): " + "\n".join(data["problems"]))
    return data


# ---------------------------------------------------------------- inventory

def sdk_dirs(argv):
    dirs = [argv[i + 1] for i, a in enumerate(argv) if a == "--sdk"]
    if not dirs:
        dirs = ["installed"]
        if os.path.isdir(os.path.join(LEGACY_DEFAULT, "sendbird_platform_sdk")):
            dirs.append(LEGACY_DEFAULT)
    return dirs


def operations(dirs):
    ops = []
    for d in dirs:
        ops += sdk_operations(d)["operations"]
    return ops


def inventory(ops):
    """Distinct (method, path) pairs, in the order the SDKs were given (the first one's class wins)."""
    pairs = {}
    for o in ops:
        p = pairs.setdefault((o["method"], o["path"]), {"method": o["method"], "path": o["path"], "probe_path": o["probe_path"],
                                                        "sdks": [], "operations": [], "apis": [], "classes": []})
        for key, value in (("sdks", o["sdk_version"]), ("operations", o["operation"]), ("apis", o["module"]), ("classes", o["api_class"])):
            if value not in p[key]:
                p[key].append(value)
    return sorted(pairs.values(), key=lambda p: (p["apis"][0], p["path"], p["method"]))


# ---------------------------------------------------------------- probe

def request(base, token, method, path):
    body = b"{}" if method in ("POST", "PUT") else None
    headers = {"Api-Token": token, "Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(base + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, text = r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as e:
        return {"status": 0, "code": None, "message": f"{type(e).__name__}: {e}", "answer": "error"}
    message, code = "", None
    try:
        j = json.loads(text)
        if isinstance(j, dict):
            message, code = str(j.get("message", "")), j.get("code")
    except ValueError:
        pass
    return {"status": status, "code": code, "message": message[:200],
            "answer": "unknown" if message.startswith("Unknown endpoint") else "answered"}


def probe(base, token, pairs):
    results = []
    for p in pairs:
        r = dict(p, **request(base, token, p["method"], p["probe_path"]))
        if "/group_channels" in p["probe_path"] and "{channel_type}" in p["path"]:
            # The same route for open channels, reported alongside (the classification uses group_channels).
            other = request(base, token, p["method"], p["probe_path"].replace("/group_channels", "/open_channels", 1))
            r["open_channels"] = {"status": other["status"], "code": other["code"], "answer": other["answer"]}
        results.append(r)
    return results


def sdk_label(sdks):
    labels = sorted({"2.x" if s.startswith("2.") else s for s in sdks})
    return "both" if len(labels) > 1 else labels[0]


def markdown(results, versions):
    groups = {}
    for r in results:
        groups.setdefault(r["classes"][0], []).append(r)
    answered = sum(r["answer"] == "answered" for r in results)
    out = [f"# Platform API endpoints of the official Python SDKs ({', '.join(versions)})", "",
           f"**{answered} of {len(results)} distinct method/path pairs answered.** "
           "`unknown` = ternd's \"Unknown endpoint\" error; `answered` = any other reply (HTTP status / Sendbird code). "
           "Grouped by the API class of the first SDK that has the endpoint (2.x first).", ""]
    for g in sorted(groups):
        rs = sorted(groups[g], key=lambda r: (r["path"], r["method"]))
        a = sum(r["answer"] == "answered" for r in rs)
        out += [f"## {g} ({a}/{len(rs)})", "",
                "| method | path | SDK (2.x / 0.0.16 / both) | API class | status now (answered/unknown) | operation |",
                "|---|---|---|---|---|---|"]
        for r in rs:
            status = r["answer"] if r["answer"] != "answered" else f"answered ({r['status']}{'/' + str(r['code']) if r['code'] else ''})"
            out.append(f"| {r['method']} | `{r['path']}` | {sdk_label(r['sdks'])} | {' / '.join(r['classes'])} | {status} | {', '.join(r['operations'])} |")
        out.append("")
    return "\n".join(out)


def probe_report(argv):
    base = argv[argv.index("--probe") + 1].rstrip("/")
    token = argv[argv.index("--api-token") + 1]
    dirs = sdk_dirs(argv)
    ops, versions, notes = [], [], []
    for d in dirs:
        data = sdk_operations(d)
        versions.append(data["version"])
        ops += data["operations"]
        notes += data["notes"]
    results = probe(base, token, inventory(ops))
    answer = {(r["method"], r["path"]): r for r in results}
    for o in ops:
        r = answer[(o["method"], o["path"])]
        o.update(answer=r["answer"], status=r["status"], code=r["code"])
    print(f"SDKs {', '.join(versions)}: {len(ops)} operations, {len(results)} distinct method/path pairs; "
          f"{sum(r['answer'] == 'answered' for r in results)} answered")
    by_class = {}
    for r in results:
        by_class.setdefault(r["classes"][0], []).append(r)
    for c in sorted(by_class):
        print(f"  {c:18} {sum(r['answer'] == 'answered' for r in by_class[c]):3}/{len(by_class[c])}")
    per_sdk = {}
    for o in ops:
        k = (o["sdk_version"], o["api_class"])
        per_sdk.setdefault(k, [0, 0])
        per_sdk[k][0] += o["answer"] == "answered"
        per_sdk[k][1] += 1
    print("per SDK version and class (operations):")
    for (v, c), (a, t) in sorted(per_sdk.items()):
        print(f"  {v:7} {c:18} {a:3}/{t}")
    for r in sorted(results, key=lambda r: (r["classes"][0], r["path"], r["method"])):
        if r["answer"] != "answered":
            print(f"{r['answer']:8} {r['classes'][0]:16} {r['method']:6} {r['path']}  ({', '.join(r['operations'])}; {'/'.join(r['sdks'])})")
    for r in results:
        if r.get("open_channels") and r["open_channels"]["answer"] != r["answer"]:
            print(f"note: {r['method']} {r['path']} is {r['answer']} for group_channels but {r['open_channels']['answer']} for open_channels")
    for n in notes:
        print("SDK note:", n)
    doc = {"base_url": base, "sdk_notes": notes, "sdk_versions": versions, "operation_count": len(ops), "distinct_pairs": len(results),
           "answered": sum(r["answer"] == "answered" for r in results), "pairs": results, "operations": ops}
    if "--json" in argv:
        with open(argv[argv.index("--json") + 1], "w") as f:
            json.dump(doc, f, indent=1)
    if "--markdown" in argv:
        with open(argv[argv.index("--markdown") + 1], "w") as f:
            f.write(markdown(results, versions) + "\n")
    return 1 if any(r["answer"] != "answered" for r in results) else 0


# ---------------------------------------------------------------- docs table from a saved probe output

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
    if args[:1] == ["_extract"]:
        _extract(args[1]); sys.exit(0)
    if "--probe" in args:
        sys.exit(probe_report(args))
    if args[:1] == ["table"]:
        print(table(inventory(operations(sdk_dirs(args))), args[1])); sys.exit(0)
    if args[:1] == ["list"]:
        keys = ("sdk_version", "api_class", "operation", "method", "path")
        print(json.dumps([{k: o[k] for k in keys} for o in operations(sdk_dirs(args))], indent=1)); sys.exit(0)
    if args[:1] == ["pairs"]:
        print(json.dumps(inventory(operations(sdk_dirs(args))), indent=1)); sys.exit(0)
    if args[:1] != ["probe"] or len(args) < 3:
        print(__doc__); sys.exit(2)
    results = probe(args[1].rstrip("/"), args[2], inventory(operations(sdk_dirs(args))))
    for r in results:
        code = f" code {r['code']}" if r["code"] else ""
        print(f'{r["answer"]:8} {r["status"]} {r["method"]:6} {r["path"]}  ({", ".join(r["operations"])}; {"/".join(r["sdks"])}){code}')
    unknown = [r for r in results if r["answer"] != "answered"]
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

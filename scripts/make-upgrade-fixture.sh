#!/usr/bin/env bash
# Makes the upgrade fixture: a data directory written by a given (earlier) ternd, filled by
# make-upgrade-fixture.mjs, for Tests/TernServerTests/UpgradeTests.swift.
#   scripts/make-upgrade-fixture.sh PATH/TO/OLD/ternd Tests/TernServerTests/Fixtures/upgrade-sqlite-COMMIT
# With DATABASE=postgres://postgres@127.0.0.1:PORT/DB (an empty database), the server keeps its data
# there and the fixture is its dump (ternd.sql, INSERT statements) instead of ternd.sqlite:
#   DATABASE=... scripts/make-upgrade-fixture.sh OLD/ternd Tests/TernServerTests/Fixtures/upgrade-postgres-COMMIT
set -euo pipefail
ternd="$1"; out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
data="$(mktemp -d)"; chmod 700 "$data"
token="upgrade-fixture-token"
db=()
if [ -n "${DATABASE:-}" ]; then db=(--database "$DATABASE"); fi
"$ternd" serve --port 0 --data-dir "$data" --api-token "$token" --max-messages-per-second 0 --no-link-previews "${db[@]}" > "$data.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q '^listening ' "$data.log" && break; sleep 0.1; done
port="$(sed -n 's/^listening .*:\([0-9]*\)$/\1/p' "$data.log" | head -1)"
TERND_URL="http://127.0.0.1:$port" API_TOKEN="$token" node --experimental-websocket "$here/make-upgrade-fixture.mjs" > "$data.json"
kill -TERM $pid; wait $pid || true
mkdir -p "$out"
if [ -n "${DATABASE:-}" ]; then
    pg_dump --no-owner --no-privileges --inserts "$DATABASE" > "$out/ternd.sql"
else
# One self-contained file: the WAL folded in.
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.execute("PRAGMA journal_mode=DELETE"); c.close()' "$data/ternd.sqlite"
cp "$data/ternd.sqlite" "$out/"
cp -r "$data/files" "$out/"
fi
echo "$token" > "$out/api_token"
cp "$data.json" "$out/fixture.json"
echo "fixture in $out: $(cat "$out/fixture.json")"

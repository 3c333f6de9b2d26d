#!/usr/bin/env bash
# Static checks of the deployment artifacts; needs no Docker daemon and no cluster.
#   1. docker-compose.yml parses and interpolates (docker-compose 1.29 or `docker compose` v2);
#   2. deploy/nats/streams/*.json agree with the stream table in libs/messaging (built dist);
#   3. the Kubernetes kustomizations render (kubectl kustomize or kustomize);
#   4. the container shell scripts parse;
#   5. deploy/nats/nats-server.conf and the cluster files parse (nats-server -t), deploy/k8s/nats holds the same file, and
#      every app in docker-compose.yml connects as a user the file declares;
#   6. the operator's Prometheus artifacts (docs/operations.md): the alert rules parse and pass their
#      unit tests (promtool check/test rules), the scrape config parses, and every PromQL query of the
#      Grafana dashboard parses (its $variables substituted; promtool check rules on a temporary file).
# A check whose tool is missing prints SKIP with what to install and does not fail the run,
# unless --strict is given. Any real failure exits 1.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
strict=false
[ "${1:-}" = --strict ] && strict=true
failures=0 skips=0
pass() { echo "PASS  $*"; }
fail() { echo "FAIL  $*"; failures=$((failures + 1)); }
skip() { echo "SKIP  $*"; skips=$((skips + 1)); }

# 1. Compose. Secrets have no default in the file, so validation supplies placeholders.
nats_users=(PROVISIONER GATEWAY SYNC_ORCHESTRATOR DIRECTORY TELEMETRY_INGEST FAULT_FEED ENRICHMENT DEAD_LETTERS)
for u in "${nats_users[@]}"; do v=NATS_${u}_PASSWORD; export "$v=${!v:-check-placeholder}"; done
if command -v docker-compose >/dev/null 2>&1; then compose=(docker-compose)
elif docker compose version >/dev/null 2>&1; then compose=(docker compose)
else compose=()
fi
if [ ${#compose[@]} -eq 0 ]; then
  skip "docker-compose.yml: docker-compose is not installed (apt-get install -y docker-compose)"
elif out=$(SWITCHYARD_MASTER_KEY=${SWITCHYARD_MASTER_KEY:-check-placeholder} CURSOR_SECRET=${CURSOR_SECRET:-check-placeholder} \
    "${compose[@]}" -f docker-compose.yml config -q 2>&1); then
  pass "docker-compose.yml (${compose[*]} config -q)"
else
  fail "docker-compose.yml: $out"
fi

# 2. Stream files vs the code's stream table. Node 24 from the workspace when installed.
node_bin=node
[ -x node_modules/.bin/node ] && node_bin=node_modules/.bin/node
if [ ! -f libs/messaging/dist/index.js ]; then
  skip "deploy/nats/streams: libs/messaging is not built (npm run build)"
elif out=$("$node_bin" --input-type=module - <<'JS' 2>&1
import { readFileSync, readdirSync } from 'node:fs';
// The files are generated from the code (npm run nats:streams); the same check as stream-files.spec.ts.
const { streamFiles, streamFileText } = await import(`${process.cwd()}/libs/messaging/dist/index.js`);
const dir = 'deploy/nats/streams';
const generated = streamFiles();
const problems = [];
for (const f of readdirSync(dir).filter((f) => f.endsWith('.json'))) if (!generated.has(f)) problems.push(`${f}: stream not declared in libs/messaging`);
for (const [f, file] of generated) {
  let text;
  try { text = readFileSync(`${dir}/${f}`, 'utf8'); } catch { problems.push(`${f}: missing`); continue; }
  if (text !== streamFileText(file)) problems.push(`${f}: stale (npm run nats:streams)`);
}
if (problems.length) { console.log(problems.join('\n')); process.exit(1); }
console.log(`${generated.size} streams`);
JS
); then
  pass "deploy/nats/streams match libs/messaging ($out)"
else
  fail "deploy/nats/streams differ from libs/messaging:"$'\n'"$out"
fi

# 3. Kustomize: the whole system and each app on its own (how docs/deploy.md applies them).
if command -v kubectl >/dev/null 2>&1; then kustomize=(kubectl kustomize)
elif command -v kustomize >/dev/null 2>&1; then kustomize=(kustomize build)
else kustomize=()
fi
if [ ${#kustomize[@]} -eq 0 ]; then
  skip "deploy/k8s: neither kubectl nor kustomize is installed"
else
  for dir in deploy/k8s deploy/k8s/*/; do
    dir=${dir%/}
    [ -f "$dir/kustomization.yaml" ] || continue
    if out=$("${kustomize[@]}" "$dir" 2>&1 >/dev/null); then pass "$dir (${kustomize[*]})"; else fail "$dir: $out"; fi
  done
fi

# 4. Shell scripts that run inside images or on operators' machines.
for script in deploy/docker/entrypoint.sh; do
  if out=$(sh -n "$script" 2>&1); then pass "$script (sh -n)"; else fail "$script: $out"; fi
done

# 5. The NATS server configuration (users and permissions; docs/deploy.md "NATS users").
nats_bin=${NATS_SERVER_BIN:-$(command -v nats-server || echo /usr/sbin/nats-server)}
if [ ! -x "$nats_bin" ]; then
  skip "deploy/nats/nats-server.conf: nats-server is not installed"
elif out=$("$nats_bin" -c deploy/nats/nats-server.conf -t 2>&1); then
  pass "deploy/nats/nats-server.conf (nats-server -t)"
else
  fail "deploy/nats/nats-server.conf: $out"
fi
# The cluster nodes' files (compose profile `cluster`, the k8s StatefulSet; decision 0034) include it.
for conf in deploy/nats/nats-cluster.conf deploy/k8s/nats/nats-cluster.conf; do
  if [ ! -x "$nats_bin" ]; then skip "$conf: nats-server is not installed"
  elif out=$(NATS_SERVER_NAME=check SERVER_NAME=check "$nats_bin" -c "$conf" -t 2>&1); then pass "$conf (nats-server -t)"
  else fail "$conf: $out"
  fi
done
if cmp -s deploy/nats/nats-server.conf deploy/k8s/nats/nats-server.conf; then
  pass "deploy/k8s/nats/nats-server.conf is a copy of deploy/nats/nats-server.conf"
else
  fail "deploy/k8s/nats/nats-server.conf differs from deploy/nats/nats-server.conf (cp the latter over the former)"
fi
missing=""
for user in $(sed -n 's/^ *NATS_USER: *//p' docker-compose.yml); do
  grep -q "^ *user: $user\$" deploy/nats/nats-server.conf || missing="$missing $user"
done
if [ -n "$missing" ]; then fail "docker-compose.yml: NATS users not in deploy/nats/nats-server.conf:$missing"; else pass "docker-compose.yml NATS users are declared in deploy/nats/nats-server.conf"; fi

# 6. Prometheus scrape config, alert rules and their unit tests, the dashboard's queries (docs/operations.md).
if ! command -v promtool >/dev/null 2>&1; then
  skip "deploy/prometheus: promtool is not installed (Debian package prometheus; .ci/run installs it)"
else
  if out=$(promtool check rules deploy/prometheus/alerts.yml 2>&1); then pass "deploy/prometheus/alerts.yml (promtool check rules)"; else fail "deploy/prometheus/alerts.yml: $out"; fi
  if out=$(cd deploy/prometheus && promtool test rules alerts.test.yml 2>&1); then pass "deploy/prometheus/alerts.test.yml (promtool test rules)"; else fail "deploy/prometheus/alerts.test.yml: $out"; fi
  if out=$(promtool check config --syntax-only deploy/prometheus/prometheus.yml 2>&1); then pass "deploy/prometheus/prometheus.yml (promtool check config)"; else fail "deploy/prometheus/prometheus.yml: $out"; fi
  queries=$(mktemp --suffix=.yml)
  if out=$("$node_bin" --input-type=module - "$queries" <<'JS' 2>&1
import { readFileSync, writeFileSync } from 'node:fs';
// Each panel query becomes a recording rule, Grafana's variables replaced by what they expand to.
const dashboard = JSON.parse(readFileSync('deploy/grafana/switchyard.json', 'utf8'));
const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
const expand = (e) => e.replaceAll('$__rate_interval', '5m').replaceAll('$service', '.*');
const rules = exprs.map((e, i) => `      - record: dashboard:query_${i}\n        expr: ${JSON.stringify(expand(e))}`);
writeFileSync(process.argv[2], `groups:\n  - name: dashboard\n    rules:\n${rules.join('\n')}\n`);
console.log(exprs.length);
JS
  ) && count=$out && out=$(promtool check rules "$queries" 2>&1); then
    pass "deploy/grafana/switchyard.json: $count queries parse (promtool check rules)"
  else
    fail "deploy/grafana/switchyard.json: $out"
  fi
  rm -f "$queries"
fi

echo "deploy checks: $failures failed, $skips skipped"
if [ "$failures" -gt 0 ] || { [ "$strict" = true ] && [ "$skips" -gt 0 ]; }; then exit 1; fi

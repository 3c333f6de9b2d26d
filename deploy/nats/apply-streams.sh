#!/bin/sh
# Creates or updates Switchyard's JetStream streams from deploy/nats/streams/*.json with the nats CLI,
# for operators who provision streams themselves (for example when the services' NATS accounts may
# not manage streams). The services also create/update them at start (libs/messaging), reconciling
# only subjects, duplicate_window, max_age, max_bytes and discard, so settings such as num_replicas
# set here survive. max_bytes here is the default; a deployment that sets NATS_STREAM_MAX_BYTES_<STREAM>
# edits the file to match. Never lower max_bytes below what a stream stores: nats-server then
# deletes its oldest messages at once (docs/decisions/0026-stream-byte-limits.md).
#
# Usage: [NATS_NAMESPACE=<ns>] deploy/nats/apply-streams.sh [--print] [nats CLI options...]
#   NATS_NAMESPACE  same value the services get; `staging` turns `ingest.>` into `staging.ingest.>`
#                   and INGEST into STAGING_INGEST (needs jq). Empty (default): names as written.
#   --print         write the resulting configs to stdout instead of applying them (no nats CLI).
#   other options   passed to every nats call, e.g. --server nats://nats:4222 --creds ops.creds
set -eu
dir=$(cd "$(dirname "$0")/streams" && pwd)
ns=${NATS_NAMESPACE:-}
print=false
if [ "${1:-}" = --print ]; then print=true; shift; fi

# Same rule as the services' NATS_NAMESPACE (libs/service-kit config): lower-case letters and digits.
if [ -n "$ns" ] && ! printf '%s' "$ns" | grep -Eq '^[a-z0-9]+$'; then
  echo "apply-streams: NATS_NAMESPACE must be lower-case letters and digits, got '$ns'" >&2
  exit 64
fi
if [ -n "$ns" ] && ! command -v jq >/dev/null 2>&1; then
  echo "apply-streams: a non-empty NATS_NAMESPACE needs jq to rewrite names and subjects" >&2
  exit 69
fi
if [ "$print" = false ] && ! command -v nats >/dev/null 2>&1; then
  echo "apply-streams: the nats CLI is not installed (https://github.com/nats-io/natscli); use --print to see the configs" >&2
  exit 69
fi
name_prefix=$(printf '%s' "$ns" | tr 'a-z' 'A-Z')

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for file in "$dir"/*.json; do
  out="$tmp/$(basename "$file")"
  if [ -n "$ns" ]; then
    jq --arg ns "$ns" --arg NS "$name_prefix" '.name = $NS + "_" + .name | .subjects |= map($ns + "." + .)' "$file" >"$out"
  else
    cp "$file" "$out"
  fi
  name=$(sed -n 's/^ *"name": *"\([^"]*\)".*/\1/p' "$out" | head -n 1)
  if [ "$print" = true ]; then
    cat "$out"
  elif nats stream info "$name" "$@" >/dev/null 2>&1; then
    echo "updating stream $name"
    nats stream edit "$name" --config "$out" --force "$@"
  else
    echo "creating stream $name"
    nats stream add "$name" --config "$out" "$@"
  fi
done

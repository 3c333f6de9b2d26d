#!/bin/sh
# Container entrypoint: maps SWITCHYARD_APP (set from the build arg) to its entry file and execs
# node, so node becomes PID 1 and gets SIGTERM directly (graceful drain needs it).
#   (no argument)        run the app or simulator
#   migrate [--pending]  apply this app's schema migrations and exit (the Kubernetes Job);
#                        same as `npm run migrate -- <app>`; --pending lists, applies nothing
#   operator <command>   gateway image only: the operator CLI (same as `npm run operator --`)
#   webhook-delivery     gateway image only: the gateway's webhook delivery role (decision 0042)
#   dead-letters         gateway image only: the gateway's dead-letter role (decision 0046)
#   dlq <command>        gateway image only: the dead-letter CLI (same as `npm run dlq --`; run it
#                        as the NATS user dead-letters, e.g. in the compose service dead-letters)
#   nats-provision       create/update the JetStream streams and durables of deploy/nats/streams and
#                        exit (the Job nats-provision; same as `npm run nats:provision`; decision 0033)
set -eu
cd /app

case "${SWITCHYARD_APP:-}" in
  gateway|sync-orchestrator|directory|telemetry-ingest|fault-feed|enrichment)
    main="apps/${SWITCHYARD_APP}/dist/main.js" ;;
  samsara-sim|motive-sim|geotab-sim)
    main="sandbox/dist/${SWITCHYARD_APP%-sim}/main.js" ;;
  *)
    echo "entrypoint: SWITCHYARD_APP '${SWITCHYARD_APP:-}' is not a Switchyard app or simulator" >&2
    exit 64 ;;
esac

# V8 heap of the app process (decision 0038): telemetry-ingest holds up to 32 batches of up to
# ~1 MB JSON while it commits them in groups; with V8's defaults on a large host (a 4 GB old space,
# 64 MB semi-spaces) its heap grew to ~290 MB of mostly garbage before a full GC. 256 MB old space
# and 16 MB semi-spaces keep its RSS near 240 MiB on the ingest benchmark (bench/README.md), inside
# the Deployment's 512Mi limit. bench/lib/child-server.mjs gives benchmark children the same flags.
case "${SWITCHYARD_APP}" in
  telemetry-ingest) heap='--max-old-space-size=256 --max-semi-space-size=16' ;;
  *) heap='' ;;
esac

# The gateway image's own commands refuse to run in another image.
gateway_only() {
  if [ "${SWITCHYARD_APP}" != gateway ]; then
    echo "entrypoint: $1 ships in the gateway image only" >&2
    exit 64
  fi
}

case "${1:-}" in
  migrate)
    shift
    # The same schema the app uses when DB_SCHEMA overrides the default one.
    if [ -n "${DB_SCHEMA:-}" ]; then set -- --schema "${DB_SCHEMA}" "$@"; fi
    exec node --enable-source-maps scripts/migrate.mjs "${SWITCHYARD_APP}" "$@" ;;
  operator)
    gateway_only "the operator CLI"
    shift
    exec node --enable-source-maps apps/gateway/dist/cli/operator.js "$@" ;;
  webhook-delivery)
    gateway_only "the webhook delivery role"
    exec node --enable-source-maps apps/gateway/dist/webhook-delivery.js ;;
  dead-letters)
    gateway_only "the dead-letter role"
    exec node --enable-source-maps apps/gateway/dist/dead-letters.js ;;
  dlq)
    gateway_only "the dead-letter CLI"
    shift
    exec node --enable-source-maps apps/gateway/dist/cli/dlq.js "$@" ;;
  nats-provision)
    shift
    exec node --enable-source-maps libs/service-kit/dist/cli/nats-provision.js "$@" ;;
  "")
    # shellcheck disable=SC2086 # $heap is a list of flags
    exec node --enable-source-maps ${heap} "${main}" ;;
  *)
    echo "entrypoint: unknown command '$1' (expected nothing, 'migrate', 'operator', 'webhook-delivery', 'dead-letters', 'dlq' or 'nats-provision')" >&2
    exit 64 ;;
esac

#!/bin/sh
# Container entrypoint: maps SWITCHYARD_APP (set from the build arg) to its entry file and execs
# node, so node becomes PID 1 and gets SIGTERM directly (graceful drain needs it).
#   (no argument)        run the app or simulator
#   migrate [--pending]  apply this app's schema migrations and exit (the Kubernetes Job);
#                        same as `npm run migrate -- <app>`; --pending lists, applies nothing
#   operator <command>   gateway image only: the operator CLI (same as `npm run operator --`)
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

case "${1:-}" in
  migrate)
    shift
    # The same schema the app uses when DB_SCHEMA overrides the default one.
    if [ -n "${DB_SCHEMA:-}" ]; then set -- --schema "${DB_SCHEMA}" "$@"; fi
    exec node --enable-source-maps scripts/migrate.mjs "${SWITCHYARD_APP}" "$@" ;;
  operator)
    if [ "${SWITCHYARD_APP}" != gateway ]; then
      echo "entrypoint: the operator CLI ships in the gateway image only" >&2
      exit 64
    fi
    shift
    exec node --enable-source-maps apps/gateway/dist/cli/operator.js "$@" ;;
  "")
    exec node --enable-source-maps "${main}" ;;
  *)
    echo "entrypoint: unknown command '$1' (expected nothing, 'migrate' or 'operator')" >&2
    exit 64 ;;
esac

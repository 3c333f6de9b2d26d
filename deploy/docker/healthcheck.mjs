// Docker HEALTHCHECK probe: exits 0 when the process is ready, 1 otherwise (Kubernetes ignores
// HEALTHCHECK and uses its own probes on the same endpoints, see deploy/k8s).
// Apps: GET /readyz must answer 2xx; ready = PostgreSQL reachable, NATS connected, migrations
// applied. The gateway serves it on PORT (default 3000), contexts and the gateway's process roles
// (SWITCHYARD_ROLE=webhook-delivery or dead-letters) on HEALTH_PORT (8080 in images).
// Simulators depend on nothing, so any HTTP answer on PORT counts as healthy.
const app = process.env.SWITCHYARD_APP ?? '';
const simulatorPorts = { 'samsara-sim': '4101', 'motive-sim': '4102', 'geotab-sim': '4103' };
const isSimulator = app in simulatorPorts;

let port;
if (app === 'gateway' && !process.env.SWITCHYARD_ROLE) port = process.env.PORT || '3000';
else if (isSimulator) port = process.env.PORT || simulatorPorts[app];
else port = process.env.HEALTH_PORT || '8080';

if (port === '0') {
  console.error(`healthcheck: ${app} has its health port disabled (0); nothing to probe`);
  process.exit(1);
}

try {
  // 2 s, under the HEALTHCHECK --timeout of 3 s, so a hung server is reported as unhealthy here.
  const res = await fetch(`http://127.0.0.1:${port}${isSimulator ? '/healthz' : '/readyz'}`, { signal: AbortSignal.timeout(2000) });
  if (isSimulator || res.ok) process.exit(0);
  console.error(`healthcheck: ${app} answered ${res.status}`);
  process.exit(1);
} catch (error) {
  console.error(`healthcheck: ${app} on port ${port}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

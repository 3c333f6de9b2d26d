/**
 * The console's fleet map (the latest stored location of each of a connection's vehicles, drawn by
 * Leaflet over the bundled Natural Earth land outlines: map.js, no tile or font server) and a
 * vehicle's page (its latest telemetry and a 7-day utilization chart, drawn on the server as SVG
 * with a table beside it). The map's data travels in the page as JSON (no second request); every
 * vehicle is also listed in a table, so the page says the same without the map. A vehicle without a
 * stored location gets no marker and says "no location"; a day without observations is drawn as
 * "no data", never as a zero-height bar.
 */
import type { FleetLocationV1, TelemetryV1, UtilizationV1 } from '@switchyard/messaging';
import type { ConnectionOverviewRow } from '../../db/repositories/console.repository.js';
import type { ConsoleOperator } from '../console-auth.js';
import type { Read } from '../console-reads.js';
import { esc, page, problemNote, PROVIDER_NAMES, when } from './layout.js';

export interface MapVehicle {
  id: string;
  name: string;
  lat: number;
  lon: number;
  observedAt: string;
  status: string;
}

/** JSON inside a `<script type="application/json">`: `<` escaped so no value can close the element. */
const jsonIn = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function mapPage(operator: ConsoleOperator, c: ConnectionOverviewRow, locations: Read<FleetLocationV1[]>, names: ReadonlyMap<string, string>): string {
  const title = `Fleet map · ${c.customer_id}`;
  if (!locations.ok) return page({ title, nav: 'connections', operator, body: `<h1>${esc(title)}</h1>${problemNote('The locations', locations)}` });
  const nameOf = (id: string) => names.get(id) ?? id;
  const placed: MapVehicle[] = locations.value.flatMap((l) =>
    l.location.reading ? [{ id: l.vehicleId, name: nameOf(l.vehicleId), lat: l.location.reading.value.latitude, lon: l.location.reading.value.longitude, observedAt: l.location.reading.observedAt, status: l.location.status }] : [],
  );
  const rows = locations.value.map((l) => {
    const r = l.location.reading;
    const link = `<a href="/console/connections/${esc(c.id)}/vehicles/${esc(l.vehicleId)}">${esc(nameOf(l.vehicleId))}</a>`;
    return r
      ? `<tr><th scope="row">${link}</th><td>${esc(l.location.status)}</td><td>${r.value.latitude.toFixed(5)}, ${r.value.longitude.toFixed(5)}</td><td>${when(r.observedAt)}</td></tr>`
      : `<tr><th scope="row">${link}</th><td>${esc(l.location.status)}</td><td class="unknown">no location</td><td class="unknown">unknown</td></tr>`;
  });
  const body = `<h1>${esc(title)}</h1>
<p><a href="/console/connections/${esc(c.id)}">Back to the connection</a> · ${esc(PROVIDER_NAMES[c.provider] ?? c.provider)}</p>
<div id="fleet-map" class="map" role="region" aria-label="Map of ${placed.length} vehicle${placed.length === 1 ? '' : 's'} with a stored location" data-testid="fleet-map"></div>
<script type="application/json" id="fleet-data">${jsonIn({ connectionId: c.id, vehicles: placed })}</script>
<table class="grid" data-testid="fleet-table">
<caption>Latest stored location of each vehicle with stored telemetry (${locations.value.length}; ${placed.length} with a location)</caption>
<thead><tr><th scope="col">Vehicle</th><th scope="col">Status</th><th scope="col">Latitude, longitude</th><th scope="col">Observed</th></tr></thead>
<tbody>${rows.join('\n')}</tbody>
</table>`;
  return page({ title, nav: 'connections', operator, body, scripts: ['leaflet.js', 'map.js'], styles: ['leaflet.css'] });
}

const METRIC_LABELS: Record<string, string> = {
  location: 'Location',
  odometer: 'Odometer',
  engineHours: 'Engine hours',
  totalIdleTime: 'Total idle time',
  speed: 'Speed',
  heading: 'Heading',
  fuelPercent: 'Fuel',
  batteryVoltage: 'Battery voltage',
  engineState: 'Engine state',
};

function valueText(metric: string, value: unknown): string {
  const v = value as Record<string, number | string>;
  switch (metric) {
    case 'location':
      return `${Number(v.latitude).toFixed(5)}, ${Number(v.longitude).toFixed(5)}`;
    case 'odometer':
      return `${(Number(v.meters) / 1000).toFixed(1)} km`;
    case 'engineHours':
    case 'totalIdleTime':
      return `${(Number(v.seconds) / 3600).toFixed(1)} h`;
    case 'speed':
      return `${(Number(v.value) * 3.6).toFixed(1)} km/h`;
    case 'heading':
      return `${Number(v.value).toFixed(0)}°`;
    case 'fuelPercent':
      return `${v.value} %`;
    case 'batteryVoltage':
      return `${v.value} V`;
    case 'engineState':
      return String(v.state);
    default:
      return JSON.stringify(value);
  }
}

function telemetryTable(t: Read<TelemetryV1>): string {
  if (!t.ok) return problemNote('The latest telemetry', t);
  const rows = Object.entries(METRIC_LABELS).flatMap(([metric, label]) => {
    const s = t.value[metric as keyof TelemetryV1] as { status: string; reading: { value: unknown; observedAt: string; source: string } | null } | undefined;
    if (!s) return [];
    return [
      s.reading
        ? `<tr><th scope="row">${label}</th><td>${esc(s.status)}</td><td>${esc(valueText(metric, s.reading.value))}</td><td>${when(s.reading.observedAt)}</td><td><code>${esc(s.reading.source)}</code></td></tr>`
        : `<tr><th scope="row">${label}</th><td>${esc(s.status)}</td><td class="unknown">unknown</td><td class="unknown">never reported</td><td></td></tr>`,
    ];
  });
  return `<table class="grid" data-testid="telemetry">
<caption>Latest stored reading of each metric (no provider is contacted)</caption>
<thead><tr><th scope="col">Metric</th><th scope="col">Status</th><th scope="col">Value</th><th scope="col">Observed</th><th scope="col">Source</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

/** Engine runtime per day as SVG bars (hours), with the same figures in a table. */
function utilizationChart(u: Read<UtilizationV1>): string {
  if (!u.ok) return problemNote('The utilization', u);
  const days = u.value.engineRuntime.intervals ?? [];
  const [W, H, PAD, BAR] = [560, 200, 32, 56];
  const max = Math.max(1, ...days.map((d) => (d.amount ?? 0) / 3600));
  const bars = days.map((d, i) => {
    const x = PAD + i * ((W - PAD) / Math.max(1, days.length));
    const label = d.startTime.slice(5, 10);
    if (d.amount === null) {
      return `<g><rect x="${x.toFixed(1)}" y="${PAD}" width="${BAR}" height="${H - 2 * PAD}" class="bar-unknown"/><text x="${(x + BAR / 2).toFixed(1)}" y="${H / 2}" text-anchor="middle" class="bar-note">no data</text><text x="${(x + BAR / 2).toFixed(1)}" y="${H - 10}" text-anchor="middle">${label}</text></g>`;
    }
    const hours = d.amount / 3600;
    const h = Math.max(1, (hours / max) * (H - 2 * PAD));
    return `<g><rect x="${x.toFixed(1)}" y="${(H - PAD - h).toFixed(1)}" width="${BAR}" height="${h.toFixed(1)}" class="bar"/><text x="${(x + BAR / 2).toFixed(1)}" y="${(H - PAD - h - 4).toFixed(1)}" text-anchor="middle">${hours.toFixed(1)} h</text><text x="${(x + BAR / 2).toFixed(1)}" y="${H - 10}" text-anchor="middle">${label}</text></g>`;
  });
  const rows = days.map((d) => `<tr><th scope="row">${esc(d.startTime.slice(0, 10))}</th><td>${d.amount === null ? '<span class="unknown">no data</span>' : `${(d.amount / 3600).toFixed(2)} h`}</td></tr>`);
  const pct = u.value.engineOnPercentOfObservedTime;
  return `<figure class="chart" data-testid="utilization">
<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-labelledby="util-title"><title id="util-title">Engine runtime per day, last 7 days (UTC); a day without observations shows no data</title>${bars.join('')}</svg>
<figcaption>Engine runtime per UTC day. Engine on ${pct === null ? '<span class="unknown">unknown (nothing observed)</span>' : `${pct.toFixed(1)} % of observed time`}; runtime ${esc(u.value.engineRuntime.status)}, coverage ${(u.value.engineRuntime.coverageSeconds / 3600).toFixed(1)} h observed.</figcaption>
</figure>
<table class="grid"><caption>Engine runtime per day</caption><thead><tr><th scope="col">Day (UTC)</th><th scope="col">Engine runtime</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

export function vehiclePage(operator: ConsoleOperator, c: ConnectionOverviewRow, vehicleId: string, name: string | undefined, telemetry: Read<TelemetryV1>, utilization: Read<UtilizationV1>): string {
  const title = name ?? vehicleId;
  const body = `<h1>${esc(title)}</h1>
<p><a href="/console/connections/${esc(c.id)}/map">Back to the fleet map</a> · <code>${esc(vehicleId)}</code> · ${esc(c.customer_id)}</p>
<h2>Latest telemetry</h2>
${telemetryTable(telemetry)}
<h2>Utilization, last 7 days</h2>
${utilizationChart(utilization)}`;
  return page({ title, nav: 'connections', operator, body });
}

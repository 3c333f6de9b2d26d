/**
 * The console's sign-in page, the connections overview and one connection's page (its runs with
 * units by state, refreshed live by console.js from runs.json, and their recent errors). Statuses
 * come with their reason: an operator's `--reason`, a connect session waiting for activation, or
 * "no reason recorded" — never a guessed one. Freshness per signal comes from the freshness read
 * (telemetry.read.freshness, the read behind GET /v1/connections/{id}/freshness): every figure it
 * could not compute is shown as unknown with its reason, and a failed read says why — never a zero.
 */
import type { ConnectionFreshnessV1, OperatorRunV1, SignalFreshnessV1 } from '@switchyard/messaging';
import type { ConnectionOverviewRow } from '../../db/repositories/console.repository.js';
import type { ConsoleOperator } from '../console-auth.js';
import type { Read } from '../console-reads.js';
import { badge, esc, page, problemNote, PROVIDER_NAMES, when } from './layout.js';

/** What the common reason codes mean to an operator (the code itself is always shown). */
const REASONS: Record<string, string> = {
  provider_throttled: 'the provider rate-limited us; collection backs off and retries',
  provider_unavailable: 'the provider did not answer or answered 5xx; retried',
  provider_auth_required: 'the provider refused the credentials: reconnect the account',
  provider_scope_mismatch: 'the provider refused these fields for this account',
  provider_config_invalid: 'the connection has no usable provider credentials',
  bus_unavailable: 'the message bus refused or could not be reached; retried',
  collector_error: 'an unexpected collector failure; retried',
  cancelled: 'cancelled through the API',
};

export function reasonText(code: string): string {
  const meaning = REASONS[code];
  return `<code>${esc(code)}</code>${meaning ? ` <span class="meaning">${esc(meaning)}</span>` : ''}`;
}

/** A connection's status with its reason. */
export function statusCell(c: ConnectionOverviewRow): string {
  const status = c.config.status;
  const tone = status === 'active' ? 'ok' : status === 'paused' ? 'warn' : 'muted';
  const why =
    c.status_reason ??
    (c.activation_pending ? 'a completed connect session waits for its activation policy (npm run operator -- connection:activate)' : status === 'active' ? undefined : 'no reason recorded');
  const gate = status === 'active' && !c.config.unifiedCollection ? '<div class="reason">collection gate closed (unified collection off)</div>' : '';
  return `${badge(status, tone)}${why ? `<div class="reason" data-testid="status-reason">Reason: ${esc(why)}${c.status_changed_at ? `, ${when(c.status_changed_at)}` : ''}</div>` : ''}${gate}`;
}

/** A figure of the freshness read: its value, or unknown with the reason (never a zero). */
function figureCell<F extends { status: string }>(f: F, render: (known: Extract<F, { status: 'available' }>) => string): string {
  if (f.status === 'available') return render(f as Extract<F, { status: 'available' }>);
  const { status, reason } = f as unknown as { status: 'missing' | 'unsupported'; reason: string };
  return `<span class="unknown">${status === 'unsupported' ? 'not kept' : 'unknown'} (${esc(reason)})</span>`;
}
const age = (s: number) => esc(formatSeconds(s));

function signalStatus(s: SignalFreshnessV1): string {
  const tone = s.status === 'available' ? 'ok' : s.status === 'stale' ? 'warn' : 'muted';
  return `${badge(s.status, tone)}${s.reason ? ` <code>${esc(s.reason)}</code>` : ''}`;
}

/** One line per signal for the overview: status and data age p95 (the connection's page has every figure). */
function freshnessCell(c: ConnectionOverviewRow, freshness: Read<ConnectionFreshnessV1> | undefined): string {
  if (c.config.selectedSignals.length === 0) return '<span class="unknown">no signal selected</span>';
  if (!freshness) return '<span class="unknown">not read here: open the connection</span>';
  if (!freshness.ok) return `<span class="unknown">unknown (<code>${esc(freshness.problem)}</code>)</span>`;
  const items = freshness.value.signals.map(
    (s) => `<li data-signal="${esc(s.signal)}"><span class="signal">${esc(s.signal)}</span>: ${signalStatus(s)}${s.dataAge.status === 'available' ? `, p95 age ${age(s.dataAge.p95Seconds)}` : ''}</li>`,
  );
  return items.length ? `<ul class="plain">${items.join('')}</ul>` : '<span class="unknown">no signal collected</span>';
}

/** Every figure of the freshness read, a row per signal. */
export function freshnessTable(freshness: Read<ConnectionFreshnessV1>): string {
  if (!freshness.ok) return problemNote('Data freshness', freshness);
  const f = freshness.value;
  if (f.signals.length === 0) return '<p data-testid="freshness">The connection collects no signal.</p>';
  const rows = f.signals.map(
    (s) => `<tr data-signal="${esc(s.signal)}">
<th scope="row">${esc(s.signal)}</th>
<td data-field="status">${signalStatus(s)}</td>
<td data-field="dataAge">${figureCell(s.dataAge, (d) => `newest ${age(d.newestSeconds)}, p50 ${age(d.p50Seconds)}, p95 ${age(d.p95Seconds)}, oldest ${age(d.maxSeconds)} (${d.vehicles} vehicles)`)}</td>
<td data-field="providerLag">${figureCell(s.providerLag, (d) => `p50 ${age(d.p50Seconds)}, p95 ${age(d.p95Seconds)} (${d.readings} readings)`)}</td>
<td data-field="pipelineLag">${figureCell(s.pipelineLag, (d) => `p50 ${d.p50Seconds.toFixed(3)} s, p95 ${d.p95Seconds.toFixed(3)} s`)}</td>
<td data-field="sampleInterval">${figureCell(s.sampleInterval, (d) => `median ${age(d.medianSeconds)} (${d.gaps} gaps)`)}</td>
<td data-field="coverage">${figureCell(s.coverage, (d) => `${d.vehiclesReporting} of ${d.vehicles} (${Math.round(d.ratio * 100)} %)`)}</td>
</tr>`,
  );
  return `<table class="grid" data-testid="freshness">
<caption>Measured at ${when(f.measuredAt)} over ${f.vehicles} vehicle${f.vehicles === 1 ? '' : 's'}; a signal is stale when its data age p95 passes ${age(f.dataAgeBoundSeconds)} (collection every ${age(f.collectionIntervalSeconds)} + 60 s)</caption>
<thead><tr><th scope="col">Signal</th><th scope="col">Status</th><th scope="col">Data age</th><th scope="col">Provider lag</th><th scope="col">Pipeline lag</th><th scope="col">Sample interval</th><th scope="col">Coverage (last interval)</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>`;
}

export function formatSeconds(s: number): string {
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}

function healthCell(c: ConnectionOverviewRow): string {
  const extended = c.config.optIns.extendedTelemetry
    ? `<div>extended: ${when(c.extended_last_success_at, 'no extended reading collected yet')}</div>`
    : '';
  return `<div>core: ${when(c.last_success_at, 'no collection succeeded yet')}</div>${extended}`;
}

function errorCell(c: ConnectionOverviewRow): string {
  const errors = [
    c.last_error_code ? `<div>core: ${reasonText(c.last_error_code)}</div>` : '',
    c.extended_last_error_code ? `<div>extended: ${reasonText(c.extended_last_error_code)}${c.extended_next_retry_at ? `, next try ${when(c.extended_next_retry_at)}` : ''}</div>` : '',
  ].join('');
  return errors || '<span class="muted">none</span>';
}

export function signInPage(csrf: string, problem?: string): string {
  const error = problem
    ? `<div class="problem" role="alert" id="sign-in-error">${esc(problem === 'csrf_invalid' ? 'The sign-in form expired: please sign in again.' : 'That is not a valid operator credential.')}</div>`
    : '';
  return page({
    title: 'Sign in',
    nav: 'none',
    body: `<h1>Sign in</h1>
<p>Use an operator credential (<code>op_…</code>) issued with <code>npm run operator -- operator:create --name &lt;you&gt;</code>. Consumer keys and application secrets do not sign in here.</p>
${error}
<form method="post" action="/console/sign-in" class="card">
<input type="hidden" name="csrf" value="${esc(csrf)}">
<label for="credential">Operator credential</label>
<input id="credential" name="credential" type="password" autocomplete="off" required${problem ? ' aria-invalid="true" aria-describedby="sign-in-error"' : ''}>
<div class="actions"><button type="submit" class="btn btn-primary">Sign in</button></div>
</form>`,
  });
}

export function connectionsPage(operator: ConsoleOperator, rows: readonly ConnectionOverviewRow[], freshness: ReadonlyMap<string, Read<ConnectionFreshnessV1>>): string {
  const body = rows.length
    ? `<table class="grid" data-testid="connections">
<caption>Every connection of this deployment (${rows.length})</caption>
<thead><tr><th scope="col">Connection</th><th scope="col">Provider</th><th scope="col">Status</th><th scope="col">Last success</th><th scope="col">Last error</th><th scope="col">Selected signals</th><th scope="col">Data freshness</th></tr></thead>
<tbody>
${rows
  .map(
    (c) => `<tr data-connection="${esc(c.id)}">
<th scope="row"><a href="/console/connections/${esc(c.id)}">${esc(c.customer_id)}</a><div class="id"><code>${esc(c.id)}</code> · ${esc(c.environment)}</div></th>
<td>${esc(PROVIDER_NAMES[c.provider] ?? c.provider)}</td>
<td data-field="status">${statusCell(c)}</td>
<td>${healthCell(c)}</td>
<td>${errorCell(c)}</td>
<td>${c.config.selectedSignals.length ? esc(c.config.selectedSignals.join(', ')) : '<span class="unknown">none</span>'}</td>
<td>${freshnessCell(c, freshness.get(c.id))}</td>
</tr>`,
  )
  .join('\n')}
</tbody></table>`
    : '<p>No connection yet: create one with <code>npm run operator -- connection:create</code>.</p>';
  return page({ title: 'Connections', nav: 'connections', operator, body: `<h1>Connections</h1>\n${body}` });
}

const UNIT_STATES: readonly [keyof OperatorRunV1['units'], string][] = [
  ['queued', 'Queued'],
  ['collecting', 'Collecting'],
  ['retrying', 'Retrying'],
  ['awaitingReceipts', 'Awaiting receipts'],
  ['receipted', 'Done'],
];

function runRow(run: OperatorRunV1): string {
  const tone = run.status === 'completed' ? 'ok' : run.status === 'failed' ? 'bad' : 'warn';
  const errors = run.errors.length
    ? `<ul class="plain">${run.errors.map((e) => `<li>unit ${e.seq} (${esc(e.purpose)}${e.vehicleSourceId ? `, vehicle ${esc(e.vehicleSourceId)}` : ''}): ${reasonText(e.code)}${e.errorAttempts ? `, ${e.errorAttempts} failed lease${e.errorAttempts === 1 ? '' : 's'}` : ''}</li>`).join('')}</ul>`
    : '';
  const failure = run.failureReason ? `<div>Failed: ${reasonText(run.failureReason)}</div>` : '';
  return `<tr data-run="${esc(run.id)}" data-status="${esc(run.status)}">
<th scope="row"><code>${esc(run.id)}</code><div class="muted">${esc(run.origin === 'api' ? 'API sync' : `${run.origin} run`)} · ${esc(run.purposes.join(', '))}</div></th>
<td>${when(run.requestedAt)}</td>
<td data-field="status">${badge(run.status, tone)}</td>
<td><progress max="100" value="${run.progress}" aria-label="Progress of ${esc(run.id)}">${run.progress}%</progress> <span data-field="progress">${run.progress}</span>%</td>
${UNIT_STATES.map(([state]) => `<td data-state="${state}">${run.units[state]}</td>`).join('')}
<td data-field="errors">${failure}${errors || (failure ? '' : '<span class="muted">none</span>')}</td>
</tr>`;
}

export function runsTable(runs: Read<OperatorRunV1[]>): string {
  if (!runs.ok) return problemNote('The runs', runs);
  if (runs.value.length === 0) return '<p data-testid="runs">No run yet.</p>';
  return `<table class="grid" data-testid="runs">
<caption>Newest runs, public syncs and scheduled collection (units by state; refreshed every few seconds while one is open)</caption>
<thead><tr><th scope="col">Run</th><th scope="col">Requested</th><th scope="col">Status</th><th scope="col">Progress</th>${UNIT_STATES.map(([, label]) => `<th scope="col">${label}</th>`).join('')}<th scope="col">Errors</th></tr></thead>
<tbody>
${runs.value.map(runRow).join('\n')}
</tbody></table>`;
}

export function connectionPage(operator: ConsoleOperator, c: ConnectionOverviewRow, runs: Read<OperatorRunV1[]>, freshness: Read<ConnectionFreshnessV1>): string {
  const body = `<h1>${esc(c.customer_id)} <small class="muted">${esc(PROVIDER_NAMES[c.provider] ?? c.provider)}</small></h1>
<p><a href="/console/connections/${esc(c.id)}/map">Fleet map and vehicles</a></p>
<dl class="facts">
<dt>Connection</dt><dd><code>${esc(c.id)}</code> (${esc(c.environment)})</dd>
<dt>Status</dt><dd data-testid="connection-status">${statusCell(c)}</dd>
<dt>Last success</dt><dd>${healthCell(c)}</dd>
<dt>Last error</dt><dd>${errorCell(c)}</dd>
<dt>Selected signals</dt><dd>${c.config.selectedSignals.length ? esc(c.config.selectedSignals.join(', ')) : '<span class="unknown">none</span>'}</dd>
</dl>
<h2>Data freshness</h2>
${freshnessTable(freshness)}
<h2>Runs</h2>
<div id="runs" data-runs-url="/console/connections/${esc(c.id)}/runs.html">
${runsTable(runs)}
</div>`;
  return page({ title: c.customer_id, nav: 'connections', operator, body });
}

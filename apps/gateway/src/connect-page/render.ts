/**
 * The connect page's HTML, rendered on the server (decision 0022): one self-contained document per
 * answer — inline CSS, no script, no external asset — so it works offline, on a phone, and with the
 * keyboard alone (native controls, labels on every field, visible focus, an error summary that links
 * to each field). Every interpolated value goes through `esc`. No rendering ever receives a
 * credential: a re-shown form carries back only the non-secret fields.
 */
import { SELECTED_SIGNALS } from '@switchyard/domain';
import type { EnrollmentMethod } from '@switchyard/messaging';
import type { SessionRow } from '../db/repositories/connect-session.repository.js';
import type { DeadReason, FieldProblem, PageContext } from '../services/connect-session.service.js';
import { DISCLOSURE_POINTS, DISCLOSURE_VERSION, SIGNAL_TEXT } from './disclosure.js';

const PROVIDER_NAMES = { samsara: 'Samsara', motive: 'Motive', geotab: 'Geotab' } as const;

export function esc(value: string): string {
  const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  return value.replace(/[&<>"']/g, (c) => entities[c] ?? c);
}

const CSS = `
:root{color-scheme:light;--ink:#1a1a1a;--muted:#4a4a4a;--line:#8a8a8a;--accent:#0b57d0;--bad:#b3261e;--ok:#146c2e;--bg:#f6f7f9}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
main{max-width:40rem;margin:0 auto;padding:1rem}
.card{background:#fff;border:1px solid #d0d4da;border-radius:8px;padding:1rem 1.25rem;margin:1rem 0}
h1{font-size:1.5rem;margin:.5rem 0}
h2{font-size:1.15rem;margin:.25rem 0 .5rem}
p,li{max-width:36rem}
.muted{color:var(--muted)}
fieldset{border:1px solid #d0d4da;border-radius:6px;margin:0 0 1rem;padding:.75rem 1rem}
legend{font-weight:600;padding:0 .25rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
.check{display:flex;gap:.6rem;align-items:flex-start;margin:.5rem 0;font-weight:400}
.check input{width:1.25rem;height:1.25rem;margin-top:.15rem;flex:none}
.check span small{display:block;color:var(--muted)}
input[type=text],input[type=password],input[type=url]{width:100%;padding:.6rem;font:inherit;border:1px solid var(--line);border-radius:4px}
input[aria-invalid=true]{border:2px solid var(--bad)}
.hint{color:var(--muted);font-size:.95rem;margin:.1rem 0}
.field-error{color:var(--bad);font-weight:600;margin:.25rem 0}
.errors{border:2px solid var(--bad);border-radius:6px;padding:.75rem 1rem;background:#fff}
.errors a{color:var(--bad)}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1rem}
button{font:inherit;font-weight:600;padding:.7rem 1.2rem;border-radius:6px;border:2px solid var(--accent);cursor:pointer;min-height:44px}
button.primary{background:var(--accent);color:#fff}
button.secondary{background:#fff;color:var(--accent)}
:focus-visible{outline:3px solid #f9a825;outline-offset:2px}
.status-ok{color:var(--ok)}
.status-bad{color:var(--bad)}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
dt{font-weight:600}
@media (max-width:30rem){main{padding:.5rem}.card{padding:.75rem}.actions button{width:100%}}
`;

/** The opening of every server-rendered page (the connect page's and the operator console's): language, charset, viewport, no referrer, the title. */
export function documentHead(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>`;
}

function layout(title: string, body: string): string {
  return `${documentHead(`${title} · Switchyard`)}
<style>${CSS}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

export interface FormValues {
  method?: string;
  signals: string[];
  database?: string;
  userName?: string;
  server?: string;
}

function fieldError(problems: readonly FieldProblem[], field: string): string {
  const problem = problems.find((p) => p.field === field);
  return problem ? `<p class="field-error" id="${field}-error">${esc(problem.message)}</p>` : '';
}

function describedBy(problems: readonly FieldProblem[], field: string, hint?: string): string {
  const ids = [hint, problems.some((p) => p.field === field) ? `${field}-error` : undefined].filter(Boolean);
  const invalid = problems.some((p) => p.field === field) ? ' aria-invalid="true"' : '';
  return `${ids.length ? ` aria-describedby="${ids.join(' ')}"` : ''}${invalid}`;
}

function textField(problems: readonly FieldProblem[], field: string, label: string, options: { type?: string; value?: string; hint?: string; autocomplete: string }): string {
  const hintId = options.hint ? `${field}-hint` : undefined;
  return `<label for="${field}">${esc(label)}</label>
${options.hint ? `<p class="hint" id="${hintId}">${esc(options.hint)}</p>` : ''}
${fieldError(problems, field)}
<input type="${options.type ?? 'text'}" id="${field}" name="${field}" autocomplete="${options.autocomplete}" spellcheck="false" autocapitalize="off"${options.value ? ` value="${esc(options.value)}"` : ''}${describedBy(problems, field, hintId)}>`;
}

function methodFields(method: EnrollmentMethod, page: PageContext, problems: readonly FieldProblem[], values: FormValues): string {
  if (method === 'api_token') {
    return `<fieldset><legend>Samsara API token</legend>
${textField(problems, 'apiToken', 'API token', { type: 'password', autocomplete: 'off', hint: 'Create a read-only token in the Samsara dashboard under Settings → API Tokens.' })}
</fieldset>`;
  }
  if (method === 'oauth') {
    const provider = PROVIDER_NAMES[page.connection.provider];
    return `<fieldset><legend>Sign in with ${esc(provider)}</legend>
<p class="hint">You will be sent to ${esc(provider)} to sign in and approve read access, then brought back here. Your ${esc(provider)} password is never entered on this page.</p>
</fieldset>`;
  }
  if (method === 'service_account') {
    return `<fieldset><legend>MyGeotab service account</legend>
${textField(problems, 'database', 'Database', { value: values.database ?? page.binding?.database ?? '', autocomplete: 'off' })}
${textField(problems, 'userName', 'User name', { value: values.userName, autocomplete: 'username', hint: 'A dedicated service account with minimal clearance, not a person’s login.' })}
${textField(problems, 'password', 'Password', { type: 'password', autocomplete: 'current-password' })}
${textField(problems, 'server', 'Server', { value: values.server ?? page.binding?.server ?? '', autocomplete: 'off' })}
</fieldset>`;
  }
  return '';
}

const METHOD_LABELS: Record<EnrollmentMethod, string> = { api_token: 'Enter an API token', oauth: 'Sign in with the provider (OAuth)', service_account: 'Service account' };

export function renderForm(page: PageContext, problems: readonly FieldProblem[] = [], values: FormValues = { signals: [] }): string {
  const provider = PROVIDER_NAMES[page.connection.provider];
  const summary = problems.length
    ? `<div class="errors" role="alert" aria-labelledby="errors-title" tabindex="-1" id="errors"><h2 id="errors-title">Please correct ${problems.length === 1 ? 'this' : 'these'}:</h2><ul>${problems
        .map((p) => `<li><a href="#${p.field === 'signals' ? 'signal-odometer' : p.field === 'method' ? 'method-group' : p.field}">${esc(p.message)}</a></li>`)
        .join('')}</ul></div>`
    : '';
  const signals = SELECTED_SIGNALS.map(
    (s) =>
      `<label class="check" for="signal-${s}"><input type="checkbox" id="signal-${s}" name="signals" value="${s}"${values.signals.includes(s) ? ' checked' : ''}><span>${esc(SIGNAL_TEXT[s].label)}<small>${esc(SIGNAL_TEXT[s].detail)}</small></span></label>`,
  ).join('\n');
  const only = page.methods.length === 1 ? page.methods[0] : undefined;
  const methods = only
      ? `<input type="hidden" name="method" value="${only}">${methodFields(only, page, problems, values)}`
      : `<fieldset id="method-group"><legend>How do you want to connect?</legend>${fieldError(problems, 'method')}${page.methods
          .map((m) => `<label class="check" for="method-${m}"><input type="radio" id="method-${m}" name="method" value="${m}"${values.method === m ? ' checked' : ''}><span>${esc(METHOD_LABELS[m])}</span></label>`)
          .join('')}</fieldset>${page.methods.map((m) => methodFields(m, page, problems, values)).join('')}`;
  return layout(
    `Connect your ${provider} account`,
    `<h1>Connect your ${esc(provider)} account</h1>
${summary}
<section class="card" aria-labelledby="who">
<h2 id="who">Who is asking</h2>
<p><strong>${esc(page.requester)}</strong>, an application using Switchyard, asks to read data from the ${esc(provider)} account of <strong>${esc(page.connection.customer_id)}</strong>.</p>
<p class="muted">This link is for you alone and works once, until ${esc(page.session.expires_at.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC'))}.</p>
</section>
<form method="post" novalidate>
<input type="hidden" name="csrf" value="${esc(page.csrf)}">
<section class="card" aria-labelledby="what">
<h2 id="what">What will be shared</h2>
<ul>${DISCLOSURE_POINTS.map((p) => `<li>${esc(p)}</li>`).join('')}</ul>
<p class="muted">Disclosure version ${esc(DISCLOSURE_VERSION)}.</p>
<fieldset${describedBy(problems, 'signals')}><legend>Signals to share (one to four)</legend>
${fieldError(problems, 'signals')}
${signals}
</fieldset>
</section>
<section class="card" aria-labelledby="how">
<h2 id="how">Your ${esc(provider)} credentials</h2>
${methods}
${fieldError(problems, 'accept')}
<label class="check" for="accept"><input type="checkbox" id="accept" name="accept" value="yes"${describedBy(problems, 'accept')}><span>I have read what will be shared and I authorize it.</span></label>
<div class="actions">
<button type="submit" class="primary" name="action" value="connect">${page.methods.length === 1 && page.methods[0] === 'oauth' ? `Continue to ${esc(provider)}` : 'Connect account'}</button>
<button type="submit" class="secondary" name="action" value="decline" formnovalidate>Decline</button>
</div>
</section>
</form>`,
  );
}

const DEAD_TEXT: Record<DeadReason | 'forbidden', { title: string; text: string }> = {
  unknown: { title: 'Link not found', text: 'This link does not exist. Ask the requester for a new one.' },
  expired: { title: 'Link expired', text: 'This link was valid for ten minutes and has expired. Ask the requester for a new one.' },
  used: { title: 'Link already used', text: 'This link has already been used. Each link works once; ask the requester for a new one if you need to connect again.' },
  cancelled: { title: 'Request declined', text: 'You declined this request. Nothing was shared. You can close this page.' },
  unavailable: { title: 'Link no longer available', text: 'This connection cannot be authorized right now. Ask the requester for a new link.' },
  forbidden: { title: 'Form not accepted', text: 'The form could not be verified (it may be from another page). Open the link again and retry.' },
};

export function renderDead(reason: DeadReason | 'forbidden'): string {
  const t = DEAD_TEXT[reason];
  return layout(t.title, `<h1>${esc(t.title)}</h1><section class="card"><p>${esc(t.text)}</p></section>`);
}

export function renderComplete(session: SessionRow): string {
  const signals = (session.selected_signals ?? []).map((s) => SIGNAL_TEXT[s as keyof typeof SIGNAL_TEXT]?.label ?? s).join(', ');
  return layout(
    'Account connected',
    `<h1 class="status-ok">Account connected</h1>
<section class="card"><p>Your account was verified with the provider. Your credentials are stored encrypted and will not be shown again.</p>
<dl><dt>Shared signals</dt><dd>${esc(signals)}</dd><dt>Disclosure</dt><dd>version ${esc(session.disclosure_version ?? '')}</dd></dl>
<p class="muted">Collection starts once the requester activates it. You can close this page.</p></section>`,
  );
}

const FAILURE_TEXT: Record<string, string> = {
  provider_auth_required: 'Your provider did not accept these credentials.',
  provider_scope_mismatch: 'These credentials do not allow reading the vehicles of the account.',
  provider_throttled: 'Your provider is busy right now.',
  provider_unavailable: 'Your provider could not be reached.',
};

export function renderFailed(reason: string): string {
  return layout(
    'Connection failed',
    `<h1 class="status-bad">Connection failed</h1><section class="card"><p>${esc(FAILURE_TEXT[reason] ?? 'The account could not be connected.')} Nothing was stored.</p><p>This link has been used; ask the requester for a new one to try again.</p></section>`,
  );
}

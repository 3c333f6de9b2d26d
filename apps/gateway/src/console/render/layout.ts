/**
 * The console's page frame and the small pieces every page shares (decision 0044): one
 * server-rendered HTML document per answer, styled by /console/assets/console.css, scripted only by
 * /console/assets/*.js from this origin (the CSP allows nothing else), with a skip link, one `main`
 * landmark, a navigation list and headings in order, so it reads with a keyboard and a screen reader.
 * Every interpolated value goes through `esc`. Times are shown as RFC 3339 UTC with their age;
 * an unknown value is written as "unknown" with its reason, never as a zero.
 */
import { documentHead, esc } from '../../connect-page/render.js';
import type { ConsoleOperator } from '../console-auth.js';

export { esc };

export const PROVIDER_NAMES: Record<string, string> = { samsara: 'Samsara', motive: 'Motive', geotab: 'Geotab' };

const NAV = [
  ['connections', '/console/connections', 'Connections'],
  ['dead-letters', '/console/dead-letters', 'Dead letters'],
] as const;

export type NavKey = (typeof NAV)[number][0] | 'none';

/** "3 min ago" style age of an instant relative to `now` (ms); future instants say "in …". */
export function age(iso: string, now = Date.now()): string {
  const ms = now - Date.parse(iso);
  const abs = Math.abs(ms);
  const [n, unit] =
    abs < 60_000 ? [Math.round(abs / 1000), 's'] : abs < 3_600_000 ? [Math.round(abs / 60_000), 'min'] : abs < 86_400_000 ? [Math.round(abs / 3_600_000), 'h'] : [Math.round(abs / 86_400_000), 'd'];
  return ms >= 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
}

/** An instant with its age, in a `<time>` element; `unknown` (with why) when absent. */
export function when(iso: string | null | undefined, unknownWhy = 'never recorded', now = Date.now()): string {
  if (!iso) return `<span class="unknown">unknown <small>(${esc(unknownWhy)})</small></span>`;
  return `<time datetime="${esc(iso)}" title="${esc(iso)}">${esc(age(iso, now))}</time>`;
}

export function badge(text: string, tone: 'ok' | 'warn' | 'bad' | 'muted'): string {
  return `<span class="badge badge-${tone}">${esc(text)}</span>`;
}

/** A problem block a page shows where a read failed. */
export function problemNote(what: string, problem: { problem: string; detail: string }): string {
  return `<div class="problem" role="status"><strong>${esc(what)} could not be read:</strong> <code>${esc(problem.problem)}</code> — ${esc(problem.detail)}</div>`;
}

/** A POST form of one button, carrying the session's CSRF token. */
export function actionForm(action: string, label: string, csrf: string, tone: 'primary' | 'secondary' | 'danger' = 'secondary', accessibleName = label): string {
  return `<form method="post" action="${esc(action)}" class="inline"><input type="hidden" name="csrf" value="${esc(csrf)}"><button type="submit" class="btn btn-${tone}" aria-label="${esc(accessibleName)}">${esc(label)}</button></form>`;
}

export interface PageOptions {
  title: string;
  nav: NavKey;
  operator?: ConsoleOperator;
  body: string;
  /** Extra script files from /console/assets (the map page's Leaflet). */
  scripts?: readonly string[];
  styles?: readonly string[];
  /** A one-line outcome of the last action (replayed, discarded…), announced politely. */
  flash?: string;
}

export function page(options: PageOptions): string {
  const nav = NAV.map(([key, href, label]) => `<li><a href="${href}"${options.nav === key ? ' aria-current="page"' : ''}>${label}</a></li>`).join('');
  const styles = ['console.css', ...(options.styles ?? [])].map((s) => `<link rel="stylesheet" href="/console/assets/${esc(s)}">`).join('\n');
  const scripts = [...(options.scripts ?? []), 'console.js'].map((s) => `<script src="/console/assets/${esc(s)}" defer></script>`).join('\n');
  const who = options.operator
    ? `<div class="who"><span>Signed in as <strong>${esc(options.operator.operatorName)}</strong></span>${actionForm('/console/sign-out', 'Sign out', options.operator.csrf)}</div>`
    : '';
  return `${documentHead(`${options.title} · Switchyard console`)}
${styles}
${scripts}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<span class="brand">Switchyard console</span>
${options.operator ? `<nav aria-label="Console"><ul>${nav}</ul></nav>` : ''}
${who}
</header>
<main id="main">
${options.flash ? `<p class="flash" role="status">${esc(options.flash)}</p>` : ''}
${options.body}
</main>
</body>
</html>`;
}

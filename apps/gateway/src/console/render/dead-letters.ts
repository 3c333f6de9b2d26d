/**
 * The console's dead-letter page: every dead letter of the DLQ stream with its reason, original
 * subject, consumer and age, and one replay and one discard button each (POST with the session's
 * CSRF token; the same engine as `npm run dlq`, run by the gateway's dead-letter role, decision
 * 0046). No payload reaches this page — the role's list carries only its size; the CLI's `inspect`
 * prints one on purpose.
 */
import type { DeadLetterSummaryV1 } from '@switchyard/messaging';
import type { ConsoleOperator } from '../console-auth.js';
import type { Read } from '../console-reads.js';
import { reasonText } from './connections.js';
import { actionForm, age, esc, page, problemNote } from './layout.js';

export function deadLettersPage(operator: ConsoleOperator, letters: Read<DeadLetterSummaryV1[]>, limit: number, flash?: string): string {
  let body: string;
  if (!letters.ok) body = problemNote('The dead letters', letters);
  else if (letters.value.length === 0) body = '<p data-testid="dead-letters-empty">No dead letter: every consumer handled what it was given.</p>';
  else {
    const rows = letters.value.map(({ seq, storedAt, envelope: e, payloadBytes }) => {
      const label = `dead letter ${seq} (${e.originalSubject})`;
      return `<tr data-seq="${seq}">
<th scope="row">${seq}</th>
<td>${reasonText(e.reason)}${e.detail ? `<div class="detail">${esc(e.detail)}</div>` : ''}</td>
<td><code>${esc(e.originalSubject)}</code><div class="muted">stream ${esc(e.stream)}, message ${e.streamSequence}</div></td>
<td><code>${esc(e.consumer)}</code><div class="muted">${e.deliveryCount} deliver${e.deliveryCount === 1 ? 'y' : 'ies'}</div></td>
<td><time datetime="${esc(storedAt)}" title="${esc(storedAt)}">${esc(age(storedAt).replace(' ago', ''))}</time></td>
<td>${payloadBytes} bytes</td>
<td class="actions-cell">${actionForm(`/console/dead-letters/${seq}/replay`, 'Replay', operator.csrf, 'primary', `Replay ${label}`)}${actionForm(`/console/dead-letters/${seq}/discard`, 'Discard', operator.csrf, 'danger', `Discard ${label}`)}</td>
</tr>`;
    });
    body = `<table class="grid" data-testid="dead-letters">
<caption>Dead letters, oldest first${letters.value.length >= limit ? ` (the first ${limit}; replay or discard to see more, or use npm run dlq -- list)` : ` (${letters.value.length})`}</caption>
<thead><tr><th scope="col">Sequence</th><th scope="col">Reason</th><th scope="col">Subject</th><th scope="col">Consumer</th><th scope="col">Age</th><th scope="col">Payload</th><th scope="col">Action</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
<p class="muted">Replay publishes the original message to its subject again (every consumer of it sees it; they are idempotent) and removes the dead letter; discard removes it without publishing.</p>`;
  }
  return page({ title: 'Dead letters', nav: 'dead-letters', operator, flash, body: `<h1>Dead letters</h1>\n${body}` });
}

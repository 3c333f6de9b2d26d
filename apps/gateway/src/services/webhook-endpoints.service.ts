/**
 * An application's webhook endpoints (decision 0042): create, list, read, change (URL, event
 * types, description, enabled), delete, rotate the signing secret, read the delivery log, replay.
 * One implementation for the API routes (controllers/webhook-endpoints.controller.ts) and the
 * operator CLI (cli/webhook-commands.ts).
 * Invariants: every call names the application and finds only its endpoints (another's id is
 * `not_found`, like an unknown one); a URL is accepted only when the deployment's egress policy
 * would send to it (production: https, a host name, no user information — the addresses are
 * checked at each attempt); a secret is returned only by create and rotate, and stored sealed;
 * each change is one transaction under the endpoint's row lock, so a rotation never loses a secret.
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../http/api-error.js';
import type { ErrorDetail } from '../http/error-detail.js';
import { inTransaction, type Orm } from '@switchyard/persistence';
import { assertEgressUrl, EgressRefusedError, webhookEgressPolicy } from '@switchyard/providers';
import type { WebhookEndpointV1, WebhookEventType, WebhookMessageV1 } from '@switchyard/messaging';
import { WebhookEndpointRepository, type EndpointRow, type MessageRow, type ReplayRange } from '../db/repositories/webhook-endpoint.repository.js';
import type { SecretBox } from './secret-box.js';
import { issueWebhookSecret, rotatedSecrets, usableSecrets } from './webhook-signature.js';

/** Endpoints one application may have. */
export const WEBHOOK_ENDPOINTS_PER_APPLICATION = 20;
/** Messages one replay queues at most (the answer says where it stopped). */
export const WEBHOOK_REPLAY_CAP = 10_000;
/** Longest accepted endpoint URL. */
const MAX_URL_LENGTH = 2_048;

/** A refused input: the API answers its code and detail; the operator CLI prints `explanation`. */
export class WebhookInputError extends ApiError {
  constructor(code: 'invalid_body' | 'not_found' | 'too_many_webhook_endpoints', detail: ErrorDetail | undefined, readonly explanation: string) {
    super(code, {}, detail);
  }
}

export interface EndpointInput {
  url: string;
  eventTypes: readonly WebhookEventType[];
  description?: string;
  enabled?: boolean;
}

export type EndpointPatch = Partial<Omit<EndpointInput, 'description'>> & { description?: string | null };

export interface WebhookEndpointsOptions {
  environment: 'sandbox' | 'production';
  secretOverlapMs: number;
  now?: () => Date;
}

export class WebhookEndpointsService {
  private readonly repository = new WebhookEndpointRepository();
  private readonly now: () => Date;

  constructor(
    private readonly orm: Orm,
    private readonly secrets: SecretBox,
    private readonly options: WebhookEndpointsOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async create(applicationId: string, input: EndpointInput): Promise<{ endpoint: WebhookEndpointV1; secret: string }> {
    const url = this.checkedUrl(input.url);
    return inTransaction(this.orm, async (em) => {
      if ((await this.repository.lockAndCount(em, applicationId)) >= WEBHOOK_ENDPOINTS_PER_APPLICATION) {
        throw new WebhookInputError('too_many_webhook_endpoints', undefined, `an application has at most ${WEBHOOK_ENDPOINTS_PER_APPLICATION} webhook endpoints`);
      }
      const id = randomUUID();
      const issued = issueWebhookSecret(this.secrets, id, this.now());
      await this.repository.insert(em, { id, applicationId, url, description: input.description ?? null, eventTypes: unique(input.eventTypes), enabled: input.enabled ?? true, secrets: [issued.stored] });
      return { endpoint: this.view(await this.found(em, applicationId, id)), secret: issued.secret };
    });
  }

  async list(applicationId: string): Promise<WebhookEndpointV1[]> {
    return inTransaction(this.orm, async (em) => (await this.repository.list(em, applicationId)).map((row) => this.view(row)));
  }

  async get(applicationId: string, id: string): Promise<WebhookEndpointV1> {
    return inTransaction(this.orm, async (em) => this.view(await this.found(em, applicationId, id)));
  }

  async update(applicationId: string, id: string, patch: EndpointPatch): Promise<WebhookEndpointV1> {
    const url = patch.url === undefined ? undefined : this.checkedUrl(patch.url);
    return inTransaction(this.orm, async (em) => {
      await this.found(em, applicationId, id, true);
      await this.repository.update(em, applicationId, id, {
        ...(url !== undefined ? { url } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.eventTypes !== undefined ? { eventTypes: unique(patch.eventTypes) } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
      });
      return this.view(await this.found(em, applicationId, id));
    });
  }

  async delete(applicationId: string, id: string): Promise<void> {
    await inTransaction(this.orm, async (em) => {
      if (!(await this.repository.delete(em, applicationId, id))) throw notFound();
    });
  }

  /** A new secret signs from now on; the previous one keeps signing for the overlap (WEBHOOK_SECRET_OVERLAP_MS). */
  async rotateSecret(applicationId: string, id: string): Promise<{ endpoint: WebhookEndpointV1; secret: string }> {
    return inTransaction(this.orm, async (em) => {
      const row = await this.found(em, applicationId, id, true);
      const now = this.now();
      const issued = issueWebhookSecret(this.secrets, id, now);
      await this.repository.update(em, applicationId, id, { secrets: rotatedSecrets(row.secrets, issued.stored, now, this.options.secretOverlapMs) });
      return { endpoint: this.view(await this.found(em, applicationId, id)), secret: issued.secret };
    });
  }

  /** `limit` messages, newest event first, before the sequence `before`; `hasMore` when older ones follow. */
  async messages(applicationId: string, id: string, page: { limit: number; before?: string; state?: string }): Promise<{ messages: WebhookMessageV1[]; hasMore: boolean; last?: string }> {
    return inTransaction(this.orm, async (em) => {
      await this.found(em, applicationId, id);
      const rows = await this.repository.messages(em, id, { ...page, limit: page.limit + 1 });
      const shown = rows.slice(0, page.limit);
      const last = shown.at(-1)?.event_seq;
      return { messages: shown.map(messageView), hasMore: rows.length > page.limit, ...(last ? { last } : {}) };
    });
  }

  /** Queues exactly the asked range for the endpoint (see the repository's `replay`). One event that the endpoint may not receive is `not_found`. */
  async replay(applicationId: string, id: string, range: ReplayRange): Promise<{ replayed: number; fromSequence: string; throughSequence: string; complete: boolean }> {
    return inTransaction(this.orm, async (em) => {
      const endpoint = await this.found(em, applicationId, id, true);
      const outcome = await this.repository.replay(em, endpoint, range, WEBHOOK_REPLAY_CAP);
      if ('eventId' in range && outcome.replayed === 0) throw new WebhookInputError('not_found', undefined, 'no such event for this endpoint (unknown, another connection\'s, or a type it does not subscribe to)');
      const complete = outcome.replayed < WEBHOOK_REPLAY_CAP;
      const from = 'fromSequence' in range ? range.fromSequence : (outcome.first ?? next(outcome.through));
      return { replayed: outcome.replayed, fromSequence: from, throughSequence: complete ? outcome.through : (outcome.last ?? outcome.through), complete };
    });
  }

  /** The URL in canonical form when the deployment's egress policy allows it; else 400 naming `url`. */
  private checkedUrl(raw: string): string {
    if (raw.length > MAX_URL_LENGTH) throw new WebhookInputError('invalid_body', { in: 'body', name: 'url', reason: 'out_of_range' }, `the URL is longer than ${MAX_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new WebhookInputError('invalid_body', { in: 'body', name: 'url', reason: 'malformed' }, 'the URL does not parse');
    }
    if (url.hash) throw new WebhookInputError('invalid_body', { in: 'body', name: 'url', reason: 'malformed' }, 'a URL with a fragment');
    try {
      assertEgressUrl(url, webhookEgressPolicy(this.options.environment));
    } catch (error) {
      if (!(error instanceof EgressRefusedError)) throw error;
      throw new WebhookInputError('invalid_body', { in: 'body', name: 'url', reason: 'not_allowed' }, `the URL is not allowed: ${error.reason}`);
    }
    return url.toString();
  }

  private async found(em: Orm['em'], applicationId: string, id: string, lock = false): Promise<EndpointRow> {
    const row = await this.repository.get(em, applicationId, id, lock);
    if (!row) throw notFound();
    return row;
  }

  private view(row: EndpointRow): WebhookEndpointV1 {
    return {
      id: row.id,
      url: row.url,
      ...(row.description !== null ? { description: row.description } : {}),
      eventTypes: row.event_types as WebhookEventType[],
      enabled: row.enabled,
      ...(row.disabled_reason ? { disabledReason: row.disabled_reason } : {}),
      ...(row.disabled_at ? { disabledAt: row.disabled_at } : {}),
      ...(row.failing_since ? { failingSince: row.failing_since } : {}),
      secrets: usableSecrets(row.secrets, this.now()).map((s) => ({ id: s.id, createdAt: s.createdAt, ...(s.expiresAt ? { expiresAt: s.expiresAt } : {}) })),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}

const notFound = () => new WebhookInputError('not_found', undefined, 'no such webhook endpoint for this application');
const unique = <T>(items: readonly T[]): T[] => [...new Set(items)];
const next = (sequence: string) => (BigInt(sequence) + 1n).toString();

function messageView(row: MessageRow): WebhookMessageV1 {
  return {
    eventId: row.event_id,
    eventType: row.type as WebhookEventType,
    sequence: row.event_seq,
    connectionId: row.connection_id,
    state: row.state,
    recordedAt: row.recorded_at,
    ...(row.next_attempt_at ? { nextAttemptAt: row.next_attempt_at } : {}),
    ...(row.delivered_at ? { deliveredAt: row.delivered_at } : {}),
    attemptCount: row.attempt_count,
    attempts: row.attempts.map((a) => ({ attempt: a.attempt, trigger: a.trigger, startedAt: a.startedAt, status: a.status, latencyMs: a.latencyMs, error: a.error, ...(a.retryAfterMs !== null ? { retryAfterMs: a.retryAfterMs } : {}) })),
  };
}

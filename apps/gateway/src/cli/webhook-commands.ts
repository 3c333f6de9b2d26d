/**
 * The operator CLI's webhook commands (`npm run operator -- webhook:…`, decision 0042): the same
 * use cases as the API routes (services/webhook-endpoints.service.ts), for an application named by
 * `--app`. operator.ts parses the command line with these options and hands a `webhook:` command
 * here; every argument is checked before the database is opened, as for every other command. A
 * refused input prints its explanation (the URL rule, the cap) rather than only its reason code.
 */
import { isUuid } from '@switchyard/domain';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_MESSAGE_STATES, type WebhookEventType } from '@switchyard/messaging';
import { AdminError } from '../services/credentials-admin.service.js';
import { WebhookInputError, type WebhookEndpointsService } from '../services/webhook-endpoints.service.js';

export const WEBHOOK_OPTIONS = {
  endpoint: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  description: { type: 'string' },
  enabled: { type: 'string' },
  event: { type: 'string' },
  since: { type: 'string' },
  'from-sequence': { type: 'string' },
  state: { type: 'string' },
  limit: { type: 'string' },
  before: { type: 'string' },
} as const;

export const WEBHOOK_USAGE = `  webhook:create --app <id> --url <url> --events ${WEBHOOK_EVENT_TYPES.join(',')} [--description d] [--enabled false]
      an endpoint of the application; prints its signing secret (whsec_…) once
  webhook:list --app <id>
  webhook:update --app <id> --endpoint <id> [--url u] [--events a,b] [--description d] [--enabled true|false]
  webhook:delete --app <id> --endpoint <id>
  webhook:rotate-secret --app <id> --endpoint <id>    a new secret; the previous one signs beside it for WEBHOOK_SECRET_OVERLAP_MS
  webhook:messages --app <id> --endpoint <id> [--state ${WEBHOOK_MESSAGE_STATES.join('|')}] [--limit 1-100] [--before <sequence>]
      the delivery log, newest first, with each message's attempts
  webhook:replay --app <id> --endpoint <id> (--event <event id> | --since <date-time> | --from-sequence <n>)`;

type Values = Partial<Record<keyof typeof WEBHOOK_OPTIONS | 'app', string | boolean>>;

function fail(message: string): never {
  throw new AdminError(message);
}

const str = (values: Values, name: keyof Values) => values[name] as string | undefined;

function id(values: Values, name: 'app' | 'endpoint' | 'event'): string {
  const v = str(values, name);
  if (!v) fail(`--${name} is required\n${WEBHOOK_USAGE}`);
  if (!isUuid(v)) fail(`--${name} must be an id (uuid), got "${v}"`);
  return v.toLowerCase();
}

function eventTypes(raw: string): WebhookEventType[] {
  const types = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (types.length === 0) fail(`--events: name at least one of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  for (const t of types) if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t)) fail(`--events: unknown event type "${t}" (expected ${WEBHOOK_EVENT_TYPES.join(', ')})`);
  return types as WebhookEventType[];
}

function bool(raw: string | undefined, name: string): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw !== 'true' && raw !== 'false') fail(`--${name} must be true or false, got "${raw}"`);
  return raw === 'true';
}

/** Runs a service call, turning a refused input into the operator's message. */
async function explained<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof WebhookInputError) fail(`${error.code}: ${error.explanation}`);
    throw error;
  }
}

/** The checked plan of a `webhook:` command; undefined when `command` is none of them. */
export function webhookPlan(command: string, values: Values): ((webhooks: () => WebhookEndpointsService) => Promise<unknown>) | undefined {
  switch (command) {
    case 'webhook:create': {
      const app = id(values, 'app');
      const url = str(values, 'url') ?? fail(`--url is required\n${WEBHOOK_USAGE}`);
      const types = eventTypes(str(values, 'events') ?? fail(`--events is required\n${WEBHOOK_USAGE}`));
      const description = str(values, 'description');
      const enabled = bool(str(values, 'enabled'), 'enabled');
      return (w) => explained(() => w().create(app, { url, eventTypes: types, ...(description !== undefined ? { description } : {}), ...(enabled !== undefined ? { enabled } : {}) }));
    }
    case 'webhook:list': {
      const app = id(values, 'app');
      return async (w) => ({ endpoints: await w().list(app) });
    }
    case 'webhook:update': {
      const [app, endpoint] = [id(values, 'app'), id(values, 'endpoint')];
      const url = str(values, 'url');
      const events = str(values, 'events');
      const description = str(values, 'description');
      const enabled = bool(str(values, 'enabled'), 'enabled');
      const patch = {
        ...(url !== undefined ? { url } : {}),
        ...(events !== undefined ? { eventTypes: eventTypes(events) } : {}),
        ...(description !== undefined ? { description: description === '' ? null : description } : {}),
        ...(enabled !== undefined ? { enabled } : {}),
      };
      if (Object.keys(patch).length === 0) fail(`webhook:update: nothing to change\n${WEBHOOK_USAGE}`);
      return (w) => explained(() => w().update(app, endpoint, patch));
    }
    case 'webhook:delete': {
      const [app, endpoint] = [id(values, 'app'), id(values, 'endpoint')];
      return async (w) => (await explained(() => w().delete(app, endpoint)), { ok: true });
    }
    case 'webhook:rotate-secret': {
      const [app, endpoint] = [id(values, 'app'), id(values, 'endpoint')];
      return (w) => explained(() => w().rotateSecret(app, endpoint));
    }
    case 'webhook:messages': {
      const [app, endpoint] = [id(values, 'app'), id(values, 'endpoint')];
      const state = str(values, 'state');
      if (state !== undefined && !(WEBHOOK_MESSAGE_STATES as readonly string[]).includes(state)) fail(`--state: expected ${WEBHOOK_MESSAGE_STATES.join(', ')}`);
      const limit = Number(str(values, 'limit') ?? '50');
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) fail('--limit: an integer from 1 to 100');
      const before = str(values, 'before');
      if (before !== undefined && !/^[1-9]\d{0,18}$/.test(before)) fail('--before: a sequence (a positive integer)');
      return (w) => explained(() => w().messages(app, endpoint, { limit, ...(before ? { before } : {}), ...(state ? { state } : {}) }));
    }
    case 'webhook:replay': {
      const [app, endpoint] = [id(values, 'app'), id(values, 'endpoint')];
      const given = (['event', 'since', 'from-sequence'] as const).filter((k) => str(values, k) !== undefined);
      if (given.length !== 1) fail(`webhook:replay: exactly one of --event, --since, --from-sequence\n${WEBHOOK_USAGE}`);
      const since = str(values, 'since');
      const from = str(values, 'from-sequence');
      if (since !== undefined && Number.isNaN(Date.parse(since))) fail(`--since must be a date-time, got "${since}"`);
      if (from !== undefined && !/^[1-9]\d{0,18}$/.test(from)) fail('--from-sequence: a sequence (a positive integer)');
      const range = given[0] === 'event' ? { eventId: id(values, 'event') } : since !== undefined ? { since: new Date(since).toISOString() } : { fromSequence: from ?? '' };
      return (w) => explained(() => w().replay(app, endpoint, range));
    }
    default:
      return undefined;
  }
}

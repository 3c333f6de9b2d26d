// Generates libs/sdk/src/generated/openapi.ts from openapi/openapi.json: one type per component
// schema, the request/response types of every operation, the operation table the runtime reads
// (method, path, credential, parameters with their declared style) and the client's methods.
// Plain Node, no dependency (decision 0035). `npm run openapi` runs it after emitting the document;
// libs/sdk/test/generated.spec.ts fails when the committed file is stale.
// Usage: node libs/sdk/scripts/generate.mjs [openapi.json] [out.ts]; generateSdkSource(doc) for the test.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** operationId → namespace.method on the client. A new operation fails generation until it is named here. */
export const METHOD_NAMES = {
  getCatalog: 'catalog.get',
  getConnection: 'connections.get',
  getCapabilities: 'connections.capabilities',
  disconnectConnection: 'connections.disconnect',
  listFleetLocations: 'connections.locations',
  getFleetUtilization: 'connections.utilization',
  getConnectionFreshness: 'connections.freshness',
  createConnectSession: 'connectSessions.create',
  getConnectSession: 'connectSessions.get',
  listDrivers: 'drivers.list',
  getDriver: 'drivers.get',
  listFaults: 'faults.list',
  listFaultEvents: 'faults.events',
  listGroups: 'groups.list',
  getGroup: 'groups.get',
  listTrips: 'trips.list',
  getTrip: 'trips.get',
  listVehicles: 'vehicles.list',
  getVehicle: 'vehicles.get',
  getVehicleBuild: 'vehicles.build',
  getVehicleDistance: 'vehicles.distance',
  getVehicleEngineHours: 'vehicles.engineHours',
  getVehicleHistory: 'vehicles.history',
  getVehicleIdentity: 'vehicles.identity',
  getVehicleIdling: 'vehicles.idling',
  getVehicleImages: 'vehicles.images',
  getVehicleMetadata: 'vehicles.metadata',
  getVehicleProfile: 'vehicles.profile',
  getVehicleSpecifications: 'vehicles.specifications',
  getVehicleTelemetry: 'vehicles.telemetry',
  refreshVehicleTelemetry: 'vehicles.refreshTelemetry',
  getVehicleUtilization: 'vehicles.utilization',
  listSyncs: 'syncs.list',
  createSync: 'syncs.create',
  getSync: 'syncs.get',
  cancelSync: 'syncs.cancel',
  retrySync: 'syncs.retry',
  // Additions beyond the contract's 36 operations (webhook endpoints, docs/webhooks.md).
  createWebhookEndpoint: 'webhooks.create',
  listWebhookEndpoints: 'webhooks.list',
  getWebhookEndpoint: 'webhooks.get',
  updateWebhookEndpoint: 'webhooks.update',
  deleteWebhookEndpoint: 'webhooks.delete',
  rotateWebhookEndpointSecret: 'webhooks.rotateSecret',
  listWebhookMessages: 'webhooks.messages',
  replayWebhookMessages: 'webhooks.replay',
};

/** Routes whose server honours an `Idempotency-Key` header (apps/gateway): none today, so no POST is retried. */
export const IDEMPOTENCY_KEY_ROUTES = [];

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
/** Headers the runtime sets itself (credentials) or that are conditional-request plumbing. */
const RUNTIME_HEADERS = new Set(['Connection-Token', 'If-None-Match']);

const ident = (name) => name.replace(/[^A-Za-z0-9_]/g, '_');
const literal = (v) => JSON.stringify(v);
const propKey = (k) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k));

function typeOf(schema, indent = '') {
  if (schema === true || schema === undefined || schema === null) return 'unknown';
  if (schema.$ref) return ident(schema.$ref.split('/').pop());
  if ('const' in schema) return literal(schema.const);
  if (schema.enum) return schema.enum.map(literal).join(' | ');
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((s) => wrap(typeOf(s, indent))).join(' | ');
  if (schema.allOf) return schema.allOf.map((s) => wrap(typeOf(s, indent))).join(' & ');
  if (Array.isArray(schema.type)) return schema.type.map((t) => wrap(typeOf({ ...schema, type: t }, indent))).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `${wrap(typeOf(schema.items, indent))}[]`;
    case 'object':
    case undefined: {
      if (!schema.properties && schema.type === undefined) return 'unknown';
      const inner = `${indent}  `;
      const required = new Set(schema.required ?? []);
      const lines = Object.entries(schema.properties ?? {}).map(([k, v]) => {
        const doc = v.description ? `${inner}/** ${v.description.replace(/\*\//g, '*\\/').replace(/\n/g, ' ')} */\n` : '';
        return `${doc}${inner}${propKey(k)}${required.has(k) ? '' : '?'}: ${typeOf(v, inner)};`;
      });
      const extra = schema.additionalProperties;
      if (extra && extra !== false) lines.push(`${inner}[key: string]: ${extra === true ? 'unknown' : typeOf(extra, inner)};`);
      else if (extra === undefined && !schema.properties) lines.push(`${inner}[key: string]: unknown;`);
      return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : 'Record<string, never>';
    }
    default:
      return 'unknown';
  }
}
const wrap = (t) => (/[|&]/.test(t) && !t.startsWith('{') ? `(${t})` : t);

function jsonSchema(content) {
  return content?.['application/json']?.schema;
}

/** The array property a page carries its items in (per variant of a union page). */
function itemKeys(doc, schema) {
  const resolve = (s) => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s);
  const s = resolve(schema);
  const variants = s.oneOf ?? s.anyOf ?? [s];
  const keys = new Set();
  for (const v of variants.map(resolve)) {
    for (const [k, p] of Object.entries(v.properties ?? {})) if (p.type === 'array' && (v.required ?? []).includes(k)) keys.add(k);
  }
  return [...keys];
}

export function operationsOf(doc) {
  const ops = [];
  for (const [route, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) ops.push({ route, method: method.toUpperCase(), op });
    }
  }
  return ops.sort((a, b) => a.op.operationId.localeCompare(b.op.operationId));
}

export function generateSdkSource(doc) {
  const out = [];
  out.push(`// Generated by libs/sdk/scripts/generate.mjs from openapi/openapi.json (${doc.info.version}). Do not edit:`);
  out.push('// `npm run openapi` regenerates it and libs/sdk/test/generated.spec.ts fails while it is stale.');
  out.push("import type { Caller, Paged, RequestOptions } from '../runtime.js';");
  out.push('');
  out.push(`export const API_VERSION = ${literal(doc.info.version)};`);
  out.push('');
  out.push('/** Every documented reason code of the `{"error": …}` body. */');
  out.push(`export const REASON_CODES = ${JSON.stringify(doc.components.schemas.ErrorBody.properties.error.enum)} as const;`);
  out.push('export type ReasonCode = (typeof REASON_CODES)[number];');
  out.push('');
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    if (schema.description) out.push(`/** ${schema.description.replace(/\*\//g, '*\\/').replace(/\n/g, ' ')} */`);
    out.push(`export type ${ident(name)} = ${typeOf(schema)};`);
    out.push('');
  }

  const table = [];
  const types = [];
  const namespaces = {};
  const missing = [];
  for (const { route, method, op } of operationsOf(doc)) {
    const id = op.operationId;
    const name = METHOD_NAMES[id];
    if (!name) {
      missing.push(id);
      continue;
    }
    const params = op.parameters ?? [];
    const pathParams = [...route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const query = params.filter((p) => p.in === 'query');
    const headers = params.filter((p) => p.in === 'header' && !RUNTIME_HEADERS.has(p.name));
    const security = Object.keys(op.security?.[0] ?? doc.security?.[0] ?? {})[0] ?? 'none';
    const success = Object.keys(op.responses).find((s) => /^2\d\d$/.test(s));
    const responseSchema = jsonSchema(op.responses[success]?.content);
    const bodySchema = jsonSchema(op.requestBody?.content);
    const bodyIsEmpty = bodySchema && !bodySchema.$ref && bodySchema.additionalProperties === false && !bodySchema.properties;
    const hasBody = Boolean(bodySchema) && !bodyIsEmpty;
    const paged = query.some((p) => p.name === 'cursor');
    const queryTable = Object.fromEntries(
      query.map((p) => {
        const kind = p.schema?.type === 'array' ? 'array' : p.schema?.format === 'date-time' ? 'date-time' : 'scalar';
        return [p.name, kind === 'array' ? { kind, style: p.style ?? 'form', explode: p.explode ?? (p.style ?? 'form') === 'form' } : { kind }];
      }),
    );
    table.push(
      `  ${id}: ${JSON.stringify({
        method,
        path: route,
        security,
        pathParams,
        query: queryTable,
        connectionToken: params.some((p) => p.in === 'header' && p.name === 'Connection-Token'),
        body: hasBody,
        idempotent: method === 'GET' || IDEMPOTENCY_KEY_ROUTES.includes(id),
        items: paged ? itemKeys(doc, responseSchema) : [],
      })},`,
    );
    const queryType = query.length
      ? `{\n${query
          .map((p) => {
            const t = p.schema?.format === 'date-time' ? 'string | Date' : typeOf(p.schema, '      ');
            const doc = p.description ? `      /** ${p.description.replace(/\*\//g, '*\\/').replace(/\n/g, ' ')} */\n` : '';
            return `${doc}      ${propKey(p.name)}${p.required ? '' : '?'}: ${t};`;
          })
          .join('\n')}\n    }`
      : 'Record<string, never>';
    const headerType = headers.length ? `{ ${headers.map((h) => `${propKey(h.name)}${h.required ? '' : '?'}: string;`).join(' ')} }` : 'Record<string, never>';
    types.push(
      `  /** ${method} ${route}${op.summary ? ` — ${op.summary.replace(/\*\//g, '')}` : ''} */\n  ${id}: {\n    path: ${pathParams.length ? `{ ${pathParams.map((p) => `${propKey(p)}: string;`).join(' ')} }` : 'Record<string, never>'};\n    query: ${queryType};\n    headers: ${headerType};\n    body: ${hasBody ? typeOf(bodySchema, '    ') : 'never'};\n    response: ${responseSchema ? typeOf(responseSchema, '    ') : 'void'};\n  };`,
    );
    const [ns, fn] = name.split('.');
    const args = [...pathParams.map((p) => `${ident(p)}: string`)];
    if (hasBody) args.push(`body${op.requestBody.required ? '' : '?'}: Operations['${id}']['body']`);
    if (query.length) args.push(query.some((p) => p.required) ? `query: Operations['${id}']['query']` : `query: Operations['${id}']['query'] = {}`);
    args.push('options?: RequestOptions');
    const pathObj = pathParams.length === 0 ? '{}' : `{ ${pathParams.map((p) => (ident(p) === p ? p : `${propKey(p)}: ${ident(p)}`)).join(', ')} }`;
    const call = paged
      ? `caller.paged('${id}', ${pathObj}, query, options)`
      : `caller.call('${id}', ${pathObj}, ${query.length ? 'query' : '{}'}, ${hasBody ? 'body' : 'undefined'}, options)`;
    const ret = paged ? `Paged<'${id}'>` : `Promise<Operations['${id}']['response']>`;
    (namespaces[ns] ??= []).push(`    /** ${method} ${route} (\`${id}\`${security === 'none' ? '' : `, ${security}`}). */\n    ${fn}: (${args.join(', ')}): ${ret} => ${call},`);
  }
  if (missing.length) throw new Error(`operations without an SDK method name (add them to METHOD_NAMES in libs/sdk/scripts/generate.mjs): ${missing.join(', ')}`);

  out.push('/** Request and response types of every operation, by operationId. */');
  out.push(`export interface Operations {\n${types.join('\n')}\n}`);
  out.push('');
  out.push('export type OperationId = keyof Operations;');
  out.push('');
  out.push('/** What the runtime needs to know of each operation, as the document declares it. */');
  out.push(`export const OPERATIONS = {\n${table.join('\n')}\n} as const;`);
  out.push('');
  out.push('/** operationId → the client method that calls it. */');
  out.push(`export const METHOD_NAMES = ${JSON.stringify(Object.fromEntries(operationsOf(doc).map(({ op }) => [op.operationId, METHOD_NAMES[op.operationId]])), null, 2)} as const;`);
  out.push('');
  out.push('/** The client\'s methods, one per operation, grouped by resource. */');
  out.push(`export function bindMethods(caller: Caller) {\n  return {\n${Object.entries(namespaces)
    .map(([ns, fns]) => `  ${ns}: {\n${fns.map((f) => f.replace(/^ {4}/gm, '    ')).join('\n')}\n  },`)
    .join('\n')}\n  };\n}`);
  out.push('');
  return out.join('\n');
}

const self = fileURLToPath(import.meta.url);
if (process.argv[1] && path.resolve(process.argv[1]) === self) {
  const root = path.resolve(path.dirname(self), '../../..');
  const input = path.resolve(process.argv[2] ?? path.join(root, 'openapi/openapi.json'));
  const output = path.resolve(process.argv[3] ?? path.join(root, 'libs/sdk/src/generated/openapi.ts'));
  writeFileSync(output, generateSdkSource(JSON.parse(readFileSync(input, 'utf8'))));
  console.log(`wrote ${path.relative(root, output)}`);
}

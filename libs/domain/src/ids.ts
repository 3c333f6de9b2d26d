/**
 * Public identifiers (spec 2.1) and how they are minted.
 *
 * Entity ids (group_, drv_, trp_, vcl_) carry a 26-character Crockford base32 body that encodes
 * exactly 128 bits: one leading char in [0-7] (3 bits) plus 25 chars (125 bits). They are derived,
 * never random: `entityId` hashes a versioned, length-prefixed encoding of (kind, connectionId,
 * provider, sourceId) with SHA-256 and keeps the first 128 bits. Invariant: the same provider record
 * in the same connection maps to the same id in every service and every run, and a different
 * connection, provider, kind or source id maps to a different id (collision odds ~2^-65 at 2^32
 * records). See docs/decisions/0003-stable-ids.md. Sync ids are ULID-shaped (48-bit ms time +
 * 80 random bits) so they sort by creation; connections and sessions use random UUIDs.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { isProvider, type Provider } from './providers.js';

/** Crockford base32: digits and upper-case letters without I, L, O, U, in ascending ASCII order. */
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const BODY_128 = '[0-7][0-9A-HJKMNP-TV-Z]{25}';

export const ENTITY_KINDS = ['group', 'driver', 'trip', 'vehicle'] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

export const ENTITY_PREFIXES = { group: 'group_', driver: 'drv_', trip: 'trp_', vehicle: 'vcl_' } as const satisfies Record<
  EntityKind,
  string
>;

/** Patterns as strings, usable verbatim as an OpenAPI / JSON Schema `pattern`. */
export const ID_PATTERNS = {
  group: `^group_${BODY_128}$`,
  driver: `^drv_${BODY_128}$`,
  trip: `^trp_${BODY_128}$`,
  vehicle: `^vcl_${BODY_128}$`,
  sync: '^sync_[0-9A-HJKMNP-TV-Z]{26}$',
  uuid: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
} as const;

export type GroupId = `group_${string}`;
export type DriverId = `drv_${string}`;
export type TripId = `trp_${string}`;
export type VehicleId = `vcl_${string}`;
export type SyncId = `sync_${string}`;
export type EntityIdOf<K extends EntityKind> = K extends 'group'
  ? GroupId
  : K extends 'driver'
    ? DriverId
    : K extends 'trip'
      ? TripId
      : VehicleId;

const REGEXES = {
  group: new RegExp(ID_PATTERNS.group),
  driver: new RegExp(ID_PATTERNS.driver),
  trip: new RegExp(ID_PATTERNS.trip),
  vehicle: new RegExp(ID_PATTERNS.vehicle),
  sync: new RegExp(ID_PATTERNS.sync),
  uuid: new RegExp(ID_PATTERNS.uuid),
};

export const isGroupId = (v: unknown): v is GroupId => typeof v === 'string' && REGEXES.group.test(v);
export const isDriverId = (v: unknown): v is DriverId => typeof v === 'string' && REGEXES.driver.test(v);
export const isTripId = (v: unknown): v is TripId => typeof v === 'string' && REGEXES.trip.test(v);
export const isVehicleId = (v: unknown): v is VehicleId => typeof v === 'string' && REGEXES.vehicle.test(v);
export const isSyncId = (v: unknown): v is SyncId => typeof v === 'string' && REGEXES.sync.test(v);
export const isUuid = (v: unknown): v is string => typeof v === 'string' && REGEXES.uuid.test(v);

/** Checks an id of the given kind (handy when the kind is data, e.g. a route table). */
export function isEntityId<K extends EntityKind>(kind: K, v: unknown): v is EntityIdOf<K> {
  return typeof v === 'string' && REGEXES[kind].test(v);
}

/** Encodes 16 bytes as 26 Crockford chars, most significant first (first char is 0-7). */
export function encodeCrockford128(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new RangeError(`expected 16 bytes, got ${bytes.length}`);
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  for (let i = 0; i < 26; i++) {
    out = CROCKFORD_ALPHABET[Number(n & 31n)] + out;
    n >>= 5n;
  }
  return out;
}

/** Inverse of `encodeCrockford128`; undefined for anything that is not a valid 128-bit body. */
export function decodeCrockford128(body: string): Uint8Array | undefined {
  if (!new RegExp(`^${BODY_128}$`).test(body)) return undefined;
  let n = 0n;
  for (const ch of body) n = (n << 5n) | BigInt(CROCKFORD_ALPHABET.indexOf(ch));
  const out = new Uint8Array(16);
  for (let i = 15; i >= 0; i--) {
    out[i] = Number(n & 255n);
    n >>= 8n;
  }
  return out;
}

/** The provider record an entity id stands for. */
export interface SourceRef {
  /** The connection (UUID). Compared case-insensitively: it is lower-cased before hashing. */
  readonly connectionId: string;
  readonly provider: Provider;
  /** The provider's own id, verbatim (case-sensitive: Geotab ids like "b3" are). */
  readonly sourceId: string;
}

/** Version tag of the derivation. Changing it changes every id: never do that in place. */
export const ENTITY_ID_DERIVATION = 'switchyard.entity-id.v1';

function lengthPrefixed(field: string): Buffer {
  const bytes = Buffer.from(field, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(bytes.length);
  return Buffer.concat([len, bytes]);
}

/**
 * Mints the stable public id of a provider record. Throws TypeError on a malformed reference
 * (non-UUID connection, unknown provider, empty source id): a silently different encoding would
 * split one record into two ids, which is worse than failing loudly.
 */
export function entityId<K extends EntityKind>(kind: K, ref: SourceRef): EntityIdOf<K> {
  if (!(ENTITY_KINDS as readonly string[]).includes(kind)) throw new TypeError(`unknown entity kind: ${String(kind)}`);
  if (!isUuid(ref.connectionId)) throw new TypeError('entityId: connectionId must be a UUID');
  if (!isProvider(ref.provider)) throw new TypeError('entityId: unknown provider');
  if (typeof ref.sourceId !== 'string' || ref.sourceId.length === 0) throw new TypeError('entityId: sourceId must be a non-empty string');
  const hash = createHash('sha256')
    .update(lengthPrefixed(ENTITY_ID_DERIVATION))
    .update(lengthPrefixed(kind))
    .update(lengthPrefixed(ref.connectionId.toLowerCase()))
    .update(lengthPrefixed(ref.provider))
    .update(lengthPrefixed(ref.sourceId))
    .digest();
  return `${ENTITY_PREFIXES[kind]}${encodeCrockford128(hash.subarray(0, 16))}` as EntityIdOf<K>;
}

export const groupId = (ref: SourceRef): GroupId => entityId('group', ref);
export const driverId = (ref: SourceRef): DriverId => entityId('driver', ref);
export const tripId = (ref: SourceRef): TripId => entityId('trip', ref);
export const vehicleId = (ref: SourceRef): VehicleId => entityId('vehicle', ref);

/**
 * Which of `sourceIds` (a connection's provider vehicle ids, e.g. its approved ones) mints `id`:
 * ids are one-way hashes, so the only way back from a `vcl_` id is to mint each candidate.
 */
export function sourceIdOfVehicle(ref: Omit<SourceRef, 'sourceId'>, sourceIds: readonly string[], id: string): string | undefined {
  return sourceIds.find((sourceId) => vehicleId({ ...ref, sourceId }) === id);
}

/** 2^48 - 1: the largest millisecond time a ULID can hold (year 10889). */
const MAX_ULID_TIME = 2 ** 48 - 1;
let lastTime = -1;
let lastRandom = 0n;

/**
 * Mints a sync id: `sync_` + ULID (48-bit ms time, 80 random bits). Ids from one process are
 * strictly increasing even within one millisecond (the random part is incremented, as ULID's
 * monotonic mode does), so "newest first, then id" ordering is stable. Across processes the order
 * is by millisecond only.
 */
export function newSyncId(now: number | Date = Date.now()): SyncId {
  let time = typeof now === 'number' ? now : now.getTime();
  if (!Number.isInteger(time) || time < 0 || time > MAX_ULID_TIME) throw new RangeError('newSyncId: time out of range');
  let random: bigint;
  if (time <= lastTime) {
    // Same (or an earlier, clock went back) millisecond: keep the last time and count up.
    time = lastTime;
    random = lastRandom + 1n;
    if (random >> 80n !== 0n) throw new RangeError('newSyncId: random overflow within one millisecond');
  } else {
    random = BigInt(`0x${randomBytes(10).toString('hex')}`);
  }
  lastTime = time;
  lastRandom = random;
  const bytes = new Uint8Array(16);
  let n = (BigInt(time) << 80n) | random;
  for (let i = 15; i >= 0; i--) {
    bytes[i] = Number(n & 255n);
    n >>= 8n;
  }
  return `sync_${encodeCrockford128(bytes)}`;
}

/** Creation time (ms since epoch) encoded in a sync id, or undefined when it is not one. */
export function syncIdTime(id: string): number | undefined {
  if (!isSyncId(id)) return undefined;
  const bytes = decodeCrockford128(id.slice(5));
  if (!bytes) return undefined;
  return Number(Buffer.from(bytes.subarray(0, 6)).readUIntBE(0, 6));
}

/** Random v4 UUID for connections and sessions. */
export function newUuid(): string {
  return randomUUID();
}

/**
 * A name-based UUID (RFC 9562 version 8: SHA-256 of the length-prefixed parts, first 128 bits with
 * the version and variant bits set), for facts that need the same id every time they are told:
 * the event id of a sync outcome (`sync-outcome`, sync id, attempt, status) or of a connection's
 * status change (`connection-status`, connection id, revision). A publisher that retries, or a
 * relay that republishes after a crash, mints the same id, so consumers (and webhook receivers,
 * docs/webhooks.md) de-duplicate by it.
 */
export function nameUuid(namespace: string, ...parts: readonly string[]): string {
  const hash = createHash('sha256').update(lengthPrefixed(namespace));
  for (const part of parts) hash.update(lengthPrefixed(part));
  const bytes = hash.digest().subarray(0, 16);
  bytes.writeUInt8((bytes.readUInt8(6) & 0x0f) | 0x80, 6);
  bytes.writeUInt8((bytes.readUInt8(8) & 0x3f) | 0x80, 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * SQL pieces the directory's stored reads share when PostgreSQL renders their public bodies
 * (decision 0028, `readFrame`): a known provider, the public text of a stored Field envelope, and
 * the public object without its absent members. Each renders once what the mappers in JavaScript
 * did before (a value appears only when its Field is `available`; absent is an absent key, never
 * null or a stand-in).
 */
import { CROCKFORD_ALPHABET, ENTITY_ID_DERIVATION, ENTITY_PREFIXES, PROVIDERS, WIRE_DATE_TIME_PATTERN, type EntityKind } from '@switchyard/domain';
import { isoSql } from '@switchyard/persistence';

/** A SQL string literal. */
export const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** `column` names a provider the public shapes know (libs/domain PROVIDERS). */
export const knownProviderSql = (column: string) => `${column} in (${PROVIDERS.map(literal).join(', ')})`;

/** The stored Field's value (jsonb) when it is `available` and a string; NULL (an absent member) otherwise. */
export const fieldTextSql = (field: string) => `case when ${field}->>'status' = 'available' and jsonb_typeof(${field}->'value') = 'string' then ${field}->'value' end`;

/**
 * The public object of `json_build_object(…)` text without its NULL members, at every depth (the
 * public shapes have no nullable member inside the objects this renders; a value that may be null
 * in public is rendered outside it).
 */
export const withoutNullsSql = (object: string) => `json_strip_nulls(${object})`;

/**
 * A stored date-time text (one the contract's date-time shape accepted) in the wire format (libs/domain
 * `toWireDateTime`): kept when already wire-shaped, else UTC with milliseconds — sub-millisecond
 * digits cut before the cast, as JavaScript holds milliseconds; a year PostgreSQL cannot convert
 * (0000, 9999) is kept as it is.
 */
export const wireTimeSql = (text: string) =>
  `case when ${text} ~ ${literal(WIRE_DATE_TIME_PATTERN.replaceAll('\\d', '[0-9]'))} then ${text}
        when left(${text}, 4) between '0001' and '9998' then ${isoSql(`regexp_replace(${text}, '(\\.[0-9]{3})[0-9]+', '\\1')::timestamptz`)}
        else ${text} end`;

/** The length-prefixed UTF-8 bytes of a text (libs/domain ids.ts `lengthPrefixed`: a 4-byte big-endian length, then the bytes). */
const lengthPrefixed = (text: string) => `(int4send(octet_length(convert_to(${text}, 'UTF8'))) || convert_to(${text}, 'UTF8'))`;

/**
 * The stable public id (libs/domain `entityId`, decision 0003) of the provider record `sourceId` of
 * `provider` in connection `connection` (text SQL expressions), minted in PostgreSQL: SHA-256 of
 * the length-prefixed derivation tag, kind, lower-cased connection, provider and source id, its
 * first 128 bits as 26 Crockford base32 characters (two zero bits in front). The directory's
 * expansions mint group ids of reported memberships this way instead of a JavaScript copy;
 * test/entity-id-sql.int-spec.ts holds it to `entityId` over generated references.
 */
export function entityIdSql(kind: EntityKind, connection: string, provider: string, sourceId: string): string {
  const hash = `sha256(${lengthPrefixed(literal(ENTITY_ID_DERIVATION))} || ${lengthPrefixed(literal(kind))} || ${lengthPrefixed(`lower(${connection})`)} || ${lengthPrefixed(provider)} || ${lengthPrefixed(sourceId)})`;
  return `(select ${literal(ENTITY_PREFIXES[kind])} || string_agg(substr(${literal(CROCKFORD_ALPHABET)}, substring(h.b from i * 5 + 1 for 5)::bit(5)::int + 1, 1), '' order by i)
      from (select B'00' || ('x' || encode(substring(${hash} from 1 for 16), 'hex'))::bit(128) as b) h, generate_series(0, 25) i)`;
}

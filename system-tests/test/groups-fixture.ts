/**
 * Records for the driver and group read suites (beside reads-fixture.ts, which seeds and ingests):
 * a normalized group, and a driver with chosen field envelopes and memberships.
 */
import { available, invalid, missing, type Provider } from '@switchyard/domain';
import type { DriverRecordV1, GroupRecordV1 } from '@switchyard/messaging';
import { driverRecord } from './reads-fixture.js';

const SRC = 'test:field';

export function groupRecord(sourceId: string, fetchedAt: string, parentSourceId: string | null = null, options: { name?: string; provider?: Provider } = {}): GroupRecordV1 {
  return {
    provider: options.provider ?? 'samsara',
    sourceId,
    name: available(options.name ?? `Group ${sourceId}`, SRC),
    description: missing(`${SRC}.description`),
    parentSourceId,
    fetchedAt,
  } as GroupRecordV1;
}

/** A driver (reads-fixture's Ada Lovelace) with `fields` overriding its envelopes and `groups` its memberships (null: not reported). */
export function driverWith(
  sourceId: string,
  fetchedAt: string,
  fields: Partial<DriverRecordV1['fields']> = {},
  groups: string[] | null = ['g1'],
  provider: Provider = 'samsara',
): DriverRecordV1 {
  const base = driverRecord(sourceId, fetchedAt, provider);
  return { ...base, fields: { ...base.fields, ...fields }, groupIds: groups === null ? missing(`${SRC}.groups`) : available(groups, SRC) } as DriverRecordV1;
}

export const bad = (reason: string) => invalid<string>(SRC, reason);
export const have = (value: string) => available(value, SRC);

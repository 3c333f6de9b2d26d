import { describe, expect, it } from '@jest/globals';
import {
  decodeCrockford128,
  encodeCrockford128,
  entityId,
  ENTITY_KINDS,
  ID_PATTERNS,
  isDriverId,
  isEntityId,
  isGroupId,
  isSyncId,
  isTripId,
  isUuid,
  isVehicleId,
  newSyncId,
  newUuid,
  nameUuid,
  sourceIdOfVehicle,
  syncIdTime,
  vehicleId,
  type SourceRef,
} from './ids.js';

const ref: SourceRef = { connectionId: '3f1c2a9e-8b7d-4c6e-9a51-2d0f4b8e7c13', provider: 'samsara', sourceId: '281474976710657' };

describe('entity id format', () => {
  it('matches the spec 2.1 pattern for every kind', () => {
    expect(entityId('group', ref)).toMatch(/^group_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(isDriverId(entityId('driver', ref))).toBe(true);
    expect(isTripId(entityId('trip', ref))).toBe(true);
    expect(isVehicleId(entityId('vehicle', ref))).toBe(true);
    expect(isGroupId(entityId('group', ref))).toBe(true);
  });

  it('exports patterns usable as strings', () => {
    expect(new RegExp(ID_PATTERNS.vehicle).test(vehicleId(ref))).toBe(true);
    expect(new RegExp(ID_PATTERNS.vehicle).test(entityId('driver', ref))).toBe(false);
  });

  it('rejects near misses', () => {
    const body = entityId('vehicle', ref).slice(4);
    expect(isVehicleId(`vcl_8${body.slice(1)}`)).toBe(false); // first char above 7 would exceed 128 bits
    expect(isVehicleId(`vcl_${body.slice(0, 25)}I`)).toBe(false); // I is not Crockford
    expect(isVehicleId(`vcl_${body.toLowerCase()}`)).toBe(false);
    expect(isVehicleId(`vcl_${body}0`)).toBe(false);
    expect(isVehicleId(`drv_${body}`)).toBe(false);
    expect(isEntityId('driver', `drv_${body}`)).toBe(true);
    expect(isVehicleId(42)).toBe(false);
  });
});

describe('entity id stability', () => {
  it('pins known vectors (a change of derivation must fail here)', () => {
    expect(entityId('group', ref)).toBe('group_7RWW2KXTFQ39Z511C0HP7R1SC5');
    expect(entityId('driver', ref)).toBe('drv_1EEYFXHEY1V47TXC1DAKKADSS0');
    expect(entityId('trip', ref)).toBe('trp_1JP6S501NR3ZXVA5NQ8V46VVAW');
    expect(entityId('vehicle', ref)).toBe('vcl_3F7853FAX4CQ6FR2KAKEA8XTTT');
    expect(entityId('vehicle', { ...ref, provider: 'geotab', sourceId: 'b3' })).toBe('vcl_3X0HT5EZ3GRQQBPQ02W70H7VG2');
    expect(entityId('driver', { ...ref, provider: 'motive', sourceId: '11' })).toBe('drv_1D568DFRGG5MZP8V5J26H7M1FQ');
  });

  it('is the same for the same record and ignores uuid case', () => {
    expect(entityId('vehicle', { ...ref })).toBe(entityId('vehicle', ref));
    expect(entityId('vehicle', { ...ref, connectionId: ref.connectionId.toUpperCase() })).toBe(entityId('vehicle', ref));
  });

  it('differs by connection, provider, kind and source id', () => {
    const base = entityId('vehicle', ref).slice(4);
    expect(entityId('vehicle', { ...ref, connectionId: '3f1c2a9e-8b7d-4c6e-9a51-2d0f4b8e7c14' }).slice(4)).not.toBe(base);
    expect(entityId('vehicle', { ...ref, provider: 'motive' }).slice(4)).not.toBe(base);
    expect(entityId('driver', ref).slice(4)).not.toBe(base);
    expect(entityId('vehicle', { ...ref, sourceId: '281474976710658' }).slice(4)).not.toBe(base);
    expect(entityId('vehicle', { ...ref, sourceId: 'B3' })).not.toBe(entityId('vehicle', { ...ref, sourceId: 'b3' }));
  });

  it('cannot be confused by field boundaries (length-prefixed encoding)', () => {
    // Without length prefixes "ab"+"c" and "a"+"bc" could hash the same bytes.
    const a = entityId('vehicle', { ...ref, sourceId: 'x\u0000y' });
    const b = entityId('vehicle', { ...ref, sourceId: 'x' });
    expect(a).not.toBe(b);
  });

  it('has no collisions over 20k distinct records', () => {
    const seen = new Set<string>();
    for (const kind of ENTITY_KINDS) {
      for (let i = 0; i < 5000; i++) seen.add(entityId(kind, { ...ref, sourceId: String(i) }).split('_')[1]);
    }
    expect(seen.size).toBe(20000);
  });

  it('refuses malformed references instead of minting a divergent id', () => {
    expect(() => entityId('vehicle', { ...ref, connectionId: 'conn-1' })).toThrow(TypeError);
    expect(() => entityId('vehicle', { ...ref, sourceId: '' })).toThrow(TypeError);
    expect(() => entityId('vehicle', { ...ref, provider: 'verizon' as never })).toThrow(TypeError);
    expect(() => entityId('fleet' as never, ref)).toThrow(TypeError);
  });
});

describe('crockford codec', () => {
  it('round-trips 128 bits, extremes included', () => {
    const zeros = new Uint8Array(16);
    const ones = new Uint8Array(16).fill(255);
    expect(encodeCrockford128(zeros)).toBe('0'.repeat(26));
    expect(encodeCrockford128(ones)).toBe(`7${'Z'.repeat(25)}`);
    const mixed = Uint8Array.from({ length: 16 }, (_, i) => (i * 37 + 11) % 256);
    expect(decodeCrockford128(encodeCrockford128(mixed))).toEqual(mixed);
    expect(decodeCrockford128('8'.repeat(26))).toBeUndefined();
    expect(() => encodeCrockford128(new Uint8Array(15))).toThrow(RangeError);
  });
});

describe('sync ids', () => {
  it('have the spec format and carry their creation time', () => {
    const id = newSyncId(1725170620000);
    expect(id).toMatch(/^sync_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(isSyncId(id)).toBe(true);
    expect(id.slice(5, 15)).toBe('01J6P2X5K0'); // 48-bit time prefix of 2024-09-01T06:03:40Z
    expect(syncIdTime(id)).toBe(1725170620000);
  });

  it('sort by creation, also within one millisecond', () => {
    const ids = [newSyncId(1800000000000), newSyncId(1800000000000), newSyncId(1800000000001), newSyncId(1800000000500)];
    for (let i = 1; i < 50; i++) ids.push(newSyncId(1800000001000 + i));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('stays increasing when the clock goes back', () => {
    const a = newSyncId(1900000000000);
    const b = newSyncId(1899999999000);
    expect(b > a).toBe(true);
  });

  it('rejects impossible times', () => {
    expect(() => newSyncId(-1)).toThrow(RangeError);
    expect(() => newSyncId(2 ** 48)).toThrow(RangeError);
    expect(isSyncId('sync_01J6P2X5K0')).toBe(false);
    expect(syncIdTime('vcl_x')).toBeUndefined();
  });
});

describe('uuids', () => {
  it('are random v4 uuids', () => {
    const a = newUuid();
    expect(isUuid(a)).toBe(true);
    expect(a[14]).toBe('4');
    expect(newUuid()).not.toBe(a);
    expect(isUuid('not-a-uuid')).toBe(false);
  });

  it('name-based: the same parts give the same v8 uuid, other parts or another split another one', () => {
    const a = nameUuid('sync-outcome', 'sync_01', '1', 'completed');
    expect(isUuid(a)).toBe(true);
    expect(a[14]).toBe('8');
    expect('89ab').toContain(a[19]);
    expect(nameUuid('sync-outcome', 'sync_01', '1', 'completed')).toBe(a);
    expect(nameUuid('sync-outcome', 'sync_01', '2', 'completed')).not.toBe(a);
    // Length-prefixed: moving a character between parts is another name.
    expect(nameUuid('sync-outcome', 'sync_011', '', 'completed')).not.toBe(a);
  });
});

describe('sourceIdOfVehicle', () => {
  const ref = { connectionId: '3f0c2b7e-54a1-4c55-9d51-3a2b3c4d5e6f', provider: 'samsara' as const };
  it('finds the candidate whose minted vcl_ id matches, and nothing for an id none of them mints', () => {
    expect(sourceIdOfVehicle(ref, ['a1', 'a2', 'b3'], vehicleId({ ...ref, sourceId: 'a2' }))).toBe('a2');
    expect(sourceIdOfVehicle(ref, ['a1', 'b3'], vehicleId({ ...ref, sourceId: 'a2' }))).toBeUndefined();
    expect(sourceIdOfVehicle({ ...ref, provider: 'motive' }, ['a2'], vehicleId({ ...ref, sourceId: 'a2' }))).toBeUndefined();
  });
});

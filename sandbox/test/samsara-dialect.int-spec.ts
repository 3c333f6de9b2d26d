// The Samsara simulator's dialect seen with plain fetch: bearer auth, `{message, requestId}` errors,
// Samsara's 400s (types ≤ 3, limit ≤ 512, ids ≤ 50, 90-day legacy window), snapshot vs history keys,
// units, omitted gaps, empty end cursor and the per-endpoint rate limit with a fractional Retry-After.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { samsaraHasEcu, samsaraVehicleId } from '../src/samsara/index.js';
import { iso, NOW, startSamsaraHarness, TOKEN, type SamsaraHarness } from './samsara-harness.js';

let h: SamsaraHarness;
beforeAll(async () => {
  h = await startSamsaraHarness();
});
afterAll(() => h.close());

async function get(path: string, token: string | null = TOKEN): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${h.sim.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}
const data = (body: Record<string, unknown>) => body.data as Record<string, unknown>[];

describe('Samsara simulator dialect', () => {
  it('refuses missing or unknown bearer tokens with 401 {message, requestId}', async () => {
    for (const token of [null, 'unknown']) {
      const res = await get('/tags', token);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: expect.any(String), requestId: expect.any(String) });
    }
  });

  it.each([
    ['/fleet/vehicles?limit=513', 'limit'],
    ['/fleet/vehicles/stats', 'types is required'],
    ['/fleet/vehicles/stats?types=gps,engineStates,fuelPercents,batteryMilliVolts', 'at most 3'],
    ['/fleet/vehicles/stats?types=engineSeconds', 'unknown stat type'],
    ['/fleet/vehicles/stats/history?types=gps&startTime=2025-03-10T00:00:00Z', 'endTime is required'],
    [`/trips/stream?startTime=2025-03-10T00:00:00Z&ids=${Array.from({ length: 51 }, (_, i) => i).join(',')}`, 'at most 50'],
    [`/v1/fleet/trips?vehicleId=${samsaraVehicleId(0)}&startMs=0&endMs=${91 * 86_400_000}`, '90 days'],
    ['/tags?after=bm9wZQ==', 'cursor'],
  ])('400 for %s', async (path, message) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(String(res.body.message)).toContain(message);
  });

  it('snapshot uses singular keys, history plural arrays; units are mph, mV, ms; gaps are omitted', async () => {
    const snap = data((await get('/fleet/vehicles/stats?types=engineStates,fuelPercents,batteryMilliVolts')).body);
    const fueled = snap.find((item) => 'fuelPercent' in item)!;
    expect(fueled).toMatchObject({ engineState: { time: expect.any(String), value: expect.stringMatching(/^(On|Off|Idle)$/) }, batteryMilliVolts: { value: expect.any(Number) } });
    expect(fueled).not.toHaveProperty('engineStates');
    expect(snap.some((item) => !('fuelPercent' in item))).toBe(true); // vehicles that never report fuel
    expect((fueled.batteryMilliVolts as { value: number }).value).toBeGreaterThan(11_000);
    const hist = data((await get(`/fleet/vehicles/stats/history?types=engineStates,idlingDurationMilliseconds&startTime=${iso(NOW - 3600_000)}&endTime=${iso(NOW)}`)).body);
    expect(Array.isArray(hist[0]?.engineStates)).toBe(true);
    const noEcu = h.fleet.vehicles().find((v) => v.active && v.hasOdometer && !samsaraHasEcu(v.index))!;
    const odo = data((await get(`/fleet/vehicles/stats?types=obdOdometerMeters,gpsOdometerMeters&vehicleIds=${samsaraVehicleId(noEcu.index)}`)).body);
    expect(Object.keys(odo[0]!).sort()).toEqual(['gpsOdometerMeters', 'id', 'name']);
  });

  it('vehicles without a VIN omit the key; the last page has an empty endCursor', async () => {
    const vehicles: Record<string, unknown>[] = [];
    let res = await get('/fleet/vehicles');
    for (;;) {
      vehicles.push(...data(res.body));
      const { endCursor, hasNextPage } = res.body.pagination as { endCursor: string; hasNextPage: boolean };
      if (!hasNextPage) {
        expect(endCursor).toBe('');
        break;
      }
      res = await get(`/fleet/vehicles?after=${encodeURIComponent(endCursor)}`);
    }
    expect(vehicles.some((v) => !('vin' in v))).toBe(true);
    expect(vehicles.every((v) => typeof v.year === 'string')).toBe(true);
  });

  it('legacy trips: epoch ms, int driver ids; ongoing trips end at Long.MAX_VALUE', async () => {
    const driving = h.fleet.vehicles().find((v) => v.active && h.fleet.stateAt(v.index, NOW).engineState !== 'off')!;
    const res = await get(`/v1/fleet/trips?vehicleId=${samsaraVehicleId(driving.index)}&startMs=${NOW - 86_400_000}&endMs=${NOW}`);
    const trips = res.body.trips as { startMs: number; endMs: number; driverId?: number }[];
    expect(trips.at(-1)?.endMs).toBe(2 ** 63); // Long.MAX_VALUE as a double
    expect(trips.every((t) => Number.isInteger(t.startMs))).toBe(true);
  });

  it('/trips/stream is limited to 5 requests/s per org: the sixth in a burst is a 429 with a fractional Retry-After', async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, () => get(`/trips/stream?startTime=${iso(NOW - 3600_000)}`)));
    const limited = responses.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeLessThan(1);
  });
});

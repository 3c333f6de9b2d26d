import { describe, expect, it } from '@jest/globals';
import { capabilitiesFor, ProviderError, type ProviderAdapter } from '@switchyard/providers';
import { refreshingAdapter, type Granted } from './refreshing-adapter.js';

/**
 * The wrapper's bookkeeping with adapters that stand for one access token each: a call succeeds
 * while its token is in `valid`, else the provider's 401. The real path (a simulator's expiring
 * tokens, the gateway's refresh) is system-tests/test/oauth-refresh.int-spec.ts.
 */
function world() {
  const valid = new Set<string>(['t0']);
  const renewals: (string | undefined)[] = [];
  /** How long each next page call takes before answering (default 1 ms), in call order. */
  const delays: number[] = [];
  let issued = 0;
  const granted = (token: string): Granted => {
    const page = async () => {
      await new Promise((r) => setTimeout(r, delays.shift() ?? 1));
      if (!valid.has(token)) throw new ProviderError('provider_auth_required', { status: 401 });
      return { items: [token], next: null };
    };
    const adapter = { provider: 'samsara', capabilities: capabilitiesFor('samsara'), vehicles: page } as unknown as ProviderAdapter;
    return { adapter, accessToken: token };
  };
  const renew = async (rejected: string | undefined): Promise<Granted> => {
    renewals.push(rejected);
    await new Promise((r) => setTimeout(r, 5));
    issued += 1;
    const token = `t${issued}`;
    valid.add(token);
    return granted(token);
  };
  return { valid, renewals, delays, granted, renew };
}

const tokenOf = async (adapter: ProviderAdapter) => (await adapter.vehicles(null)).items[0];

describe('refreshingAdapter', () => {
  it('repeats a call refused with 401 once, on the credentials renewed for the refused token', async () => {
    const w = world();
    const adapter = refreshingAdapter(w.granted('t0'), w.renew);
    expect(await tokenOf(adapter)).toBe('t0');
    w.valid.delete('t0');
    expect(await tokenOf(adapter)).toBe('t1');
    expect(w.renewals).toEqual(['t0']);
    expect(await tokenOf(adapter)).toBe('t1');
    expect(w.renewals).toEqual(['t0']);
  });

  it('renews once for concurrent calls refused with the same token', async () => {
    // Mutation: without the shared renewal (`renewal` kept per refused token) each call asks the gateway: 8 renewals.
    const w = world();
    w.valid.clear();
    const adapter = refreshingAdapter(w.granted('t0'), w.renew);
    expect(await Promise.all(Array.from({ length: 8 }, () => tokenOf(adapter)))).toEqual(Array.from({ length: 8 }, () => 't1'));
    expect(w.renewals).toEqual(['t0']);
  });

  it('does not renew again for a call refused after the renewal, with the token it replaced', async () => {
    const w = world();
    w.valid.clear();
    const adapter = refreshingAdapter(w.granted('t0'), w.renew);
    // Both start on t0; the second is refused 30 ms later, after the first's renewal (5 ms) finished.
    w.delays.push(1, 30);
    const [first, late] = await Promise.all([tokenOf(adapter), tokenOf(adapter)]);
    expect([first, late]).toEqual(['t1', 't1']);
    expect(w.renewals).toEqual(['t0']);
  });

  it('throws the second refusal after a renewal (no loop), and a failed renewal, then asks again on the next refusal', async () => {
    const w = world();
    w.valid.clear();
    let refuseRenewals = true;
    const renew = async (rejected: string | undefined) => {
      if (refuseRenewals) throw new Error('provider_auth_required: the OAuth grant could not be refreshed');
      const next = await w.renew(rejected);
      w.valid.clear(); // the provider refuses even the new token
      return next;
    };
    const adapter = refreshingAdapter(w.granted('t0'), renew);
    await expect(adapter.vehicles(null)).rejects.toThrow('could not be refreshed');
    refuseRenewals = false;
    await expect(adapter.vehicles(null)).rejects.toMatchObject({ code: 'provider_auth_required' });
    expect(w.renewals).toEqual(['t0']);
  });

  it('passes other failures through without renewing', async () => {
    const w = world();
    const failing = { ...w.granted('t0'), adapter: { ...w.granted('t0').adapter, vehicles: async () => Promise.reject(new ProviderError('provider_unavailable', { status: 503 })) } as ProviderAdapter };
    await expect(refreshingAdapter(failing, w.renew).vehicles(null)).rejects.toMatchObject({ code: 'provider_unavailable' });
    expect(w.renewals).toEqual([]);
  });
});

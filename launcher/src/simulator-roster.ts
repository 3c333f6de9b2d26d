/**
 * The vehicle ids a sandbox connection approves: listed from each simulator through the provider's
 * real adapter (over HTTP, exactly as collection will), so the sandbox's approved selection is the
 * simulator's actual roster and a first `POST /v1/syncs` has work to do.
 */
import type { Provider } from '@switchyard/domain';
import { collectPages, createGeotabAdapter, createMotiveAdapter, createSamsaraAdapter, type ProviderAdapter } from '@switchyard/providers';
import type { SimulatorCredentials } from '@switchyard/sandbox';

function adapterFor(provider: Provider, simulators: SimulatorCredentials): ProviderAdapter | undefined {
  if (provider === 'samsara' && simulators.samsara) {
    const { baseUrl, apiToken } = simulators.samsara;
    return createSamsaraAdapter({ provider, baseUrl, credentials: { apiToken } });
  }
  if (provider === 'motive' && simulators.motive) {
    const { baseUrl, apiKey } = simulators.motive;
    return createMotiveAdapter({ provider, baseUrl, credentials: { apiKey } });
  }
  if (provider === 'geotab' && simulators.geotab) {
    const { baseUrl, database, userName, password } = simulators.geotab;
    return createGeotabAdapter({ provider, baseUrl, credentials: { database, userName, password } });
  }
  return undefined;
}

/** Every vehicle source id of the provider's simulator (all pages); [] when it is not running. */
export async function simulatorVehicleIds(provider: Provider, simulators: SimulatorCredentials): Promise<string[]> {
  const adapter = adapterFor(provider, simulators);
  if (!adapter) return [];
  // Bounded: a sandbox fleet is small; 1,000 pages is far beyond any of them.
  const { items } = await collectPages((cursor) => adapter.vehicles(cursor), 1000);
  return [...new Set(items.map((v) => v.sourceId))];
}

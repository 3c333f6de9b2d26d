/**
 * Capability descriptors per provider: what the gateway serves at /v1/connections/{id}/capabilities
 * (adding the connection id). Invariant: one descriptor per `Provider`, checked by the type below.
 */
import type { Provider } from '@switchyard/domain';
import type { ProviderCapabilities } from './capability.types.js';
import { GEOTAB_CAPABILITIES } from './geotab.capabilities.js';
import { MOTIVE_CAPABILITIES } from './motive.capabilities.js';
import { SAMSARA_CAPABILITIES } from './samsara.capabilities.js';

/** Frozen all the way down: the descriptors are shared, so a caller must not be able to edit them. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const BY_PROVIDER: Readonly<Record<Provider, ProviderCapabilities>> = deepFreeze({
  samsara: SAMSARA_CAPABILITIES,
  motive: MOTIVE_CAPABILITIES,
  geotab: GEOTAB_CAPABILITIES,
});

export function capabilitiesFor(provider: Provider): ProviderCapabilities {
  const found = BY_PROVIDER[provider];
  if (!found) throw new TypeError(`no capabilities for provider ${String(provider)}`);
  return found;
}

export * from './capability.types.js';
export { GEOTAB_CAPABILITIES, MOTIVE_CAPABILITIES, SAMSARA_CAPABILITIES };

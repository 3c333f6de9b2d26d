/**
 * The three supported source providers (spec 1, "<provider_a>, <provider_b>, <provider_c>").
 * Invariant: this tuple is the only list of provider names; every other table is keyed by `Provider`
 * so adding a provider fails to compile wherever it is not yet handled.
 */
export const PROVIDERS = ['samsara', 'motive', 'geotab'] as const;
export type Provider = (typeof PROVIDERS)[number];

export function isProvider(v: unknown): v is Provider {
  return typeof v === 'string' && (PROVIDERS as readonly string[]).includes(v);
}

/**
 * Provider HTTP calls as metrics: an observer for libs/providers' call hook (its
 * ProviderCallObserver, provider-call-observer.ts, matched by shape — service-kit does not depend on
 * the adapters) that counts every attempt by provider, endpoint template and outcome class, and
 * times it. The orchestrator's adapter factory and the gateway's credential check hand it to every
 * adapter they build, beside the traces' span observer.
 * Outcome classes: ok; throttled (429, Geotab's OverLimitException, any provider_throttled);
 * client_error (another 4xx, or an in-body refusal of a 2xx); server_error (5xx, Geotab's
 * DbUnavailableException); timeout; network_error; refused (egress policy, a cross-origin
 * redirect); invalid_response (not JSON, too large, an unexpected shape); aborted (the caller gave up).
 */
import type { ServiceMetrics } from './service-metrics.js';

/** What the call hook says of an attempt as it starts (provider-call-observer.ts ProviderCall). */
export interface ProviderCallStart {
  readonly provider?: string;
  readonly endpoint: string;
}

/** …and as it ends (ProviderCallOutcome; the error is a ProviderError). */
export interface ProviderCallEnd {
  readonly status?: number;
  readonly error?: { readonly code: string; readonly detail: { readonly status?: number; readonly message?: string } };
}

export type ProviderOutcomeClass = 'ok' | 'throttled' | 'client_error' | 'server_error' | 'timeout' | 'network_error' | 'refused' | 'invalid_response' | 'aborted';

export function providerOutcomeClass({ status, error }: ProviderCallEnd): ProviderOutcomeClass {
  if (!error) return status === undefined ? 'aborted' : status < 400 ? 'ok' : status >= 500 ? 'server_error' : 'client_error';
  if (error.code === 'provider_throttled' || status === 429) return 'throttled';
  if (error.code === 'provider_response_changed') return 'invalid_response';
  if (status !== undefined && (status >= 500 || (status < 400 && error.code === 'provider_unavailable'))) return 'server_error';
  if (status !== undefined) return 'client_error';
  if (error.code === 'provider_config_invalid') return 'refused';
  return error.detail.message === 'timeout' ? 'timeout' : 'network_error';
}

export function providerCallMetrics(metrics: ServiceMetrics): { start(call: ProviderCallStart): (end: ProviderCallEnd) => void } {
  return {
    start(call) {
      const started = performance.now();
      const provider = call.provider ?? 'unknown';
      return (end) => {
        metrics.child('providerRequests', provider, call.endpoint, providerOutcomeClass(end)).inc();
        metrics.child('providerRequestDuration', provider, call.endpoint).observe((performance.now() - started) / 1000);
      };
    },
  };
}

/**
 * Validating what a provider sent against the adapter's own zod schema of that response. A
 * mismatch means the provider changed something we rely on: `provider_response_changed`, with the
 * first problem's path (never the payload, which may hold personal data).
 */
import type { z } from 'zod';
import { ProviderError } from '../errors.js';

export function parseProviderResponse<S extends z.ZodType>(schema: S, json: unknown, where: string): z.output<S> {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ProviderError('provider_response_changed', { path: where, message: issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid' });
}

/**
 * One HTTP exchange with a service under test whose response is checked against the OpenAPI
 * document: the gateway's own harness and the orchestrator's pipeline suites call the public API
 * through it, so no response reaches an assertion unvalidated. The body is parsed when the
 * response says JSON, else kept as text ('' for none), the way `expectValidResponse` reads it.
 */
import { expectValidResponse, type ResponseValidator } from './openapi-validator.js';

export interface ValidatedResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export interface ValidatedFetchInit {
  headers?: Record<string, string>;
  body?: string;
  /** false for routes the document does not describe (probes, unknown paths); default true. */
  validate?: boolean;
}

export async function fetchValidated(validator: ResponseValidator, baseUrl: string, method: string, path: string, init: ValidatedFetchInit = {}): Promise<ValidatedResponse> {
  const response = await fetch(`${baseUrl}${path}`, { method, headers: init.headers, body: init.body });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  const body: unknown = contentType.includes('json') && text ? JSON.parse(text) : text;
  if (init.validate !== false) expectValidResponse(validator, { method, path, status: response.status, body, contentType });
  return { status: response.status, headers: response.headers, body, text };
}

/**
 * The console cookies' flags (decision 0045): HttpOnly and SameSite=Strict always; outside the
 * sandbox also Secure, with the `__Host-` prefix and Path=/ that the prefix requires. The browser
 * test (system-tests/test/console.int-spec.ts) reads the sandbox cookie back from Chromium.
 */
import { describe, expect, it } from '@jest/globals';
import { consoleCookie } from './console-auth.js';

describe('console cookies', () => {
  it('are HttpOnly, SameSite=Strict and Secure with the __Host- prefix outside the sandbox', () => {
    expect(consoleCookie('switchyard-console', 'cs_x', 28_800, true)).toBe('__Host-switchyard-console=cs_x; Path=/; Max-Age=28800; HttpOnly; SameSite=Strict; Secure');
  });

  it('in the sandbox (plain HTTP on loopback) drop only Secure and the prefix, and keep to /console', () => {
    expect(consoleCookie('switchyard-console', 'cs_x', 28_800, false)).toBe('switchyard-console=cs_x; Path=/console; Max-Age=28800; HttpOnly; SameSite=Strict');
  });
});

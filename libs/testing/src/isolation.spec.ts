import { describe, expect, it } from '@jest/globals';
import { isolatedSchemas, uniqueNamespace, uniqueSuffix } from './isolation.js';

describe('uniqueSuffix', () => {
  it('is t + 6 lower-case base36 characters and does not repeat', () => {
    const seen = new Set(Array.from({ length: 1000 }, () => uniqueSuffix()));
    for (const s of seen) expect(s).toMatch(/^t[0-9a-z]{6}$/);
    expect(seen.size).toBe(1000);
  });
});

describe('isolatedSchemas', () => {
  it('maps each app to its schema plus one shared suffix', () => {
    expect(isolatedSchemas(['gateway', 'sync-orchestrator', 'fault-feed'], 't8f3k2a')).toEqual({
      gateway: 'gateway_t8f3k2a',
      'sync-orchestrator': 'sync_t8f3k2a',
      'fault-feed': 'faults_t8f3k2a',
    });
  });

  it('draws a fresh suffix per call', () => {
    expect(isolatedSchemas(['directory']).directory).not.toBe(isolatedSchemas(['directory']).directory);
  });
});

describe('uniqueNamespace', () => {
  it('is a valid bus namespace (lower-case, digits, dashes) and unique', () => {
    const ns = uniqueNamespace();
    expect(ns).toMatch(/^test-t[0-9a-z]{6}$/);
    expect(uniqueNamespace('e2e')).toMatch(/^e2e-t/);
    expect(ns).not.toBe(uniqueNamespace());
    expect(() => uniqueNamespace('Bad.Prefix')).toThrow('namespace prefix');
  });
});

/** INGEST_ACK_WAIT_MS: 60 s when unset, whole milliseconds from 5 s to 10 min, anything else a ConfigError naming it. */
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../config.js';
import { loadIngestSettings } from './ingest-settings.js';

describe('loadIngestSettings', () => {
  it('defaults the ack wait to 60 s', () => {
    expect(loadIngestSettings({})).toEqual({ ackWaitMs: 60_000 });
  });

  it('takes INGEST_ACK_WAIT_MS within its bounds', () => {
    expect(loadIngestSettings({ INGEST_ACK_WAIT_MS: '10000' })).toEqual({ ackWaitMs: 10_000 });
    expect(loadIngestSettings({ INGEST_ACK_WAIT_MS: '5000' })).toEqual({ ackWaitMs: 5_000 });
    expect(loadIngestSettings({ INGEST_ACK_WAIT_MS: '600000' })).toEqual({ ackWaitMs: 600_000 });
  });

  it.each([['4999'], ['600001'], ['0'], ['-10000'], ['1.5e4x'], ['10000.5'], ['ten seconds'], ['']])('refuses INGEST_ACK_WAIT_MS=%j with a ConfigError naming it', (value) => {
    let error: unknown;
    try {
      loadIngestSettings({ INGEST_ACK_WAIT_MS: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toHaveLength(1);
    expect((error as ConfigError).problems[0]).toMatch(/^INGEST_ACK_WAIT_MS: /);
  });
});

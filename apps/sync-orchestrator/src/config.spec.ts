import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@switchyard/service-kit';
import { loadSyncOrchestratorSettings } from './config.js';

describe('loadSyncOrchestratorSettings', () => {
  it('defaults the provider base URLs to the real providers', () => {
    expect(loadSyncOrchestratorSettings({}).providerBaseUrls).toEqual({
      samsara: 'https://api.samsara.com',
      motive: 'https://api.gomotive.com',
      geotab: 'https://my.geotab.com',
    });
  });

  it('takes the environment, and start options over the environment, without trailing slashes', () => {
    const settings = loadSyncOrchestratorSettings({ SAMSARA_BASE_URL: 'https://api.eu.samsara.com/', MOTIVE_BASE_URL: 'http://127.0.0.1:4102' }, { providerBaseUrls: { motive: 'http://127.0.0.1:9999' } });
    expect(settings.providerBaseUrls).toEqual({ samsara: 'https://api.eu.samsara.com', motive: 'http://127.0.0.1:9999', geotab: 'https://my.geotab.com' });
  });

  it('schedules every five minutes by default, looking back one window first, and lets the start option win over SCHEDULER_ENABLED', () => {
    expect(loadSyncOrchestratorSettings({}).scheduler).toEqual({
      enabled: false,
      windowMs: 300_000,
      tickMs: 5_000,
      firstLookbackMs: 300_000,
      maxCatchUpMs: 86_400_000,
      runLimits: { maxUnits: 10_000, maxBytes: 4 * 1024 * 1024 },
    });
    const settings = loadSyncOrchestratorSettings({ SCHEDULER_ENABLED: 'true', SCHEDULE_WINDOW_MS: '2000', SCHEDULE_FIRST_LOOKBACK_MS: '60000' }, { scheduler: false });
    expect(settings.scheduler).toMatchObject({ enabled: false, windowMs: 2_000, firstLookbackMs: 60_000 });
    expect(() => loadSyncOrchestratorSettings({ SCHEDULE_WINDOW_MS: '10' })).toThrow(ConfigError);
  });

  it('lets scheduled runs be smaller than the plan limit, never larger', () => {
    expect(loadSyncOrchestratorSettings({ SCHEDULE_RUN_MAX_UNITS: '12', SCHEDULE_RUN_MAX_BYTES: '65536' }).scheduler.runLimits).toEqual({ maxUnits: 12, maxBytes: 65_536 });
    expect(() => loadSyncOrchestratorSettings({ SCHEDULE_RUN_MAX_UNITS: '10001' })).toThrow(ConfigError);
    expect(() => loadSyncOrchestratorSettings({ SCHEDULE_RUN_MAX_BYTES: String(4 * 1024 * 1024 + 1) })).toThrow(ConfigError);
    expect(() => loadSyncOrchestratorSettings({ SCHEDULE_RUN_MAX_UNITS: '0' })).toThrow(ConfigError);
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      loadSyncOrchestratorSettings({ SAMSARA_BASE_URL: 'ftp://example.com', GEOTAB_BASE_URL: 'not a url', PROVIDER_TIMEOUT_MS: '5' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(['SAMSARA_BASE_URL', 'GEOTAB_BASE_URL', 'PROVIDER_TIMEOUT_MS']);
  });
});

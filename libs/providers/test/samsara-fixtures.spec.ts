// Every ok/ fixture passes its schema (records it refuses are reported, not failing the page); every
// not-ok/ fixture is refused as provider_response_changed.
import { describe, expect, it } from '@jest/globals';
import { ProviderError } from '../src/errors.js';
import { parseProviderResponse } from '../src/http/parse.js';
import { parseSamsaraPage } from '../src/samsara/samsara.client.js';
import { fixtureNames, loadFixture, SAMSARA_FIXTURE_SCHEMAS, SAMSARA_LEGACY_TRIPS_SCHEMA } from './samsara-fixtures.js';

const resources = Object.keys(SAMSARA_FIXTURE_SCHEMAS) as (keyof typeof SAMSARA_FIXTURE_SCHEMAS)[];

describe('Samsara fixtures', () => {
  for (const resource of resources) {
    const schema = SAMSARA_FIXTURE_SCHEMAS[resource];
    it.each(fixtureNames(resource, 'ok'))(`${resource}/ok/%s parses`, (name) => {
      const page = parseSamsaraPage(schema, loadFixture(resource, 'ok', name), `/${resource}`);
      expect(page.data.length).toBeGreaterThan(0);
    });
    it.each(fixtureNames(resource, 'not-ok'))(`${resource}/not-ok/%s is provider_response_changed`, (name) => {
      const error = (() => {
        try {
          parseSamsaraPage(schema, loadFixture(resource, 'not-ok', name), `/${resource}`);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ code: 'provider_response_changed', detail: { path: `/${resource}` } });
    });
  }

  it.each(fixtureNames('legacy-trips', 'ok'))('legacy-trips/ok/%s parses', (name) => {
    expect(parseProviderResponse(SAMSARA_LEGACY_TRIPS_SCHEMA, loadFixture('legacy-trips', 'ok', name), '/v1/fleet/trips').trips.length).toBeGreaterThan(0);
  });
  it.each(fixtureNames('legacy-trips', 'not-ok'))('legacy-trips/not-ok/%s is provider_response_changed', (name) => {
    expect(() => parseProviderResponse(SAMSARA_LEGACY_TRIPS_SCHEMA, loadFixture('legacy-trips', 'not-ok', name), '/v1/fleet/trips')).toThrow(
      expect.objectContaining({ code: 'provider_response_changed' }),
    );
  });
});

/**
 * Conventions every public response shares, defined once (docs/architecture.md "Wire conventions";
 * decision 0017): the timestamp format and the page cursor. Re-exported by directory-read.v1.ts.
 *
 * Decisions kept here:
 * - every public timestamp is `wireDateTimeV1`: RFC 3339 in UTC with exactly millisecond precision
 *   (`2026-11-24T10:15:23.000Z`). The schema normalizes what it parses (`toWireDateTime`: a
 *   provider's `…:23Z` or `…:23+02:00` becomes `…:23.000Z` UTC), so the reply codec, which sends
 *   what the responder's reply schema output, normalizes every timestamp of every reader and mapper
 *   in one place; the OpenAPI document states the exact pattern, so the response validation of every
 *   test checks it. Request-side date-times and keyset positions keep full precision (isoDateTimeV1);
 * - a page's cursor: where the spec fixes the field, exactly that (`next`, absent on the last page:
 *   TripPage, DriverDirectory, VehicleProfilePage, the group pages; `nextCursor`, null on the last
 *   page: Vehicles — and the future Faults/FleetLocations, with `hasMore` on FaultEvents/History);
 *   every page shape the spec leaves open (the sync list) follows the `next` convention:
 *   `nextPageField` / `nextPageLink`, never `"next": null`.
 */
import { CURSOR_PATTERN } from '@switchyard/contracts';
import { toWireDateTime, WIRE_DATE_TIME_PATTERN } from '@switchyard/domain';
import { z } from 'zod';

export const WIRE_DATE_TIME_TEXT = 'RFC 3339 date-time in UTC with exactly millisecond precision (`2026-11-24T10:15:23.000Z`).';

/** A timestamp of a public response: accepts any RFC 3339 date-time, outputs the wire form. */
export const wireDateTimeV1 = z.iso.datetime({ offset: true }).overwrite(toWireDateTime).meta({ pattern: WIRE_DATE_TIME_PATTERN });

/** The cursor characters of every public page. */
export const pageCursorV1 = z.string().regex(new RegExp(CURSOR_PATTERN));

export const NEXT_CONVENTION_TEXT =
  'Paging convention: `next` is present while more items follow and absent on the last page (never null); pass it back as `cursor` with unchanged filters.';

/** `next` of a page (the spec's `next` pages and every page shape the spec leaves open), with its wording. */
export const nextPageField = (description: string) => pageCursorV1.describe(description).optional();

/** The `next` member of a page reply: `{ next }` while more follow, `{}` on the last page. */
export const nextPageLink = (cursor: string | undefined): { next?: string } => (cursor === undefined ? {} : { next: cursor });

/** The `nextCursor` member of a spec page that fixes it as required and nullable (Vehicles): null on the last page. */
export const nextCursorLink = (cursor: string | undefined): { nextCursor: string | null } => ({ nextCursor: cursor ?? null });

/** The conventions above as the OpenAPI document's info description states them. */
export const WIRE_CONVENTIONS_TEXT = [
  `Timestamps: every date-time in a response is an ${WIRE_DATE_TIME_TEXT}`,
  `${NEXT_CONVENTION_TEXT} Where the specification fixes another shape, the route keeps it: \`Vehicles\` (the default \`view=assets\` of the vehicle list) has \`nextCursor\`, null on the last page.`,
].join('\n');

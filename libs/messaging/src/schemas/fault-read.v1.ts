/**
 * The fault reads (spec 2.9, 4.4, 6), gateway → fault-feed over `faults.read.*` (RPCS.faults):
 * the current open occurrences (`Faults`) and the durable transition feed (`FaultEvents`).
 *
 * Decisions kept here:
 * - fault-feed answers with the PUBLIC shapes (strict zod mirrors of spec 2.9), so the gateway only
 *   signs the position into the cursor;
 * - open faults are walked in the order their `opened` transition was committed (the occurrence's
 *   open sequence): an occurrence open for the whole walk appears exactly once, one opened during
 *   the walk appears at its end, one cleared during it may be absent — stable under concurrent ingest;
 * - the feed position is the last per-connection `sequence` the reader has passed (decimal text,
 *   `0` before the first). Sequences are assigned in commit order (fault-feed's per-connection
 *   counter row, locked to the commit), so "every event with a greater sequence" never skips one a
 *   slower transaction fills later. `last` is the highest sequence the page scanned, including
 *   events of hidden vehicles it left out, so a reader never scans them again;
 * - `beyondRetention`: the position lies before the oldest transition still kept (retention, libs/contracts
 *   fault-reads.ts): the gateway answers 400 `cursor_beyond_retention` instead of a page that
 *   would silently skip the pruned events.
 */
import { FAULT_EVENTS_PAGE, FAULTS_PAGE, vehicleIdSchema } from '@switchyard/contracts';
import { z } from 'zod';
import { framedReply } from '../framed-reply.js';
import { cursorV1, wireDateTimeV1 } from './directory-read.v1.js';

/** A feed position: decimal text of a non-negative integer (a sequence, `0` before the first). */
export const faultSequencePositionV1 = z.string().regex(/^(0|[1-9]\d{0,18})$/);

const vehicleIdV1 = vehicleIdSchema.describe('The vehicle (`vcl_` id) the fault belongs to.');

export const faultV1 = z
  .object({
    id: z.uuid().describe('The occurrence id; the `occurrence_id` of its FaultEvents.'),
    vehicle_id: vehicleIdV1,
    fault_key: z.string().min(1).describe('Provider-scoped identity of the fault on the vehicle (e.g. `j1939:<source address>:spn<SPN>:fmi<FMI>`, a Geotab diagnostic, failure mode and controller); one open occurrence per vehicle and key.'),
    code: z.string().min(1).describe('The code as the provider reports it (e.g. `SPN 110 FMI 0`, `P0420`).'),
    opened_at: wireDateTimeV1.describe('When the occurrence was first observed open: the read whose complete snapshot first listed it (Samsara, Motive), or its first record\'s time (Geotab). For `bootstrap` faults: when we first watched the vehicle — its first snapshot read, or the end of the first window of fault records read — not when the fault started.'),
    bootstrap: z.boolean().describe('True when the fault was already active when the vehicle was first watched.'),
    description: z.string().nullable().optional().describe('The provider\'s description of the code; null when it gives none.'),
  })
  .strict()
  .meta({ id: 'Fault', description: 'One open fault occurrence (spec 2.9). A re-opened fault is a new occurrence with a new id.' });

export const faultsPageV1 = z
  .object({
    faults: z.array(faultV1).max(FAULTS_PAGE.max),
    nextCursor: cursorV1.nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  })
  .strict()
  .meta({ id: 'Faults', description: 'Open fault occurrences of the connection\'s visible vehicles, in the order they opened.' });

export const faultEventV1 = z
  .object({
    id: z.uuid().describe('The transition id (also `ce-id` of the `fleet.faults` subject message).'),
    sequence: z.number().int().positive().describe('Strictly increasing per connection in commit order.'),
    connection_id: z.uuid(),
    occurrence_id: z.uuid(),
    vehicle_id: vehicleIdV1,
    kind: z.enum(['opened', 'cleared']),
    observed_at: wireDateTimeV1.describe('opened: the Fault\'s `opened_at` (for `bootstrap`: when we first watched the vehicle); cleared: the read whose complete snapshot no longer lists it, the dismissal time, or the last record + 7 days (inactivity timeout).'),
    bootstrap: z.boolean().describe('True on the `opened` transition of an occurrence that was already active when the vehicle was first watched (its start time is unknown); false on every `cleared`.'),
  })
  .strict()
  .meta({ id: 'FaultEvent', description: 'One opened or cleared transition of a fault occurrence (spec 2.9, 6).' });

export const faultEventsPageV1 = z
  .object({
    events: z.array(faultEventV1).max(FAULT_EVENTS_PAGE.max),
    nextCursor: cursorV1.describe('Durable position after the last event of this page (also when it is empty): store it and pass it as `cursor` to receive every later event exactly once, in order.'),
    hasMore: z.boolean().describe('True when more events were already available when this page was read; poll again later when false.'),
  })
  .strict()
  .meta({ id: 'FaultEvents', description: 'Fault transitions of the connection\'s visible vehicles in `sequence` order, with a durable cursor.' });

export const listOpenFaultsRequestV1 = z
  .object({
    connectionId: z.uuid(),
    limit: z.number().int().min(FAULTS_PAGE.min).max(FAULTS_PAGE.max),
    /** Open sequence of the last occurrence of the previous page. */
    after: faultSequencePositionV1.optional(),
  })
  .strict();

/** A framed reply (framed-reply.ts): the page in `meta`, the Fault array as JSON text in `body`. */
export const listOpenFaultsReplyV1 = framedReply(
  z
    .object({
      /** Open sequence of the page's last occurrence; present when more follow. */
      next: faultSequencePositionV1.optional(),
      hasMore: z.boolean(),
    })
    .strict(),
);

export const listFaultEventsRequestV1 = z
  .object({
    connectionId: z.uuid(),
    limit: z.number().int().min(FAULT_EVENTS_PAGE.min).max(FAULT_EVENTS_PAGE.max),
    /** The last sequence the reader passed; absent for the start of the retained feed. */
    after: faultSequencePositionV1.optional(),
  })
  .strict();

/** A framed reply: the feed position in `meta`, the FaultEvent array as JSON text in `body`. */
export const listFaultEventsReplyV1 = framedReply(
  z
    .object({
      /** The position to resume after (≥ `after`; `0` while the connection has no transition). */
      last: faultSequencePositionV1,
      hasMore: z.boolean(),
      /** True when `after` lies before the oldest retained transition (events were pruned); the body is then `[]`. */
      beyondRetention: z.boolean(),
    })
    .strict(),
);

export type FaultV1 = z.output<typeof faultV1>;
export type FaultsPageV1 = z.output<typeof faultsPageV1>;
export type FaultEventV1 = z.output<typeof faultEventV1>;
export type FaultEventsPageV1 = z.output<typeof faultEventsPageV1>;
export type ListOpenFaultsRequestV1 = z.output<typeof listOpenFaultsRequestV1>;
export type ListOpenFaultsReplyV1 = z.output<typeof listOpenFaultsReplyV1>;
export type ListFaultEventsRequestV1 = z.output<typeof listFaultEventsRequestV1>;
export type ListFaultEventsReplyV1 = z.output<typeof listFaultEventsReplyV1>;

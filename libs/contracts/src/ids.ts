/**
 * The zod schemas of the public ids (spec 2.1), written once over domain's ID_PATTERNS: every
 * message schema, cursor position and gateway check that carries a `vcl_`, `drv_`, `trp_`,
 * `group_` or `sync_` id takes its schema from here (issue 24: the vehicle-id schema was written out
 * twelve times). Each is the canonical, upper-case form; a request's lower-case body is made
 * canonical by the gateway before anything is checked against these (http/entity-ids.ts).
 * Their JSON Schema is `{ type: string, pattern: ID_PATTERNS[kind] }`, as the copies emitted.
 */
import { ID_PATTERNS, type EntityKind } from '@switchyard/domain';
import { z } from 'zod';

const idSchema = (kind: EntityKind | 'sync') => z.string().regex(new RegExp(ID_PATTERNS[kind]));

export const vehicleIdSchema = idSchema('vehicle');
export const driverIdSchema = idSchema('driver');
export const tripIdSchema = idSchema('trip');
export const groupIdSchema = idSchema('group');
export const syncIdSchema = idSchema('sync');

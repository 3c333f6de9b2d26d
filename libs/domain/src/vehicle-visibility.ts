/**
 * The vocabulary of the one vehicle visibility rule (spec 2.6 VehicleEntity.metadata.visibility):
 * its verdicts and the configuration lists it reads. The rule itself is written once, in SQL, by
 * the directory that stores the statuses it needs (apps/directory vehicle-sql.ts `visibilitySql`:
 * include list, then exclude list, then a status filter that hides unknown statuses); the directory
 * publishes its result to the other contexts (decision 0029). Lists hold provider source vehicle
 * ids (connection configuration), not `vcl_` ids.
 */
import type { ConnectionConfig } from './connection-config.js';

export const VEHICLE_VISIBILITIES = ['visible', 'hidden_by_include_list', 'hidden_by_exclude_list', 'hidden_by_status'] as const;
export type VehicleVisibility = (typeof VEHICLE_VISIBILITIES)[number];

export type VisibilityRules = Pick<ConnectionConfig, 'includeVehicleIds' | 'excludeVehicleIds' | 'includeStatuses'>;

/** True when the rules can hide anything (all lists empty: every vehicle is visible, no lookup needed). */
export function hasVisibilityRules(rules: VisibilityRules): boolean {
  return rules.includeVehicleIds.length > 0 || rules.excludeVehicleIds.length > 0 || rules.includeStatuses.length > 0;
}

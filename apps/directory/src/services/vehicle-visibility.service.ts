/**
 * Computes a connection's hidden-vehicle set with the one visibility rule (vehicle-sql.ts
 * `visibilitySql`, the reads' rule too) and records it for publication
 * when it changed — inside the caller's transaction (an ingest batch's or a config event's), under
 * the connection's advisory lock, so the set and the data it was computed from commit together and
 * the relay publishes only committed sets.
 * Which rules: the newest by revision among the config the caller hands in (a config event), the
 * directory's config projection and the rules stored with the last set — so a late or reordered
 * config never rolls visibility back. Without any config nothing is computed (the reads show
 * nothing for such a connection either). Under a status filter the set lists the shown vehicles
 * too (decision 0029). Both lists are sorted by vehicle id, so "changed" is a plain comparison; a
 * change of rules that hides and shows the same vehicles publishes nothing.
 */
import { hasVisibilityRules, type VisibilityRules } from '@switchyard/domain';
import type { Em, Orm } from '@switchyard/persistence';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { VehicleVisibilityRepository, type ComputedSet } from '../db/repositories/vehicle-visibility.repository.js';

type Rules = VisibilityRules & { readonly revision: number };

/** Comparison key of a set (jsonb does not keep key order, so compare the members, not the JSON). */
const key = (set: ComputedSet) => `${set.hidden.map((h) => `${h.vehicleId}:${h.visibility}`).join(',')}|${set.shown?.join(',') ?? '-'}`;

const rulesOf = (c: Rules): Rules => ({ revision: c.revision, includeVehicleIds: c.includeVehicleIds, excludeVehicleIds: c.excludeVehicleIds, includeStatuses: c.includeStatuses });

export class VehicleVisibilityService {
  private readonly configs: ConnectionConfigStore;

  constructor(
    orm: Orm,
    private readonly repository = new VehicleVisibilityRepository(),
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  /** Recomputes the set; true when it changed (a new sequence awaits publication). */
  async recompute(em: Em, connectionId: string, candidate?: Rules): Promise<boolean> {
    await this.repository.lockConnection(em, connectionId);
    const [state, projected] = await Promise.all([this.repository.state(em, connectionId), this.configs.get(connectionId, em)]);
    const options = [candidate, projected, state ? { ...(state.rules as VisibilityRules), revision: state.config_revision } : undefined].filter((r): r is Rules => r !== undefined);
    if (options.length === 0) return false;
    const rules = rulesOf(options.reduce((a, b) => (b.revision > a.revision ? b : a)));
    // Under a status filter the shown vehicles are listed too: one the directory never stored has no status and must stay hidden everywhere (decision 0029).
    const set: ComputedSet = { hidden: [], shown: rules.includeStatuses.length > 0 ? [] : null };
    if (hasVisibilityRules(rules)) {
      for (const v of await this.repository.vehicles(em, connectionId, rules)) {
        const { visibility } = v;
        if (visibility !== 'visible') set.hidden.push({ vehicleId: v.id, sourceId: v.source_id, visibility });
        else set.shown?.push(v.id);
      }
    }
    const changed = !state || key(state) !== key(set);
    if (!changed && state.config_revision === rules.revision) return false;
    const { revision, ...stored } = rules;
    await this.repository.save(em, connectionId, revision, stored, changed ? set : undefined);
    return changed;
  }
}

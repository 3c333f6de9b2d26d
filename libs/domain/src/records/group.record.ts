/** A group (Samsara tag, Motive group, Geotab Group) normalized (spec 2.2). */
import type { Provider } from '../providers.js';
import type { Field } from './field.js';

export interface GroupRecord {
  readonly provider: Provider;
  readonly sourceId: string;
  readonly name: Field<string>;
  readonly description: Field<string>;
  /**
   * Parent provider group id: a string, `null` for an org root / no parent reported. Geotab reports
   * children on the parent, so its adapter inverts them.
   */
  readonly parentSourceId: string | null;
  readonly fetchedAt: string;
}

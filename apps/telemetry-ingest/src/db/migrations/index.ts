import { Migration0001ConnectionConfigProjection } from './migration-0001-connection-config-projection.js';
import { Migration0002TelemetryIngest } from './migration-0002-telemetry-ingest.js';
import { Migration0003TelemetryReads } from './migration-0003-telemetry-reads.js';
import { Migration0004UsageRollups } from './migration-0004-usage-rollups.js';
import { Migration0005UsageSlotTimeIndex } from './migration-0005-usage-slot-time-index.js';
import { Migration0006VisibilityShown } from './migration-0006-visibility-shown.js';
import { Migration0007ObservationSeqDefault } from './migration-0007-observation-seq-default.js';

/** In order; never edit an applied migration, add the next one. */
export const telemetryIngestMigrations = [Migration0001ConnectionConfigProjection, Migration0002TelemetryIngest, Migration0003TelemetryReads, Migration0004UsageRollups, Migration0005UsageSlotTimeIndex, Migration0006VisibilityShown, Migration0007ObservationSeqDefault];

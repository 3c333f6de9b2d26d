import { Migration0001ConnectionConfigProjection } from './migration-0001-connection-config-projection.js';
import { Migration0002DirectoryIngest } from './migration-0002-directory-ingest.js';
import { Migration0003DirectoryReads } from './migration-0003-directory-reads.js';
import { Migration0005VehicleVisibility } from './migration-0005-vehicle-visibility.js';
import { Migration0010LedgerReadIndex } from './migration-0010-ledger-read-index.js';
import { Migration0011DatasetHealth } from './migration-0011-dataset-health.js';
import { Migration0014DriverPasses } from './migration-0014-driver-passes.js';
import { Migration0015VehiclePasses } from './migration-0015-vehicle-passes.js';
import { Migration0016PassUnits } from './migration-0016-pass-units.js';
import { Migration0017VehicleVinOutbox } from './migration-0017-vehicle-vin-outbox.js';
import { Migration0018VisibilityShown } from './migration-0018-visibility-shown.js';

/** In order; never edit an applied migration, add the next one. */
export const directoryMigrations = [
  Migration0001ConnectionConfigProjection,
  Migration0002DirectoryIngest,
  Migration0003DirectoryReads,
  Migration0005VehicleVisibility,
  Migration0010LedgerReadIndex,
  Migration0011DatasetHealth,
  Migration0014DriverPasses,
  Migration0015VehiclePasses,
  Migration0016PassUnits,
  Migration0017VehicleVinOutbox,
  Migration0018VisibilityShown,
];

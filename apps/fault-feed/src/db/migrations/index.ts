import { Migration0001ConnectionConfigProjection } from './migration-0001-connection-config-projection.js';
import { Migration0002FaultFeed } from './migration-0002-fault-feed.js';
import { Migration0003FaultReads } from './migration-0003-fault-reads.js';
import { Migration0004FaultStructuredCode } from './migration-0004-fault-structured-code.js';
import { Migration0005VisibilityShown } from './migration-0005-visibility-shown.js';

/** In order; never edit an applied migration, add the next one. */
export const faultFeedMigrations = [Migration0001ConnectionConfigProjection, Migration0002FaultFeed, Migration0003FaultReads, Migration0004FaultStructuredCode, Migration0005VisibilityShown];

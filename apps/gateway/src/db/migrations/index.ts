import { Migration0001CredentialsAndConnections } from './migration-0001-credentials-and-connections.js';
import { Migration0002Outbox } from './migration-0002-outbox.js';
import { Migration0003ConnectionAccessEpoch } from './migration-0003-connection-access-epoch.js';
import { Migration0004ApplicationTokenVersion } from './migration-0004-application-token-version.js';
import { Migration0005ConnectSessions } from './migration-0005-connect-sessions.js';
import { Migration0006RequestRate } from './migration-0006-request-rate.js';
import { Migration0007RequestRateChanges } from './migration-0007-request-rate-changes.js';
import { Migration0008OperatorConsole } from './migration-0008-operator-console.js';
import { Migration0009Webhooks } from './migration-0009-webhooks.js';

/** In order; never edit an applied migration, add the next one. */
export const gatewayMigrations = [Migration0001CredentialsAndConnections, Migration0002Outbox, Migration0003ConnectionAccessEpoch, Migration0004ApplicationTokenVersion, Migration0005ConnectSessions, Migration0006RequestRate, Migration0007RequestRateChanges, Migration0008OperatorConsole, Migration0009Webhooks];

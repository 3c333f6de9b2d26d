import { Connection } from './connection.entity.js';
import { OutboxMessage } from './outbox.entity.js';
import { Application, ApplicationGrant, ConnectionToken, ConsumerGrant, ConsumerKey } from './credential.entity.js';

export { Application, ApplicationGrant, Connection, ConnectionToken, ConsumerGrant, ConsumerKey, OutboxMessage };
export const gatewayEntities = [Application, ApplicationGrant, Connection, ConnectionToken, ConsumerGrant, ConsumerKey, OutboxMessage];

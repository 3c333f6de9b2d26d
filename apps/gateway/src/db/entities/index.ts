import { Connection } from './connection.entity.js';
import { OutboxMessage } from './outbox.entity.js';
import { ConnectSession, GeotabBinding } from './connect-session.entity.js';
import { Application, ApplicationGrant, ConnectionToken, ConsumerGrant, ConsumerKey } from './credential.entity.js';
import { RequestRateBucket } from './request-rate.entity.js';

export { Application, ApplicationGrant, Connection, ConnectionToken, ConnectSession, ConsumerGrant, ConsumerKey, GeotabBinding, OutboxMessage, RequestRateBucket };
export const gatewayEntities = [Application, ApplicationGrant, Connection, ConnectionToken, ConsumerGrant, ConsumerKey, OutboxMessage, ConnectSession, GeotabBinding, RequestRateBucket];

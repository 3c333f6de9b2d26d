import { Connection } from './connection.entity.js';
import { OutboxMessage, VehicleVisibilityEntity } from '@switchyard/service-kit';
import { WebhookAttempt, WebhookEndpoint, WebhookEvent, WebhookMessage } from './webhook.entity.js';
import { ConnectSession, GeotabBinding } from './connect-session.entity.js';
import { Application, ApplicationGrant, ConnectionToken, ConsumerGrant, ConsumerKey } from './credential.entity.js';
import { RequestRateBucket } from './request-rate.entity.js';
import { ConsoleSession, OperatorCredential } from './operator.entity.js';

export { WebhookAttempt, WebhookEndpoint, WebhookEvent, WebhookMessage };
export { Application, ApplicationGrant, Connection, ConnectionToken, ConnectSession, ConsoleSession, ConsumerGrant, ConsumerKey, GeotabBinding, OperatorCredential, OutboxMessage, RequestRateBucket };
export const gatewayEntities = [Application, ApplicationGrant, Connection, ConnectionToken, ConsumerGrant, ConsumerKey, OutboxMessage, ConnectSession, GeotabBinding, RequestRateBucket, OperatorCredential, ConsoleSession, WebhookEndpoint, WebhookEvent, WebhookMessage, WebhookAttempt, VehicleVisibilityEntity];

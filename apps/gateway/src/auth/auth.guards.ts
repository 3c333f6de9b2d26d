/**
 * Route decorators that bind a route to its credential scheme: they run the guard, and they
 * document the scheme and its error responses in the OpenAPI document, so the contract and the
 * behaviour cannot drift apart.
 */
import { applyDecorators, CanActivate, ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiHeader, ApiResponse } from '@nestjs/swagger';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { AuthService } from './auth.service.js';
import { authorizationOf, type AuthenticatedRequest, type ConsumerPermission, type SyncOperation } from './principal.js';

const CONSUMER_PERMISSION = 'switchyard:consumer-permission';
const SYNC_OPERATION = 'switchyard:sync-operation';

@Injectable()
export class ConsumerKeyGuard implements CanActivate {
  constructor(
    private readonly auth: AuthService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const permission = this.reflector.get<ConsumerPermission>(CONSUMER_PERMISSION, context.getHandler()) ?? 'read';
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    req.principal = await this.auth.consumer(authorizationOf(req), req.params.id, permission);
    return true;
  }
}

@Injectable()
export class AnyConsumerKeyGuard implements CanActivate {
  constructor(private readonly auth: AuthService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    await this.auth.consumerKeyOnly(authorizationOf(req));
    return true;
  }
}

@Injectable()
export class ApplicationGuard implements CanActivate {
  constructor(
    private readonly auth: AuthService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const operation = this.reflector.get<SyncOperation>(SYNC_OPERATION, context.getHandler()) ?? 'sync.read';
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    req.principal = await this.auth.application(authorizationOf(req), req.headers['connection-token'], operation);
    return true;
  }
}

@Injectable()
export class ApplicationOwnerGuard implements CanActivate {
  constructor(private readonly auth: AuthService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    req.principal = await this.auth.applicationOwner(authorizationOf(req));
    return true;
  }
}

/** Routes of the application itself (webhook endpoints, an addition beyond the contract): the application secret alone. */
export function ApplicationOwnerAuth() {
  return applyDecorators(
    UseGuards(ApplicationOwnerGuard),
    ApiBearerAuth('applicationSecret'),
    ApiResponse({ status: 401, description: 'Missing, malformed, unknown or revoked application secret, or a `pt_` consumer key (`unauthorized`).', type: ErrorBodyDto }),
  );
}

/** Connection-scoped read or management with a `pt_` consumer key (spec 4.2-4.4). */
export function ConsumerAuth(permission: ConsumerPermission = 'read') {
  return applyDecorators(
    SetMetadata(CONSUMER_PERMISSION, permission),
    UseGuards(ConsumerKeyGuard),
    ApiBearerAuth('consumerKey'),
    ApiResponse({ status: 401, description: 'Missing, malformed, unknown or revoked consumer key (`unauthorized`).', type: ErrorBodyDto }),
    ApiResponse({
      status: 404,
      description: `Connection or resource not found, the key has no \`${permission}\` grant on this connection, or the connection is disconnected (its local access is disabled until it is re-activated) (\`not_found\`; indistinguishable by design).`,
      type: ErrorBodyDto,
    }),
  );
}

/** Reads that belong to no connection (the catalog): any valid consumer key. */
export function ConsumerKeyOnly() {
  return applyDecorators(
    UseGuards(AnyConsumerKeyGuard),
    ApiBearerAuth('consumerKey'),
    ApiResponse({ status: 401, description: 'Missing, malformed, unknown or revoked consumer key (`unauthorized`).', type: ErrorBodyDto }),
  );
}

/** Sync routes: application secret plus the Connection-Token header (spec 4.1, section 5). */
export function ApplicationAuth(operation: SyncOperation) {
  return applyDecorators(
    SetMetadata(SYNC_OPERATION, operation),
    UseGuards(ApplicationGuard),
    ApiBearerAuth('applicationSecret'),
    ApiHeader({ name: 'Connection-Token', required: true, description: 'Application-scoped connection credential (`ct_…`).' }),
    ApiResponse({ status: 401, description: 'Invalid application secret or Connection-Token, or a `pt_` consumer key (`unauthorized`).', type: ErrorBodyDto }),
    ApiResponse({
      status: 403,
      // The history permission is asked only by create, for an explicit selector reaching before now (decision 0008).
      // A disconnected connection has its local access disabled (decision 0013).
      description:
        (operation === 'sync.create'
          ? 'Connection, operation or history permission denied (`connection_forbidden`, `operation_forbidden`, `history_forbidden`).'
          : 'Connection or operation permission denied (`connection_forbidden`, `operation_forbidden`).') +
        ' A disconnected connection has its local access disabled: every sync route, including reads of its past syncs, answers `connection_forbidden` until it is re-activated.',
      type: ErrorBodyDto,
    }),
  );
}

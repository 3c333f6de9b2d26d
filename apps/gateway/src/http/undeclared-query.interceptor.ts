/**
 * One rule for query parameters on every /v1 route: a parameter the route does not declare is
 * `400 invalid_query`, never silently ignored (a misspelt filter must not look like a match).
 * Routes with a query DTO already get this from the validation pipe (unknown properties refused);
 * this interceptor covers every other route, which takes no query parameter at all, so
 * `GET /v1/catalog?x=1` is refused like `GET /v1/syncs?x=1`. It runs after the guards, as the
 * pipe does, so an unauthenticated caller still gets 401 first. openapi/document.ts documents the
 * 400 on those routes.
 * Invariant: a handler "declares" its query only through a whole-query `@Query()` parameter typed
 * by a DTO class; anything else (no `@Query()`, or a plain object type) takes no parameters.
 */
import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { ApiError } from './api-error.js';
import { isDtoType } from './validation.pipe.js';

/** The public API's routes; /healthz, /readyz, /openapi.json and /docs are outside the rule. */
const PUBLIC_PREFIX = '/v1/';

@Injectable()
export class UndeclaredQueryInterceptor implements NestInterceptor {
  /** Per handler: whether it validates a query DTO (the metadata never changes at run time). */
  private readonly declares = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const query = req.query as Record<string, unknown> | undefined;
    if (req.routeOptions.url?.startsWith(PUBLIC_PREFIX) && query && Object.keys(query).length > 0 && !this.declaresQuery(context)) {
      throw new ApiError('invalid_query', {}, { in: 'query', name: Object.keys(query)[0], reason: 'unknown' });
    }
    return next.handle();
  }

  private declaresQuery(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let declares = this.declares.get(handler);
    if (declares === undefined) {
      const controller = context.getClass();
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<string, { index: number; data?: unknown }>;
      const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, handler.name) ?? []) as unknown[];
      declares = Object.entries(args).some(([key, arg]) => key.startsWith(`${RouteParamtypes.QUERY}:`) && arg.data === undefined && isDtoType(types[arg.index]));
      this.declares.set(handler, declares);
    }
    return declares;
  }
}

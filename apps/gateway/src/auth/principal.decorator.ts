/**
 * `@Principal()`: the caller a route guard established (auth.guards.ts), handed to the handler as a
 * parameter — the consumer principal of a `@ConsumerAuth` route, or with `@Principal('application')`
 * the application principal of an `@ApplicationAuth` route. A route whose guard set no principal of
 * that kind is a programming error (500), never a client's.
 */
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AuthenticatedRequest, Principal as AnyPrincipal } from './principal.js';

const principalParam = createParamDecorator((kind: AnyPrincipal['kind'], ctx: ExecutionContext): AnyPrincipal => {
  const { principal } = ctx.switchToHttp().getRequest<AuthenticatedRequest>();
  if (principal?.kind !== kind) throw new Error(`route without a ${kind} principal`);
  return principal;
});

export const Principal = (kind: AnyPrincipal['kind'] = 'consumer'): ParameterDecorator => principalParam(kind);

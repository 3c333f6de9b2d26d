/**
 * The one mark of an operation beyond the contract's 36 (webhook endpoints, issue 29; data
 * freshness, issue 27): its OpenAPI description opens with ADDITION_PREFIX and a note naming the
 * feature, and it carries `x-switchyard-addition: true`, so the contract's operations stay exactly
 * the 36 they were (the OpenAPI test holds every operation to one side or the other).
 */
import { ApiExtension, ApiOperation } from '@nestjs/swagger';

export const ADDITION_PREFIX = 'Addition beyond the contract\'s 36 operations';

/** A method decorator factory for the additions of one feature: `note` follows the prefix, e.g. "(webhooks, issue 29; docs/webhooks.md)." */
export const apiAddition = (note: string) => (summary: string, operationId: string, description: string) => (target: object, key: string | symbol, descriptor: PropertyDescriptor) => {
  ApiOperation({ operationId, summary, description: `${ADDITION_PREFIX} ${note} ${description}` })(target, key, descriptor);
  ApiExtension('x-switchyard-addition', true)(target, key, descriptor);
};

/**
 * DTO validation with class-validator, mapped to specific reason codes by where the value came
 * from: query → `invalid_query`, body → `invalid_body`, path → `invalid_path`. Unknown properties
 * are refused (a misspelt filter must not be silently ignored). Runs before any handler logic.
 * A body must be a JSON object; a route whose body is optional takes it with `@OptionalBody()`,
 * for which no body (none sent, or an empty one) is an empty object and anything else is validated
 * like `@Body()`. A refusal names the first offending parameter or property and why
 * (`Switchyard-Error-Detail`, error-detail.ts): unknown, repeated (a query parameter given twice
 * arrives as an array), out of range, or malformed. Bodies arrive here at most MAX_BODY_DEPTH deep
 * (configure.ts), so the recursive transform below cannot overflow the stack.
 */
import { createParamDecorator, Injectable, type ArgumentMetadata, type ExecutionContext, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { ApiError } from './api-error.js';
import type { ErrorDetail } from './error-detail.js';

const CODE_BY_SOURCE = { query: 'invalid_query', body: 'invalid_body', param: 'invalid_path', custom: 'invalid_body' } as const;
const LOCATION_BY_SOURCE = { query: 'query', body: 'body', param: 'path', custom: 'body' } as const;
/** class-validator constraints that bound a value rather than shape it. */
const RANGE_CONSTRAINTS = new Set(['max', 'min', 'isPositive', 'isNegative', 'maxLength', 'minLength', 'isLength', 'arrayMaxSize', 'arrayMinSize']);

/** The detail of the first failed property. */
export function detailOf(errors: ValidationError[], where: ErrorDetail['in']): ErrorDetail {
  const first = errors[0];
  const constraints = Object.keys(first?.constraints ?? {});
  const reason: ErrorDetail['reason'] = constraints.includes('whitelistValidation')
    ? 'unknown'
    : where === 'query' && Array.isArray(first?.value)
      ? 'repeated'
      : constraints.length > 0 && constraints.every((c) => RANGE_CONSTRAINTS.has(c))
        ? 'out_of_range'
        : 'malformed';
  return { in: where, ...(first?.property ? { name: first.property } : {}), reason };
}
const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Array, Object]);

/** Whether a parameter's declared type is a DTO class this pipe validates (not a primitive or plain object). */
export const isDtoType = (metatype: unknown): boolean => typeof metatype === 'function' && !PRIMITIVES.has(metatype);

/** The `data` of @OptionalBody(), by which the pipe tells it from any other custom parameter. */
const OPTIONAL_BODY = 'optional-body';

const requestBody = createParamDecorator((_mode: typeof OPTIONAL_BODY, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<{ body?: unknown }>().body);

/**
 * The request body of a route that may be called without one (POST /v1/syncs, spec 4.1): absent,
 * it is validated as `{}`. Declare it in the document with `@ApiBody({ type, required: false })`.
 */
export const OptionalBody = (): ParameterDecorator => requestBody(OPTIONAL_BODY);

@Injectable()
export class ContractValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype, type, data } = metadata;
    if (!isDtoType(metatype)) return value;
    const code = CODE_BY_SOURCE[type];
    const optionalBody = type === 'custom' && data === OPTIONAL_BODY;
    if (optionalBody && value === undefined) value = {};
    if ((type === 'body' || optionalBody) && (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new ApiError('invalid_body', {}, { in: 'body', reason: 'not_object' });
    }
    const instance = plainToInstance(metatype as new () => object, value ?? {}, { enableImplicitConversion: false });
    const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
    if (errors.length > 0) throw new ApiError(code, {}, detailOf(errors, LOCATION_BY_SOURCE[type]));
    return instance;
  }
}

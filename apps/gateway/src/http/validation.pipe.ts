/**
 * DTO validation with class-validator, mapped to specific reason codes by where the value came
 * from: query → `invalid_query`, body → `invalid_body`, path → `invalid_path`. Unknown properties
 * are refused (a misspelt filter must not be silently ignored). Runs before any handler logic.
 */
import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ApiError } from './api-error.js';

const CODE_BY_SOURCE = { query: 'invalid_query', body: 'invalid_body', param: 'invalid_path', custom: 'invalid_body' } as const;
const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Array, Object]);

@Injectable()
export class ContractValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype, type } = metadata;
    if (!metatype || PRIMITIVES.has(metatype)) return value;
    const code = CODE_BY_SOURCE[type];
    if (type === 'body' && (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new ApiError('invalid_body');
    }
    const instance = plainToInstance(metatype as new () => object, value ?? {}, { enableImplicitConversion: false });
    const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
    if (errors.length > 0) throw new ApiError(code);
    return instance;
  }
}

/** The error body of every non-2xx response (spec 2.1): exactly one field, a reason code. */
import { ApiProperty } from '@nestjs/swagger';
import { ERROR_CODES } from '@switchyard/contracts';

export class ErrorBodyDto {
  @ApiProperty({ description: 'Reason code (snake_case).', enum: Object.keys(ERROR_CODES), example: 'not_found' })
  error!: string;
}

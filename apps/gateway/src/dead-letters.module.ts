/**
 * The module graph of the gateway's dead-letter role (decision 0046): imports and wiring only —
 * the one handler serving the dead-letter operations the operator console asks for. No HTTP API,
 * no consumer, no table of its own.
 */
import { Module } from '@nestjs/common';
import { DeadLettersHandler } from './handlers/dead-letters.handler.js';

@Module({ controllers: [DeadLettersHandler] })
export class DeadLettersModule {}

/**
 * The operator console (issue 30; decision 0044) as its own module of the gateway: its controller,
 * sign-in and sessions, and the reads it makes. The gateway module imports it; nothing else does.
 * The runtime's tokens (ORM, BUS, RUNTIME) and the gateway settings are global providers of every
 * service (libs/service-kit bootstrap); ContextClient is stateless, so the module holds its own.
 */
import { Module } from '@nestjs/common';
import { ConsoleRepository } from '../db/repositories/console.repository.js';
import { ContextClient } from '../services/context-client.service.js';
import { ConsoleAuth } from './console-auth.js';
import { ConsoleController } from './console.controller.js';
import { ConsoleReads } from './console-reads.js';

@Module({
  controllers: [ConsoleController],
  providers: [ConsoleRepository, ConsoleAuth, ConsoleReads, ContextClient],
})
export class ConsoleModule {}

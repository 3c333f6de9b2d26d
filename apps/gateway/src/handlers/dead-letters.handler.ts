/**
 * The gateway's dead-letter role (decision 0046): serves `dead-letters.list`, `.replay` and
 * `.discard` (RPCS.deadLetters; the operator console asks them) with the engine `npm run dlq` runs
 * (libs/messaging dead-letters.ts) on this process's bus — on JetStream, as the NATS user
 * `dead-letters`, the only service user with rights on the DLQ stream and on the subjects a replay
 * publishes to. The gateway's own user may send these requests and do nothing else with dead letters.
 * Invariants: a list reply carries no payload (`summaryOf`); every replay and discard is logged
 * once, at info, with the sequence, the original subject, the outcome and the operator who asked
 * (the audit trail; the correlation id ties it to the console's request) — never the payload. The
 * handlers touch no table, so they serve before the gateway's migrations are applied.
 */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RPCS, summaryOf, type DeadLetterFilter, type MessageBus, type RpcReplyOf, type RpcRequestOf } from '@switchyard/messaging';
import { BUS, RUNTIME, type BusPatternExtras, type ServiceRuntime } from '@switchyard/service-kit';

type Ops = typeof RPCS.deadLetters;
const NO_TABLES = { beforeMigrations: true } satisfies BusPatternExtras;

@Controller()
export class DeadLettersHandler {
  constructor(
    @Inject(BUS) private readonly bus: MessageBus,
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  @MessagePattern(RPCS.deadLetters.list.subject, NO_TABLES)
  async list(@Payload() request: RpcRequestOf<Ops['list']>): Promise<RpcReplyOf<Ops['list']>> {
    const filter: DeadLetterFilter = {
      ...(request.subject ? { subject: request.subject } : {}),
      ...(request.reason ? { reason: request.reason } : {}),
      ...(request.consumer ? { consumer: request.consumer } : {}),
      ...(request.from ? { from: new Date(request.from) } : {}),
      ...(request.to ? { to: new Date(request.to) } : {}),
      limit: request.limit,
    };
    return { deadLetters: (await this.bus.deadLetters().list(filter)).map(summaryOf) };
  }

  @MessagePattern(RPCS.deadLetters.replay.subject, NO_TABLES)
  async replay(@Payload() { seq, operator }: RpcRequestOf<Ops['replay']>): Promise<RpcReplyOf<Ops['replay']>> {
    const done = await this.bus.deadLetters().replay(seq);
    this.runtime.logger.info({ seq, subject: done.outcome === 'replayed' ? done.subject : undefined, outcome: done.outcome, operatorId: operator.id, operatorName: operator.name }, 'dead letter replay');
    return done;
  }

  @MessagePattern(RPCS.deadLetters.discard.subject, NO_TABLES)
  async discard(@Payload() { seq, operator }: RpcRequestOf<Ops['discard']>): Promise<RpcReplyOf<Ops['discard']>> {
    const done = await this.bus.deadLetters().discard(seq);
    this.runtime.logger.info({ seq, subject: done.outcome === 'discarded' ? done.subject : undefined, outcome: done.outcome, operatorId: operator.id, operatorName: operator.name }, 'dead letter discard');
    return done;
  }
}

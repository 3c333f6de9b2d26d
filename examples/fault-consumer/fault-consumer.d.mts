// Types of fault-consumer.mjs (for TypeScript users and the repository's tests).
import type { FaultTransitionConsumerV1 } from '@switchyard/messaging';

export interface FaultCloudEvent {
  specversion: string | undefined;
  id: string | undefined;
  source: string | undefined;
  type: string | undefined;
  time: string | undefined;
  subject: string | undefined;
  datacontenttype: string | undefined;
  data: FaultTransitionConsumerV1;
}

export interface Checkpoint {
  get(connectionId: string): number | Promise<number>;
  set(connectionId: string, sequence: number): void | Promise<void>;
}

export declare class MemoryCheckpoint implements Checkpoint {
  get(connectionId: string): number;
  set(connectionId: string, sequence: number): void;
}

export interface FaultConsumerOptions {
  servers: string | string[];
  durable: string;
  stream?: string;
  subjects?: string;
  checkpoint?: Checkpoint;
  handle(transition: FaultTransitionConsumerV1, event: FaultCloudEvent): unknown;
  onGap?(connectionId: string, expected: number, got: number): unknown;
  ackWaitMs?: number;
}

export interface RunningFaultConsumer {
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export declare function startFaultConsumer(options: FaultConsumerOptions): Promise<RunningFaultConsumer>;

export declare function replayFaultTransitions(options: {
  servers: string | string[];
  stream?: string;
  subjects?: string;
  handle(transition: FaultTransitionConsumerV1, event: FaultCloudEvent): unknown;
}): Promise<number>;

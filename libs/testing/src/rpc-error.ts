/**
 * The code of the RpcError a request/reply call was refused with, for suites that call a
 * context's RPC directly. Invariant: it cannot pass by accident — a call that answers, or fails with
 * anything but an RpcError (a timeout, a bug), fails the test with what actually happened.
 */
import { RpcError } from '@switchyard/messaging';

export async function rpcErrorCode(call: Promise<unknown>): Promise<string> {
  const outcome = await call.then(
    (reply: unknown) => ({ reply }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected an RpcError, the call answered ${JSON.stringify(outcome.reply)}`);
  if (!(outcome.error instanceof RpcError)) throw outcome.error;
  return outcome.error.code;
}

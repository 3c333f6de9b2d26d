/**
 * Runs the gateway's dead-letter role alone (as deployed: `dead-letters` of the gateway image,
 * decision 0046): `dead-letters.list|replay|discard` over request/reply for the operator console,
 * as the NATS user `dead-letters`; /healthz, /readyz and /metrics on HEALTH_PORT (default 3107,
 * 0 = none). The shared variables only: it holds no gateway secret (no master key, no cursor secret).
 */
import { runMain } from '@switchyard/service-kit';
import { DEAD_LETTERS_MAIN_ENV } from './config.js';
import { deadLettersService, startDeadLetters } from './index.js';

await runMain(deadLettersService, { ...DEAD_LETTERS_MAIN_ENV, start: startDeadLetters });

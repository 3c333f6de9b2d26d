import { createBus } from '../src/index.js';
import { runBusContract } from './bus.contract.js';
import { uniqueNamespace } from './test-helpers.js';

const namespace = uniqueNamespace();

runBusContract('in-process', (options) => createBus({ kind: 'in-process', namespace, logger: options?.logger }));

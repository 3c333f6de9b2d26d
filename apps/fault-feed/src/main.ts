/** Runs the fault-feed context alone (as deployed): health on HEALTH_PORT (default 3104). */
import { runMain } from '@switchyard/service-kit';
import { faultFeedService } from './index.js';

await runMain(faultFeedService, { portVariable: 'HEALTH_PORT', defaultPort: 3104 });

/**
 * `npm start` against the machine's PostgreSQL and NATS, given explicitly: a database of its own
 * (`sy_e2e_<suffix>`, dropped afterwards — the launcher uses the production schema names) and a
 * unique NATS namespace (its streams deleted afterwards).
 */
import { createTestDatabase, deleteNamespaceStreams, resolveTestServices, uniqueSuffix } from '@switchyard/testing';
import { describeLauncherScenario } from './launcher-scenario.js';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describeLauncherScenario('npm start with DATABASE_URL and NATS_URL', async () => {
  const { databaseUrl, natsUrl } = await resolveTestServices();
  const database = await createTestDatabase(databaseUrl, 'sy_e2e');
  // NATS_NAMESPACE accepts lower-case letters and digits only (docs/configuration.md): no '-'.
  const namespace = `e2e${uniqueSuffix()}`;
  return {
    env: { DATABASE_URL: database.url, NATS_URL: natsUrl, NATS_NAMESPACE: namespace },
    usingLine: () => new RegExp(`^using database: PostgreSQL at DATABASE_URL ${escape(database.url)}; bus: NATS JetStream at NATS_URL ${escape(natsUrl)}, namespace "${namespace}"$`),
    async cleanup() {
      await database.drop();
      await deleteNamespaceStreams(natsUrl, namespace);
    },
  };
});

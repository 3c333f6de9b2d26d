export const placeholder = 'apps/sync-orchestrator';

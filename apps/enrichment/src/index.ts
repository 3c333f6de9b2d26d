export const placeholder = 'apps/enrichment';

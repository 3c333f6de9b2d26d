export const placeholder = 'apps/fault-feed';

export const placeholder = 'apps/gateway';

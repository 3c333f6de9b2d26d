export const placeholder = 'apps/directory';

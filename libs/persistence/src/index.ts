export const placeholder = 'libs/persistence';

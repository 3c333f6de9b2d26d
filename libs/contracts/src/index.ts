export const placeholder = 'libs/contracts';

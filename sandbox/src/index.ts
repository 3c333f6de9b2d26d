export const placeholder = 'sandbox';

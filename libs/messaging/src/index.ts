export const placeholder = 'libs/messaging';

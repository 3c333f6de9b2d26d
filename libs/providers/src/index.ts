export const placeholder = 'libs/providers';

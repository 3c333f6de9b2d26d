export const placeholder = 'libs/service-kit';

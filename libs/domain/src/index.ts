export const placeholder = 'libs/domain';

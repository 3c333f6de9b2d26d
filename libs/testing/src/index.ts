export const placeholder = 'libs/testing';

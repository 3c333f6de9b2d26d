import { placeholder } from '@switchyard/domain';
console.log(placeholder);

/**
 * A normalized field as an adapter reports it: either a value with the provider field it came
 * from, or a status saying why there is none. Invariant: there is no third way — an adapter that
 * cannot read a value says `missing`, `invalid` or `unsupported` (with the source it looked at),
 * so downstream code can never confuse "unknown" with a zero or an empty string.
 */
export type Field<T> =
  | { readonly status: 'available'; readonly value: T; readonly source: string }
  | { readonly status: 'missing' | 'invalid' | 'unsupported'; readonly value: null; readonly source: string; readonly reason?: string };

export const available = <T>(value: T, source: string): Field<T> => ({ status: 'available', value, source });
export const missing = <T>(source: string, reason?: string): Field<T> => ({ status: 'missing', value: null, source, ...(reason ? { reason } : {}) });
export const invalid = <T>(source: string, reason: string): Field<T> => ({ status: 'invalid', value: null, source, reason });
export const unsupported = <T>(source: string): Field<T> => ({ status: 'unsupported', value: null, source });

export function valueOf<T>(field: Field<T> | undefined): T | undefined {
  return field?.status === 'available' ? field.value : undefined;
}

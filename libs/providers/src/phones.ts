/**
 * Phone numbers → E.164 (spec 2.5, PHONE_PATTERN), one rule for every adapter. Providers store phones
 * as entered: spaces, dots, dashes and parentheses are formatting and dropped. A national number is
 * completed only with a country code the provider itself gives (Motive's `phone_country_code`),
 * never a guessed one: Samsara's own example `"5558234327"` has none, and the account's country is
 * not known to the adapter, so such a number is reported invalid with the reason that it is
 * ambiguous — a consumer can tell "no country code" from "not a phone number".
 */
import { PHONE_PATTERN } from '@switchyard/contracts';
import { available, invalid, type Field } from '@switchyard/domain';

const E164 = new RegExp(PHONE_PATTERN);
const COUNTRY_CODE = /^\+?\d{1,3}$/;
/** Digits only, long enough to be a subscriber number: a national number. */
const NATIONAL = /^\d{6,14}$/;

export const PHONE_REASONS = {
  notE164: 'not an E.164 phone number',
  national: "a national number without a country code: ambiguous (the account's country is not known), not guessed",
} as const;

export interface PhoneOptions {
  /** The country code the provider sent beside the number (`"+1"` or `"1"`), if any. */
  readonly countryCode?: string | null;
  /** Prefix of the reasons (`"phone: "`), naming the wire field. */
  readonly prefix?: string;
  /** The wire field the country code came from, named when the completed number still fails. */
  readonly countryCodeField?: string;
}

/** A provider's phone string as a cell: E.164 available, else invalid with why (see the header). */
export function e164Phone(raw: string, source: string, opts: PhoneOptions = {}): Field<string> {
  const prefix = opts.prefix ?? '';
  const compact = raw.replace(/[\s().-]/g, '');
  if (compact.startsWith('+')) return E164.test(compact) ? available(compact, source) : invalid(source, `${prefix}${PHONE_REASONS.notE164}`);
  const code = opts.countryCode?.trim() ?? '';
  if (COUNTRY_CODE.test(code)) {
    // A leading trunk 0 belongs to national dialling only ("0151…" in Germany → "+49151…").
    const full = `+${code.replace(/^\+/, '')}${compact.replace(/^0+/, '')}`;
    return E164.test(full) ? available(full, source) : invalid(source, `${prefix}${PHONE_REASONS.notE164} (${opts.countryCodeField ?? 'country code'} included)`);
  }
  return invalid(source, `${prefix}${NATIONAL.test(compact) ? PHONE_REASONS.national : PHONE_REASONS.notE164}`);
}

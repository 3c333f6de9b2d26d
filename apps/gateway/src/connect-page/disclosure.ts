/**
 * The disclosure the connect page shows, versioned: every session records the version the customer
 * accepted (SessionStatus.disclosure_version). Change the text → change the version.
 */
import type { SelectedSignal } from '@switchyard/domain';

export const DISCLOSURE_VERSION = '2026-11-26.1';

export const SIGNAL_TEXT: Record<SelectedSignal, { label: string; detail: string }> = {
  odometer: { label: 'Odometer', detail: 'Distance readings of each vehicle.' },
  faults: { label: 'Fault codes', detail: 'Diagnostic trouble codes reported by each vehicle, opened and cleared.' },
  engineHours: { label: 'Engine runtime', detail: 'Engine hours of each vehicle.' },
  location: { label: 'Location', detail: 'Position, heading and speed of each vehicle.' },
};

export const DISCLOSURE_POINTS = [
  'Only the signals you tick below are shared, for the vehicles of this account; you can share one to four of them.',
  'Driver data (names, contacts, licences, hours of service) and any other dataset of your account are never read or shared.',
  'Your credentials are checked with your provider, stored encrypted, and never shown again — not to you, not to the requester.',
  'Collection starts only after the requester installs a policy limited to the signals you approved. You can ask them to disconnect at any time; disconnecting destroys the stored credentials.',
];

/**
 * Fault schedules: each vehicle has 0-3 fault slots (30 % of vehicles none). Slot k repeats with a
 * period of 4-21 days; in each period the fault occurs with probability 0.6, opens within the first
 * 30 % of the period and clears after 20 min up to 60 % of the period, so occurrences of one slot
 * never overlap and a slot's codes (table index ≡ k mod 3) never collide with another slot's.
 * Light-duty vehicles raise OBD-II codes, heavy-duty J1939 SPN/FMI.
 */
import { J1939_CODES, OBDII_CODES, faultKey, type FaultCode } from './catalog.js';
import type { SimFault, SimFaultEvent } from './fleet.types.js';
import type { VehicleProfile } from './entities.js';
import { TAG, hash, unit } from './prng.js';
import { DAY_MS } from './schedule.js';

interface Occurrence {
  code: FaultCode;
  openedAtMs: number;
  clearedAtMs: number;
}

interface Slot {
  periodMs: number;
  phaseMs: number;
  codes: readonly FaultCode[];
}

export class FaultSchedule {
  constructor(
    private readonly root: number,
    private readonly epochMs: number,
  ) {}

  private slots(v: number, profile: VehicleProfile): Slot[] {
    const r = unit(this.root, TAG.fault, v, -1);
    const count = r < 0.3 ? 0 : r < 0.7 ? 1 : r < 0.9 ? 2 : 3;
    const table = profile.model.protocol === 'j1939' ? J1939_CODES : OBDII_CODES;
    const slots: Slot[] = [];
    for (let k = 0; k < count; k++) {
      const periodMs = (4 + (hash(this.root, TAG.fault, v, k, 0) % 18)) * DAY_MS;
      const phaseMs = Math.floor(unit(this.root, TAG.fault, v, k, 1) * (periodMs / 1000)) * 1000;
      slots.push({ periodMs, phaseMs, codes: table.filter((_, i) => i % 3 === k) });
    }
    return slots;
  }

  private occurrence(v: number, k: number, slot: Slot, j: number): Occurrence | null {
    if (j < 0 || unit(this.root, TAG.fault, v, k, j, 2) >= 0.6) return null;
    const periodStart = this.epochMs + slot.phaseMs + j * slot.periodMs;
    const openedAtMs = periodStart + Math.floor(unit(this.root, TAG.fault, v, k, j, 3) * 0.3 * slot.periodMs / 1000) * 1000;
    const minMs = 20 * 60_000;
    const durationMs = minMs + Math.floor(unit(this.root, TAG.fault, v, k, j, 4) * (0.6 * slot.periodMs - minMs) / 1000) * 1000;
    const code = slot.codes[hash(this.root, TAG.fault, v, k, j, 5) % slot.codes.length] as FaultCode;
    return { code, openedAtMs, clearedAtMs: openedAtMs + durationMs };
  }

  private toFault(o: Occurrence, clearedAtMs: number | null): SimFault {
    const { code } = o;
    return {
      key: faultKey(code),
      protocol: code.protocol,
      code: code.code,
      ...(code.spn !== undefined ? { spn: code.spn, fmi: code.fmi } : {}),
      description: code.description,
      openedAtMs: o.openedAtMs,
      clearedAtMs,
    };
  }

  active(v: number, profile: VehicleProfile, tMs: number): SimFault[] {
    const out: SimFault[] = [];
    this.slots(v, profile).forEach((slot, k) => {
      const j = Math.floor((tMs - this.epochMs - slot.phaseMs) / slot.periodMs);
      const o = this.occurrence(v, k, slot, j);
      if (o && o.openedAtMs <= tMs && tMs < o.clearedAtMs) out.push(this.toFault(o, null));
    });
    return out.sort((a, b) => a.openedAtMs - b.openedAtMs || a.key.localeCompare(b.key));
  }

  /** Transitions in [fromMs, toMs); an opened fault's clearedAtMs is set only when it clears before toMs. */
  events(v: number, profile: VehicleProfile, fromMs: number, toMs: number): SimFaultEvent[] {
    const out: SimFaultEvent[] = [];
    this.slots(v, profile).forEach((slot, k) => {
      const first = Math.max(0, Math.floor((fromMs - this.epochMs - slot.phaseMs) / slot.periodMs));
      const last = Math.floor((toMs - this.epochMs - slot.phaseMs) / slot.periodMs);
      for (let j = first; j <= last; j++) {
        const o = this.occurrence(v, k, slot, j);
        if (!o) continue;
        const cleared = o.clearedAtMs < toMs ? o.clearedAtMs : null;
        if (o.openedAtMs >= fromMs && o.openedAtMs < toMs) out.push({ vehicleIndex: v, fault: this.toFault(o, cleared), kind: 'opened', tMs: o.openedAtMs });
        if (o.clearedAtMs >= fromMs && o.clearedAtMs < toMs) out.push({ vehicleIndex: v, fault: this.toFault(o, o.clearedAtMs), kind: 'cleared', tMs: o.clearedAtMs });
      }
    });
    return out.sort((a, b) => a.tMs - b.tMs || a.fault.key.localeCompare(b.fault.key));
  }
}

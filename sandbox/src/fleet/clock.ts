/**
 * Simulator clocks. A clock is fixed (factor 0: tests get exact times) or accelerated (the demo:
 * simulated time runs `factor` times faster than wall time). Both can be re-set at run time (the
 * `/_sim/clock` control API); re-setting re-anchors so simulated time never jumps unless asked to.
 */
import type { SimClock } from './fleet.types.js';

export interface ClockSetting {
  /** Simulated now, epoch ms. */
  nowMs: number;
  /** Simulated ms per wall ms; 0 = fixed. */
  factor: number;
}

export interface ControllableClock extends SimClock {
  set(change: Partial<ClockSetting>): void;
  /** Move a clock forward (or back) by `ms` simulated milliseconds. */
  advance(ms: number): void;
  describe(): ClockSetting;
}

class AnchoredClock implements ControllableClock {
  private anchorSimMs: number;
  private anchorWallMs: number;

  constructor(
    startMs: number,
    private factor: number,
    private readonly wallNow: () => number,
  ) {
    if (!Number.isFinite(startMs) || !Number.isFinite(factor) || factor < 0) throw new Error('clock: startMs and factor >= 0 must be finite numbers');
    this.anchorSimMs = startMs;
    this.anchorWallMs = wallNow();
  }

  now(): number {
    return Math.floor(this.anchorSimMs + (this.wallNow() - this.anchorWallMs) * this.factor);
  }

  set(change: Partial<ClockSetting>): void {
    const nowMs = change.nowMs ?? this.now();
    const factor = change.factor ?? this.factor;
    if (!Number.isFinite(nowMs) || !Number.isFinite(factor) || factor < 0) throw new Error('clock: nowMs and factor >= 0 must be finite numbers');
    this.anchorSimMs = nowMs;
    this.anchorWallMs = this.wallNow();
    this.factor = factor;
  }

  advance(ms: number): void {
    this.set({ nowMs: this.now() + ms });
  }

  describe(): ClockSetting {
    return { nowMs: this.now(), factor: this.factor };
  }
}

export function fixedClock(ms: number): ControllableClock {
  return new AnchoredClock(ms, 0, Date.now);
}

export function acceleratedClock(options: { startMs: number; factor: number; wallNow?: () => number }): ControllableClock {
  return new AnchoredClock(options.startMs, options.factor, options.wallNow ?? Date.now);
}

export function isControllableClock(clock: SimClock): clock is ControllableClock {
  const c = clock as Partial<ControllableClock>;
  return typeof c.set === 'function' && typeof c.describe === 'function';
}

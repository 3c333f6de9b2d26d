/**
 * Seeded hashing and random streams for the synthetic fleet. Every random choice in the fleet is
 * keyed by (seed, entity, index, slot) through `hash`, or drawn from a `stream` seeded by such a
 * hash, so the fleet is the same in every process and needs no stored state. Never Math.random.
 */

/** 32-bit FNV-1a of a string, the root of every key (the seed text). */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3's 32-bit finalizer: full avalanche, so neighbouring keys give unrelated outputs. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Mix a root with integer parts (entity tag, index, day, slot …) into one uint32. */
export function hash(root: number, ...parts: number[]): number {
  let h = root >>> 0;
  for (const part of parts) {
    // Fold doubles beyond 32 bits (negative days, large indexes) in two halves.
    const lo = part | 0;
    const hi = Math.floor(part / 4294967296) | 0;
    h = fmix(Math.imul(h ^ lo, 0x9e3779b1) + hi + 0x7f4a7c15);
  }
  return h;
}

/** Uniform in [0, 1) from a key. */
export function unit(root: number, ...parts: number[]): number {
  return hash(root, ...parts) / 4294967296;
}

/** A small sequential generator (sfc32) for the many draws of one vehicle-day. */
export class Stream {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(key: number) {
    this.a = key >>> 0;
    this.b = fmix(key ^ 0xdeadbeef);
    this.c = fmix(key + 0x6d2b79f5);
    // sfc32 needs a few rounds before its output is independent of a weak seed.
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Uniform float in [min, max). */
  range(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
}

/** Entity tags: the first key part, so a vehicle's and a driver's index 7 never share draws. */
export const TAG = { vehicle: 1, driver: 2, group: 3, day: 4, route: 5, fault: 6, battery: 7, fuel: 8 } as const;

/**
 * The provider-neutral synthetic fleet every simulator renders in its own dialect.
 *
 * Invariants (the contract the fleet model keeps, and what the simulators rely on):
 * - Deterministic: the same `seed` and options give the same fleet, byte for byte, in any process.
 * - Nothing is precomputed per time step: `stateAt(v, t)`, `tripsBetween`, `faultEventsBetween` are
 *   pure functions of (seed, vehicle, time), so a 10,000-vehicle fleet over a year costs no memory.
 * - Physical consistency: odometer and engine seconds never decrease (except through an explicit
 *   scenario such as an odometer reset), rise only while driving / running; idle seconds rise only
 *   while idling; fuel falls while the engine runs and jumps up at refuels; battery voltage is
 *   ~13.8-14.4 V with the engine on and ~12.2-12.7 V off; speed is 0 unless driving; trips are
 *   exactly the driving intervals of `stateAt`; a fault opened at t is in `stateAt(v, t').activeFaults`
 *   for t' in [opened, cleared).
 * - Gaps are real: vehicles with `hasVin: false` have no VIN, `reportsFuel: false` never report fuel,
 *   `hasOdometer: false` never report an odometer — simulators omit the field, never send 0.
 * All times are epoch milliseconds (UTC); distances meters; durations seconds; speeds m/s.
 */

export interface FleetOptions {
  seed: string;
  vehicles: number;
  /** Defaults to ~1.2 × vehicles. */
  drivers?: number;
  /** Defaults to ~vehicles / 20, at least 3, in a hierarchy up to 3 levels deep. */
  groups?: number;
  /** Epoch ms at which vehicles were created / schedules start (default 2025-01-01T00:00:00Z). */
  epochMs?: number;
}

export interface SimGroup {
  readonly index: number;
  readonly name: string;
  /** null for a root group. */
  readonly parentIndex: number | null;
}

export interface SimVehicle {
  readonly index: number;
  readonly name: string;
  /** 17-char VIN with a valid check digit, or null for vehicles without one. */
  readonly vin: string | null;
  readonly make: string;
  readonly model: string;
  readonly year: number;
  readonly fuelType: 'gasoline' | 'diesel' | 'electric' | 'hybrid_gasoline' | 'propane' | 'compressed_natural_gas';
  readonly licensePlate: string;
  /** Two-letter US state / CA province code. */
  readonly licenseState: string;
  readonly serialNumber: string;
  readonly groupIndexes: readonly number[];
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  readonly active: boolean;
  readonly reportsFuel: boolean;
  readonly hasOdometer: boolean;
  /** Odometer at epoch, meters. */
  readonly initialOdometerM: number;
  /** Engine seconds at epoch. */
  readonly initialEngineS: number;
}

export interface SimDriver {
  readonly index: number;
  readonly firstName: string;
  readonly lastName: string;
  /** Some drivers lack email / phone / license; simulators omit what is null. */
  readonly email: string | null;
  readonly phone: string | null;
  readonly username: string;
  readonly licenseNumber: string | null;
  readonly licenseState: string | null;
  readonly groupIndexes: readonly number[];
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  readonly active: boolean;
}

export type SimEngineState = 'on' | 'off' | 'idle';

export interface SimFault {
  /** Stable per (vehicle, fault): e.g. `obdii:P0420` or `j1939:spn110:fmi0`. */
  readonly key: string;
  readonly protocol: 'obdii' | 'j1939';
  readonly code: string;
  readonly spn?: number;
  readonly fmi?: number;
  readonly description: string;
  readonly openedAtMs: number;
  /** null while still open at the queried time. */
  readonly clearedAtMs: number | null;
}

export interface VehicleState {
  readonly tMs: number;
  readonly latitude: number;
  readonly longitude: number;
  readonly speedMps: number;
  /** 0-360. */
  readonly headingDeg: number;
  /** null when the vehicle has no odometer. */
  readonly odometerM: number | null;
  readonly engineSeconds: number;
  readonly idleSeconds: number;
  /** null when the vehicle never reports fuel. */
  readonly fuelPercent: number | null;
  readonly batteryVolts: number;
  readonly engineState: SimEngineState;
  /** Index of the driver assigned for the current shift, or null (unassigned / off shift). */
  readonly driverIndex: number | null;
  readonly activeFaults: readonly SimFault[];
}

export interface SimTrip {
  readonly vehicleIndex: number;
  readonly driverIndex: number | null;
  readonly startMs: number;
  readonly endMs: number;
  readonly distanceM: number;
  readonly startOdometerM: number | null;
  readonly endOdometerM: number | null;
  readonly start: { latitude: number; longitude: number };
  readonly end: { latitude: number; longitude: number };
  readonly idleSeconds: number;
  /** Sequence of the trip for this vehicle since epoch (stable id material). */
  readonly seq: number;
}

export interface SimFaultEvent {
  readonly vehicleIndex: number;
  readonly fault: SimFault;
  readonly kind: 'opened' | 'cleared';
  readonly tMs: number;
}

export interface Fleet {
  readonly options: Required<FleetOptions>;
  vehicles(): readonly SimVehicle[];
  drivers(): readonly SimDriver[];
  groups(): readonly SimGroup[];
  vehicle(index: number): SimVehicle;
  stateAt(vehicleIndex: number, tMs: number): VehicleState;
  /** Completed trips whose start lies in [fromMs, toMs), ordered by start. A trip still in progress at `nowMs` is excluded. */
  tripsBetween(vehicleIndex: number, fromMs: number, toMs: number, nowMs: number): readonly SimTrip[];
  /** Opened/cleared transitions in [fromMs, toMs), ordered by time. */
  faultEventsBetween(vehicleIndex: number, fromMs: number, toMs: number): readonly SimFaultEvent[];
  /** Sample times for history endpoints: every `stepMs` in [fromMs, toMs) (GPS-like cadence while driving). */
  sampleTimes(vehicleIndex: number, fromMs: number, toMs: number, stepMs: number): readonly number[];
}

/** The simulator clock: fixed (tests) or accelerated (demo). */
export interface SimClock {
  now(): number;
}

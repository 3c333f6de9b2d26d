/**
 * Static reference tables the synthetic fleet draws from: vehicle models (with the VIN world
 * manufacturer identifier of the real make), home bases inside North America, person names, and
 * realistic OBD-II / J1939 fault codes. Changing any table changes every seeded fleet: append only.
 */
import type { SimVehicle } from './fleet.types.js';

export interface ModelEntry {
  readonly make: string;
  readonly model: string;
  readonly fuelType: SimVehicle['fuelType'];
  /** World manufacturer identifier: VIN positions 1-3. */
  readonly wmi: string;
  /** Heavy-duty trucks speak J1939; light-duty vehicles OBD-II. */
  readonly protocol: 'obdii' | 'j1939';
  /** Cruise speed band, m/s (local delivery vs. highway). */
  readonly speedMps: readonly [number, number];
}

export const MODELS: readonly ModelEntry[] = [
  { make: 'Ford', model: 'F-150', fuelType: 'gasoline', wmi: '1FT', protocol: 'obdii', speedMps: [9, 27] },
  { make: 'Ford', model: 'Transit 250', fuelType: 'gasoline', wmi: '1FT', protocol: 'obdii', speedMps: [8, 24] },
  { make: 'Ford', model: 'E-Transit', fuelType: 'electric', wmi: '1FT', protocol: 'obdii', speedMps: [8, 22] },
  { make: 'Chevrolet', model: 'Silverado 2500HD', fuelType: 'diesel', wmi: '1GC', protocol: 'obdii', speedMps: [9, 27] },
  { make: 'Ram', model: 'ProMaster 2500', fuelType: 'gasoline', wmi: '3C6', protocol: 'obdii', speedMps: [8, 24] },
  { make: 'Toyota', model: 'Tacoma', fuelType: 'gasoline', wmi: '3TM', protocol: 'obdii', speedMps: [9, 27] },
  { make: 'Toyota', model: 'Prius', fuelType: 'hybrid_gasoline', wmi: 'JTD', protocol: 'obdii', speedMps: [8, 25] },
  { make: 'Ford', model: 'F-250 Super Duty', fuelType: 'propane', wmi: '1FT', protocol: 'obdii', speedMps: [9, 26] },
  { make: 'Freightliner', model: 'Cascadia', fuelType: 'diesel', wmi: '1FU', protocol: 'j1939', speedMps: [14, 29] },
  { make: 'International', model: 'LT625', fuelType: 'diesel', wmi: '3HS', protocol: 'j1939', speedMps: [14, 29] },
  { make: 'Kenworth', model: 'T680', fuelType: 'diesel', wmi: '1XK', protocol: 'j1939', speedMps: [14, 29] },
  { make: 'Peterbilt', model: '579', fuelType: 'diesel', wmi: '1XP', protocol: 'j1939', speedMps: [14, 29] },
  { make: 'Volvo', model: 'VNL 860', fuelType: 'diesel', wmi: '4V4', protocol: 'j1939', speedMps: [14, 29] },
  { make: 'Isuzu', model: 'NPR-HD', fuelType: 'compressed_natural_gas', wmi: 'JAL', protocol: 'j1939', speedMps: [8, 22] },
];

export interface HomeBase {
  readonly city: string;
  readonly state: string;
  readonly latitude: number;
  readonly longitude: number;
}

export const HOME_BASES: readonly HomeBase[] = [
  { city: 'Dallas', state: 'TX', latitude: 32.7767, longitude: -96.797 },
  { city: 'Atlanta', state: 'GA', latitude: 33.749, longitude: -84.388 },
  { city: 'Chicago', state: 'IL', latitude: 41.8781, longitude: -87.6298 },
  { city: 'Denver', state: 'CO', latitude: 39.7392, longitude: -104.9903 },
  { city: 'Phoenix', state: 'AZ', latitude: 33.4484, longitude: -112.074 },
  { city: 'Seattle', state: 'WA', latitude: 47.6062, longitude: -122.3321 },
  { city: 'Toronto', state: 'ON', latitude: 43.6532, longitude: -79.3832 },
  { city: 'Calgary', state: 'AB', latitude: 51.0447, longitude: -114.0719 },
  { city: 'Los Angeles', state: 'CA', latitude: 34.0522, longitude: -118.2437 },
  { city: 'Memphis', state: 'TN', latitude: 35.1495, longitude: -90.049 },
  { city: 'Columbus', state: 'OH', latitude: 39.9612, longitude: -82.9988 },
  { city: 'Charlotte', state: 'NC', latitude: 35.2271, longitude: -80.8431 },
  { city: 'Kansas City', state: 'MO', latitude: 39.0997, longitude: -94.5786 },
  { city: 'Salt Lake City', state: 'UT', latitude: 40.7608, longitude: -111.891 },
  { city: 'Montreal', state: 'QC', latitude: 45.5019, longitude: -73.5674 },
  { city: 'Vancouver', state: 'BC', latitude: 49.2827, longitude: -123.1207 },
  { city: 'Houston', state: 'TX', latitude: 29.7604, longitude: -95.3698 },
  { city: 'Jacksonville', state: 'FL', latitude: 30.3322, longitude: -81.6557 },
  { city: 'Minneapolis', state: 'MN', latitude: 44.9778, longitude: -93.265 },
  { city: 'Philadelphia', state: 'PA', latitude: 39.9526, longitude: -75.1652 },
];

export const FIRST_NAMES = [
  'James', 'Maria', 'Robert', 'Linda', 'Michael', 'Patricia', 'David', 'Jennifer', 'Carlos', 'Aisha', 'Wei', 'Priya',
  'Daniel', 'Sofia', 'Kevin', 'Nicole', 'Andre', 'Chloe', 'Tyrone', 'Emily', 'Luis', 'Hannah', 'Omar', 'Grace',
] as const;

export const LAST_NAMES = [
  'Smith', 'Johnson', 'Garcia', 'Brown', 'Martinez', 'Davis', 'Nguyen', 'Patel', 'Wilson', 'Anderson', 'Thomas', 'Lee',
  'Tremblay', 'Roy', 'Hernandez', 'Clark', 'Lewis', 'Walker', 'Young', 'King', 'Wright', 'Lopez', 'Hill', 'Scott',
] as const;

export interface FaultCode {
  readonly protocol: 'obdii' | 'j1939';
  readonly code: string;
  readonly spn?: number;
  readonly fmi?: number;
  readonly description: string;
}

export const OBDII_CODES: readonly FaultCode[] = [
  { protocol: 'obdii', code: 'P0420', description: 'Catalyst System Efficiency Below Threshold (Bank 1)' },
  { protocol: 'obdii', code: 'P0171', description: 'System Too Lean (Bank 1)' },
  { protocol: 'obdii', code: 'P0300', description: 'Random/Multiple Cylinder Misfire Detected' },
  { protocol: 'obdii', code: 'P0128', description: 'Coolant Thermostat (Coolant Temperature Below Thermostat Regulating Temperature)' },
  { protocol: 'obdii', code: 'P0442', description: 'Evaporative Emission System Leak Detected (Small Leak)' },
  { protocol: 'obdii', code: 'P0455', description: 'Evaporative Emission System Leak Detected (Large Leak)' },
  { protocol: 'obdii', code: 'P0301', description: 'Cylinder 1 Misfire Detected' },
  { protocol: 'obdii', code: 'P0113', description: 'Intake Air Temperature Sensor 1 Circuit High' },
  { protocol: 'obdii', code: 'P0562', description: 'System Voltage Low' },
];

export const J1939_CODES: readonly FaultCode[] = [
  { protocol: 'j1939', code: 'SPN 110 FMI 0', spn: 110, fmi: 0, description: 'Engine Coolant Temperature - Data Valid But Above Normal Operational Range - Most Severe Level' },
  { protocol: 'j1939', code: 'SPN 100 FMI 1', spn: 100, fmi: 1, description: 'Engine Oil Pressure - Data Valid But Below Normal Operational Range - Most Severe Level' },
  { protocol: 'j1939', code: 'SPN 3251 FMI 0', spn: 3251, fmi: 0, description: 'Aftertreatment 1 Diesel Particulate Filter Differential Pressure - Above Normal' },
  { protocol: 'j1939', code: 'SPN 4364 FMI 18', spn: 4364, fmi: 18, description: 'Aftertreatment 1 SCR Conversion Efficiency - Data Valid But Below Normal Operating Range - Moderately Severe Level' },
  { protocol: 'j1939', code: 'SPN 1569 FMI 31', spn: 1569, fmi: 31, description: 'Engine Protection Torque Derate - Condition Exists' },
  { protocol: 'j1939', code: 'SPN 168 FMI 1', spn: 168, fmi: 1, description: 'Battery Potential / Power Input 1 - Data Valid But Below Normal Operational Range' },
  { protocol: 'j1939', code: 'SPN 1761 FMI 17', spn: 1761, fmi: 17, description: 'Aftertreatment 1 Diesel Exhaust Fluid Tank Level - Data Valid But Below Normal Operating Range - Least Severe Level' },
  { protocol: 'j1939', code: 'SPN 97 FMI 15', spn: 97, fmi: 15, description: 'Water In Fuel Indicator - Data Valid But Above Normal Operating Range - Least Severe Level' },
  { protocol: 'j1939', code: 'SPN 639 FMI 14', spn: 639, fmi: 14, description: 'J1939 Network #1 - Special Instructions' },
];

export function faultKey(code: FaultCode): string {
  return code.protocol === 'obdii' ? `obdii:${code.code}` : `j1939:spn${code.spn}:fmi${code.fmi}`;
}

/** Every catalog fault by its key (the `standing_fault` scenario names one). */
export const CATALOG_FAULTS: ReadonlyMap<string, FaultCode> = new Map([...OBDII_CODES, ...J1939_CODES].map((c) => [faultKey(c), c]));
export const CATALOG_FAULT_KEYS = [...CATALOG_FAULTS.keys()] as [string, ...string[]];

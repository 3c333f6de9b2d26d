export * from './field.js';
export * from './vehicle.record.js';
export * from './driver.record.js';
export * from './group.record.js';
export * from './trip.record.js';
export * from './observation.record.js';
export * from './fault.record.js';

/**
 * Where a vehicle is, as a pure function of the distance it has driven since the epoch: each
 * vehicle loops a closed 6-waypoint route around its home base (8-60 km radius, inside North
 * America). Position moves exactly as far as the odometer does, and heading is the bearing of the
 * current leg, so speed, heading and successive positions agree.
 */
import type { VehicleProfile } from './entities.js';
import { TAG, unit } from './prng.js';

const M_PER_DEG_LAT = 111_320;
const WAYPOINTS = 6;

export interface Route {
  /** Waypoints as meters east / north of the home base. */
  readonly east: readonly number[];
  readonly north: readonly number[];
  /** Cumulative loop distance at each waypoint; last entry is the loop length. */
  readonly along: readonly number[];
  readonly lat0: number;
  readonly lon0: number;
}

export function makeRoute(root: number, v: number, profile: VehicleProfile): Route {
  const east: number[] = [];
  const north: number[] = [];
  for (let k = 0; k < WAYPOINTS; k++) {
    const angle = ((k * 360) / WAYPOINTS + (unit(root, TAG.route, v, k, 0) - 0.5) * 30) * (Math.PI / 180);
    const radius = profile.routeRadiusM * (0.5 + 0.5 * unit(root, TAG.route, v, k, 1));
    east.push(radius * Math.sin(angle));
    north.push(radius * Math.cos(angle));
  }
  const along = [0];
  for (let k = 0; k < WAYPOINTS; k++) {
    const n = (k + 1) % WAYPOINTS;
    along.push((along[k] as number) + Math.hypot((east[n] as number) - (east[k] as number), (north[n] as number) - (north[k] as number)));
  }
  return { east, north, along, lat0: profile.home.latitude, lon0: profile.home.longitude };
}

export interface RoutePoint {
  latitude: number;
  longitude: number;
  headingDeg: number;
}

export function pointAt(route: Route, distanceM: number): RoutePoint {
  const loop = route.along[WAYPOINTS] as number;
  const s = ((distanceM % loop) + loop) % loop;
  let k = 0;
  while (k < WAYPOINTS - 1 && s >= (route.along[k + 1] as number)) k++;
  const n = (k + 1) % WAYPOINTS;
  const legStart = route.along[k] as number;
  const legLength = (route.along[k + 1] as number) - legStart;
  const f = legLength > 0 ? (s - legStart) / legLength : 0;
  const de = (route.east[n] as number) - (route.east[k] as number);
  const dn = (route.north[n] as number) - (route.north[k] as number);
  const east = (route.east[k] as number) + f * de;
  const north = (route.north[k] as number) + f * dn;
  const latitude = route.lat0 + north / M_PER_DEG_LAT;
  const longitude = route.lon0 + east / (M_PER_DEG_LAT * Math.cos((route.lat0 * Math.PI) / 180));
  const heading = (Math.atan2(de, dn) * 180) / Math.PI;
  return { latitude, longitude, headingDeg: (heading + 360) % 360 };
}

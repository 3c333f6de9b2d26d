/**
 * The console's static files, all served from this origin (issue 30: zero requests to anything
 * else — no tile server, font, glyph or CDN): its own CSS and scripts (assets/, copied beside the
 * build), Leaflet's script and stylesheet from the `leaflet` package, and the basemap — Natural
 * Earth's 1:110m land polygons from the `world-atlas` package, converted once from TopoJSON to
 * GeoJSON with `topojson-client` (55 KB of TopoJSON → about 110 KB of GeoJSON, read and converted
 * on first use, then held in memory). Everything is read once and kept; a name not in the table is 404.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
/** The one function of topojson-client used here (its UMD build, loaded by require: the package ships no types). */
const { feature } = require('topojson-client') as { feature(topology: Topology, object: unknown): unknown };

interface Topology {
  type: 'Topology';
  objects: Record<string, unknown>;
}
const here = path.join(import.meta.dirname, 'assets');

interface Asset {
  type: string;
  load(): Buffer | string;
}

const file = (where: string, type: string): Asset => ({ type, load: () => readFileSync(where) });

/** Natural Earth land (public domain), as one GeoJSON FeatureCollection. */
function landGeoJson(): string {
  const topology = JSON.parse(readFileSync(require.resolve('world-atlas/land-110m.json'), 'utf8')) as Topology;
  return JSON.stringify(feature(topology, topology.objects.land));
}

const TABLE: Record<string, Asset> = {
  'console.css': file(path.join(here, 'console.css'), 'text/css; charset=utf-8'),
  'console.js': file(path.join(here, 'console.js'), 'text/javascript; charset=utf-8'),
  'map.js': file(path.join(here, 'map.js'), 'text/javascript; charset=utf-8'),
  'leaflet.js': file(require.resolve('leaflet/dist/leaflet.js'), 'text/javascript; charset=utf-8'),
  'leaflet.css': file(require.resolve('leaflet/dist/leaflet.css'), 'text/css; charset=utf-8'),
  'land.geojson': { type: 'application/geo+json', load: landGeoJson },
};

const loaded = new Map<string, Buffer | string>();

/** The asset `name` with its media type, or undefined for a name not in the table. */
export function consoleAsset(name: string): { type: string; body: Buffer | string } | undefined {
  const asset = TABLE[name];
  if (!asset) return undefined;
  let body = loaded.get(name);
  if (body === undefined) loaded.set(name, (body = asset.load()));
  return { type: asset.type, body };
}

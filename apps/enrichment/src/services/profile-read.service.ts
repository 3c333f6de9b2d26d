/**
 * A vehicle's VehicleProfile from this context's own tables, never waiting on the vendor or the
 * decoder (spec 2.4: served from the cache).
 * Decisions:
 * - a vehicle the VIN projection does not hold on this connection is `not_found`, as is one the
 *   directory's hidden set (projection `vehicle_visibility`) lists — indistinguishable, like every
 *   other vehicle read; before the connection's first set has arrived every vehicle is hidden
 *   (fail closed: the directory publishes a set as soon as the connection has a configuration);
 * - a product without a row yet is `pending`.
 */
import { RpcError } from '@switchyard/messaging';
import { ENRICHMENT_PRODUCTS, type EnrichmentProduct, type GetVehicleProfileRequestV1, type VehicleProfileV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { VehicleVisibilityStore } from '@switchyard/service-kit';
import { EnrichmentRepository, type ProductRow } from '../db/repositories/enrichment.repository.js';
import { IDENTITY_ADAPTER_VERSION, IDENTITY_SOURCE } from '../identity/vin-identity.decoder.js';
import { VENDOR_ADAPTER_VERSION, VENDOR_SOURCE } from './vendor-source.js';

const notFound = () => new RpcError('not_found', 'no such vehicle on this connection');

type Value = VehicleProfileV1['identity'];

function valueOf(product: EnrichmentProduct, row: ProductRow | undefined): Value {
  if (row === undefined) {
    const identity = product === 'identity';
    return { status: 'pending', data: null, source: identity ? IDENTITY_SOURCE : VENDOR_SOURCE, adapterVersion: identity ? IDENTITY_ADAPTER_VERSION : VENDOR_ADAPTER_VERSION, fetchedAt: null, errorCode: null };
  }
  return { status: row.status, data: row.data as Value['data'], source: row.source, adapterVersion: row.adapter_version, fetchedAt: row.fetched_at, errorCode: row.error_code };
}

export class ProfileReadService {
  constructor(
    private readonly repository = new EnrichmentRepository(),
    private readonly visibility = new VehicleVisibilityStore(),
  ) {}

  async profile(em: Em, request: GetVehicleProfileRequestV1): Promise<VehicleProfileV1> {
    const [vehicle, set] = await Promise.all([this.repository.vehicle(em, request.connectionId, request.vehicleId), this.visibility.get(em, request.connectionId)]);
    if (vehicle === undefined || set === undefined || set.hidden.some((h) => h.vehicleId === request.vehicleId)) throw notFound();
    const rows = new Map((await this.repository.products(em, request.vehicleId)).map((r) => [r.product, r]));
    const values = Object.fromEntries(ENRICHMENT_PRODUCTS.map((p) => [p, valueOf(p, rows.get(p))])) as Record<EnrichmentProduct, Value>;
    return { vehicleId: request.vehicleId, vin: vehicle.vin, ...values } as VehicleProfileV1;
  }
}

/**
 * A vehicle's VehicleProfile (or one product's EnrichmentSection) from this context's own tables,
 * never waiting on the vendor or the decoder (spec 2.4: served from the cache). PostgreSQL renders
 * the body (profile-read.repository.ts) and it travels to the gateway as that JSON text (a framed
 * reply, libs/messaging framed-reply.ts).
 * Decisions:
 * - a vehicle the VIN projection does not hold on this connection is `not_found`, as is one the
 *   one visibility rule hides (decision 0029: the directory's set, `lists: false`) —
 *   indistinguishable, like every other vehicle read; before the connection's first set has
 *   arrived every vehicle is hidden (fail closed);
 * - a product without a row yet is `pending`.
 */
import { RpcError, type GetVehicleProfileReplyV1, type GetVehicleProfileRequestV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { ProfileReadRepository, type PendingSources } from '../db/repositories/profile-read.repository.js';
import { IDENTITY_ADAPTER_VERSION, IDENTITY_SOURCE } from '../identity/vin-identity.decoder.js';
import { VENDOR_ADAPTER_VERSION, VENDOR_SOURCE } from './vendor-source.js';

const vendor = { source: VENDOR_SOURCE, adapterVersion: VENDOR_ADAPTER_VERSION };
const PENDING: PendingSources = { identity: { source: IDENTITY_SOURCE, adapterVersion: IDENTITY_ADAPTER_VERSION }, images: vendor, specifications: vendor, build: vendor };

export class ProfileReadService {
  constructor(private readonly repository = new ProfileReadRepository()) {}

  async profile(em: Em, request: GetVehicleProfileRequestV1): Promise<GetVehicleProfileReplyV1> {
    const row = await this.repository.profile(em, request, PENDING);
    if (!row) throw new RpcError('not_found', 'no such vehicle on this connection');
    return { meta: {}, body: row.body };
  }
}

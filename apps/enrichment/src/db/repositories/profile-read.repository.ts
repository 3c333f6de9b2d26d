/**
 * The SQL of the profile read (profile-read.service.ts): one statement renders the VehicleProfile —
 * or one product's EnrichmentSection — as JSON text in PostgreSQL (issue 24: the body travels to
 * the gateway as that text, never parsed on the way) of a vehicle the VIN projection holds on this
 * connection and the one visibility rule shows (service-kit visibilityCte with `lists: false`:
 * this context holds neither the configuration nor provider ids, decision 0029). A product without
 * a row yet is `pending` with its source's name and adapter version (the caller passes them).
 */
import { ENRICHMENT_PRODUCTS, type EnrichmentProduct } from '@switchyard/messaging';
import { isoSql, readQuery, tableNamer, type Em } from '@switchyard/persistence';
import { visibilityCte, visibleVehicleSql } from '@switchyard/service-kit';

export interface ProfileBody {
  body: string;
}

export type PendingSources = Record<EnrichmentProduct, { source: string; adapterVersion: string }>;

export class ProfileReadRepository {
  /** The profile (or, with `product`, its section) of a shown vehicle of the connection; undefined when the VIN projection does not hold it or it is hidden. */
  async profile(em: Em, q: { connectionId: string; vehicleId: string; product?: EnrichmentProduct }, pending: PendingSources): Promise<ProfileBody | undefined> {
    const t = tableNamer(em);
    // The rule's CTE takes the connection id as the statement's first parameter.
    const params: unknown[] = [q.connectionId];
    // The EnrichmentValue members of one product: its row, or `pending` before it has one.
    const value = (product: EnrichmentProduct) => {
      params.push(product, pending[product].source, pending[product].adapterVersion);
      return `coalesce((select json_build_object('status', p.status, 'data', p.data, 'source', p.source, 'adapterVersion', p.adapter_version, 'fetchedAt', ${isoSql('p.fetched_at')}, 'errorCode', p.error_code)
                          from ${t('enrichment_product')} p where p.vehicle_id = v.vehicle_id and p.product = ?),
                        json_build_object('status', 'pending', 'data', null, 'source', ?::text, 'adapterVersion', ?::text, 'fetchedAt', null, 'errorCode', null))`;
    };
    let body: string;
    if (q.product) {
      params.push(q.product);
      body = `(json_build_object('vehicleId', v.vehicle_id, 'vin', v.vin, 'product', ?::text)::jsonb || ${value(q.product)}::jsonb)::text`;
    } else {
      body = `json_build_object('vehicleId', v.vehicle_id, 'vin', v.vin, ${ENRICHMENT_PRODUCTS.map((p) => `'${p}', ${value(p)}`).join(', ')})::text`;
    }
    // Prepared (readQuery): planning this statement cost PostgreSQL ~0.75 ms per read, running it ~0.1 ms.
    const [row] = await readQuery<ProfileBody>(
      em,
      `with ${visibilityCte(t, { lists: false })}
       select ${body} as body from ${t('enrichment_vehicle')} v
        where v.vehicle_id = ? and v.connection_id = ?::uuid and ${visibleVehicleSql('v.vehicle_id', 'null')}`,
      [...params, q.vehicleId, q.connectionId],
    );
    return row;
  }
}

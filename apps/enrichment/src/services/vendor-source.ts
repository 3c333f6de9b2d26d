/** How vendor values name their origin (EnrichmentValue `source`, `adapterVersion`). */
export const VENDOR_SOURCE = 'autospec';
export const VENDOR_ADAPTER_VERSION = 'autospec-v2/1';

/**
 * Decodes an OTLP `ExportTraceServiceRequest` (opentelemetry-proto trace/v1, collector/trace/v1)
 * from protobuf bytes or from its JSON form into one flat list of spans — the decoding half of the
 * test OTLP receiver (otlp-receiver.ts). Only the fields a test asserts on are read (ids, parent,
 * name, kind, times, attributes, events, status, the resource's attributes); the rest is skipped
 * by wire type, as protobuf readers do, so a newer exporter's extra fields cannot break it.
 * Invariant: both encodings give the same ReceivedSpan for the same span (otlp-receiver.spec.ts
 * sends one trace through the SDK's exporters of both protocols).
 */

export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };

export type SpanKindName = 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Absent for a root span. */
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: SpanKindName;
  /** `service.name` of the span's resource. */
  readonly service: string;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly resource: Readonly<Record<string, AttributeValue>>;
  readonly events: readonly { name: string; attributes: Readonly<Record<string, AttributeValue>> }[];
  /** 0 unset, 1 ok, 2 error. */
  readonly status: { code: number; message: string };
}

const KINDS: readonly SpanKindName[] = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

/** A protobuf reader over one message's bytes. */
class Reader {
  private pos = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.bytes.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = this.bytes[this.pos++];
      if (byte === undefined) throw new Error('protobuf: truncated varint');
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  }

  fixed64(): bigint {
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8);
    this.pos += 8;
    return view.getBigUint64(0, true);
  }

  double(): number {
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8);
    this.pos += 8;
    return view.getFloat64(0, true);
  }

  bytesField(): Uint8Array {
    const length = Number(this.varint());
    const slice = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    return slice;
  }

  /** Next field number and wire type; `skip` passes over a field not read. */
  tag(): { field: number; wire: number } {
    const tag = Number(this.varint());
    return { field: tag >>> 3, wire: tag & 7 };
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytesField();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`protobuf: unsupported wire type ${wire}`);
  }
}

const text = new TextDecoder();
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** Reads a message's fields: `read(field, reader, wire)` returns false for a field it leaves to skip. */
function fields(bytes: Uint8Array, read: (field: number, reader: Reader, wire: number) => boolean): void {
  const reader = new Reader(bytes);
  while (!reader.done) {
    const { field, wire } = reader.tag();
    if (!read(field, reader, wire)) reader.skip(wire);
  }
}

function anyValue(bytes: Uint8Array): AttributeValue {
  let value: AttributeValue = null;
  fields(bytes, (field, r) => {
    if (field === 1) value = text.decode(r.bytesField());
    else if (field === 2) value = r.varint() !== 0n;
    else if (field === 3) value = Number(BigInt.asIntN(64, r.varint()));
    else if (field === 4) value = r.double();
    else if (field === 5) {
      const values: AttributeValue[] = [];
      fields(r.bytesField(), (f, rr) => (f === 1 ? (values.push(anyValue(rr.bytesField())), true) : false));
      value = values;
    } else if (field === 6) value = keyValues(r.bytesField(), 1);
    else if (field === 7) value = hex(r.bytesField());
    else return false;
    return true;
  });
  return value;
}

/** One KeyValue message. */
function keyValue(bytes: Uint8Array): [string, AttributeValue] {
  let key = '';
  let value: AttributeValue = null;
  fields(bytes, (field, r) => {
    if (field === 1) key = text.decode(r.bytesField());
    else if (field === 2) value = anyValue(r.bytesField());
    else return false;
    return true;
  });
  return [key, value];
}

/** The KeyValue entries under `field` of a message, as a record. */
function keyValues(bytes: Uint8Array, field: number): Record<string, AttributeValue> {
  const record: Record<string, AttributeValue> = {};
  fields(bytes, (f, r) => {
    if (f !== field) return false;
    const [key, value] = keyValue(r.bytesField());
    record[key] = value;
    return true;
  });
  return record;
}

function protobufSpan(bytes: Uint8Array, resource: Record<string, AttributeValue>): ReceivedSpan {
  let traceId = '';
  let spanId = '';
  let parentSpanId: string | undefined;
  let name = '';
  let kind = 0;
  let startNs = 0n;
  let endNs = 0n;
  const attributes: Record<string, AttributeValue> = {};
  const events: ReceivedSpan['events'][number][] = [];
  const status = { code: 0, message: '' };
  fields(bytes, (field, r) => {
    if (field === 1) traceId = hex(r.bytesField());
    else if (field === 2) spanId = hex(r.bytesField());
    else if (field === 4) {
      const parent = r.bytesField();
      parentSpanId = parent.length > 0 ? hex(parent) : undefined;
    } else if (field === 5) name = text.decode(r.bytesField());
    else if (field === 6) kind = Number(r.varint());
    else if (field === 7) startNs = r.fixed64();
    else if (field === 8) endNs = r.fixed64();
    else if (field === 9) {
      const [key, value] = keyValue(r.bytesField());
      attributes[key] = value;
    } else if (field === 11) {
      let eventName = '';
      const eventAttributes: Record<string, AttributeValue> = {};
      fields(r.bytesField(), (ef, er) => {
        if (ef === 2) eventName = text.decode(er.bytesField());
        else if (ef === 3) {
          const [key, value] = keyValue(er.bytesField());
          eventAttributes[key] = value;
        }
        else return false;
        return true;
      });
      events.push({ name: eventName, attributes: eventAttributes });
    } else if (field === 15) {
      fields(r.bytesField(), (sf, sr) => {
        if (sf === 2) status.message = text.decode(sr.bytesField());
        else if (sf === 3) status.code = Number(sr.varint());
        else return false;
        return true;
      });
    } else return false;
    return true;
  });
  return { traceId, spanId, parentSpanId, name, kind: KINDS[kind] ?? 'unspecified', service: String(resource['service.name'] ?? ''), startNs, endNs, attributes, resource, events, status };
}

/** Spans of a protobuf `ExportTraceServiceRequest`. */
export function decodeProtobufTraces(bytes: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  fields(bytes, (field, r) => {
    if (field !== 1) return false;
    const resourceSpans = r.bytesField();
    let resource: Record<string, AttributeValue> = {};
    const scopeSpans: Uint8Array[] = [];
    fields(resourceSpans, (rf, rr) => {
      if (rf === 1) resource = keyValues(rr.bytesField(), 1);
      else if (rf === 2) scopeSpans.push(rr.bytesField());
      else return false;
      return true;
    });
    for (const scope of scopeSpans) fields(scope, (sf, sr) => (sf === 2 ? (spans.push(protobufSpan(sr.bytesField(), resource)), true) : false));
    return true;
  });
  return spans;
}

interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
  kvlistValue?: { values?: JsonKeyValue[] };
  bytesValue?: string;
}
interface JsonKeyValue {
  key: string;
  value?: JsonAnyValue;
}
interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  attributes?: JsonKeyValue[];
  events?: { name: string; attributes?: JsonKeyValue[] }[];
  status?: { code?: number; message?: string };
}
interface JsonRequest {
  resourceSpans?: { resource?: { attributes?: JsonKeyValue[] }; scopeSpans?: { spans?: JsonSpan[] }[] }[];
}

function jsonValue(value: JsonAnyValue | undefined): AttributeValue {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(jsonValue);
  if (value.kvlistValue) return jsonAttributes(value.kvlistValue.values);
  if (value.bytesValue !== undefined) return Buffer.from(value.bytesValue, 'base64').toString('hex');
  return null;
}

function jsonAttributes(entries: readonly JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((entries ?? []).map((e) => [e.key, jsonValue(e.value)]));
}

/** Spans of an OTLP/JSON `ExportTraceServiceRequest` (ids as hex, as the specification says). */
export function decodeJsonTraces(body: string): ReceivedSpan[] {
  const request = JSON.parse(body) as JsonRequest;
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const resource = jsonAttributes(rs.resource?.attributes);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ? s.parentSpanId : undefined,
        name: s.name,
        kind: KINDS[s.kind ?? 0] ?? 'unspecified',
        service: String(resource['service.name'] ?? ''),
        startNs: BigInt(s.startTimeUnixNano ?? 0),
        endNs: BigInt(s.endTimeUnixNano ?? 0),
        attributes: jsonAttributes(s.attributes),
        resource,
        events: (s.events ?? []).map((e) => ({ name: e.name, attributes: jsonAttributes(e.attributes) })),
        status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
      })),
    );
  });
}

import { createHash } from 'node:crypto';
import type { LogSpan } from './cacheable-call.ts';

/**
 * One file of the RPC cache: the answers kept from one batch of calls. A first line
 * `idx-rpc-cache 1 <header bytes> <body bytes> <sha256 of header and body>`, a JSON header listing
 * each answer's key, place in the body and log span, then the answers' JSON one after another.
 * Opening the cache reads headers only; an answer is served only from a file whose checksum holds,
 * so a damaged file is refetched, never served.
 */
export interface SegmentEntry {
  key: string;
  /** where the answer's JSON is in the body */
  offset: number;
  length: number;
  span?: LogSpan;
}

const MAGIC = 'idx-rpc-cache 1';
type HeaderRow = [key: string, offset: number, length: number, span?: [filter: string, from: number, to: number]];

/** A segment's bytes for `answers` (each answer's JSON text), and its entries. */
export function encodeSegment(answers: readonly { key: string; json: string; span?: LogSpan }[]): { bytes: Buffer; entries: SegmentEntry[] } {
  const rows: HeaderRow[] = [];
  const entries: SegmentEntry[] = [];
  const bodies: Buffer[] = [];
  let offset = 0;
  for (const a of answers) {
    const bytes = Buffer.from(a.json, 'utf8');
    rows.push(a.span === undefined ? [a.key, offset, bytes.length] : [a.key, offset, bytes.length, [a.span.filter, a.span.from, a.span.to]]);
    entries.push({ key: a.key, offset, length: bytes.length, ...(a.span && { span: a.span }) });
    bodies.push(bytes);
    offset += bytes.length;
  }
  const header = Buffer.from(JSON.stringify(rows), 'utf8');
  const body = Buffer.concat(bodies);
  const sum = createHash('sha256').update(header).update(body).digest('hex');
  return { bytes: Buffer.concat([Buffer.from(`${MAGIC} ${header.length} ${body.length} ${sum}\n`, 'utf8'), header, body]), entries };
}

export interface SegmentLayout {
  /** where the header starts and how long it is */
  headerStart: number;
  headerLength: number;
  bodyLength: number;
  checksum: string;
}

/** The first line of a segment (given at least its first 128 bytes), or undefined when it is not one. */
export function segmentLayout(head: Buffer): SegmentLayout | undefined {
  const eol = head.indexOf(10);
  if (eol < 0) return undefined;
  const m = /^idx-rpc-cache 1 (\d+) (\d+) ([0-9a-f]{64})$/.exec(head.toString('utf8', 0, eol));
  if (m === null) return undefined;
  return { headerStart: eol + 1, headerLength: Number(m[1]), bodyLength: Number(m[2]), checksum: m[3]! };
}

/** A segment's entries from its header bytes, or undefined when they are not a header. */
export function segmentEntries(header: Buffer): SegmentEntry[] | undefined {
  let rows: unknown;
  try {
    rows = JSON.parse(header.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(rows)) return undefined;
  const entries: SegmentEntry[] = [];
  for (const r of rows as unknown[]) {
    if (!Array.isArray(r) || typeof r[0] !== 'string' || !Number.isSafeInteger(r[1]) || !Number.isSafeInteger(r[2])) return undefined;
    const span = r[3] as unknown;
    const e: SegmentEntry = { key: r[0], offset: r[1] as number, length: r[2] as number };
    if (Array.isArray(span) && typeof span[0] === 'string' && Number.isSafeInteger(span[1]) && Number.isSafeInteger(span[2]))
      e.span = { filter: span[0], from: span[1] as number, to: span[2] as number };
    entries.push(e);
  }
  return entries;
}

/** A whole segment's body, when the file is whole and its checksum holds; else undefined. */
export function checkedBody(file: Buffer): Buffer | undefined {
  const layout = segmentLayout(file.subarray(0, 256));
  if (layout === undefined) return undefined;
  const end = layout.headerStart + layout.headerLength + layout.bodyLength;
  if (file.length !== end) return undefined;
  const sum = createHash('sha256').update(file.subarray(layout.headerStart, end)).digest('hex');
  return sum === layout.checksum ? file.subarray(layout.headerStart + layout.headerLength) : undefined;
}

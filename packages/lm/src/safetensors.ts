import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CheckpointError } from './lm-errors';
import { elementCount, type NamedTensor, type NamedTensors } from './named-tensors';

/** The dtypes read here (all become float32); F32, F16 and BF16 can also be written. */
export type SafetensorsDtype = 'F32' | 'F16' | 'BF16' | 'F64';

const ITEM_SIZE: Record<SafetensorsDtype, number> = { F32: 4, F16: 2, BF16: 2, F64: 8 };

export interface SafetensorsFile {
  readonly tensors: NamedTensors;
  /** The `__metadata__` strings (empty when the file has none). */
  readonly metadata: Record<string, string>;
  /** Each tensor's stored dtype, before conversion to float32. */
  readonly dtypes: Map<string, SafetensorsDtype>;
}

const float32Scratch = new Float32Array(1);
const uint32Scratch = new Uint32Array(float32Scratch.buffer);

function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : NaN;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** float32 → IEEE half, rounding to nearest even (overflow → ±Infinity). */
function floatToHalf(value: number): number {
  float32Scratch[0] = value;
  const x = uint32Scratch[0] as number;
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    let half = mantissa >> shift;
    const remainder = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (remainder > halfway || (remainder === halfway && half & 1)) half += 1;
    return sign | half;
  }
  let half = (e << 10) | (mantissa >> 13);
  const remainder = mantissa & 0x1fff;
  if (remainder > 0x1000 || (remainder === 0x1000 && half & 1)) half += 1;
  return sign | half;
}

function floatToBf16(value: number): number {
  float32Scratch[0] = value;
  const x = uint32Scratch[0] as number;
  if ((x & 0x7fffffff) > 0x7f800000) return (x >>> 16) | 0x40;
  return ((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) & 0xffff;
}

/** Copies the bytes so typed arrays are aligned whatever the tensor's offset in the file. */
function decode(bytes: Uint8Array, dtype: SafetensorsDtype, count: number): Float32Array {
  // Not bytes.slice(): a Node Buffer's slice is a view into a shared pool, not a copy.
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  if (dtype === 'F32') return new Float32Array(copy.buffer, 0, count);
  if (dtype === 'F64') return Float32Array.from(new Float64Array(copy.buffer, 0, count));
  const halves = new Uint16Array(copy.buffer, 0, count);
  const out = new Float32Array(count);
  if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < count; i++) bits[i] = (halves[i] as number) << 16;
  } else {
    for (let i = 0; i < count; i++) out[i] = halfToFloat(halves[i] as number);
  }
  return out;
}

interface HeaderEntry {
  readonly name: string;
  readonly dtype: SafetensorsDtype;
  readonly shape: number[];
  readonly begin: number;
  readonly end: number;
}

const isSize = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** Reads `length` bytes at `position` of the file (a view of an in-memory file, or a read from disk). */
type ReadBytes = (position: number, length: number) => Uint8Array;

/** The header's JSON object, after checking that the 8-byte length fits the file (before any allocation). */
function readHeader(
  read: ReadBytes,
  fileLength: number,
  source: string,
): { header: Record<string, unknown>; dataStart: number } {
  if (fileLength < 8) throw new CheckpointError(`${source}: not a safetensors file (${fileLength} bytes).`);
  const prefix = read(0, 8);
  const headerLength = Number(new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true));
  if (headerLength > fileLength - 8 || headerLength > 100_000_000) {
    throw new CheckpointError(`${source}: header length ${headerLength} does not fit a ${fileLength}-byte file.`);
  }
  let text: string;
  try {
    // Fatal, as the safetensors library refuses a header that is not UTF-8: the default decoder put U+FFFD in its
    // place, and the tensor loaded under a name no model has.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(read(8, headerLength));
  } catch (error) {
    throw new CheckpointError(`${source}: the header is not UTF-8 text.`, { cause: error });
  }
  let header: unknown;
  try {
    header = JSON.parse(text);
  } catch (error) {
    throw new CheckpointError(`${source}: the header is not valid JSON.`, { cause: error });
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header))
    throw new CheckpointError(`${source}: the header is not a JSON object of tensors.`);
  return { header: header as Record<string, unknown>, dataStart: 8 + headerLength };
}

/**
 * `__metadata__` as the safetensors library reads it (an optional map of string to string): null is a file with none,
 * which that library accepts and this reader refused; any value that is not a string is refused there too.
 */
function readMetadata(entry: unknown, source: string): Record<string, string> {
  if (entry === null) return {};
  if (typeof entry !== 'object' || Array.isArray(entry))
    throw new CheckpointError(`${source}: __metadata__ must be an object of strings.`);
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (typeof value !== 'string')
      throw new CheckpointError(`${source}: __metadata__ "${key}" must be a string, got ${JSON.stringify(value)}.`);
    metadata[key] = value;
  }
  return metadata;
}

/** One tensor's entry, checked on its own: a known dtype, sizes as shape, whole offsets that hold the shape. */
function readEntry(name: string, entry: unknown, dataLength: number, source: string): HeaderEntry {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw new CheckpointError(`${source}: tensor "${name}" has a malformed header entry.`);
  const { dtype, shape, data_offsets: offsets } = entry as Record<string, unknown>;
  if (typeof dtype !== 'string' || !Object.hasOwn(ITEM_SIZE, dtype)) {
    throw new CheckpointError(
      `${source}: tensor "${name}" has dtype ${String(dtype)}; only F32, F16, BF16 and F64 can be read.`,
    );
  }
  if (!Array.isArray(shape) || !shape.every(isSize))
    throw new CheckpointError(
      `${source}: tensor "${name}" has shape ${JSON.stringify(shape)}; expected a list of sizes.`,
    );
  const [begin, end] = Array.isArray(offsets) && offsets.length === 2 ? offsets : [];
  if (!isSize(begin) || !isSize(end) || begin > end) {
    throw new CheckpointError(
      `${source}: tensor "${name}" has data_offsets ${JSON.stringify(offsets)}; expected [begin, end] byte positions.`,
    );
  }
  const size = elementCount(shape) * ITEM_SIZE[dtype as SafetensorsDtype];
  if (end > dataLength || end - begin !== size) {
    throw new CheckpointError(
      `${source}: tensor "${name}" (${dtype} [${shape.join(', ')}]) needs ${size} bytes but its data_offsets [${begin}, ${end}] ` +
        `${end > dataLength ? `run past the ${dataLength} data bytes` : 'say otherwise'}.`,
    );
  }
  return { name, dtype: dtype as SafetensorsDtype, shape, begin, end };
}

/**
 * Tensors must tile the data bytes exactly, as the safetensors library requires: an overlap would load one
 * tensor's bytes as another's weights, and unowned bytes mean the header and the data disagree.
 */
function checkTiling(entries: HeaderEntry[], dataLength: number, source: string): void {
  const sorted = [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let position = 0;
  let previous: HeaderEntry | undefined;
  for (const entry of sorted) {
    if (entry.begin < position) {
      throw new CheckpointError(
        `${source}: tensor "${entry.name}" (bytes ${entry.begin}-${entry.end}) would overlap tensor "${previous?.name}" ` +
          `(bytes ${previous?.begin}-${previous?.end}).`,
      );
    }
    if (entry.begin > position) {
      throw new CheckpointError(
        `${source}: tensor "${entry.name}" starts at byte ${entry.begin} but the tensor before it ends at ${position}.`,
      );
    }
    position = entry.end;
    previous = entry;
  }
  if (position !== dataLength)
    throw new CheckpointError(`${source}: the tensors hold ${position} of the ${dataLength} data bytes.`);
}

/** Checks the whole header first, then reads and converts one tensor at a time. */
function readTensors(read: ReadBytes, fileLength: number, source: string): SafetensorsFile {
  const { header, dataStart } = readHeader(read, fileLength, source);
  const dataLength = fileLength - dataStart;
  let metadata: Record<string, string> = {};
  const entries: HeaderEntry[] = [];
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') metadata = readMetadata(entry, source);
    else entries.push(readEntry(name, entry, dataLength, source));
  }
  checkTiling(entries, dataLength, source);
  const tensors: NamedTensors = new Map();
  const dtypes = new Map<string, SafetensorsDtype>();
  for (const { name, dtype, shape, begin, end } of entries) {
    tensors.set(name, { shape, data: decode(read(dataStart + begin, end - begin), dtype, elementCount(shape)) });
    dtypes.set(name, dtype);
  }
  return { tensors, metadata, dtypes };
}

/**
 * Reads a safetensors file: an 8-byte little-endian header length, a JSON header
 * `{name: {dtype, shape, data_offsets: [begin, end]}, __metadata__?}`, then raw little-endian bytes.
 * F32, F16, BF16 and F64 tensors become float32; any other dtype, a header that does not fit the
 * bytes, or tensors that do not tile the data bytes exactly, is an error naming the tensor and `source`.
 */
export function readSafetensors(bytes: Uint8Array, source = 'model.safetensors'): SafetensorsFile {
  return readTensors((position, length) => bytes.subarray(position, position + length), bytes.length, source);
}

/** Node refuses single reads (and readFileSync) past 2 GiB; tensors are read in pieces below that. */
const READ_CHUNK_BYTES = 1 << 30;

/**
 * `readSafetensors` of a file on disk, read one tensor at a time: a checkpoint file over 2 GiB (a 1.5B model in
 * bf16), which readFileSync refuses, loads too, and only one tensor's bytes are held at a time.
 */
export function readSafetensorsFile(path: string): SafetensorsFile {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    // ENOENT, EACCES: the loader's error tree, naming the file, not a bare Node error.
    throw new CheckpointError(`${path}: cannot open the safetensors file: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    // A directory opens on Linux and then fails its first read with a bare EISDIR.
    if (!fstatSync(fd).isFile()) throw new CheckpointError(`${path}: not a file, so not a safetensors file.`);
    const read: ReadBytes = (position, length) => {
      const out = Buffer.alloc(length);
      let done = 0;
      while (done < length) {
        const got = readSync(fd, out, done, Math.min(READ_CHUNK_BYTES, length - done), position + done);
        if (got === 0)
          throw new CheckpointError(`${path}: the file ended while reading it (truncated as it was read?).`);
        done += got;
      }
      return out;
    };
    return readTensors(read, fstatSync(fd).size, path);
  } finally {
    closeSync(fd);
  }
}

function encode(tensor: NamedTensor, dtype: Exclude<SafetensorsDtype, 'F64'>): Uint8Array {
  if (dtype === 'F32')
    return new Uint8Array(
      tensor.data.buffer.slice(tensor.data.byteOffset, tensor.data.byteOffset + tensor.data.byteLength),
    );
  const halves = new Uint16Array(tensor.data.length);
  const convert = dtype === 'F16' ? floatToHalf : floatToBf16;
  for (let i = 0; i < halves.length; i++) halves[i] = convert(tensor.data[i] as number);
  return new Uint8Array(halves.buffer);
}

/** Writes tensors as safetensors (sorted by name, header padded with spaces to 8 bytes, as HF does). */
export function writeSafetensors(
  tensors: NamedTensors,
  options: { dtype?: Exclude<SafetensorsDtype, 'F64'>; metadata?: Record<string, string> } = {},
): Uint8Array {
  const dtype = options.dtype ?? 'F32';
  const names = [...tensors.keys()].sort();
  const header: Record<string, unknown> = {};
  if (options.metadata && Object.keys(options.metadata).length > 0) header.__metadata__ = options.metadata;
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const name of names) {
    const tensor = tensors.get(name) as NamedTensor;
    if (tensor.data.length !== elementCount(tensor.shape)) {
      throw new CheckpointError(
        `writeSafetensors: tensor "${name}" has ${tensor.data.length} values for shape [${tensor.shape.join(', ')}].`,
      );
    }
    const chunk = encode(tensor, dtype);
    header[name] = { dtype, shape: [...tensor.shape], data_offsets: [offset, offset + chunk.length] };
    chunks.push(chunk);
    offset += chunk.length;
  }
  let headerText = JSON.stringify(header);
  headerText += ' '.repeat((8 - (Buffer.byteLength(headerText) % 8)) % 8);
  const headerBytes = new TextEncoder().encode(headerText);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let position = 8 + headerBytes.length;
  for (const chunk of chunks) {
    out.set(chunk, position);
    position += chunk.length;
  }
  return out;
}

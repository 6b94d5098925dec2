import { CheckpointError } from './lm-errors';
import type { NamedTensors } from './named-tensors';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSafetensors, readSafetensorsFile, writeSafetensors } from './safetensors';

const tensors: NamedTensors = new Map([
  ['b.weight', { shape: [2, 3], data: Float32Array.from([1, -2.5, 0.1, 65504, 1e-7, -0]) }],
  ['a.bias', { shape: [1], data: Float32Array.from([3.140625]) }],
]);

/** A safetensors file written by hand, the way HF's library lays it out. */
function handWritten(header: Record<string, unknown>, data: Uint8Array): Uint8Array {
  const text = JSON.stringify(header);
  const headerBytes = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + headerBytes.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  out.set(data, 8 + headerBytes.length);
  return out;
}

describe('safetensors', () => {
  it('round-trips float32 exactly, with metadata, sorted names and an 8-byte aligned header', () => {
    const bytes = writeSafetensors(tensors, { metadata: { format: 'pt' } });
    expect(Number(new DataView(bytes.buffer).getBigUint64(0, true)) % 8).toBe(0);
    const file = readSafetensors(bytes);
    expect([...file.tensors.keys()]).toEqual(['a.bias', 'b.weight']);
    expect(file.metadata).toEqual({ format: 'pt' });
    expect(file.tensors.get('b.weight')).toEqual(tensors.get('b.weight'));
  });

  it('reads F16 and BF16 written by another writer', () => {
    // 1.0, -2.0, 0.5, 65504 (max half), a subnormal 2^-24 in F16; 1.0, -2.0, 3.140625 in BF16.
    const f16 = Uint16Array.from([0x3c00, 0xc000, 0x3800, 0x7bff, 0x0001]);
    const bf16 = Uint16Array.from([0x3f80, 0xc000, 0x4049]);
    const data = new Uint8Array(16);
    data.set(new Uint8Array(f16.buffer), 0);
    data.set(new Uint8Array(bf16.buffer), 10);
    const file = readSafetensors(
      handWritten(
        {
          h: { dtype: 'F16', shape: [5], data_offsets: [0, 10] },
          g: { dtype: 'BF16', shape: [3], data_offsets: [10, 16] },
        },
        data,
      ),
    );
    expect([...file.tensors.get('h')!.data]).toEqual([1, -2, 0.5, 65504, 2 ** -24]);
    expect([...file.tensors.get('g')!.data]).toEqual([1, -2, 3.140625]);
    expect(file.dtypes.get('g')).toBe('BF16');
  });

  it('writes F16 and BF16 that read back within their precision', () => {
    for (const [dtype, tolerance] of [
      ['F16', 1e-3],
      ['BF16', 8e-3],
    ] as const) {
      const back = readSafetensors(writeSafetensors(tensors, { dtype })).tensors.get('b.weight')!.data;
      tensors
        .get('b.weight')!
        .data.forEach((value, i) =>
          expect(Math.abs(back[i]! - value)).toBeLessThanOrEqual(Math.abs(value) * tolerance + 1e-7),
        );
    }
  });

  it('names the tensor whose bytes do not fit, and refuses other dtypes', () => {
    const short = handWritten({ w: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }, new Uint8Array(8));
    expect(() => readSafetensors(short, 'x.safetensors')).toThrow(CheckpointError);
    expect(() => readSafetensors(short, 'x.safetensors')).toThrow(
      /x.safetensors: tensor "w".*run past the 8 data bytes/,
    );
    const ints = handWritten({ i: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }, new Uint8Array(8));
    expect(() => readSafetensors(ints)).toThrow(/tensor "i" has dtype I64/);
    expect(() => readSafetensors(new Uint8Array([1, 2, 3]))).toThrow(/not a safetensors file/);
  });
  it('refuses headers that are not an object of well-formed entries, naming the file and tensor', () => {
    const header = (text: string): Uint8Array => {
      const bytes = new TextEncoder().encode(text);
      const out = new Uint8Array(8 + bytes.length);
      new DataView(out.buffer).setBigUint64(0, BigInt(bytes.length), true);
      out.set(bytes, 8);
      return out;
    };
    expect(() => readSafetensors(header('null'), 'n.safetensors')).toThrow(
      /n.safetensors: the header is not a JSON object/,
    );
    expect(() => readSafetensors(header('[1]'), 'n.safetensors')).toThrow(/not a JSON object/);
    expect(() => readSafetensors(header('{"w": null}'), 'n.safetensors')).toThrow(
      /n.safetensors: tensor "w" has a malformed header entry/,
    );
    expect(() => readSafetensors(header('{"__metadata__": "pt"}'))).toThrow(/__metadata__ must be an object/);
    expect(() => readSafetensors(header('{"__metadata__": {"format": 1}}'))).toThrow(
      /__metadata__ "format" must be a string/,
    );
    // "toString" is in every object's prototype chain; it is not a dtype.
    const proto = handWritten({ w: { dtype: 'toString', shape: [1], data_offsets: [0, 4] } }, new Uint8Array(4));
    expect(() => readSafetensors(proto)).toThrow(/tensor "w" has dtype toString/);
  });

  it('reads "__metadata__": null as no metadata, as the safetensors library does', () => {
    // Its header type is Option<HashMap<String, String>>: null is a file without metadata, not a malformed one.
    const file = handWritten(
      { __metadata__: null, w: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } },
      new Uint8Array(new Float32Array([2.5]).buffer),
    );
    const read = readSafetensors(file);
    expect(read.metadata).toEqual({});
    expect([...(read.tensors.get('w')?.data ?? [])]).toEqual([2.5]);
  });

  it('refuses a header that is not UTF-8 instead of loading a tensor under a mangled name', () => {
    const text = new TextEncoder().encode('{"w?": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}');
    text[3] = 0xff; // the "?": a byte no UTF-8 text holds
    const out = new Uint8Array(8 + text.length + 4);
    new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
    out.set(text, 8);
    expect(() => readSafetensors(out, 'n.safetensors')).toThrow(CheckpointError);
    expect(() => readSafetensors(out, 'n.safetensors')).toThrow(/n.safetensors: the header is not UTF-8 text/);
  });

  it('refuses shapes that are not lists of sizes, even when the byte count works out', () => {
    const data = new Uint8Array(16);
    for (const shape of [[-1, -4], [2.5, 2], ['4'], [4, null]]) {
      const bytes = handWritten({ w: { dtype: 'F32', shape, data_offsets: [0, 16] } }, data);
      expect(() => readSafetensors(bytes, 's.safetensors')).toThrow(/s.safetensors: tensor "w" has shape/);
    }
    for (const offsets of [
      [-16, 0],
      [0.5, 16.5],
      ['0', '16'],
      [16, 0],
    ]) {
      const bytes = handWritten({ w: { dtype: 'F32', shape: [4], data_offsets: offsets } }, data);
      expect(() => readSafetensors(bytes, 's.safetensors')).toThrow(/s.safetensors: tensor "w" has data_offsets/);
    }
  });

  it('refuses overlapping tensors, gaps and bytes no tensor owns, as the safetensors library does', () => {
    const data = new Uint8Array(Float32Array.from([1, 2, 3]).buffer);
    const overlap = handWritten(
      {
        a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] },
        b: { dtype: 'F32', shape: [2], data_offsets: [4, 12] },
      },
      data,
    );
    expect(() => readSafetensors(overlap, 'o.safetensors')).toThrow(/o.safetensors: tensor "b".*overlap.*"a"/);
    const gap = handWritten(
      {
        a: { dtype: 'F32', shape: [1], data_offsets: [0, 4] },
        b: { dtype: 'F32', shape: [1], data_offsets: [8, 12] },
      },
      data,
    );
    expect(() => readSafetensors(gap, 'g.safetensors')).toThrow(
      /g.safetensors: tensor "b".*starts at byte 8.*ends at 4/,
    );
    const trailing = handWritten({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, data);
    expect(() => readSafetensors(trailing, 't.safetensors')).toThrow(/t.safetensors: .*8 of the 12 data bytes/);
  });

  it('refuses a header length larger than the file before reading or allocating', () => {
    const lying = new Uint8Array(16);
    new DataView(lying.buffer).setBigUint64(0, 2n ** 62n, true);
    expect(() => readSafetensors(lying, 'l.safetensors')).toThrow(/l.safetensors: header length/);
    const huge = handWritten({ w: { dtype: 'F32', shape: [1e6, 1e6, 1e6], data_offsets: [0, 4] } }, new Uint8Array(4));
    expect(() => readSafetensors(huge, 'h.safetensors')).toThrow(/h.safetensors: tensor "w"/);
  });
  it('reads a file tensor by tensor, so files past what Node reads whole (2 GiB) load too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'turngym-safetensors-'));
    try {
      const path = join(dir, 'model.safetensors');
      writeFileSync(path, writeSafetensors(tensors, { metadata: { format: 'pt' }, dtype: 'BF16' }));
      expect(readSafetensorsFile(path)).toEqual(readSafetensors(readFileSync(path), path));
      // A sparse 2.2 GB file: readFileSync refuses it outright; read by tensor, the header is what is wrong.
      writeFileSync(path, handWritten({ w: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, new Uint8Array(4)));
      truncateSync(path, 2.2e9);
      expect(() => readSafetensorsFile(path)).toThrow(/model.safetensors: the tensors hold 4 of the \d+ data bytes/);
      truncateSync(path, 20);
      expect(() => readSafetensorsFile(path)).toThrow(
        /model.safetensors: header length \d+ does not fit a 20-byte file/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names a path that is missing or not a file with a CheckpointError, not a bare Node error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'turngym-safetensors-'));
    try {
      // A shard name in model.safetensors.index.json that is a directory failed with a bare EISDIR.
      expect(() => readSafetensorsFile(dir)).toThrow(CheckpointError);
      expect(() => readSafetensorsFile(dir)).toThrow(/: not a file, so not a safetensors file/);
      const missing = join(dir, 'missing.safetensors');
      expect(() => readSafetensorsFile(missing)).toThrow(CheckpointError);
      expect(() => readSafetensorsFile(missing)).toThrow(
        /missing\.safetensors: cannot open the safetensors file: ENOENT/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
